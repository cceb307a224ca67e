// evict-load.cc -- a small cache-aside load generator for the eviction benchmark
// (utils/bench-eviction.sh). Standalone: C++17, libc and the standard library only, raw
// sockets, RESP2, one connection.
//
//   g++ -O2 -std=c++17 -o /tmp/evict-load utils/evict-load.cc
//
//   evict-load --port P --keys N [--ops M] [--pipeline 16] [--value-size 100] [--zipf 0.99]
//              [--get-ratio 0.9] [--seed S] [--host 127.0.0.1] [--fill]
//
// Mix mode (the default): M operations on keys key:<i>, 0 <= i < N. Each is a GET with
// probability get-ratio, else a SET (value-size bytes); i is drawn from a Zipf distribution of
// exponent `zipf` over N ranks (the CDF is precomputed, a sample is a binary search in it), and
// rank r is mapped to key id perm[r] with a fixed pseudo-random permutation, so that the hot keys
// are spread over the keyspace rather than being the first ones written by --fill. The M
// operations depend on the seed only (not on the replies), so every server sees the same
// sequence. Cache-aside: a GET that returns nil is a miss, and the key is SET (filled) at the
// start of the next pipeline batch; those fills are issued on top of the M operations.
// Pipelined: `pipeline` commands are sent, then their `pipeline` replies are read and parsed.
//
// Prints one line:
//   ops=<n> seconds=<s> ops_per_sec=<x> gets=<g> hits=<h> hit_rate=<h/g> errors=<e> sets=<s> fills=<f>
// where ops counts every command sent (the M operations and the fills), so ops_per_sec is the
// commands per second the server answered; errors counts error replies (-OOM and any other).
//
// Fill mode (--fill): SET key:0 .. key:<N-1> in order, pipelined, and print
//   ops=<N> seconds=<s> ops_per_sec=<x> errors=<e>
//
// Exit status: 0 on success (error replies are counted, not fatal), 1 on a connection or
// protocol failure, 2 on a usage error.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Die(const char* fmt, const char* arg = "") {
  std::fprintf(stderr, "evict-load: ");
  std::fprintf(stderr, fmt, arg);
  std::fprintf(stderr, "\n");
  std::exit(1);
}

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "evict-load: %s\n"
               "usage: evict-load --port P --keys N [--ops M] [--pipeline 16] [--value-size 100]\n"
               "                  [--zipf 0.99] [--get-ratio 0.9] [--seed S] [--host H] [--fill]\n",
               msg);
  std::exit(2);
}

// splitmix64: small, fast and the same everywhere (the standard distributions are not).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return (Next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
};

class Conn {
 public:
  Conn(const std::string& host, int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) Die("socket: %s", std::strerror(errno));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) Die("bad host %s", host.c_str());
    if (connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      Die("connect: %s", std::strerror(errno));
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Conn() { close(fd_); }

  void SendAll(const std::string& out) {
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = send(fd_, out.data() + off, out.size() - off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        Die("send: %s", std::strerror(errno));
      }
      off += static_cast<size_t>(n);
    }
  }

  // The kinds of top-level reply the caller cares about.
  enum Kind { kStatus, kError, kInt, kBulk, kNil, kArray };

  // Reads one complete reply (arrays are read whole, nested elements included) and returns its
  // kind; for errors, *err gets the first line (for the first one's message).
  Kind ReadReply(std::string* err) {
    for (;;) {
      size_t end = pos_;
      int kind = Parse(&end, err);
      if (kind >= 0) {
        pos_ = end;
        return static_cast<Kind>(kind);
      }
      Fill();
    }
  }

 private:
  // Tries to parse one reply at *p in buf_[.., len_). Returns its kind and advances *p, or
  // returns -1 if the buffer holds only part of it.
  int Parse(size_t* p, std::string* err) {
    if (*p >= len_) return -1;
    const char* b = buf_.data();
    const char* nl = static_cast<const char*>(std::memchr(b + *p, '\n', len_ - *p));
    if (nl == nullptr) return -1;
    size_t line_end = static_cast<size_t>(nl - b);  // index of '\n'
    if (line_end == *p || b[line_end - 1] != '\r') ProtocolError(*p);
    char type = b[*p];
    std::string line(b + *p + 1, line_end - 1 - (*p + 1));
    size_t next = line_end + 1;
    switch (type) {
      case '+':
        *p = next;
        return kStatus;
      case '-':
        if (err != nullptr && err->empty()) *err = line;
        *p = next;
        return kError;
      case ':':
        *p = next;
        return kInt;
      case '$': {
        long long n = ParseLen(line, *p);
        if (n < 0) {
          *p = next;
          return kNil;
        }
        if (next + static_cast<size_t>(n) + 2 > len_) return -1;
        if (b[next + n] != '\r' || b[next + n + 1] != '\n') ProtocolError(*p);
        *p = next + static_cast<size_t>(n) + 2;
        return kBulk;
      }
      case '*': {
        long long n = ParseLen(line, *p);
        size_t q = next;
        for (long long i = 0; i < n; i++)
          if (Parse(&q, nullptr) < 0) return -1;
        *p = q;
        return n < 0 ? kNil : kArray;
      }
      default:
        ProtocolError(*p);
    }
  }

  long long ParseLen(const std::string& s, size_t at) {
    char* e = nullptr;
    long long n = std::strtoll(s.c_str(), &e, 10);
    if (s.empty() || *e != '\0' || n < -1) ProtocolError(at);
    return n;
  }

  [[noreturn]] void ProtocolError(size_t at) {
    std::string near(buf_.data() + at, std::min<size_t>(len_ - at, 60));
    for (char& c : near)
      if (c == '\r' || c == '\n') c = ' ';
    Die("protocol error near '%s'", near.c_str());
  }

  void Fill() {
    if (pos_ > 0) {  // keep the unparsed tail at the front
      std::memmove(&buf_[0], buf_.data() + pos_, len_ - pos_);
      len_ -= pos_;
      pos_ = 0;
    }
    if (buf_.size() - len_ < 65536) buf_.resize(std::max<size_t>(buf_.size() * 2, 1 << 17));
    for (;;) {
      ssize_t n = recv(fd_, &buf_[len_], buf_.size() - len_, 0);
      if (n > 0) {
        len_ += static_cast<size_t>(n);
        return;
      }
      if (n == 0) Die("connection closed by the server");
      if (errno != EINTR) Die("recv: %s", std::strerror(errno));
    }
  }

  int fd_ = -1;
  std::string buf_ = std::string(1 << 17, '\0');
  size_t len_ = 0;
  size_t pos_ = 0;
};

void AppendBulk(std::string* out, const char* s, size_t n) {
  char hdr[32];
  int h = std::snprintf(hdr, sizeof hdr, "$%zu\r\n", n);
  out->append(hdr, static_cast<size_t>(h));
  out->append(s, n);
  out->append("\r\n", 2);
}

void AppendKey(std::string* out, uint64_t id) {
  char k[32];
  int n = std::snprintf(k, sizeof k, "key:%llu", static_cast<unsigned long long>(id));
  AppendBulk(out, k, static_cast<size_t>(n));
}

void AppendGet(std::string* out, uint64_t id) {
  out->append("*2\r\n$3\r\nGET\r\n");
  AppendKey(out, id);
}

void AppendSet(std::string* out, uint64_t id, const std::string& value) {
  out->append("*3\r\n$3\r\nSET\r\n");
  AppendKey(out, id);
  AppendBulk(out, value.data(), value.size());
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool ParseNum(const char* s, double* v) {
  char* e = nullptr;
  errno = 0;
  *v = std::strtod(s, &e);
  return e != s && *e == '\0' && errno == 0 && std::isfinite(*v);
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  double port = 0, keys = 0, ops = 0, pipeline = 16, value_size = 100, zipf = 0.99,
         get_ratio = 0.9, seed = 1;
  bool fill = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--fill") {
      fill = true;
      continue;
    }
    if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
    const char* v = argv[++i];
    double* dst = nullptr;
    if (a == "--host") {
      host = v;
      continue;
    } else if (a == "--port") dst = &port;
    else if (a == "--keys") dst = &keys;
    else if (a == "--ops") dst = &ops;
    else if (a == "--pipeline") dst = &pipeline;
    else if (a == "--value-size") dst = &value_size;
    else if (a == "--zipf") dst = &zipf;
    else if (a == "--get-ratio") dst = &get_ratio;
    else if (a == "--seed") dst = &seed;
    else Usage(("unknown option " + a).c_str());
    if (!ParseNum(v, dst)) Usage(("bad number for " + a).c_str());
  }
  if (port < 1 || port > 65535) Usage("--port is required (1..65535)");
  if (keys < 1) Usage("--keys must be >= 1");
  if (!fill && ops < 1) Usage("--ops must be >= 1");
  if (pipeline < 1) Usage("--pipeline must be >= 1");
  if (value_size < 1) Usage("--value-size must be >= 1");
  if (zipf < 0) Usage("--zipf must be >= 0");
  if (get_ratio < 0 || get_ratio > 1) Usage("--get-ratio must be in [0, 1]");

  const uint64_t n_keys = static_cast<uint64_t>(keys);
  const uint64_t n_ops = static_cast<uint64_t>(ops);
  const size_t depth = static_cast<size_t>(pipeline);
  // Printable, the same for every key; its first bytes differ per run only through the seed.
  std::string value(static_cast<size_t>(value_size), 'v');
  for (size_t i = 0; i < value.size(); i++) value[i] = static_cast<char>('a' + (i * 7 + static_cast<uint64_t>(seed)) % 26);

  Conn conn(host, static_cast<int>(port));
  std::string out;
  out.reserve(depth * (value.size() + 64));
  std::string first_err;

  if (fill) {
    uint64_t errors = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t next = 0; next < n_keys;) {
      out.clear();
      size_t batch = 0;
      for (; batch < depth && next < n_keys; batch++) AppendSet(&out, next++, value);
      conn.SendAll(out);
      for (size_t i = 0; i < batch; i++)
        if (conn.ReadReply(&first_err) == Conn::kError) errors++;
    }
    double secs = Seconds(t0);
    std::printf("ops=%llu seconds=%.3f ops_per_sec=%.0f errors=%llu\n",
                static_cast<unsigned long long>(n_keys), secs, n_keys / secs,
                static_cast<unsigned long long>(errors));
    if (errors) std::fprintf(stderr, "evict-load: first error reply: -%s\n", first_err.c_str());
    return 0;
  }

  // Zipf CDF over the ranks: cdf[r] = sum_{j<=r} (j+1)^-s / H.
  std::vector<double> cdf(n_keys);
  double sum = 0;
  for (uint64_t r = 0; r < n_keys; r++) {
    sum += std::pow(static_cast<double>(r + 1), -zipf);
    cdf[r] = sum;
  }
  for (double& c : cdf) c /= sum;
  cdf.back() = 1.0;

  Rng rng(static_cast<uint64_t>(seed));
  // rank -> key id: a Fisher-Yates permutation from the seed.
  std::vector<uint32_t> perm(n_keys);
  for (uint64_t i = 0; i < n_keys; i++) perm[i] = static_cast<uint32_t>(i);
  for (uint64_t i = n_keys - 1; i > 0; i--) std::swap(perm[i], perm[rng.Next() % (i + 1)]);

  auto draw_key = [&]() -> uint64_t {
    double u = rng.Uniform();
    size_t r = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    if (r >= n_keys) r = n_keys - 1;
    return perm[r];
  };

  enum Op : uint8_t { kGet, kSet, kFillSet };
  struct Sent {
    Op op;
    uint32_t key;
  };
  std::vector<Sent> sent;
  sent.reserve(depth);
  std::deque<uint32_t> pending;  // keys whose GET missed, to be filled
  uint64_t issued = 0, total = 0, gets = 0, hits = 0, sets = 0, fills = 0, errors = 0;

  auto t0 = std::chrono::steady_clock::now();
  while (issued < n_ops || !pending.empty()) {
    out.clear();
    sent.clear();
    while (sent.size() < depth && !pending.empty()) {
      uint32_t k = pending.front();
      pending.pop_front();
      AppendSet(&out, k, value);
      sent.push_back({kFillSet, k});
    }
    while (sent.size() < depth && issued < n_ops) {
      bool is_get = rng.Uniform() < get_ratio;
      uint32_t k = static_cast<uint32_t>(draw_key());
      if (is_get) AppendGet(&out, k);
      else AppendSet(&out, k, value);
      sent.push_back({is_get ? kGet : kSet, k});
      issued++;
    }
    conn.SendAll(out);
    for (const Sent& s : sent) {
      Conn::Kind kind = conn.ReadReply(&first_err);
      total++;
      if (kind == Conn::kError) errors++;
      switch (s.op) {
        case kGet:
          gets++;
          if (kind == Conn::kBulk) hits++;
          else if (kind == Conn::kNil) pending.push_back(s.key);
          break;
        case kSet:
          sets++;
          break;
        case kFillSet:
          fills++;
          break;
      }
    }
  }
  double secs = Seconds(t0);
  std::printf(
      "ops=%llu seconds=%.3f ops_per_sec=%.0f gets=%llu hits=%llu hit_rate=%.4f errors=%llu "
      "sets=%llu fills=%llu\n",
      static_cast<unsigned long long>(total), secs, total / secs,
      static_cast<unsigned long long>(gets), static_cast<unsigned long long>(hits),
      gets ? static_cast<double>(hits) / gets : 0.0, static_cast<unsigned long long>(errors),
      static_cast<unsigned long long>(sets), static_cast<unsigned long long>(fills));
  if (errors) std::fprintf(stderr, "evict-load: first error reply: -%s\n", first_err.c_str());
  return 0;
}
