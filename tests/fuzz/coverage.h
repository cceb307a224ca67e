// Coverage feedback shared by coverage.cc (the compiler's hooks) and the driver.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fuzz {
inline constexpr size_t kMapSize = 1 << 16;
inline constexpr int kCmpBits = 12;
inline constexpr size_t kCmpSlots = size_t{1} << kCmpBits;
extern uint8_t g_edges[kMapSize];          // hit counts per edge of the current execution
extern uint64_t g_cmp_consts[kCmpSlots];   // constants the code compared input against
}  // namespace fuzz
