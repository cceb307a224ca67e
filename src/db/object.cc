// Allocation and layout of keyspace objects.
#include "db/object.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <ctime>

#include "base/time.h"
#include "base/util.h"
#include "db/db.h"
#include "db/varint.h"
#include "ds/hashtable.h"

namespace db {
namespace {
TypeOps g_ops[16];

uint32_t InitialLru();

bool InlineString(Enc e) { return e == kEncEmbstr || e == kEncRawInline; }
bool Packs(std::string_view key, size_t str_len) { return key.size() <= 15 && str_len <= 31; }

// Allocates a shell with key and expire filled in, and for an inline string (`str_len` bytes)
// its length; the value's bytes (8 for other encodings) are the caller's to write at
// value_ptr(), past the length for an inline string (InlineBytes).
Obj* Alloc(std::string_view key, Type t, Enc e, int64_t expire, size_t str_len = 0) {
  uint32_t flags = 0;
  if (expire >= 0)
    flags = Obj::kHasExpire | (expire >= Obj::kNarrowExpireEnd ? Obj::kWideExpire : 0);
  size_t expire_bytes = flags & Obj::kWideExpire ? 8 : flags ? 6 : 0;
  bool packed = InlineString(e) && Packs(key, str_len);
  size_t size = offsetof(Obj, data) + expire_bytes + key.size();
  if (packed)
    size += 1 + str_len;
  else
    size += VarintLen(key.size()) + (InlineString(e) ? VarintLen(str_len) + str_len : 8);
  // Never below sizeof(Obj), so that no access through the struct reaches past the block.
  Obj* o = static_cast<Obj*>(malloc(std::max(size, sizeof(Obj))));
  if (packed) flags |= Obj::kPacked | (str_len & 16 ? Obj::kPackedLen16 : 0);
  o->meta = flags | Obj::KindOf(t, e);
  o->set_lru(InitialLru());
  if (expire >= 0) o->set_expire_in_place(expire);
  char* p = o->data + expire_bytes;
  if (packed)
    *p++ = static_cast<char>(key.size() | (str_len & 15) << 4);
  else
    p = PutVarint(p, key.size());
  memcpy(p, key.data(), key.size());
  if (InlineString(e) && !packed) PutVarint(p + key.size(), str_len);
  return o;
}

// Where an inline string's bytes start, and their length.
char* InlineBytes(Obj* o, size_t* len) {
  char* p = o->value_ptr();
  if (o->meta & Obj::kPacked) {
    const char* lens = o->data + o->expire_bytes();
    *len = (static_cast<uint8_t>(*lens) >> 4) | (o->meta & Obj::kPackedLen16 ? 16 : 0);
    return p;
  }
  return const_cast<char*>(GetVarint(p, len));
}

bool IntCandidate(std::string_view v, int64_t* out) {
  return v.size() <= 20 && base::ParseInt64(v, out);
}
}  // namespace

const char* TypeName(Type t) {
  switch (t) {
    case kString:
      return "string";
    case kList:
      return "list";
    case kSet:
      return "set";
    case kZSet:
      return "zset";
    case kHash:
      return "hash";
    case kStream:
      return "stream";
  }
  return "unknown";
}

const char* EncodingName(Enc e) {
  switch (e) {
    case kEncRaw:
    case kEncRawInline:
      return "raw";
    case kEncInt:
      return "int";
    case kEncHashtable:
      return "hashtable";
    case kEncIntset:
      return "intset";
    case kEncSkiplist:
      return "skiplist";
    case kEncEmbstr:
      return "embstr";
    case kEncStream:
      return "stream";
    case kEncQuicklist:
      return "quicklist";
    case kEncListpack:
      return "listpack";
  }
  return "unknown";
}

namespace {
// (type, encoding) -> kind, 0xff for the pairs no code makes.
constexpr auto kKinds = [] {
  std::array<std::array<uint8_t, 16>, 8> t{};
  for (auto& row : t) row.fill(0xff);
  for (uint8_t k = 0; k < 14; k++) t[Obj::kKindType[k]][Obj::kKindEnc[k]] = k;
  return t;
}();
}  // namespace

uint32_t Obj::KindOf(Type t, Enc e) {
  uint8_t k = kKinds[t & 7][e & 15];
  if (k == 0xff) abort();  // a pair no code makes
  return k;
}

std::string_view Obj::key() const {
  const char* p = data + expire_bytes();
  if (meta & kPacked) return std::string_view(p + 1, static_cast<uint8_t>(*p) & 15);
  size_t len;
  p = GetVarint(p, &len);
  return std::string_view(p, len);
}

char* Obj::value_ptr() {
  std::string_view k = key();
  return const_cast<char*>(k.data() + k.size());
}

std::string_view Obj::str(char* buf) const {
  switch (enc()) {
    case kEncInt:
      return std::string_view(buf, base::FormatInt64(int_value(), buf));
    case kEncEmbstr:
    case kEncRawInline: {
      size_t len;
      const char* p = InlineBytes(const_cast<Obj*>(this), &len);
      return std::string_view(p, len);
    }
    default:
      return *raw();
  }
}

size_t Obj::str_len() const {
  char buf[24];
  return str(buf).size();
}

Obj* NewString(std::string_view key, std::string_view val, int64_t expire, bool try_int) {
  int64_t iv;
  if (try_int && IntCandidate(val, &iv)) return NewInt(key, iv, expire);
  Enc e = val.size() > kEmbstrMaxLen ? kEncRawInline : kEncEmbstr;
  Obj* o = Alloc(key, kString, e, expire, val.size());
  size_t len;
  memcpy(InlineBytes(o, &len), val.data(), val.size());
  return o;
}

bool OverwriteString(Obj* o, std::string_view val) {
  if (o->type() != kString) return false;
  int64_t iv;
  if (IntCandidate(val, &iv)) {
    if (o->enc() != kEncInt) return false;
    o->set_int_value(iv);
    return true;
  }
  Enc e = val.size() > kEmbstrMaxLen ? kEncRawInline : kEncEmbstr;
  size_t len;
  if (o->enc() != e) return false;
  char* bytes = InlineBytes(o, &len);
  if (len != val.size()) return false;
  memcpy(bytes, val.data(), len);
  return true;
}

Obj* NewInt(std::string_view key, int64_t v, int64_t expire) {
  Obj* o = Alloc(key, kString, kEncInt, expire);
  o->set_int_value(v);
  return o;
}

Obj* NewRaw(std::string_view key, std::string&& val, int64_t expire) {
  Obj* o = Alloc(key, kString, kEncRaw, expire);
  o->set_ptr(new std::string(std::move(val)));
  return o;
}

Obj* NewContainer(std::string_view key, Type t, Enc e, void* ptr, int64_t expire) {
  Obj* o = Alloc(key, t, e, expire);
  o->set_ptr(ptr);
  return o;
}

Obj* Rekey(Obj* o, std::string_view key, int64_t expire, bool steal) {
  Enc e = o->enc();
  Obj* n;
  if (InlineString(e)) {
    size_t len;
    const char* bytes = InlineBytes(o, &len);
    n = Alloc(key, o->type(), e, expire, len);
    memcpy(InlineBytes(n, &len), bytes, len);
  } else {
    n = Alloc(key, o->type(), e, expire);
    if (e == kEncInt)
      n->set_int_value(o->int_value());
    else if (steal)
      n->set_ptr(o->ptr());
    else if (e == kEncRaw && o->type() == kString)
      n->set_ptr(new std::string(*o->raw()));
    else
      n->set_ptr(g_ops[o->type()].dup(o->ptr(), e));
  }
  n->set_lru(o->lru());
  if (steal) free(o);
  return n;
}

Obj* WithExpire(Obj* o, int64_t expire) {
  if (expire >= 0 && o->HoldsExpire(expire)) {
    o->set_expire_in_place(expire);
    return o;
  }
  if (expire < 0 && !o->has_expire()) return o;
  return Rekey(o, o->key(), expire, true);
}

void FreeObj(Obj* o) {
  if (!o) return;
  Enc e = o->enc();
  if (o->type() == kString) {
    if (e == kEncRaw) delete o->raw();
  } else if (g_ops[o->type()].free) {
    g_ops[o->type()].free(o->ptr(), e);
  }
  free(o);
}

size_t ValueBytes(const Obj* o) {
  if (o->type() == kString) return o->enc() == kEncRaw ? o->raw()->capacity() : 0;
  if (g_ops[o->type()].bytes) return g_ops[o->type()].bytes(o->ptr(), o->enc());
  return 0;
}

namespace {
uint32_t g_lru_clock = static_cast<uint32_t>(base::MsTime() / 1000) & kLruMax;
}
uint32_t LruClock() { return g_lru_clock; }

namespace {
constexpr uint8_t kLfuInitVal = 5;
uint32_t LfuMinutes() { return static_cast<uint32_t>(base::MsTime() / 60000) & 0xffff; }
uint32_t InitialLru() {
  if (GetEnv().lfu) return (LfuMinutes() << 8) | kLfuInitVal;
  return g_lru_clock;
}
}  // namespace

uint8_t LfuCounter(const Obj* o) {
  uint32_t v = o->lru();
  uint32_t ldt = v >> 8, counter = v & 0xff;
  uint32_t now = LfuMinutes();
  uint32_t elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
  int decay = GetEnv().lfu_decay_time;
  uint32_t periods = decay ? elapsed / decay : 0;
  return static_cast<uint8_t>(periods > counter ? 0 : counter - periods);
}

void SetLfuCounter(Obj* o, uint8_t counter) { o->set_lru((LfuMinutes() << 8) | counter); }

void ResetAccess(Obj* o) { o->set_lru(InitialLru()); }

void TouchAccess(Obj* o) {
  if (!GetEnv().lfu) {
    o->set_lru(g_lru_clock);
    return;
  }
  uint32_t counter = LfuCounter(o);
  if (counter < 255) {
    double r = static_cast<double>(ds::RandomU64() >> 11) / 9007199254740992.0;
    double base = counter > kLfuInitVal ? counter - kLfuInitVal : 0;
    if (r < 1.0 / (base * GetEnv().lfu_log_factor + 1)) counter++;
  }
  o->set_lru((LfuMinutes() << 8) | counter);
}
void UpdateLruClock() { g_lru_clock = static_cast<uint32_t>(base::MsTime() / 1000) & kLruMax; }

void RegisterTypeOps(Type t, TypeOps ops) { g_ops[t] = ops; }
}  // namespace db
