#include "server/bio.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/thread_signals.h"

namespace server {

namespace {

struct Job {
  enum Kind : uint8_t { kFsync, kClose, kCall } kind;
  int fd;
  uint64_t offset;
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
};

constexpr size_t kRing = 1024;

struct Bio {
  std::mutex mu;
  std::condition_variable cv;
  Job ring[kRing];
  size_t head = 0, tail = 0;  // tail - head jobs queued
  std::atomic<size_t> pending_fsyncs{0};
  std::atomic<uint64_t> fsynced{0};
  std::atomic<int> last_errno{0};
  bool started = false;
};
Bio& B() {
  static Bio* b = new Bio();  // never destroyed: the thread may outlive static destructors
  return *b;
}

void Run(const Job& j) {
  Bio& b = B();
  if (j.kind == Job::kClose) {
    close(j.fd);
    return;
  }
  if (j.kind == Job::kCall) {
    j.fn(j.arg);
    return;
  }
  int r = fdatasync(j.fd);
  if (r != 0 && errno == EINVAL) r = fsync(j.fd);  // files that do not take fdatasync
  if (r == 0) {
    b.last_errno.store(0);
    uint64_t prev = b.fsynced.load();
    while (j.offset > prev && !b.fsynced.compare_exchange_weak(prev, j.offset)) {
    }
  } else {
    b.last_errno.store(errno);
  }
  b.pending_fsyncs.fetch_sub(1);
}

void Loop() {
  base::BlockSignalInThisThread(SIGALRM);  // the watchdog's trace is the main thread's
  Bio& b = B();
  while (true) {
    Job j;
    {
      std::unique_lock<std::mutex> lk(b.mu);
      b.cv.wait(lk, [&] { return b.tail != b.head; });
      j = b.ring[b.head % kRing];
    }
    Run(j);
    {
      std::lock_guard<std::mutex> lk(b.mu);
      b.head++;
    }
  }
}

// Wakes the thread only for a job put into an empty queue: while jobs are queued (the one it
// runs counts until done) it is awake or already woken, and finds the new job when it loops.
// Slot migration saves nodes.conf several times per slot, queueing two jobs each time; a
// second wake-up, and taking the lock while the woken thread does, cost the event loop.
// The notify comes after the unlock so that the woken thread does not block on the mutex.
void Submit(const Job& j) {
  Bio& b = B();
  if (j.kind == Job::kFsync) b.pending_fsyncs.fetch_add(1);
  std::unique_lock<std::mutex> lk(b.mu);
  if (b.started && b.tail - b.head < kRing) {
    bool was_empty = b.tail == b.head;
    b.ring[b.tail++ % kRing] = j;
    lk.unlock();
    if (was_empty) b.cv.notify_one();
    return;
  }
  lk.unlock();
  Run(j);  // not started, or the queue is full: do it here
}

}  // namespace

void BioStart() {
  Bio& b = B();
  std::lock_guard<std::mutex> lk(b.mu);
  if (b.started) return;
  b.started = true;
  std::thread(Loop).detach();
}

void BioFsync(int fd, uint64_t offset) { Submit({Job::kFsync, fd, offset}); }
void BioClose(int fd) { Submit({Job::kClose, fd, 0}); }
void BioCall(void (*fn)(void*), void* arg) { Submit({Job::kCall, -1, 0, fn, arg}); }
size_t BioPendingFsyncs() { return B().pending_fsyncs.load(); }
uint64_t BioFsyncedOffset() { return B().fsynced.load(); }
int BioLastFsyncErrno() { return B().last_errno.load(); }

}  // namespace server
