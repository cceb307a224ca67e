// The hooks GCC calls from code built with -fsanitize-coverage=trace-pc,trace-cmp (the code
// under test; this file and the driver are built without them).
//
// trace-pc: each basic block reports its address; consecutive blocks make an edge, counted in
// a 64 KiB map (AFL's scheme). trace-cmp: constants compared against are remembered in a small
// table, from which the mutator draws bytes (magic numbers, lengths, opcodes).
#include "coverage.h"

namespace fuzz {
uint8_t g_edges[kMapSize];
uint64_t g_cmp_consts[kCmpSlots];
}  // namespace fuzz

namespace {
thread_local uintptr_t prev_loc = 0;

inline void Const(uint64_t v) {
  if (v < 256) return;  // single bytes are found by the byte mutations anyway
  fuzz::g_cmp_consts[(v * 0x9E3779B97F4A7C15ULL) >> (64 - fuzz::kCmpBits)] = v;
}
}  // namespace

extern "C" {
void __sanitizer_cov_trace_pc() {
  uintptr_t loc = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  loc = (loc >> 4) ^ (loc << 8);
  fuzz::g_edges[(loc ^ prev_loc) & (fuzz::kMapSize - 1)]++;
  prev_loc = loc >> 1;
}
void __sanitizer_cov_trace_cmp1(uint8_t, uint8_t) {}
void __sanitizer_cov_trace_cmp2(uint16_t, uint16_t) {}
void __sanitizer_cov_trace_cmp4(uint32_t, uint32_t) {}
void __sanitizer_cov_trace_cmp8(uint64_t, uint64_t) {}
void __sanitizer_cov_trace_const_cmp1(uint8_t, uint8_t) {}
void __sanitizer_cov_trace_const_cmp2(uint16_t c, uint16_t) { Const(c); }
void __sanitizer_cov_trace_const_cmp4(uint32_t c, uint32_t) { Const(c); }
void __sanitizer_cov_trace_const_cmp8(uint64_t c, uint64_t) { Const(c); }
void __sanitizer_cov_trace_cmpf(float, float) {}
void __sanitizer_cov_trace_cmpd(double, double) {}
void __sanitizer_cov_trace_switch(uint64_t, uint64_t* cases) {
  for (uint64_t i = 0; i < cases[0]; i++) Const(cases[2 + i]);
}
}
