// Listpack: encoding, navigation, mutation and validation of the byte format.
#include "ds/listpack.h"

#include <cstdlib>
#include <cstring>

#include "base/endian.h"
#include "base/util.h"

namespace ds::lp {
namespace {

constexpr size_t kHdr = 6;
constexpr uint8_t kEof = 0xFF;
constexpr uint16_t kUnknownCount = 65535;

// Encoding bytes.
constexpr uint8_t kEnc32BitStr = 0xF0;
constexpr uint8_t kEnc16BitInt = 0xF1;
constexpr uint8_t kEnc24BitInt = 0xF2;
constexpr uint8_t kEnc32BitInt = 0xF3;
constexpr uint8_t kEnc64BitInt = 0xF4;

inline uint16_t NumElements(const uint8_t* lp) { return lp[4] | (lp[5] << 8); }
inline void SetNumElements(uint8_t* lp, uint16_t n) {
  lp[4] = n & 0xff;
  lp[5] = n >> 8;
}

// Bytes of the backwards length for an entry whose encoding+data is l bytes (the thresholds
// are those of the reference format, including its 16383 boundary).
inline size_t BacklenSize(uint64_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

inline size_t EncodeBacklen(uint8_t* buf, uint64_t l) {
  size_t n = BacklenSize(l);
  // Most significant 7-bit group first; every byte but the first has the high bit set.
  for (size_t i = 0; i < n; i++) {
    uint8_t group = (l >> (7 * (n - 1 - i))) & 127;
    buf[i] = i == 0 ? group : (group | 128);
  }
  return n;
}

// Size of the encoding and data of the (trusted) entry at p.
inline size_t EncodedSize(const uint8_t* p) {
  uint8_t b = p[0];
  if (b < 0x80) return 1;
  if ((b & 0xC0) == 0x80) return 1 + (b & 0x3f);
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 2 + (((b & 0xF) << 8) | p[1]);
  switch (b) {
    case kEnc32BitStr:
      return 5 + static_cast<size_t>(base::Load32LE(p + 1));
    case kEnc16BitInt:
      return 3;
    case kEnc24BitInt:
      return 4;
    case kEnc32BitInt:
      return 5;
    case kEnc64BitInt:
      return 9;
  }
  return 1;  // unreachable for validated listpacks
}

inline size_t EntrySize(const uint8_t* p) {
  size_t e = EncodedSize(p);
  return e + BacklenSize(e);
}

// One entry ready to be written: header (or the whole integer), then data, then backlen.
struct Encoded {
  uint8_t hdr[9];
  size_t hdr_len = 0;
  const char* data = nullptr;
  size_t data_len = 0;
  uint8_t back[5];
  size_t back_len = 0;
  size_t Total() const { return hdr_len + data_len + back_len; }
};

void EncodeInt(int64_t v, Encoded* e) {
  uint8_t* h = e->hdr;
  if (v >= 0 && v <= 127) {
    h[0] = static_cast<uint8_t>(v);
    e->hdr_len = 1;
  } else if (v >= -4096 && v <= 4095) {
    uint64_t uv = v < 0 ? (uint64_t{1} << 13) + v : static_cast<uint64_t>(v);
    h[0] = static_cast<uint8_t>((uv >> 8) | 0xC0);
    h[1] = uv & 0xff;
    e->hdr_len = 2;
  } else {
    int bytes;
    if (v >= -32768 && v <= 32767) {
      h[0] = kEnc16BitInt;
      bytes = 2;
    } else if (v >= -8388608 && v <= 8388607) {
      h[0] = kEnc24BitInt;
      bytes = 3;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      h[0] = kEnc32BitInt;
      bytes = 4;
    } else {
      h[0] = kEnc64BitInt;
      bytes = 8;
    }
    // Two's complement in `bytes` bytes, little endian.
    uint64_t uv = static_cast<uint64_t>(v);
    for (int i = 0; i < bytes; i++) h[1 + i] = (uv >> (8 * i)) & 0xff;
    e->hdr_len = 1 + bytes;
  }
  e->back_len = EncodeBacklen(e->back, e->hdr_len);
}

void EncodeString(std::string_view s, Encoded* e) {
  int64_t v;
  if (s.size() <= 20 && base::ParseInt64(s, &v)) {
    EncodeInt(v, e);
    return;
  }
  size_t len = s.size();
  uint8_t* h = e->hdr;
  if (len < 64) {
    h[0] = static_cast<uint8_t>(0x80 | len);
    e->hdr_len = 1;
  } else if (len < 4096) {
    h[0] = static_cast<uint8_t>(0xE0 | (len >> 8));
    h[1] = len & 0xff;
    e->hdr_len = 2;
  } else {
    h[0] = kEnc32BitStr;
    base::Store32LE(h + 1, static_cast<uint32_t>(len));
    e->hdr_len = 5;
  }
  e->data = s.data();
  e->data_len = len;
  e->back_len = EncodeBacklen(e->back, e->hdr_len + len);
}

// Replaces del_len bytes at offset off with the entry e (or nothing), fixing the header.
// count_delta is +1 for an insertion, -k for deleting k entries, 0 for a replacement.
uint8_t* Splice(uint8_t* lp, size_t off, size_t del_len, const Encoded* e, long count_delta) {
  size_t old_total = base::Load32LE(lp);
  size_t ins = e ? e->Total() : 0;
  size_t new_total = old_total - del_len + ins;
  size_t tail = old_total - off - del_len;
  if (new_total > old_total) {
    lp = static_cast<uint8_t*>(realloc(lp, new_total));
    if (!lp) abort();
    memmove(lp + off + ins, lp + off + del_len, tail);
  } else if (new_total < old_total) {
    memmove(lp + off + ins, lp + off + del_len, tail);
    uint8_t* r = static_cast<uint8_t*>(realloc(lp, new_total));
    if (r) lp = r;
  }
  if (e) {
    uint8_t* d = lp + off;
    memcpy(d, e->hdr, e->hdr_len);
    d += e->hdr_len;
    if (e->data_len) memcpy(d, e->data, e->data_len);
    d += e->data_len;
    memcpy(d, e->back, e->back_len);
  }
  base::Store32LE(lp, static_cast<uint32_t>(new_total));
  uint16_t n = NumElements(lp);
  if (n != kUnknownCount) {
    long c = static_cast<long>(n) + count_delta;
    SetNumElements(lp, c >= 0 && c < kUnknownCount ? static_cast<uint16_t>(c) : kUnknownCount);
  }
  return lp;
}

// Start of the entry preceding p (p may be the terminator); nullptr at the first entry.
inline uint8_t* PrevOf(uint8_t* lp, uint8_t* p) {
  if (p == lp + kHdr) return nullptr;
  const uint8_t* q = p - 1;
  uint64_t v = 0;
  unsigned shift = 0;
  size_t used = 1;
  while (true) {
    v |= static_cast<uint64_t>(q[0] & 127) << shift;
    if (!(q[0] & 128)) break;
    shift += 7;
    q--;
    used++;
  }
  return p - used - v;
}

}  // namespace

std::string_view Entry::View(char* buf) const {
  if (!is_int) return std::string_view(reinterpret_cast<const char*>(sval), slen);
  return std::string_view(buf, base::FormatInt64(ival, buf));
}

bool Entry::Equals(std::string_view s) const {
  if (!is_int) return s.size() == slen && (slen == 0 || memcmp(s.data(), sval, slen) == 0);
  char buf[24];
  return View(buf) == s;
}

uint8_t* FromBytes(std::string_view bytes) {
  auto* lp = static_cast<uint8_t*>(malloc(bytes.size()));
  if (!lp) abort();
  memcpy(lp, bytes.data(), bytes.size());
  return lp;
}

uint8_t* New(size_t capacity_hint) {
  size_t cap = capacity_hint > kHdr + 1 ? capacity_hint : kHdr + 1;
  uint8_t* lp = static_cast<uint8_t*>(malloc(cap));
  if (!lp) abort();
  base::Store32LE(lp, kHdr + 1);
  SetNumElements(lp, 0);
  lp[kHdr] = kEof;
  return lp;
}

void Free(uint8_t* lp) { free(lp); }

uint8_t* Dup(const uint8_t* lp) {
  size_t n = Bytes(lp);
  auto* d = static_cast<uint8_t*>(malloc(n));
  memcpy(d, lp, n);
  return d;
}

size_t Bytes(const uint8_t* lp) { return base::Load32LE(lp); }

size_t Length(const uint8_t* lp) {
  uint16_t n = NumElements(lp);
  if (n != kUnknownCount) return n;
  size_t count = 0;
  const uint8_t* p = lp + kHdr;
  while (*p != kEof) {
    p += EntrySize(p);
    count++;
  }
  return count;
}

uint8_t* First(uint8_t* lp) { return lp[kHdr] == kEof ? nullptr : lp + kHdr; }

uint8_t* Last(uint8_t* lp) { return PrevOf(lp, lp + base::Load32LE(lp) - 1); }

uint8_t* Next(uint8_t*, uint8_t* p) {
  p += EntrySize(p);
  return *p == kEof ? nullptr : p;
}

uint8_t* Prev(uint8_t* lp, uint8_t* p) { return PrevOf(lp, p); }

uint8_t* Seek(uint8_t* lp, long index) {
  long n = static_cast<long>(Length(lp));
  if (index < 0) index += n;
  if (index < 0 || index >= n) return nullptr;
  if (index <= n / 2) {
    uint8_t* p = lp + kHdr;
    for (long i = 0; i < index; i++) p += EntrySize(p);
    return p;
  }
  uint8_t* p = Last(lp);
  for (long i = n - 1; i > index; i--) p = PrevOf(lp, p);
  return p;
}

Entry Get(const uint8_t* p) {
  Entry e{};
  uint8_t b = p[0];
  if (b < 0x80) {
    e.is_int = true;
    e.ival = b;
    return e;
  }
  if ((b & 0xC0) == 0x80) {
    e.sval = p + 1;
    e.slen = b & 0x3f;
    return e;
  }
  if ((b & 0xE0) == 0xC0) {
    uint64_t uv = (static_cast<uint64_t>(b & 0x1f) << 8) | p[1];
    e.is_int = true;
    e.ival = uv >= (1u << 12) ? static_cast<int64_t>(uv) - (1 << 13) : static_cast<int64_t>(uv);
    return e;
  }
  if ((b & 0xF0) == 0xE0) {
    e.sval = p + 2;
    e.slen = ((b & 0xF) << 8) | p[1];
    return e;
  }
  if (b == kEnc32BitStr) {
    e.sval = p + 5;
    e.slen = base::Load32LE(p + 1);
    return e;
  }
  int bytes = b == kEnc16BitInt ? 2 : b == kEnc24BitInt ? 3 : b == kEnc32BitInt ? 4 : 8;
  uint64_t uv = 0;
  for (int i = 0; i < bytes; i++) uv |= static_cast<uint64_t>(p[1 + i]) << (8 * i);
  if (bytes < 8 && (uv >> (8 * bytes - 1))) uv |= ~uint64_t{0} << (8 * bytes);  // sign-extend
  e.is_int = true;
  e.ival = static_cast<int64_t>(uv);
  return e;
}

Writer::Writer(std::string* out) : out_(out), start_(out->size()) { out->append(kHdr, '\0'); }

namespace {
void Put(std::string* out, const Encoded& e) {
  out->append(reinterpret_cast<const char*>(e.hdr), e.hdr_len);
  if (e.data_len) out->append(e.data, e.data_len);
  out->append(reinterpret_cast<const char*>(e.back), e.back_len);
}
}  // namespace

void Writer::Add(std::string_view s) {
  Encoded e;
  EncodeString(s, &e);
  Put(out_, e);
  count_++;
}

void Writer::AddInt(int64_t v) {
  Encoded e;
  EncodeInt(v, &e);
  Put(out_, e);
  count_++;
}

std::string_view Writer::Finish() {
  out_->push_back(static_cast<char>(kEof));
  auto* lp = reinterpret_cast<uint8_t*>(out_->data() + start_);
  size_t total = out_->size() - start_;
  base::Store32LE(lp, static_cast<uint32_t>(total));
  SetNumElements(lp, count_ < kUnknownCount ? static_cast<uint16_t>(count_) : kUnknownCount);
  return {out_->data() + start_, total};
}

uint8_t* Append(uint8_t* lp, std::string_view s) {
  Encoded e;
  EncodeString(s, &e);
  return Splice(lp, base::Load32LE(lp) - 1, 0, &e, 1);
}

uint8_t* AppendInt(uint8_t* lp, int64_t v) {
  Encoded e;
  EncodeInt(v, &e);
  return Splice(lp, base::Load32LE(lp) - 1, 0, &e, 1);
}

uint8_t* Prepend(uint8_t* lp, std::string_view s) {
  Encoded e;
  EncodeString(s, &e);
  return Splice(lp, kHdr, 0, &e, 1);
}

uint8_t* Insert(uint8_t* lp, uint8_t* p, std::string_view s, bool after, uint8_t** newp) {
  size_t off;
  if (!p) {
    off = base::Load32LE(lp) - 1;
  } else {
    off = p - lp;
    if (after) off += EntrySize(p);
  }
  Encoded e;
  EncodeString(s, &e);
  lp = Splice(lp, off, 0, &e, 1);
  if (newp) *newp = lp + off;
  return lp;
}

uint8_t* Replace(uint8_t* lp, uint8_t** p, std::string_view s) {
  size_t off = *p - lp;
  Encoded e;
  EncodeString(s, &e);
  lp = Splice(lp, off, EntrySize(*p), &e, 0);
  *p = lp + off;
  return lp;
}

uint8_t* Delete(uint8_t* lp, uint8_t* p, uint8_t** next) {
  size_t off = p - lp;
  lp = Splice(lp, off, EntrySize(p), nullptr, -1);
  if (next) *next = lp[off] == kEof ? nullptr : lp + off;
  return lp;
}

uint8_t* DeleteRange(uint8_t* lp, long index, unsigned long count) {
  uint8_t* p = Seek(lp, index);
  if (!p || count == 0) return lp;
  uint8_t* q = p;
  unsigned long deleted = 0;
  while (deleted < count && *q != kEof) {
    q += EntrySize(q);
    deleted++;
  }
  return Splice(lp, p - lp, q - p, nullptr, -static_cast<long>(deleted));
}

uint8_t* Find(uint8_t*, uint8_t* p, std::string_view s, unsigned skip) {
  if (!p) return nullptr;
  int64_t sv = 0;
  bool s_int = s.size() <= 20 && base::ParseInt64(s, &sv);
  unsigned skipcnt = 0;
  while (*p != kEof) {
    size_t enc = EncodedSize(p);
    if (skipcnt == 0) {
      uint8_t b = p[0];
      bool is_str = (b & 0xC0) == 0x80 || (b & 0xF0) == 0xE0 || b == kEnc32BitStr;
      if (is_str) {
        Entry e = Get(p);
        if (e.slen == s.size() && (e.slen == 0 || memcmp(e.sval, s.data(), e.slen) == 0)) {
          return p;
        }
      } else if (s_int && Get(p).ival == sv) {
        return p;
      }
      skipcnt = skip;
    } else {
      skipcnt--;
    }
    p += enc + BacklenSize(enc);
  }
  return nullptr;
}

bool SafeToAdd(const uint8_t* lp, size_t add) {
  size_t len = lp ? Bytes(lp) : 0;
  return len + add <= kSafeSize;
}

bool Validate(const uint8_t* lp, size_t size, bool deep) {
  if (!lp || size < kHdr + 1 || size > UINT32_MAX) return false;
  if (base::Load32LE(lp) != size || lp[size - 1] != kEof) return false;
  if (!deep) return true;
  const uint8_t* p = lp + kHdr;
  const uint8_t* end = lp + size - 1;  // the terminator
  size_t count = 0;
  while (p < end) {
    size_t avail = end - p;
    uint8_t b = p[0];
    uint64_t enc_len;
    if (b < 0x80) {
      enc_len = 1;
    } else if ((b & 0xC0) == 0x80) {
      enc_len = 1 + (b & 0x3f);
    } else if ((b & 0xE0) == 0xC0) {
      enc_len = 2;
    } else if ((b & 0xF0) == 0xE0) {
      if (avail < 2) return false;
      enc_len = 2 + (((b & 0xF) << 8) | p[1]);
    } else if (b == kEnc32BitStr) {
      if (avail < 5) return false;
      enc_len = 5 + static_cast<uint64_t>(base::Load32LE(p + 1));
    } else if (b == kEnc16BitInt) {
      enc_len = 3;
    } else if (b == kEnc24BitInt) {
      enc_len = 4;
    } else if (b == kEnc32BitInt) {
      enc_len = 5;
    } else if (b == kEnc64BitInt) {
      enc_len = 9;
    } else {
      return false;  // unused encoding or a terminator in the middle
    }
    if (enc_len > avail) return false;
    size_t bl = BacklenSize(enc_len);
    if (enc_len + bl > avail) return false;
    // The backwards length must decode, from its last byte, to enc_len in exactly bl bytes.
    const uint8_t* q = p + enc_len + bl - 1;
    uint64_t v = 0;
    unsigned shift = 0;
    size_t used = 1;
    while (true) {
      v |= static_cast<uint64_t>(q[0] & 127) << shift;
      if (!(q[0] & 128)) break;
      if (used == bl) return false;
      shift += 7;
      q--;
      used++;
    }
    if (used != bl || v != enc_len) return false;
    p += enc_len + bl;
    count++;
  }
  uint16_t n = NumElements(lp);
  return n == kUnknownCount || n == count;
}

}  // namespace ds::lp
