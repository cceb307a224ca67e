// A raw io_uring (no liburing: the product links libc alone): the rings, submission, a wait
// with a timeout, and a ring of provided receive buffers. The event loop (event_loop.h) drives
// it; nothing else touches it.
//
// Why: on a host where each system call is expensive (page-table isolation without PCID costs
// about 1 us a call on the 2-core VM this node is benchmarked on), a request at -P1 cost three
// calls (epoll_wait, read, write). With a multishot receive into provided buffers and the
// replies' sends submitted with the wait, it costs one io_uring_enter per loop pass.
#pragma once
#include <cstddef>
#include <cstdint>

struct io_uring_sqe;
struct io_uring_cqe;
struct io_uring_buf_ring;

namespace net {

class Uring {
 public:
  static constexpr unsigned kBufCount = 128;       // provided receive buffers (2 MB)
  static constexpr unsigned kBufSize = 16 * 1024;  // each, as Valkey 8's read size
  static constexpr uint16_t kBufGroup = 0;

  ~Uring();
  // Sets the ring up with the features the loop needs (single issuer, deferred task work,
  // provided-buffer rings: Linux 6.1). False, with errno, where the kernel lacks them or a
  // sandbox forbids io_uring: the loop then keeps epoll alone.
  bool Init(unsigned entries);
  bool ok() const { return fd_ >= 0; }

  // A zeroed submission entry; submits what is queued first when the ring is full.
  io_uring_sqe* Sqe();
  unsigned Queued() const { return queued_; }
  // Submits everything queued (returns once the kernel consumed all of it). -errno when the
  // kernel keeps refusing: what is left stays queued for the next call.
  int Submit();
  // Turns the entries still queued for fd into no-ops: after a failed Submit, nothing may
  // reach a socket whose number is about to be closed and reused.
  void Neutralize(int fd);
  // Submits what is queued and waits until a completion is ready, besides those of the queued
  // sends, or timeout_ms passed (-1: no limit, 0: no wait). Returns 0, or -errno (-ETIME,
  // -EINTR).
  int SubmitAndWait(int timeout_ms);

  // Completions ready now, oldest first; Advance(n) after handling n of them.
  unsigned Ready() const;
  const io_uring_cqe* Cqe(unsigned i) const;
  void Advance(unsigned n);

  // A provided buffer's bytes, and its return to the kernel once they are copied out.
  const char* Buffer(unsigned id) const { return bufs_ + static_cast<size_t>(id) * kBufSize; }
  void ReturnBuffer(unsigned id);

 private:
  // Queued entries whose completions the kernel posts while it submits them.
  unsigned PostedOnSubmit() const;
  int Enter(unsigned to_submit, unsigned min_complete, unsigned flags, const void* arg,
            size_t argsz);
  int fd_ = -1;
  void* sq_map_ = nullptr;
  size_t sq_map_len_ = 0;
  io_uring_sqe* sqes_ = nullptr;
  size_t sqes_len_ = 0;
  unsigned *sq_head_ = nullptr, *sq_tail_ = nullptr, *sq_array_ = nullptr;
  unsigned *cq_head_ = nullptr, *cq_tail_ = nullptr;
  unsigned sq_mask_ = 0, cq_mask_ = 0, sq_entries_ = 0;
  io_uring_cqe* cqes_ = nullptr;
  unsigned queued_ = 0;
  io_uring_buf_ring* br_ = nullptr;
  char* bufs_ = nullptr;
  uint16_t br_tail_ = 0;
};

}  // namespace net
