// Fast PRNG for sampling (random keys, eviction, expiry sampling); not for secrets.
#include <cstdint>
#include <ctime>

#include "ds/hashtable.h"

namespace ds {
uint64_t RandomU64() {
  // xorshift64*, seeded once from the clock and address entropy.
  static uint64_t state = static_cast<uint64_t>(time(nullptr)) ^
                          reinterpret_cast<uintptr_t>(&state) ^ 0x9E3779B97F4A7C15ULL;
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1DULL;
}
}  // namespace ds
