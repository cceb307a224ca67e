// CRC-64/Jones (reflected, init 0, no final xor), computed eight bytes at a time.
#include "base/crc64.h"

#include <array>

namespace base {
namespace {

// The Jones polynomial 0xad93d23594c935a9, bit-reversed for the reflected algorithm.
constexpr uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ULL;

using Tables = std::array<std::array<uint64_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (int i = 0; i < 256; i++) {
    uint64_t c = static_cast<uint64_t>(i);
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[0][i] = c;
  }
  for (int i = 0; i < 256; i++) {
    for (int k = 1; k < 8; k++) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

}  // namespace

uint64_t Crc64(uint64_t crc, const void* data, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (len >= 8) {
    uint64_t w = static_cast<uint64_t>(p[0]) | static_cast<uint64_t>(p[1]) << 8 |
                 static_cast<uint64_t>(p[2]) << 16 | static_cast<uint64_t>(p[3]) << 24 |
                 static_cast<uint64_t>(p[4]) << 32 | static_cast<uint64_t>(p[5]) << 40 |
                 static_cast<uint64_t>(p[6]) << 48 | static_cast<uint64_t>(p[7]) << 56;
    crc ^= w;
    crc = kTables[7][crc & 0xff] ^ kTables[6][(crc >> 8) & 0xff] ^ kTables[5][(crc >> 16) & 0xff] ^
          kTables[4][(crc >> 24) & 0xff] ^ kTables[3][(crc >> 32) & 0xff] ^
          kTables[2][(crc >> 40) & 0xff] ^ kTables[1][(crc >> 48) & 0xff] ^ kTables[0][crc >> 56];
    p += 8;
    len -= 8;
  }
  while (len--) crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace base
