// A non-blocking socket with its two byte queues: what arrived and is not consumed yet (`in`,
// consumed up to `in_pos`) and what is queued and not written yet (`out`, written up to
// `out_sent`). The owner registers the fd with the event loop and decides when to read and
// write; these calls do the reads and writes and their bookkeeping, the same way for client
// connections, replica links, our link to a primary (handshake included) and the cluster bus.
#pragma once
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace net {

struct IoResult {
  enum Status { kOk, kAgain, kClosed, kError };
  Status status = kOk;
  size_t bytes = 0;  // moved by this call
  int err = 0;       // errno for kError
  bool Failed() const { return status == kClosed || status == kError; }
};

// One write(2) of len bytes (EINTR retried): kOk with the bytes written, kAgain when the
// socket takes nothing now, kError otherwise.
IoResult WriteOnce(int fd, const char* data, size_t len);
// One writev(2) of the spans (a replica's stream from the replication buffer's blocks).
IoResult WritevOnce(int fd, const iovec* iov, int n);

struct BufferedConn {
  int fd = -1;
  std::string in;
  size_t in_pos = 0;
  std::string out;
  size_t out_sent = 0;
  // Sealed output (Seal): blocks of kSealBlock bytes that go out before `out`, which then holds
  // only newer bytes. A slow reader's backlog lives here at its real size, where `out` alone
  // would hold up to twice its size in a doubled string capacity.
  // Bytes per block: a std::string of this capacity allocates one more (its NUL), exactly a
  // jemalloc size class (256 KB), so the blocks hold no slack.
  static constexpr size_t kSealBlock = 256 * 1024 - 1;
  // An emptied `out` keeps its buffer up to this size, as Valkey's 16 KB reply buffer; a
  // bigger one goes. Kept, each client that once got a big reply (or a burst of tracking
  // invalidations) held it for good, and with maxmemory the data set was evicted for it.
  static constexpr size_t kKeepOutCapacity = 16 * 1024;
  std::deque<std::string> sealed;
  size_t sealed_bytes = 0, sealed_sent = 0;  // bytes in `sealed`; written of its first block
  // A send queued on the event loop (EventLoop::QueueSend): `out`'s bytes moved here until it
  // completes, so that replies made meanwhile go to `out` and cannot move the bytes under way.
  std::string inflight;
  bool InFlight() const { return !inflight.empty(); }  // a queued send is never empty
  // Output above this goes by Write: a partial send puts its rest back in front (a copy).
  static constexpr size_t kMaxQueuedSend = 64 * 1024;

  // One read(2) of up to `max` bytes, appended to `in` (through a shared scratch buffer, so
  // that `in` is not zero-filled ahead of the data). kClosed on end of file.
  IoResult Read(size_t max);
  // Writes queued bytes until `out` is written up to `upto` (default: all), the socket is
  // full, or `max_bytes` went out in this call; nothing while a queued send is under way. When
  // all was asked for and written, `out` is emptied (a buffer above kKeepOutCapacity is freed);
  // with `upto`, offsets into `out` stay valid.
  IoResult Write(size_t upto = SIZE_MAX, size_t max_bytes = SIZE_MAX);
  // Queues bytes, writing them at once when nothing was pending (saves an event-loop pass);
  // kOk also when some are left queued. The caller asks for writability when Pending().
  IoResult Send(std::string_view bytes);
  bool Pending() const { return out_sent < out.size() || !sealed.empty() || InFlight(); }
  size_t PendingBytes() const {
    return out.size() - out_sent + sealed_bytes - sealed_sent + inflight.size();
  }
  // Moves all of the output into `inflight` for one queued send; false when it must go by
  // Write instead (a send under way, sealed blocks, a partly written or empty `out`, or more
  // than kMaxQueuedSend bytes).
  bool BeginQueuedSend();
  // The queued send wrote `sent` bytes: the rest goes back in front of newer output.
  void EndQueuedSend(size_t sent);
  // Moves the unwritten part of `out` into sealed blocks (owners that keep offsets into `out`,
  // replica links, never call it). Memory held: the bytes, not a doubled capacity.
  void Seal();
  size_t OutputAllocated() const {  // out's capacity plus the sealed blocks and a send's
    return out.capacity() + sealed.size() * (kSealBlock + 1) + inflight.capacity();
  }
  // What the output takes from the allocator (its size classes round a buffer up: 7.5 MB of
  // capacity is an 8 MB allocation): the figure eviction must leave out for a replica.
  size_t OutputHeapBytes() const;
  // Drops the consumed part of `in` / the written part of `out` (owners that keep offsets
  // into `out` call the latter only when theirs allow it).
  void CompactIn();
  void CompactOut();
  // Forgets the queues (the owner closes the fd).
  void Clear();
};

}  // namespace net
