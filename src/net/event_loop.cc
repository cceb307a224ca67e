// epoll-based loop; timers are few (cron), so a vector scan is the right structure.
#include "net/event_loop.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "base/time.h"
#include "net/uring.h"

namespace net {

EventLoop::EventLoop(int setsize) : files_(setsize) { epfd_ = epoll_create1(EPOLL_CLOEXEC); }

EventLoop::~EventLoop() {
  ring_.reset();
  if (epfd_ >= 0) close(epfd_);
  if (schedstat_fd_ >= 0) close(schedstat_fd_);
}

bool EventLoop::AddFile(int fd, int mask, FileProc proc, void* data) {
  if (fd < 0) return false;
  if (fd >= static_cast<int>(files_.size())) files_.resize(fd + 1024);
  File& f = files_[fd];
  int op = f.mask == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  int newmask = f.mask | mask;
  struct epoll_event ee = {};
  if (newmask & kReadable) ee.events |= EPOLLIN;
  if (newmask & kWritable) ee.events |= EPOLLOUT;
  ee.data.fd = fd;
  if (epoll_ctl(epfd_, op, fd, &ee) == -1) return false;
  f.mask = newmask;
  if (mask & kReadable) {
    f.rproc = proc;
    f.rdata = data;
  }
  if (mask & kWritable) {
    f.wproc = proc;
    f.wdata = data;
  }
  return true;
}

void EventLoop::DelFile(int fd, int mask) {
  if (fd < 0 || fd >= static_cast<int>(files_.size())) return;
  File& f = files_[fd];
  if (f.mask == 0) return;
  int newmask = f.mask & ~mask;
  struct epoll_event ee = {};
  if (newmask & kReadable) ee.events |= EPOLLIN;
  if (newmask & kWritable) ee.events |= EPOLLOUT;
  ee.data.fd = fd;
  epoll_ctl(epfd_, newmask ? EPOLL_CTL_MOD : EPOLL_CTL_DEL, fd, &ee);
  f.mask = newmask;
  if (!newmask) f.quiet = false;
}

void EventLoop::SetQuiet(int fd, bool quiet) {
  if (fd >= 0 && fd < static_cast<int>(files_.size())) files_[fd].quiet = quiet;
}

int EventLoop::FileMask(int fd) const {
  if (fd < 0 || fd >= static_cast<int>(files_.size())) return 0;
  return files_[fd].mask;
}

int EventLoop::AddTimer(int64_t period_ms, std::function<void()> fn) {
  int id = next_timer_id_++;
  if (period_ms < 1) period_ms = 1;
  timers_.push_back(Timer{id, period_ms, base::MonotonicUs() / 1000 + period_ms, std::move(fn)});
  return id;
}

int EventLoop::AddOneShot(int64_t delay_ms, std::function<void()> fn) {
  int id = next_timer_id_++;
  timers_.push_back(Timer{id, 0, base::MonotonicUs() / 1000 + delay_ms, std::move(fn)});
  return id;
}

void EventLoop::DelTimer(int id) {
  timers_.erase(
      std::remove_if(timers_.begin(), timers_.end(), [id](const Timer& t) { return t.id == id; }),
      timers_.end());
}

// Callbacks may add or delete timers: the due ones are found first, then each is looked up
// again (it may be gone) and its callback runs from a copy.
void EventLoop::RunDueTimers(int64_t now_ms) {
  std::vector<int> due;
  for (auto& t : timers_)
    if (t.next_ms <= now_ms) due.push_back(t.id);
  for (int id : due) {
    auto it =
        std::find_if(timers_.begin(), timers_.end(), [id](const Timer& t) { return t.id == id; });
    if (it == timers_.end()) continue;
    std::function<void()> fn;
    if (it->period_ms == 0) {
      fn = std::move(it->fn);
      timers_.erase(it);
    } else {
      it->next_ms = now_ms + it->period_ms;
      fn = it->fn;
    }
    fn();
  }
}

// Nanoseconds this thread has spent runnable but waiting for a CPU; -1 if unknown.
int64_t EventLoop::RunDelayNs() {
  if (schedstat_fd_ < 0) return -1;
  char buf[96];
  ssize_t n = pread(schedstat_fd_, buf, sizeof(buf) - 1, 0);
  buf[n > 0 ? n : 0] = 0;
  unsigned long long cpu = 0, delay = 0;
  // A kernel without run-delay accounting (no schedstats or delay accounting) reports 0
  // forever; after a second of CPU a live counter has moved. Either way: stop trusting it.
  if (sscanf(buf, "%llu %llu", &cpu, &delay) != 2 || (delay == 0 && cpu > 1'000'000'000ull)) {
    close(schedstat_fd_);
    schedstat_fd_ = -1;  // Wait() never polls without it
    return -1;
  }
  return static_cast<int64_t>(delay);
}

void EventLoop::EndWindowIfDue(int64_t now_us) {
  if (now_us - window_start_us_ < SpinGovernor::kWindowUs) return;
  int64_t delay_ns = RunDelayNs();
  if (delay_ns >= 0) {
    governor_.EndWindow(now_us, now_us - window_start_us_, (delay_ns - window_delay_ns_) / 1000,
                        window_spun_us_, window_found_);
    window_delay_ns_ = delay_ns;
  }
  window_start_us_ = now_us;
  window_spun_us_ = 0;
  window_found_ = 0;
}

// epoll_wait, preceded by a short poll while the loop is hot (see SetSpinUs).
int EventLoop::Wait(::epoll_event* events, int max, int timeout_ms) {
  // Without schedstat (an old or restricted /proc) contention cannot be seen: never poll.
  if (hot_ && spin_us_ > 0 && schedstat_fd_ >= 0 && governor_.enabled() && timeout_ms != 0) {
    int64_t start = base::MonotonicUs(), now = start;
    int n;
    do {
      n = epoll_wait(epfd_, events, max, 0);
    } while (n == 0 && (now = base::MonotonicUs()) - start < spin_us_);
    window_spun_us_ += now - start;
    window_found_ += n > 0;
    if (n != 0) return n;  // still hot
  }
  int64_t before = base::MonotonicUs();
  int n = epoll_wait(epfd_, events, max, timeout_ms);
  // Polling pays under load: many clients ready at once, or requests arriving back to back
  // (a short sleep). Light traffic is neither, and polling would only burn CPU.
  int load = 0;
  for (int i = 0; i < n; i++) {
    int fd = events[i].data.fd;
    if (fd < static_cast<int>(files_.size()) && !files_[fd].quiet) load++;
  }
  hot_ = load >= kHotBatch || (load > 0 && base::MonotonicUs() - before < kHotGapUs);
  return n;
}

int EventLoop::ProcessFileEventsNow() {
  struct epoll_event events[128];
  if (ring_) {
    ring_->SubmitAndWait(0);
    int n = ProcessCompletions(events, 128);
    // epoll's own events too: its poll's completion may have been taken by an outer pass.
    return n + PollEpoll(events, 128);
  }
  int n = epoll_wait(epfd_, events, 128, 0);
  for (int i = 0; i < n; i++) Dispatch(events[i].data.fd, events[i].events);
  return n > 0 ? n : 0;
}

void EventLoop::Dispatch(int fd, uint32_t ev) {
  if (fd >= static_cast<int>(files_.size())) return;
  File& f = files_[fd];
  if ((f.mask & kReadable) && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)))
    f.rproc(fd, f.rdata, kReadable);
  // The read handler may have closed and even reused fd: re-read the slot.
  File& g = files_[fd];
  if ((g.mask & kWritable) && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
    g.wproc(fd, g.wdata, kWritable);
}

void EventLoop::Run() {
  stop_ = false;
  std::vector<struct epoll_event> events(1024);
  schedstat_fd_ = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  window_start_us_ = base::MonotonicUs();
  window_delay_ns_ = std::max<int64_t>(RunDelayNs(), 0);
  while (!stop_) {
    if (before_sleep_) before_sleep_();
    int64_t now = base::MonotonicUs() / 1000;
    int64_t wait = -1;
    for (auto& t : timers_) {
      int64_t d = t.next_ms - now;
      if (d < 0) d = 0;
      if (wait < 0 || d < wait) wait = d;
    }
    if (max_wait_ms_ >= 0 && (wait < 0 || wait > max_wait_ms_)) wait = max_wait_ms_;
    max_wait_ms_ = -1;
    if (ring_) {
      // One system call: the queued sends go out, then the wait (no busy polling: a poll
      // would be a call each time).
      // epoll is level-triggered and its poll's completion is not: while epoll_wait keeps
      // finding events (a handler that left some), it is asked again each pass, without a wait.
      bool was_busy = epoll_busy_;
      epoll_polled_ = false;
      int r = ring_->SubmitAndWait(was_busy ? 0 : static_cast<int>(wait));
      if (after_sleep_) after_sleep_();
      ProcessCompletions(events.data(), static_cast<int>(events.size()));
      if (was_busy && !epoll_polled_) PollEpoll(events.data(), static_cast<int>(events.size()));
      // A busy kernel (-EAGAIN, -EBUSY) is asked again next pass; only a broken ring ends.
      if (r == -EBADF || r == -EFAULT || r == -EINVAL || r == -EOPNOTSUPP) break;
    } else {
      int n = Wait(events.data(), static_cast<int>(events.size()), static_cast<int>(wait));
      if (after_sleep_) after_sleep_();
      for (int i = 0; i < n; i++) Dispatch(events[i].data.fd, events[i].events);
      if (n == -1 && errno != EINTR) break;
    }
    int64_t now_us = base::MonotonicUs();
    EndWindowIfDue(now_us);  // also while polling is off, so a later CONFIG SET starts clean
    RunDueTimers(now_us / 1000);
  }
}

// --- streams through io_uring

namespace {
enum : uint64_t { kTagRecv = 1, kTagSend = 2, kTagEpoll = 3, kTagCancel = 4 };
constexpr uint32_t kGenMask = 0xffffff;
uint64_t Tag(uint64_t kind, uint32_t gen, int fd) {
  return (kind << 56) | (static_cast<uint64_t>(gen & kGenMask) << 32) | static_cast<uint32_t>(fd);
}
}  // namespace

bool EventLoop::EnableUring() {
  if (ring_ || epfd_ < 0) return ring_ != nullptr;
  auto ring = std::make_unique<Uring>();
  if (!ring->Init(1024)) return false;
  ring_ = std::move(ring);
  ArmEpollPoll();
  return true;
}

void EventLoop::ArmEpollPoll() {
  io_uring_sqe* s = ring_->Sqe();
  s->opcode = IORING_OP_POLL_ADD;
  s->fd = epfd_;
  s->poll32_events = POLLIN;
  s->len = IORING_POLL_ADD_MULTI;
  s->user_data = Tag(kTagEpoll, 0, epfd_);
  epoll_armed_ = true;
}

void EventLoop::ArmRecv(int fd) {
  File& f = files_[fd];
  io_uring_sqe* s = ring_->Sqe();
  s->opcode = IORING_OP_RECV;
  s->fd = fd;
  s->ioprio = IORING_RECV_MULTISHOT;
  s->flags = IOSQE_BUFFER_SELECT;
  s->buf_group = Uring::kBufGroup;
  s->user_data = Tag(kTagRecv, f.gen, fd);
  f.recv_live = true;
  f.cancelling = false;
}

void EventLoop::CancelRecv(int fd) {
  File& f = files_[fd];
  if (!f.recv_live || f.cancelling) return;
  io_uring_sqe* s = ring_->Sqe();
  s->opcode = IORING_OP_ASYNC_CANCEL;
  s->addr = Tag(kTagRecv, f.gen, fd);
  s->flags = IOSQE_CQE_SKIP_SUCCESS;
  s->user_data = Tag(kTagCancel, f.gen, fd);
  f.cancelling = true;
}

bool EventLoop::AddStream(int fd, StreamProc proc, void* data) {
  if (!ring_ || fd < 0) return false;
  if (fd >= static_cast<int>(files_.size())) files_.resize(fd + 1024);
  File& f = files_[fd];
  f.stream = true;
  f.sproc = proc;
  f.sdata = data;
  f.want_recv = true;
  f.recv_live = f.cancelling = false;
  ArmRecv(fd);
  return true;
}

void EventLoop::DelStream(int fd) {
  if (!ring_ || fd < 0 || fd >= static_cast<int>(files_.size())) return;
  File& f = files_[fd];
  if (!f.stream) return;
  CancelRecv(fd);
  // The sends queued for fd go out now, before its owner closes it (and its number is reused),
  // and the cancel with them; a kernel that refuses them now gets them as no-ops later.
  if (ring_->Submit() < 0) ring_->Neutralize(fd);
  f.stream = f.want_recv = f.recv_live = f.cancelling = false;
  f.sproc = nullptr;
  f.sdata = nullptr;
  f.gen++;
}

void EventLoop::PauseStream(int fd) {
  if (!ring_ || fd < 0 || fd >= static_cast<int>(files_.size()) || !files_[fd].stream) return;
  files_[fd].want_recv = false;
  CancelRecv(fd);
}

void EventLoop::ResumeStream(int fd) {
  if (!ring_ || fd < 0 || fd >= static_cast<int>(files_.size())) return;
  File& f = files_[fd];
  if (!f.stream || f.want_recv) return;
  f.want_recv = true;
  if (!f.recv_live) ArmRecv(fd);  // else the cancelled one's end arms it again
}

void EventLoop::QueueSend(int fd, const char* bytes, size_t n) {
  io_uring_sqe* s = ring_->Sqe();
  s->opcode = IORING_OP_SEND;
  s->fd = fd;
  s->addr = reinterpret_cast<uint64_t>(bytes);
  s->len = static_cast<uint32_t>(n);
  // Never armed for later: the send happens while the entry is submitted, or fails -EAGAIN.
  s->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
  s->user_data = Tag(kTagSend, files_[fd].gen, fd);
}

void EventLoop::SubmitQueued() {
  if (ring_) ring_->Submit();
}

int EventLoop::PollEpoll(::epoll_event* events, int max) {
  epoll_polled_ = true;
  int n = epoll_wait(epfd_, events, max, 0);
  epoll_busy_ = n > 0;
  for (int i = 0; i < n; i++) Dispatch(events[i].data.fd, events[i].events);
  return n > 0 ? n : 0;
}

EventLoop::File* EventLoop::LiveStream(int fd, uint32_t gen) {
  if (fd < 0 || fd >= static_cast<int>(files_.size())) return nullptr;
  File& f = files_[fd];
  return f.stream && (f.gen & kGenMask) == gen ? &f : nullptr;
}

int EventLoop::ProcessCompletions(::epoll_event* events, int max) {
  int handled = 0;
  // A handler may run a command that serves events itself (a load): each completion is taken
  // off the ring before its handler runs, and the count is read again after.
  while (ring_->Ready() > 0) {
    const io_uring_cqe* cqe = ring_->Cqe(0);
    uint64_t ud = cqe->user_data;
    int32_t res = cqe->res;
    uint32_t flags = cqe->flags;
    ring_->Advance(1);
    handled++;
    uint64_t kind = ud >> 56;
    uint32_t gen = static_cast<uint32_t>(ud >> 32) & kGenMask;
    int fd = static_cast<int>(static_cast<uint32_t>(ud));
    bool more = flags & IORING_CQE_F_MORE;
    if (kind == kTagEpoll) {
      if (!more) epoll_armed_ = false;
      PollEpoll(events, max);
      if (!epoll_armed_) ArmEpollPoll();
      continue;
    }
    bool has_buf = flags & IORING_CQE_F_BUFFER;
    unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
    File* f = LiveStream(fd, gen);
    if (kind == kTagSend) {
      if (f) f->sproc(fd, f->sdata, kStreamSent, nullptr, res);
      continue;
    }
    if (kind != kTagRecv) continue;
    if (!f) {
      if (has_buf) ring_->ReturnBuffer(bid);
      continue;
    }
    if (!more) f->recv_live = f->cancelling = false;
    bool ended = false;
    if (res > 0 && has_buf) {
      f->sproc(fd, f->sdata, kStreamInput, ring_->Buffer(bid), res);
      ring_->ReturnBuffer(bid);
    } else if (res == 0 || (res < 0 && res != -ENOBUFS && res != -ECANCELED && res != -EAGAIN &&
                            res != -EINTR)) {
      if (has_buf) ring_->ReturnBuffer(bid);
      ended = true;
      f->sproc(fd, f->sdata, kStreamEnd, nullptr, res);
    } else if (has_buf) {
      ring_->ReturnBuffer(bid);
    }
    // The handler may have paused, deleted, or closed and reused the stream.
    if (ended) continue;
    File* g = LiveStream(fd, gen);
    if (g && g->want_recv && !g->recv_live) ArmRecv(fd);
  }
  return handled;
}

}  // namespace net
