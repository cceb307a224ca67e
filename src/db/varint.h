// Lengths stored in front of the bytes they measure, 7 bits a byte (1 byte up to 127): the
// keyspace object and the hash and set table nodes, where a fixed 4-byte length would push
// small entries into jemalloc's next size class.
#pragma once
#include <cstddef>
#include <cstdint>

namespace db {

inline size_t VarintLen(size_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

inline char* PutVarint(char* p, size_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

inline const char* GetVarint(const char* p, size_t* v) {
  uint8_t b = static_cast<uint8_t>(*p++);
  if (!(b & 0x80)) {  // the common case: under 128
    *v = b;
    return p;
  }
  size_t r = b & 0x7f;
  int shift = 7;
  while (true) {
    b = static_cast<uint8_t>(*p++);
    r |= static_cast<size_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  *v = r;
  return p;
}

}  // namespace db
