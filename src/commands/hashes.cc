// Hash commands.
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "base/util.h"
#include "commands/common.h"
#include "db/hash.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;

db::Obj* LookupHashRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kHash);
  return *err ? nullptr : o;
}

db::Obj* HashForWrite(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupWriteTyped(c, key, db::kHash, err);
  if (!o && !*err) {
    o = db::NewHash(key);
    c->db->Add(o);
  }
  return o;
}

void HSetGeneric(Client* c, bool hmset) {
  auto& a = c->argv;
  if (a.size() % 2 != 0) return ReplyArity(c, c->cmd);
  bool err;
  db::Obj* o = HashForWrite(c, a[1], &err);
  if (err) return;
  int64_t created = 0;
  for (size_t i = 2; i < a.size(); i += 2) created += db::HashSet(o, a[i], a[i + 1]);
  Modified(c, a[1], static_cast<int64_t>(a.size() - 2) / 2);
  Notify(kNotifyHash, "hset", a[1], c->dbid);
  if (hmset)
    c->R().Ok();
  else
    c->R().Int(created);
}
void HSetCommand(Client* c) { HSetGeneric(c, false); }
void HMSetCommand(Client* c) { HSetGeneric(c, true); }

void HSetNxCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kHash, &err);
  if (err) return;
  if (o && db::HashExists(o, c->argv[2])) return c->R().Int(0);
  o = HashForWrite(c, c->argv[1], &err);
  db::HashSet(o, c->argv[2], c->argv[3]);
  Modified(c, c->argv[1]);
  Notify(kNotifyHash, "hset", c->argv[1], c->dbid);
  c->R().Int(1);
}

void HGetCommand(Client* c) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  std::string v;
  if (!o || !db::HashGet(o, c->argv[2], &v)) return c->R().Null();
  c->R().Bulk(v);
}

void HMGetCommand(Client* c) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 2));
  std::string v;
  for (size_t i = 2; i < c->argv.size(); i++) {
    if (o && db::HashGet(o, c->argv[i], &v))
      r.Bulk(v);
    else
      r.Null();
  }
}

void HDelCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kHash, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  int64_t deleted = 0;
  for (size_t i = 2; i < c->argv.size(); i++) {
    if (db::HashDelete(o, c->argv[i])) deleted++;
    if (db::HashLen(o) == 0) break;
  }
  if (deleted) {
    Modified(c, c->argv[1], deleted);
    Notify(kNotifyHash, "hdel", c->argv[1], c->dbid);
    DeleteIfEmpty(c, c->argv[1], db::HashLen(o));
  }
  c->R().Int(deleted);
}

void HExistsCommand(Client* c) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o && db::HashExists(o, c->argv[2]) ? 1 : 0);
}

void HLenCommand(Client* c) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::HashLen(o)) : 0);
}

void HStrlenCommand(Client* c) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  std::string v;
  c->R().Int(o && db::HashGet(o, c->argv[2], &v) ? static_cast<int64_t>(v.size()) : 0);
}

// mode: 0 keys, 1 values, 2 both
void HGetAllGeneric(Client* c, int mode) {
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  size_t n = o ? db::HashLen(o) : 0;
  if (mode == 2)
    r.MapLen(static_cast<int64_t>(n));
  else
    r.ArrayLen(static_cast<int64_t>(n));
  if (!o) return;
  db::HashForEach(o, [&](std::string_view f, std::string_view v) {
    if (mode != 1) r.Bulk(f);
    if (mode != 0) r.Bulk(v);
  });
}
void HKeysCommand(Client* c) { HGetAllGeneric(c, 0); }
void HValsCommand(Client* c) { HGetAllGeneric(c, 1); }
void HGetAllCommand(Client* c) { HGetAllGeneric(c, 2); }

void HIncrByCommand(Client* c) {
  int64_t by;
  if (!ArgInt(c, c->argv[3], &by)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kHash, &err);
  if (err) return;
  int64_t v = 0;
  std::string cur;
  if (o && db::HashGet(o, c->argv[2], &cur)) {
    if (!base::ParseInt64(cur, &v)) return c->R().Error("hash value is not an integer");
  }
  if ((by < 0 && v < 0 && by < INT64_MIN - v) || (by > 0 && v > 0 && by > INT64_MAX - v))
    return c->R().Error(kErrOverflow);
  v += by;
  o = HashForWrite(c, c->argv[1], &err);
  db::HashSet(o, c->argv[2], base::Int64ToString(v));
  Modified(c, c->argv[1]);
  Notify(kNotifyHash, "hincrby", c->argv[1], c->dbid);
  c->R().Int(v);
}

void HIncrByFloatCommand(Client* c) {
  long double by;
  if (!ArgLongDouble(c, c->argv[3], &by)) return;
  if (std::isnan(by) || std::isinf(by)) return c->R().Error("value is NaN or Infinity");
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kHash, &err);
  if (err) return;
  long double v = 0;
  std::string cur;
  if (o && db::HashGet(o, c->argv[2], &cur)) {
    if (!base::ParseLongDouble(cur, &v)) return c->R().Error("hash value is not a float");
  }
  v += by;
  if (std::isnan(v) || std::isinf(v))
    return c->R().Error("increment would produce NaN or Infinity");
  std::string s = base::FormatLongDouble(v);
  o = HashForWrite(c, c->argv[1], &err);
  db::HashSet(o, c->argv[2], s);
  Modified(c, c->argv[1]);
  Notify(kNotifyHash, "hincrbyfloat", c->argv[1], c->dbid);
  c->R().Bulk(s);
  PropagateAs(c, {"HSET", std::string(c->argv[1]), std::string(c->argv[2]), s});
}

void HRandFieldCommand(Client* c) {
  auto& a = c->argv;
  if (a.size() == 2) {
    bool err;
    db::Obj* o = LookupHashRead(c, a[1], &err);
    if (err) return;
    if (!o) return c->R().Null();
    std::string f, v;
    db::HashRandom(o, &f, &v);
    return c->R().Bulk(f);
  }
  int64_t l;
  if (!ArgRange(c, a[2], -INT64_MAX, INT64_MAX, &l) || !CheckRandomPicks(c, l)) return;
  bool withvalues = false;
  if (a.size() > 4 || (a.size() == 4 && !base::EqualsNoCase(a[3], "withvalues")))
    return c->R().Error(kErrSyntax);
  if (a.size() == 4) {
    withvalues = true;
    if (l < -INT64_MAX / 2 || l > INT64_MAX / 2) return c->R().Error("value is out of range");
  }
  bool err;
  db::Obj* o = LookupHashRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o || l == 0) return r.ArrayLen(0);
  auto emit = [&](std::string_view f, std::string_view v) {
    if (withvalues && r.resp() > 2) r.ArrayLen(2);
    r.Bulk(f);
    if (withvalues) r.Bulk(v);
  };
  uint64_t count = l < 0 ? static_cast<uint64_t>(-l) : static_cast<uint64_t>(l);
  int64_t len = static_cast<int64_t>(withvalues && r.resp() == 2 ? count * 2 : count);
  if (l < 0 || count == 1) {
    r.ArrayLen(len);
    std::string f, v;
    for (uint64_t i = 0; i < count; i++) {
      db::HashRandom(o, &f, &v);
      emit(f, v);
    }
    return;
  }
  // Distinct picks: random draws, or all of them, or a partial shuffle of all pairs.
  using FieldValue = std::pair<std::string, std::string>;
  if (DrawsDistinct(count, db::HashLen(o))) {
    auto picks = DrawDistinct<FieldValue>(
        count, [&](FieldValue* p) { db::HashRandom(o, &p->first, &p->second); },
        [](const FieldValue& p) -> std::string_view { return p.first; });
    r.ArrayLen(len);
    for (auto& [f, v] : picks) emit(f, v);
    return;
  }
  std::vector<std::pair<std::string, std::string>> all;
  db::HashForEach(o, [&](std::string_view f, std::string_view v) { all.emplace_back(f, v); });
  size_t n = std::min<uint64_t>(count, all.size());
  for (size_t i = 0; i < n && n < all.size(); i++)
    std::swap(all[i], all[i + ds::RandomU64() % (all.size() - i)]);
  r.ArrayLen(static_cast<int64_t>(withvalues && r.resp() == 2 ? n * 2 : n));
  for (size_t i = 0; i < n; i++) emit(all[i].first, all[i].second);
}

void HScanCommand(Client* c) {
  uint64_t cursor;
  if (!ParseScanCursor(c, c->argv[2], &cursor)) return;
  bool err;
  db::Obj* o = LookupHashRead(c, c->argv[1], &err);
  if (err) return;
  ScanElements(
      c, o, [&](uint64_t cur, const ScanEmit& emit) { return db::HashScan(o, cur, emit); }, true);
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterHashCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "hash";
  const uint32_t kW = kCmdWrite | kCmdDenyOom | kCmdFast;
  const uint32_t kR = kCmdReadonly | kCmdFast;
  t->push_back({"hset", -4, kW, HSetCommand, g, "2.0.0",
                "Sets fields of a hash, creating it if needed.", "O(N)"});
  t->push_back({"hmset", -4, kW, HMSetCommand, g, "2.0.0",
                "Sets fields of a hash (older form of HSET).", "O(N)"});
  t->push_back(
      {"hsetnx", 4, kW, HSetNxCommand, g, "2.0.0", "Sets a field only when it is absent.", "O(1)"});
  t->push_back({"hget", 3, kR, HGetCommand, g, "2.0.0", "Reads one field of a hash.", "O(1)"});
  t->push_back(
      {"hmget", -3, kR, HMGetCommand, g, "2.0.0", "Reads several fields of a hash.", "O(N)"});
  t->push_back({"hdel", -3, kCmdWrite | kCmdFast, HDelCommand, g, "2.0.0",
                "Removes fields from a hash.", "O(N)"});
  t->push_back(
      {"hexists", 3, kR, HExistsCommand, g, "2.0.0", "Tells whether a field exists.", "O(1)"});
  t->push_back({"hlen", 2, kR, HLenCommand, g, "2.0.0", "Counts the fields of a hash.", "O(1)"});
  t->push_back(
      {"hstrlen", 3, kR, HStrlenCommand, g, "3.2.0", "Length of a field's value.", "O(1)"});
  t->push_back(
      {"hkeys", 2, kCmdReadonly, HKeysCommand, g, "2.0.0", "Lists the field names.", "O(N)"});
  t->push_back(
      {"hvals", 2, kCmdReadonly, HValsCommand, g, "2.0.0", "Lists the field values.", "O(N)"});
  t->push_back(
      {"hgetall", 2, kCmdReadonly, HGetAllCommand, g, "2.0.0", "Lists fields and values.", "O(N)"});
  t->push_back(
      {"hincrby", 4, kW, HIncrByCommand, g, "2.0.0", "Adds an integer to a field.", "O(1)"});
  t->push_back(
      {"hincrbyfloat", 4, kW, HIncrByFloatCommand, g, "2.6.0", "Adds a float to a field.", "O(1)"});
  t->push_back({"hrandfield", -2, kCmdReadonly, HRandFieldCommand, g, "6.2.0",
                "Picks random fields.", "O(N)"});
  t->push_back({"hscan", -3, kCmdReadonly, HScanCommand, g, "2.8.0",
                "Walks the fields of a hash with a cursor.", "O(1) per call"});
}
}  // namespace server
