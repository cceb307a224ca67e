// Blocked-client registry.
#include "server/blocking.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "base/time.h"
#include "base/util.h"
#include "server/command.h"
#include "server/dispatch.h"
#include "server/server.h"

namespace server {
namespace {
struct KeyId {
  int dbid;
  std::string key;
  bool operator<(const KeyId& o) const { return dbid != o.dbid ? dbid < o.dbid : key < o.key; }
};

std::map<KeyId, std::deque<Client*>> g_waiting;     // key -> clients in arrival order
std::unordered_map<Client*, BlockState> g_blocked;  // client -> its block
std::vector<KeyId> g_ready;                         // keys signalled this command
std::set<KeyId> g_ready_set;
bool g_handling = false;

std::vector<Client*> g_wait_clients;  // the kReplicas blocks, in arrival order

// What a block answers when it ends without its condition (timeout, CLIENT UNBLOCK): blocked
// list/zset commands a null array, WAIT the replicas acknowledged so far.
void ReplyTimeout(Client* c, const BlockState& st) {
  if (st.kind == BlockState::kReplicas)
    c->R().Int(st.acked(st.offset));
  else
    c->R().NullArray();
}

// A block that ends without running its command again (timeout, CLIENT UNBLOCK, WAIT
// satisfied, forced unblock) completes the command here: it counts once, as Call counts a
// command that did not block, and its arguments leave argv-mem.
void Completed(Client* c) {
  c->cmd->stats.calls++;
  g.stats.total_commands_processed++;
  c->commands_processed++;
  c->argv_len_sum = 0;
}

void QueueWriteAndResume(Client* c) {
  if (!(c->flags & kPendingWrite)) {
    c->flags |= kPendingWrite;
    g.pending_writes.push_back(c);
  }
  g.unblocked.push_back(c);  // continue with its pipelined input
}
}  // namespace

bool ParseBlockTimeout(Client* c, std::string_view arg, int64_t* deadline_ms) {
  long double secs;
  if (!base::ParseLongDouble(arg, &secs)) {
    c->R().Error("timeout is not a float or out of range");
    return false;
  }
  if (std::isinf(secs)) {
    c->R().Error("timeout is out of range");
    return false;
  }
  if (secs < 0) {
    c->R().Error("timeout is negative");
    return false;
  }
  long double ms = secs * 1000.0L;
  if (ms > static_cast<long double>(INT64_MAX / 2)) {
    c->R().Error("timeout is out of range");
    return false;
  }
  int64_t t = static_cast<int64_t>(std::ceil(ms));
  *deadline_ms = t == 0 ? 0 : base::MsTime() + t;
  return true;
}

void BlockForKeys(Client* c, const std::vector<std::string_view>& keys, int64_t deadline_ms,
                  db::Type type, bool null_array_on_timeout) {
  BlockState st;
  st.deadline_ms = deadline_ms;
  st.dbid = c->dbid;
  st.type = type;
  st.null_array_on_timeout = null_array_on_timeout;
  if (g.in_exec || (c->flags & kMulti)) {
    // Inside a transaction nothing blocks: the "no data" reply of the command is sent now.
    if (null_array_on_timeout)
      c->R().NullArray();
    else
      c->R().Null();
    return;
  }
  if (g_blocked.count(c)) return;  // re-executed while still blocked: keep its place
  for (auto k : keys) {
    std::string key(k);
    if (std::find(st.keys.begin(), st.keys.end(), key) != st.keys.end()) continue;
    st.keys.push_back(key);
    g_waiting[{c->dbid, key}].push_back(c);
  }
  c->held_argv.assign(c->argv.begin(), c->argv.end());
  c->flags |= kBlocked;
  g_blocked[c] = std::move(st);
}

void BlockForReplicas(Client* c, int64_t offset, int64_t numreplicas, int64_t deadline_ms,
                      AckCounter acked) {
  BlockState st;
  st.kind = BlockState::kReplicas;
  st.deadline_ms = deadline_ms;
  st.offset = offset;
  st.numreplicas = numreplicas;
  st.acked = acked;
  c->flags |= kBlocked;
  g_blocked[c] = std::move(st);
  g_wait_clients.push_back(c);
}

void HandleReplicaAcks() {
  if (g_wait_clients.empty()) return;
  std::vector<Client*> done;
  for (Client* c : g_wait_clients) {
    const BlockState& st = g_blocked[c];
    if (st.acked(st.offset) >= st.numreplicas) done.push_back(c);
  }
  for (Client* c : done) {
    BlockState st = g_blocked[c];
    Unblock(c);
    ReplyTimeout(c, st);  // the count, as on timeout
    Completed(c);
    QueueWriteAndResume(c);
  }
}

void DisconnectAllBlockedClients() {
  std::vector<Client*> all;
  for (auto& [c, st] : g_blocked) all.push_back(c);
  for (Client* c : all) {
    Unblock(c);
    c->held_argv.clear();
    c->R().Error(
        "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
        "replica?)");
    c->flags |= kCloseAfterReply;
    Completed(c);
    QueueWriteAndResume(c);
  }
}

void KeyReady(int dbid, std::string_view key) {
  if (g_waiting.empty()) return;
  KeyId id{dbid, std::string(key)};
  if (!g_waiting.count(id) || g_ready_set.count(id)) return;
  g_ready_set.insert(id);
  g_ready.push_back(std::move(id));
}

void Unblock(Client* c) {
  auto it = g_blocked.find(c);
  if (it == g_blocked.end()) return;
  for (auto& k : it->second.keys) {
    auto w = g_waiting.find({it->second.dbid, k});
    if (w == g_waiting.end()) continue;
    auto& q = w->second;
    q.erase(std::remove(q.begin(), q.end(), c), q.end());
    if (q.empty()) g_waiting.erase(w);
  }
  if (it->second.kind == BlockState::kReplicas)
    g_wait_clients.erase(std::remove(g_wait_clients.begin(), g_wait_clients.end(), c),
                         g_wait_clients.end());
  g_blocked.erase(it);
  c->flags &= ~kBlocked;
}

void HandleReadyKeys() {
  if (g_handling) return;
  g_handling = true;
  // Serving a client may ready further keys (BLMOVE pushes): loop until quiet.
  while (!g_ready.empty()) {
    std::vector<KeyId> ready;
    ready.swap(g_ready);
    g_ready_set.clear();
    for (auto& id : ready) {
      // Serve waiters in arrival order while the key still has data of their type.
      while (true) {
        auto w = g_waiting.find(id);
        if (w == g_waiting.end() || w->second.empty()) break;
        db::Db* d = GetDb(id.dbid);
        UpdateCommandTime();
        db::Obj* o = d->Lookup(id.key);
        Client* c = w->second.front();
        BlockState& st = g_blocked[c];
        if (!o || o->type() != st.type) break;
        Unblock(c);
        std::vector<std::string> argv = std::move(c->held_argv);
        c->held_argv.clear();
        c->argv.assign(argv.begin(), argv.end());
        const CommandSpec* cmd = c->cmd;  // the command that blocked
        int saved_db = c->dbid;
        SelectDb(c, id.dbid);
        // The world may have changed while it waited: the same checks as a fresh command.
        if (PassesGate(c, cmd)) Call(c, cmd);
        SelectDb(c, saved_db);
        c->argv.clear();
        if (!(c->flags & kBlocked)) c->argv_len_sum = 0;
        QueueWriteAndResume(c);
      }
    }
  }
  g_handling = false;
}

int64_t HandleBlockedTimeouts() {
  if (g_blocked.empty()) return -1;
  int64_t now = base::MsTime();
  int64_t next = -1;
  std::vector<Client*> expired;
  for (auto& [c, st] : g_blocked) {
    if (!st.deadline_ms) continue;
    if (st.deadline_ms <= now)
      expired.push_back(c);
    else if (next < 0 || st.deadline_ms - now < next)
      next = st.deadline_ms - now;
  }
  for (Client* c : expired) {
    BlockState st = g_blocked[c];
    Unblock(c);
    c->held_argv.clear();
    ReplyTimeout(c, st);
    Completed(c);
    QueueWriteAndResume(c);
  }
  return next;
}

bool UnblockByRequest(Client* c, bool with_error) {
  auto it = g_blocked.find(c);
  if (it == g_blocked.end()) return false;
  BlockState st = it->second;
  Unblock(c);
  c->held_argv.clear();
  if (with_error)
    c->R().Error("-UNBLOCKED client unblocked via CLIENT UNBLOCK");
  else
    ReplyTimeout(c, st);
  Completed(c);
  QueueWriteAndResume(c);
  return true;
}

void ForEachKeyBlocked(void (*fn)(Client* c, const BlockState& st, void* arg), void* arg) {
  for (auto& [c, st] : g_blocked)
    if (st.kind == BlockState::kKeys) fn(c, st, arg);
}

void UnblockWithError(Client* c, std::string_view err) {
  if (!g_blocked.count(c)) return;
  Unblock(c);
  c->held_argv.clear();
  c->R().Error(err);
  Completed(c);
  QueueWriteAndResume(c);
}

size_t BlockedClientCount() { return g_blocked.size(); }
size_t BlockingKeyCount() { return g_waiting.size(); }

}  // namespace server
