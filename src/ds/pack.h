// Pack: the compact encoding of small hashes, sets and sorted sets (reported as "listpack", the
// name Valkey gives its compact encoding; snapshots and DUMP payloads carry real listpacks, built
// from a pack's entries when written).
//
// A pack is a malloc'd buffer: [total bytes u32][entry count u32] entries... Entries are stored
// in columns: with a stride of 2 (a hash's field, value pairs; a sorted set's member, score
// pairs) entry i follows entry i - 2, its column's previous one; with a stride of 1 (a set) entry
// i - 1. Each string entry stores only what it does not share with its column's previous entry
// (front coding): after "m:00041", "m:00042" costs 2 bytes, after "user:1041", "user:1042" 3;
// entries have no back-lengths.
// An entry that is an integer's canonical text may be stored as the integer instead, whichever
// is shorter. The first byte of an entry:
//   0x00-0x7f  string: shares (b >> 4) bytes (0-7) with its previous, then (b & 15) bytes follow
//   0x80-0xbf  the integer b - 0x80 (0-63)
//   0xc1-0xc8  an integer, zigzag-coded in the (b - 0xc0) little-endian bytes that follow
//   0xd0-0xdf  string: (b & 15) bytes follow a byte saying how many it shares (8-255)
//   0xe0       string: varint shared, varint length, then that many bytes
// A pack is walked forward only; every edit is one splice of bytes in place.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ds::pack {

uint8_t* New();
void Free(uint8_t* pk);
uint8_t* Dup(const uint8_t* pk);
size_t Bytes(const uint8_t* pk);
size_t Length(const uint8_t* pk);

// Walks a pack's entries forward, rebuilding each one's text.
class Reader {
 public:
  Reader(const uint8_t* pk, unsigned stride);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Moves to the next entry (the first on the first call); false past the last.
  bool Next();
  // Moves to the next entry of column 0 (a field, a member) equal to s and stops there; false
  // (at the end) if there is none. Column 0's entries passed on the way are not rebuilt, so
  // after a Find that failed Column(0) is not the last entry's text.
  bool Find(std::string_view s);
  // Moves forward to entry `index`; false if there is none.
  bool SeekTo(size_t index);
  std::string_view Text() const { return {cols_[col_].p, cols_[col_].len}; }
  // The last text read in column c (empty before any).
  std::string_view Column(unsigned c) const { return {cols_[c].p, cols_[c].len}; }
  size_t Index() const { return index_; }  // of the current entry
  size_t End() const { return pos_; }      // where the byte after the current entry is
  // Whether the current entry is stored as an integer, and which (its text is that integer's).
  bool IsInt() const { return cur_.is_int; }
  int64_t Int() const { return cur_.ival; }

 private:
  struct Buf {
    char* p;
    uint32_t len, cap;
    char inl[56];
  };
  struct Entry {
    bool is_int;
    int64_t ival;
    size_t shared, rest;
    const uint8_t* data;
  };
  static void Reserve(Buf* b, size_t n);
  static const uint8_t* Parse(const uint8_t* p, Entry* e);
  void Step();
  void Apply(Buf* b) const;
  Entry cur_{};
  const uint8_t* pk_;
  unsigned stride_;
  size_t pos_, end_, index_ = SIZE_MAX;
  unsigned col_ = 0;
  Buf cols_[2];
};

// Replaces entries [index, index + remove) by the `nadd` texts at `add`, re-encoding the entries
// after them whose column's previous entry changed. remove and nadd differ by a multiple of the
// stride. Returns the (possibly moved) pack.
uint8_t* Splice(uint8_t* pk, unsigned stride, size_t index, size_t remove,
                const std::string_view* add, size_t nadd);
// Packs are kept below 1 GB, so that sizes fit their fields; callers convert to another
// encoding when SafeToAdd(pk, bytes of the new entries) is false.
inline constexpr size_t kSafeSize = size_t{1} << 30;
inline bool SafeToAdd(const uint8_t* pk, size_t add) { return Bytes(pk) + add <= kSafeSize; }

inline uint8_t* Append(uint8_t* pk, unsigned stride, const std::string_view* add, size_t nadd) {
  return Splice(pk, stride, Length(pk), 0, add, nadd);
}

// A pack written entry by entry, as Append would write the same texts, with no array of them
// (a load builds packs by the million). The texts need not outlive Add.
class Builder {
 public:
  explicit Builder(unsigned stride, size_t bytes_hint = 0);
  void Add(std::string_view s);
  size_t Bytes() const { return size_; }
  // The pack, allocated to its size; the builder is spent.
  uint8_t* Finish();

 private:
  std::unique_ptr<uint8_t[]> buf_;  // not zeroed: each entry is written whole
  size_t size_, cap_;
  std::string prev_[2];
  unsigned stride_, col_ = 0;
  size_t count_ = 0;
};

}  // namespace ds::pack
