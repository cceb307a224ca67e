// epoll event loop: file events, periodic and one-shot timers (deletable), before/after-sleep
// hooks, and busy polling under load governed by the run delay (spin_governor.h). With
// EnableUring, streams (client connections) are read by io_uring and their sends submitted
// with the loop's wait (uring.h); epoll still serves every other file, through the ring.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "net/spin_governor.h"

struct epoll_event;

namespace net {

enum : int { kReadable = 1, kWritable = 2 };
using FileProc = void (*)(int fd, void* data, int mask);
// A stream's events (EnableUring): kStreamInput with n bytes that arrived (valid during the
// call), kStreamEnd with n = 0 (end of file) or -errno, kStreamSent with the bytes a queued
// send wrote (maybe fewer than asked) or -errno (-EAGAIN: the socket took nothing).
enum StreamEvent : int { kStreamInput, kStreamEnd, kStreamSent };
using StreamProc = void (*)(int fd, void* data, int event, const char* bytes, ssize_t n);
class Uring;

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

  // Streams through io_uring: true once the ring is set up (at start, before any stream). False
  // where the kernel or a sandbox refuses io_uring: the loop stays epoll alone.
  bool EnableUring();
  bool uring() const { return ring_ != nullptr; }
  // Only with uring(): fd's input goes to proc as it arrives (no readiness, no read call).
  bool AddStream(int fd, StreamProc proc, void* data);
  // Stops a stream before its fd closes: queued sends are submitted first, the receive is
  // cancelled, and completions still to come for this fd are dropped, also once fd is reused.
  void DelStream(int fd);
  // Pause: no more input is taken from the socket (what is under way may still arrive), so the
  // peer is held back by TCP; Resume takes it up again.
  void PauseStream(int fd);
  void ResumeStream(int fd);
  // Queues a send of [bytes, bytes + n) on stream fd; the kernel takes the bytes when the queue
  // is submitted, with the loop's next wait (or SubmitQueued, or a DelStream), never later, and
  // never blocks for them (a full socket takes less or nothing). The bytes must stay unchanged
  // until then; the result comes as kStreamSent.
  void QueueSend(int fd, const char* bytes, size_t n);
  void SubmitQueued();
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
    // A stream (uring mode): its proc, whether a receive is armed, wanted, being cancelled,
    // and the generation that tells its completions from those of an earlier user of fd.
    StreamProc sproc = nullptr;
    void* sdata = nullptr;
    bool stream = false, recv_live = false, want_recv = false, cancelling = false;
    uint32_t gen = 0;
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
  std::unique_ptr<Uring> ring_;
  bool epoll_armed_ = false;  // the ring's multishot poll of epfd_ is live
  bool epoll_busy_ = false;   // the last epoll_wait found events (see Run)
  bool epoll_polled_ = false;
  void ArmEpollPoll();
  int PollEpoll(::epoll_event* events, int max);
  void ArmRecv(int fd);
  void CancelRecv(int fd);
  // Handles the completions ready now; returns how many there were. `events` is scratch for
  // the epoll events a completion of the epoll poll calls for.
  int ProcessCompletions(::epoll_event* events, int max);
  File* LiveStream(int fd, uint32_t gen);
  void EndWindowIfDue(int64_t now_us);
  int64_t RunDelayNs();
};

}  // namespace net
