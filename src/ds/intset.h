// Intset: a sorted array of integers in the smallest width that fits them all (2, 4 or 8
// bytes), byte-compatible with the Redis/Valkey format used in snapshots:
// [encoding u32 = 2|4|8][length u32][values, little-endian].
#pragma once
#include <cstddef>
#include <cstdint>

namespace ds::intset {
uint8_t* New();
void Free(uint8_t* is);
size_t Bytes(const uint8_t* is);
uint32_t Length(const uint8_t* is);
int64_t Get(const uint8_t* is, uint32_t pos);
bool Find(const uint8_t* is, int64_t v);
// Adds v keeping order; *added tells whether it was new. Returns the (possibly moved) set.
uint8_t* Add(uint8_t* is, int64_t v, bool* added);
uint8_t* Remove(uint8_t* is, int64_t v, bool* removed);
int64_t Min(const uint8_t* is);
int64_t Max(const uint8_t* is);
// Checks an intset received from outside: encoding, size, strictly ascending values.
bool Validate(const uint8_t* is, size_t size);
}  // namespace ds::intset
