// The replication buffer: the recent bytes of the replication stream, held once for the
// backlog and for every replica (as Valkey 7+'s shared replication buffer). A chain of
// blocks addressed by stream offset; each replica reads from its own place in it, the backlog
// is the chain itself. The oldest blocks go once more than the backlog's size is held and no
// replica still reads them: a replica that falls behind keeps its bytes in the chain (the
// backlog outgrows its size for as long, so a replica that drops meanwhile still continues by
// PSYNC), and N replicas cost one copy of the stream, not N.
#pragma once
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string_view>

namespace repl {

class ReplBuffer {
 public:
  // A reader's place: the block's sequence number and the byte in it.
  struct Pos {
    uint64_t block = 0;
    size_t at = 0;
  };

  // `limit`: the backlog's size (repl-backlog-size); `end_offset`: the stream offset of the
  // last byte already in the stream (the next byte appended is end_offset + 1).
  ReplBuffer(size_t limit, int64_t end_offset);
  ~ReplBuffer();
  ReplBuffer(const ReplBuffer&) = delete;
  ReplBuffer& operator=(const ReplBuffer&) = delete;

  // Returns whether it took a new block.
  bool Append(std::string_view data);
  int64_t end_offset() const { return end_offset_; }
  // First byte held, and how many (repl_backlog_first_byte_offset, repl_backlog_histlen).
  int64_t first_offset() const { return end_offset_ - static_cast<int64_t>(histlen_) + 1; }
  size_t histlen() const { return histlen_; }
  // What the blocks take from the allocator (mem_total_replication_buffers).
  size_t allocated() const { return allocated_; }
  size_t limit() const { return limit_; }
  size_t blocks() const { return blocks_.size(); }
  // The backlog's size changed (CONFIG SET repl-backlog-size): later appends and trims use it.
  void SetLimit(size_t limit) { limit_ = limit; }

  // Where the next appended byte will be: a reader placed here gets everything from now on.
  Pos EndPos() const;
  // The place of stream offset `from` (the first byte wanted); false when it is not held (it
  // may be end_offset() + 1: nothing to send yet).
  bool PosOf(int64_t from, Pos* p) const;
  // The stream offset of the byte at p (end_offset() + 1 when p is at the end).
  int64_t OffsetOf(Pos p) const;
  // Bytes from p to the end.
  size_t PendingFrom(Pos p) const { return static_cast<size_t>(end_offset_ + 1 - OffsetOf(p)); }
  // The bytes from p on as spans (at most max_iov, about max_bytes); how many spans.
  size_t Gather(Pos p, iovec* iov, size_t max_iov, size_t max_bytes) const;
  // p moved n bytes forward (n at most PendingFrom(p)).
  Pos Advance(Pos p, size_t n) const;
  // The memory a reader at p holds: its block and every later one, whole, as Valkey 8 counts a
  // replica's output buffer (its client-output-buffer-limit applies to it), and how many blocks.
  size_t HeldFrom(Pos p, size_t* nblocks = nullptr) const;

  // Frees the oldest blocks while more than the limit stays held without them and no reader
  // is on them, until about max_bytes are freed (at least one block): `oldest_reader` is the
  // lowest block a reader is on (UINT64_MAX: no reader). Returns how many blocks it freed.
  size_t Trim(uint64_t oldest_reader, size_t max_bytes);

  // A block is at least this big, so that small writes share one, and at most the larger of
  // this and a 16th of the limit, so that a big write is cut into blocks the trim can free one
  // by one (as Valkey 8 sizes its blocks).
  static constexpr size_t kMinBlock = 16 * 1024;

 private:
  struct Block {
    int64_t first_offset;  // stream offset of data[0]
    size_t used, size;
    char data[];
  };
  Block* NewBlock(size_t want);
  const Block* At(uint64_t id) const { return blocks_[static_cast<size_t>(id - front_id_)]; }

  std::deque<Block*> blocks_;
  uint64_t front_id_ = 0;  // sequence number of blocks_.front()
  size_t limit_;
  int64_t end_offset_;
  size_t histlen_ = 0;
  size_t allocated_ = 0;
};

}  // namespace repl
