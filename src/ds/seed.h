// The node's one hash seed. Every hash table hashes through it, so that all nodes of a shard
// (which share their primary's seed) place every element in the same bucket order.
#pragma once
#include <cstdint>
#include <string_view>

namespace ds {
const uint8_t* HashSeed();  // 16 bytes
void SetHashSeed(const uint8_t seed[16]);
void RandomizeHashSeed();           // at process start
uint64_t Hash(std::string_view s);  // SipHash-1-3 with the seed
uint64_t HashNoCase(std::string_view s);
}  // namespace ds
