// Snapshot codec: round trip of every type through the writer and reader, databases, expires,
// IDLE/FREQ, aux hooks, a real redis-server 7.0 file, and rejection of truncated or damaged
// input (every prefix, every bit flip).
#include "persist/snapshot.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/crc64.h"
#include "check.h"
#include "db/db.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/zset.h"
#include "persist/object_codec.h"

namespace {

using persist::Kind;
using persist::Value;

std::string Unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

// A fixed pseudo-random sequence (xorshift64), so that failures repeat.
struct XorShift {
  uint64_t x = 88172645463325252ULL;
  uint64_t operator()() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

Value Str(std::string s) {
  Value v;
  v.kind = Kind::kString;
  v.str = std::move(s);
  return v;
}
Value Coll(Kind k, std::vector<std::string> e) {
  Value v;
  v.kind = k;
  v.elems = std::move(e);
  return v;
}
Value ZSet(std::vector<std::pair<std::string, double>> z) {
  Value v;
  v.kind = Kind::kZSet;
  v.zelems = std::move(z);
  return v;
}
Value Hash(std::vector<std::pair<std::string, std::string>> p) {
  Value v;
  v.kind = Kind::kHash;
  v.pairs = std::move(p);
  return v;
}

// Canonical form for comparison: unordered types sorted.
std::string Canon(Value v) {
  std::string out = std::to_string(static_cast<int>(v.kind)) + "|";
  switch (v.kind) {
    case Kind::kString:
      out += v.str;
      break;
    case Kind::kList:
      for (auto& e : v.elems) out += e + ",";
      break;
    case Kind::kSet:
      std::sort(v.elems.begin(), v.elems.end());
      for (auto& e : v.elems) out += e + ",";
      break;
    case Kind::kZSet:
      std::sort(v.zelems.begin(), v.zelems.end());
      for (auto& [m, s] : v.zelems) out += m + "=" + std::to_string(s) + ",";
      break;
    case Kind::kHash:
      std::sort(v.pairs.begin(), v.pairs.end());
      for (auto& [f, x] : v.pairs) out += f + "=" + x + ",";
      break;
    case Kind::kStream:
      out += "stream";  // compared through the stream tests
      break;
  }
  return out;
}

struct Entry {
  int db;
  std::string key;
  Value v;
  int64_t expire = -1;
  int64_t idle = -1;
  int freq = -1;
};

std::vector<Entry> Sample() {
  std::vector<Entry> e;
  std::string big(5000, 'x');
  for (size_t i = 0; i < big.size(); i++) big[i] = static_cast<char>('a' + (i * 7) % 26);
  e.push_back({0, "int", Str("12345")});
  e.push_back({0, "negint", Str("-7")});
  e.push_back({0, "bigint", Str("123456789012345")});
  e.push_back({0, "notcanon", Str("007")});
  e.push_back({0, "emb", Str("hello world")});
  e.push_back({0, "raw", Str(big)});
  e.push_back({0, "lzf", Str(std::string(300, 'z'))});
  e.push_back({0, "bin", Str(std::string("a\0b\xff\r\n", 6))});
  e.push_back({0, "empty", Str("")});
  e.push_back({0, "list", Coll(Kind::kList, {"a", "b", "1", "c"})});
  std::vector<std::string> many;
  for (int i = 0; i < 1000; i++) many.push_back("elem-" + std::to_string(i));
  e.push_back({0, "biglist", Coll(Kind::kList, many)});
  e.push_back({0, "hugeelem", Coll(Kind::kList, {big, "x", big})});
  e.push_back({0, "intset", Coll(Kind::kSet, {"1", "-2", "300000", "4"})});
  e.push_back({0, "intset64", Coll(Kind::kSet, {"1", "9000000000"})});
  e.push_back({0, "lpset", Coll(Kind::kSet, {"x", "y", "z"})});
  e.push_back({0, "bigset", Coll(Kind::kSet, many)});
  e.push_back({0, "zs", ZSet({{"a", 1}, {"b", 2.5}, {"c", -3e100}, {"d", 1.0 / 0.0}})});
  std::vector<std::pair<std::string, double>> zmany;
  for (int i = 0; i < 500; i++) zmany.push_back({"m" + std::to_string(i), i * 0.25});
  e.push_back({0, "bigzs", ZSet(zmany)});
  e.push_back({0, "h", Hash({{"f", "v"}, {"n", "12"}})});
  std::vector<std::pair<std::string, std::string>> hmany;
  for (int i = 0; i < 600; i++) hmany.push_back({"f" + std::to_string(i), "v" + std::to_string(i)});
  e.push_back({0, "bigh", Hash(hmany)});
  e.push_back({0, "hbigval", Hash({{"f", big}})});
  e.push_back({0, "ttl", Str("v"), 4102444800000LL});
  e.push_back({0, "idle", Str("v"), -1, 1234});
  e.push_back({0, "freq", Str("v"), -1, -1, 77});
  e.push_back({3, "db3", Coll(Kind::kList, {"q"}), 4102444800000LL});
  e.push_back({15, "db15", Str("last")});
  e.push_back({1, std::string(200, 'k'), Str("long key")});
  return e;
}

std::string Write(const std::vector<Entry>& es, persist::SaveOptions opts = {}) {
  std::string out;
  persist::SnapshotWriter w(&out, opts);
  w.Header(1700000000, 123456);
  int cur = -1;
  for (auto& e : es) {
    if (e.db != cur) {
      size_t n = 0, x = 0;
      for (auto& f : es)
        if (f.db == e.db) n++, x += f.expire >= 0;
      w.SelectDb(e.db, n, x);
      cur = e.db;
    }
    w.Key(e.key, e.v, e.expire, e.idle, e.freq);
  }
  if (!w.Finish()) {
    fprintf(stderr, "  snapshot writer failed\n");
    check::failures++;
  }
  return out;
}

persist::LoadResult Parse(const std::string& s, std::vector<Entry>* out,
                          persist::LoadOptions opts = {}) {
  if (!opts.now_ms) opts.now_ms = 1700000000000LL;
  return persist::ParseSnapshot(
      reinterpret_cast<const uint8_t*>(s.data()), s.size(), opts,
      [&](int db, std::string& key, Value& v, int64_t exp, int64_t idle, int freq, std::string*) {
        if (out) out->push_back({db, key, v, exp, idle, freq});
        return true;
      });
}

void CheckSame(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  CHECK_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) {
    CHECK_EQ(a[i].db, b[i].db);
    CHECK_EQ(a[i].key, b[i].key);
    CHECK_EQ(Canon(a[i].v), Canon(b[i].v));
    CHECK_EQ(a[i].expire, b[i].expire);
    CHECK_EQ(a[i].idle, b[i].idle);
    CHECK_EQ(a[i].freq, b[i].freq);
  }
}

TEST_CASE(SnapshotRoundTripEveryType) {
  auto es = Sample();
  for (bool compress : {true, false}) {
    persist::SaveOptions o;
    o.compress = compress;
    std::string s = Write(es, o);
    CHECK_EQ(s.substr(0, 9), std::string("REDIS0010"));
    CHECK_EQ(static_cast<uint8_t>(s[s.size() - 9]), persist::kOpEof);
    std::vector<Entry> got;
    auto r = Parse(s, &got);
    CHECK(r.ok);
    CHECK_EQ(r.version, 10);
    CHECK_EQ(r.consumed, s.size());
    CHECK_EQ(r.keys_loaded, es.size());
    CHECK_EQ(r.producer, std::string("Redis version 7.2.4"));
    CHECK_EQ(r.ctime, 1700000000);
    CHECK_EQ(r.used_mem, 123456);
    CheckSame(es, got);
    // Without compression the repetitive value is stored as is.
    bool has_run = s.find(std::string(300, 'z')) != std::string::npos;
    CHECK_EQ(has_run, !compress);
  }
}

TEST_CASE(SnapshotChecksumOffAndTrailer) {
  auto es = Sample();
  persist::SaveOptions o;
  o.checksum = false;
  std::string s = Write(es, o);
  CHECK_EQ(s.substr(s.size() - 8), std::string(8, '\0'));
  std::vector<Entry> got;
  CHECK(Parse(s, &got).ok);
  CheckSame(es, got);
  // With a checksum, the trailer is the CRC64 of everything before it.
  std::string c = Write(es);
  uint64_t stored = 0;
  for (int i = 0; i < 8; i++)
    stored |= static_cast<uint64_t>(static_cast<uint8_t>(c[c.size() - 8 + i])) << (8 * i);
  CHECK_EQ(stored, base::Crc64(0, c.data(), c.size() - 8));
}

TEST_CASE(SnapshotFdWriterMatchesStringWriter) {
  auto es = Sample();
  std::string expect = Write(es);
  char path[] = "/tmp/snapshot-test-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  {
    persist::SnapshotWriter w(fd, persist::SaveOptions{});
    w.Header(1700000000, 123456);
    int cur = -1;
    for (auto& e : es) {
      if (e.db != cur) {
        size_t n = 0, x = 0;
        for (auto& f : es)
          if (f.db == e.db) n++, x += f.expire >= 0;
        w.SelectDb(e.db, n, x);
        cur = e.db;
      }
      w.Key(e.key, e.v, e.expire, e.idle, e.freq);
    }
    CHECK(w.Finish());
    CHECK_EQ(w.bytes(), expect.size());
  }
  std::string got(expect.size() + 10, '\0');
  ssize_t n = pread(fd, got.data(), got.size(), 0);
  close(fd);
  unlink(path);
  CHECK_EQ(static_cast<size_t>(n), expect.size());
  got.resize(n);
  CHECK(got == expect);
}

TEST_CASE(SnapshotEveryPrefixRejected) {
  std::vector<Entry> es = {{0, "a", Str("1")},
                           {0, "l", Coll(Kind::kList, {"x", "y"})},
                           {2, "h", Hash({{"f", "v"}}), 4102444800000LL},
                           {2, "z", ZSet({{"m", 1.5}})}};
  std::string s = Write(es);
  for (size_t n = 0; n < s.size(); n++) {
    auto r = Parse(s.substr(0, n), nullptr);
    CHECK(!r.ok);
    CHECK(!r.error.empty());
    CHECK(r.error_offset <= n);
  }
  CHECK(Parse(s, nullptr).ok);
}

// Feeds s to a SnapshotParser as a replica does while the bytes arrive: pieces of the sizes
// `step` gives, the bytes a call did not consume kept in front of the next piece.
persist::LoadResult ParseInPieces(const std::string& s, std::vector<Entry>* out,
                                  const std::function<size_t()>& step, int* more_calls,
                                  uint64_t* cut_reads = nullptr, persist::LoadOptions opts = {}) {
  opts.now_ms = 1700000000000LL;
  persist::SnapshotParser parser(opts, [&](int db, std::string& key, Value& v, int64_t exp,
                                           int64_t idle, int freq, std::string*) {
    if (out) out->push_back({db, key, v, exp, idle, freq});
    return true;
  });
  std::string buf;
  size_t fed = 0;
  *more_calls = 0;
  for (;;) {
    size_t k = std::min(step(), s.size() - fed);
    buf.append(s, fed, k);
    fed += k;
    size_t consumed = 0;
    auto st = parser.Feed(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), fed == s.size(),
                          &consumed);
    if (consumed > buf.size()) {
      fprintf(stderr, "  consumed more than given\n");
      check::failures++;
      break;
    }
    buf.erase(0, consumed);
    if (cut_reads) *cut_reads = parser.cut_reads();
    if (st != persist::SnapshotParser::Status::kMore) break;
    (*more_calls)++;
    if (fed == s.size()) {  // at the end the parser must decide
      fprintf(stderr, "  the parser wants more after the last byte\n");
      check::failures++;
      break;
    }
  }
  return parser.result();
}

TEST_CASE(SnapshotParsedInPieces) {
  auto es = Sample();
  std::string s = Write(es);
  std::vector<Entry> whole;
  CHECK(Parse(s, &whole).ok);
  XorShift rnd;
  std::vector<std::function<size_t()>> steps = {[] { return size_t{1}; }, [] { return size_t{7}; },
                                                [] { return size_t{4096}; },
                                                [&] { return static_cast<size_t>(rnd() % 3000); }};
  for (auto& step : steps) {
    std::vector<Entry> got;
    int more = 0;
    auto r = ParseInPieces(s, &got, step, &more);
    CHECK(r.ok);
    CHECK_EQ(r.consumed, s.size());
    CHECK_EQ(r.keys_loaded, es.size());
    CHECK_EQ(r.producer, std::string("Redis version 7.2.4"));
    CheckSame(got, whole);
  }
  // One byte at a time: a record that did not fit waits for twice its bytes, so the big values
  // are not parsed again at every byte: about log2 of each record's size reads stop short.
  int more = 0;
  uint64_t cuts = 0;
  CHECK(ParseInPieces(
            s, nullptr, [] { return size_t{1}; }, &more, &cuts)
            .ok);
  CHECK_EQ(static_cast<size_t>(more) + 1, s.size());
  CHECK(s.size() > 20000);
  CHECK(cuts < 500);
}

TEST_CASE(SnapshotParserStopsAtMalformedDataBeforeTheEnd) {
  std::vector<Entry> es = {{0, "a", Str("1")}, {0, "b", Str("2")}, {0, "c", Str("3")}};
  std::string s = Write(es);
  size_t at = s.find(
      "\x01"
      "b");  // the type byte of key b (0: string) precedes its name
  CHECK(at != std::string::npos);
  std::string m = s;
  m[at - 1] = 8;  // type 8 does not exist
  persist::LoadOptions opts;
  int visited = 0;
  persist::SnapshotParser parser(
      opts, [&](int, std::string&, Value&, int64_t, int64_t, int, std::string*) {
        visited++;
        return true;
      });
  size_t consumed = 0;
  // Only the first half arrived: the bad type is already known to be bad.
  auto st = parser.Feed(reinterpret_cast<const uint8_t*>(m.data()), at + 4, false, &consumed);
  CHECK(st == persist::SnapshotParser::Status::kError);
  CHECK_EQ(visited, 1);
  CHECK_EQ(parser.result().error, std::string("Unknown RDB encoding type 8"));
  CHECK(!parser.result().short_read);
  // A snapshot cut short is an error only once no more bytes will come.
  persist::SnapshotParser cut(
      opts, [](int, std::string&, Value&, int64_t, int64_t, int, std::string*) { return true; });
  st = cut.Feed(reinterpret_cast<const uint8_t*>(s.data()), s.size() - 3, false, &consumed);
  CHECK(st == persist::SnapshotParser::Status::kMore);
  CHECK_EQ(consumed, s.size() - 8);  // everything before the checksum
  st = cut.Feed(reinterpret_cast<const uint8_t*>(s.data()) + consumed, 5, true, &consumed);
  CHECK(st == persist::SnapshotParser::Status::kError);
  CHECK(cut.result().short_read);
  // Bytes after the end (the replication stream) are left to the caller.
  std::string more = s + "*1\r\n$4\r\nPING\r\n";
  persist::SnapshotParser whole(
      opts, [](int, std::string&, Value&, int64_t, int64_t, int, std::string*) { return true; });
  st = whole.Feed(reinterpret_cast<const uint8_t*>(more.data()), more.size(), false, &consumed);
  CHECK(st == persist::SnapshotParser::Status::kDone);
  CHECK_EQ(consumed, s.size());
  CHECK_EQ(whole.result().consumed, s.size());
}

TEST_CASE(SnapshotEveryBitFlipRejected) {
  std::vector<Entry> es = {{0, "a", Str("1")},
                           {0, "t", Str("text")},
                           {0, "s", Coll(Kind::kSet, {"1", "2"})},
                           {1, "h", Hash({{"f", "v"}}), 4102444800000LL}};
  std::string s = Write(es);
  for (size_t i = 0; i < s.size(); i++) {
    for (int bit = 0; bit < 8; bit++) {
      std::string m = s;
      m[i] ^= static_cast<char>(1 << bit);
      auto r = Parse(m, nullptr);
      CHECK(!r.ok);
      CHECK(!r.error.empty());
    }
  }
  // With checksum verification off, a flip inside a string value goes unnoticed.
  std::string m = s;
  size_t at = m.find("\x04text");
  CHECK(at != std::string::npos);
  m[at + 1] = 'n';
  persist::LoadOptions lo;
  lo.verify_checksum = false;
  CHECK(Parse(m, nullptr, lo).ok);
  lo.verify_checksum = true;
  auto r = Parse(m, nullptr, lo);
  CHECK(!r.ok);
  CHECK(r.error.find("Wrong RDB checksum") == 0);
}

TEST_CASE(SnapshotGarbageNeverCrashes) {
  XorShift rnd;
  std::string base = Write(Sample());
  int rejected = 0;
  for (int round = 0; round < 3000; round++) {
    std::string m = base;
    int edits = 1 + rnd() % 8;
    for (int k = 0; k < edits; k++) m[rnd() % m.size()] = static_cast<char>(rnd());
    persist::LoadOptions lo;
    lo.verify_checksum = false;  // reach the value decoders
    // Not crashing is the main check; a rejection must also say why.
    auto r = Parse(m, nullptr, lo);
    if (!r.ok) {
      CHECK(!r.error.empty());
      rejected++;
    }
    // Read in pieces as it arrives, the same input ends the same way.
    if (round % 10 == 0) {
      int more = 0;
      auto p = ParseInPieces(
          m, nullptr, [&] { return static_cast<size_t>(1 + rnd() % 700); }, &more, nullptr, lo);
      CHECK_EQ(p.ok, r.ok);
      CHECK_EQ(p.error, r.error);
      CHECK_EQ(p.keys_loaded, r.keys_loaded);
    }
    // A snapshot cut before its end marker is never accepted.
    auto t = Parse(m.substr(0, rnd() % m.size()), nullptr, lo);
    CHECK(!t.ok);
    CHECK(!t.error.empty());
  }
  // Random edits reach the decoders: most of them are caught as malformed.
  CHECK(rejected > 1000);
}

TEST_CASE(SnapshotExpiredKeysSkipped) {
  std::vector<Entry> es = {
      {0, "old", Str("1"), 1000}, {0, "new", Str("2"), 4102444800000LL}, {0, "none", Str("3")}};
  std::string s = Write(es);
  std::vector<Entry> got;
  auto r = Parse(s, &got);
  CHECK(r.ok);
  CHECK_EQ(r.keys_loaded, 2u);
  CHECK_EQ(r.keys_expired, 1u);
  CHECK_EQ(got[0].key, std::string("new"));
  persist::LoadOptions keep;
  keep.skip_expired = false;
  got.clear();
  r = Parse(s, &got, keep);
  CHECK_EQ(r.keys_loaded, 3u);
  CHECK_EQ(r.keys_expired, 0u);
}

TEST_CASE(SnapshotVersionsAndDbLimit) {
  std::string s = Write({{0, "a", Str("1")}});
  std::string v11 = s;
  v11[8] = '1';
  v11[7] = '1';
  // The checksum covers the header: recompute it.
  uint64_t crc = base::Crc64(0, v11.data(), v11.size() - 8);
  for (int i = 0; i < 8; i++) v11[v11.size() - 8 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  auto r = Parse(v11, nullptr);
  CHECK(r.ok);
  CHECK_EQ(r.version, 11);
  std::string v12 = s;
  v12[7] = '1';
  v12[8] = '2';
  r = Parse(v12, nullptr);
  CHECK(!r.ok);
  CHECK(r.error.find("Can't handle RDB format version 12") == 0);
  r = Parse("RUBIS0010", nullptr);
  CHECK(!r.ok);
  persist::LoadOptions lo;
  lo.num_dbs = 2;
  r = Parse(Write({{5, "a", Str("1")}}), nullptr, lo);
  CHECK(!r.ok);
  CHECK(r.error.find("databases") != std::string::npos);
}

TEST_CASE(SnapshotAuxHooks) {
  std::string seen;
  persist::RegisterAuxField("test-aux", {[](std::string* v) {
                                           *v = "hello";
                                           return true;
                                         },
                                         [&](std::string_view v) {
                                           seen = v;
                                           return v == "hello";
                                         }});
  persist::RegisterAuxField("test-skip", {[](std::string*) { return false; }, nullptr});
  std::string s = Write({{0, "a", Str("1")}});
  CHECK(s.find("test-aux") != std::string::npos);
  CHECK(s.find("test-skip") == std::string::npos);
  auto r = Parse(s, nullptr);
  CHECK(r.ok);
  CHECK_EQ(seen, std::string("hello"));
  bool found = false;
  for (auto& [k, v] : r.aux) found |= k == "test-aux" && v == "hello";
  CHECK(found);
  // A reader that refuses the value rejects the snapshot.
  persist::RegisterAuxField("test-aux", {[](std::string* v) {
                                           *v = "bad";
                                           return true;
                                         },
                                         [](std::string_view v) { return v == "hello"; }});
  r = Parse(Write({{0, "a", Str("1")}}), nullptr);
  CHECK(!r.ok);
  CHECK(r.error.find("test-aux") != std::string::npos);
  persist::UnregisterAuxField("test-aux");
  persist::UnregisterAuxField("test-skip");
  // Unknown aux fields are skipped.
  std::string custom;
  {
    persist::SnapshotWriter w(&custom, {});
    w.Header(1, 1);
    w.Aux("some-future-field", "whatever");
    w.SelectDb(0, 1, 0);
    w.Key("k", Str("v"), -1);
    CHECK(w.Finish());
  }
  std::vector<Entry> got;
  CHECK(Parse(custom, &got).ok);
  CHECK_EQ(got.size(), 1u);
}

// dump.rdb written by redis-server 7.0.15: s=hello, n=12345, l=[a,b,c], si={1,2,3}, sl={x,y},
// z={a:1,b:2.5}, h={f:v}, e and gone expiring at 2100-01-01, db1 d1=one.
const char* kRedis70 =
    "524544495330303130fa0972656469732d76657206372e302e3135fa0a72656469732d62697473c040fa0563"
    "74696d65c2cda70c6bfa08757365642d6d656dc2f89b1000fa08616f662d62617365c000fe00fb090200016e"
    "c139300001730568656c6c6f12016c010210100000000300816102816202816302ff11017a1414000000040081"
    "6102010181620283322e3504ff1001680d0d0000000200816602817602ff0b0273690e020000000300000001"
    "00020003000202736c0201790178fc00d8c32cbb0300000001650176fc00d8c32cbb0300000004676f6e6501"
    "76fe01fb010000026431036f6e65ffc45e4ff017b069f5";

TEST_CASE(SnapshotReadsRedis70File) {
  std::string s = Unhex(kRedis70);
  std::vector<Entry> got;
  auto r = Parse(s, &got);
  CHECK(r.ok);
  CHECK_EQ(r.version, 10);
  CHECK_EQ(r.producer, std::string("Redis version 7.0.15"));
  CHECK_EQ(got.size(), 10u);
  std::map<std::string, Entry> by;
  for (auto& e : got) by[e.key] = e;
  CHECK_EQ(Canon(by["s"].v), Canon(Str("hello")));
  CHECK_EQ(Canon(by["n"].v), Canon(Str("12345")));
  CHECK_EQ(Canon(by["l"].v), Canon(Coll(Kind::kList, {"a", "b", "c"})));
  CHECK_EQ(Canon(by["si"].v), Canon(Coll(Kind::kSet, {"1", "2", "3"})));
  CHECK_EQ(Canon(by["sl"].v), Canon(Coll(Kind::kSet, {"x", "y"})));
  CHECK_EQ(Canon(by["z"].v), Canon(ZSet({{"a", 1}, {"b", 2.5}})));
  CHECK_EQ(Canon(by["h"].v), Canon(Hash({{"f", "v"}})));
  CHECK_EQ(by["e"].expire, 4102444800000LL);
  CHECK_EQ(by["d1"].db, 1);
}

TEST_CASE(SnapshotLoadIntoDatabases) {
  db::RegisterHashType();
  db::RegisterSetType();
  db::RegisterListType();
  db::RegisterZSetType();
  int news = 0;
  static int* counter = &news;
  db::GetEnv().on_new = [](int, std::string_view) { (*counter)++; };
  std::vector<std::unique_ptr<db::Db>> owned;
  std::vector<db::Db*> dbs;
  for (int i = 0; i < 16; i++) {
    owned.push_back(std::make_unique<db::Db>(i, false));
    dbs.push_back(owned.back().get());
  }
  auto es = Sample();
  std::string s = Write(es);
  persist::LoadOptions lo;
  lo.now_ms = 1700000000000LL;
  auto r = persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(s.data()), s.size(), lo, dbs);
  CHECK(r.ok);
  CHECK_EQ(news, 0);  // loading fires no "new" notifications
  CHECK(db::GetEnv().on_new != nullptr);
  CHECK_EQ(dbs[0]->Size() + dbs[1]->Size() + dbs[3]->Size() + dbs[15]->Size(), es.size());
  CHECK_EQ(dbs[0]->ExpiresSize(), 1u);
  CHECK_EQ(db::EncodingName(dbs[0]->Find("int")->enc()), std::string("int"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("emb")->enc()), std::string("embstr"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("intset")->enc()), std::string("intset"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("lpset")->enc()), std::string("listpack"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("bigset")->enc()), std::string("hashtable"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("zs")->enc()), std::string("listpack"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("bigzs")->enc()), std::string("skiplist"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("h")->enc()), std::string("listpack"));
  CHECK_EQ(db::EncodingName(dbs[0]->Find("bigh")->enc()), std::string("hashtable"));
  for (auto& e : es) {
    db::Obj* o = dbs[e.db]->Find(e.key);
    CHECK(o != nullptr);
    CHECK_EQ(Canon(persist::ToValue(o)), Canon(e.v));
    CHECK_EQ(o->expire(), e.expire);
  }
  // Saving the databases gives the same contents back.
  std::string again;
  persist::SnapshotWriter w(&again, {});
  CHECK(persist::WriteSnapshot(w, dbs, 1700000000, 1));
  size_t written = again.size();
  CHECK(w.Finish());  // a second Finish writes nothing
  CHECK_EQ(again.size(), written);
  std::vector<Entry> got;
  CHECK(Parse(again, &got).ok);
  CHECK_EQ(got.size(), es.size());
  // Loading the same file again into the same databases finds duplicates.
  r = persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(s.data()), s.size(), lo, dbs);
  CHECK(!r.ok);
  CHECK(r.error.find("Duplicated key") == 0);
  r = persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(s.data()), s.size(), lo, dbs, true);
  CHECK(r.ok);
  db::GetEnv().on_new = nullptr;
}

// Compact hashes, sorted sets and lists are written from their encoding (WriteObject): the same
// bytes as the plain path, WriteValue(ToValue(o)), for contents of every shape near the limits
// (long fields and members, integers, scores of every kind, counts around 128 pairs).
TEST_CASE(SnapshotCompactValuesWrittenAsThePlainPath) {
  db::RegisterHashType();
  db::RegisterListType();
  db::RegisterZSetType();
  XorShift rnd;
  const double special[] = {0,        -0.0,      1,        -1,     1.5,     -2.25,   0.1,
                            1e-300,   1e300,     1e20,     -1e20,  4503599627370496.0,
                            4503599627370495.0,   9007199254740993.0, 1152921504606846976.0,
                            3.0,      12345678,  -987654321, 1.0 / 3, 2.5e-7,  65535.0,
                            HUGE_VAL, -HUGE_VAL};
  auto text = [&](size_t i) -> std::string {
    if (rnd() % 200 == 0) return std::string(65 + rnd() % 30, 'x');  // over 64: plain form
    switch (rnd() % 6) {
      case 0: return std::to_string(static_cast<int64_t>(rnd() % 100000) - 500);  // integer
      case 1: return std::to_string(static_cast<int64_t>(rnd()));                 // big integer
      case 2: return std::string(56 + rnd() % 9, static_cast<char>('a' + i % 26));  // up to 64
      case 3: return "0" + std::to_string(rnd() % 100);                            // not canonical
      default: return "f" + std::to_string(i) + ":" + std::to_string(rnd() % 1000);
    }
  };
  size_t compact = 0;
  db::HashLimits hash_limits = db::GetHashLimits();
  db::ZSetLimits zset_limits = db::GetZSetLimits();
  db::ListLimits list_limits = db::GetListLimits();
  for (int round = 0; round < 400; round++) {
    // Half the rounds with encodings allowed past what the snapshot writes compact
    // (hash-max-listpack-value 100 and the like): those must go the plain way.
    bool loose = round % 2;
    db::GetHashLimits().max_entries = loose ? 300 : hash_limits.max_entries;
    db::GetHashLimits().max_value = loose ? 100 : hash_limits.max_value;
    db::GetZSetLimits().max_listpack_entries = loose ? 300 : zset_limits.max_listpack_entries;
    db::GetZSetLimits().max_listpack_value = loose ? 100 : zset_limits.max_listpack_value;
    db::GetListLimits().fill = loose ? -4 : list_limits.fill;
    size_t n = 1 + rnd() % (loose ? 280 : 140);
    db::Obj* h = db::NewHash("h");
    db::Obj* z = db::NewZSet("z", 0, 0);
    db::Obj* l = db::NewList("l");
    for (size_t i = 0; i < n; i++) {
      db::HashSet(h, text(i), text(i + 1));
      double score = rnd() % 3 == 0 ? special[rnd() % (sizeof(special) / sizeof(double))]
                                    : static_cast<double>(static_cast<int64_t>(rnd() % 2001) - 1000) /
                                          (1 + rnd() % 8);
      db::ZSetScore(z, text(i), score);
      db::ListPush(l, text(i), rnd() % 2);
      if (loose) db::ListPush(l, text(i), rnd() % 2);  // past one 8 KB node
    }
    for (db::Obj* o : {h, z, l}) {
      compact += o->enc() == db::kEncListpack;
      for (bool compress : {false, true}) {
        std::string direct, plain;
        persist::WriteObject(&direct, o, compress);
        persist::WriteValue(&plain, persist::ToValue(o), compress);
        CHECK_EQ(direct, plain);
      }
    }
    db::FreeObj(h);
    db::FreeObj(z);
    db::FreeObj(l);
  }
  db::GetHashLimits() = hash_limits;
  db::GetZSetLimits() = zset_limits;
  db::GetListLimits() = list_limits;
  CHECK(compact > 700);  // most went the direct way (of 1200)
}

// A loaded list (ListLoad: one pass when it stays one listpack) is the list that pushing each
// element at the tail makes: same encoding, same bytes written, for every fill setting and
// sizes on both sides of the limits.
TEST_CASE(ListLoadMatchesTailPushes) {
  db::RegisterListType();
  XorShift rnd;
  db::ListLimits saved = db::GetListLimits();
  const int fills[] = {-1, -2, -3, -5, 1, 5, 128};
  size_t one_pass = 0;
  for (int round = 0; round < 300; round++) {
    db::GetListLimits().fill = fills[round % 7];
    std::vector<std::string> elems(1 + rnd() % (round % 2 ? 300 : 40));
    for (auto& e : elems) {
      uint64_t k = rnd() % 100;
      k = k < 30 ? 0 : k < 99 ? 5 : 9;  // integers, short strings, now and then a big one
      e = k < 3   ? std::to_string(static_cast<int64_t>(rnd() % 1000000) - 5000)
          : k < 9 ? "e" + std::to_string(rnd() % 100000)
                  : std::string(rnd() % 9000, 'x');
    }
    db::Obj* loaded = db::NewList("l");
    db::ListLoad(loaded, elems);
    db::Obj* pushed = db::NewList("l");
    for (auto& e : elems) db::ListPush(pushed, e, false);
    CHECK_EQ(loaded->enc(), pushed->enc());
    one_pass += loaded->enc() == db::kEncListpack;
    std::string a, b;
    persist::WriteObject(&a, loaded, false);
    persist::WriteObject(&b, pushed, false);
    CHECK_EQ(a, b);
    db::FreeObj(loaded);
    db::FreeObj(pushed);
  }
  db::GetListLimits() = saved;
  CHECK(one_pass > 50);
}

}  // namespace

// Replication-only aux fields: written only when the snapshot is for a replica, read only by
// a replica's load (the cluster slot states use this; a disk snapshot never carries them).
TEST_CASE(SnapshotReplicationOnlyAuxField) {
  std::string seen;
  persist::AuxHook hook;
  hook.write = [](std::string* v) {
    *v = "609<abc,";
    return true;
  };
  hook.read = [&seen](std::string_view v) {
    seen = std::string(v);
    return true;
  };
  hook.replication_only = true;
  persist::RegisterAuxField("test-repl-only", hook);
  db::Db d(0, false);
  std::vector<db::Db*> dbs{&d};
  std::string disk, repl;
  {
    persist::SaveOptions o;
    persist::SnapshotWriter w(&disk, o);
    CHECK(persist::WriteSnapshot(w, dbs, 0, 0));
  }
  {
    persist::SaveOptions o;
    o.for_replication = true;
    persist::SnapshotWriter w(&repl, o);
    CHECK(persist::WriteSnapshot(w, dbs, 0, 0));
  }
  CHECK(disk.find("test-repl-only") == std::string::npos);
  CHECK(repl.find("test-repl-only") != std::string::npos);
  persist::LoadOptions lo;
  lo.num_dbs = 1;
  db::Db target(0, false);
  std::vector<db::Db*> t{&target};
  // A disk load ignores the field...
  CHECK(
      persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(repl.data()), repl.size(), lo, t).ok);
  CHECK(seen.empty());
  // ...a replica's load applies it.
  lo.from_replication = true;
  CHECK(
      persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(repl.data()), repl.size(), lo, t).ok);
  CHECK_EQ(seen, std::string("609<abc,"));
  persist::UnregisterAuxField("test-repl-only");
}
