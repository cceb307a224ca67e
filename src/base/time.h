// Wall-clock and monotonic time in the units the server uses.
#pragma once
#include <sys/time.h>

#include <cstdint>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace base {
inline int64_t UsTime() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
}
inline int64_t MsTime() { return UsTime() / 1000; }
inline int64_t MonotonicUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// A cheap clock for timing each command (two reads per command: a vDSO clock read was 15-20% of
// the CPU of pipelined GETs). The CPU's time-stamp counter where it ticks at a constant rate
// whatever the power state (x86 constant_tsc and nonstop_tsc), calibrated once against
// CLOCK_MONOTONIC; CLOCK_MONOTONIC elsewhere. Microseconds from an arbitrary origin.
struct FastClock {
  bool tsc = false;
  uint64_t tick0 = 0;
  int64_t us0 = 0;
  double us_per_tick = 0;
};
extern FastClock g_fast_clock;
// Calibrates (about 10 ms); until then FastUs is MonotonicUs.
void InitFastClock();
inline int64_t FastUs() {
#if defined(__x86_64__)
  if (g_fast_clock.tsc)
    return g_fast_clock.us0 +
           static_cast<int64_t>(static_cast<double>(__rdtsc() - g_fast_clock.tick0) *
                                g_fast_clock.us_per_tick);
#endif
  return MonotonicUs();
}
}  // namespace base
