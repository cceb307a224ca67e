#include "persist/zipmap_reader.h"

#include <cstring>

namespace persist {
namespace {

constexpr uint8_t kBigLen = 254;
constexpr uint8_t kEnd = 255;

// Reads a length at *p (advanced past it); false if it runs past `end` or is not in its
// shortest form.
bool ReadLen(const uint8_t** p, const uint8_t* end, uint32_t* len) {
  if (*p >= end) return false;
  if (**p < kBigLen) {
    *len = *(*p)++;
    return true;
  }
  if (end - *p < 5) return false;
  uint8_t b[4];
  memcpy(b, *p + 1, 4);
  *len = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
  *p += 5;
  return *len >= kBigLen;  // Valkey sizes a length by its value: a short one in 5 bytes desyncs
}

// One pass: checks, and calls fn when given.
bool Walk(const uint8_t* zm, size_t size,
          const std::function<void(std::string_view, std::string_view)>* fn) {
  if (size < 2) return false;
  const uint8_t* end = zm + size;
  const uint8_t* p = zm + 1;
  size_t count = 0;
  while (true) {
    if (p >= end) return false;
    if (*p == kEnd) break;
    uint32_t klen, vlen;
    if (!ReadLen(&p, end, &klen) || static_cast<size_t>(end - p) < klen) return false;
    std::string_view key(reinterpret_cast<const char*>(p), klen);
    p += klen;
    if (!ReadLen(&p, end, &vlen) || p >= end) return false;
    uint8_t free = *p++;
    if (static_cast<size_t>(end - p) < uint64_t{vlen} + free) return false;
    std::string_view val(reinterpret_cast<const char*>(p), vlen);
    p += vlen + free;
    if (fn) (*fn)(key, val);
    count++;
  }
  if (p != end - 1) return false;  // bytes after the end marker
  return zm[0] == kBigLen || zm[0] == count;
}

}  // namespace

bool ZipmapForEach(const uint8_t* zm, size_t size,
                   const std::function<void(std::string_view, std::string_view)>& fn) {
  return Walk(zm, size, nullptr) && Walk(zm, size, &fn);
}

}  // namespace persist
