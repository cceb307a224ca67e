// CRC64, LZF, listpack and intset: reference values, byte layouts, model checks and fuzzing.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/crc64.h"
#include "base/lzf.h"
#include "check.h"
#include "ds/intset.h"
#include "ds/listpack.h"

namespace {

std::string Unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string LpBytes(const uint8_t* lp) {
  return std::string(reinterpret_cast<const char*>(lp), ds::lp::Bytes(lp));
}

std::vector<std::string> LpToVector(uint8_t* lp) {
  std::vector<std::string> out;
  char buf[24];
  for (uint8_t* p = ds::lp::First(lp); p; p = ds::lp::Next(lp, p)) {
    out.emplace_back(ds::lp::Get(p).View(buf));
  }
  return out;
}

std::vector<std::string> LpToVectorBackwards(uint8_t* lp) {
  std::vector<std::string> out;
  char buf[24];
  for (uint8_t* p = ds::lp::Last(lp); p; p = ds::lp::Prev(lp, p)) {
    out.insert(out.begin(), std::string(ds::lp::Get(p).View(buf)));
  }
  return out;
}

std::string RandomString(std::mt19937_64& rng, size_t max_len) {
  static const std::vector<std::string> kSpecial = {"0",
                                                    "-1",
                                                    "127",
                                                    "128",
                                                    "-4096",
                                                    "4095",
                                                    "4096",
                                                    "-4097",
                                                    "32767",
                                                    "-32769",
                                                    "8388608",
                                                    "007",
                                                    "-0",
                                                    "+1",
                                                    " 1",
                                                    "",
                                                    "2147483648",
                                                    "-2147483649",
                                                    "9223372036854775807",
                                                    "-9223372036854775808",
                                                    "9223372036854775808"};
  if (rng() % 3 == 0) return kSpecial[rng() % kSpecial.size()];
  size_t len = rng() % (max_len + 1);
  std::string s(len, 'a');
  for (auto& c : s) c = static_cast<char>(rng() % 256);
  return s;
}

}  // namespace

TEST_CASE(Crc64CheckValue) {
  CHECK_EQ(base::Crc64(0, "123456789", 9), 0xe9c6d914c4b8d9caULL);
  CHECK_EQ(base::Crc64(0, "", 0), 0ULL);
  std::string s(1000, 'x');
  for (size_t i = 0; i < s.size(); i++) s[i] = static_cast<char>(i * 7);
  // Incremental computation over any split equals the one-shot CRC.
  uint64_t whole = base::Crc64(0, s.data(), s.size());
  for (size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    uint64_t part = base::Crc64(base::Crc64(0, s.data(), cut), s.data() + cut, s.size() - cut);
    CHECK_EQ(part, whole);
  }
}

TEST_CASE(LzfDecompressesLiblzfOutput) {
  // Produced by liblzf (redis-server 7.0 DUMP of "ab" x 40).
  std::string c = Unhex(
      "02616261e0420101616"
      "2");
  std::string out(80, '\0');
  CHECK_EQ(base::LzfDecompress(c.data(), c.size(), out.data(), out.size()), 80u);
  std::string want;
  for (int i = 0; i < 40; i++) want += "ab";
  CHECK(out == want);
  // Too small an output buffer is an error, not an overrun.
  CHECK_EQ(base::LzfDecompress(c.data(), c.size(), out.data(), 79), 0u);
}

TEST_CASE(LzfRoundTrip) {
  std::mt19937_64 rng(1);
  std::vector<std::string> inputs = {"a", "abc", std::string(100000, 'z')};
  for (int i = 0; i < 200; i++) {
    size_t len = 1 + rng() % 5000;
    std::string s(len, '\0');
    int alphabet = 1 + rng() % 255;
    for (auto& c : s) c = static_cast<char>(rng() % alphabet);
    inputs.push_back(s);
  }
  std::string text;
  for (int i = 0; i < 20000; i++) text += "field:" + std::to_string(i % 97) + ",";
  inputs.push_back(text);
  for (auto& in : inputs) {
    std::string comp(in.size() + in.size() / 16 + 64, '\0');
    size_t clen = base::LzfCompress(in.data(), in.size(), comp.data(), comp.size());
    CHECK(clen > 0);
    std::string out(in.size(), '\0');
    CHECK_EQ(base::LzfDecompress(comp.data(), clen, out.data(), out.size()), in.size());
    CHECK(out == in);
    // An output bound that is too small makes compression fail cleanly.
    if (clen > 1) CHECK_EQ(base::LzfCompress(in.data(), in.size(), comp.data(), clen - 1), 0u);
  }
  // Repetitive text really compresses.
  std::string comp(text.size(), '\0');
  CHECK(base::LzfCompress(text.data(), text.size(), comp.data(), comp.size()) < text.size() / 4);
}

TEST_CASE(LzfDecompressFuzz) {
  std::mt19937_64 rng(2);
  std::string in;
  for (int i = 0; i < 3000; i++) in += "abcdefgh"[rng() % 8];
  std::string comp(in.size() * 2, '\0');
  size_t clen = base::LzfCompress(in.data(), in.size(), comp.data(), comp.size());
  comp.resize(clen);
  std::vector<char> out(in.size());
  for (int iter = 0; iter < 5000; iter++) {
    std::string c = comp;
    int flips = 1 + rng() % 4;
    for (int k = 0; k < flips; k++) c[rng() % c.size()] = static_cast<char>(rng());
    if (rng() % 3 == 0) c.resize(rng() % c.size());
    size_t n = base::LzfDecompress(c.data(), c.size(), out.data(), out.size());
    CHECK(n <= out.size());
  }
  // Pure garbage too.
  for (int iter = 0; iter < 2000; iter++) {
    std::string c(1 + rng() % 64, '\0');
    for (auto& ch : c) ch = static_cast<char>(rng());
    char small[100];
    CHECK(base::LzfDecompress(c.data(), c.size(), small, sizeof(small)) <= sizeof(small));
  }
}

// The format read one byte at a time, as the reference LzfDecompress's 16-byte copies must
// agree with: the same length (0 for a bad input) and the same bytes.
size_t LzfReference(const std::string& in, std::string* out, size_t cap) {
  out->clear();
  size_t i = 0;
  while (i < in.size()) {
    size_t ctrl = static_cast<uint8_t>(in[i++]);
    if (ctrl < 32) {
      for (size_t k = 0; k <= ctrl; k++) {
        if (i >= in.size() || out->size() >= cap) return 0;
        out->push_back(in[i++]);
      }
      continue;
    }
    size_t len = ctrl >> 5;
    if (len == 7) {
      if (i >= in.size()) return 0;
      len += static_cast<uint8_t>(in[i++]);
    }
    if (i >= in.size()) return 0;
    size_t back = ((ctrl & 0x1f) << 8) + static_cast<uint8_t>(in[i++]) + 1;
    if (back > out->size() || out->size() + len + 2 > cap) return 0;
    for (size_t k = 0; k < len + 2; k++) out->push_back((*out)[out->size() - back]);
  }
  return out->size();
}

TEST_CASE(LzfDecompressAgreesWithTheByteByByteReading) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 20000; iter++) {
    // Compressible input of every scale, then its compressed form, perhaps damaged.
    std::string in(1 + rng() % (iter % 10 == 0 ? 20000 : 600), '\0');
    int alphabet = 1 + static_cast<int>(rng() % 6);
    for (auto& c : in) c = static_cast<char>('a' + rng() % alphabet);
    if (rng() % 2)
      for (size_t k = rng() % in.size(); k < in.size(); k += 1 + rng() % 40) in[k] = 'Z';
    std::string comp(in.size() * 2 + 64, '\0');
    comp.resize(base::LzfCompress(in.data(), in.size(), comp.data(), comp.size()));
    CHECK(!comp.empty());
    if (rng() % 3 == 0) comp[rng() % comp.size()] = static_cast<char>(rng());
    if (rng() % 5 == 0) comp.resize(rng() % comp.size() + 1);
    // An output of exactly the size, or with room to spare (the 16-byte copies' case).
    size_t cap = rng() % 2 ? in.size() : in.size() + rng() % 100;
    std::string want;
    size_t want_n = LzfReference(comp, &want, cap);
    std::vector<char> out(cap + 1, '\x7f');
    size_t n = base::LzfDecompress(comp.data(), comp.size(), out.data(), cap);
    CHECK_EQ(n, want_n);
    CHECK(std::string(out.data(), n) == want.substr(0, n));
    CHECK_EQ(out[cap], '\x7f');  // nothing written past the output's bound
  }
}

// Writer: the bytes of New() and the same Appends, with strings of each length encoding and
// integers of each width, written after what the string already held; past 65534 entries
// the header's count says "unknown", as Append leaves it.
TEST_CASE(ListpackWriterMatchesAppends) {
  auto entry = [](size_t i) {
    return i % 5 == 0   ? std::to_string(static_cast<int64_t>(i * 7919) - 100000)
           : i % 5 == 1 ? std::string(i % 5000, 'x')
                        : "e" + std::to_string(i);
  };
  for (size_t n : {0, 1, 7, 2000}) {
    uint8_t* lp = ds::lp::New();
    std::string buf = "prefix";
    ds::lp::Writer w(&buf);
    for (size_t i = 0; i < n; i++) {
      if (i % 11 == 0) {
        lp = ds::lp::AppendInt(lp, static_cast<int64_t>(i) << (i % 40));
        w.AddInt(static_cast<int64_t>(i) << (i % 40));
      } else {
        lp = ds::lp::Append(lp, entry(i));
        w.Add(entry(i));
      }
    }
    std::string_view got = w.Finish();
    CHECK(buf.compare(0, 6, "prefix") == 0);
    CHECK(got.data() == buf.data() + 6);
    CHECK(got == LpBytes(lp));
    CHECK(ds::lp::Validate(reinterpret_cast<const uint8_t*>(got.data()), got.size(), true));
    ds::lp::Free(lp);
  }
  for (size_t n : {65534, 65535, 70000}) {
    std::string buf;
    ds::lp::Writer w(&buf);
    for (size_t i = 0; i < n; i++) w.Add(std::to_string(i % 100));
    std::string_view got = w.Finish();
    auto* p = reinterpret_cast<const uint8_t*>(got.data());
    CHECK_EQ(static_cast<size_t>(p[4] | (p[5] << 8)), std::min<size_t>(n, 65535));
    CHECK(ds::lp::Validate(p, got.size(), true));
    CHECK_EQ(ds::lp::Length(p), n);
  }
}

TEST_CASE(ListpackByteLayout) {
  // The same entries as a redis-server 7.0 small hash: identical bytes.
  uint8_t* lp = ds::lp::New();
  for (const char* s : {"name", "valkey", "ver", "8", "neg", "-300"}) lp = ds::lp::Append(lp, s);
  CHECK(LpBytes(lp) == Unhex("240000000600846e616d65058676616c6b65790783766572040801836e656704de"
                             "d402ff"));
  ds::lp::Free(lp);

  // Each integer width, and the string length encodings.
  struct Case {
    std::string in;
    std::string entry_hex;  // encoding + data + backlen
  };
  std::vector<Case> cases = {
      {"0", "0001"},
      {"127", "7f01"},
      {"128", "c08002"},
      {"-1", "dfff02"},
      {"-4096", "d00002"},
      {"4095", "cfff02"},
      {"4096", "f1001003"},
      {"-32768", "f1008003"},
      {"32768", "f200800004"},
      {"-8388608", "f200008004"},
      {"8388608", "f30000800005"},
      {"-2147483648", "f30000008005"},
      {"2147483648", "f4000000800000000009"},
      {"-9223372036854775808", "f4000000000000008009"},
      {"ab", "82616203"},
      {"007", "8330303704"},
      {"-0", "822d3003"},
  };
  for (auto& c : cases) {
    lp = ds::lp::New();
    lp = ds::lp::Append(lp, c.in);
    std::string want = Unhex(
                           "00000000"
                           "0100") +
                       Unhex(c.entry_hex) + "\xff";
    uint32_t total = static_cast<uint32_t>(want.size());
    memcpy(want.data(), &total, 4);
    if (LpBytes(lp) != want) fprintf(stderr, "  entry for '%s'\n", c.in.c_str());
    CHECK(LpBytes(lp) == want);
    char buf[24];
    CHECK(ds::lp::Get(ds::lp::First(lp)).View(buf) == c.in);
    ds::lp::Free(lp);
  }
}

TEST_CASE(ListpackStringLengthsAndBacklen) {
  // Lengths around every string-header and backlen boundary.
  std::vector<size_t> lens = {0,     63,    64,    125,   126,   127,     4095,   4096,
                              16376, 16377, 16378, 16379, 70000, 2097146, 2097147};
  uint8_t* lp = ds::lp::New();
  std::vector<std::string> model;
  for (size_t n : lens) {
    std::string s(n, 'q');
    if (n) s[0] = 'x';
    lp = ds::lp::Append(lp, s);
    model.push_back(s);
  }
  CHECK(ds::lp::Validate(lp, ds::lp::Bytes(lp), true));
  CHECK(LpToVector(lp) == model);
  CHECK(LpToVectorBackwards(lp) == model);
  CHECK_EQ(ds::lp::Length(lp), lens.size());
  ds::lp::Free(lp);
}

TEST_CASE(ListpackIntegersRoundTrip) {
  std::vector<int64_t> vals = {0,
                               1,
                               127,
                               128,
                               -1,
                               -4096,
                               -4097,
                               4095,
                               4096,
                               32767,
                               32768,
                               -32768,
                               -32769,
                               8388607,
                               8388608,
                               -8388608,
                               -8388609,
                               INT32_MAX,
                               INT32_MIN,
                               int64_t{INT32_MAX} + 1,
                               int64_t{INT32_MIN} - 1,
                               INT64_MAX,
                               INT64_MIN};
  uint8_t* lp = ds::lp::New();
  for (int64_t v : vals) lp = ds::lp::AppendInt(lp, v);
  CHECK(ds::lp::Validate(lp, ds::lp::Bytes(lp), true));
  size_t i = 0;
  for (uint8_t* p = ds::lp::First(lp); p; p = ds::lp::Next(lp, p), i++) {
    ds::lp::Entry e = ds::lp::Get(p);
    CHECK(e.is_int);
    CHECK_EQ(e.ival, vals[i]);
    CHECK(e.Equals(std::to_string(vals[i])));
  }
  CHECK_EQ(i, vals.size());
  ds::lp::Free(lp);
}

TEST_CASE(ListpackOperationsMatchModel) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 20; round++) {
    uint8_t* lp = ds::lp::New();
    std::vector<std::string> model;
    for (int op = 0; op < 400; op++) {
      std::string s = RandomString(rng, rng() % 10 == 0 ? 300 : 12);
      int kind = rng() % 8;
      if (kind == 0) {
        lp = ds::lp::Append(lp, s);
        model.push_back(s);
      } else if (kind == 1) {
        lp = ds::lp::Prepend(lp, s);
        model.insert(model.begin(), s);
      } else if (kind == 2 && !model.empty()) {
        long idx = rng() % model.size();
        bool after = rng() % 2;
        uint8_t* p = ds::lp::Seek(lp, idx - (rng() % 2 ? static_cast<long>(model.size()) : 0));
        uint8_t* np = nullptr;
        lp = ds::lp::Insert(lp, p, s, after, &np);
        size_t at = idx + (after ? 1 : 0);
        model.insert(model.begin() + at, s);
        CHECK(ds::lp::Get(np).Equals(s));
      } else if (kind == 3 && !model.empty()) {
        long idx = rng() % model.size();
        uint8_t* p = ds::lp::Seek(lp, idx);
        lp = ds::lp::Replace(lp, &p, s);
        model[idx] = s;
        CHECK(ds::lp::Get(p).Equals(s));
      } else if (kind == 4 && !model.empty()) {
        long idx = rng() % model.size();
        uint8_t* next = nullptr;
        lp = ds::lp::Delete(lp, ds::lp::Seek(lp, idx), &next);
        model.erase(model.begin() + idx);
        if (static_cast<size_t>(idx) < model.size()) {
          CHECK(next && ds::lp::Get(next).Equals(model[idx]));
        } else {
          CHECK(next == nullptr);
        }
      } else if (kind == 5 && !model.empty()) {
        long idx = rng() % model.size();
        unsigned long cnt = rng() % 5;
        lp = ds::lp::DeleteRange(lp, idx, cnt);
        model.erase(model.begin() + idx,
                    model.begin() + std::min(model.size(), static_cast<size_t>(idx + cnt)));
      } else if (kind == 6 && !model.empty()) {
        // Find with skip=1 over keys; compare with the model's first matching even index.
        const std::string& key = model[(rng() % model.size()) & ~size_t{1}];
        uint8_t* p = ds::lp::Find(lp, ds::lp::First(lp), key, 1);
        long want = -1;
        for (size_t k = 0; k < model.size(); k += 2)
          if (model[k] == key) {
            want = k;
            break;
          }
        CHECK(want >= 0 && p == ds::lp::Seek(lp, want));
        CHECK(ds::lp::Find(lp, ds::lp::First(lp), "\x01never\x02", 0) == nullptr);
      } else {
        long idx = static_cast<long>(rng() % (model.size() + 2)) - 1;
        uint8_t* p = ds::lp::Seek(lp, idx);
        if (idx < 0) idx += model.size();
        if (idx >= 0 && static_cast<size_t>(idx) < model.size()) {
          CHECK(p && ds::lp::Get(p).Equals(model[idx]));
        } else {
          CHECK(p == nullptr);
        }
      }
      CHECK(ds::lp::Validate(lp, ds::lp::Bytes(lp), true));
      CHECK_EQ(ds::lp::Length(lp), model.size());
    }
    CHECK(LpToVector(lp) == model);
    CHECK(LpToVectorBackwards(lp) == model);
    ds::lp::Free(lp);
  }
}

TEST_CASE(ListpackCountBeyond65535) {
  uint8_t* lp = ds::lp::New();
  for (int i = 0; i < 70000; i++) lp = ds::lp::AppendInt(lp, i % 200);
  CHECK_EQ(ds::lp::Length(lp), 70000u);
  CHECK(ds::lp::Validate(lp, ds::lp::Bytes(lp), true));
  CHECK_EQ(ds::lp::Get(ds::lp::Seek(lp, -1)).ival, 69999 % 200);
  lp = ds::lp::DeleteRange(lp, 0, 69000);
  CHECK_EQ(ds::lp::Length(lp), 1000u);
  CHECK(ds::lp::Validate(lp, ds::lp::Bytes(lp), true));
  ds::lp::Free(lp);
  CHECK(ds::lp::SafeToAdd(nullptr, 100));
  CHECK(!ds::lp::SafeToAdd(nullptr, ds::lp::kSafeSize + 1));
}

TEST_CASE(ListpackValidateRejectsCorruption) {
  uint8_t* lp = ds::lp::New();
  for (const char* s : {"a", "1000", "hello world", "-5", "x"}) lp = ds::lp::Append(lp, s);
  std::string good = LpBytes(lp);
  ds::lp::Free(lp);
  auto valid = [](const std::string& s) {
    return ds::lp::Validate(reinterpret_cast<const uint8_t*>(s.data()), s.size(), true);
  };
  CHECK(valid(good));
  std::string bad = good;
  bad[0]++;  // total bytes
  CHECK(!valid(bad));
  bad = good;
  bad[4] = 9;  // count
  CHECK(!valid(bad));
  bad = good;
  bad.back() = 0;  // terminator
  CHECK(!valid(bad));
  bad = good;
  bad[6 + 2] = 7;  // backlen of "a"
  CHECK(!valid(bad));
  bad = good;
  bad[6] = static_cast<char>(0xF5);  // unused encoding
  CHECK(!valid(bad));
  CHECK(!ds::lp::Validate(reinterpret_cast<const uint8_t*>(good.data()), 3, true));
  CHECK(!ds::lp::Validate(nullptr, 0, true));
  // Unknown count (65535) is accepted and counted by walking.
  bad = good;
  bad[4] = bad[5] = static_cast<char>(0xFF);
  CHECK(valid(bad));
  CHECK_EQ(ds::lp::Length(reinterpret_cast<const uint8_t*>(bad.data())), 5u);
}

TEST_CASE(ListpackValidateFuzz) {
  std::mt19937_64 rng(4);
  uint8_t* lp = ds::lp::New();
  for (int i = 0; i < 40; i++) lp = ds::lp::Append(lp, RandomString(rng, i % 7 == 0 ? 200 : 10));
  std::string good = LpBytes(lp);
  ds::lp::Free(lp);
  int accepted = 0;
  for (int iter = 0; iter < 20000; iter++) {
    std::string s = good;
    int flips = 1 + rng() % 3;
    for (int k = 0; k < flips; k++) s[rng() % s.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) s.resize(rng() % s.size());
    if (rng() % 2 && s.size() >= 4) {  // keep the header consistent so entries get checked
      uint32_t n = static_cast<uint32_t>(s.size());
      memcpy(s.data(), &n, 4);
      if (!s.empty()) s.back() = static_cast<char>(0xFF);
    }
    // Copy into an exact-size heap block so any overread is caught by ASan/valgrind.
    auto* buf = static_cast<uint8_t*>(malloc(s.size() ? s.size() : 1));
    memcpy(buf, s.data(), s.size());
    if (ds::lp::Validate(buf, s.size(), true)) {
      accepted++;
      // A validated listpack must be fully walkable both ways.
      size_t fwd = 0, back = 0;
      for (uint8_t* p = ds::lp::First(buf); p; p = ds::lp::Next(buf, p)) fwd++;
      for (uint8_t* p = ds::lp::Last(buf); p; p = ds::lp::Prev(buf, p)) back++;
      CHECK_EQ(fwd, back);
      CHECK_EQ(fwd, ds::lp::Length(buf));
    }
    free(buf);
  }
  CHECK(accepted > 0);
}

TEST_CASE(IntsetAddRemoveAndUpgrade) {
  uint8_t* is = ds::intset::New();
  bool added;
  for (int64_t v : {5, -2, 70000}) is = ds::intset::Add(is, v, &added);
  // The same bytes as a redis-server 7.0 intset of {5, -2, 70000}.
  CHECK(std::string(reinterpret_cast<char*>(is), ds::intset::Bytes(is)) ==
        Unhex("0400000003000000feffffff0500000070110100"));
  is = ds::intset::Add(is, 5, &added);
  CHECK(!added);
  is = ds::intset::Add(is, INT64_MIN, &added);
  CHECK(added);
  CHECK_EQ(ds::intset::Bytes(is), 8u + 4 * 8);
  CHECK_EQ(ds::intset::Min(is), INT64_MIN);
  CHECK_EQ(ds::intset::Max(is), 70000);
  CHECK(ds::intset::Find(is, -2));
  CHECK(!ds::intset::Find(is, 6));
  bool removed;
  is = ds::intset::Remove(is, -2, &removed);
  CHECK(removed);
  is = ds::intset::Remove(is, -2, &removed);
  CHECK(!removed);
  CHECK_EQ(ds::intset::Length(is), 3u);
  CHECK(ds::intset::Validate(is, ds::intset::Bytes(is)));
  ds::intset::Free(is);

  // Model check against std::set with random values of every width.
  std::mt19937_64 rng(5);
  std::vector<int64_t> model;
  is = ds::intset::New();
  for (int i = 0; i < 3000; i++) {
    int64_t v;
    switch (rng() % 3) {
      case 0:
        v = static_cast<int16_t>(rng());
        break;
      case 1:
        v = static_cast<int32_t>(rng());
        break;
      default:
        v = static_cast<int64_t>(rng());
        break;
    }
    if (i < 1000) v %= 100;  // many duplicates early, and 16-bit first
    bool in_model = std::find(model.begin(), model.end(), v) != model.end();
    if (rng() % 4 == 0) {
      is = ds::intset::Remove(is, v, &removed);
      CHECK_EQ(removed, in_model);
      if (in_model) model.erase(std::find(model.begin(), model.end(), v));
    } else {
      is = ds::intset::Add(is, v, &added);
      CHECK_EQ(added, !in_model);
      if (!in_model) model.push_back(v);
    }
  }
  std::sort(model.begin(), model.end());
  CHECK_EQ(ds::intset::Length(is), model.size());
  for (uint32_t i = 0; i < model.size(); i++) CHECK_EQ(ds::intset::Get(is, i), model[i]);
  CHECK(ds::intset::Validate(is, ds::intset::Bytes(is)));
  ds::intset::Free(is);
}

TEST_CASE(IntsetValidate) {
  auto valid = [](const std::string& s) {
    return ds::intset::Validate(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  CHECK(valid(Unhex("0200000002000000ffff0100")));
  CHECK(valid(Unhex("0200000000000000")));
  CHECK(!valid(Unhex("0200000002000000ffff01")));    // short
  CHECK(!valid(Unhex("0300000002000000ffff0100")));  // bad width
  CHECK(!valid(Unhex("020000000200000001000100")));  // duplicate
  CHECK(!valid(Unhex("020000000200000002000100")));  // descending
  CHECK(!valid(Unhex("02000000ffffffff0100")));      // count beyond the buffer
  CHECK(!valid(Unhex("0200")));
}
