// Replication backlog: the last N bytes of the replication stream, addressed by stream offset,
// so a replica that lost its link can continue from where it stopped (partial resync).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace repl {

class Backlog {
 public:
  // The buffer is not cleared: its pages are touched only as the stream fills it (clearing 10
  // MB when the first replica attached stalled the loop 36 ms on a VM whose page faults are
  // slow).
  explicit Backlog(size_t size) : buf_(new char[size]), size_(size) {}
  size_t size() const { return size_; }
  // Offset of the first byte held (1-based like the stream offsets), and how many bytes.
  int64_t first_offset() const { return first_offset_; }
  size_t histlen() const { return histlen_; }
  // Appends stream bytes; end_offset is the stream offset of the last byte after appending.
  void Append(std::string_view data, int64_t end_offset);
  // True when bytes from `from` (first wanted byte) to the end are held; copies them.
  bool ReadFrom(int64_t from, int64_t end_offset, std::string* out) const;
  void Resize(size_t size, int64_t end_offset);

 private:
  std::unique_ptr<char[]> buf_;
  size_t size_;
  size_t idx_ = 0;  // where the next byte goes
  size_t histlen_ = 0;
  int64_t first_offset_ = 1;
};

}  // namespace repl
