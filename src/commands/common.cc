// Shared command helpers.
#include "commands/common.h"

#include "base/glob.h"
#include "base/util.h"
#include "ds/seed.h"
#include "server/notify.h"

namespace cmd {

db::Obj* LookupRead(Client* c, std::string_view key, bool touch) {
  db::Obj* o = c->db->Lookup(key);
  if (o) {
    server::g.stats.keyspace_hits++;
    if (touch && !(c->flags & server::kNoTouch)) db::TouchAccess(o);
  } else {
    server::g.stats.keyspace_misses++;
    server::Notify(server::kNotifyKeyMiss, "keymiss", key, c->dbid);
  }
  return o;
}

db::Obj* LookupWrite(Client* c, std::string_view key) {
  db::Obj* o = c->db->Lookup(key);
  TouchForWrite(c, o);
  return o;
}

void TouchForWrite(Client* c, db::Obj* o) {
  // A write is an access too (Valkey 8's lookupKeyWrite): a key written and never read is not
  // the idlest under an LRU policy, nor the least used under LFU.
  if (o && !(c->flags & server::kNoTouch)) db::TouchAccess(o);
}

bool CheckType(Client* c, const db::Obj* o, db::Type t) {
  if (!o || o->type() == t) return true;
  c->R().Error(server::kErrWrongType);
  return false;
}

db::Obj* StoreKey(Client* c, db::Obj* old, db::Obj* nw) {
  if (old) return c->db->Replace(old, nw);
  c->db->Add(nw);
  return nw;
}

db::Obj* MakeRaw(Client* c, db::Obj* o) {
  if (o->enc() == db::kEncRaw) return o;
  char buf[24];
  std::string v(o->str(buf));
  return c->db->Replace(o, db::NewRaw(o->key(), std::move(v), o->expire()));
}

void Modified(Client* c, std::string_view key, int64_t dirty) {
  server::g.dirty += dirty;
  server::KeyModified(c->dbid, key);
}

bool ParseExpire(Client* c, std::string_view arg, int64_t unit_ms, bool absolute,
                 const char* cmdname, int64_t* when) {
  int64_t v;
  if (!base::ParseInt64(arg, &v)) {
    c->R().Error(server::kErrNotInt);
    return false;
  }
  auto invalid = [&] {
    c->R().Error(std::string("invalid expire time in '") + cmdname + "' command");
    return false;
  };
  if (v <= 0 || (unit_ms == 1000 && v > INT64_MAX / 1000)) return invalid();
  v *= unit_ms;
  if (!absolute) {
    int64_t now = db::GetEnv().now_ms;
    if (v > INT64_MAX - now) return invalid();
    v += now;
  }
  *when = v;
  return true;
}

db::Obj* LookupWriteTyped(Client* c, std::string_view key, db::Type t, bool* err) {
  db::Obj* o = LookupWrite(c, key);
  *err = false;
  if (o && o->type() != t) {
    c->R().Error(server::kErrWrongType);
    *err = true;
    return nullptr;
  }
  return o;
}

void DeleteIfEmpty(Client* c, std::string_view key, size_t len) {
  if (len != 0) return;
  std::string k(key);
  c->db->Delete(k);
  server::Notify(server::kNotifyGeneric, "del", k, c->dbid);
}

bool ArgRange(Client* c, std::string_view s, int64_t lo, int64_t hi, int64_t* out,
              const char* msg) {
  int64_t v;
  if (!base::ParseInt64(s, &v)) {
    c->R().Error(msg ? msg : server::kErrNotInt);
    return false;
  }
  if (v < lo || v > hi) {
    if (msg)
      c->R().Error(msg);
    else
      c->R().Error("value is out of range, value must between " + std::to_string(lo) + " and " +
                   std::to_string(hi));
    return false;
  }
  *out = v;
  return true;
}

bool ArgPositive(Client* c, std::string_view s, int64_t* out, const char* msg) {
  return ArgRange(c, s, 0, INT64_MAX, out, msg ? msg : "value is out of range, must be positive");
}

void StoreResult(Client* c, const std::string& dst, db::Obj* nw, int notify_class,
                 const char* event) {
  db::Obj* old = LookupWrite(c, dst);
  if (!nw) {
    if (!old) return;
    c->db->Delete(dst);
    Modified(c, dst);
    server::Notify(server::kNotifyGeneric, "del", dst, c->dbid);
    return;
  }
  if (old)
    c->db->Replace(old, nw);
  else
    c->db->Add(nw);
  Modified(c, dst);
  server::Notify(notify_class, event, dst, c->dbid);
}

bool ParseMPopArgs(Client* c, size_t first, const char* where0, const char* where1, MPopArgs* out) {
  auto& a = c->argv;
  int64_t numkeys;
  if (!ArgRange(c, a[first], 1, INT64_MAX, &numkeys, "numkeys should be greater than 0"))
    return false;
  size_t where_idx = first + 1 + static_cast<size_t>(numkeys);
  if (numkeys > static_cast<int64_t>(a.size()) || where_idx >= a.size()) {
    c->R().Error(server::kErrSyntax);
    return false;
  }
  if (base::EqualsNoCase(a[where_idx], where0)) {
    out->which = 0;
  } else if (base::EqualsNoCase(a[where_idx], where1)) {
    out->which = 1;
  } else {
    c->R().Error(server::kErrSyntax);
    return false;
  }
  bool has_count = false;
  for (size_t j = where_idx + 1; j < a.size(); j++) {
    if (base::EqualsNoCase(a[j], "count") && j + 1 < a.size() && !has_count) {
      if (!ArgRange(c, a[++j], 1, INT64_MAX, &out->count, "count should be greater than 0"))
        return false;
      has_count = true;
    } else {
      c->R().Error(server::kErrSyntax);
      return false;
    }
  }
  out->keys.assign(a.begin() + first + 1, a.begin() + where_idx);
  return true;
}

bool CheckRandomPicks(Client* c, int64_t count) {
  if (count >= -kMaxRandomPicks) return true;
  c->R().Error("value is out of range, value must between " + std::to_string(-kMaxRandomPicks) +
               " and " + std::to_string(INT64_MAX));
  return false;
}

namespace {
constexpr int kPositionBits = 48;
constexpr uint64_t kPositionMask = (uint64_t{1} << kPositionBits) - 1;
}  // namespace

bool ParseScanCursor(Client* c, std::string_view s, uint64_t* position) {
  uint64_t cursor;
  if (!base::ParseUint64(s, &cursor)) {
    c->R().Error("invalid cursor");
    return false;
  }
  if (cursor == 0) {
    *position = 0;
    return true;
  }
  if ((cursor >> kPositionBits) != ds::SeedFingerprint()) {  // bit 63 set never matches
    c->R().Error(kErrForeignCursor);
    return false;
  }
  *position = cursor & kPositionMask;
  return true;
}

uint64_t ScanCursorFor(uint64_t position) {
  if (!position) return 0;
  // Positions are below the bucket count of a table (SCAN in cluster mode: shifted by 14):
  // far below 2^48 for any table that fits in memory.
  return (uint64_t{ds::SeedFingerprint()} << kPositionBits) | (position & kPositionMask);
}

void ScanElements(Client* c, db::Obj* o, const ScanStepFn& step, bool pairs) {
  auto& a = c->argv;
  uint64_t cursor;
  if (!ParseScanCursor(c, a[2], &cursor)) return;
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false, only_keys = false;
  for (size_t i = 3; i < a.size(); i++) {
    bool has_next = i + 1 < a.size();
    if (base::EqualsNoCase(a[i], "count") && has_next) {
      if (!ArgInt(c, a[++i], &count)) return;
      if (count < 1) return c->R().Error(server::kErrSyntax);
    } else if (base::EqualsNoCase(a[i], "match") && has_next) {
      pattern = a[++i];
      use_pattern = pattern != "*";
    } else if (base::EqualsNoCase(a[i], "novalues")) {
      if (!o || o->type() != db::kHash)
        return c->R().Error("NOVALUES option can only be used in HSCAN");
      only_keys = true;
    } else if (base::EqualsNoCase(a[i], "noscores")) {
      if (!o || o->type() != db::kZSet)
        return c->R().Error("NOSCORES option can only be used in ZSCAN");
      only_keys = true;
    } else {
      return c->R().Error(server::kErrSyntax);
    }
  }
  std::vector<std::pair<std::string, std::string>> items;
  if (o) {
    int64_t max_steps = count * 10;
    do {
      cursor = step(cursor, [&](std::string_view e, std::string_view v) {
        if (use_pattern && !base::GlobMatch(pattern, e)) return;
        items.emplace_back(e, v);
      });
    } while (cursor && --max_steps && static_cast<int64_t>(items.size()) < count);
  } else {
    cursor = 0;
  }
  auto r = c->R();
  r.ArrayLen(2);
  r.BulkInt(static_cast<int64_t>(ScanCursorFor(cursor)));
  bool with_values = pairs && !only_keys;
  r.ArrayLen(static_cast<int64_t>(items.size() * (with_values ? 2 : 1)));
  for (auto& [e, v] : items) {
    r.Bulk(e);
    if (with_values) r.Bulk(v);
  }
}
}  // namespace cmd
