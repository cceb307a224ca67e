// Stream values: appends across nodes, iteration both ways, deletion, trimming, the lag
// counters, and the snapshot codec's round trip and refusal of malformed nodes.
#include "db/stream.h"

#include <string>
#include <vector>

#include "check.h"
#include "ds/listpack.h"
#include "persist/object_codec.h"
#include "persist/value_codec.h"

namespace {
using db::Stream;
using db::StreamID;

std::vector<StreamID> Ids(Stream* s, StreamID a, StreamID b, bool rev) {
  std::vector<StreamID> out;
  db::StreamIterator si(s, a, b, rev);
  StreamID id;
  int64_t n;
  while (si.Next(&id, &n)) {
    std::string_view f, v;
    for (int64_t i = 0; i < n; i++) si.Field(&f, &v);
    out.push_back(id);
  }
  return out;
}

void Add(Stream* s, uint64_t ms, uint64_t seq, std::vector<std::string_view> fields) {
  StreamID id{ms, seq}, got;
  CHECK(db::StreamAppend(s, fields, 0, &id, true, &got) == db::AppendStatus::kOk);
}
}  // namespace

TEST_CASE(StreamAppendIterateDeleteTrim) {
  Stream s;
  for (uint64_t i = 1; i <= 250; i++) Add(&s, i, i % 3, {"f", "v", i % 2 ? "g" : "h", "x"});
  CHECK_EQ(s.length, 250u);
  CHECK_EQ(s.nodes.size(), 3u);  // 100 entries per node
  CHECK_EQ(Ids(&s, {}, db::kStreamMaxID, false).size(), 250u);
  auto rev = Ids(&s, {10, 0}, {20, UINT64_MAX}, true);
  CHECK_EQ(rev.size(), 11u);
  CHECK(rev.front() == (StreamID{20, 2}));
  CHECK(rev.back() == (StreamID{10, 1}));
  CHECK(db::StreamDeleteID(&s, {15, 0}));
  CHECK(!db::StreamDeleteID(&s, {15, 0}));
  CHECK_EQ(Ids(&s, {15, 0}, {15, 0}, false).size(), 0u);
  StreamID added;
  CHECK(db::StreamAppend(&s, {"f", "v"}, 0, &s.last_id, true, &added) ==
        db::AppendStatus::kIdTooSmall);
  db::StreamTrimArgs t;
  t.strategy = db::StreamTrimArgs::kMaxLen;
  t.maxlen = 120;
  t.approx = true;
  CHECK_EQ(db::StreamTrim(&s, t), 99);  // the first node only (99 live entries)
  t.approx = false;
  CHECK_EQ(db::StreamTrim(&s, t), 30);
  CHECK_EQ(s.length, 120u);
  CHECK(s.first_id == (StreamID{131, 2}));
  CHECK(db::StreamFirstStoredID(&s) == (StreamID{101, 2}));
}

TEST_CASE(StreamLagCounters) {
  Stream s;
  for (uint64_t i = 1; i <= 5; i++) Add(&s, i, 0, {"a", "1"});
  db::StreamCG* cg = db::StreamCreateCG(&s, "g", {2, 0}, db::kEntriesReadInvalid);
  int64_t lag;
  CHECK(!db::StreamGroupLag(&s, cg, &lag));  // between first and last: unknown
  cg->last_id = {5, 0};
  CHECK(db::StreamGroupLag(&s, cg, &lag));
  CHECK_EQ(lag, 0);
  cg->last_id = {0, 0};
  CHECK(db::StreamGroupLag(&s, cg, &lag));
  CHECK_EQ(lag, 5);
}

TEST_CASE(StreamSnapshotRoundTripAndMalformedNodes) {
  db::RegisterStreamType();
  auto* o = db::NewStream("k");
  Stream* s = db::GetStream(o);
  for (uint64_t i = 1; i <= 150; i++) Add(s, i, 0, {"field", std::to_string(i)});
  db::StreamCG* cg = db::StreamCreateCG(s, "g", {3, 0}, 3);
  db::StreamConsumer* c = db::StreamCreateConsumer(cg, "c", 1000);
  for (uint64_t i = 1; i <= 3; i++) {
    auto& nack = cg->pel[{i, 0}];
    nack.consumer = c;
    nack.delivery_time = 1000;
    c->pel[{i, 0}] = &nack;
  }
  std::string dump = persist::EncodeDump(persist::ToValue(o));
  persist::Value v;
  CHECK(persist::DecodeDump(dump, &v) == persist::DumpStatus::kOk);
  db::Obj* back = persist::FromValue("k", v, -1);
  Stream* b = db::GetStream(back);
  CHECK_EQ(b->length, 150u);
  CHECK_EQ(b->groups.at("g")->pel.size(), 3u);
  CHECK(b->groups.at("g")->pel.at({2, 0}).consumer->name == "c");
  // A node whose master count disagrees with its entries is refused.
  uint8_t* lp = s->nodes.begin()->second;
  uint8_t* p = ds::lp::First(lp);
  s->nodes.begin()->second = ds::lp::Replace(lp, &p, "7");
  CHECK(persist::DecodeDump(persist::EncodeDump(persist::ToValue(o)), &v) ==
        persist::DumpStatus::kBadFormat);
  db::FreeObj(o);
  db::FreeObj(back);
}
