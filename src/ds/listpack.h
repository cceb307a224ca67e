// Listpack: the compact, byte-compatible (Redis 7 / Valkey 8) sequence of string or integer
// entries used for small hashes, lists, sets and sorted sets, and embedded as-is in snapshot
// and DUMP payloads.
//
// Format: [total bytes u32][count u16] entries... [0xFF]. Each entry is an encoding header and
// data followed by a backwards length, so the listpack can be walked in both directions.
// Integers are stored in the smallest of the 7-bit, 13-bit, 16/24/32/64-bit encodings; strings
// with 6-bit, 12-bit or 32-bit lengths. A count of 65535 means "count by walking".
//
// A listpack is a malloc'd buffer. Functions that modify it return the (possibly moved)
// buffer; entry pointers into it are invalid after a modification unless returned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ds::lp {

struct Entry {
  bool is_int;
  int64_t ival;         // when is_int
  const uint8_t* sval;  // when !is_int
  uint32_t slen;
  // The entry as text; integers are rendered into buf (>= 24 bytes).
  std::string_view View(char* buf) const;
  bool Equals(std::string_view s) const;
};

uint8_t* New(size_t capacity_hint = 0);
void Free(uint8_t* lp);
uint8_t* Dup(const uint8_t* lp);  // an exact copy
uint8_t* FromBytes(std::string_view bytes);  // a listpack owned as New's, from Writer's bytes
size_t Bytes(const uint8_t* lp);
size_t Length(const uint8_t* lp);  // number of entries

// Navigation: nullptr when there is no such entry.
uint8_t* First(uint8_t* lp);
uint8_t* Last(uint8_t* lp);
uint8_t* Next(uint8_t* lp, uint8_t* p);
uint8_t* Prev(uint8_t* lp, uint8_t* p);
uint8_t* Seek(uint8_t* lp, long index);  // negative counts from the end
Entry Get(const uint8_t* p);

// Builds a listpack front to back at the end of a string, without a reallocation per entry
// (Append's cost when a whole listpack is made at once): the same bytes as New() followed by
// the same Appends.
class Writer {
 public:
  explicit Writer(std::string* out);
  void Add(std::string_view s);  // as Append: an integer's canonical text as the integer
  void AddInt(int64_t v);
  // Ends it (terminator, header); the listpack's bytes, within the string.
  std::string_view Finish();

 private:
  std::string* out_;
  size_t start_;
  size_t count_ = 0;
};

// Appends/prepends a string (stored as an integer when it is the canonical text of one).
uint8_t* Append(uint8_t* lp, std::string_view s);
uint8_t* AppendInt(uint8_t* lp, int64_t v);
uint8_t* Prepend(uint8_t* lp, std::string_view s);
// Inserts s before (after=false) or after p; *newp (if not null) points to the new entry.
uint8_t* Insert(uint8_t* lp, uint8_t* p, std::string_view s, bool after, uint8_t** newp);
// Replaces the entry at *p with s; *p is updated to the replaced entry.
uint8_t* Replace(uint8_t* lp, uint8_t** p, std::string_view s);
// Deletes the entry at p; *next (if not null) gets the entry that followed it (or nullptr).
uint8_t* Delete(uint8_t* lp, uint8_t* p, uint8_t** next);
// Deletes `count` entries starting at index (negative from the end).
uint8_t* DeleteRange(uint8_t* lp, long index, unsigned long count);
// Finds s starting at p, comparing every (skip+1)-th entry (skip=1: keys of key/value pairs).
uint8_t* Find(uint8_t* lp, uint8_t* p, std::string_view s, unsigned skip);

// Listpacks are kept below 1 GB so that every entry and the total fit the format; callers
// converting to another encoding check SafeToAdd(lp, bytes of the new entry) first.
inline constexpr size_t kSafeSize = size_t{1} << 30;
bool SafeToAdd(const uint8_t* lp, size_t add);  // lp may be nullptr

// Checks a listpack received from outside (snapshot/DUMP): header, every entry, terminator.
// `deep` walks all entries; returns false on any inconsistency, never reads out of bounds.
bool Validate(const uint8_t* lp, size_t size, bool deep);

}  // namespace ds::lp
