// A file mapped read-only for the check tools: a snapshot or AOF of any size is read in place.
#pragma once
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tools {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  }
  // False with errno set when the file cannot be opened, read or mapped. An empty file maps to
  // no bytes.
  bool Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
      int e = errno;
      close(fd);
      errno = e;
      return false;
    }
    size_ = static_cast<size_t>(sb.st_size);
    void* m = size_ ? mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
      errno = e;
      size_ = 0;
      return false;
    }
    data_ = static_cast<const uint8_t*>(m);
    return true;
  }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tools
