// Intset: sorted integer array with width upgrades, binary search and validation.
#include "ds/intset.h"

#include <cstdlib>
#include <cstring>

#include "base/endian.h"

namespace ds::intset {
namespace {

constexpr size_t kHdr = 8;

inline uint32_t Enc(const uint8_t* is) { return base::Load32LE(is); }

inline uint32_t EncFor(int64_t v) {
  if (v >= INT16_MIN && v <= INT16_MAX) return 2;
  if (v >= INT32_MIN && v <= INT32_MAX) return 4;
  return 8;
}

inline int64_t GetEnc(const uint8_t* is, uint32_t pos, uint32_t enc) {
  const uint8_t* p = is + kHdr + static_cast<size_t>(pos) * enc;
  uint64_t uv = 0;
  for (uint32_t i = 0; i < enc; i++) uv |= static_cast<uint64_t>(p[i]) << (8 * i);
  if (enc < 8 && (uv >> (8 * enc - 1))) uv |= ~uint64_t{0} << (8 * enc);
  return static_cast<int64_t>(uv);
}

inline void SetEnc(uint8_t* is, uint32_t pos, uint32_t enc, int64_t v) {
  uint8_t* p = is + kHdr + static_cast<size_t>(pos) * enc;
  uint64_t uv = static_cast<uint64_t>(v);
  for (uint32_t i = 0; i < enc; i++) p[i] = (uv >> (8 * i)) & 0xff;
}

// Position of v, or where it would be inserted; true when found.
bool Search(const uint8_t* is, int64_t v, uint32_t* pos) {
  uint32_t len = Length(is);
  uint32_t enc = Enc(is);
  if (len == 0) {
    *pos = 0;
    return false;
  }
  if (v > GetEnc(is, len - 1, enc)) {
    *pos = len;
    return false;
  }
  if (v < GetEnc(is, 0, enc)) {
    *pos = 0;
    return false;
  }
  uint32_t lo = 0, hi = len;  // answer in [lo, hi)
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t cur = GetEnc(is, mid, enc);
    if (cur < v) {
      lo = mid + 1;
    } else if (cur > v) {
      hi = mid;
    } else {
      *pos = mid;
      return true;
    }
  }
  *pos = lo;
  return false;
}

uint8_t* Resize(uint8_t* is, uint32_t len, uint32_t enc) {
  uint8_t* r = static_cast<uint8_t*>(realloc(is, kHdr + static_cast<size_t>(len) * enc));
  if (!r) abort();
  return r;
}

}  // namespace

uint8_t* New() {
  uint8_t* is = static_cast<uint8_t*>(malloc(kHdr));
  if (!is) abort();
  base::Store32LE(is, 2);
  base::Store32LE(is + 4, 0);
  return is;
}

void Free(uint8_t* is) { free(is); }

size_t Bytes(const uint8_t* is) { return kHdr + static_cast<size_t>(Length(is)) * Enc(is); }

uint32_t Length(const uint8_t* is) { return base::Load32LE(is + 4); }

int64_t Get(const uint8_t* is, uint32_t pos) { return GetEnc(is, pos, Enc(is)); }

bool Find(const uint8_t* is, int64_t v) {
  if (EncFor(v) > Enc(is)) return false;
  uint32_t pos;
  return Search(is, v, &pos);
}

uint8_t* Add(uint8_t* is, int64_t v, bool* added) {
  uint32_t enc = Enc(is);
  uint32_t len = Length(is);
  uint32_t need = EncFor(v);
  if (need > enc) {
    // Upgrade: v is outside the current range, so it goes first (negative) or last.
    is = Resize(is, len + 1, need);
    bool prepend = v < 0;
    for (uint32_t i = len; i-- > 0;) SetEnc(is, i + (prepend ? 1 : 0), need, GetEnc(is, i, enc));
    SetEnc(is, prepend ? 0 : len, need, v);
    base::Store32LE(is, need);
    base::Store32LE(is + 4, len + 1);
    if (added) *added = true;
    return is;
  }
  uint32_t pos;
  if (Search(is, v, &pos)) {
    if (added) *added = false;
    return is;
  }
  is = Resize(is, len + 1, enc);
  uint8_t* base = is + kHdr;
  memmove(base + (static_cast<size_t>(pos) + 1) * enc, base + static_cast<size_t>(pos) * enc,
          static_cast<size_t>(len - pos) * enc);
  SetEnc(is, pos, enc, v);
  base::Store32LE(is + 4, len + 1);
  if (added) *added = true;
  return is;
}

uint8_t* Remove(uint8_t* is, int64_t v, bool* removed) {
  uint32_t enc = Enc(is);
  uint32_t len = Length(is);
  uint32_t pos;
  if (EncFor(v) > enc || !Search(is, v, &pos)) {
    if (removed) *removed = false;
    return is;
  }
  uint8_t* base = is + kHdr;
  memmove(base + static_cast<size_t>(pos) * enc, base + (static_cast<size_t>(pos) + 1) * enc,
          static_cast<size_t>(len - pos - 1) * enc);
  base::Store32LE(is + 4, len - 1);
  if (removed) *removed = true;
  return Resize(is, len - 1, enc);
}

int64_t Min(const uint8_t* is) { return Get(is, 0); }

int64_t Max(const uint8_t* is) { return Get(is, Length(is) - 1); }

bool Validate(const uint8_t* is, size_t size) {
  if (!is || size < kHdr) return false;
  uint32_t enc = Enc(is);
  if (enc != 2 && enc != 4 && enc != 8) return false;
  uint64_t len = Length(is);
  if (kHdr + len * enc != size) return false;
  for (uint64_t i = 1; i < len; i++) {
    if (GetEnc(is, i - 1, enc) >= GetEnc(is, i, enc)) return false;
  }
  return true;
}

}  // namespace ds::intset
