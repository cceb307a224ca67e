// Client connections: accept, read and parse, write replies, limits, close.
#include "server/client.h"
#include "server/acl.h"
#include "server/cluster_hooks.h"
#include "server/tracking.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "net/socket.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/observe.h"
#include "server/command.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/persistence.h"
#include "server/pubsub.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/slot_stats.h"
#include "server/transactions.h"

namespace server {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
// A kInputSliced client's input runs this long per loop pass; while the rest waits, at most
// this much more is read (the socket holds the rest: the sender's flow control). 250 us, as
// the source's walk: with 1 ms, SETs paced at 10,000/s on slots not moving had a median of
// 1.3-2.0 ms while 1,000 slots moved, 1.0-1.5 ms with 250 us, and the moves went faster.
constexpr int64_t kInputSliceUs = 250;
constexpr size_t kSlicedInputMax = 1 << 20;

void ReadHandler(int fd, void* data, int mask);
void StreamHandler(int fd, void* data, int event, const char* bytes, ssize_t n);
void WriteHandler(int fd, void* data, int mask);
bool WriteSome(Client* c, bool may_queue);
void AfterWrite(Client* c);
void WriteRepliesAndClose(bool spare_protected);
void Destroy(Client* c);

constexpr const char* kRedacted = "*redacted*";
// Valkey 8's reply buffer: output up to this much is not its reply list, which CLIENT LIST's omem
// and the output buffer limits count.
constexpr size_t kReplyBufferBytes = 16 * 1024;
// A bulk argument this long or longer is a big one (Valkey 8's PROTO_MBULK_BIG_ARG).
constexpr size_t kBigArgBytes = 32 * 1024;


// The short reason Valkey's protocol-error log line gives for each error reply.
const char* ProtocolErrorReason(const std::string& reply) {
  static const std::pair<const char*, const char*> kReasons[] = {
      {"Protocol error: too big inline request", "too big inline request"},
      {"Protocol error: too big mbulk count string", "too big mbulk count string"},
      {"Protocol error: invalid multibulk length", "invalid mbulk count"},
      {"Protocol error: unauthenticated multibulk length", "unauth mbulk count"},
      {"Protocol error: unauthenticated bulk length", "unauth bulk length"},
      {"Protocol error: too big bulk count string", "too big bulk count string"},
      {"Protocol error: expected '$'", "expected $ but got something else"},
      {"Protocol error: invalid bulk length", "invalid bulk length"},
      {"Protocol error: unbalanced quotes in request", "unbalanced quotes in inline request"},
      {"Protocol error: inline command from primary", "Master using the inline protocol. Desync?"},
  };
  for (auto& [prefix, reason] : kReasons)
    if (reply.rfind(prefix, 0) == 0) return reason;
  return reply.c_str();
}

// "Query buffer during protocol error: '...'" as Valkey logs it: the unparsed input (up to a
// NUL byte), its first and last 64 bytes when longer than 128, non-printable bytes as '.'.
// User data, so only a placeholder when hide-user-data-from-log is yes.
std::string ProtocolErrorSample(const Client* c) {
  std::string out = "Query buffer during protocol error: ";
  if (cfg.hide_user_data_from_log) return out + kRedacted;
  std::string_view q(c->conn.in);
  q.remove_prefix(std::min(c->conn.in_pos, q.size()));
  auto cstr = [](std::string_view v) { return v.substr(0, std::min(v.size(), v.find('\0'))); };
  std::string sample;
  if (q.size() < 128) {
    sample = "'" + std::string(cstr(q)) + "'";
  } else {
    sample = "'" + std::string(cstr(q.substr(0, 64))) + "' (... more " +
             std::to_string(q.size() - 128) + " bytes ...) '" +
             std::string(cstr(q.substr(q.size() - 64))) + "'";
  }
  for (char& ch : sample)
    if (!isprint(static_cast<unsigned char>(ch))) ch = '.';
  return out + sample;
}

void RejectAndClose(int fd, const char* msg) {
  net::WriteOnce(fd, msg, strlen(msg));  // best effort: the connection closes either way
  close(fd);
}

Client* CreateClient(int fd, bool unix_sock) {
  Client* c = new Client();
  c->id = g.next_client_id++;
  c->conn.fd = fd;
  c->resp = static_cast<int>(cfg.client_default_resp);
  c->ctime_ms = c->last_interaction_ms = base::MsTime();
  acl::AttachDefaultUser(c);
  if (unix_sock) c->flags |= kUnixSocket;
  SelectDb(c, 0);
  bool added = g.loop->uring() ? g.loop->AddStream(fd, StreamHandler, c)
                               : g.loop->AddFile(fd, net::kReadable, ReadHandler, c);
  if (!added) {
    close(fd);
    delete c;
    return nullptr;
  }
  g.clients.push_back(c);
  g.clients_by_id[c->id] = c;
  return c;
}

void AcceptHandler(int lfd, void* data, int) {
  bool unix_sock = data != nullptr;
  for (int i = 0; i < 1000; i++) {
    sockaddr_storage sa;
    int fd = net::Accept(lfd, &sa);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        LOG_WARNING("Accepting client connection: %s", strerror(errno));
      return;
    }
    g.stats.total_connections_received++;
    if (g.clients.size() >= static_cast<size_t>(cfg.maxclients)) {
      g.stats.rejected_connections++;
      RejectAndClose(fd, "-ERR max number of clients reached\r\n");
      continue;
    }
    if (!unix_sock && cfg.protected_mode && acl::DefaultUser()->nopass && !net::IsLoopback(sa)) {
      g.stats.rejected_connections++;
      RejectAndClose(fd,
                     "-DENIED Running in protected mode because protected mode is enabled and "
                     "no password is set for the default user. Connections are only accepted "
                     "from the loopback interface. Set a password, bind to a specific "
                     "interface, or disable protected-mode, then restart the server.\r\n");
      continue;
    }
    if (!unix_sock) net::TuneTcp(fd, static_cast<int>(cfg.tcp_keepalive));
    Client* c = CreateClient(fd, unix_sock);
    if (!c) continue;
    if (unix_sock) {
      c->addr = "/unixsocket:" + std::to_string(0);
      c->addr = cfg.unixsocket + ":0";
      c->laddr = cfg.unixsocket + ":0";
    } else {
      c->addr = net::FormatAddr(sa);
      c->laddr = net::LocalAddr(fd);
    }
  }
}

// A big bulk argument in progress (Valkey 8's PROTO_MBULK_BIG_ARG) is read in larger pieces
// into a buffer with room for exactly the rest of it, as Valkey 8 makes (a string would
// double its capacity, and maxmemory-clients would count up to twice the argument); the query
// buffer limit applies to it alone (AfterInput). Where it starts holds until the next parse.
struct BigArg {
  bool on = false;
  size_t start = 0;
  size_t want = kReadChunk;  // bytes worth reading now
};
BigArg PrepareInput(Client* c) {
  BigArg b;
  size_t pending = c->parser.PendingBulkLen();
  b.on = pending >= kBigArgBytes;
  if (!b.on) return b;
  b.start = c->parser.PendingBulkStart();
  size_t have = c->conn.in.size() - std::min(b.start, c->conn.in.size());
  if (pending + 2 > have) {
    b.want = std::max(b.want, std::min<size_t>(pending + 2 - have, 1 << 20));
    size_t need = b.start + pending + 2;
    if (c->conn.in.capacity() < need) {
      std::string exact;
      exact.reserve(need);
      exact.append(c->conn.in);
      c->conn.in.swap(exact);
    }
  }
  return b;
}

// The connection ended (n = 0) or failed (n = -errno).
void InputEnded(Client* c, int err) {
  if (err == 0) {
    if (base::GetLogLevel() <= base::kLogVerbose)
      LOG_VERBOSE("Client closed connection %s", ClientInfoForLog(c).c_str());
  } else {
    LOG_VERBOSE("Reading from client: %s", strerror(err));
  }
  FreeClient(c);
}

// n bytes joined the query buffer: counts, the query buffer limit, then the commands.
void AfterInput(Client* c, size_t n, const BigArg& b) {
  c->net_input_bytes += n;
  // Our primary's stream is replication input (Valkey 8 counts it apart).
  ((c->flags & kPrimary) ? g.stats.net_repl_input_bytes : g.stats.net_input_bytes) += n;
  g.stats.io_reads++;
  c->last_interaction_ms = g.loop_time_ms;
  if (c->conn.in.size() > c->qbuf_peak) c->qbuf_peak = c->conn.in.size();
  // Our primary's link is exempt, as in Valkey's readQueryFromClient (CLIENT_PRIMARY): one
  // command longer than this replica's limit must not break replication.
  // Valkey 8 holds a big argument alone in its query buffer, the command's earlier arguments
  // moved out: the limit applies to that argument, so one of exactly the limit is refused once
  // it has arrived whole, not a few bytes before (which closed the connection with input
  // unread: a reset, not an orderly close).
  size_t qbuf = c->conn.in.size() - (b.on ? std::min(b.start, c->conn.in.size()) : 0);
  if (!(c->flags & kPrimary) && static_cast<int64_t>(qbuf) > cfg.client_query_buffer_limit) {
    LOG_WARNING("Closing client that reached max query buffer length: %s (qbuf initial bytes: %s)",
                ClientInfoForLog(c).c_str(),
                cfg.hide_user_data_from_log ? kRedacted : base::Repr(c->conn.in, 64).c_str());
    g.stats.client_qbuf_limit_disconnections++;
    FreeClient(c);
    return;
  }
  ProcessInput(c);
}

// Input must wait: a load serving events from inside this client's command (DEBUG RELOAD),
// whose arguments point into its input, which more input would move; or a sliced input with
// enough waiting. The rest waits for the command's end or the next slice.
bool InputMustWait(const Client* c) {
  return (c->flags & kProtected) ||
         ((c->flags & kInputResume) && c->conn.in.size() - c->conn.in_pos >= kSlicedInputMax);
}

void ReadHandler(int, void* data, int) {
  Client* c = static_cast<Client*>(data);
  if (c->flags & (kCloseAsap | kCloseAfterReply)) return;
  if (InputMustWait(c)) return;  // the socket keeps it (level-triggered: asked again)
  BigArg b = PrepareInput(c);
  net::IoResult io = c->conn.Read(b.want);
  if (io.status == net::IoResult::kClosed) return InputEnded(c, 0);
  if (io.status == net::IoResult::kError) return InputEnded(c, io.err);
  if (io.status != net::IoResult::kOk) return;
  AfterInput(c, io.bytes, b);
}

// io_uring: a client takes at most this much input a loop pass (a big argument: as much as
// epoll's read of it), as epoll reads one buffer a client a pass. The ring hands over all a
// socket holds: a client flooding commands (redis-cli --pipe) made passes of up to 270 ms and
// a PING beside it waited for them (p99 20 ms against 4 ms on epoll).
constexpr size_t kPassInputMax = kReadChunk;

void QueueResume(Client* c);
void StashInput(Client* c, const char* bytes, size_t n) {
  c->in_stash.append(bytes, n);
  g.loop->PauseStream(c->conn.fd);  // the socket holds the rest, as with epoll
  QueueResume(c);
}

// ResumeSlicedInput takes the client up again next pass (its stash, or its sliced input).
void QueueResume(Client* c) {
  if (c->flags & kInputResume) return;
  c->flags |= kInputResume;
  g.resume_input.push_back(c);
}

// What the client may still take in this loop pass (kPassInputMax, or its big argument's).
size_t PassShareLeft(Client* c, const BigArg& b) {
  if (c->in_pass != g.loop_pass) {
    c->in_pass = g.loop_pass;
    c->in_pass_bytes = 0;
  }
  size_t budget = std::max(kPassInputMax, b.want);
  return c->in_pass_bytes >= budget ? 0 : budget - c->in_pass_bytes;
}

// One share of the stash joins the query buffer; the socket is taken up again once it is all
// in (until then the stash holds what arrived before the pause, in order).
void DrainStash(Client* c) {
  BigArg b = PrepareInput(c);
  size_t take = std::min(PassShareLeft(c, b), c->in_stash.size() - c->in_stash_pos);
  c->in_pass_bytes += take;
  c->conn.in.append(c->in_stash, c->in_stash_pos, take);
  c->in_stash_pos += take;
  if (c->in_stash_pos == c->in_stash.size()) {
    c->in_stash.clear();
    c->in_stash_pos = 0;
    if (c->in_stash.capacity() > kPassInputMax) std::string().swap(c->in_stash);
    g.loop->ResumeStream(c->conn.fd);
  } else {
    QueueResume(c);
  }
  AfterInput(c, take, b);  // may free c
}

// io_uring: the bytes arrived already (the loop received them into its buffers).
void OnInput(Client* c, const char* bytes, size_t n) {
  // Closing: what it sends now is never run (epoll leaves it unread; here it is dropped).
  if (c->flags & (kCloseAsap | kCloseAfterReply)) return;
  if (InputMustWait(c) || c->StashPending()) return StashInput(c, bytes, n);
  BigArg b = PrepareInput(c);
  size_t take = std::min(n, PassShareLeft(c, b));
  if (take == 0) return StashInput(c, bytes, n);
  c->in_pass_bytes += take;
  if (take < n) StashInput(c, bytes + take, n - take);
  c->conn.in.append(bytes, take);
  AfterInput(c, take, b);
}

void OnSent(Client* c, ssize_t res) {
  if (res < 0 && res != -EAGAIN) {
    c->conn.EndQueuedSend(0);
    LOG_VERBOSE("Error writing to client: %s", strerror(static_cast<int>(-res)));
    CloseAsync(c);
    return;
  }
  size_t sent = res > 0 ? static_cast<size_t>(res) : 0;
  bool all = sent == c->conn.inflight.size();
  c->conn.EndQueuedSend(sent);
  c->net_output_bytes += sent;
  g.stats.net_output_bytes += sent;
  if (sent) {
    g.stats.io_writes++;
    c->obuf_soft_since_ms = 0;
  }
  // Replies made since go with the next pass's sends; a full socket waits for writability.
  if (all && c->conn.Pending() && !(c->flags & kCloseAsap))
    QueueWrite(c);
  else
    AfterWrite(c);
}

void StreamHandler(int, void* data, int event, const char* bytes, ssize_t n) {
  Client* c = static_cast<Client*>(data);
  if (event == net::kStreamInput) return OnInput(c, bytes, static_cast<size_t>(n));
  if (event == net::kStreamSent) return OnSent(c, n);
  if (c->flags & kCloseAsap) return;
  InputEnded(c, static_cast<int>(-n));
}

bool WriteSome(Client* c, bool may_queue) {
  // A replica link: its replies, its snapshot, its stream (repl/primary.cc).
  if (c->repl) {
    uint64_t before = c->net_output_bytes;
    if (!Repl().replica_write(c)) return false;
    if (c->net_output_bytes != before) {
      g.stats.io_writes++;
      c->obuf_soft_since_ms = 0;
    }
    return true;
  }
  if (c->conn.InFlight()) return true;  // OnSent goes on
  // io_uring: submitted with the loop's wait (the replication links keep offsets into `out`).
  if (may_queue && g.loop->uring() && !(c->flags & (kReplica | kPrimary)) &&
      c->conn.BeginQueuedSend()) {
    g.loop->QueueSend(c->conn.fd, c->conn.inflight.data(), c->conn.inflight.size());
    return true;
  }
  net::IoResult io = c->conn.Write();
  c->net_output_bytes += io.bytes;
  g.stats.net_output_bytes += io.bytes;
  if (io.bytes) g.stats.io_writes++;
  if (io.status == net::IoResult::kAgain) return true;
  if (io.Failed()) {
    LOG_VERBOSE("Error writing to client: %s", strerror(io.err));
    CloseAsync(c);
    return false;
  }
  c->obuf_soft_since_ms = 0;
  return true;
}

void AfterWrite(Client* c) {
  if (c->conn.InFlight()) return;  // OnSent decides
  bool pending = c->repl ? Repl().replica_has_pending(c) : c->conn.Pending();
  if (!pending) {
    if (g.loop->FileMask(c->conn.fd) & net::kWritable) g.loop->DelFile(c->conn.fd, net::kWritable);
    if (c->flags & kCloseAfterReply) CloseAsync(c);
  } else if (!(g.loop->FileMask(c->conn.fd) & net::kWritable)) {
    g.loop->AddFile(c->conn.fd, net::kWritable, WriteHandler, c);
  }
}

void WriteHandler(int, void* data, int) {
  Client* c = static_cast<Client*>(data);
  if (c->flags & kCloseAsap) return;
  if (WriteSome(c, false)) AfterWrite(c);
}

// Writes the pending replies and frees the clients queued for closing; `spare_protected`: not
// those of a running command (a load serving events from inside it).
void WriteRepliesAndClose(bool spare_protected) {
  std::vector<Client*> pending, spared;
  pending.swap(g.pending_writes);
  for (Client* c : pending) {
    if (spare_protected && (c->flags & kProtected)) {
      spared.push_back(c);
      continue;
    }
    c->flags &= ~kPendingWrite;
    if (c->flags & kCloseAsap) continue;
    if (WriteSome(c, true)) AfterWrite(c);
  }
  // The buffer goes back for the next pass (grown from nothing each pass, its reallocations
  // were 1% of GET -P16 in cluster mode), unless replies were queued meanwhile.
  pending.clear();
  if (g.pending_writes.empty()) g.pending_writes.swap(pending);
  g.pending_writes.insert(g.pending_writes.end(), spared.begin(), spared.end());
  spared.clear();
  while (!g.close_queue.empty()) {
    Client* c = g.close_queue.back();
    g.close_queue.pop_back();
    if (spare_protected && (c->flags & kProtected))
      spared.push_back(c);
    else
      Destroy(c);
  }
  g.close_queue = std::move(spared);
}

}  // namespace

namespace {
// Opens a listener per bind address of cfg on cfg.port (none when the port is 0).
bool OpenTcpListeners(std::vector<int>* fds, std::string* err) {
  if (cfg.port == 0 || cfg.bind.empty()) return true;  // bind "": no TCP listener, as Valkey 8
  int port = static_cast<int>(cfg.port);
  for (auto b : cfg.bind) {
    bool optional = !b.empty() && b[0] == '-';
    if (optional) b = b.substr(1);
    std::string e;
    bool unavailable;
    int fd = net::ListenTcp(b, port, static_cast<int>(cfg.tcp_backlog), &unavailable, &e);
    if (fd < 0 && optional && unavailable) {
      LOG_WARNING("Warning: Could not create server TCP listening socket %s:%d: %s", b.c_str(),
                  port, e.c_str());
      continue;
    }
    if (fd < 0) {
      *err = "Could not create server TCP listening socket " + b + ":" + std::to_string(port) +
             ": " + e;
      for (int f : *fds) close(f);
      fds->clear();
      return false;
    }
    fds->push_back(fd);
  }
  if (fds->empty()) {
    *err = "Failed listening on port " + std::to_string(port) + " (tcp), aborting.";
    return false;
  }
  return true;
}

void WatchListeners() {
  for (int fd : g.listen_fds) g.loop->AddFile(fd, net::kReadable, AcceptHandler, nullptr);
}

void CloseListeners() {
  for (int fd : g.listen_fds) {
    g.loop->DelFile(fd, net::kReadable | net::kWritable);
    close(fd);
  }
  g.listen_fds.clear();
}

// unixsocketgroup: a group name or number.
bool SetSocketGroup(const std::string& path, std::string* err) {
  if (cfg.unixsocketgroup.empty()) return true;
  gid_t gid;
  if (struct group* gr = getgrnam(cfg.unixsocketgroup.c_str())) {
    gid = gr->gr_gid;
  } else {
    int64_t n;
    if (!base::ParseInt64(cfg.unixsocketgroup, &n) || n < 0) {
      *err = "Failed to set the group of the unix socket: no group '" + cfg.unixsocketgroup + "'";
      return false;
    }
    gid = static_cast<gid_t>(n);
  }
  if (chown(path.c_str(), static_cast<uid_t>(-1), gid) == -1) {
    *err = "Failed to set the group of the unix socket: " + std::string(strerror(errno));
    return false;
  }
  return true;
}
}  // namespace

bool RebindTcp(std::string* err) {
  // The old sockets go first: the new set may reuse their address and port.
  std::vector<int> fresh;
  CloseListeners();
  if (!OpenTcpListeners(&fresh, err)) {
    LOG_WARNING("%s", err->c_str());
    *err = "Failed to bind to specified addresses.";
    return false;  // CONFIG SET rolls back and calls this again with the old addresses
  }
  g.listen_fds = std::move(fresh);
  WatchListeners();
  return true;
}

bool IsLocalClient(const Client* c) {
  if (c->flags & kUnixSocket) return true;
  std::string_view ip(c->addr);
  size_t colon = ip.rfind(':');
  if (colon != std::string_view::npos) ip = ip.substr(0, colon);
  return ip.substr(0, 4) == "127." || ip == "::1";
}

bool ListenAll(std::string* err) {
  if (!OpenTcpListeners(&g.listen_fds, err)) return false;
  WatchListeners();
  if (!cfg.unixsocket.empty()) {
    std::string e;
    int fd = net::ListenUnix(cfg.unixsocket, static_cast<int>(cfg.tcp_backlog), &e);
    if (fd < 0) {
      *err = "Failed opening Unix socket: " + e;
      return false;
    }
    if (!SetSocketGroup(cfg.unixsocket, err)) return false;
    if (cfg.unixsocketperm) chmod(cfg.unixsocket.c_str(), static_cast<mode_t>(cfg.unixsocketperm));
    g.unix_fd = fd;
    g.loop->AddFile(fd, net::kReadable, AcceptHandler, reinterpret_cast<void*>(1));
  }
  if (cfg.port == 0 && cfg.unixsocket.empty()) {
    *err = "Configured to not listen anywhere, exiting.";
    return false;
  }
  return true;
}

void SelectDb(Client* c, int id) {
  c->dbid = id;
  c->db = GetDb(id);
}

namespace {
// Releases everything a client holds; every way out of the server goes through here.
void Destroy(Client* c) {
  ReleaseClientState(c);
  g.loop->DelStream(c->conn.fd);  // its queued send goes out before the close
  g.loop->DelFile(c->conn.fd, net::kReadable | net::kWritable);
  // A forked child holds a copy of the socket: without the shutdown the peer would see the
  // close only when the child exits (a killed client left hanging for a whole BGSAVE), as
  // Valkey 8's unlinkClient does it.
  if (ForkedChildRunning()) shutdown(c->conn.fd, SHUT_RDWR);
  close(c->conn.fd);
  g.clients.remove(c);
  g.clients_by_id.erase(c->id);
  delete c;
}
}  // namespace

void ReleaseClientState(Client* c) {
  if (g.current_client == c) g.current_client = nullptr;
  UnwatchAll(c);
  PubsubUnsubscribeAll(c);
  TrackingClientFreed(c);
  RemoveMonitor(c);
  UnblockFreed(c);
  Repl().client_freed(c);  // also releases c->repl
  Cluster().client_freed(c);
  auto drop = [c](std::vector<Client*>& v) {
    v.erase(std::remove(v.begin(), v.end(), c), v.end());
  };
  drop(g.pending_writes);
  drop(g.paused_clients);
  drop(g.unblocked);
  drop(g.resume_input);
  drop(g.close_queue);
  drop(g.obuf_soft_clients);
}

void FreeClient(Client* c) {
  if (c->flags & kProtected) {
    CloseAsync(c);
    return;
  }
  Destroy(c);
}

Client* AdoptConnection(int fd, const std::string& addr) {
  Client* c = CreateClient(fd, false);
  if (c) c->addr = addr;
  return c;
}

void SealOutputIfLarge(Client* c) {
  if (c->flags & (kReplica | kPrimary)) return;  // their offsets point into conn.out
  if (c->conn.out.size() - c->conn.out_sent >= net::BufferedConn::kSealBlock) c->conn.Seal();
}

void QueueWrite(Client* c) {
  if (c->flags & kPendingWrite) return;
  c->flags |= kPendingWrite;
  g.pending_writes.push_back(c);
}

void WriteNow(Client* c) {
  if (c->flags & kCloseAsap) return;
  if (WriteSome(c, false)) AfterWrite(c);
}

void CloseAsync(Client* c) {
  if (c->flags & kCloseAsap) return;
  c->flags |= kCloseAsap;
  g.close_queue.push_back(c);
}

bool CheckOutputLimits(Client* c) {
  if (c->flags & kPrimary) return true;  // our primary's link is never cut for its replies
  const OutputLimit& lim = (c->flags & kReplica) ? cfg.obuf_replica
                           : c->pubsub           ? cfg.obuf_pubsub
                                                 : cfg.obuf_normal;
  // Valkey 8 counts a client's reply list, what does not fit its 16 KB reply buffer (a replica's
  // stream has no such buffer): a reply of a few KB never closes a client, whatever the limit.
  uint64_t used = c->PendingOutput();
  if (!(c->flags & kReplica)) {
    // Within the buffer no limit can apply: return at once (this runs after every command)
    // unless a soft-limit clock runs, which is stopped below.
    if (used <= kReplyBufferBytes && !c->obuf_soft_since_ms) return true;
    used = used > kReplyBufferBytes ? used - kReplyBufferBytes : 0;
  }
  uint64_t hard_limit = lim.hard;
  if (c->flags & kReplica) {
    // A replica's output is the replication buffer it holds. A hard limit below
    // repl-backlog-size counts as that size, as in Valkey 8: a replica that just continued by
    // PSYNC from a full backlog would be cut at once, for memory the backlog holds anyway.
    size_t blocks;
    used += Repl().replica_held_output(c, &blocks);
    if (hard_limit && hard_limit < static_cast<uint64_t>(cfg.repl_backlog_size))
      hard_limit = static_cast<uint64_t>(cfg.repl_backlog_size);
  }
  bool hard = hard_limit && used >= hard_limit;
  bool soft = false;
  if (lim.soft && used >= lim.soft) {
    // In whole seconds, as Valkey 8 counts them: past the limit for more than soft_seconds
    // seconds of the clock (so between soft_seconds and one more).
    int64_t now_s = base::MsTime() / 1000;
    if (!c->obuf_soft_since_ms) {
      c->obuf_soft_since_ms = now_s * 1000;
      g.obuf_soft_clients.push_back(c);
    } else if (now_s - c->obuf_soft_since_ms / 1000 > lim.soft_seconds)
      soft = true;
  } else {
    c->obuf_soft_since_ms = 0;
  }
  if (hard || soft) {
    LOG_WARNING("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
                ClientInfoForLog(c).c_str());
    g.stats.client_outbuf_limit_disconnections++;
    c->conn.out.clear();
    c->conn.out_sent = 0;
    CloseAsync(c);
    return false;
  }
  return true;
}

namespace {
// Pipelined commands: while one runs, the next command's key object and the bucket of the one
// after it are loaded (a lookup otherwise waits on memory twice, bucket then object: a third of
// GET's time at -P16). Each is a command's second argument, usually its first key; when it is
// not, a load is wasted, nothing else.
// Below kPrefetchMinKeys keys the tables and objects stay in the caches and the peeks would
// cost (7% of GET -P16 on one key) without saving a wait.
constexpr size_t kPrefetchMinKeys = 65536;
void PrefetchPipelined(Client* c) {
  size_t len = c->conn.in.size(), pos = c->conn.in_pos;
  if (pos >= len || !c->db || c->db->Size() < kPrefetchMinKeys) return;
  const char* buf = c->conn.in.data();
  std::string_view k1, k2, k3;
  size_t next;
  if (!net::PeekCommand(buf, len, pos, &k1, &next)) return;
  c->db->PrefetchKeyObject(k1);
  if (!net::PeekCommand(buf, len, next, &k2, &next)) return;
  c->db->PrefetchKey(k2);
  if (c->db->per_slot() && net::PeekCommand(buf, len, next, &k3, &next))
    c->db->PrefetchKeySlot(k3);  // cluster mode: a slot's tables are one more load away
}
}  // namespace

void ProcessInput(Client* c) {
  net::ParserLimits lim;
  lim.max_bulk_len = cfg.proto_max_bulk_len;
  int64_t slice_end = (c->flags & kInputSliced) ? base::MonotonicUs() + kInputSliceUs : 0;
  CallClockChain chain;
  while (!(c->flags & (kCloseAfterReply | kCloseAsap | kPaused | kBlocked))) {
    if (slice_end && base::MonotonicUs() >= slice_end && c->conn.in_pos < c->conn.in.size()) {
      QueueResume(c);
      break;
    }
    lim.unauthenticated = !c->authenticated;
    lim.trusted = c->flags & kPrimary;
    auto st = c->parser.Parse(c->conn.in.data(), c->conn.in.size(), &c->conn.in_pos, lim);
    if (st == net::RequestParser::kNeedMore) break;
    if (st == net::RequestParser::kEmpty) {
      if (c->flags & kReplica) Repl().replica_newline(c);
      continue;
    }
    if (st == net::RequestParser::kError) {
      std::string err = c->parser.error();
      c->R().Error(err);
      // Garbage from our primary is worth an operator's attention; from clients it is noise.
      int level = (c->flags & kPrimary) ? base::kLogWarning : base::kLogVerbose;
      if (level >= base::GetLogLevel())
        base::Log(level, "Protocol error (%s) from client: %s. %s", ProtocolErrorReason(err),
                  ClientInfoForLog(c).c_str(), ProtocolErrorSample(c).c_str());
      c->flags |= kCloseAfterReply;
      c->parser.Reset();
      c->conn.in.clear();
      c->conn.in_pos = 0;
      break;
    }
    c->argv = c->parser.args();
    size_t argv_bytes = 0;
    for (auto a : c->argv) argv_bytes += a.size();
    c->argv_len_sum = argv_bytes;
    std::string_view raw(c->conn.in.data() + c->parser.LastStart(), c->conn.in_pos - c->parser.LastStart());
    if (slot_stats::On()) slot_stats::RequestParsed(c, raw);
    PrefetchPipelined(c);
    ProcessCommand(c);
    c->argv.clear();
    if (slot_stats::On() && !(c->flags & (kBlocked | kPaused))) slot_stats::RequestDone(c);
    // ASKING lasts one command, unless the client is in MULTI or the command was ASKING.
    if ((c->flags & kAsking) && !(c->flags & kMulti) && c->last_cmd &&
        std::string_view(c->last_cmd->name) != "asking")
      c->flags &= ~kAsking;
    // A blocked or held command keeps its arguments (argv-mem) until it completes.
    if (!(c->flags & (kBlocked | kPaused))) c->argv_len_sum = 0;
    // Our primary's stream counts (offset, backlog, chained replicas) once applied: a command
    // a CLIENT PAUSE holds keeps its bytes until it runs (ReleaseHeldClients), as Valkey 8
    // advances the offset of a postponed command only when it is processed.
    if (c->flags & kPrimary) {
      if (c->flags & kPaused)
        c->held_stream.assign(raw);
      else
        Repl().primary_stream_applied(c, raw);
    }
    SealOutputIfLarge(c);
    if (!(c->flags & kPendingWrite) && c->conn.Pending()) {
      c->flags |= kPendingWrite;
      g.pending_writes.push_back(c);
    }
    // A replica link's limit is checked as its stream grows (repl/primary.cc's FeedReplicas):
    // right after PSYNC it holds the backlog it is about to read, not a reply it ignores.
    if (c->PendingOutput() && !(c->flags & kReplica) && !CheckOutputLimits(c)) break;
  }
  if (!(c->flags & kPendingWrite) && (c->conn.Pending() || (c->flags & kCloseAfterReply))) {
    c->flags |= kPendingWrite;
    g.pending_writes.push_back(c);
  }
  // Drop consumed bytes; keep an unfinished command at the front.
  if (c->conn.in_pos > 0) {
    c->conn.in.erase(0, c->conn.in_pos);
    c->parser.Shift(c->conn.in_pos);
    c->conn.in_pos = 0;
  }
  if (c->conn.in.empty() && c->conn.in.capacity() > 64 * 1024) std::string().swap(c->conn.in);
  // The room a command of many arguments left (its views, 16 bytes each, in three arrays) goes
  // back; a blocked or held command still uses its argv.
  constexpr size_t kKeepArgs = 1024;
  if (c->argv.empty() && c->argv.capacity() > kKeepArgs)
    std::vector<std::string_view>().swap(c->argv);
  c->parser.TrimBetweenCommands(kKeepArgs);
}

bool ResumeSlicedInput() {
  if (g.resume_input.empty()) return false;
  // By id: a client may be freed while another one's input runs.
  std::vector<uint64_t> due;
  for (Client* c : g.resume_input) {
    c->flags &= ~kInputResume;
    due.push_back(c->id);
  }
  g.resume_input.clear();
  for (uint64_t id : due) {
    auto it = g.clients_by_id.find(id);
    if (it == g.clients_by_id.end()) continue;
    Client* c = it->second;
    if (!(c->flags & (kCloseAsap | kPaused | kBlocked))) ProcessInput(c);
    // io_uring: input that had to wait (OnInput) joins once it may, a pass after the one
    // that took the client's share, and up to a share a pass.
    if (!c->StashPending() || (c->flags & kCloseAsap)) continue;
    if (!InputMustWait(c) && c->in_pass != g.loop_pass) DrainStash(c);
    else QueueResume(c);
  }
  return true;
}

bool ProcessUnblockedClients() {
  if (g.unblocked.empty()) return false;
  for (size_t i = 0; i < g.unblocked.size(); i++) {  // grows when a command unblocks others
    Client* c = g.unblocked[i];
    if (!(c->flags & (kCloseAsap | kPaused | kBlocked))) ProcessInput(c);
  }
  g.unblocked.clear();
  return true;
}

void HandleClientsBeforeSleep() {
  // Replies go out only after their writes reached the AOF (and the disk, with always).
  int64_t aof_start = base::FastUs();
  AofFlushBeforeReplies();
  g.stats.el_aof_sum += static_cast<uint64_t>(std::max<int64_t>(0, base::FastUs() - aof_start));
  WriteRepliesAndClose(false);
}

void HandleClientsWhileLoading() {
  AofFlushBeforeReplies();
  WriteRepliesAndClose(true);
  g.loop->SubmitQueued();  // io_uring: the replies go now, not with the load's end
}

size_t ClientMemory(const Client* c) {
  // WATCHed keys and subscriptions count by their entries (as Valkey 8's getClientMemoryUsage,
  // which counts their list nodes and dict entries): a client cannot grow past
  // maxmemory-clients by watching or subscribing.
  size_t entries = c->watched.size() * sizeof(c->watched[0]);
  if (c->pubsub)
    entries += (c->pubsub->channels.size() + c->pubsub->patterns.size() +
                c->pubsub->shard_channels.size()) *
               (sizeof(std::string) + 3 * sizeof(void*));  // a hash node and its bucket
  // BCAST prefixes: each held by the client and by the node's prefix table (Valkey 8 counts
  // them too), so a client cannot grow past maxmemory-clients by adding prefixes.
  if (c->tracking) entries += c->tracking->prefix_bytes;
  return c->conn.in.capacity() + c->conn.OutputAllocated() + c->argv_len_sum + c->multi_argv_mem +
         sizeof(Client) + entries;
}

std::string ClientInfoLine(const Client* c, bool hide_user_data) {
  int64_t now = base::MsTime();
  std::string flags;
  if (c->pubsub) flags += "P";
  if (c->flags & kReplica) flags += "S";
  if (c->flags & kMonitor) flags += "O";
  if (c->flags & kPrimary) flags += "M";
  if (c->flags & kMulti) flags += "x";
  if (c->flags & kCloseAfterReply) flags += "c";
  if (c->flags & kCloseAsap) flags += "A";
  if (c->flags & kUnixSocket) flags += "U";
  if (c->flags & kReadonly) flags += "r";
  if (c->flags & kDirtyCas) flags += "d";
  if (c->flags & (kPaused | kBlocked)) flags += "b";
  if (c->tracking) flags += "t";
  if (c->tracking && c->tracking->broken_redirect) flags += "R";
  if (c->tracking && c->tracking->bcast) flags += "B";
  if (c->flags & kNoTouch) flags += "T";
  if (flags.empty()) flags = "N";
  std::string events = "r";
  if (g.loop && (g.loop->FileMask(c->conn.fd) & net::kWritable)) events += "w";
  // argv-mem: the command being executed or held, or the arguments of an unfinished one.
  size_t argv_mem = c->argv_len_sum + c->parser.PartialArgsBytes();
  // oll and omem: Valkey counts the blocks of its reply list (used once its 16 KB reply buffer
  // is full) and their memory; ours are the sealed blocks of a backlog (BufferedConn::Seal),
  // and what `out` holds unsent beyond the first 16 KB (an idle client shows 0, as in Valkey).
  // A replica's are the replication buffer's blocks it holds, as Valkey 8 counts them.
  size_t repl_blocks = 0;
  const size_t repl_held = c->repl ? Repl().replica_held_output(c, &repl_blocks) : 0;
  const size_t oll = c->conn.sealed.size() + repl_blocks;
  // A queued send's buffer (io_uring) is `out`'s other half: the reply buffer too.
  const size_t unsent_out = c->conn.out.size() - c->conn.out_sent + c->conn.inflight.size();
  const size_t omem = c->conn.OutputAllocated() - c->conn.out.capacity() -
                      c->conn.inflight.capacity() +
                      (unsent_out > kReplyBufferBytes ? unsent_out - kReplyBufferBytes : 0) +
                      repl_held;
  auto fmt = [&](char* buf, size_t size) {
    return snprintf(
        buf, size,
        "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%zu "
        "psub=%zu ssub=%zu multi=%d watch=%zu qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu "
        "rbs=%zu rbp=%zu obl=%zu oll=%zu omem=%zu tot-mem=%zu events=%s cmd=%s user=%s "
        "redir=%lld resp=%d lib-name=%s lib-ver=%s tot-net-in=%llu tot-net-out=%llu tot-cmds=%llu",
        static_cast<unsigned long long>(c->id), c->addr.c_str(), c->laddr.c_str(), c->conn.fd,
        hide_user_data ? kRedacted : c->name.c_str(),
        static_cast<long long>((now - c->ctime_ms) / 1000),
        static_cast<long long>((now - c->last_interaction_ms) / 1000), flags.c_str(), c->dbid,
        c->pubsub ? c->pubsub->channels.size() : 0, c->pubsub ? c->pubsub->patterns.size() : 0,
        c->pubsub ? c->pubsub->shard_channels.size() : 0,
        (c->flags & kMulti) ? static_cast<int>(c->mstate.size()) : -1, c->watched.size(),
        c->conn.in.size() - c->conn.in_pos, c->conn.in.capacity() - c->conn.in.size(), argv_mem, c->multi_argv_mem,
        c->conn.in.capacity(), c->qbuf_peak, c->PendingOutput(), oll, omem,
        ClientMemory(c) + repl_held, events.c_str(),
        c->last_cmd ? c->last_cmd->fullname.c_str() : "NULL",
        hide_user_data ? kRedacted : (c->user ? c->user->name.c_str() : "default"),
        c->tracking ? static_cast<long long>(c->tracking->redirect) : -1LL, c->resp, c->lib_name.c_str(), c->lib_ver.c_str(),
        static_cast<unsigned long long>(c->net_input_bytes),
        static_cast<unsigned long long>(c->net_output_bytes),
        static_cast<unsigned long long>(c->commands_processed));
  };
  char buf[1024];
  int n = fmt(buf, sizeof(buf));
  if (n < static_cast<int>(sizeof(buf))) return std::string(buf, n > 0 ? n : 0);
  std::string out(static_cast<size_t>(n) + 1, '\0');  // long names or library names
  fmt(out.data(), out.size());
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string ClientInfoForLog(const Client* c) {
  return ClientInfoLine(c, cfg.hide_user_data_from_log);
}

void ClientsCron() {
  // The soft output limit of clients that nothing was sent to since they went over it.
  if (!g.obuf_soft_clients.empty()) {
    std::vector<Client*> over;
    over.swap(g.obuf_soft_clients);
    // A client that went below and over again between two passes is listed twice.
    std::sort(over.begin(), over.end());
    over.erase(std::unique(over.begin(), over.end()), over.end());
    for (Client* c : over) {
      if (!c->obuf_soft_since_ms || (c->flags & kCloseAsap)) continue;
      g.obuf_soft_clients.push_back(c);  // back on the list while over (it may leave below)
      CheckOutputLimits(c);
    }
  }
  if (cfg.timeout <= 0) return;
  int64_t now = base::MsTime();
  std::vector<Client*> idle;
  for (Client* c : g.clients) {
    if (c->flags & (kPaused | kBlocked | kReplica | kPrimary)) continue;
    if (c->pubsub) continue;  // subscribers wait for messages: never idle
    if (now - c->last_interaction_ms > cfg.timeout * 1000) idle.push_back(c);
  }
  for (Client* c : idle) {
    if (base::GetLogLevel() <= base::kLogVerbose)
      LOG_VERBOSE("Closing idle client %s", ClientInfoForLog(c).c_str());
    CloseAsync(c);
  }
}

}  // namespace server
