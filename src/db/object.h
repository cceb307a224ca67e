// A key and its value in one allocation: the keyspace's unit of storage.
//
// Layout: [meta:4] then [expire: 6 bytes, or 8 with kWideExpire, if kHasExpire] then the key
// and the value. meta is lru:24 | flags:4 | kind:4, the kind one of the 14 (type, encoding)
// pairs. Key and value: usually [varint keylen][key][value], the value depending on the
// encoding: int -> int64; embstr -> varint len + bytes; raw -> std::string*; container
// encodings -> a pointer owned by the object. A key of up to 15 bytes with an inline string of
// up to 31 (kPacked) has both lengths in one byte: [keylen:4 | len:4][key][bytes], the length's
// fifth bit in meta (kPackedLen16). The node table holds no link in the object (db::KeyTable).
// So an 11-byte key with a 16-byte value takes 32 bytes, jemalloc's 32-byte class (48 with an
// expire, which takes 6 bytes below 2^48 ms, the year 10889; a later one takes 8); keeping key,
// expire and small strings inline is what holds memory per key under Valkey 8's.
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
  uint32_t meta;  // lru:24 | flags:4 | kind:4
  char data[];

  static constexpr uint32_t kHasExpire = 0x10;
  static constexpr uint32_t kWideExpire = 0x20;   // the expire takes 8 bytes
  static constexpr uint32_t kPacked = 0x40;       // key and string lengths in one byte
  static constexpr uint32_t kPackedLen16 = 0x80;  // the packed string length's bit 4
  static constexpr int64_t kNarrowExpireEnd = int64_t{1} << 48;

  Type type() const { return KindType(meta & 0xf); }
  Enc enc() const { return KindEnc(meta & 0xf); }
  void set_enc(Enc e) { meta = (meta & ~0xfu) | KindOf(type(), e); }
  uint32_t lru() const { return meta >> 8; }
  void set_lru(uint32_t v) { meta = (meta & 0xff) | ((v & kLruMax) << 8); }
  bool has_expire() const { return meta & kHasExpire; }
  size_t expire_bytes() const { return has_expire() ? (meta & kWideExpire ? 8 : 6) : 0; }
  int64_t expire() const {  // -1 when none
    if (!has_expire()) return -1;
    uint64_t v = 0;
    for (size_t i = expire_bytes(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(data[i]);
    return static_cast<int64_t>(v);
  }
  // Whether set_expire_in_place can store `when` (>= 0) here: an expire of 6 bytes holds
  // one below kNarrowExpireEnd only.
  bool HoldsExpire(int64_t when) const {
    return has_expire() && ((meta & kWideExpire) || when < kNarrowExpireEnd);
  }
  void set_expire_in_place(int64_t when) {  // HoldsExpire(when) only
    uint64_t v = static_cast<uint64_t>(when);
    for (size_t i = 0, n = expire_bytes(); i < n; i++, v >>= 8) data[i] = static_cast<char>(v);
  }

  // The 4-bit kind of a (type, encoding) pair the keyspace holds, and back.
  static uint32_t KindOf(Type t, Enc e);
  static Type KindType(uint32_t kind) { return kKindType[kind]; }
  static Enc KindEnc(uint32_t kind) { return kKindEnc[kind]; }
  static constexpr Type kKindType[16] = {kString, kString, kString, kString, kList,
                                         kList,   kSet,    kSet,    kSet,    kZSet,
                                         kZSet,   kHash,   kHash,   kStream, kString,
                                         kString};
  static constexpr Enc kKindEnc[16] = {
      kEncRaw,      kEncInt,       kEncEmbstr,   kEncRawInline, kEncQuicklist, kEncListpack,
      kEncHashtable, kEncIntset,   kEncListpack, kEncSkiplist,  kEncListpack,  kEncHashtable,
      kEncListpack, kEncStream,    kEncRaw,      kEncRaw};

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
// Writes val into the string object o where NewString would make an object of o's very
// layout (same encoding, same length): SET over a value of the same size allocates, frees and
// rehashes nothing. False, with o untouched, otherwise.
bool OverwriteString(Obj* o, std::string_view val);
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
// Access bookkeeping as for a key just added (Valkey 8's initObjectLRUOrLFU in dbAdd): a
// renamed, moved or copied key starts afresh, as a new one does.
void ResetAccess(Obj* o);
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
