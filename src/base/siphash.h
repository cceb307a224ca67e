// SipHash-1-3 keyed by a 16-byte seed: the hash of every table in the node.
#pragma once
#include <cstddef>
#include <cstdint>

namespace base {
uint64_t SipHash13(const void* data, size_t len, const uint8_t key[16]);
// Same, ASCII case-insensitive (for command names and similar).
uint64_t SipHash13NoCase(const void* data, size_t len, const uint8_t key[16]);
}  // namespace base
