// Pack: front-coded entries in columns (format in pack.h).
#include "ds/pack.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/util.h"

namespace ds::pack {
namespace {

constexpr size_t kHeader = 8;
constexpr uint8_t kSmallInt = 0x80;  // 0x80-0xbf: 0-63
constexpr uint8_t kInt = 0xc0;       // 0xc1-0xc8: 1-8 bytes follow
constexpr uint8_t kMidStr = 0xd0;    // 0xd0-0xdf: rest 0-15, then one byte of shared 8-255
constexpr uint8_t kLongStr = 0xe0;

uint32_t Get32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
void Put32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }

size_t VarLen(size_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}
uint8_t* PutVar(uint8_t* p, size_t v) {
  while (v >= 0x80) *p++ = static_cast<uint8_t>(v | 0x80), v >>= 7;
  *p++ = static_cast<uint8_t>(v);
  return p;
}
const uint8_t* GetVar(const uint8_t* p, size_t* v) {
  size_t r = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t b = *p++;
    r |= static_cast<size_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  *v = r;
  return p;
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t u) { return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1); }
size_t IntBytes(uint64_t z) {
  size_t n = 1;
  while (n < 8 && (z >> (8 * n))) n++;
  return n;
}

// The integer whose canonical text s is, if any (ParseInt64 takes canonical texts only: no
// sign but a '-', no leading zero, no "-0").
bool CanonicalInt(std::string_view s, int64_t* v) { return base::ParseInt64(s, v); }

// Writes s after prev (its column's previous text) at out; returns the bytes written (at most
// s.size() + 11: a varint of a length below 2^32 takes 5 bytes).
size_t Encode(std::string_view s, std::string_view prev, uint8_t* out) {
  size_t shared = 0, lim = std::min(s.size(), prev.size());
  while (shared < lim && s[shared] == prev[shared]) shared++;
  size_t rest = s.size() - shared;
  bool short_form = shared <= 7 && rest <= 15;
  bool mid_form = !short_form && shared <= 255 && rest <= 15;
  size_t str_len = short_form ? 1 + rest
                   : mid_form ? 2 + rest
                              : 1 + VarLen(shared) + VarLen(rest) + rest;
  int64_t v;
  if (CanonicalInt(s, &v)) {
    uint64_t z = ZigZag(v);
    size_t int_len = v >= 0 && v < 64 ? 1 : 1 + IntBytes(z);
    if (int_len < str_len) {
      if (int_len == 1) {
        out[0] = static_cast<uint8_t>(kSmallInt + v);
      } else {
        out[0] = static_cast<uint8_t>(kInt + int_len - 1);
        for (size_t i = 0; i + 1 < int_len; i++) out[1 + i] = static_cast<uint8_t>(z >> (8 * i));
      }
      return int_len;
    }
  }
  uint8_t* p = out;
  if (short_form) {
    *p++ = static_cast<uint8_t>(shared << 4 | rest);
  } else if (mid_form) {
    *p++ = static_cast<uint8_t>(kMidStr | rest);
    *p++ = static_cast<uint8_t>(shared);
  } else {
    *p++ = kLongStr;
    p = PutVar(PutVar(p, shared), rest);
  }
  memcpy(p, s.data() + shared, rest);
  return str_len;
}

}  // namespace

uint8_t* New() {
  auto* pk = static_cast<uint8_t*>(malloc(kHeader));
  Put32(pk, kHeader);
  Put32(pk + 4, 0);
  return pk;
}
void Free(uint8_t* pk) { free(pk); }
uint8_t* Dup(const uint8_t* pk) {
  auto* d = static_cast<uint8_t*>(malloc(Bytes(pk)));
  memcpy(d, pk, Bytes(pk));
  return d;
}
size_t Bytes(const uint8_t* pk) { return Get32(pk); }
size_t Length(const uint8_t* pk) { return Get32(pk + 4); }

Reader::Reader(const uint8_t* pk, unsigned stride)
    : pk_(pk), stride_(stride), pos_(kHeader), end_(Bytes(pk)) {
  for (Buf& b : cols_) {
    b.p = b.inl;
    b.len = 0;
    b.cap = sizeof(b.inl);
  }
}

Reader::~Reader() {
  for (Buf& b : cols_)
    if (b.p != b.inl) free(b.p);
}

void Reader::Reserve(Buf* b, size_t n) {
  if (n <= b->cap) return;
  size_t cap = std::max<size_t>(n, 2 * b->cap);
  char* p = static_cast<char*>(malloc(cap));
  memcpy(p, b->p, b->len);
  if (b->p != b->inl) free(b->p);
  b->p = p;
  b->cap = static_cast<uint32_t>(cap);
}

// One entry's header: a string's shared length, its rest and where the rest starts; or an
// integer. Returns the byte after the entry.
const uint8_t* Reader::Parse(const uint8_t* p, Entry* e) {
  uint8_t h = *p++;
  if (h < kSmallInt || h >= kMidStr) {
    e->is_int = false;
    if (h < kSmallInt) {
      e->shared = h >> 4;
      e->rest = h & 15;
    } else if (h < kLongStr) {
      e->rest = h & 15;
      e->shared = *p++;
    } else {
      p = GetVar(GetVar(p, &e->shared), &e->rest);
    }
    e->data = p;
    return p + e->rest;
  }
  e->is_int = true;
  if (h < kInt) {
    e->ival = h - kSmallInt;
    return p;
  }
  size_t n = h - kInt;
  uint64_t z = 0;
  for (size_t i = 0; i < n; i++) z |= static_cast<uint64_t>(p[i]) << (8 * i);
  e->ival = UnZigZag(z);
  return p + n;
}

void Reader::Step() {
  index_ = index_ == SIZE_MAX ? 0 : index_ + 1;
  col_ = stride_ == 1 ? 0 : static_cast<unsigned>(index_ % stride_);
}

void Reader::Apply(Buf* b) const {
  if (!cur_.is_int) {
    Reserve(b, cur_.shared + cur_.rest);
    memcpy(b->p + cur_.shared, cur_.data, cur_.rest);
    b->len = static_cast<uint32_t>(cur_.shared + cur_.rest);
  } else {
    Reserve(b, 24);
    b->len = static_cast<uint32_t>(base::FormatInt64(cur_.ival, b->p));
  }
}

bool Reader::Next() {
  if (pos_ >= end_) return false;
  Step();
  pos_ = static_cast<size_t>(Parse(pk_ + pos_, &cur_) - pk_);
  Apply(&cols_[col_]);
  return true;
}

bool Reader::Find(std::string_view s) {
  // Column 0's texts are not rebuilt: `m`, how much of s the column's last entry matches,
  // decides each one. Shared lengths are whole common prefixes, so an entry sharing less than
  // m with its previous one differs from s where it differs from that one, and an entry
  // sharing more keeps its previous one's difference; only one sharing exactly m is compared.
  auto common = [&s](const char* a, size_t alen, size_t from) {
    size_t k = from, lim = std::min(from + alen, s.size());
    while (k < lim && a[k - from] == s[k]) k++;
    return k;
  };
  size_t m = index_ == SIZE_MAX ? 0 : common(cols_[0].p, cols_[0].len, 0);
  while (pos_ < end_) {
    Step();
    pos_ = static_cast<size_t>(Parse(pk_ + pos_, &cur_) - pk_);
    if (col_ != 0) {
      Apply(&cols_[col_]);
      continue;
    }
    size_t len;
    if (cur_.is_int) {
      char buf[24];
      len = static_cast<size_t>(base::FormatInt64(cur_.ival, buf));
      m = common(buf, len, 0);
    } else {
      len = cur_.shared + cur_.rest;
      if (cur_.shared == m)
        m = common(reinterpret_cast<const char*>(cur_.data), cur_.rest, m);
      else if (cur_.shared < m)
        m = cur_.shared;
    }
    if (m == s.size() && len == s.size()) {
      Reserve(&cols_[0], s.size());
      memcpy(cols_[0].p, s.data(), s.size());
      cols_[0].len = static_cast<uint32_t>(s.size());
      return true;
    }
  }
  return false;
}

bool Reader::SeekTo(size_t index) {
  while (index_ == SIZE_MAX || index_ < index)
    if (!Next()) return false;
  return index_ == index;
}

uint8_t* Splice(uint8_t* pk, unsigned stride, size_t index, size_t remove,
                const std::string_view* add, size_t nadd) {
  size_t len = Length(pk), total = Bytes(pk);
  Reader r(pk, stride);
  size_t start = kHeader;
  if (index > 0) {
    r.SeekTo(index - 1);
    start = r.End();
  }
  std::string prev[2];
  for (unsigned c = 0; c < stride; c++) prev[c] = r.Column(c);
  if (remove > 0) r.SeekTo(index + remove - 1);
  size_t stop = remove > 0 ? r.End() : start;
  // The entries after the removed ones that follow a changed entry in their column.
  std::string follow[2];
  size_t nfollow = 0;
  while (nfollow < stride && index + remove + nfollow < len && r.Next()) {
    follow[nfollow++] = r.Text();
    stop = r.End();
  }
  // Each text follows its column's previous one: a copy of what the pack held before `index`,
  // then the texts given.
  std::string_view pv[2] = {prev[0], prev[1]};
  size_t bound = 0;
  for (size_t i = 0; i < nadd; i++) bound += add[i].size() + 11;
  for (size_t k = 0; k < nfollow; k++) bound += follow[k].size() + 11;
  auto encode_all = [&](uint8_t* out) {
    uint8_t* p = out;
    for (size_t i = 0; i < nadd; i++) {
      std::string_view& prev_text = pv[(index + i) % stride];
      p += Encode(add[i], prev_text, p);
      prev_text = add[i];
    }
    for (size_t k = 0; k < nfollow; k++) {
      std::string_view& prev_text = pv[(index + nadd + k) % stride];
      p += Encode(follow[k], prev_text, p);
      prev_text = follow[k];
    }
    return static_cast<size_t>(p - out);
  };
  size_t new_total;
  if (stop == total) {
    // Nothing after: encode in place.
    pk = static_cast<uint8_t*>(realloc(pk, start + bound));
    new_total = start + encode_all(pk + start);
    if (new_total < start + bound) pk = static_cast<uint8_t*>(realloc(pk, new_total));
  } else {
    std::string mid(bound, '\0');
    size_t n = encode_all(reinterpret_cast<uint8_t*>(mid.data()));
    new_total = start + n + (total - stop);
    if (new_total > total) pk = static_cast<uint8_t*>(realloc(pk, new_total));
    memmove(pk + start + n, pk + stop, total - stop);
    memcpy(pk + start, mid.data(), n);
    if (new_total < total) pk = static_cast<uint8_t*>(realloc(pk, new_total));
  }
  Put32(pk, static_cast<uint32_t>(new_total));
  Put32(pk + 4, static_cast<uint32_t>(len - remove + nadd));
  return pk;
}

Builder::Builder(unsigned stride, size_t bytes_hint)
    : buf_(new uint8_t[kHeader + bytes_hint]),
      size_(kHeader),
      cap_(kHeader + bytes_hint),
      stride_(stride) {}

void Builder::Add(std::string_view s) {
  size_t need = size_ + s.size() + 11;  // Encode's bound
  if (need > cap_) {
    size_t cap = std::max(need, 2 * cap_);
    std::unique_ptr<uint8_t[]> grown(new uint8_t[cap]);
    memcpy(grown.get(), buf_.get(), size_);
    buf_ = std::move(grown);
    cap_ = cap;
  }
  size_ += Encode(s, prev_[col_], buf_.get() + size_);
  prev_[col_].assign(s);
  col_ = (col_ + 1) % stride_;
  count_++;
}

uint8_t* Builder::Finish() {
  auto* pk = static_cast<uint8_t*>(malloc(size_));
  memcpy(pk, buf_.get(), size_);
  Put32(pk, static_cast<uint32_t>(size_));
  Put32(pk + 4, static_cast<uint32_t>(count_));
  return pk;
}

}  // namespace ds::pack
