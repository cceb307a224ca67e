// Circular backlog buffer.
#include "repl/backlog.h"

#include <algorithm>
#include <cstring>

namespace repl {

void Backlog::Append(std::string_view data, int64_t end_offset) {
  size_t n = data.size();
  const char* p = data.data();
  if (n >= size_) {  // keep only the tail
    p += n - size_;
    n = size_;
  }
  while (n > 0) {
    size_t room = size_ - idx_;
    size_t chunk = std::min(room, n);
    memcpy(buf_.get() + idx_, p, chunk);
    idx_ = (idx_ + chunk) % size_;
    p += chunk;
    n -= chunk;
    histlen_ = std::min(size_, histlen_ + chunk);
  }
  first_offset_ = end_offset - static_cast<int64_t>(histlen_) + 1;
}

bool Backlog::ReadFrom(int64_t from, int64_t end_offset, std::string* out) const {
  if (from < first_offset_ || from > end_offset + 1) return false;
  size_t want = static_cast<size_t>(end_offset + 1 - from);
  out->clear();
  out->reserve(want);
  // The byte at end_offset sits just before idx_.
  size_t start = (idx_ + size_ - want) % size_;
  size_t first = std::min(want, size_ - start);
  out->append(buf_.get() + start, first);
  out->append(buf_.get(), want - first);
  return true;
}

void Backlog::Resize(size_t size, int64_t end_offset) {
  std::string keep;
  size_t n = std::min(histlen_, size);
  ReadFrom(end_offset - static_cast<int64_t>(n) + 1, end_offset, &keep);
  buf_.reset(new char[size]);
  size_ = size;
  idx_ = histlen_ = 0;
  Append(keep, end_offset);
}

}  // namespace repl
