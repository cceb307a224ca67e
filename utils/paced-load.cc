// paced-load.cc -- an open-loop, paced request load with latency percentiles, for the
// benchmarks that ask "how long does a client wait at a moderate load" (utils/bench-migrate.sh's
// p99 row). redis-benchmark sends as fast as the server answers, so its latency grows with
// whatever else the server does even when the server has time to spare; here requests leave at
// a fixed rate whatever the replies do, and each latency counts from the moment its request was
// due (a stalled server does not hide the requests it delayed: no coordinated omission).
// Standalone: C++17, libc and the standard library only, raw sockets, RESP2.
//
//   g++ -O2 -std=c++17 -o /tmp/paced-load utils/paced-load.cc
//
//   paced-load --port P --rate R --seconds S [--clients 25] [--host 127.0.0.1]
//              [--key-prefix K] [--keys 100000] [--value-size 1] [--get] [--idle N]
//
// --idle N opens N more connections first, each PINGed once and then left idle (a server's
// idle clients); the caller raises the open-file limit for them.
//
// Request i is due at start + i/R and goes on connection i % clients: SET <K><n> <value> (or
// GET <K><n> with --get), n pseudo-random below --keys. Prints one line, times in ms:
//   sent=<n> answered=<n> errors=<e> rate=<answered/s> p50=<x> p99=<x> p999=<x> max=<x>
// Exit status: 0; 1 on a connection or protocol failure or when a reply is missing 5 s after
// the last request was due; 2 on a usage error.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "paced-load: %s: %s\n", what, errno ? std::strerror(errno) : "");
  std::exit(1);
}

struct Conn {
  int fd = -1;
  std::string in;             // bytes read, not yet parsed
  std::deque<int64_t> due;    // due times of the requests not yet answered, in order
};

// Length of the first complete RESP2 reply in s (0 if incomplete); *err set for an error reply.
// Replies here are simple strings, errors, integers and bulk strings.
size_t ReplyLen(const std::string& s, size_t from, bool* err) {
  if (from >= s.size()) return 0;
  size_t eol = s.find("\r\n", from);
  if (eol == std::string::npos) return 0;
  char t = s[from];
  *err = t == '-';
  if (t == '+' || t == '-' || t == ':') return eol + 2 - from;
  if (t == '$') {
    long n = std::strtol(s.c_str() + from + 1, nullptr, 10);
    if (n < 0) return eol + 2 - from;
    size_t end = eol + 2 + static_cast<size_t>(n) + 2;
    return end <= s.size() ? end - from : 0;
  }
  errno = 0;
  Die("unexpected reply type");
}

uint64_t Rand(uint64_t* x) {  // xorshift64
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", prefix = "key:";
  int port = 0, clients = 25, value_size = 1;
  double rate = 0, seconds = 0;
  uint64_t keys = 100000;
  long idle = 0;
  bool get = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "paced-load: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--port") port = std::atoi(val());
    else if (a == "--host") host = val();
    else if (a == "--rate") rate = std::atof(val());
    else if (a == "--seconds") seconds = std::atof(val());
    else if (a == "--clients") clients = std::atoi(val());
    else if (a == "--key-prefix") prefix = val();
    else if (a == "--keys") keys = std::strtoull(val(), nullptr, 10);
    else if (a == "--value-size") value_size = std::atoi(val());
    else if (a == "--get") get = true;
    else if (a == "--idle") idle = std::atol(val());
    else {
      std::fprintf(stderr, "paced-load: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (port <= 0 || rate <= 0 || seconds <= 0 || clients <= 0 || keys == 0 || value_size < 0 ||
      idle < 0) {
    std::fprintf(stderr, "usage: paced-load --port P --rate R --seconds S [--clients C] ...\n");
    return 2;
  }
  const int64_t total = static_cast<int64_t>(rate * seconds);
  if (total < 1) {
    std::fprintf(stderr, "paced-load: --rate x --seconds must make at least one request\n");
    return 2;
  }
  std::vector<Conn> conns(static_cast<size_t>(clients));
  std::vector<pollfd> pfds(conns.size());
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) Die("bad host");
  std::vector<int> idle_fds;
  for (long i = 0; i < idle; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) Die("connect");
    idle_fds.push_back(fd);
  }
  // One PING each, answered, before the load starts: the server has accepted them all, so
  // the load measures idle clients, not a burst of accepts.
  for (int fd : idle_fds)
    if (write(fd, "PING\r\n", 6) != 6) Die("write");
  for (int fd : idle_fds) {
    char pong[7];
    size_t got = 0;
    while (got < 7) {
      ssize_t r = read(fd, pong + got, 7 - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) Die("read");
      got += static_cast<size_t>(r);
    }
  }
  for (size_t c = 0; c < conns.size(); c++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) Die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conns[c].fd = fd;
    pfds[c] = {fd, POLLIN, 0};
  }
  const std::string value(static_cast<size_t>(value_size), 'v');
  const double gap_ns = 1e9 / rate;
  std::vector<int64_t> lat;  // ns
  lat.reserve(static_cast<size_t>(total));
  int64_t sent = 0, errors = 0;
  uint64_t seed = 88172645463325252ull;
  const int64_t start = NowNs();
  char buf[65536];
  while (static_cast<int64_t>(lat.size()) < total) {
    int64_t now = NowNs();
    // Every request due by now leaves, late ones included.
    while (sent < total && start + static_cast<int64_t>(sent * gap_ns) <= now) {
      Conn& c = conns[static_cast<size_t>(sent % clients)];
      std::string k = prefix + std::to_string(Rand(&seed) % keys);
      std::string req;
      if (get)
        req = "*2\r\n$3\r\nGET\r\n$" + std::to_string(k.size()) + "\r\n" + k + "\r\n";
      else
        req = "*3\r\n$3\r\nSET\r\n$" + std::to_string(k.size()) + "\r\n" + k + "\r\n$" +
              std::to_string(value.size()) + "\r\n" + value + "\r\n";
      for (size_t off = 0; off < req.size();) {
        ssize_t w = write(c.fd, req.data() + off, req.size() - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) Die("write");
        off += static_cast<size_t>(w);
      }
      c.due.push_back(start + static_cast<int64_t>(sent * gap_ns));
      sent++;
    }
    int64_t wait_ns = sent < total ? start + static_cast<int64_t>(sent * gap_ns) - NowNs()
                                   : 5'000'000'000;
    timespec ts{static_cast<time_t>(std::max<int64_t>(wait_ns, 0) / 1'000'000'000),
                static_cast<long>(std::max<int64_t>(wait_ns, 0) % 1'000'000'000)};
    int n = ppoll(pfds.data(), pfds.size(), &ts, nullptr);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Die("poll");
    if (n == 0 && sent == total) {
      errno = 0;
      Die("replies missing 5 s after the last request was due");
    }
    for (size_t i = 0; i < pfds.size(); i++) {
      if (!(pfds[i].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      Conn& c = conns[i];
      ssize_t r = read(c.fd, buf, sizeof buf);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) Die("read");
      int64_t got = NowNs();
      c.in.append(buf, static_cast<size_t>(r));
      size_t pos = 0, len;
      bool err = false;
      while ((len = ReplyLen(c.in, pos, &err)) > 0) {
        if (c.due.empty()) {
          errno = 0;
          Die("a reply nothing asked for");
        }
        lat.push_back(got - c.due.front());
        c.due.pop_front();
        errors += err;
        pos += len;
      }
      c.in.erase(0, pos);
    }
  }
  double secs = static_cast<double>(NowNs() - start) / 1e9;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) {
    size_t i = std::min(lat.size() - 1, static_cast<size_t>(p * static_cast<double>(lat.size())));
    return static_cast<double>(lat[i]) / 1e6;
  };
  std::printf("sent=%lld answered=%zu errors=%lld rate=%.0f p50=%.3f p99=%.3f p999=%.3f max=%.3f\n",
              static_cast<long long>(sent), lat.size(), static_cast<long long>(errors),
              static_cast<double>(lat.size()) / secs, pct(0.5), pct(0.99), pct(0.999),
              static_cast<double>(lat.back()) / 1e6);
  return 0;
}
