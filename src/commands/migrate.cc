// MIGRATE: moves keys to another node as RESTORE commands over cached connections, with
// blocking I/O bounded by the command's timeout (the event loop waits, as in Valkey).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/time.h"
#include "base/util.h"
#include "commands/common.h"
#include "net/buffered_conn.h"
#include "net/event_loop.h"
#include "net/reply.h"
#include "net/socket.h"
#include "persist/object_codec.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;

constexpr size_t kMaxCachedConnections = 64;
constexpr int64_t kIdleCloseMs = 10000;
// Each chunk written, and each reply read, gets the whole timeout (Valkey's rule: the timeout
// bounds the time without progress, not the transfer).
constexpr size_t kWriteChunk = 64 * 1024;
// The replies are status and error lines; anything longer is not a sane target talking.
constexpr size_t kMaxReplyLine = 16 * 1024;

int64_t NowMs() { return base::MonotonicUs() / 1000; }

// ---- Cached connections, by "host:port" as the client spelled them ----

struct TargetConn {
  int fd = -1;
  int64_t dbid = -1;  // the db selected on the link; -1: unknown, SELECT next time
  int64_t last_use_ms = 0;
};

std::unordered_map<std::string, TargetConn>& Conns() {
  static std::unordered_map<std::string, TargetConn> m;
  return m;
}

void CloseConn(const std::string& name) {
  auto it = Conns().find(name);
  if (it == Conns().end()) return;
  close(it->second.fd);
  Conns().erase(it);
}

// The port as Valkey reads it (atoi): leading blanks, a sign, digits; the rest ignored.
int PortOf(std::string_view s) {
  std::string z(s);
  return static_cast<int>(std::strtol(z.c_str(), nullptr, 10));
}

// The cached connection to host:port, or a new one (the least recently used one makes room
// when the cache is full). nullptr when the connection cannot be made within the timeout.
TargetConn* GetConn(const std::string& name, const std::string& host, std::string_view port,
                    int64_t timeout_ms) {
  auto& conns = Conns();
  if (auto it = conns.find(name); it != conns.end()) {
    it->second.last_use_ms = NowMs();
    return &it->second;
  }
  if (conns.size() >= kMaxCachedConnections) {
    auto oldest = conns.begin();
    for (auto it = conns.begin(); it != conns.end(); ++it)
      if (it->second.last_use_ms < oldest->second.last_use_ms) oldest = it;
    CloseConn(oldest->first);
  }
  std::string err;
  int fd = net::ConnectTcp(host, PortOf(port), &err);
  if (fd < 0) return nullptr;
  // As in Valkey, writability ends the connect: a refused connection shows at the first write
  // ("error or timeout writing"), which is what a Valkey source replies for a closed port.
  if (!net::WaitFd(fd, net::kWritable, timeout_ms)) {
    close(fd);
    return nullptr;
  }
  TargetConn& tc = conns[name];
  tc.fd = fd;
  tc.last_use_ms = NowMs();
  return &tc;
}

// ---- Synchronous I/O with the target ----

enum class Io { kOk, kError, kTimeout, kGarbage };

Io WriteAll(int fd, std::string_view data, int64_t timeout_ms) {
  size_t pos = 0;
  while (pos < data.size()) {
    size_t chunk_end = std::min(data.size(), pos + kWriteChunk);
    int64_t deadline = NowMs() + timeout_ms;
    while (pos < chunk_end) {
      net::IoResult io = net::WriteOnce(fd, data.data() + pos, chunk_end - pos);
      if (io.status == net::IoResult::kOk) {
        pos += io.bytes;
        continue;
      }
      if (io.Failed()) return Io::kError;
      if (!net::WaitFd(fd, net::kWritable, deadline - NowMs())) return Io::kTimeout;
    }
  }
  return Io::kOk;
}

// Reads the target's replies, each a status (+) or error (-) line. Another reply type, a line
// beyond kMaxReplyLine or a line without its end in time is never taken for an answer: a
// confused or hostile target must not make a key look moved.
class ReplyReader {
 public:
  ReplyReader(int fd, int64_t timeout_ms) : timeout_ms_(timeout_ms) { conn_.fd = fd; }

  Io Next(std::string* line) {
    int64_t deadline = NowMs() + timeout_ms_;
    for (;;) {
      size_t eol = conn_.in.find('\n', conn_.in_pos);
      if (eol != std::string::npos) return TakeLine(eol, line);
      if (conn_.in.size() - conn_.in_pos > kMaxReplyLine) return Io::kGarbage;
      conn_.CompactIn();
      net::IoResult io = conn_.Read(16 * 1024);
      if (io.status == net::IoResult::kOk) continue;
      if (io.Failed()) return Io::kError;
      if (!net::WaitFd(conn_.fd, net::kReadable, deadline - NowMs())) return Io::kTimeout;
    }
  }

  // Bytes after the last expected reply: the link is out of step, never reuse it.
  bool HasUnread() const { return conn_.in_pos < conn_.in.size(); }

 private:
  Io TakeLine(size_t eol, std::string* line) {
    size_t len = eol - conn_.in_pos;
    if (len > kMaxReplyLine) return Io::kGarbage;
    line->assign(conn_.in, conn_.in_pos, len);
    conn_.in_pos = eol + 1;
    if (!line->empty() && line->back() == '\r') line->pop_back();
    if (line->empty() || ((*line)[0] != '+' && (*line)[0] != '-')) return Io::kGarbage;
    return Io::kOk;
  }

  net::BufferedConn conn_;  // borrows the cached connection's fd; never closes it
  int64_t timeout_ms_;
};

// ---- The command ----

struct MigrateArgs {
  bool copy = false, replace = false, auth = false;
  std::string_view user, password;  // user empty: AUTH <password>
  bool has_user = false;
  size_t first_key = 3, num_keys = 1;
  int64_t timeout_ms = 0, dbid = 0;
};

// Options, then the timeout and the db, in Valkey's order (so the same error wins).
bool ParseMigrateArgs(Client* c, MigrateArgs* m) {
  auto& a = c->argv;
  for (size_t j = 6; j < a.size(); j++) {
    size_t more = a.size() - 1 - j;
    if (base::EqualsNoCase(a[j], "copy")) {
      m->copy = true;
    } else if (base::EqualsNoCase(a[j], "replace")) {
      m->replace = true;
    } else if (base::EqualsNoCase(a[j], "auth") && more >= 1) {
      m->auth = true;
      m->password = a[++j];
    } else if (base::EqualsNoCase(a[j], "auth2") && more >= 2) {
      m->auth = m->has_user = true;
      m->user = a[++j];
      m->password = a[++j];
    } else if (base::EqualsNoCase(a[j], "keys")) {
      if (!a[3].empty()) {
        c->R().Error(
            "When using MIGRATE KEYS option, the key argument must be set to the empty string");
        return false;
      }
      m->first_key = j + 1;
      m->num_keys = a.size() - j - 1;
      break;  // the rest are keys
    } else {
      c->R().Error(kErrSyntax);
      return false;
    }
  }
  if (!ArgInt(c, a[5], &m->timeout_ms) || !ArgInt(c, a[4], &m->dbid)) return false;
  if (m->timeout_ms <= 0) m->timeout_ms = 1000;
  m->timeout_ms = std::min<int64_t>(m->timeout_ms, int64_t{1} << 40);  // deadlines cannot overflow
  return true;
}

// What one exchange with the target gave.
struct Exchange {
  Io io = Io::kOk;               // the first I/O failure, if any
  bool writing = false;          // it happened while sending
  size_t replies = 0;            // RESTORE replies read
  bool refused = false;          // the target replied an error (for AUTH, SELECT or a RESTORE)
  std::string error;             // its first one, without the '-'
  std::vector<size_t> restored;  // the keys the target acknowledged
  bool out_of_step = false;      // unexpected bytes followed the replies
};

// Sends [AUTH] [SELECT] and the RESTOREs in one pipeline, then reads every reply. As in
// Valkey, a failed AUTH or SELECT makes every key count as failed.
Exchange Transfer(TargetConn* tc, const MigrateArgs& m, const std::string& restores, size_t nkeys) {
  Exchange ex;
  bool select = tc->dbid != m.dbid;
  std::string head;
  if (m.auth && m.has_user)
    net::AppendCommand(&head, {"AUTH", m.user, m.password});
  else if (m.auth)
    net::AppendCommand(&head, {"AUTH", m.password});
  if (select) net::AppendCommand(&head, {"SELECT", std::to_string(m.dbid)});
  ex.io = WriteAll(tc->fd, head, m.timeout_ms);
  if (ex.io == Io::kOk) ex.io = WriteAll(tc->fd, restores, m.timeout_ms);
  if (ex.io != Io::kOk) {
    ex.writing = true;
    return ex;
  }
  ReplyReader rd(tc->fd, m.timeout_ms);
  std::string auth_reply, select_reply, line;
  if (m.auth && (ex.io = rd.Next(&auth_reply)) != Io::kOk) return ex;
  if (select && (ex.io = rd.Next(&select_reply)) != Io::kOk) return ex;
  for (size_t j = 0; j < nkeys; j++) {
    if ((ex.io = rd.Next(&line)) != Io::kOk) return ex;
    ex.replies++;
    const std::string* err = !auth_reply.empty() && auth_reply[0] == '-'       ? &auth_reply
                             : !select_reply.empty() && select_reply[0] == '-' ? &select_reply
                             : line[0] == '-'                                  ? &line
                                                                               : nullptr;
    if (!err) {
      ex.restored.push_back(j);
    } else if (!ex.refused) {
      ex.refused = true;
      ex.error = err->substr(1);
    }
  }
  ex.out_of_step = rd.HasUnread();
  return ex;
}

// Without COPY the acknowledged keys leave this node, as DEL would remove them, and the
// replicas and the AOF see a DEL of exactly those keys.
void DeleteMoved(Client* c, const std::vector<std::string>& keys, const Exchange& ex) {
  if (ex.restored.empty()) return;
  std::vector<std::string> del{"DEL"};
  for (size_t j : ex.restored) {
    const std::string& k = keys[j];
    if (c->db->DeleteByServer(k)) {
      Modified(c, k);
      Notify(kNotifyGeneric, "del", k, c->dbid);
    }
    del.push_back(k);
  }
  PropagateAs(c, std::move(del));
}

// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS k ...]
void MigrateCommand(Client* c) {
  MigrateArgs m;
  if (!ParseMigrateArgs(c, &m)) return;
  // The keys that exist, each as one RESTORE (RESTORE-ASKING in a cluster: the target may be
  // importing the slot) with its remaining time to live.
  std::vector<std::string> keys;
  std::string restores;
  int64_t now = db::GetEnv().now_ms;
  std::string_view restore = cfg.cluster_enabled ? "RESTORE-ASKING" : "RESTORE";
  for (size_t j = 0; j < m.num_keys; j++) {
    std::string_view k = c->argv[m.first_key + j];
    db::Obj* o = LookupRead(c, k);
    if (!o) continue;
    int64_t ttl = o->has_expire() ? std::max<int64_t>(1, o->expire() - now) : 0;
    std::string payload = persist::EncodeDump(persist::ToValue(o));
    std::string ttl_text = std::to_string(ttl);
    if (m.replace)
      net::AppendCommand(&restores, {restore, k, ttl_text, payload, "REPLACE"});
    else
      net::AppendCommand(&restores, {restore, k, ttl_text, payload});
    keys.emplace_back(k);
  }
  if (keys.empty()) return c->R().Simple("NOKEY");

  std::string host(c->argv[1]);
  std::string name = host + ":" + std::string(c->argv[2]);
  for (bool may_retry = true;; may_retry = false) {
    TargetConn* tc = GetConn(name, host, c->argv[2], m.timeout_ms);
    if (!tc) return c->R().Error("-IOERR error or timeout connecting to the client");
    Exchange ex = Transfer(tc, m, restores, keys.size());
    // A link the target closed while cached fails before any reply: reconnect once. Not after
    // a timeout (the target is slow, not gone) nor after garbage (it would say it again).
    if (ex.io == Io::kError && ex.replies == 0 && may_retry) {
      CloseConn(name);
      continue;
    }
    // After an error the target's db is uncertain: SELECT again next time.
    bool ok = !ex.refused && ex.io == Io::kOk;
    tc->dbid = ok ? m.dbid : -1;
    if (ex.io != Io::kOk || ex.out_of_step) CloseConn(name);
    if (!m.copy) DeleteMoved(c, keys, ex);
    if (ex.refused) return c->R().Error("Target instance replied with error: " + ex.error);
    if (ex.io != Io::kOk)
      return c->R().Error(std::string("-IOERR error or timeout ") +
                          (ex.writing ? "writing" : "reading") + " to target instance");
    return c->R().Ok();
  }
}

}  // namespace
}  // namespace cmd

namespace server {

void MigrateCloseIdleConnections() {
  auto& conns = cmd::Conns();
  if (conns.empty()) return;
  int64_t now = cmd::NowMs();
  for (auto it = conns.begin(); it != conns.end();) {
    if (now - it->second.last_use_ms > cmd::kIdleCloseMs) {
      close(it->second.fd);
      it = conns.erase(it);
    } else {
      ++it;
    }
  }
}

size_t MigrateCachedConnections() { return cmd::Conns().size(); }

void RegisterMigrateCommands(std::vector<CommandSpec>* t) {
  t->push_back({"migrate", -6, kCmdWrite, cmd::MigrateCommand, "generic", "2.6.0",
                "Moves keys to another node, or copies them there.",
                "O(N) to serialise and delete the keys, plus their RESTORE on the target"});
}

}  // namespace server
