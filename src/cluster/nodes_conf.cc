// nodes.conf: format, parse (pure), atomic save and lock (file I/O).
#include "cluster/nodes_conf.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/time.h"
#include "base/util.h"
#include "cluster/nodes_format.h"
#include "net/resp_parser.h"

namespace cluster {

std::string FormatNodesConf(const State& state) {
  FormatOptions opts;
  opts.nodes_conf = true;
  std::string out = FormatClusterNodes(state, opts);
  out += "vars currentEpoch " + std::to_string(state.current_epoch) + " lastVoteEpoch " +
         std::to_string(state.last_vote_epoch) + "\n";
  return out;
}

namespace {

// ---- Tokens ----

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

// ---- Field checks ----


// Characters the server accepts in aux field names and values.
bool IsAuxString(std::string_view s) {
  static constexpr std::string_view kInvalid = "!#$%&()*+;<>?@[]^{|}~";
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) continue;
    if (kInvalid.find(c) != std::string_view::npos) return false;
  }
  return true;
}

// Text that survives being written back unquoted: no blanks, quotes or control bytes.
bool IsPlainText(std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '"' || c == '\'') return false;
  }
  return true;
}

bool ParsePort(std::string_view s, int* out) {
  int64_t v;
  if (!base::ParseInt64(s, &v) || v < 0 || v > 65535) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseSlot(std::string_view s, int* out) {
  int64_t v;
  if (!base::ParseInt64(s, &v) || v < 0 || v >= kSlots) return false;
  *out = static_cast<int>(v);
  return true;
}

bool IsIp(int family, const std::string& s) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(family, s.c_str(), buf) == 1;
}

std::string Quote(std::string_view s) {
  std::string q = "'";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      q += "\\x";
      q += hex[u >> 4];
      q += hex[u & 15];
    } else {
      q += c;
    }
  }
  if (q.size() > 80) q = q.substr(0, 77) + "...";
  return q + "'";
}

// ---- The parser ----

struct NodeLine {
  int number = 0;
  std::vector<std::string> argv;
};

class Parser {
 public:
  Parser(int64_t now_ms, bool tls_cluster) : now_ms_(now_ms), tls_cluster_(tls_cluster) {}

  bool Run(std::string_view text);
  const std::string& error() const { return err_; }
  State Take() { return std::move(st_); }

 private:
  bool Fail(int line, const std::string& what) {
    err_ = "line " + std::to_string(line) + ": " + what;
    return false;
  }
  bool ParseVars(const NodeLine& l);
  bool ParseNode(const NodeLine& l, Node* n);
  bool ParseAddress(const NodeLine& l, Node* n);
  bool ParseSlots(const NodeLine& l, Node* n);
  bool Finish(int last_line);
  Node* FindOrAdd(std::string_view name) {
    Node* n = st_.Find(name);
    return n ? n : st_.Add(std::string(name), 0, now_ms_);
  }

  int64_t now_ms_;
  bool tls_cluster_;
  State st_;
  std::string err_;
  std::unordered_map<const Node*, int> line_of_;  // nodes defined by a line
  std::unordered_map<const Node*, bool> has_shard_id_;
};

bool Parser::Run(std::string_view text) {
  // Tokenize every line first, so that nodes keep the file order even when a line names a node
  // defined further down.
  std::vector<NodeLine> node_lines;
  int number = 0;
  size_t pos = 0;
  std::vector<std::string> argv;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    number++;
    if (line.find('\0') != std::string_view::npos) return Fail(number, "NUL byte");
    if (!net::SplitArgs(line, &argv)) return Fail(number, "unbalanced quotes");
    if (argv.empty()) continue;
    NodeLine l{number, argv};
    if (base::EqualsNoCase(argv[0], "vars")) {
      if (!ParseVars(l)) return false;
      continue;
    }
    if (argv.size() < 8)
      return Fail(number, "expected at least 8 fields, got " + std::to_string(argv.size()));
    if (!IsNodeId(argv[0])) return Fail(number, "invalid node ID " + Quote(argv[0]));
    if (st_.Find(argv[0])) return Fail(number, "node " + argv[0] + " defined twice");
    Node* n = st_.Add(argv[0], 0, now_ms_);
    line_of_[n] = number;
    node_lines.push_back(std::move(l));
  }
  for (const NodeLine& l : node_lines) {
    if (!ParseNode(l, st_.Find(l.argv[0]))) return false;
  }
  return Finish(number > 0 ? number : 1);
}

bool Parser::ParseVars(const NodeLine& l) {
  if (l.argv.size() % 2 == 0) return Fail(l.number, "vars needs name value pairs");
  for (size_t j = 1; j + 1 < l.argv.size(); j += 2) {
    uint64_t* target = nullptr;
    if (base::EqualsNoCase(l.argv[j], "currentEpoch"))
      target = &st_.current_epoch;
    else if (base::EqualsNoCase(l.argv[j], "lastVoteEpoch"))
      target = &st_.last_vote_epoch;
    else
      continue;  // unknown variables are skipped, as the server does
    if (!base::ParseUint64(l.argv[j + 1], target))
      return Fail(l.number, "invalid " + l.argv[j] + " " + Quote(l.argv[j + 1]));
  }
  return true;
}

bool Parser::ParseAddress(const NodeLine& l, Node* n) {
  // ip:port[@cport][,hostname[,name=value]...]
  std::vector<std::string_view> parts = Split(l.argv[1], ',');
  if (parts.size() > 1) {
    if (!IsPlainText(parts[1])) return Fail(l.number, "invalid hostname " + Quote(parts[1]));
    n->hostname = std::string(parts[1]);
  }
  bool aux_tcp = false, aux_tls = false;
  for (size_t i = 2; i < parts.size(); i++) {
    std::vector<std::string_view> kv = Split(parts[i], '=');
    if (kv.size() != 2 || !IsAuxString(kv[0]) || !IsAuxString(kv[1]) || !IsPlainText(kv[1]))
      return Fail(l.number, "invalid aux field " + Quote(parts[i]));
    std::string_view name = kv[0];
    std::string value(kv[1]);
    bool ok = true;
    if (name == "shard-id") {
      ok = IsNodeId(value);
      if (ok) n->shard_id = value, has_shard_id_[n] = true;
    } else if (name == "nodename") {
      n->human_nodename = value;
    } else if (name == "tcp-port") {
      ok = ParsePort(value, &n->tcp_port);
      aux_tcp = true;
    } else if (name == "tls-port") {
      ok = ParsePort(value, &n->tls_port);
      aux_tls = true;
    } else if (name == "client-ipv4") {
      ok = value.empty() || IsIp(AF_INET, value);
      if (ok) n->client_ipv4 = value;
    } else if (name == "client-ipv6") {
      ok = value.empty() || IsIp(AF_INET6, value);
      if (ok) n->client_ipv6 = value;
    } else {
      return Fail(l.number, "unknown aux field " + Quote(name));
    }
    if (!ok) return Fail(l.number, "invalid value for aux field " + Quote(parts[i]));
  }
  std::string_view addr = parts[0];
  size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos)
    return Fail(l.number, "address " + Quote(addr) + " has no port");
  std::string_view ip = addr.substr(0, colon), ports = addr.substr(colon + 1);
  if (ip.size() >= kIpLen || !IsPlainText(ip)) return Fail(l.number, "invalid IP " + Quote(ip));
  n->ip = std::string(ip);
  size_t at = ports.find('@');
  int port;
  if (!ParsePort(ports.substr(0, at), &port))
    return Fail(l.number, "invalid port " + Quote(ports.substr(0, at)));
  // Which port the main one is: the one no aux field gave (a file without port fields is older
  // than aux fields: its port is the TLS port when the bus is TLS).
  if (!aux_tcp && !aux_tls) {
    (tls_cluster_ ? n->tls_port : n->tcp_port) = port;
  } else if (!aux_tcp) {
    n->tcp_port = port;
  } else if (!aux_tls) {
    n->tls_port = port;
  }
  if (at != std::string_view::npos) {
    if (!ParsePort(ports.substr(at + 1), &n->cport))
      return Fail(l.number, "invalid cluster bus port " + Quote(ports.substr(at + 1)));
  } else {
    n->cport = (tls_cluster_ ? n->tls_port : n->tcp_port) + 10000;
    if (n->cport > 65535) return Fail(l.number, "no @cport and port + 10000 is above 65535");
  }
  return true;
}

bool Parser::ParseNode(const NodeLine& l, Node* n) {
  const auto& argv = l.argv;
  if (!ParseAddress(l, n)) return false;

  uint16_t flags = 0;
  for (std::string_view w : Split(argv[2], ',')) {
    std::string word = base::ToLower(w);
    if (word == "myself") {
      if (st_.myself) return Fail(l.number, "a second myself node");
      st_.myself = n;
      flags |= kNodeMyself;
    } else if (word == "master" || word == "primary") {
      flags |= kNodePrimary;
    } else if (word == "slave" || word == "replica") {
      flags |= kNodeReplica;
    } else if (word == "fail?") {
      flags |= kNodePfail;
    } else if (word == "fail") {
      flags |= kNodeFail;
      n->fail_time_ms = now_ms_;
    } else if (word == "handshake") {
      flags |= kNodeHandshake;
    } else if (word == "noaddr") {
      flags |= kNodeNoAddr;
    } else if (word == "nofailover") {
      flags |= kNodeNoFailover;
    } else if (word != "noflags") {
      return Fail(l.number, "unknown flag " + Quote(w));
    }
  }
  // A handshake node is never written back: myself must not be one.
  if ((flags & kNodeMyself) && (flags & kNodeHandshake))
    return Fail(l.number, "myself cannot be in handshake");

  if (argv[3] != "-") {
    if (!IsNodeId(argv[3])) return Fail(l.number, "invalid primary ID " + Quote(argv[3]));
    Node* primary = FindOrAdd(argv[3]);
    if (primary == n) return Fail(l.number, "node is its own primary");
    st_.SetPrimary(n, primary);  // bookkeeping of both sides; the flags are the file's
  }
  n->flags = flags;

  int64_t ping, pong;
  if (!base::ParseInt64(argv[4], &ping))
    return Fail(l.number, "invalid ping time " + Quote(argv[4]));
  if (!base::ParseInt64(argv[5], &pong))
    return Fail(l.number, "invalid pong time " + Quote(argv[5]));
  n->ping_sent_ms = ping ? now_ms_ : 0;
  n->pong_received_ms = pong ? now_ms_ : 0;
  uint64_t epoch;
  if (!base::ParseUint64(argv[6], &epoch))
    return Fail(l.number, "invalid config epoch " + Quote(argv[6]));
  n->config_epoch = (n->IsReplica() && n->primary) ? 0 : epoch;
  // argv[7], the link state, is not kept.
  return ParseSlots(l, n);
}

bool Parser::ParseSlots(const NodeLine& l, Node* n) {
  for (size_t j = 8; j < l.argv.size(); j++) {
    std::string_view tok = l.argv[j];
    if (!tok.empty() && tok[0] == '[') {
      // [<slot>->-<id>] (migrating to) or [<slot>-<-<id>] (importing from)
      size_t dash = tok.find('-');
      bool ok = dash != std::string_view::npos && tok.size() == dash + 3 + kNodeNameLen + 1 &&
                tok.back() == ']';
      int slot = 0;
      bool migrating = false;
      if (ok) {
        std::string_view dir = tok.substr(dash, 3);
        migrating = dir == "->-";
        ok = (migrating || dir == "-<-") && ParseSlot(tok.substr(1, dash - 1), &slot) &&
             IsNodeId(tok.substr(dash + 3, kNodeNameLen));
      }
      if (!ok) return Fail(l.number, "invalid open slot " + Quote(tok));
      Node* other = FindOrAdd(tok.substr(dash + 3, kNodeNameLen));
      (migrating ? st_.migrating_to : st_.importing_from)[slot] = other;
      continue;
    }
    size_t dash = tok.find('-');
    int start = 0, stop = 0;
    if (!ParseSlot(tok.substr(0, dash), &start) ||
        (dash != std::string_view::npos && !ParseSlot(tok.substr(dash + 1), &stop)))
      return Fail(l.number, "invalid slot " + Quote(tok));
    if (dash == std::string_view::npos) stop = start;
    if (start > stop) return Fail(l.number, "invalid slot range " + Quote(tok));
    for (int s = start; s <= stop; s++) {
      Node* owner = st_.slot_owner[s];
      if (owner && owner != n)
        return Fail(l.number, "slot " + std::to_string(s) + " already belongs to " + owner->name);
      st_.AssignSlot(s, n);
    }
  }
  return true;
}

bool Parser::Finish(int last_line) {
  if (!st_.myself) return Fail(last_line, "end of file and no myself node");
  // Primary loops (a replica of a replica is possible; a cycle is not).
  size_t count = st_.nodes.size();
  for (const auto& up : st_.nodes) {
    const Node* p = up->primary;
    size_t steps = 0;
    while (p && steps <= count) p = p->primary, steps++;
    if (p) {
      auto it = line_of_.find(up.get());
      return Fail(it != line_of_.end() ? it->second : last_line,
                  "primary loop through node " + up->name);
    }
  }
  // Shard IDs. The source of a replica's shard ID is the first node up its primary chain that has
  // an explicit one, else the top of the chain. An explicit ID on a replica must agree with its
  // source's, or becomes the source's when that has none (a primary named but never defined, or
  // an older line); then replicas without one take their source's.
  auto source = [this](Node* n) {
    Node* src = n->primary;
    while (!has_shard_id_[src] && src->primary) src = src->primary;
    return src;
  };
  for (const auto& up : st_.nodes) {
    Node* n = up.get();
    if (!n->primary || !has_shard_id_[n]) continue;
    Node* src = source(n);
    if (!has_shard_id_[src]) {
      src->shard_id = n->shard_id;
      has_shard_id_[src] = true;
    } else if (src->shard_id != n->shard_id) {
      auto it = line_of_.find(n);
      return Fail(it != line_of_.end() ? it->second : last_line,
                  "shard-id differs from the shard-id of its primary " + n->primary->name);
    }
  }
  for (const auto& up : st_.nodes) {
    Node* n = up.get();
    if (n->primary && !has_shard_id_[n]) n->shard_id = source(n)->shard_id;
  }
  // As the server does against hand edits: currentEpoch is at least every configEpoch.
  for (const auto& up : st_.nodes)
    if (up->config_epoch > st_.current_epoch) st_.current_epoch = up->config_epoch;
  return true;
}

}  // namespace

bool ParseNodesConf(std::string_view text, State* out, int64_t now_ms, bool tls_cluster,
                    std::string* err) {
  Parser p(now_ms, tls_cluster);
  if (!p.Run(text)) {
    *err = p.error();
    return false;
  }
  *out = p.Take();
  return true;
}

// ---- File side ----

namespace {
// fsync of a directory: 0, or the errno of a failure. Some systems refuse to fsync a directory
// (EBADF, EINVAL); the file itself is safe by then, so that is no failure.
int FsyncDir(int dfd) {
  if (::fsync(dfd) == 0 || errno == EBADF || errno == EINVAL) return 0;
  return errno;
}

bool FsyncDirOf(const std::string& path, std::string* err) {
  std::string dir_buf = path;
  int dfd = open(dirname(dir_buf.data()), O_RDONLY | O_CLOEXEC);
  if (dfd < 0) {
    if (errno == EISDIR) return true;
    *err = "can't open the directory of " + path + ": " + strerror(errno);
    return false;
  }
  int e = FsyncDir(dfd);
  close(dfd);
  if (e) {
    *err = "can't fsync the directory of " + path + ": " + strerror(e);
    return false;
  }
  return true;
}

// Writes `content` into `fd` (a new, empty file named `name`), fsyncs it (if `fsync`), renames
// it over `path` and fsyncs the directory (if `fsync`). With a `lock_fd`, the new inode is
// locked before it gets the name (so no other process can take it between the rename and the
// hand-over) and `lock_fd` is made to refer to it; the old inode goes with the last
// descriptor of it, which `close_old` may close elsewhere. Takes `fd`; on failure removes
// `name`.
bool InstallNewFile(int fd, const std::string& name, const std::string& path,
                    const std::string& content, bool fsync, std::string* err, int lock_fd,
                    void (*close_old)(int)) {
  auto fail = [&](const char* what, int open_fd) {
    *err = std::string(what) + " " + name + ": " + strerror(errno);
    if (open_fd >= 0) close(open_fd);
    unlink(name.c_str());
    return false;
  };
  if (lock_fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == -1) return fail("can't lock", fd);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t w = write(fd, content.data() + off, content.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail("can't write", fd);
    off += static_cast<size_t>(w);
  }
  if (fsync && ::fsync(fd) == -1) return fail("can't fsync", fd);
  if (lock_fd < 0 && close(fd) == -1) return fail("can't close", -1);
  if (rename(name.c_str(), path.c_str()) == -1) return fail("can't rename", lock_fd < 0 ? -1 : fd);
  if (lock_fd >= 0) {
    int old = close_old ? dup(lock_fd) : -1;
    int rc = dup3(fd, lock_fd, O_CLOEXEC);
    int saved = errno;
    close(fd);
    if (old >= 0) close_old(old);
    if (rc == -1) {
      *err = "saved " + path + " but can't keep its lock: " + strerror(saved);
      return false;
    }
  }
  return !fsync || FsyncDirOf(path, err);
}
}  // namespace

bool SaveNodesConfAtomic(const std::string& path, const std::string& content, bool fsync,
                         std::string* err, int lock_fd, void (*close_old)(int)) {
  std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(base::MsTime());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "can't open " + tmp + ": " + strerror(errno);
    return false;
  }
  return InstallNewFile(fd, tmp, path, content, fsync, err, lock_fd, close_old);
}

int LockNodesConf(const std::string& path, std::string* err) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd == -1) {
    *err = "can't open " + path + " in order to acquire a lock: " + strerror(errno);
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
    if (errno == EWOULDBLOCK)
      *err = "the cluster configuration file " + path +
             " is already used by a different cluster node; give each node its own file";
    else
      *err = "can't lock " + path + ": " + strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

NodesConfFile::~NodesConfFile() { CloseInChild(); }

void NodesConfFile::CloseInChild() {
  // The child has no helper thread: the spare (if made yet) is the parent's next file, and the
  // inode waiting for its fsync is the parent's to sync.
  uint64_t job = sync_job_.exchange(0);
  int sync_fd = job ? static_cast<int>(job & 0xffffffffu) - 1 : -1;
  for (int fd : {cur_fd_, dir_fd_, spare_fd_.exchange(-1), sync_fd})
    if (fd >= 0) close(fd);
  cur_fd_ = dir_fd_ = -1;
  // Jobs the helper thread had taken when the node forked hold descriptors too: a dup of the
  // locked file for its background fsync, a replaced inode waiting to be freed. Nothing in
  // the child would ever close them, and the first keeps the lock while the child lives.
  if (real_path_.empty()) return;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return;
  std::vector<int> mine;
  char target[4096];
  while (dirent* e = readdir(d)) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] == '.' || fd == dirfd(d)) continue;
    std::string link = std::string("/proc/self/fd/") + e->d_name;
    ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    // nodes.conf, nodes.conf.spare, either one replaced: "<path> (deleted)"
    if (std::string_view(target, static_cast<size_t>(n)).starts_with(real_path_)) mine.push_back(fd);
  }
  closedir(d);
  for (int fd : mine) close(fd);
}

void NodesConfFile::Unlock() {
  if (cur_fd_ >= 0) flock(cur_fd_, LOCK_UN);
}

bool NodesConfFile::Open(const std::string& path, std::string* err, Hooks hooks) {
  path_ = path;
  spare_path_ = path + ".spare";
  hooks_ = hooks;
  cur_fd_ = LockNodesConf(path, err);
  if (cur_fd_ < 0) return false;
  if (char* real = realpath(path.c_str(), nullptr)) {
    real_path_ = real;
    free(real);
  }
  std::string dir = path;
  dir_fd_ = open(dirname(dir.data()), O_RDONLY | O_CLOEXEC);  // none: Sync::kLater syncs now
  unlink((path + ".prev").c_str());  // the spare inode of earlier versions
  unlink((path + ".next").c_str());
  MakeSpare();
  return true;
}

// On the helper thread: the next save's file, empty (a leftover of a crash is emptied).
void NodesConfFile::CreateSpare(void* self) {
  auto* f = static_cast<NodesConfFile*>(self);
  int fd = open(f->spare_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  f->spare_fd_.store(fd);
  f->spare_pending_.store(false);
}

void NodesConfFile::MakeSpare() {
  if (!hooks_.call_later || spare_pending_.load() || spare_fd_.load() >= 0) return;
  spare_pending_.store(true);
  hooks_.call_later(CreateSpare, this);
}

// On the helper thread: fsyncs the newest saved inode and the directory. Saves made while
// this job waited replaced sync_job_ (closing the older dup), so one job covers them all.
void NodesConfFile::SyncNewest(void* self) {
  auto* f = static_cast<NodesConfFile*>(self);
  uint64_t job = f->sync_job_.exchange(0);
  if (!job) return;
  int fd = static_cast<int>(job & 0xffffffffu) - 1;
  int e = ::fsync(fd) == 0 ? FsyncDir(f->dir_fd_) : errno;
  if (e)
    f->sync_errno_.store(e);
  else
    f->RaiseDurable(job >> 32);
  close(fd);
}

// Both threads raise it: never lowered by the slower one.
void NodesConfFile::RaiseDurable(uint64_t seq) {
  uint64_t cur = durable_.load();
  while (cur < seq && !durable_.compare_exchange_weak(cur, seq)) {
  }
}

void NodesConfFile::SyncLater() {
  int fd = dup(cur_fd_);
  if (fd < 0) {
    sync_errno_.store(errno);
    return;
  }
  uint64_t job = (saves_ << 32) | static_cast<uint32_t>(fd + 1);
  uint64_t prev_job = sync_job_.exchange(job);
  int prev = prev_job ? static_cast<int>(prev_job & 0xffffffffu) - 1 : -1;
  if (prev >= 0)
    hooks_.close_old(prev);  // the job queued for prev has not run yet: it syncs fd instead
  else
    hooks_.call_later(SyncNewest, this);
}

bool NodesConfFile::Save(const std::string& content, Sync sync, std::string* err) {
  bool later = sync == Sync::kLater && hooks_.call_later && hooks_.close_old && dir_fd_ >= 0;
  bool now = sync == Sync::kNow || (sync == Sync::kLater && !later);
  int fd = spare_fd_.exchange(-1);
  bool ok = fd >= 0 ? InstallNewFile(fd, spare_path_, path_, content, now, err, cur_fd_,
                                     hooks_.close_old)
                    : SaveNodesConfAtomic(path_, content, now, err, cur_fd_, hooks_.close_old);
  if (ok) saves_++;
  if (ok && later) SyncLater();
  if (ok && now) RaiseDurable(saves_);  // this one, and every earlier one with it
  MakeSpare();
  return ok;
}

SavePlan PlanSave(bool fsync, bool save, bool learned, int64_t now_ms, int64_t last_save_ms,
                  int64_t learned_delay_ms) {
  using Sync = NodesConfFile::Sync;
  SavePlan p;
  Sync sync = fsync ? Sync::kNow : learned ? Sync::kLater : Sync::kNo;
  if (fsync || save || (learned && now_ms - last_save_ms >= learned_delay_ms)) {
    p.save_now = true;
    p.sync = sync;
  } else if (learned) {
    p.wait_ms = last_save_ms + learned_delay_ms - now_ms;
  }
  return p;
}

bool IsNodeId(std::string_view s) {
  if (s.size() != kNodeNameLen) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

}  // namespace cluster
