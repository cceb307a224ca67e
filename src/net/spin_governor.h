// Decides whether the event loop may poll for new events briefly before blocking.
//
// Under load from many clients, sleeping in epoll_wait and being woken for every small batch
// costs the clients a wake-up per request they send; polling for a few microseconds instead
// keeps batches together (about +10% throughput at -P 1 with 50 clients). Polling is only a
// win while this thread has a CPU to itself: when other runnable threads (a co-located replica,
// the client itself) wait for our CPU, polling takes time from them. The kernel tells us that
// directly: the time this thread spent runnable but waiting for a CPU (schedstat run delay).
// The governor watches it per window, stops polling when it rises, and probes again later with
// exponential back-off so a busy host is not probed often.
//
// Polling must also pay for itself. A poll that finds events saves this thread a blocking
// epoll_wait and its wake-up (a few microseconds of CPU, and the wake-up's latency); one that
// waits longer than that for them only burns the CPU a sleep would have left to the clients
// (measured: redis-benchmark -P1 and -P16 at 50 clients on a 2-core host, where the client
// is the bottleneck, spent 7-13 us and 4-10 us polling per event found, 25-40% of a core,
// for no throughput gain within the noise). So a window in which the polls spent more than
// kMaxPollPerFoundUs per poll that found events stops polling too, with the same back-off.
// A server that is the bottleneck finds events waiting at once and keeps polling.
#pragma once
#include <cstdint>

namespace net {

class SpinGovernor {
 public:
  static constexpr int64_t kWindowUs = 100'000;        // evaluation period
  static constexpr int64_t kMinBackoffUs = 1'000'000;  // first pause after contention
  static constexpr int64_t kMaxBackoffUs = 16'000'000;
  // Waiting for a CPU more than this share of a window while polling means we compete.
  static constexpr double kMaxDelayShare = 0.10;
  // Polling longer than this per poll that found events costs more than sleeping would.
  static constexpr int64_t kMaxPollPerFoundUs = 3;

  bool enabled() const { return enabled_; }

  // One window ended at now_us: wall_us long, during which the thread waited delay_us for a
  // CPU and spent spun_us polling, `found` polls of which found events. Pure: no clock or
  // kernel reads, so tests drive it.
  void EndWindow(int64_t now_us, int64_t wall_us, int64_t delay_us, int64_t spun_us,
                 int64_t found) {
    if (enabled_) {
      bool contended = delay_us > static_cast<int64_t>(kMaxDelayShare * wall_us);
      bool wasteful = spun_us > kMaxPollPerFoundUs * found;
      if (spun_us > 0 && (contended || wasteful)) {
        enabled_ = false;
        resume_at_us_ = now_us + backoff_us_;
        backoff_us_ = backoff_us_ * 2 > kMaxBackoffUs ? kMaxBackoffUs : backoff_us_ * 2;
      } else if (spun_us > 0) {
        clean_windows_++;
        // A long quiet stretch forgets earlier contention.
        if (clean_windows_ >= 50) {
          backoff_us_ = kMinBackoffUs;
          clean_windows_ = 0;
        }
      }
    } else if (now_us >= resume_at_us_) {
      enabled_ = true;
      clean_windows_ = 0;
    }
  }

 private:
  bool enabled_ = true;
  int64_t resume_at_us_ = 0;
  int64_t backoff_us_ = kMinBackoffUs;
  int clean_windows_ = 0;
};

}  // namespace net
