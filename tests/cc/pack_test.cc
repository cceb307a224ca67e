// ds::pack: byte layouts of each entry form, a model check of random splices, and the one-pass
// fill of loaded small collections.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/util.h"
#include "check.h"
#include "db/hash.h"
#include "db/set.h"
#include "db/zset.h"
#include "ds/pack.h"

namespace {

std::vector<std::string> Texts(const uint8_t* pk, unsigned stride) {
  std::vector<std::string> out;
  ds::pack::Reader r(pk, stride);
  while (r.Next()) out.emplace_back(r.Text());
  return out;
}

std::string Body(const uint8_t* pk) {
  return std::string(reinterpret_cast<const char*>(pk) + 8, ds::pack::Bytes(pk) - 8);
}

uint8_t* Build(const std::vector<std::string>& v, unsigned stride) {
  std::vector<std::string_view> views(v.begin(), v.end());
  return ds::pack::Append(ds::pack::New(), stride, views.data(), views.size());
}

}  // namespace

TEST_CASE(PackEntryForms) {
  // Front coding within a column: "m:00001" shares 6 bytes with "m:00000".
  uint8_t* pk = Build({"m:00000", "m:00001", "m:00012"}, 1);
  CHECK_EQ(Body(pk), std::string("\x07m:00000\x61\x31\x52\x31\x32", 13));
  CHECK_EQ(ds::pack::Length(pk), size_t{3});
  CHECK_EQ(ds::pack::Bytes(pk), size_t{21});
  ds::pack::Free(pk);
  // Stride 2: fields follow fields and values follow values.
  pk = Build({"f1", "v1", "f2", "v2"}, 2);
  CHECK_EQ(Body(pk), std::string("\x02" "f1" "\x02" "v1" "\x11" "2" "\x11" "2", 10));
  ds::pack::Free(pk);
  // Integers: 0-63 in one byte; others zigzag-coded when shorter than the text; texts that are
  // not canonical integers stay strings.
  pk = Build({"5", "-1", "1000000", "007", "-0", "9223372036854775807", "-9223372036854775808"}, 1);
  std::string b = Body(pk);
  CHECK_EQ(static_cast<uint8_t>(b[0]), 0x85);
  CHECK_EQ(b.substr(1, 2), std::string("\xc1\x01", 2));  // zigzag(-1) = 1
  CHECK_EQ(b.substr(3, 4), std::string("\xc3\x80\x84\x1e", 4));  // zigzag(1e6) = 2e6
  CHECK_EQ(b.substr(7, 4), std::string("\x03" "007", 4));
  CHECK_EQ(b.substr(11, 3), std::string("\x02-0", 3));  // shares nothing with "007"
  CHECK_EQ(static_cast<uint8_t>(b[14]), 0xc8);
  CHECK(Texts(pk, 1) == (std::vector<std::string>{"5", "-1", "1000000", "007", "-0",
                                                  "9223372036854775807", "-9223372036854775808"}));
  ds::pack::Free(pk);
  // A share of 8-255 with a short rest takes two header bytes; a longer rest, or a longer
  // share, the varint form.
  std::string a(20, 'a'), a2 = a + "b", a3 = a2 + std::string(16, 'c');
  pk = Build({"user:1041", "user:1042", a, a2, a3, ""}, 1);
  CHECK_EQ(Body(pk), std::string("\x09user:1041" "\xd1\x08" "2" "\xe0\x00\x14", 16) + a +
                         std::string("\xd1\x14" "b" "\xe0\x15\x10", 6) + std::string(16, 'c') +
                         std::string("\x00", 1));
  CHECK(Texts(pk, 1) == (std::vector<std::string>{"user:1041", "user:1042", a, a2, a3, ""}));
  ds::pack::Free(pk);
}

TEST_CASE(PackReaderFindAndSeek) {
  uint8_t* pk = Build({"name", "ann", "email", "ann@x", "age", "31"}, 2);
  ds::pack::Reader r(pk, 2);
  CHECK(r.Find("email"));
  CHECK_EQ(r.Index(), size_t{2});
  CHECK(r.Next());
  CHECK_EQ(std::string(r.Text()), "ann@x");
  ds::pack::Reader r2(pk, 2);
  CHECK(!r2.Find("ann"));  // a value, not a field
  ds::pack::Reader r3(pk, 2);
  CHECK(r3.SeekTo(5));
  CHECK_EQ(std::string(r3.Text()), "31");
  CHECK(!r3.SeekTo(6));
  ds::pack::Free(pk);
}

TEST_CASE(PackSpliceModel) {
  std::mt19937_64 rng(7);
  auto text = [&]() -> std::string {
    switch (rng() % 7) {
      case 0:
        return std::to_string(static_cast<int64_t>(rng()) >> (rng() % 64));
      case 6:  // shares of 128 and more: the two-byte form's whole range, and the varint form
        return std::string(100 + rng() % 200, 'z') + std::to_string(rng() % 10);
      case 1:
        return std::string(rng() % 40, static_cast<char>('a' + rng() % 3));
      case 2:
        return "";
      default: {
        std::string s = "user:" + std::to_string(rng() % 300);
        if (rng() % 2) s += ":" + std::string(rng() % 12, 'x');
        return s;
      }
    }
  };
  for (unsigned stride = 1; stride <= 2; stride++) {
    std::vector<std::string> model;
    uint8_t* pk = ds::pack::New();
    for (int step = 0; step < 4000; step++) {
      size_t groups = model.size() / stride;
      int op = static_cast<int>(rng() % 4);
      if (op <= 1 || groups == 0) {  // insert a group
        size_t at = (rng() % (groups + 1)) * stride;
        std::vector<std::string> add;
        for (unsigned k = 0; k < stride; k++) add.push_back(text());
        std::vector<std::string_view> v(add.begin(), add.end());
        pk = ds::pack::Splice(pk, stride, at, 0, v.data(), v.size());
        model.insert(model.begin() + static_cast<long>(at), add.begin(), add.end());
      } else if (op == 2) {  // delete groups
        size_t at = (rng() % groups) * stride, n = (1 + rng() % 3) * stride;
        n = std::min(n, model.size() - at);
        pk = ds::pack::Splice(pk, stride, at, n, nullptr, 0);
        model.erase(model.begin() + static_cast<long>(at), model.begin() + static_cast<long>(at + n));
      } else {  // replace one entry
        size_t at = rng() % model.size();
        std::string t = text();
        std::string_view v = t;
        pk = ds::pack::Splice(pk, stride, at, 1, &v, 1);
        model[at] = t;
      }
      CHECK_EQ(ds::pack::Length(pk), model.size());
      // Find against the model: the first column-0 entry equal to a text, if any; a text of
      // the model, or a prefix or extension of one (the cases the skipping has to get right).
      std::string probe = model.empty() ? text() : model[rng() % model.size()];
      if (rng() % 3 == 0) probe = probe.substr(0, probe.size() - std::min<size_t>(probe.size(), 1));
      if (rng() % 3 == 0) probe += "x";
      size_t want = SIZE_MAX;
      for (size_t i = 0; i < model.size(); i += stride)
        if (model[i] == probe) {
          want = i;
          break;
        }
      ds::pack::Reader fr(pk, stride);
      bool found = fr.Find(probe);
      CHECK_EQ(found ? fr.Index() : SIZE_MAX, want);
      if (found) CHECK_EQ(std::string(fr.Text()), probe);
      if (found && fr.Next()) CHECK_EQ(std::string(fr.Text()), model[want + 1]);
      if (step % 50 == 0 || model.size() < 8) CHECK(Texts(pk, stride) == model);
      if (model.size() > 300) {
        pk = ds::pack::Splice(pk, stride, 0, model.size(), nullptr, 0);
        model.clear();
        CHECK_EQ(ds::pack::Bytes(pk), size_t{8});
      }
    }
    CHECK(Texts(pk, stride) == model);
    uint8_t* d = ds::pack::Dup(pk);
    CHECK(Texts(d, stride) == model);
    ds::pack::Free(d);
    ds::pack::Free(pk);
  }
}

// Loading a decoded value fills a small collection in one pass; what it holds and its encoding
// are what one add per member gives.
TEST_CASE(PackLoadedValuesMatchOneAddPerMember) {
  db::RegisterSetType();
  db::RegisterHashType();
  db::RegisterZSetType();
  // Sorted sets: any order in, (score, member) order out; ties ordered by member.
  std::vector<std::pair<std::string, double>> z = {{"b", 2}, {"a", 2}, {"c", -1.5}, {"d", 1e20}};
  db::Obj* zo = db::NewZSet("z", z.size(), 1);
  db::ZSetLoad(zo, z);
  std::vector<std::string> got;
  db::ZWalk(zo, 0, false, [&](std::string_view m, double s) {
    got.push_back(std::string(m) + "=" + base::FormatDouble(s));
    return true;
  });
  CHECK(got == (std::vector<std::string>{"c=-1.5", "a=2", "b=2", "d=1e+20"}));
  CHECK_EQ(zo->enc(), db::kEncListpack);
  CHECK_EQ(db::ZRank(zo, "b"), int64_t{2});
  db::FreeObj(zo);
  // Sets: integers only stay an intset; a non-integer makes a pack; too many a table.
  std::vector<std::string> ints = {"3", "1", "2"}, mixed = {"3", "x", "1"};
  db::Obj* so = db::NewSet("s", ints[0], ints.size());
  db::SetLoad(so, ints);
  CHECK_EQ(so->enc(), db::kEncIntset);
  db::FreeObj(so);
  so = db::NewSet("s", mixed[0], mixed.size());
  db::SetLoad(so, mixed);
  CHECK_EQ(so->enc(), db::kEncListpack);
  CHECK_EQ(db::SetLen(so), size_t{3});
  CHECK(db::SetContains(so, "x") && db::SetContains(so, "1") && !db::SetContains(so, "2"));
  db::FreeObj(so);
  std::vector<std::string> many;
  for (int i = 0; i < 200; i++) many.push_back("m" + std::to_string(i));
  so = db::NewSet("s", many[0], many.size());
  db::SetLoad(so, many);
  CHECK_EQ(so->enc(), db::kEncHashtable);
  CHECK_EQ(db::SetLen(so), size_t{200});
  db::FreeObj(so);
  // Hashes: insertion order kept; a value over hash-max-listpack-value makes a table.
  std::vector<std::pair<std::string, std::string>> h = {{"f2", "b"}, {"f1", "a"}};
  db::Obj* ho = db::NewHash("h");
  db::HashLoad(ho, h);
  CHECK_EQ(ho->enc(), db::kEncListpack);
  std::vector<std::string> pairs;
  db::HashForEach(ho, [&](std::string_view f, std::string_view v) {
    pairs.push_back(std::string(f) + "=" + std::string(v));
  });
  CHECK(pairs == (std::vector<std::string>{"f2=b", "f1=a"}));
  db::FreeObj(ho);
  h.emplace_back("big", std::string(db::GetHashLimits().max_value + 1, 'v'));
  ho = db::NewHash("h");
  db::HashLoad(ho, h);
  CHECK_EQ(ho->enc(), db::kEncHashtable);
  CHECK_EQ(db::HashLen(ho), size_t{3});
  db::FreeObj(ho);
}

// A pack built entry by entry is the one Append makes of the same texts, byte for byte.
TEST_CASE(PackBuilderWritesWhatAppendWrites) {
  std::mt19937 rng(7);
  const char* pool[] = {"", "0", "7", "-1", "63", "64", "100", "007", "-0", "m:00041", "m:00042",
                        "user:1041", "user:1042", "9223372036854775807", "x"};
  for (unsigned stride : {1u, 2u}) {
    for (int round = 0; round < 200; round++) {
      std::vector<std::string> texts;
      size_t n = rng() % 40;
      for (size_t i = 0; i < n; i++) {
        std::string t = pool[rng() % std::size(pool)];
        if (rng() % 3 == 0) t += std::string(rng() % 300, static_cast<char>('a' + rng() % 3));
        texts.push_back(t);
      }
      uint8_t* want = Build(texts, stride);
      ds::pack::Builder b(stride, rng() % 2 ? 0 : 64);
      for (const std::string& t : texts) b.Add(t);
      uint8_t* got = b.Finish();
      CHECK_EQ(ds::pack::Bytes(got), ds::pack::Bytes(want));
      CHECK_EQ(ds::pack::Length(got), ds::pack::Length(want));
      CHECK(memcmp(got, want, ds::pack::Bytes(want)) == 0);
      ds::pack::Free(got);
      ds::pack::Free(want);
    }
  }
}

// A score text taken as it is (a snapshot's listpack) must be the one the set would write.
TEST_CASE(ZScoreTextIsCanonicalOnlyForWhatZScoreTextWrites) {
  struct Row {
    const char* text;
    bool canonical;
  } rows[] = {
      {"0", true},          {"1.5", true},       {"-0.5", true},      {"1500", true},
      {"0.000001", true},   {"-123456789012.5", true},               {"12345678901234", true},
      {"1.2345678", true},  {"0.0012345678", true},                  {"12345.1234567", false},
      {"-0", false},        {"1.50", false},     {"01.5", false},     {"1.", false},
      {".5", false},        {"+1", false},       {"1e3", false},      {"0.0000001", false},
      {"1.0", false},       {"inf", false},      {"nan", false},      {"", false},
      {"1234567890123456", false},               {"1 ", false},       {"--1", false},
  };
  char buf[base::kDoubleBufSize];
  for (const Row& r : rows) {
    CHECK_EQ(db::ZScoreTextIsCanonical(r.text), r.canonical);
    double d;
    if (r.canonical) {
      CHECK(base::ParseDouble(r.text, &d));
      CHECK_EQ(std::string(db::ZScoreText(d, buf)), std::string(r.text));
    }
  }
  // Random decimals: each one said canonical is written back the same; and every double the
  // set writes in at most 15 characters without an exponent is recognised.
  std::mt19937_64 rng(11);
  size_t recognised = 0;
  for (int i = 0; i < 200000; i++) {
    char t[32];
    int digits = 1 + static_cast<int>(rng() % 14);
    int point = static_cast<int>(rng() % (digits + 1));
    int len = 0;
    if (rng() % 2) t[len++] = '-';
    for (int k = 0; k < digits; k++) {
      if (k == point && k > 0) t[len++] = '.';
      t[len++] = static_cast<char>('0' + rng() % 10);
    }
    std::string_view text(t, static_cast<size_t>(len));
    double d;
    if (!base::ParseDouble(text, &d)) continue;
    std::string_view written = db::ZScoreText(d, buf);
    if (db::ZScoreTextIsCanonical(text)) CHECK_EQ(written, text);
    bool plain = written.size() <= 15 && written.find('e') == std::string_view::npos &&
                 written != "-0";
    if (plain) {
      CHECK(db::ZScoreTextIsCanonical(written));
      recognised++;
    }
  }
  CHECK(recognised > 100000);
}

// Loaded from views with their texts, a sorted set's pack is the one loaded from strings.
TEST_CASE(ZSetLoadFromViewsKeepsTheTextsGiven) {
  db::RegisterZSetType();
  std::vector<std::pair<std::string, double>> z = {{"a", 1.5}, {"b", 2}, {"c", 1e20}, {"d", -3}};
  db::Obj* want = db::NewZSet("z", z.size(), 1);
  db::ZSetLoad(want, z);
  // In the set's order, as a snapshot's listpack has them; texts for some scores only.
  std::vector<db::ZLoadEntry> views = {{"d", -3, "-3"}, {"a", 1.5, "1.5"}, {"b", 2, {}},
                                       {"c", 1e20, {}}};
  db::Obj* got = db::NewZSet("z", views.size(), 1);
  db::ZSetLoad(got, views);
  CHECK_EQ(got->enc(), db::kEncListpack);
  CHECK_EQ(Body(static_cast<const uint8_t*>(got->ptr())),
           Body(static_cast<const uint8_t*>(want->ptr())));
  db::FreeObj(got);
  // Out of order: sorted first.
  std::vector<db::ZLoadEntry> shuffled = {{"c", 1e20, {}}, {"b", 2, {}}, {"d", -3, "-3"},
                                          {"a", 1.5, "1.5"}};
  got = db::NewZSet("z", shuffled.size(), 1);
  db::ZSetLoad(got, shuffled);
  CHECK_EQ(Body(static_cast<const uint8_t*>(got->ptr())),
           Body(static_cast<const uint8_t*>(want->ptr())));
  db::FreeObj(got);
  db::FreeObj(want);
}
