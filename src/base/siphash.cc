// SipHash-1-3 (one compression round, three finalization rounds), written from the public
// algorithm description by Aumasson and Bernstein.
#include "base/siphash.h"

#include <cstring>

namespace base {
namespace {
inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }
inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;  // little-endian host assumed (x86_64, aarch64)
}
struct State {
  uint64_t v0, v1, v2, v3;
  void Round() {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  }
};
inline uint8_t Lower(uint8_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

template <bool kNoCase>
uint64_t Sip(const void* data, size_t len, const uint8_t key[16]) {
  const uint8_t* in = static_cast<const uint8_t*>(data);
  uint64_t k0 = Load64(key), k1 = Load64(key + 8);
  State s{0x736f6d6570736575ULL ^ k0, 0x646f72616e646f6dULL ^ k1, 0x6c7967656e657261ULL ^ k0,
          0x7465646279746573ULL ^ k1};
  const uint8_t* end = in + (len - len % 8);
  uint8_t buf[8];
  for (; in != end; in += 8) {
    uint64_t m;
    if constexpr (kNoCase) {
      for (int i = 0; i < 8; i++) buf[i] = Lower(in[i]);
      m = Load64(buf);
    } else {
      m = Load64(in);
    }
    s.v3 ^= m;
    s.Round();
    s.v0 ^= m;
  }
  uint64_t b = static_cast<uint64_t>(len) << 56;
  int left = len & 7;
  for (int i = left - 1; i >= 0; i--) {
    uint8_t c = kNoCase ? Lower(in[i]) : in[i];
    b |= static_cast<uint64_t>(c) << (8 * i);
  }
  s.v3 ^= b;
  s.Round();
  s.v0 ^= b;
  s.v2 ^= 0xff;
  s.Round();
  s.Round();
  s.Round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
}  // namespace

uint64_t SipHash13(const void* data, size_t len, const uint8_t key[16]) {
  return Sip<false>(data, len, key);
}
uint64_t SipHash13NoCase(const void* data, size_t len, const uint8_t key[16]) {
  return Sip<true>(data, len, key);
}
}  // namespace base
