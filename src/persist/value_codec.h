// Snapshot (RDB) value codec and DUMP payloads, independent of the in-memory encodings.
//
// Values pass through a plain representation (persist::Value) so that the codec can be
// tested on its own and the keyspace types convert to and from it in one place. We write
// format version 10 (read by Redis 7.0 and every newer server) and read versions up to 11,
// including every encoding Redis 7 / Valkey 8 write for strings, lists (quicklist of
// listpacks or ziplists, plain lists), sets (intset, listpack, plain), sorted sets
// (listpack, ziplist, plain with binary doubles) and hashes (listpack, ziplist, zipmap, plain).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace db {
struct Stream;
}

namespace persist {

inline constexpr int kWriteVersion = 10;
inline constexpr int kMaxReadVersion = 11;

enum class Kind { kString, kList, kSet, kZSet, kHash, kStream };

struct Value {
  Kind kind = Kind::kString;
  std::string str;                                         // kString
  std::vector<std::string> elems;                          // kList (in order), kSet
  std::vector<std::pair<std::string, double>> zelems;      // kZSet (any order)
  std::vector<std::pair<std::string, std::string>> pairs;  // kHash
  // kStream: the value itself (its nodes are already the snapshot's listpacks). Borrowed from
  // the keyspace when written (ToValue), owned when read (stream_owned: FromValue takes it).
  std::shared_ptr<db::Stream> stream;
  bool stream_owned = false;
  // kHash, kZSet or kSet read with keep_listpack from a listpack: its bytes, checked in depth
  // as a listpack but not expanded; FromValue builds the value from them in place and makes
  // the checks left (an even count, distinct fields or members, scores that are numbers).
  std::string listpack;
  // kList read with keep_listpack from a quicklist of listpacks: its nodes' bytes, checked, none
  // empty, not expanded into elems (db::ListLoadNodes takes them).
  std::vector<std::string> list_nodes;
};

// Bounded reader over a byte buffer: every read checks the remaining length. A read that
// fails for want of bytes (the buffer may be a prefix of the input, as when a replica parses a
// snapshot while it arrives) marks the reader short; other failures are malformed data.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  // Whether `need` more bytes are there (else marks the reader short).
  bool Fits(uint64_t need) {
    if (need <= Remaining()) return true;
    short_ = true;
    return false;
  }
  // Whether the buffer can hold `n` items of at least `min_item` bytes each.
  bool CountFits(uint64_t n, size_t min_item) {
    if (n <= Remaining() / min_item) return true;
    short_ = true;
    return false;
  }
  bool short_read() const { return short_; }
  bool ReadByte(uint8_t* b);
  bool ReadBytes(void* dst, size_t n);
  // Snapshot length encoding (6/14/32/64-bit, or a special encoding flag).
  bool ReadLen(uint64_t* len, bool* is_encoded);
  // A snapshot string: raw, integer-encoded or LZF-compressed. max_len bounds allocations.
  bool ReadString(std::string* out, uint64_t max_len = 1ULL << 32);
  bool ReadBinaryDouble(double* d);
  bool ReadTextDouble(double* d);  // old zset encoding
  size_t Remaining() const { return end_ - p_; }
  const uint8_t* pos() const { return p_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool short_ = false;
};

// Writers.
void WriteLen(std::string* out, uint64_t len);
// Strings that are canonical integers are written in the integer encoding; longer strings are
// LZF-compressed when `compress` and it saves space.
void WriteString(std::string* out, std::string_view s, bool compress = true);
void WriteBinaryDouble(std::string* out, double d);

// Snapshot object type byte followed by the value. Writes the plain (non-compact) encodings,
// except that small values may use listpack types; every result loads in Redis 7.0.
void WriteValue(std::string* out, const Value& v, bool compress = true);

// What WriteValue writes in the compact encodings (the defaults of Redis 7 / Valkey 8).
inline constexpr size_t kMaxListpackEntries = 128;  // pairs of a hash or sorted set
inline constexpr size_t kMaxListpackValue = 64;     // bytes of a field, value or member
inline constexpr size_t kListNodeBytes = 8192;      // a list node's listpack
// The same bytes WriteValue writes, from a listpack the caller already holds (object_codec.cc
// builds it from a compact value without the plain Value): a hash's or a sorted set's pairs
// within the limits above (a sorted set's in its order), a list that fits one node.
void WriteHashListpack(std::string* out, std::string_view lp, bool compress);
void WriteZSetListpack(std::string* out, std::string_view lp, bool compress);
void WriteListOneNode(std::string* out, std::string_view lp, bool compress);
// Reads a value of snapshot object type `type`. False on any malformed or unsupported data
// (nothing is allocated beyond what the input can justify). A list, set, sorted set or hash of
// no element reads (EmptyCollection): a snapshot skips it, a DUMP payload refuses it.
bool ReadValue(Reader& r, uint8_t type, Value* out, bool keep_listpack = false);
// Whether two of keys are equal (reorders keys).
bool HasDuplicates(std::vector<std::string_view>& keys);
// A list, set, sorted set or hash with no element: never a key (streams may be empty).
bool EmptyCollection(const Value& v);

// DUMP payload: type byte, value, 2-byte version (little endian), CRC64 (little endian).
std::string EncodeDump(const Value& v);
enum class DumpStatus { kOk, kVersionOrChecksum, kBadFormat };
// verify_checksum false (DEBUG SET-SKIP-CHECKSUM-VALIDATION 1) still checks the version.
DumpStatus DecodeDump(std::string_view payload, Value* out, bool verify_checksum = true);
// RESTORE's error reply for a status (Valkey's texts); nullptr for kOk.
const char* DumpStatusError(DumpStatus s);
// A snapshot type byte's name as valkey-check-rdb gives it ("hash-listpack"); nullptr for a
// byte no format defines.
const char* TypeName(uint8_t type);
// The encoding a payload or record of this type byte holds, in the words of Valkey's
// "<name> integrity check failed" log lines ("Zset ziplist", "Stream listpack"...).
const char* IntegrityName(uint8_t type);

}  // namespace persist
