// epoll event loop: file events, periodic and one-shot timers (deletable), before/after-sleep
// hooks, and busy polling under load governed by the run delay (spin_governor.h).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "net/spin_governor.h"

struct epoll_event;

namespace net {

enum : int { kReadable = 1, kWritable = 2 };
using FileProc = void (*)(int fd, void* data, int mask);

class EventLoop {
 public:
  explicit EventLoop(int setsize);
  ~EventLoop();
  bool ok() const { return epfd_ >= 0; }
  // Adds mask bits for fd (proc for those bits). Returns false on failure.
  bool AddFile(int fd, int mask, FileProc proc, void* data);
  void DelFile(int fd, int mask);
  // Events of fd do not count as load for busy polling: background traffic such as the
  // cluster bus (bursts of pings from many peers) must not make idle nodes spin. Reset when
  // the fd is removed.
  void SetQuiet(int fd, bool quiet);
  int FileMask(int fd) const;
  // Calls fn every period_ms (first call after period_ms). Returns the timer's id.
  int AddTimer(int64_t period_ms, std::function<void()> fn);
  // Calls fn once, after delay_ms. Returns the timer's id.
  int AddOneShot(int64_t delay_ms, std::function<void()> fn);
  // Removes a timer (also from inside a timer callback, its own included); unknown ids are
  // ignored, so a fired one-shot may be deleted safely.
  void DelTimer(int id);
  void SetBeforeSleep(std::function<void()> fn) { before_sleep_ = std::move(fn); }
  void SetAfterSleep(std::function<void()> fn) { after_sleep_ = std::move(fn); }
  void Run();
  void Stop() { stop_ = true; }
  // Handles the file events ready now, without waiting, timers or the sleep hooks (a load
  // serving clients and the cluster bus between its keys). Returns how many there were.
  int ProcessFileEventsNow();
  // Under load (see kHotBatch), poll up to us microseconds for more events before blocking,
  // while the spin governor allows it (0: never poll).
  void SetSpinUs(int64_t us) { spin_us_ = us; }
  // Wakes a blocked epoll_wait at most this many ms later (0: poll immediately).
  void SetMaxWaitMs(int ms) {
    if (max_wait_ms_ < 0 || ms < max_wait_ms_) max_wait_ms_ = ms;
  }

 private:
  struct File {
    int mask = 0;
    bool quiet = false;  // its events never make the loop hot (see SetQuiet)
    FileProc rproc = nullptr, wproc = nullptr;
    void* rdata = nullptr;
    void* wdata = nullptr;
  };
  struct Timer {
    int id;
    int64_t period_ms;  // 0: one-shot
    int64_t next_ms;
    std::function<void()> fn;
  };
  void RunDueTimers(int64_t now_ms);
  void Dispatch(int fd, uint32_t ev);
  int epfd_ = -1;
  std::vector<File> files_;
  std::vector<Timer> timers_;
  int next_timer_id_ = 1;
  std::function<void()> before_sleep_, after_sleep_;
  bool stop_ = false;
  int max_wait_ms_ = -1;
  // Polling starts when a blocking wait returns this many ready files or slept less than
  // kHotGapUs, and goes on while polls keep finding events.
  static constexpr int kHotBatch = 4;
  static constexpr int64_t kHotGapUs = 40;
  bool hot_ = false;
  int64_t spin_us_ = 0;
  SpinGovernor governor_;
  int schedstat_fd_ = -1;  // this thread's /proc schedstat, for its run delay
  int64_t window_start_us_ = 0, window_delay_ns_ = 0, window_spun_us_ = 0, window_found_ = 0;

  int Wait(::epoll_event* events, int max, int timeout_ms);
  void EndWindowIfDue(int64_t now_us);
  int64_t RunDelayNs();
};

}  // namespace net
