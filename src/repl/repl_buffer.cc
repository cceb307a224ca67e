// The replication buffer's blocks (see repl_buffer.h).
#include "repl/repl_buffer.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace repl {

ReplBuffer::ReplBuffer(size_t limit, int64_t end_offset) : limit_(limit), end_offset_(end_offset) {}

ReplBuffer::~ReplBuffer() {
  for (Block* b : blocks_) free(b);
}

ReplBuffer::Block* ReplBuffer::NewBlock(size_t want) {
  void* p = malloc(std::max(want, sizeof(Block) + 1));  // the header inside: 16 KB is 16 KB
  if (!p) throw std::bad_alloc();
  size_t usable = malloc_usable_size(p);
  Block* b = static_cast<Block*>(p);
  b->first_offset = end_offset_ + 1;
  b->used = 0;
  b->size = usable - sizeof(Block);  // the allocator's rounding is room too
  allocated_ += usable;
  return b;
}

bool ReplBuffer::Append(std::string_view data) {
  bool added = false;
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    Block* tail = blocks_.empty() ? nullptr : blocks_.back();
    if (!tail || tail->used == tail->size) {
      size_t most = std::max(limit_ / 16, kMinBlock);
      tail = NewBlock(std::min(std::max(n, kMinBlock), most));
      blocks_.push_back(tail);
      added = true;
    }
    size_t chunk = std::min(n, tail->size - tail->used);
    memcpy(tail->data + tail->used, p, chunk);
    tail->used += chunk;
    p += chunk;
    n -= chunk;
    end_offset_ += static_cast<int64_t>(chunk);
    histlen_ += chunk;
  }
  return added;
}

ReplBuffer::Pos ReplBuffer::EndPos() const {
  uint64_t next = front_id_ + blocks_.size();
  if (blocks_.empty() || blocks_.back()->used == blocks_.back()->size) return {next, 0};
  return {next - 1, blocks_.back()->used};
}

bool ReplBuffer::PosOf(int64_t from, Pos* p) const {
  if (from < first_offset() || from > end_offset_ + 1) return false;
  if (from == end_offset_ + 1) {
    *p = EndPos();
    return true;
  }
  // The last block that starts at or before `from`.
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), from,
                             [](int64_t off, const Block* b) { return off < b->first_offset; });
  --it;
  *p = {front_id_ + static_cast<uint64_t>(it - blocks_.begin()),
        static_cast<size_t>(from - (*it)->first_offset)};
  return true;
}

int64_t ReplBuffer::OffsetOf(Pos p) const {
  if (p.block >= front_id_ + blocks_.size()) return end_offset_ + 1;
  return At(p.block)->first_offset + static_cast<int64_t>(p.at);
}

size_t ReplBuffer::Gather(Pos p, iovec* iov, size_t max_iov, size_t max_bytes) const {
  size_t n = 0, bytes = 0;
  uint64_t end = front_id_ + blocks_.size();
  for (uint64_t id = p.block; id < end && n < max_iov && bytes < max_bytes; id++) {
    const Block* b = At(id);
    size_t at = id == p.block ? p.at : 0;
    if (at == b->used) continue;
    iov[n].iov_base = const_cast<char*>(b->data + at);
    iov[n].iov_len = b->used - at;
    bytes += iov[n].iov_len;
    n++;
  }
  return n;
}

ReplBuffer::Pos ReplBuffer::Advance(Pos p, size_t n) const {
  uint64_t end = front_id_ + blocks_.size();
  while (p.block < end) {
    const Block* b = At(p.block);
    size_t avail = b->used - p.at;
    if (n < avail || (n == avail && b->used < b->size)) {
      p.at += n;  // inside the block, or at the end of the tail that still fills
      return p;
    }
    n -= avail;
    p = {p.block + 1, 0};  // a whole block read: the reader leaves it (it may be freed)
  }
  return p;
}

size_t ReplBuffer::HeldFrom(Pos p, size_t* nblocks) const {
  uint64_t end = front_id_ + blocks_.size();
  if (nblocks) *nblocks = p.block < end ? end - p.block : 0;
  if (p.block >= end) return 0;
  const Block* last = blocks_.back();
  return static_cast<size_t>(last->first_offset + static_cast<int64_t>(last->size) -
                             At(p.block)->first_offset);
}

size_t ReplBuffer::Trim(uint64_t oldest_reader, size_t max_bytes) {
  size_t freed = 0, bytes = 0;
  while ((freed == 0 || bytes < max_bytes) && blocks_.size() > 1 && front_id_ < oldest_reader) {
    Block* f = blocks_.front();
    if (histlen_ - f->used < limit_) break;  // the backlog keeps at least its size
    histlen_ -= f->used;
    size_t size = malloc_usable_size(f);
    allocated_ -= size;
    bytes += size;
    free(f);
    blocks_.pop_front();
    front_id_++;
    freed++;
  }
  return freed;
}

}  // namespace repl
