// Calibration of the fast clock (see time.h).
#include "base/time.h"

#include <fstream>
#include <string>

namespace base {

FastClock g_fast_clock;

namespace {
// Both flags on the CPU's flags line: the counter's rate never changes and it never stops.
bool InvariantTsc() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    line += ' ';
    return line.find(" constant_tsc ") != std::string::npos &&
           line.find(" nonstop_tsc ") != std::string::npos;
  }
  return false;
}

// The kernel itself keeps time with the TSC (it falls back to another source when it finds
// the counters of the CPUs out of step, as some virtual machines have them).
bool KernelUsesTsc() {
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return std::getline(f, source) && source == "tsc";
}

}  // namespace

void InitFastClock() {
#if defined(__x86_64__)
  if (!InvariantTsc() || !KernelUsesTsc()) return;
  int64_t us_a = MonotonicUs();
  uint64_t tick_a = __rdtsc();
  struct timespec ten_ms = {0, 10 * 1000 * 1000};
  nanosleep(&ten_ms, nullptr);
  int64_t us_b = MonotonicUs();
  uint64_t tick_b = __rdtsc();
  if (tick_b <= tick_a || us_b <= us_a) return;
  FastClock c;
  c.us_per_tick = static_cast<double>(us_b - us_a) / static_cast<double>(tick_b - tick_a);
  c.tick0 = tick_b;
  c.us0 = us_b;
  c.tsc = true;
  g_fast_clock = c;
#endif
}

}  // namespace base
