// Ziplist validation and iteration (read only).
#include "persist/ziplist_reader.h"

#include "base/endian.h"
#include "base/util.h"

namespace persist {
namespace {

constexpr size_t kHdr = 10;
constexpr uint8_t kEnd = 0xFF;
constexpr uint8_t kBigPrevlen = 254;

struct ZlEntry {
  size_t prevlen;
  size_t header;  // prevlen bytes + encoding bytes
  size_t len;     // data bytes
  bool is_int;
  int64_t ival;
  const uint8_t* sval;
};

// Decodes the entry at p; false if it is malformed or does not end before `last` (the end
// marker).
bool DecodeEntry(const uint8_t* p, const uint8_t* last, ZlEntry* e) {
  size_t avail = last - p;
  if (avail < 1) return false;
  size_t pl;
  if (p[0] < kBigPrevlen) {
    pl = 1;
    e->prevlen = p[0];
  } else if (p[0] == kBigPrevlen) {
    if (avail < 5) return false;
    pl = 5;
    e->prevlen = base::Load32LE(p + 1);
  } else {
    return false;
  }
  if (avail < pl + 1) return false;
  const uint8_t* q = p + pl;
  uint8_t b = q[0];
  size_t enc_len;
  e->is_int = false;
  if (b < 0xC0) {
    switch (b >> 6) {
      case 0:
        enc_len = 1;
        e->len = b & 0x3f;
        break;
      case 1:
        if (avail < pl + 2) return false;
        enc_len = 2;
        e->len = (static_cast<size_t>(b & 0x3f) << 8) | q[1];
        break;
      default:
        if (avail < pl + 5) return false;
        enc_len = 5;
        e->len = static_cast<size_t>(q[1]) << 24 | static_cast<size_t>(q[2]) << 16 |
                 static_cast<size_t>(q[3]) << 8 | q[4];
        break;
    }
    e->header = pl + enc_len;
    if (e->len > avail - e->header) return false;
    e->sval = p + e->header;
    return true;
  }
  enc_len = 1;
  int bytes;
  switch (b) {
    case 0xFE:
      bytes = 1;
      break;
    case 0xC0:
      bytes = 2;
      break;
    case 0xF0:
      bytes = 3;
      break;
    case 0xD0:
      bytes = 4;
      break;
    case 0xE0:
      bytes = 8;
      break;
    default:
      if (b >= 0xF1 && b <= 0xFD) {
        bytes = 0;
        break;
      }
      return false;
  }
  e->header = pl + enc_len;
  e->len = bytes;
  if (e->len > avail - e->header) return false;
  e->is_int = true;
  if (bytes == 0) {
    e->ival = (b & 0x0F) - 1;
  } else {
    const uint8_t* d = p + e->header;
    uint64_t uv = 0;
    for (int i = 0; i < bytes; i++) uv |= static_cast<uint64_t>(d[i]) << (8 * i);
    if (bytes < 8 && (uv >> (8 * bytes - 1))) uv |= ~uint64_t{0} << (8 * bytes);
    e->ival = static_cast<int64_t>(uv);
  }
  return true;
}

}  // namespace

bool ZiplistForEach(const uint8_t* zl, size_t size,
                    const std::function<void(std::string_view)>& fn) {
  if (!zl || size < kHdr + 1 || size > UINT32_MAX) return false;
  if (base::Load32LE(zl) != size || zl[size - 1] != kEnd) return false;
  size_t tail = base::Load32LE(zl + 4);
  if (tail > size - 1) return false;
  uint16_t header_count = zl[8] | (zl[9] << 8);
  const uint8_t* last = zl + size - 1;
  // Pass 1: validate.
  const uint8_t* p = zl + kHdr;
  size_t prev_size = 0;
  size_t count = 0;
  const uint8_t* last_entry = zl + kHdr;
  ZlEntry e;
  while (p < last) {
    if (!DecodeEntry(p, last, &e)) return false;
    if (e.prevlen != prev_size) return false;
    last_entry = p;
    prev_size = e.header + e.len;
    p += prev_size;
    count++;
  }
  if (static_cast<size_t>(last_entry - zl) != tail) return false;
  if (header_count != UINT16_MAX && header_count != count) return false;
  // Pass 2: deliver.
  char buf[24];
  for (p = zl + kHdr; p < last; p += e.header + e.len) {
    DecodeEntry(p, last, &e);
    if (e.is_int) {
      fn(std::string_view(buf, base::FormatInt64(e.ival, buf)));
    } else {
      fn(std::string_view(reinterpret_cast<const char*>(e.sval), e.len));
    }
  }
  return true;
}

}  // namespace persist
