// epoll-based loop; timers are few (cron), so a vector scan is the right structure.
#include "net/event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "base/time.h"

namespace net {

EventLoop::EventLoop(int setsize) : files_(setsize) { epfd_ = epoll_create1(EPOLL_CLOEXEC); }

EventLoop::~EventLoop() {
  if (epfd_ >= 0) close(epfd_);
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
}

int EventLoop::FileMask(int fd) const {
  if (fd < 0 || fd >= static_cast<int>(files_.size())) return 0;
  return files_[fd].mask;
}

int EventLoop::AddTimer(int64_t period_ms, std::function<void()> fn) {
  int id = next_timer_id_++;
  timers_.push_back(Timer{id, period_ms, base::MonotonicUs() / 1000 + period_ms, std::move(fn)});
  return id;
}

void EventLoop::Run() {
  std::vector<struct epoll_event> events(1024);
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
    int n =
        epoll_wait(epfd_, events.data(), static_cast<int>(events.size()), static_cast<int>(wait));
    if (after_sleep_) after_sleep_();
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      uint32_t ev = events[i].events;
      if (fd >= static_cast<int>(files_.size())) continue;
      File& f = files_[fd];
      if ((f.mask & kReadable) && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        f.rproc(fd, f.rdata, kReadable);
      // The read handler may have closed and even reused fd: re-read the slot.
      File& g = files_[fd];
      if ((g.mask & kWritable) && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        g.wproc(fd, g.wdata, kWritable);
      }
    }
    if (n == -1 && errno != EINTR) break;
    now = base::MonotonicUs() / 1000;
    for (size_t i = 0; i < timers_.size(); i++) {
      if (timers_[i].next_ms <= now) {
        timers_[i].next_ms = now + timers_[i].period_ms;
        timers_[i].fn();
      }
    }
  }
}

}  // namespace net
