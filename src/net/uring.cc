// The io_uring system calls by number, and the rings' shared-memory protocol (see uring.h).
#include "net/uring.h"

#include <linux/io_uring.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace net {

namespace {
template <typename T>
T* At(void* base, unsigned off) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + off);
}
unsigned LoadAcquire(const unsigned* p) {
  return std::atomic_ref<const unsigned>(*p).load(std::memory_order_acquire);
}
void StoreRelease(unsigned* p, unsigned v) {
  std::atomic_ref<unsigned>(*p).store(v, std::memory_order_release);
}
}  // namespace

Uring::~Uring() {
  if (fd_ >= 0) close(fd_);
  if (sq_map_) munmap(sq_map_, sq_map_len_);
  if (sqes_) munmap(sqes_, sqes_len_);
  if (br_) munmap(br_, kBufCount * sizeof(io_uring_buf));
  if (bufs_) munmap(bufs_, static_cast<size_t>(kBufCount) * kBufSize);
}

bool Uring::Init(unsigned entries) {
  io_uring_params p;
  memset(&p, 0, sizeof(p));
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE |
            IORING_SETUP_SUBMIT_ALL;
  p.cq_entries = entries * 4;
  int fd = static_cast<int>(syscall(__NR_io_uring_setup, entries, &p));
  if (fd < 0) return false;
  auto fail = [&] {
    int e = errno;
    close(fd);
    errno = e;
    return false;
  };
  if (!(p.features & IORING_FEAT_SINGLE_MMAP) || !(p.features & IORING_FEAT_NODROP) ||
      !(p.features & IORING_FEAT_EXT_ARG)) {
    errno = EOPNOTSUPP;
    return fail();
  }
  size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  size_t len = sq_len > cq_len ? sq_len : cq_len;
  void* ring =
      mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
  if (ring == MAP_FAILED) return fail();
  size_t sqes_len = p.sq_entries * sizeof(io_uring_sqe);
  void* sqes = mmap(nullptr, sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                    IORING_OFF_SQES);
  if (sqes == MAP_FAILED) {
    munmap(ring, len);
    return fail();
  }
  size_t br_len = kBufCount * sizeof(io_uring_buf);
  void* br = mmap(nullptr, br_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* bufs = mmap(nullptr, static_cast<size_t>(kBufCount) * kBufSize, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (br == MAP_FAILED || bufs == MAP_FAILED) {
    munmap(ring, len);
    munmap(sqes, sqes_len);
    if (br != MAP_FAILED) munmap(br, br_len);
    if (bufs != MAP_FAILED) munmap(bufs, static_cast<size_t>(kBufCount) * kBufSize);
    return fail();
  }
  io_uring_buf_reg reg;
  memset(&reg, 0, sizeof(reg));
  reg.ring_addr = reinterpret_cast<uint64_t>(br);
  reg.ring_entries = kBufCount;
  reg.bgid = kBufGroup;
  if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_PBUF_RING, &reg, 1) != 0) {
    int e = errno;
    munmap(ring, len);
    munmap(sqes, sqes_len);
    munmap(br, br_len);
    munmap(bufs, static_cast<size_t>(kBufCount) * kBufSize);
    close(fd);
    errno = e;
    return false;
  }
  fd_ = fd;
  sq_map_ = ring;
  sq_map_len_ = len;
  sqes_ = static_cast<io_uring_sqe*>(sqes);
  sqes_len_ = sqes_len;
  sq_head_ = At<unsigned>(ring, p.sq_off.head);
  sq_tail_ = At<unsigned>(ring, p.sq_off.tail);
  sq_array_ = At<unsigned>(ring, p.sq_off.array);
  sq_mask_ = *At<unsigned>(ring, p.sq_off.ring_mask);
  sq_entries_ = p.sq_entries;
  cq_head_ = At<unsigned>(ring, p.cq_off.head);
  cq_tail_ = At<unsigned>(ring, p.cq_off.tail);
  cq_mask_ = *At<unsigned>(ring, p.cq_off.ring_mask);
  cqes_ = At<io_uring_cqe>(ring, p.cq_off.cqes);
  br_ = static_cast<io_uring_buf_ring*>(br);
  bufs_ = static_cast<char*>(bufs);
  for (unsigned i = 0; i < kBufCount; i++) ReturnBuffer(i);
  return true;
}

int Uring::Enter(unsigned to_submit, unsigned min_complete, unsigned flags, const void* arg,
                 size_t argsz) {
  long r = syscall(__NR_io_uring_enter, fd_, to_submit, min_complete, flags, arg, argsz);
  return r < 0 ? -errno : static_cast<int>(r);
}

io_uring_sqe* Uring::Sqe() {
  // A full ring is submitted first. While the kernel refuses (short of memory, or completions
  // overflowed), its deferred work is run, which flushes them, and it is asked again: an
  // entry still queued is never overwritten. (The tail is published before the caller fills
  // the entry: without a kernel polling thread the kernel reads entries only in our calls.)
  while (queued_ == sq_entries_)
    if (Submit() < 0) Enter(0, 0, IORING_ENTER_GETEVENTS, nullptr, 0);
  unsigned tail = *sq_tail_;
  unsigned idx = tail & sq_mask_;
  io_uring_sqe* s = &sqes_[idx];
  memset(s, 0, sizeof(*s));
  sq_array_[idx] = idx;
  StoreRelease(sq_tail_, tail + 1);
  queued_++;
  return s;
}

int Uring::Submit() {
  int tries = 0;
  while (queued_ > 0) {
    int r = Enter(queued_, 0, 0, nullptr, 0);
    if (r < 0) {
      if ((r == -EINTR || r == -EAGAIN || r == -EBUSY) && ++tries < 8) continue;
      return r;  // what is left stays queued (see Neutralize)
    }
    queued_ -= static_cast<unsigned>(r) > queued_ ? queued_ : static_cast<unsigned>(r);
  }
  return 0;
}

int Uring::SubmitAndWait(int timeout_ms) {
  io_uring_getevents_arg arg;
  memset(&arg, 0, sizeof(arg));
  __kernel_timespec ts;
  ts.tv_sec = timeout_ms > 0 ? timeout_ms / 1000 : 0;
  ts.tv_nsec = timeout_ms > 0 ? (timeout_ms % 1000) * 1000000L : 0;
  arg.sigmask_sz = _NSIG / 8;
  if (timeout_ms >= 0) arg.ts = reinterpret_cast<uint64_t>(&ts);
  unsigned to_submit = queued_;
  // The sends among the queued entries are issued before the wait starts, so their bytes are
  // in the kernel when this returns (the loop relies on it: see EventLoop::QueueSend). Their
  // own completions are posted then too: the wait is for one more, or it would end at once
  // and every pass that sent would take a second call to sleep.
  unsigned want = timeout_ms == 0 ? 0 : 1 + PostedOnSubmit();
  int r = Enter(to_submit, want, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
  if (r >= 0) {
    queued_ -= static_cast<unsigned>(r) > queued_ ? queued_ : static_cast<unsigned>(r);
    if (queued_ > 0) return Submit();
    return 0;
  }
  // A wait cut by a signal or the timeout still consumed the submissions.
  queued_ = *sq_tail_ - LoadAcquire(sq_head_);  // entries the kernel has not taken yet
  if (queued_ > 0) Submit();
  return r;
}

unsigned Uring::PostedOnSubmit() const {
  // Counted low rather than high: one too many would hold the wait until another completion
  // or the timeout. A send never armed for later (MSG_DONTWAIT: it sends or fails -EAGAIN
  // while submitted) and a no-op complete at once; a receive or a poll may not.
  unsigned n = 0;
  for (unsigned t = LoadAcquire(sq_head_); t != *sq_tail_; t++) {
    const io_uring_sqe* s = &sqes_[sq_array_[t & sq_mask_]];
    if ((s->opcode == IORING_OP_SEND && (s->msg_flags & MSG_DONTWAIT)) ||
        s->opcode == IORING_OP_NOP)
      n++;
  }
  return n;
}

void Uring::Neutralize(int fd) {
  for (unsigned t = LoadAcquire(sq_head_); t != *sq_tail_; t++) {
    io_uring_sqe* s = &sqes_[sq_array_[t & sq_mask_]];
    if (s->fd == fd && s->opcode != IORING_OP_NOP) {
      uint64_t ud = s->user_data;
      memset(s, 0, sizeof(*s));
      s->opcode = IORING_OP_NOP;
      s->user_data = ud;  // its completion is dropped like any of a deleted stream
    }
  }
}

unsigned Uring::Ready() const { return LoadAcquire(cq_tail_) - *cq_head_; }

const io_uring_cqe* Uring::Cqe(unsigned i) const { return &cqes_[(*cq_head_ + i) & cq_mask_]; }

void Uring::Advance(unsigned n) { StoreRelease(cq_head_, *cq_head_ + n); }

void Uring::ReturnBuffer(unsigned id) {
  // The ring is an array of io_uring_buf whose first `resv` is the tail. Not through the
  // header's struct: its flexible array sits 8 bytes in when compiled as C++.
  io_uring_buf* ring = reinterpret_cast<io_uring_buf*>(br_);
  io_uring_buf* b = &ring[br_tail_ & (kBufCount - 1)];
  b->addr = reinterpret_cast<uint64_t>(Buffer(id));
  b->len = kBufSize;
  b->bid = static_cast<uint16_t>(id);
  br_tail_++;
  std::atomic_ref<uint16_t>(ring[0].resv).store(br_tail_, std::memory_order_release);
}

}  // namespace net
