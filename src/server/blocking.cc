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
#include "server/slot_stats.h"

namespace server {
namespace {
struct KeyId {
  int dbid;
  std::string key;
  bool operator<(const KeyId& o) const { return dbid != o.dbid ? dbid < o.dbid : key < o.key; }
};

// Every blocked client, indexed by key for wake-ups; the keys readied by the running command.
struct Registry {
  std::map<KeyId, std::deque<Client*>> waiting;     // key -> clients in arrival order
  std::unordered_map<Client*, BlockState> blocked;  // client -> its block
  std::vector<KeyId> ready;                         // keys signalled this command
  std::set<KeyId> ready_set;
  bool handling = false;
  std::vector<Client*> wait_clients;  // the kReplicas blocks, in arrival order
};
Registry blocks_;

// What a block answers when it ends without its condition (timeout, CLIENT UNBLOCK): blocked
// list/zset commands a null array, WAIT the replicas acknowledged so far.
void ReplyTimeout(Client* c, const BlockState& st) {
  if (st.run_when_acked) {
    c->R().Error(st.error);
  } else if (st.waitaof) {
    c->R().ArrayLen(2);
    c->R().Int(st.local_done(st.local_offset) ? 1 : 0);
    c->R().Int(st.acked(st.offset));
  } else if (st.kind == BlockState::kReplicas)
    c->R().Int(st.offset < 0 ? 0 : st.acked(st.offset));
  else
    c->R().NullArray();
}

bool Satisfied(const BlockState& st) {
  if (st.offset < 0 || st.acked(st.offset) < st.numreplicas) return false;
  return !st.waitaof || st.numlocal == 0 || st.local_done(st.local_offset);
}

// A block that ends without running its command again (timeout, CLIENT UNBLOCK, WAIT
// satisfied, forced unblock) completes the command here: it counts once, as Call counts a
// command that did not block, and its arguments leave argv-mem.
void Completed(Client* c, bool failed = false) {
  if (slot_stats::On()) slot_stats::BlockEnded(c);
  // failed: it ended with an error reply (UNBLOCKED)
  c->cmd->stats.Completed(static_cast<uint64_t>(c->blocked_runs_us), failed, cfg.latency_tracking);
  c->blocked_runs_us = 0;
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
  if ((c->flags & kReprocessing) && c->reprocess_deadline_ms >= 0)
    *deadline_ms = c->reprocess_deadline_ms;  // woken and blocking again: the first deadline
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
  if (blocks_.blocked.count(c)) return;  // re-executed while still blocked: keep its place
  for (auto k : keys) {
    std::string key(k);
    if (std::find(st.keys.begin(), st.keys.end(), key) != st.keys.end()) continue;
    st.keys.push_back(key);
    blocks_.waiting[{c->dbid, key}].push_back(c);
  }
  c->held_argv.assign(c->argv.begin(), c->argv.end());
  c->flags |= kBlocked;
  blocks_.blocked[c] = std::move(st);
}

void SetBlockUnblockOnNoKey(Client* c) {
  auto it = blocks_.blocked.find(c);
  if (it != blocks_.blocked.end()) it->second.unblock_on_nokey = true;
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
  blocks_.blocked[c] = std::move(st);
  blocks_.wait_clients.push_back(c);
}

void BlockForAof(Client* c, uint64_t local_offset, int64_t numlocal, int64_t offset,
                 int64_t numreplicas, int64_t deadline_ms, AckCounter acked,
                 bool (*local_done)(uint64_t offset)) {
  BlockForReplicas(c, offset, numreplicas, deadline_ms, acked);
  BlockState& st = blocks_.blocked[c];
  st.waitaof = true;
  st.numlocal = numlocal;
  st.local_offset = local_offset;
  st.local_done = local_done;
}

void BlockForShutdown(Client* c) {
  BlockState st;
  st.kind = BlockState::kShutdown;
  c->flags |= kBlocked;
  blocks_.blocked[c] = std::move(st);
}

void ShutdownBlocksFail(std::string_view err) {
  std::vector<Client*> waiting;
  for (auto& [c, st] : blocks_.blocked)
    if (st.kind == BlockState::kShutdown) waiting.push_back(c);
  for (Client* c : waiting) UnblockWithError(c, err);
}

bool WaitingForLocalSync() {
  for (Client* c : blocks_.wait_clients)
    if (blocks_.blocked[c].waitaof && blocks_.blocked[c].numlocal) return true;
  return false;
}

void BlockUntilReplicated(Client* c, int64_t numreplicas, int64_t deadline_ms, AckCounter acked,
                          std::string error,
                          void (*abandoned)(const std::vector<std::string>& argv)) {
  BlockForReplicas(c, -1, numreplicas, deadline_ms, acked);
  BlockState& st = blocks_.blocked[c];
  st.run_when_acked = true;
  st.error = std::move(error);
  st.abandoned = abandoned;
  c->held_argv.assign(c->argv.begin(), c->argv.end());
}

void SetPendingBlockOffset(Client* c, int64_t offset) {
  auto it = blocks_.blocked.find(c);
  if (it != blocks_.blocked.end() && it->second.kind == BlockState::kReplicas &&
      it->second.offset < 0)
    it->second.offset = offset;
}

void HandleReplicaAcks() {
  if (blocks_.wait_clients.empty()) return;
  std::vector<Client*> done, refused;
  for (Client* c : blocks_.wait_clients) {
    const BlockState& st = blocks_.blocked[c];
    // The AOF was turned off under a WAITAOF that waits for it: it never would be synced (a
    // client with no timeout waited forever). Valkey 8 answers its error then.
    if (st.waitaof && st.numlocal && !cfg.appendonly)
      refused.push_back(c);
    else if (Satisfied(st))
      done.push_back(c);
  }
  for (Client* c : refused) {
    Unblock(c);
    c->R().Error("WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
    Completed(c, true);
    QueueWriteAndResume(c);
  }
  for (Client* c : done) {
    BlockState st = blocks_.blocked[c];
    Unblock(c);
    if (st.run_when_acked) {
      // Replicated: now the command itself, through the gate like any resumed command.
      std::vector<std::string> argv = std::move(c->held_argv);
      c->held_argv.clear();
      c->argv.assign(argv.begin(), argv.end());
      c->flags |= kReplicationDone | kReprocessing;
      if (PassesGate(c, c->cmd))
        Call(c, c->cmd);
      else if (st.abandoned)
        st.abandoned(argv);
      c->flags &= ~(kReplicationDone | kReprocessing);
      c->argv.clear();
      c->argv_len_sum = 0;
      if (slot_stats::On()) slot_stats::RequestDone(c);
    } else {
      ReplyTimeout(c, st);  // the count, as on timeout
      Completed(c);
    }
    QueueWriteAndResume(c);
  }
}

void UnblockFreed(Client* c) {
  auto it = blocks_.blocked.find(c);
  if (it == blocks_.blocked.end()) return;
  auto abandoned = it->second.abandoned;
  std::vector<std::string> argv = std::move(c->held_argv);
  Unblock(c);
  if (abandoned) abandoned(argv);
}

void DisconnectAllBlockedClients() {
  std::vector<Client*> all;
  for (auto& [c, st] : blocks_.blocked) all.push_back(c);
  for (Client* c : all) {
    Unblock(c);
    c->held_argv.clear();
    c->R().Error(
        "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
        "replica?)");
    c->flags |= kCloseAfterReply;
    Completed(c, true);
    QueueWriteAndResume(c);
  }
}

void KeyReady(int dbid, std::string_view key) {
  if (g.staging_writes) return;  // a staging db's key: nobody waits on it
  if (blocks_.waiting.empty()) return;
  KeyId id{dbid, std::string(key)};
  if (!blocks_.waiting.count(id) || blocks_.ready_set.count(id)) return;
  blocks_.ready_set.insert(id);
  blocks_.ready.push_back(std::move(id));
}

void KeysOfDbReady(int dbid) {
  for (auto& [id, q] : blocks_.waiting)
    if (id.dbid == dbid && !blocks_.ready_set.count(id)) {
      blocks_.ready_set.insert(id);
      blocks_.ready.push_back(id);
    }
}

void Unblock(Client* c) {
  auto it = blocks_.blocked.find(c);
  if (it == blocks_.blocked.end()) return;
  for (auto& k : it->second.keys) {
    auto w = blocks_.waiting.find({it->second.dbid, k});
    if (w == blocks_.waiting.end()) continue;
    auto& q = w->second;
    q.erase(std::remove(q.begin(), q.end(), c), q.end());
    if (q.empty()) blocks_.waiting.erase(w);
  }
  if (it->second.kind == BlockState::kReplicas)
    blocks_.wait_clients.erase(
        std::remove(blocks_.wait_clients.begin(), blocks_.wait_clients.end(), c),
        blocks_.wait_clients.end());
  blocks_.blocked.erase(it);
  c->flags &= ~kBlocked;
}

void HandleReadyKeys() {
  if (blocks_.handling) return;
  blocks_.handling = true;
  // Serving a client may ready further keys (BLMOVE pushes): loop until quiet.
  while (!blocks_.ready.empty()) {
    std::vector<KeyId> ready;
    ready.swap(blocks_.ready);
    blocks_.ready_set.clear();
    for (auto& id : ready) {
      // Serve the clients waiting when the key was signalled, in arrival order, while the key
      // still has data of their type. Each is tried once: a stream reader whose IDs are not
      // reached yet blocks again, at the back.
      auto w0 = blocks_.waiting.find(id);
      if (w0 == blocks_.waiting.end()) continue;
      std::vector<Client*> waiters(w0->second.begin(), w0->second.end());
      for (Client* c : waiters) {
        auto w = blocks_.waiting.find(id);
        if (w == blocks_.waiting.end()) break;
        if (std::find(w->second.begin(), w->second.end(), c) == w->second.end()) continue;
        db::Db* d = GetDb(id.dbid);
        // A look without effects, at the clock of the command that signalled the key (as
        // Valkey 8's blocked.c looks, with LOOKUP_NOEFFECTS): a key expired by then counts as
        // absent but stays until a command touches it; a key alive then wakes the waiter,
        // whose own run (Call) reads the clock again and may find it expired. Deleting it here
        // put its UNLINK in the stream at the SWAPDB that signalled it, ahead of the
        // commands after it.
        db::Obj* o = d->Find(id.key);
        if (o && d->IsExpired(o)) o = nullptr;
        BlockState& st = blocks_.blocked[c];
        // A key without data for them: list and sorted-set waiters wait on; a group reader runs
        // again and answers what the command answers now (NOGROUP for a deleted stream, as
        // Valkey 8.0 does). The waiters behind may be of another kind (a BLPOP then an
        // XREADGROUP on one name): each is looked at.
        if ((!o || o->type() != st.type) && !st.unblock_on_nokey) continue;
        int64_t deadline = st.deadline_ms;
        Unblock(c);
        c->reprocess_deadline_ms = deadline;  // a re-run that blocks again keeps its deadline
        std::vector<std::string> argv = std::move(c->held_argv);
        c->held_argv.clear();
        c->argv.assign(argv.begin(), argv.end());
        const CommandSpec* cmd = c->cmd;  // the command that blocked
        int saved_db = c->dbid;
        SelectDb(c, id.dbid);
        // The world may have changed while it waited: the same checks as a fresh command.
        c->flags |= kReprocessing;
        if (PassesGate(c, cmd)) Call(c, cmd);
        c->flags &= ~kReprocessing;
        c->reprocess_deadline_ms = -1;
        SelectDb(c, saved_db);
        c->argv.clear();
        if (!(c->flags & kBlocked)) {
          c->argv_len_sum = 0;
          if (slot_stats::On()) slot_stats::RequestDone(c);
          QueueWriteAndResume(c);
        }
      }
    }
  }
  blocks_.handling = false;
}

int64_t HandleBlockedTimeouts() {
  if (blocks_.blocked.empty()) return -1;
  int64_t now = base::MsTime();
  int64_t next = -1;
  std::vector<Client*> expired;
  for (auto& [c, st] : blocks_.blocked) {
    if (!st.deadline_ms) continue;
    if (st.deadline_ms <= now)
      expired.push_back(c);
    else if (next < 0 || st.deadline_ms - now < next)
      next = st.deadline_ms - now;
  }
  for (Client* c : expired) {
    BlockState st = blocks_.blocked[c];
    Unblock(c);
    ReplyTimeout(c, st);
    if (st.abandoned) st.abandoned(c->held_argv);
    c->held_argv.clear();
    Completed(c);
    QueueWriteAndResume(c);
  }
  return next;
}

bool UnblockByRequest(Client* c, bool with_error) {
  auto it = blocks_.blocked.find(c);
  if (it == blocks_.blocked.end() || it->second.kind == BlockState::kShutdown) return false;
  BlockState st = it->second;
  Unblock(c);
  if (with_error)
    c->R().Error("-UNBLOCKED client unblocked via CLIENT UNBLOCK");
  else
    ReplyTimeout(c, st);
  if (st.abandoned) st.abandoned(c->held_argv);
  c->held_argv.clear();
  Completed(c, with_error);
  QueueWriteAndResume(c);
  return true;
}

void ForEachKeyBlocked(void (*fn)(Client* c, const BlockState& st, void* arg), void* arg) {
  for (auto& [c, st] : blocks_.blocked)
    if (st.kind == BlockState::kKeys) fn(c, st, arg);
}

void UnblockWithError(Client* c, std::string_view err) {
  if (!blocks_.blocked.count(c)) return;
  Unblock(c);
  c->held_argv.clear();
  c->R().Error(err);
  Completed(c, true);
  QueueWriteAndResume(c);
}

size_t BlockedClientCount() { return blocks_.blocked.size(); }
size_t BlockingKeyCount() { return blocks_.waiting.size(); }

size_t BlockingKeyOnNoKeyCount() {
  size_t n = 0;
  for (auto& [id, q] : blocks_.waiting)
    for (Client* c : q) {
      auto it = blocks_.blocked.find(c);
      if (it != blocks_.blocked.end() && it->second.unblock_on_nokey) {
        n++;
        break;
      }
    }
  return n;
}

}  // namespace server
