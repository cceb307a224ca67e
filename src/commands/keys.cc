// Generic keyspace commands: existence, deletion, renaming, scanning, expiry, OBJECT.
#include <algorithm>
#include <climits>

#include "base/glob.h"
#include "base/log.h"
#include "base/util.h"
#include "commands/common.h"
#include "persist/object_codec.h"
#include "server/blocking.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/evict.h"
#include "server/lazyfree.h"
#include "server/memory_report.h"
#include "server/notify.h"
#include "server/persistence.h"
#include "server/transactions.h"

namespace cmd {
namespace {
using namespace server;

// lazy: big values are freed on the lazy-free thread (UNLINK; DEL with lazyfree-lazy-user-del).
void DelGeneric(Client* c, bool lazy) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argv.size(); i++) {
    if (!LookupWrite(c, c->argv[i])) continue;
    if (db::Obj* o = c->db->Unlink(c->argv[i])) {
      (lazy ? FreeObjLazily : db::FreeObj)(o);
      Modified(c, c->argv[i]);
      Notify(kNotifyGeneric, "del", c->argv[i], c->dbid);
      n++;
    }
  }
  c->R().Int(n);
}
void DelCommand(Client* c) { DelGeneric(c, cfg.lazyfree_lazy_user_del); }
void UnlinkCommand(Client* c) { DelGeneric(c, true); }

void ExistsCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argv.size(); i++)
    if (LookupRead(c, c->argv[i], false)) n++;
  c->R().Int(n);
}

void TouchCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argv.size(); i++) {
    db::Obj* o = LookupRead(c, c->argv[i]);
    if (!o) continue;
    db::TouchAccess(o);  // also in CLIENT NO-TOUCH mode: touching is what it asks
    n++;
  }
  c->R().Int(n);
}

void TypeCommand(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[1], false);
  c->R().Simple(o ? db::TypeName(o->type()) : "none");
}

void RenameGeneric(Client* c, bool nx) {
  std::string src(c->argv[1]), dst(c->argv[2]);
  db::Obj* o = LookupWrite(c, src);
  if (!o) return c->R().Error(kErrNoSuchKey);
  if (src == dst) return nx ? c->R().Int(0) : c->R().Ok();
  db::Obj* existing = LookupWrite(c, dst);
  if (existing && nx) return c->R().Int(0);
  if (existing) c->db->DeleteByServer(dst);
  db::Obj* taken = c->db->Unlink(src);
  db::Obj* renamed = db::Rekey(taken, dst, taken->expire(), true);
  db::ResetAccess(renamed);
  c->db->Add(renamed);
  Modified(c, src);
  Modified(c, dst, 0);
  Notify(kNotifyGeneric, "rename_from", src, c->dbid);
  Notify(kNotifyGeneric, "rename_to", dst, c->dbid);
  if (nx)
    c->R().Int(1);
  else
    c->R().Ok();
}
void RenameCommand(Client* c) { RenameGeneric(c, false); }
void RenameNxCommand(Client* c) { RenameGeneric(c, true); }

bool ParseDbIndex(Client* c, std::string_view s, int* out) {
  int64_t id;
  if (!base::ParseInt64(s, &id) || id < INT_MIN || id > INT_MAX) {
    c->R().Error(kErrNotInt);
    return false;
  }
  if (id < 0 || id >= NumDbs()) {
    c->R().Error("DB index is out of range");
    return false;
  }
  *out = static_cast<int>(id);
  return true;
}

void MoveCommand(Client* c) {
  if (cfg.cluster_enabled) return c->R().Error("MOVE is not allowed in cluster mode");
  int dst;
  if (!ParseDbIndex(c, c->argv[2], &dst)) return;
  if (dst == c->dbid) return c->R().Error("source and destination objects are the same");
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!o) return c->R().Int(0);
  db::Db* to = GetDb(dst);
  UpdateCommandTime();
  if (db::Obj* e = to->Find(c->argv[1]); e && !to->IsExpired(e)) return c->R().Int(0);
  to->Delete(c->argv[1]);  // an expired leftover
  std::string k(c->argv[1]);
  db::Obj* moved = c->db->Unlink(k);
  db::ResetAccess(moved);
  to->Add(moved);
  Modified(c, k);
  KeyModified(dst, k);
  Notify(kNotifyGeneric, "move_from", k, c->dbid);
  Notify(kNotifyGeneric, "move_to", k, dst);
  c->R().Int(1);
}

void CopyCommand(Client* c) {
  auto& a = c->argv;
  int dst_db = c->dbid;
  bool replace = false;
  for (size_t i = 3; i < a.size(); i++) {
    if (base::EqualsNoCase(a[i], "replace")) {
      replace = true;
    } else if (base::EqualsNoCase(a[i], "db") && i + 1 < a.size()) {
      if (cfg.cluster_enabled)
        return c->R().Error("Copying to another database is not allowed in cluster mode");
      if (!ParseDbIndex(c, a[++i], &dst_db)) return;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  std::string src(a[1]), dst(a[2]);
  if (src == dst && dst_db == c->dbid)
    return c->R().Error("source and destination objects are the same");
  db::Obj* o = LookupRead(c, src);  // a read, as Valkey 8's: a hit or a miss
  if (!o) return c->R().Int(0);
  // The client's own db may be none of the served ones (an import's staging db, through
  // CLUSTER SYNCSLOTS APPLY): it is c->db, not found by its id.
  db::Db* to = dst_db == c->dbid ? c->db : GetDb(dst_db);
  db::Obj* existing = to->Lookup(dst);
  if (existing && !replace) return c->R().Int(0);
  db::Obj* copy = db::Rekey(o, dst, o->expire(), false);
  db::ResetAccess(copy);
  if (existing) to->DeleteByServer(dst);  // replaced as a new key ("new" event), as in Valkey
  to->Add(copy);
  g.dirty++;
  KeyModified(dst_db, dst);
  Notify(kNotifyGeneric, "copy_to", dst, dst_db);
  c->R().Int(1);
}

void KeysCommand(Client* c) {
  std::string_view pat = c->argv[1];
  bool all = pat == "*";
  auto r = c->R();
  size_t h = r.DeferLen();
  int64_t n = 0;
  c->db->ForEach([&](db::Obj* o) {
    std::string_view k = o->key();
    if (c->db->IsExpired(o)) return;
    if (all || base::GlobMatch(pat, k)) {
      r.Bulk(k);
      n++;
    }
  });
  r.SetDeferredArrayLen(h, n);
}

const char* const kTypeNames[] = {"string", "list", "set", "zset", "hash", "stream"};

void ScanCommand(Client* c) {
  auto& a = c->argv;
  uint64_t cursor;
  if (!ParseScanCursor(c, a[1], &cursor)) return;
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  std::string type;
  for (size_t i = 2; i < a.size(); i++) {
    bool has_next = i + 1 < a.size();
    if (base::EqualsNoCase(a[i], "count") && has_next) {
      if (!ArgInt(c, a[++i], &count)) return;
      if (count < 1) return c->R().Error(kErrSyntax);
    } else if (base::EqualsNoCase(a[i], "match") && has_next) {
      pattern = a[++i];
      use_pattern = !(pattern == "*");
    } else if (base::EqualsNoCase(a[i], "type") && has_next) {
      type = base::ToLower(a[++i]);
      bool known = false;
      for (auto* t : kTypeNames) known |= type == t;
      if (!known) return c->R().Error("unknown type name '" + std::string(a[i]) + "'");
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  std::vector<std::string> keys;
  int64_t max_steps = count * 10;
  do {
    cursor = c->db->Scan(cursor, [&](db::Obj* o) { keys.emplace_back(o->key()); });
  } while (cursor && --max_steps && static_cast<int64_t>(keys.size()) < count);
  auto r = c->R();
  r.ArrayLen(2);
  r.BulkInt(static_cast<int64_t>(ScanCursorFor(cursor)));
  size_t h = r.DeferLen();
  int64_t n = 0;
  for (auto& k : keys) {
    if (use_pattern && !base::GlobMatch(pattern, k)) continue;
    // The type filter looks at the key as stored, so an expired key of another type is left
    // alone (Valkey 8 filters in its scan callback, before expiry).
    if (!type.empty()) {
      db::Obj* stored = c->db->Find(k);
      if (!stored || type != db::TypeName(stored->type())) continue;
    }
    db::Obj* o = c->db->Lookup(k);  // expired keys are dropped (and deleted) here
    if (!o) continue;
    r.Bulk(k);
    n++;
  }
  r.SetDeferredArrayLen(h, n);
}

void RandomKeyCommand(Client* c) {
  for (int tries = 0; tries < 100; tries++) {
    db::Obj* o = c->db->RandomKey();
    if (!o) break;
    if (!c->db->IsExpired(o)) return c->R().Bulk(o->key());
    if (tries == 99) return c->R().Bulk(o->key());  // all-expired keyspace: give up
    std::string k(o->key());
    c->db->Lookup(k);  // deletes it on a primary
  }
  c->R().Null();
}

void DbSizeCommand(Client* c) { c->R().Int(static_cast<int64_t>(c->db->Size())); }

// FLUSHDB/FLUSHALL [SYNC|ASYNC]: false after a syntax error; *lazy: the keys are freed on the
// lazy-free thread (ASYNC, or no argument with lazyfree-lazy-user-flush).
bool ParseFlushMode(Client* c, bool* lazy) {
  if (c->argv.size() > 2 || !FlushModeLazy(c->argv.size() == 2 ? &c->argv[1] : nullptr,
                                              cfg.lazyfree_lazy_user_flush, lazy)) {
    c->R().Error(kErrSyntax);
    return false;
  }
  return true;
}

void FlushDbCommand(Client* c) {
  bool lazy;
  if (!ParseFlushMode(c, &lazy)) return;
  DbModified(c->dbid);
  // Changes: the keys it removed, as Valkey 8 counts them; an empty db's FLUSHDB changes
  // nothing but still reaches replicas and the AOF.
  g.dirty += static_cast<int64_t>(c->db->Size());
  ForcePropagation();
  EmptyDb(c->db, lazy);
  // A client blocked on a key that went (XREADGROUP) ends with NOGROUP, as after a DEL;
  // Valkey 8 signals the flushed keys too. Before, it stayed blocked forever.
  KeysOfDbReady(c->dbid);
  if (!lazy) PurgeAllocator();  // the flush's freed pages leave now, as in Valkey 8
  c->R().Ok();
}

void FlushAllCommand(Client* c) {
  bool lazy;
  if (!ParseFlushMode(c, &lazy)) return;
  DbModified(-1);
  for (int i = 0; i < NumDbs(); i++) {
    g.dirty += static_cast<int64_t>(GetDb(i)->Size());
    EmptyDb(GetDb(i), lazy);
    KeysOfDbReady(i);
  }
  AfterFlushAll();  // may save, which resets the change counter (to 0, as Valkey 8)
  if (!lazy) PurgeAllocator();
  ForcePropagation();  // as Valkey: even an empty server's FLUSHALL reaches replicas and the AOF
  c->R().Ok();
}

void SwapDbCommand(Client* c) {
  if (cfg.cluster_enabled) return c->R().Error("SWAPDB is not allowed in cluster mode");
  int64_t a, b;
  if (!base::ParseInt64(c->argv[1], &a)) return c->R().Error("invalid first DB index");
  if (!base::ParseInt64(c->argv[2], &b)) return c->R().Error("invalid second DB index");
  if (a < 0 || a >= NumDbs() || b < 0 || b >= NumDbs())
    return c->R().Error("DB index is out of range");
  if (a != b) {
    TouchAllWatched(static_cast<int>(a), static_cast<int>(b));
    TouchAllWatched(static_cast<int>(b), static_cast<int>(a));
    GetDb(static_cast<int>(a))->Swap(*GetDb(static_cast<int>(b)));
    // Clients blocked in either db may find their keys there now.
    KeysOfDbReady(static_cast<int>(a));
    KeysOfDbReady(static_cast<int>(b));
  }
  g.dirty++;
  c->R().Ok();
}

// EXPIRE family. unit: 1000 for seconds; absolute for *AT forms.
void ExpireGeneric(Client* c, int64_t unit, bool absolute) {
  auto& a = c->argv;
  // The options are checked before the time, as Valkey does.
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < a.size(); i++) {
    if (base::EqualsNoCase(a[i], "nx"))
      nx = true;
    else if (base::EqualsNoCase(a[i], "xx"))
      xx = true;
    else if (base::EqualsNoCase(a[i], "gt"))
      gt = true;
    else if (base::EqualsNoCase(a[i], "lt"))
      lt = true;
    else
      return c->R().Error("Unsupported option " + std::string(a[i]));
  }
  if (nx && (xx || gt || lt))
    return c->R().Error("NX and XX, GT or LT options at the same time are not compatible");
  if (gt && lt) return c->R().Error("GT and LT options at the same time are not compatible");
  int64_t v;
  if (!ArgInt(c, a[2], &v)) return;
  std::string cmdname = base::ToLower(a[0]);
  int64_t base_ms = absolute ? 0 : db::GetEnv().now_ms;
  if (v > INT64_MAX / unit || v < INT64_MIN / unit)
    return c->R().Error("invalid expire time in '" + cmdname + "' command");
  v *= unit;
  if ((v > 0 && base_ms > INT64_MAX - v) || (v < 0 && base_ms < INT64_MIN - v))
    return c->R().Error("invalid expire time in '" + cmdname + "' command");
  int64_t when = v + base_ms;
  db::Obj* o = LookupWrite(c, a[1]);
  if (!o) return c->R().Int(0);
  int64_t cur = o->expire();
  if ((nx && cur >= 0) || (xx && cur < 0) || (gt && (cur < 0 || when <= cur)) ||
      (lt && cur >= 0 && when >= cur))
    return c->R().Int(0);
  std::string k(a[1]);
  if (when <= db::GetEnv().now_ms && db::GetEnv().ExpiresAtOnce()) {
    c->db->DeleteExpired(k);
    Modified(c, k);
    Notify(kNotifyGeneric, "del", k, c->dbid);
    PropagateAs(c, {server::cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL", k});
    return c->R().Int(1);
  }
  c->db->SetExpire(o, when);
  Modified(c, k);
  Notify(kNotifyGeneric, "expire", k, c->dbid);
  PropagateAs(c, {"PEXPIREAT", k, base::Int64ToString(when)});
  c->R().Int(1);
}
void ExpireCommand(Client* c) { ExpireGeneric(c, 1000, false); }
void PExpireCommand(Client* c) { ExpireGeneric(c, 1, false); }
void ExpireAtCommand(Client* c) { ExpireGeneric(c, 1000, true); }
void PExpireAtCommand(Client* c) { ExpireGeneric(c, 1, true); }

// TTL family: mode 0 TTL, 1 PTTL, 2 EXPIRETIME, 3 PEXPIRETIME.
void TtlGeneric(Client* c, int mode) {
  db::Obj* o = LookupRead(c, c->argv[1], false);
  if (!o) return c->R().Int(-2);
  int64_t when = o->expire();
  if (when < 0) return c->R().Int(-1);
  switch (mode) {
    case 0: {
      int64_t ttl = std::max<int64_t>(0, when - db::GetEnv().now_ms);
      return c->R().Int((ttl + 500) / 1000);
    }
    case 1:
      return c->R().Int(std::max<int64_t>(0, when - db::GetEnv().now_ms));
    case 2:
      return c->R().Int((when + 500) / 1000);
    default:
      return c->R().Int(when);
  }
}
void TtlCommand(Client* c) { TtlGeneric(c, 0); }
void PTtlCommand(Client* c) { TtlGeneric(c, 1); }
void ExpireTimeCommand(Client* c) { TtlGeneric(c, 2); }
void PExpireTimeCommand(Client* c) { TtlGeneric(c, 3); }

void PersistCommand(Client* c) {
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!o || !o->has_expire()) return c->R().Int(0);
  c->db->SetExpire(o, -1);
  Modified(c, c->argv[1]);
  Notify(kNotifyGeneric, "persist", c->argv[1], c->dbid);
  c->R().Int(1);
}

void DumpCommand(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!o) return c->R().Null();
  c->R().Bulk(persist::EncodeDump(persist::ToValue(o)));
}

// RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
void RestoreCommand(Client* c) {
  auto& a = c->argv;
  bool replace = false, absttl = false;
  int64_t idle = -1, freq = -1;
  for (size_t j = 4; j < a.size(); j++) {
    bool more = j + 1 < a.size();
    if (base::EqualsNoCase(a[j], "replace")) {
      replace = true;
    } else if (base::EqualsNoCase(a[j], "absttl")) {
      absttl = true;
    } else if (base::EqualsNoCase(a[j], "idletime") && more && freq == -1) {
      if (!ArgInt(c, a[++j], &idle)) return;
      if (idle < 0) return c->R().Error("Invalid IDLETIME value, must be >= 0");
    } else if (base::EqualsNoCase(a[j], "freq") && more && idle == -1) {
      if (!ArgInt(c, a[++j], &freq)) return;
      if (freq < 0 || freq > 255)
        return c->R().Error("Invalid FREQ value, must be >= 0 and <= 255");
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  int64_t ttl;
  if (!ArgInt(c, a[2], &ttl)) return;
  if (ttl < 0) return c->R().Error("Invalid TTL value, must be >= 0");
  std::string key(a[1]);
  db::Obj* existing = LookupWrite(c, key);
  if (existing && !replace) return c->R().Error("-BUSYKEY Target key name already exists.");
  persist::Value v;
  persist::DumpStatus st = persist::DecodeDump(a[3], &v, !server::g.skip_checksum_validation);
  if (st == persist::DumpStatus::kBadFormat) {
    // Every payload is checked in depth (sanitize-dump-payload or not): the log says which
    // encoding was damaged, in Valkey's words and at its level (verbose: a client cannot fill
    // the log at the default level), as Valkey logs it when it sanitizes.
    LOG_VERBOSE("%s integrity check failed: RESTORE payload refused (Bad data format)",
                persist::IntegrityName(static_cast<uint8_t>(a[3][0])));
  }
  if (const char* e = persist::DumpStatusError(st)) return c->R().Error(e);
  int64_t when = -1;
  if (ttl > 0) {
    when = absttl ? ttl : db::GetEnv().now_ms + ttl;
    if (!absttl && ttl > INT64_MAX - db::GetEnv().now_ms) when = INT64_MAX;
  }
  if (when >= 0 && when <= db::GetEnv().now_ms && db::GetEnv().ExpiresAtOnce()) {
    // Already expired: the key ends up absent.
    if (existing) {
      c->db->DeleteByServer(key);
      Modified(c, key);
      Notify(kNotifyGeneric, "del", key, c->dbid);
      PropagateAs(c, {server::cfg.lazyfree_lazy_server_del ? "UNLINK" : "DEL", key});
    }
    return c->R().Ok();
  }
  db::Obj* o = persist::FromValue(key, v, when);
  if (idle >= 0 && !db::GetEnv().lfu)
    o->set_lru((db::LruClock() - static_cast<uint32_t>(std::min<int64_t>(idle, db::kLruMax))) &
               db::kLruMax);
  if (freq >= 0 && db::GetEnv().lfu) db::SetLfuCounter(o, static_cast<uint8_t>(freq));
  if (existing) c->db->DeleteByServer(key);  // replaced as a new key ("new" event), as in Valkey
  c->db->Add(o);
  Modified(c, key);
  Notify(kNotifyGeneric, "restore", key, c->dbid);
  if (ttl > 0 && !absttl) {
    // Replicas must expire it at the same instant: send the absolute time.
    std::vector<std::string> p(a.begin(), a.end());
    p[2] = base::Int64ToString(when);
    p.push_back("ABSTTL");
    PropagateAs(c, std::move(p));
  }
  c->R().Ok();
}

bool LfuPolicy() { return db::GetEnv().lfu; }

void ObjectEncoding(Client* c) {
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Null();
  c->R().Bulk(db::EncodingName(o->enc()));
}
void ObjectRefcount(Client* c) {
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Null();
  // Small integers are shared objects in Valkey and report INT_MAX; keep that contract. Valkey
  // does not share them while maxmemory is set with an LRU or LFU policy (each key keeps its
  // own access clock).
  int policy = static_cast<int>(cfg.maxmemory_policy);
  bool per_key_clock = cfg.maxmemory && (policy == kVolatileLru || policy == kAllkeysLru ||
                                         policy == kVolatileLfu || policy == kAllkeysLfu);
  bool shared = o->enc() == db::kEncInt && o->int_value() >= 0 && o->int_value() < 10000 &&
                !per_key_clock;
  c->R().Int(shared ? INT_MAX : 1);
}
void ObjectIdletime(Client* c) {
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Null();
  if (LfuPolicy())
    return c->R().Error(
        "An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
  uint32_t now = db::LruClock(), lru = o->lru();
  uint64_t idle = now >= lru ? now - lru : (db::kLruMax - lru) + now;
  c->R().Int(static_cast<int64_t>(idle));
}
void ObjectFreq(Client* c) {
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Null();
  if (!LfuPolicy())
    return c->R().Error(
        "An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time "
        "to adjust.");
  c->R().Int(db::LfuCounter(o));
}
void ObjectHelp(Client* c) {
  ReplyHelp(c, "OBJECT",
            {"ENCODING <key>",
             "    Return the kind of internal representation used in order to store the value",
             "    associated with a <key>.", "FREQ <key>",
             "    Return the access frequency index of the <key>. The returned integer is",
             "    proportional to the logarithm of the recent access frequency of the key.",
             "IDLETIME <key>",
             "    Return the idle time of the <key>, that is the approximated number of",
             "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
             "    Return the number of references of the value associated with the specified",
             "    <key>."});
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterKeyCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "generic";
  const uint32_t kRF = kCmdReadonly | kCmdFast;
  t->push_back({"del", -2, kCmdWrite, DelCommand, g, "1.0.0", "Removes keys.", "O(N)"});
  t->push_back({"unlink", -2, kCmdWrite | kCmdFast, UnlinkCommand, g, "4.0.0",
                "Deletes keys, reclaiming their memory out of the request path.", "O(1) per key"});
  t->push_back({"exists", -2, kRF, ExistsCommand, g, "1.0.0",
                "Counts how many of the given keys exist.", "O(N)"});
  t->push_back({"touch", -2, kRF, TouchCommand, g, "3.2.1",
                "Refreshes the last access time of keys and counts the existing ones.", "O(N)"});
  t->push_back(
      {"type", 2, kRF, TypeCommand, g, "1.0.0", "Names the type of the value at a key.", "O(1)"});
  t->push_back({"rename", 3, kCmdWrite, RenameCommand, g, "1.0.0",
                "Gives a key a new name, replacing any key there.", "O(1)"});
  t->push_back({"renamenx", 3, kCmdWrite | kCmdFast, RenameNxCommand, g, "1.0.0",
                "Gives a key a new name if that name is free.", "O(1)"});
  t->push_back({"move", 3, kCmdWrite | kCmdFast, MoveCommand, g, "1.0.0",
                "Transfers a key to another database.", "O(1)"});
  t->push_back({"copy", -3, kCmdWrite | kCmdDenyOom, CopyCommand, g, "6.2.0",
                "Duplicates a key's value under another name.", "O(N)"});
  t->push_back({"keys", 2, kCmdReadonly, KeysCommand, g, "1.0.0",
                "Lists the keys matching a glob pattern.", "O(N)"});
  t->push_back({"scan", -2, kCmdReadonly, ScanCommand, g, "2.8.0",
                "Walks the keyspace a page at a time with a cursor.", "O(1) per call"});
  t->push_back({"randomkey", 1, kCmdReadonly, RandomKeyCommand, g, "1.0.0",
                "Picks a key at random.", "O(1)"});
  t->push_back({"dbsize", 1, kRF, DbSizeCommand, "server", "1.0.0",
                "Counts the keys of the selected database.", "O(1)"});
  t->push_back({"flushdb", -1, kCmdWrite, FlushDbCommand, "server", "1.0.0",
                "Empties the selected database.", "O(N)"});
  t->push_back({"flushall", -1, kCmdWrite, FlushAllCommand, "server", "1.0.0",
                "Empties every database.", "O(N)"});
  t->push_back({"swapdb", 3, kCmdWrite | kCmdFast, SwapDbCommand, "server", "4.0.0",
                "Exchanges the contents of two databases.", "O(N)"});
  t->push_back({"expire", -3, kCmdWrite | kCmdFast, ExpireCommand, g, "1.0.0",
                "Sets a key's time to live in seconds.", "O(1)"});
  t->push_back({"pexpire", -3, kCmdWrite | kCmdFast, PExpireCommand, g, "2.6.0",
                "Sets a key's time to live in milliseconds.", "O(1)"});
  t->push_back({"expireat", -3, kCmdWrite | kCmdFast, ExpireAtCommand, g, "1.2.0",
                "Sets the Unix time (seconds) at which a key expires.", "O(1)"});
  t->push_back({"pexpireat", -3, kCmdWrite | kCmdFast, PExpireAtCommand, g, "2.6.0",
                "Sets the Unix time (milliseconds) at which a key expires.", "O(1)"});
  t->push_back(
      {"ttl", 2, kRF, TtlCommand, g, "1.0.0", "Seconds left before a key expires.", "O(1)"});
  t->push_back(
      {"pttl", 2, kRF, PTtlCommand, g, "2.6.0", "Milliseconds left before a key expires.", "O(1)"});
  t->push_back({"expiretime", 2, kRF, ExpireTimeCommand, g, "7.0.0",
                "The Unix time (seconds) at which a key expires.", "O(1)"});
  t->push_back({"pexpiretime", 2, kRF, PExpireTimeCommand, g, "7.0.0",
                "The Unix time (milliseconds) at which a key expires.", "O(1)"});
  t->push_back({"persist", 2, kCmdWrite | kCmdFast, PersistCommand, g, "2.2.0",
                "Removes a key's expiry.", "O(1)"});
  t->push_back({"dump", 2, kCmdReadonly, DumpCommand, g, "2.6.0",
                "Serialises a value in the DUMP format.",
                "O(1) to access the key and additional O(N*M)"});
  t->push_back({"restore", -4, kCmdWrite | kCmdDenyOom, RestoreCommand, g, "2.6.0",
                "Creates a key from a DUMP payload.",
                "O(1) to create the new key and additional O(N*M)"});
  // What MIGRATE sends in cluster mode: the `asking` flag lets an importing node take it
  // without a preceding ASKING.
  t->push_back({"restore-asking", -4, kCmdWrite | kCmdDenyOom | kCmdAsking, RestoreCommand,
                "server", "3.0.0", "Creates a key from a DUMP payload sent by MIGRATE.",
                "O(1) to create the new key and additional O(N*M)"});
  CommandSpec object{"object",
                     -2,
                     0,
                     nullptr,
                     g,
                     "2.2.3",
                     "Looks inside stored values.",
                     "Depends on subcommand."};
  object.subcommands = {
      {"encoding", 3, kCmdReadonly, ObjectEncoding, g, "2.2.3",
       "Names the internal encoding of a value.", "O(1)"},
      {"refcount", 3, kCmdReadonly, ObjectRefcount, g, "2.2.3", "Counts references to a value.",
       "O(1)"},
      {"idletime", 3, kCmdReadonly, ObjectIdletime, g, "2.2.3",
       "Seconds since a key was last accessed.", "O(1)"},
      {"freq", 3, kCmdReadonly, ObjectFreq, g, "4.0.0",
       "The logarithmic access frequency of a key.", "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, ObjectHelp, g, "6.2.0", "Lists the OBJECT subcommands.",
       "O(1)"},
  };
  t->push_back(std::move(object));
}
}  // namespace server
