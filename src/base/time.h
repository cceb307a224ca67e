// Wall-clock and monotonic time in the units the server uses.
#pragma once
#include <sys/time.h>

#include <cstdint>
#include <ctime>

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
}  // namespace base
