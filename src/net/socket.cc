// Socket calls in one place (see socket.h).
#include "net/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/time.h"
#include "net/event_loop.h"

namespace net {

int ListenTcp(const std::string& addr, int port, int backlog, bool* unavailable, std::string* err) {
  *unavailable = false;
  bool v6 = addr.find(':') != std::string::npos;
  sockaddr_storage ss = {};
  socklen_t len;
  if (v6) {
    auto* s = reinterpret_cast<sockaddr_in6*>(&ss);
    s->sin6_family = AF_INET6;
    s->sin6_port = htons(static_cast<uint16_t>(port));
    if (addr == "::*") {
      s->sin6_addr = in6addr_any;
    } else if (inet_pton(AF_INET6, addr.c_str(), &s->sin6_addr) != 1) {
      *err = "Invalid bind address '" + addr + "'";
      return -1;
    }
    len = sizeof(*s);
  } else {
    auto* s = reinterpret_cast<sockaddr_in*>(&ss);
    s->sin_family = AF_INET;
    s->sin_port = htons(static_cast<uint16_t>(port));
    if (addr == "*" || addr == "0.0.0.0") {
      s->sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET, addr.c_str(), &s->sin_addr) != 1) {
      *err = "Invalid bind address '" + addr + "'";
      return -1;
    }
    len = sizeof(*s);
  }
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *unavailable = errno == EAFNOSUPPORT;
    *err = strerror(errno);
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) == -1 || listen(fd, backlog) == -1) {
    *unavailable = errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT;
    *err = strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

int ListenUnix(const std::string& path, int backlog, std::string* err) {
  sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) {
    *err = "unixsocket path too long";
    return -1;
  }
  memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == -1 ||
      listen(fd, backlog) == -1) {
    *err = strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

int Accept(int listen_fd, sockaddr_storage* peer) {
  socklen_t len = sizeof(*peer);
  return accept4(listen_fd, reinterpret_cast<sockaddr*>(peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

namespace {
// Binds fd to the source address (of the target's family) before it connects; false when it
// cannot (not an address of this host, another family).
bool BindSource(int fd, int family, const std::string& source) {
  addrinfo hints = {}, *res = nullptr;
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (getaddrinfo(source.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
  int r = bind(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  return r == 0;
}
}  // namespace

int ConnectTcp(const std::string& host, int port, std::string* err, const std::string& source) {
  addrinfo hints = {}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0 || !res) {
    *err = rc ? gai_strerror(rc) : "no address";
    return -1;
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  // Best effort, as Valkey 8's anetTcpNonBlockBestEffortBindConnect: a source it cannot bind
  // leaves the choice to the kernel.
  if (fd >= 0 && !source.empty()) BindSource(fd, res->ai_family, source);
  int r = fd < 0 ? -1 : connect(fd, res->ai_addr, res->ai_addrlen);
  int saved = errno;
  freeaddrinfo(res);
  if (fd < 0 || (r < 0 && saved != EINPROGRESS)) {
    *err = strerror(saved);
    if (fd >= 0) close(fd);
    return -1;
  }
  TuneTcp(fd, 0);
  return fd;
}

int ConnectError(int fd) {
  int e = 0;
  socklen_t len = sizeof(e);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1) return errno;
  return e;
}

bool WaitFd(int fd, int mask, int64_t timeout_ms) {
  pollfd p = {};
  p.fd = fd;
  p.events =
      static_cast<short>(((mask & kReadable) ? POLLIN : 0) | ((mask & kWritable) ? POLLOUT : 0));
  int64_t deadline = base::MonotonicUs() / 1000 + timeout_ms;
  for (;;) {
    int64_t left = deadline - base::MonotonicUs() / 1000;
    if (left <= 0) return false;
    int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, INT32_MAX)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

void TuneTcp(int fd, int keepalive_secs) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (keepalive_secs <= 0) return;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  int idle = keepalive_secs;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  int intvl = std::max(1, idle / 3);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
  int cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

std::string FormatAddr(const sockaddr_storage& sa) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (sa.ss_family == AF_INET) {
    auto* s = reinterpret_cast<const sockaddr_in*>(&sa);
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (sa.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<const sockaddr_in6*>(&sa);
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin6_port));
  }
  return "";
}

std::string LocalAddr(int fd) {
  sockaddr_storage sa;
  socklen_t len = sizeof(sa);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return "";
  return FormatAddr(sa);
}

bool IsLoopback(const sockaddr_storage& sa) {
  if (sa.ss_family == AF_INET) {
    auto* s = reinterpret_cast<const sockaddr_in*>(&sa);
    return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<const sockaddr_in6*>(&sa);
    if (IN6_IS_ADDR_LOOPBACK(&s->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) return s->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

bool ParseIp(const std::string& ip, sockaddr_storage* out) {
  *out = {};
  auto* v4 = reinterpret_cast<sockaddr_in*>(out);
  if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(out);
  if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    return true;
  }
  return false;
}

std::string FormatIp(const sockaddr_storage& sa) {
  std::string a = FormatAddr(sa);
  size_t colon = a.rfind(':');
  return colon == std::string::npos ? a : a.substr(0, colon);
}

}  // namespace net
