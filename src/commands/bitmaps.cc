// Bit operations on string values: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD,
// BITFIELD_RO. Bits are numbered from the most significant bit of the first byte; a string
// grows with zero bytes when a write reaches past its end. Replies, errors, keyspace events
// and propagation as Valkey 8 (a command that changes nothing is not propagated).
#include <bit>
#include <cstring>

#include "base/util.h"
#include "commands/common.h"
#include "server/config.h"
#include "server/notify.h"

namespace cmd {
namespace {

using server::Client;
using server::CommandSpec;
using namespace server;  // flags

constexpr const char* kErrBitOffset = "bit offset is not an integer or out of range";
constexpr const char* kErrBitfieldType =
    "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 "
    "is.";

// A bit offset argument; `#N` (BITFIELD only, `bits` > 0) counts in fields of `bits` bits.
// Offsets reach at most proto-max-bulk-len bytes, except from our primary.
bool ParseBitOffset(Client* c, std::string_view arg, bool hash, int bits, uint64_t* out) {
  bool use_hash = hash && bits > 0 && !arg.empty() && arg[0] == '#';
  int64_t v;
  if (!base::ParseInt64(arg.substr(use_hash ? 1 : 0), &v)) {
    c->R().Error(kErrBitOffset);
    return false;
  }
  if (use_hash) {
    if (v != 0 && (v > INT64_MAX / bits || v < INT64_MIN / bits)) {
      c->R().Error(kErrBitOffset);
      return false;
    }
    v *= bits;
  }
  if (v < 0 || (!(c->flags & server::kPrimary) && (v >> 3) >= server::cfg.proto_max_bulk_len)) {
    c->R().Error(kErrBitOffset);
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

// The string value of key for writing, created or grown with zero bytes to hold bit
// `maxbit`. nullptr with WRONGTYPE replied; *grew: created or lengthened.
std::string* StringForBits(Client* c, std::string_view key, uint64_t maxbit, bool* grew) {
  size_t need = static_cast<size_t>(maxbit >> 3) + 1;
  db::Obj* o = LookupWrite(c, key);
  if (!CheckType(c, o, db::kString)) return nullptr;
  *grew = false;
  if (!o) {
    o = db::NewRaw(key, std::string(need, '\0'));
    c->db->Add(o);
    *grew = true;
    return o->raw();
  }
  o = MakeRaw(c, o);
  std::string* s = o->raw();
  if (s->size() < need) {
    s->resize(need, '\0');
    *grew = true;
  }
  return s;
}

int BitAt(std::string_view s, uint64_t bit) {
  uint64_t byte = bit >> 3;
  if (byte >= s.size()) return 0;
  return (static_cast<uint8_t>(s[byte]) >> (7 - (bit & 7))) & 1;
}

// Set bits of n bytes, 8 bytes at a time; with the POPCNT instruction where the CPU has it
// (chosen once: the build targets plain x86-64).
template <typename Pop>
uint64_t PopcountWith(const uint8_t* p, size_t n, Pop pop) {
  uint64_t count = 0;
  for (; n >= 32; p += 32, n -= 32) {
    uint64_t w[4];
    memcpy(w, p, 32);
    count += pop(w[0]) + pop(w[1]) + pop(w[2]) + pop(w[3]);
  }
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    count += pop(w);
  }
  while (n--) count += pop(*p++);
  return count;
}
#if defined(__x86_64__)
__attribute__((target("popcnt"))) uint64_t PopcountHw(const uint8_t* p, size_t n) {
  return PopcountWith(p, n, [](uint64_t w) { return static_cast<uint64_t>(__builtin_popcountll(w)); });
}
#endif
uint64_t Popcount(const uint8_t* p, size_t n) {
#if defined(__x86_64__)
  static const bool hw = __builtin_cpu_supports("popcnt");
  if (hw) return PopcountHw(p, n);
#endif
  return PopcountWith(p, n, [](uint64_t w) { return static_cast<uint64_t>(std::popcount(w)); });
}

// The first bit equal to `bit` in n bytes; looking for 0 in all-ones bytes gives n*8 (the
// string continues with zeros), looking for 1 in all-zero bytes gives -1. Whole words of
// the byte to skip are passed over 8 bytes at a time.
int64_t Bitpos(const uint8_t* p, size_t n, int bit) {
  const uint64_t skip_word = bit ? 0 : ~uint64_t{0};
  const uint8_t skip = bit ? 0x00 : 0xff;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    if (w != skip_word) break;
  }
  for (; i < n; i++) {
    if (p[i] == skip) continue;
    for (int b = 7; b >= 0; b--)
      if (((p[i] >> b) & 1) == bit) return static_cast<int64_t>(i * 8 + (7 - b));
  }
  return bit ? -1 : static_cast<int64_t>(n * 8);
}

// Start/end of BITCOUNT and BITPOS made absolute and clamped. In BIT units the edges become
// byte indexes and masks of the bits outside the range in the first and last byte.
struct Range {
  int64_t start, end;
  uint8_t first_mask = 0, last_mask = 0;  // bits to ignore (set = outside)
};
void NormalizeRange(Range* r, int64_t len, bool bits) {
  int64_t total = bits ? len * 8 : len;
  if (r->start < 0) r->start += total;
  if (r->end < 0) r->end += total;
  if (r->start < 0) r->start = 0;
  if (r->end < 0) r->end = 0;
  if (r->end >= total) r->end = total - 1;
  if (bits && r->start <= r->end) {
    r->first_mask = static_cast<uint8_t>(~((1u << (8 - (r->start & 7))) - 1) & 0xff);
    r->last_mask = static_cast<uint8_t>((1u << (7 - (r->end & 7))) - 1);
    r->start >>= 3;
    r->end >>= 3;
  }
}

bool ParseUnit(Client* c, std::string_view arg, bool* bits) {
  if (base::EqualsNoCase(arg, "bit")) {
    *bits = true;
  } else if (base::EqualsNoCase(arg, "byte")) {
    *bits = false;
  } else {
    c->R().Error(server::kErrSyntax);
    return false;
  }
  return true;
}

void SetBitCommand(Client* c) {
  uint64_t bit;
  if (!ParseBitOffset(c, c->argv[2], false, 0, &bit)) return;
  int64_t on;
  if (!base::ParseInt64(c->argv[3], &on) || (on & ~1))
    return c->R().Error("bit is not an integer or out of range");
  bool grew;
  std::string* s = StringForBits(c, c->argv[1], bit, &grew);
  if (!s) return;
  uint8_t& byte = reinterpret_cast<uint8_t&>((*s)[bit >> 3]);
  int shift = 7 - static_cast<int>(bit & 7);
  int old = (byte >> shift) & 1;
  if (grew || old != on) {
    byte = static_cast<uint8_t>((byte & ~(1u << shift)) | (static_cast<unsigned>(on) << shift));
    Modified(c, c->argv[1]);
    server::Notify(server::kNotifyString, "setbit", c->argv[1], c->dbid);
  }
  c->R().Int(old);
}

void GetBitCommand(Client* c) {
  uint64_t bit;
  if (!ParseBitOffset(c, c->argv[2], false, 0, &bit)) return;
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!o) return c->R().Int(0);
  if (!CheckType(c, o, db::kString)) return;
  char buf[24];
  c->R().Int(BitAt(o->str(buf), bit));
}

void BitCountCommand(Client* c) {
  auto& a = c->argv;
  Range r{0, -1};
  bool bits = false, ranged = false;
  if (a.size() >= 3 && a.size() <= 5) {  // a start alone counts to the end (Valkey 8)
    if (!ArgInt(c, a[2], &r.start)) return;
    if (a.size() >= 4 && !ArgInt(c, a[3], &r.end)) return;
    if (a.size() == 5 && !ParseUnit(c, a[4], &bits)) return;
    ranged = true;
  } else if (a.size() != 2) {
    return c->R().Error(server::kErrSyntax);
  }
  db::Obj* o = LookupRead(c, a[1]);
  if (o && !CheckType(c, o, db::kString)) return;
  char buf[24];
  std::string_view s = o ? o->str(buf) : std::string_view();
  int64_t len = static_cast<int64_t>(s.size());
  if (ranged) {
    if (a.size() == 3) r.end = len - 1;
    if (r.start < 0 && r.end < 0 && r.start > r.end) return c->R().Int(0);
    NormalizeRange(&r, len, bits);
  } else {
    r.end = len - 1;
  }
  if (!o || r.start > r.end) return c->R().Int(0);
  auto* p = reinterpret_cast<const uint8_t*>(s.data());
  uint64_t count = Popcount(p + r.start, static_cast<size_t>(r.end - r.start + 1));
  // Bits of the edge bytes outside a BIT range were counted: take them off.
  if (r.first_mask) count -= std::popcount(static_cast<unsigned>(p[r.start] & r.first_mask));
  if (r.last_mask) count -= std::popcount(static_cast<unsigned>(p[r.end] & r.last_mask));
  c->R().Int(static_cast<int64_t>(count));
}

void BitPosCommand(Client* c) {
  auto& a = c->argv;
  int64_t bit;
  if (!ArgInt(c, a[2], &bit)) return;
  if (bit != 0 && bit != 1) return c->R().Error("The bit argument must be 1 or 0.");
  Range r{0, -1};
  bool bits = false, end_given = false, ranged = false;
  if (a.size() >= 4 && a.size() <= 6) {
    if (!ArgInt(c, a[3], &r.start)) return;
    if (a.size() == 6 && !ParseUnit(c, a[5], &bits)) return;
    if (a.size() >= 5) {
      if (!ArgInt(c, a[4], &r.end)) return;
      end_given = true;
    }
    ranged = true;
  } else if (a.size() != 3) {
    return c->R().Error(server::kErrSyntax);
  }
  db::Obj* o = LookupRead(c, a[1]);
  if (o && !CheckType(c, o, db::kString)) return;
  // A missing key is an endless run of zeros.
  if (!o) return c->R().Int(bit ? -1 : 0);
  char buf[24];
  std::string_view s = o->str(buf);
  int64_t len = static_cast<int64_t>(s.size());
  if (ranged) {
    if (!end_given) r.end = bits ? len * 8 + 7 : len - 1;
    NormalizeRange(&r, len, bits);
  } else {
    r.end = len - 1;
  }
  if (r.start > r.end) return c->R().Int(-1);
  auto* p = reinterpret_cast<const uint8_t*>(s.data());
  int b = static_cast<int>(bit);
  int64_t start = r.start, bytes = r.end - r.start + 1, pos;
  // The edge bytes of a BIT range are looked at with the bits outside it set to "not found".
  auto edge = [&](uint8_t v, uint8_t outside) {
    return static_cast<uint8_t>(b ? v & ~outside : v | outside);
  };
  do {
    if (r.first_mask) {
      uint8_t one = edge(p[start], r.first_mask);
      if (r.last_mask && bytes == 1) one = edge(one, r.last_mask);
      pos = Bitpos(&one, 1, b);
      if (bytes == 1 || (pos != -1 && pos != 8)) break;
      start++;
      bytes--;
    }
    int64_t middle = bytes - (r.last_mask ? 1 : 0);
    if (middle > 0) {
      pos = Bitpos(p + start, static_cast<size_t>(middle), b);
      if (bytes == middle || (pos != -1 && pos != middle * 8)) break;
      start += middle;
      bytes -= middle;
    }
    uint8_t last = edge(p[r.end], r.last_mask);
    pos = Bitpos(&last, 1, b);
  } while (false);
  // Looking for a 0 inside an explicit range that has none: not found (without an end, the
  // bits after the string count as zeros).
  if (end_given && b == 0 && pos == bytes * 8) return c->R().Int(-1);
  if (pos != -1) pos += start * 8;
  c->R().Int(pos);
}

// out op= in over n bytes, 32 bytes (four words) at a time, then the rest byte by byte.
// With x == out: out op= in (further sources); else out = x op in (the first two).
template <typename F>
void CombineInto(uint8_t* out, const uint8_t* x, const uint8_t* in, size_t n, F f) {
  size_t j = 0;
  for (; j + 32 <= n; j += 32) {
    uint64_t a[4], b[4];
    memcpy(a, x + j, 32);
    memcpy(b, in + j, 32);
    for (int k = 0; k < 4; k++) a[k] = f(a[k], b[k]);
    memcpy(out + j, a, 32);
  }
  for (; j < n; j++) out[j] = static_cast<uint8_t>(f(x[j], in[j]));
}

void BitOpCommand(Client* c) {
  auto& a = c->argv;
  enum Op { kAnd, kOr, kXor, kNot } op;
  if (base::EqualsNoCase(a[1], "and"))
    op = kAnd;
  else if (base::EqualsNoCase(a[1], "or"))
    op = kOr;
  else if (base::EqualsNoCase(a[1], "xor"))
    op = kXor;
  else if (base::EqualsNoCase(a[1], "not"))
    op = kNot;
  else
    return c->R().Error(server::kErrSyntax);
  if (op == kNot && a.size() != 4)
    return c->R().Error("BITOP NOT must be called with a single source key.");
  // Views of the sources (integer-encoded values are spelled out in `spelled`); the result is
  // built apart, so the destination may be one of them.
  size_t nsrc = a.size() - 3;
  std::vector<std::string_view> src(nsrc);
  std::vector<std::string> spelled(nsrc);
  size_t maxlen = 0, minlen = SIZE_MAX;
  for (size_t i = 0; i < nsrc; i++) {
    db::Obj* o = LookupRead(c, a[i + 3]);
    if (o && !CheckType(c, o, db::kString)) return;
    if (o && o->enc() == db::kEncRaw) {
      src[i] = *o->raw();
    } else if (o) {
      char buf[24];
      spelled[i] = std::string(o->str(buf));
      src[i] = spelled[i];
    }
    maxlen = std::max(maxlen, src[i].size());
    minlen = std::min(minlen, src[i].size());
  }
  std::string dest(a[2]);
  db::Obj* result = nullptr;  // none: the destination is deleted
  if (maxlen) {
    // The result is built a block at a time in a small buffer and appended, so its memory is
    // written once (a zero-filled string would be written twice).
    std::string res;
    res.reserve(maxlen);
    auto at = [&](size_t i) { return reinterpret_cast<const uint8_t*>(src[i].data()); };
    // Where every source has bytes: one simple loop per source, which the compiler
    // vectorizes; past the shortest source, missing bytes are zeros.
    size_t n = minlen;
    alignas(64) uint8_t block[4096];
    for (size_t off = 0; off < n; off += sizeof block) {
      size_t len = std::min(sizeof block, n - off);
      if (nsrc == 1) memcpy(block, at(0) + off, len);
      for (size_t i = 1; i < nsrc; i++) {
        const uint8_t* x = i == 1 ? at(0) + off : block;  // the first pass reads both sources
        if (op == kAnd)
          CombineInto(block, x, at(i) + off, len, [](uint64_t p, uint64_t q) { return p & q; });
        else if (op == kOr)
          CombineInto(block, x, at(i) + off, len, [](uint64_t p, uint64_t q) { return p | q; });
        else
          CombineInto(block, x, at(i) + off, len, [](uint64_t p, uint64_t q) { return p ^ q; });
      }
      if (op == kNot)
        CombineInto(block, block, block, len, [](uint64_t p, uint64_t) { return ~p; });
      res.append(reinterpret_cast<const char*>(block), len);
    }
    for (size_t j = n; j < maxlen; j++) {
      auto byte = [&](size_t i) -> uint8_t { return j < src[i].size() ? at(i)[j] : 0; };
      uint8_t v = byte(0);
      if (op == kNot) v = static_cast<uint8_t>(~v);
      for (size_t i = 1; i < nsrc; i++) {
        if (op == kAnd) v &= byte(i);
        if (op == kOr) v |= byte(i);
        if (op == kXor) v ^= byte(i);
      }
      res.push_back(static_cast<char>(v));
    }
    result = db::NewRaw(dest, std::move(res));
  }
  StoreResult(c, dest, result, server::kNotifyString, "set");
  c->R().Int(static_cast<int64_t>(maxlen));
}

// ---- BITFIELD ----

uint64_t GetUnsigned(const uint8_t* p, uint64_t offset, int bits) {
  uint64_t v = 0;
  for (int j = 0; j < bits; j++, offset++)
    v = (v << 1) | ((p[offset >> 3] >> (7 - (offset & 7))) & 1);
  return v;
}

int64_t GetSigned(const uint8_t* p, uint64_t offset, int bits) {
  uint64_t v = GetUnsigned(p, offset, bits);
  if (bits < 64 && (v & (uint64_t{1} << (bits - 1)))) v |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(v);
}

void SetBits(uint8_t* p, uint64_t offset, int bits, uint64_t v) {
  for (int j = 0; j < bits; j++, offset++) {
    unsigned bit = (v >> (bits - 1 - j)) & 1;
    uint8_t& byte = p[offset >> 3];
    int shift = 7 - static_cast<int>(offset & 7);
    byte = static_cast<uint8_t>((byte & ~(1u << shift)) | (bit << shift));
  }
}

enum Overflow { kWrap, kSat, kFail };

// value + incr in an unsigned field of `bits`: false if it fits; else true with *limit set
// to the wrapped or saturated result.
bool UnsignedOverflow(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* limit) {
  uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  int64_t maxincr = static_cast<int64_t>(max - value);
  int64_t minincr = -static_cast<int64_t>(value);
  auto wrap = [&] { *limit = (value + static_cast<uint64_t>(incr)) & ~(~uint64_t{0} << bits); };
  if (value > max || (bits != 64 && incr > maxincr) || (incr > 0 && incr > maxincr)) {
    if (ow == kWrap) wrap();
    if (ow == kSat) *limit = max;
    return true;
  }
  if (incr < 0 && incr < minincr) {
    if (ow == kWrap) wrap();
    if (ow == kSat) *limit = 0;
    return true;
  }
  return false;
}

bool SignedOverflow(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* limit) {
  int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  int64_t min = -max - 1;
  int64_t maxincr = static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  int64_t minincr = static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  auto wrap = [&] {
    uint64_t r = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      uint64_t mask = ~uint64_t{0} << bits;
      r = (r & (uint64_t{1} << (bits - 1))) ? r | mask : r & ~mask;
    }
    *limit = static_cast<int64_t>(r);
  };
  if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
    if (ow == kWrap) wrap();
    if (ow == kSat) *limit = max;
    return true;
  }
  if (value < min || (bits != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr)) {
    if (ow == kWrap) wrap();
    if (ow == kSat) *limit = min;
    return true;
  }
  return false;
}

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind;
  uint64_t offset;
  int64_t value;
  int bits;
  bool sign;
  Overflow ow;
};

void BitfieldGeneric(Client* c, bool ro) {
  auto& a = c->argv;
  std::vector<FieldOp> ops;
  Overflow ow = kWrap;
  bool readonly = true;
  uint64_t highest = 0;
  for (size_t j = 2; j < a.size(); j++) {
    size_t rem = a.size() - j - 1;
    FieldOp op{};
    if (base::EqualsNoCase(a[j], "get") && rem >= 2) {
      op.kind = FieldOp::kGet;
    } else if (base::EqualsNoCase(a[j], "set") && rem >= 3) {
      op.kind = FieldOp::kSet;
    } else if (base::EqualsNoCase(a[j], "incrby") && rem >= 3) {
      op.kind = FieldOp::kIncrBy;
    } else if (base::EqualsNoCase(a[j], "overflow") && rem >= 1) {
      std::string_view t = a[++j];
      if (base::EqualsNoCase(t, "wrap"))
        ow = kWrap;
      else if (base::EqualsNoCase(t, "sat"))
        ow = kSat;
      else if (base::EqualsNoCase(t, "fail"))
        ow = kFail;
      else
        return c->R().Error("Invalid OVERFLOW type specified");
      continue;
    } else {
      return c->R().Error(server::kErrSyntax);
    }
    std::string_view type = a[j + 1];
    int64_t bits;
    if (type.empty() || (type[0] != 'i' && type[0] != 'u') ||
        !base::ParseInt64(type.substr(1), &bits) || bits < 1 ||
        bits > (type[0] == 'i' ? 64 : 63))
      return c->R().Error(kErrBitfieldType);
    op.sign = type[0] == 'i';
    op.bits = static_cast<int>(bits);
    if (!ParseBitOffset(c, a[j + 2], true, op.bits, &op.offset)) return;
    if (op.kind != FieldOp::kGet) {
      readonly = false;
      highest = std::max(highest, op.offset + op.bits - 1);
      if (!ArgInt(c, a[j + 3], &op.value)) return;
    }
    op.ow = ow;
    ops.push_back(op);
    j += op.kind == FieldOp::kGet ? 2 : 3;
  }
  std::string* w = nullptr;  // the value written to, for SET and INCRBY
  std::string_view rd;       // the value read, for GET only
  char buf[24];
  bool grew = false;
  if (readonly) {
    db::Obj* o = LookupRead(c, a[1]);
    if (o && !CheckType(c, o, db::kString)) return;
    if (o) rd = o->str(buf);
  } else {
    if (ro) return c->R().Error("BITFIELD_RO only supports the GET subcommand");
    w = StringForBits(c, a[1], highest, &grew);
    if (!w) return;
  }
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(ops.size()));
  int64_t changes = 0;
  for (auto& op : ops) {
    if (op.kind == FieldOp::kGet) {
      // Up to 9 bytes copied zero-padded: a field may reach past the end of the string.
      std::string_view src = w ? std::string_view(*w) : rd;
      uint8_t tmp[9] = {};
      uint64_t byte = op.offset >> 3;
      for (uint64_t i = 0; i < 9 && byte + i < src.size(); i++)
        tmp[i] = static_cast<uint8_t>(src[byte + i]);
      uint64_t off = op.offset - byte * 8;
      if (op.sign)
        r.Int(GetSigned(tmp, off, op.bits));
      else
        r.Int(static_cast<int64_t>(GetUnsigned(tmp, off, op.bits)));
      continue;
    }
    auto* p = reinterpret_cast<uint8_t*>(w->data());
    bool overflow;
    uint64_t oldbits, newbits;
    int64_t reply;
    if (op.sign) {
      int64_t oldval = GetSigned(p, op.offset, op.bits), newval, wrapped = 0;
      if (op.kind == FieldOp::kIncrBy) {
        overflow = SignedOverflow(oldval, op.value, op.bits, op.ow, &wrapped);
        newval = overflow ? wrapped
                          : static_cast<int64_t>(static_cast<uint64_t>(oldval) +
                                                 static_cast<uint64_t>(op.value));
        reply = newval;
      } else {
        newval = op.value;
        overflow = SignedOverflow(newval, 0, op.bits, op.ow, &wrapped);
        if (overflow) newval = wrapped;
        reply = oldval;
      }
      oldbits = static_cast<uint64_t>(oldval);
      newbits = static_cast<uint64_t>(newval);
    } else {
      uint64_t oldval = GetUnsigned(p, op.offset, op.bits), newval, wrapped = 0;
      if (op.kind == FieldOp::kIncrBy) {
        newval = oldval + static_cast<uint64_t>(op.value);
        overflow = UnsignedOverflow(oldval, op.value, op.bits, op.ow, &wrapped);
        if (overflow) newval = wrapped;
        reply = static_cast<int64_t>(newval);
      } else {
        newval = static_cast<uint64_t>(op.value);
        overflow = UnsignedOverflow(newval, 0, op.bits, op.ow, &wrapped);
        if (overflow) newval = wrapped;
        reply = static_cast<int64_t>(oldval);
      }
      oldbits = oldval;
      newbits = newval;
    }
    if (overflow && op.ow == kFail) {
      r.Null();
      continue;
    }
    r.Int(reply);
    SetBits(p, op.offset, op.bits, newbits);
    if (grew || oldbits != newbits) changes++;
  }
  if (changes) {
    Modified(c, a[1], changes);
    server::Notify(server::kNotifyString, "setbit", a[1], c->dbid);
  }
}

void BitfieldCommand(Client* c) { BitfieldGeneric(c, false); }
void BitfieldRoCommand(Client* c) { BitfieldGeneric(c, true); }

}  // namespace
}  // namespace cmd

namespace server {
void RegisterBitmapCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "bitmap";
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  t->push_back({"setbit", 4, kW, SetBitCommand, g, "2.2.0",
                "Sets or clears one bit of a string value, growing it with zeros.", "O(1)"});
  t->push_back({"getbit", 3, kCmdReadonly | kCmdFast, GetBitCommand, g, "2.2.0",
                "Reads one bit of a string value (0 past its end).", "O(1)"});
  t->push_back({"bitcount", -2, kCmdReadonly, BitCountCommand, g, "2.6.0",
                "Counts the set bits of a string value, or of a byte or bit range.", "O(N)"});
  t->push_back({"bitpos", -3, kCmdReadonly, BitPosCommand, g, "2.8.7",
                "Finds the first set or clear bit of a string value, or of a range.", "O(N)"});
  t->push_back({"bitop", -4, kW, BitOpCommand, g, "2.6.0",
                "Stores the AND, OR, XOR or NOT of string values.", "O(N)"});
  t->push_back({"bitfield", -2, kW, BitfieldCommand, g, "3.2.0",
                "Reads and writes integer fields of any width at any bit offset.", "O(1) per op"});
  t->push_back({"bitfield_ro", -2, kCmdReadonly | kCmdFast, BitfieldRoCommand, g, "6.0.0",
                "Reads integer fields of any width at any bit offset.", "O(1) per op"});
}

}  // namespace server
