// The node's one hash seed. Every hash table hashes through it, so that all nodes of a shard
// (which share their primary's seed) place every element in the same bucket order.
#pragma once
#include <cstdint>
#include <string_view>

namespace ds {
const uint8_t* HashSeed();  // 16 bytes
void SetHashSeed(const uint8_t seed[16]);
void RandomizeHashSeed();           // at process start
// The operator's hash-seed directive: any text; the same text gives the same seed.
void SetHashSeedFromText(std::string_view text);
// 15 bits, never 0, that change with the seed: scan cursors carry it (commands/common.h).
uint16_t SeedFingerprint();
uint64_t Hash(std::string_view s);  // SipHash-1-3 with the seed
uint64_t HashNoCase(std::string_view s);
}  // namespace ds
