// MULTI / EXEC / DISCARD / WATCH / UNWATCH.
#include "server/transactions.h"

#include <algorithm>
#include <unordered_map>

#include "base/crc16.h"
#include "server/acl.h"
#include "server/aof.h"
#include "server/dispatch.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/write_out.h"

namespace server {
namespace {
struct WatchEntry {
  std::vector<Client*> clients;
};
// Per db: key -> clients watching it.
std::unordered_map<int, std::unordered_map<std::string, WatchEntry>> g_watched;
// Keys that were already logically expired when watched (their expiry is not a change).
std::unordered_map<Client*, std::vector<std::pair<int, std::string>>> g_expired_at_watch;

void Watch(Client* c, std::string_view key) {
  for (auto& [db, k] : c->watched)
    if (db == c->dbid && k == key) return;
  c->watched.emplace_back(c->dbid, std::string(key));
  g_watched[c->dbid][std::string(key)].clients.push_back(c);
  db::Obj* o = c->db->Find(key);
  if (o && c->db->IsExpired(o)) g_expired_at_watch[c].emplace_back(c->dbid, std::string(key));
}

// Whether c's watch of key was of a key already expired then; `set`/`clear` change that.
bool ExpiredAtWatch(Client* c, int dbid, const std::string& key) {
  auto it = g_expired_at_watch.find(c);
  if (it == g_expired_at_watch.end()) return false;
  for (auto& p : it->second)
    if (p.first == dbid && p.second == key) return true;
  return false;
}
void SetExpiredAtWatch(Client* c, int dbid, const std::string& key, bool on) {
  auto& v = g_expired_at_watch[c];
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const auto& p) { return p.first == dbid && p.second == key; }),
          v.end());
  if (on) v.emplace_back(dbid, key);
  if (v.empty()) g_expired_at_watch.erase(c);
}

// Present and not logically expired.
bool LiveIn(int dbid, const std::string& key) {
  db::Db* d = GetDb(dbid);
  db::Obj* o = d->Find(key);
  return o && !d->IsExpired(o);
}
bool ExpiredIn(int dbid, const std::string& key) {
  db::Db* d = GetDb(dbid);
  db::Obj* o = d->Find(key);
  return o && d->IsExpired(o);
}

bool WatchedKeyExpired(Client* c) {
  auto wasexp = g_expired_at_watch.find(c);
  for (auto& [dbid, key] : c->watched) {
    db::Db* d = GetDb(dbid);
    db::Obj* o = d->Find(key);
    if (!o || !d->IsExpired(o)) continue;
    bool before = false;
    if (wasexp != g_expired_at_watch.end())
      for (auto& p : wasexp->second)
        if (p.first == dbid && p.second == key) before = true;
    if (!before) return true;
  }
  return false;
}

void MultiCommand(Client* c) {
  c->flags |= kMulti;
  c->R().Ok();
}

void DiscardCommand(Client* c) {
  if (!c->InMulti()) {
    c->R().Error("DISCARD without MULTI");
    return;
  }
  DiscardTransaction(c);
  c->R().Ok();
}

void ExecCommand(Client* c) {
  if (!c->InMulti()) {
    c->R().Error("EXEC without MULTI");
    return;
  }
  if (c->flags & kDirtyExec) {
    c->R().Error("-EXECABORT Transaction discarded because of previous errors.");
    DiscardTransaction(c);
    return;
  }
  if ((c->flags & kDirtyCas) || WatchedKeyExpired(c)) {
    c->R().NullArray();
    DiscardTransaction(c);
    return;
  }
  UnwatchAll(c);
  std::vector<QueuedCommand> queue = std::move(c->mstate);
  c->mstate.clear();
  c->flags &= ~(kMulti | kDirtyCas | kDirtyExec);
  c->R().ArrayLen(static_cast<int64_t>(queue.size()));
  std::vector<std::string_view> saved = c->argv;
  g.in_exec = true;
  WriteOutBegin();
  for (auto& q : queue) {
    c->argv.assign(q.argv.begin(), q.argv.end());
    // Permissions may have changed since the command was queued.
    if (c->user && !c->user->unrestricted) {
      std::string err;
      if (!acl::CheckCommand(c, q.cmd, c->argv, "multi", &err)) {
        c->R().Error(err);
        continue;
      }
    }
    Call(c, q.cmd);
  }
  WriteOutEnd();
  if (AofActive()) c->aof_woff = AofStreamOffset();
  c->woff = Repl().offset();  // the transaction's writes left at EXEC
  g.in_exec = false;
  c->argv = saved;
  c->multi_argv_mem = 0;
}

void WatchCommand(Client* c) {
  for (size_t i = 1; i < c->argv.size(); i++) Watch(c, c->argv[i]);
  c->R().Ok();
}

void UnwatchCommand(Client* c) {
  UnwatchAll(c);
  c->flags &= ~kDirtyCas;
  c->R().Ok();
}
}  // namespace

void QueueCommand(Client* c, const CommandSpec* cmd) {
  QueuedCommand q;
  q.cmd = cmd;
  q.argv.assign(c->argv.begin(), c->argv.end());
  c->mstate.push_back(std::move(q));
  // multi-mem as Valkey counts it: argument bytes plus one object pointer per argument.
  for (auto a : c->argv) c->multi_argv_mem += a.size() + sizeof(void*);
  c->R().Simple("QUEUED");
}

void DiscardTransaction(Client* c) {
  c->mstate.clear();
  c->multi_argv_mem = 0;
  c->flags &= ~(kMulti | kDirtyCas | kDirtyExec);
  UnwatchAll(c);
}

void UnwatchAll(Client* c) {
  for (auto& [dbid, key] : c->watched) {
    auto dit = g_watched.find(dbid);
    if (dit == g_watched.end()) continue;
    auto kit = dit->second.find(key);
    if (kit == dit->second.end()) continue;
    auto& v = kit->second.clients;
    v.erase(std::remove(v.begin(), v.end(), c), v.end());
    if (v.empty()) dit->second.erase(kit);
    if (dit->second.empty()) g_watched.erase(dit);
  }
  c->watched.clear();
  g_expired_at_watch.erase(c);
}

// Valkey 8's rules for keys that were already expired when watched: their deletion (or a
// flush) is no logical change, a new value is.
void TouchWatchedKey(int dbid, std::string_view key) {
  if (g_watched.empty()) return;
  auto dit = g_watched.find(dbid);
  if (dit == g_watched.end()) return;
  std::string k(key);
  auto kit = dit->second.find(k);
  if (kit == dit->second.end()) return;
  for (Client* c : kit->second.clients) {
    if (ExpiredAtWatch(c, dbid, k)) {
      if (!LiveIn(dbid, k)) {  // deleted, or still the expired value
        if (!GetDb(dbid)->Find(k)) SetExpiredAtWatch(c, dbid, k, false);
        continue;
      }
      SetExpiredAtWatch(c, dbid, k, false);  // a new value: a change
    }
    c->flags |= kDirtyCas;
  }
}

// FLUSHDB / FLUSHALL (other -1) and SWAPDB (db `dbid` gets db `other`'s keys), before they
// happen: a watched key changes if it exists on either side, except that an expired key
// going away, or staying expired, is no change, and a missing key replaced by an expired one
// counts as expired from then on.
void TouchAllWatched(int dbid, int other, const std::vector<bool>* slots) {
  for (auto& [db, keys] : g_watched) {
    if (dbid != -1 && db != dbid) continue;
    for (auto& [k, e] : keys) {
      if (slots && !(*slots)[static_cast<size_t>(base::KeySlot(k))]) continue;
      bool in_emptied = GetDb(db)->Find(k) != nullptr;
      bool in_other = other >= 0 && GetDb(other)->Find(k) != nullptr;
      if (!in_emptied && !in_other) continue;
      for (Client* c : e.clients) {
        if (ExpiredAtWatch(c, db, k)) {
          if (!in_other) {
            SetExpiredAtWatch(c, db, k, false);
            continue;
          }
          if (ExpiredIn(other, k)) continue;
        } else if (!in_emptied && ExpiredIn(other, k)) {
          SetExpiredAtWatch(c, db, k, true);
          continue;
        }
        c->flags |= kDirtyCas;
      }
    }
  }
}

void RegisterTransactionCommands(std::vector<CommandSpec>* t) {
  const char* g = "transactions";
  t->push_back({"multi", 1,
                kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoMulti | kCmdAllowBusy,
                MultiCommand, g, "1.2.0", "Begins queueing commands for EXEC.", "O(1)"});
  t->push_back({"exec", 1, kCmdNoScript | kCmdLoading | kCmdStale | kCmdSkipSlowlog, ExecCommand, g,
                "1.2.0", "Runs the commands queued since MULTI as one unit.",
                "Depends on commands in the transaction"});
  t->push_back({"discard", 1, kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy,
                DiscardCommand, g, "2.0.0", "Drops the commands queued since MULTI.", "O(N)"});
  t->push_back({"watch", -2,
                kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoMulti | kCmdAllowBusy,
                WatchCommand, g, "2.2.0",
                "Makes the next EXEC fail if any of these keys changes first.", "O(1)"});
  t->push_back({"unwatch", 1, kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy,
                UnwatchCommand, g, "2.2.0", "Stops watching every key of this connection.",
                "O(N)"});
}

}  // namespace server
