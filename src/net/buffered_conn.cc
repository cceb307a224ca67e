// Reads and writes of a buffered non-blocking socket (see buffered_conn.h).
#include "net/buffered_conn.h"

#include <malloc.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace net {

namespace {
// One write call, retried on EINTR only: the bytes taken, kAgain when the socket is full.
template <typename Call>
IoResult WriteCall(Call call) {
  IoResult r;
  while (true) {
    ssize_t n = call();
    if (n > 0) {
      r.bytes = static_cast<size_t>(n);
      return r;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      r.status = IoResult::kAgain;
      return r;
    }
    r.status = IoResult::kError;
    r.err = n < 0 ? errno : EPIPE;  // a write of a non-empty buffer returning 0: give up
    return r;
  }
}
}  // namespace

IoResult WriteOnce(int fd, const char* data, size_t len) {
  return WriteCall([&] { return write(fd, data, len); });
}

IoResult WritevOnce(int fd, const iovec* iov, int n) {
  return WriteCall([&] { return writev(fd, iov, n); });
}

IoResult BufferedConn::Read(size_t max) {
  static std::vector<char> scratch;
  if (scratch.size() < max) scratch.resize(max);
  IoResult r;
  while (true) {
    ssize_t n = read(fd, scratch.data(), max);
    if (n > 0) {
      in.append(scratch.data(), static_cast<size_t>(n));
      r.bytes = static_cast<size_t>(n);
      return r;
    }
    if (n == 0) {
      r.status = IoResult::kClosed;
      return r;
    }
    if (errno == EINTR) continue;
    r.status = errno == EAGAIN ? IoResult::kAgain : IoResult::kError;
    r.err = errno;
    return r;
  }
}

size_t BufferedConn::OutputHeapBytes() const {
  // A string's buffer is on the heap past its inline capacity (15 in libstdc++).
  auto heap = [](const std::string& s) {
    return s.capacity() > 15 ? malloc_usable_size(const_cast<char*>(s.data())) : 0;
  };
  size_t n = heap(out) + heap(inflight);
  for (const std::string& b : sealed) n += heap(b);
  return n;
}

void BufferedConn::Seal() {
  size_t at = out_sent;
  while (at < out.size()) {
    if (sealed.empty() || sealed.back().size() == kSealBlock) {
      sealed.emplace_back();
      sealed.back().reserve(kSealBlock);
    }
    std::string& b = sealed.back();
    size_t n = std::min(kSealBlock - b.size(), out.size() - at);
    b.append(out, at, n);
    at += n;
    sealed_bytes += n;
  }
  if (out.capacity() > kKeepOutCapacity)
    std::string().swap(out);
  else
    out.clear();
  out_sent = 0;
}

IoResult BufferedConn::Write(size_t upto, size_t max_bytes) {
  IoResult r;
  if (InFlight()) return r;  // its bytes are older than any here: after its completion
  // Sealed blocks first: they are older than anything in `out`.
  while (!sealed.empty() && r.bytes < max_bytes) {
    std::string& b = sealed.front();
    size_t len = std::min(b.size() - sealed_sent, max_bytes - r.bytes);
    IoResult w = WriteOnce(fd, b.data() + sealed_sent, len);
    if (w.status != IoResult::kOk) {
      w.bytes = r.bytes;
      return w;
    }
    sealed_sent += w.bytes;
    r.bytes += w.bytes;
    if (sealed_sent == b.size()) {
      sealed_bytes -= b.size();
      sealed_sent = 0;
      sealed.pop_front();
    }
  }
  if (!sealed.empty()) return r;
  size_t end = std::min(upto, out.size());
  while (out_sent < end && r.bytes < max_bytes) {
    size_t len = std::min(end - out_sent, max_bytes - r.bytes);
    IoResult w = WriteOnce(fd, out.data() + out_sent, len);
    if (w.status != IoResult::kOk) {
      w.bytes = r.bytes;
      return w;
    }
    out_sent += w.bytes;
    r.bytes += w.bytes;
  }
  if (upto == SIZE_MAX && out_sent == out.size()) {
    if (out.capacity() > kKeepOutCapacity)
      std::string().swap(out);
    else
      out.clear();
    out_sent = 0;
  }
  return r;
}

IoResult BufferedConn::Send(std::string_view bytes) {
  IoResult r;
  if (bytes.empty()) return r;
  size_t done = 0;
  if (!Pending()) {
    r = WriteOnce(fd, bytes.data(), bytes.size());
    if (r.Failed()) return r;
    done = r.status == IoResult::kOk ? r.bytes : 0;
    r.status = IoResult::kOk;
  }
  if (done < bytes.size()) out.append(bytes.data() + done, bytes.size() - done);
  return r;
}

bool BufferedConn::BeginQueuedSend() {
  if (InFlight() || !sealed.empty() || out_sent != 0 || out.empty() || out.size() > kMaxQueuedSend)
    return false;
  inflight.swap(out);  // `out` takes the emptied buffer of the last send
  return true;
}

void BufferedConn::EndQueuedSend(size_t sent) {
  if (sent < inflight.size()) {
    // No Write ran meanwhile (it waits for the send), so a sealed front block is whole.
    if (!sealed.empty()) {
      sealed.emplace_front(inflight, sent);
      sealed_bytes += inflight.size() - sent;
    } else {
      CompactOut();
      out.insert(0, inflight, sent);
    }
  }
  inflight.clear();
  // As Write keeps `out`'s buffer: up to kKeepOutCapacity each.
  if (out.empty() && out.capacity() > kKeepOutCapacity) std::string().swap(out);
  if (inflight.capacity() > kKeepOutCapacity) std::string().swap(inflight);
}

void BufferedConn::CompactOut() {
  if (!out_sent) return;
  out.erase(0, out_sent);
  out_sent = 0;
}

void BufferedConn::CompactIn() {
  if (!in_pos) return;
  in.erase(0, in_pos);
  in_pos = 0;
}

void BufferedConn::Clear() {
  std::string().swap(in);
  std::string().swap(out);
  std::string().swap(inflight);
  in_pos = out_sent = 0;
  sealed.clear();
  sealed_bytes = sealed_sent = 0;
}

}  // namespace net
