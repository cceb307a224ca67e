// HyperLogLog codec (db/hll): reference layouts from Valkey 8.0.1, dense register packing, the
// sparse form checked against a plain register array, promotion, corrupt bodies.
#include "db/hll.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "check.h"

namespace {
namespace hll = db::hll;

std::string Unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

// Every register of a valid value (through a dense copy).
std::vector<uint8_t> Registers(const std::string& v) {
  std::string d = v;
  std::vector<uint8_t> out(hll::kRegisters);
  if (!hll::ToDense(&d)) return {};
  auto* regs = reinterpret_cast<const uint8_t*>(d.data()) + hll::kHeaderSize;
  for (int i = 0; i < hll::kRegisters; i++) out[i] = hll::DenseGet(regs, i);
  return out;
}

}  // namespace

TEST_CASE(HllNewSparseLayout) {
  std::string v = hll::NewSparse();
  CHECK_EQ(v, Unhex("48594c4c010000000000000000000000"
                    "7fff"));
  CHECK(hll::LooksValid(v));
  CHECK(hll::CacheValid(v));
  CHECK_EQ(hll::DecodeSparse(v), std::string("Z:16384"));
  bool invalid = false;
  CHECK_EQ(hll::Count(v, &invalid), 0u);
  CHECK(!invalid);
}

TEST_CASE(HllAddMatchesValkey) {
  // PFADD hll a b c on Valkey 8.0.1, then PFDEBUG DECODE.
  std::string v = hll::NewSparse();
  for (const char* e : {"a", "b", "c"}) CHECK_EQ(hll::Add(&v, e, 3000), 1);
  CHECK_EQ(hll::Add(&v, "a", 3000), 0);
  CHECK_EQ(hll::DecodeSparse(v), std::string("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"));
  CHECK(!hll::CacheValid(v));
  bool invalid = false;
  CHECK_EQ(hll::Count(v, &invalid), 3u);
  // A lone PFADD l a on the valid body "Z:16384" with a stale cache (recorded from Valkey).
  std::string l = Unhex("48594c4c0100000000000000000000807fff");
  CHECK_EQ(hll::Add(&l, "a", 3000), 1);
  CHECK_EQ(l, Unhex("48594c4c01000000000000000000008071a6844e57"));
}

TEST_CASE(HllPatternLength) {
  // 8-byte elements made by inverting MurmurHash64A for chosen hashes (see hyperloglog.tcl).
  struct {
    const char* hex;
    int index, count;
  } cases[] = {{"76f04c7bfb6aaaee", 7, 32},
               {"86cad1e70917d683", 1000, 33},
               {"61eba9e22cb27122", 5, 40},
               {"2295e776dc15ca3f", 16383, 51}};
  for (auto& c : cases) {
    int index;
    CHECK_EQ(hll::PatternLength(Unhex(c.hex), &index), c.count);
    CHECK_EQ(index, c.index);
  }
}

TEST_CASE(HllDenseRegistersPackLsbFirst) {
  std::vector<uint8_t> regs(hll::kDenseSize - hll::kHeaderSize);
  std::mt19937 rng(7);
  std::vector<uint8_t> want(hll::kRegisters);
  for (int i = 0; i < hll::kRegisters; i++) {
    want[i] = static_cast<uint8_t>(rng() & 63);
    hll::DenseSet(regs.data(), i, want[i]);
  }
  for (int i = 0; i < hll::kRegisters; i++)
    CHECK_EQ(int(hll::DenseGet(regs.data(), i)), int(want[i]));
  // Register 1 = 63 alone: bits 6..11, i.e. 0xc0 then 0x0f.
  std::fill(regs.begin(), regs.end(), 0);
  hll::DenseSet(regs.data(), 1, 63);
  CHECK_EQ(int(regs[0]), 0xc0);
  CHECK_EQ(int(regs[1]), 0x0f);
  hll::DenseSet(regs.data(), hll::kRegisters - 1, 63);
  CHECK_EQ(int(regs.back()), 0xfc);
  // Whole-array unpack and pack agree with the register accessors.
  for (int i = 0; i < hll::kRegisters; i++) hll::DenseSet(regs.data(), i, want[i]);
  std::vector<uint8_t> unpacked(hll::kRegisters), packed(regs.size());
  hll::DenseUnpack(regs.data(), unpacked.data());
  CHECK(unpacked == want);
  hll::DensePack(want.data(), packed.data());
  CHECK(packed == regs);
}

TEST_CASE(HllSparseAgreesWithPlainRegisters) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; round++) {
    std::string v = hll::NewSparse();
    std::vector<uint8_t> plain(hll::kRegisters);
    int n = 1 + static_cast<int>(rng() % 3000);
    // Clustered indexes exercise the VAL splits and merges, scattered ones the ZERO/XZERO splits.
    for (int i = 0; i < n; i++) {
      int index = round % 2 ? static_cast<int>(rng() % 64) + 500
                            : static_cast<int>(rng() % hll::kRegisters);
      uint8_t count = static_cast<uint8_t>(1 + rng() % 40);
      int changed = hll::SetRegister(&v, index, count, 1 << 20);
      CHECK_EQ(changed, count > plain[index] ? 1 : 0);
      if (count > plain[index]) plain[index] = count;
    }
    CHECK(hll::LooksValid(v));
    CHECK(Registers(v) == plain);
    bool invalid = false;
    uint64_t c1 = hll::Count(v, &invalid);
    CHECK(!invalid);
    std::string d = v;
    CHECK(hll::ToDense(&d));
    CHECK_EQ(d.size(), hll::kDenseSize);
    CHECK_EQ(hll::Count(d, &invalid), c1);
    std::vector<uint8_t> max(hll::kRegisters);
    CHECK(hll::MergeInto(max.data(), v));
    CHECK(max == plain);
    CHECK_EQ(hll::CountRaw(max.data()), c1);
  }
}

TEST_CASE(HllPromotionBySizeAndValue) {
  std::string v = hll::NewSparse();
  int added = 0;
  while (hll::Encoding(v) == hll::kSparse) {
    CHECK(v.size() <= 100);
    hll::Add(&v, "e" + std::to_string(added++), 100);
  }
  CHECK_EQ(v.size(), hll::kDenseSize);
  CHECK(added > 10);
  // A value above 32 cannot be sparse.
  std::string w = hll::NewSparse();
  CHECK_EQ(hll::SetRegister(&w, 5, 32, 3000), 1);
  CHECK_EQ(hll::Encoding(w), hll::kSparse);
  CHECK_EQ(hll::SetRegister(&w, 6, 33, 3000), 1);
  CHECK_EQ(hll::Encoding(w), hll::kDense);
  auto regs = Registers(w);
  CHECK_EQ(int(regs[5]), 32);
  CHECK_EQ(int(regs[6]), 33);
}

TEST_CASE(HllCacheBytes) {
  std::string v = hll::NewSparse();
  hll::SetCachedCardinality(&v, 0x0102030405060708ULL);
  CHECK_EQ(v.substr(8, 8), Unhex("0807060504030201"));
  CHECK(hll::CacheValid(v));
  CHECK_EQ(hll::CachedCardinality(v), 0x0102030405060708ULL);
  hll::InvalidateCache(&v);
  CHECK(!hll::CacheValid(v));
  CHECK_EQ(static_cast<uint8_t>(v[15]), 0x81);
}

TEST_CASE(HllCorruptBodies) {
  std::string hdr = Unhex("48594c4c010000000000000000000080");
  const char* bodies[] = {"", "63", "7ffe83", "407f", "fe7f", "7e", "407f7f", "7fff8000", "80"};
  for (const char* b : bodies) {
    std::string v = hdr + Unhex(b);
    CHECK(hll::LooksValid(v));
    bool invalid = false;
    hll::Count(v, &invalid);
    std::vector<uint8_t> max(hll::kRegisters);
    bool merged = hll::MergeInto(max.data(), v);
    std::string d = v;
    bool dense = hll::ToDense(&d);
    // "Z:16384 v:1,1 z:1" runs past the end: MergeInto and ToDense stop at register 16384.
    bool past_end = std::string(b) == "7fff8000";
    CHECK(invalid);
    CHECK_EQ(merged, past_end);
    CHECK_EQ(dense, past_end);
    // Edits never read or write outside the value.
    for (int i = 0; i < 200; i++) hll::Add(&v, std::to_string(i), 3000);
    CHECK(v.size() >= hll::kHeaderSize);
  }
  CHECK(!hll::LooksValid(Unhex("48594c4c01")));
  CHECK(!hll::LooksValid(Unhex("48594c4c020000000000000000000000")));
  CHECK(!hll::LooksValid(Unhex("48594c4c000000000000000000000000ffff")));
  CHECK(!hll::LooksValid(Unhex("48594c4d010000000000000000000000")));
}
