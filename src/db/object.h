// A key and its value in one allocation: the keyspace's unit of storage.
//
// Layout: [next][meta:4][flags:1] then [expire: 6 bytes, or 8 with kWideExpire, if
// kHasExpire][varint keylen][key][value]. The value part depends on the encoding: int ->
// int64; embstr -> varint len + bytes; raw -> std::string*; container encodings -> a pointer
// owned by the object. Keeping key, expire and small strings inline is what holds memory per
// key under Valkey 8's. The allocation is the header's 13 bytes plus what follows, not
// sizeof(Obj) (16): an 11-byte key with a 16-byte value and an expire takes 48 bytes, one
// jemalloc class below 64, because the expire takes 6 bytes when it is below 2^48 ms (the
// year 10889); a later one takes 8.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace db {

enum Type : uint8_t { kString = 0, kList = 1, kSet = 2, kZSet = 3, kHash = 4, kStream = 6 };
enum Enc : uint8_t {
  kEncRaw = 0,
  kEncInt = 1,
  kEncHashtable = 2,
  kEncIntset = 6,
  kEncSkiplist = 7,
  kEncEmbstr = 8,
  kEncQuicklist = 9,
  kEncStream = 10,
  kEncListpack = 11,
  // Internal: a string longer than an embstr kept inside the object (one allocation) until
  // something edits it in place (APPEND, SETRANGE make it kEncRaw). Reported as "raw".
  kEncRawInline = 15,
};
inline constexpr size_t kEmbstrMaxLen = 44;
inline constexpr uint32_t kLruMax = (1u << 24) - 1;

const char* TypeName(Type t);     // "string", "list", ...
const char* EncodingName(Enc e);  // "embstr", "int", "raw", "listpack", ...

struct Obj {
  Obj* next;
  uint32_t meta;  // lru:24 | type:4 | enc:4
  uint8_t flags;
  char data[];

  static constexpr uint8_t kHasExpire = 1;
  static constexpr uint8_t kWideExpire = 2;  // the expire takes 8 bytes
  static constexpr int64_t kNarrowExpireEnd = int64_t{1} << 48;

  Type type() const { return static_cast<Type>((meta >> 4) & 0xf); }
  Enc enc() const { return static_cast<Enc>(meta & 0xf); }
  uint32_t lru() const { return meta >> 8; }
  void set_lru(uint32_t v) { meta = (meta & 0xff) | ((v & kLruMax) << 8); }
  bool has_expire() const { return flags & kHasExpire; }
  size_t expire_bytes() const { return has_expire() ? (flags & kWideExpire ? 8 : 6) : 0; }
  int64_t expire() const {  // -1 when none
    if (!has_expire()) return -1;
    uint64_t v = 0;
    for (size_t i = expire_bytes(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(data[i]);
    return static_cast<int64_t>(v);
  }
  // Whether set_expire_in_place can store `when` (>= 0) here: an expire of 6 bytes holds
  // one below kNarrowExpireEnd only.
  bool HoldsExpire(int64_t when) const {
    return has_expire() && ((flags & kWideExpire) || when < kNarrowExpireEnd);
  }
  void set_expire_in_place(int64_t when) {  // HoldsExpire(when) only
    uint64_t v = static_cast<uint64_t>(when);
    for (size_t i = 0, n = expire_bytes(); i < n; i++, v >>= 8) data[i] = static_cast<char>(v);
  }
  std::string_view key() const;
  // Value accessors.
  char* value_ptr();
  const char* value_ptr() const { return const_cast<Obj*>(this)->value_ptr(); }
  int64_t int_value() const {
    int64_t v;
    memcpy(&v, value_ptr(), 8);
    return v;
  }
  void set_int_value(int64_t v) { memcpy(value_ptr(), &v, 8); }
  std::string* raw() const {
    std::string* p;
    memcpy(&p, value_ptr(), sizeof(p));
    return p;
  }
  void* ptr() const {
    void* p;
    memcpy(&p, value_ptr(), sizeof(p));
    return p;
  }
  void set_ptr(void* p) { memcpy(value_ptr(), &p, sizeof(p)); }
  // String value as bytes; int encoding is rendered into buf (>= 24 bytes).
  std::string_view str(char* buf) const;
  size_t str_len() const;
};

// Creates a string object choosing int / embstr / raw as Valkey does.
Obj* NewString(std::string_view key, std::string_view val, int64_t expire = -1,
               bool try_int = true);
Obj* NewInt(std::string_view key, int64_t v, int64_t expire = -1);
// A raw-encoded string (after APPEND / SETRANGE).
Obj* NewRaw(std::string_view key, std::string&& val, int64_t expire = -1);
// A container object taking ownership of ptr (freed with the object's type rules).
Obj* NewContainer(std::string_view key, Type t, Enc e, void* ptr, int64_t expire = -1);
// A copy of o's value under a new key and expire (deep copy; `steal` moves the value instead
// and frees o's shell).
Obj* Rekey(Obj* o, std::string_view key, int64_t expire, bool steal);
// Same object with a different expire (-1 removes); frees the old shell, moves the value.
Obj* WithExpire(Obj* o, int64_t expire);
void FreeObj(Obj* o);
// Approximate bytes of the value (MEMORY USAGE, big-value checks).
size_t ValueBytes(const Obj* o);

// LRU clock in seconds, 24 bits (OBJECT IDLETIME); cached, refreshed by UpdateLruClock().
uint32_t LruClock();
void UpdateLruClock();

// Access bookkeeping: LRU clock, or the LFU counter when an LFU policy is selected.
void TouchAccess(Obj* o);
// LFU counter after decay (OBJECT FREQ).
uint8_t LfuCounter(const Obj* o);
// Sets the LFU counter, as of now (RESTORE ... FREQ under an LFU policy).
void SetLfuCounter(Obj* o, uint8_t counter);

// Hooks for container types defined in later layers (lists, hashes...): free and deep copy.
struct TypeOps {
  void (*free)(void* ptr, Enc enc);
  void* (*dup)(const void* ptr, Enc enc);
  size_t (*bytes)(const void* ptr, Enc enc);
};
void RegisterTypeOps(Type t, TypeOps ops);

}  // namespace db
