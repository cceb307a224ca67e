// Set commands.
#include <algorithm>
#include <climits>
#include <set>
#include <vector>

#include "base/util.h"
#include "commands/common.h"
#include "db/set.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;

db::Obj* LookupSetRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kSet);
  return *err ? nullptr : o;
}

void SAddCommand(Client* c) {
  auto& a = c->argv;
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kSet, &err);
  if (err) return;
  if (!o) {
    o = db::NewSet(a[1], a[2], a.size() - 2);
    c->db->Add(o);
  } else {
    // The number of members given is the hint, as Valkey 8's SADD (a set of 1 given 512
    // members, one a duplicate, stays an intset of 512).
    db::SetReserve(o, a.size() - 2);
  }
  int64_t added = 0;
  for (size_t i = 2; i < a.size(); i++) added += db::SetAdd(o, a[i]);
  if (added) {
    Modified(c, a[1], added);
    Notify(kNotifySet, "sadd", a[1], c->dbid);
  }
  c->R().Int(added);
}

void SRemCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kSet, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  int64_t removed = 0;
  for (size_t i = 2; i < c->argv.size(); i++) {
    removed += db::SetRemove(o, c->argv[i]);
    if (db::SetLen(o) == 0) break;
  }
  if (removed) {
    Modified(c, c->argv[1], removed);
    Notify(kNotifySet, "srem", c->argv[1], c->dbid);
    DeleteIfEmpty(c, c->argv[1], db::SetLen(o));
  }
  c->R().Int(removed);
}

void SIsMemberCommand(Client* c) {
  bool err;
  db::Obj* o = LookupSetRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o && db::SetContains(o, c->argv[2]) ? 1 : 0);
}

void SMIsMemberCommand(Client* c) {
  bool err;
  db::Obj* o = LookupSetRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 2));
  for (size_t i = 2; i < c->argv.size(); i++) r.Int(o && db::SetContains(o, c->argv[i]) ? 1 : 0);
}

void SCardCommand(Client* c) {
  bool err;
  db::Obj* o = LookupSetRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::SetLen(o)) : 0);
}

void SMembersCommand(Client* c) {
  bool err;
  db::Obj* o = LookupSetRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o) return r.SetLen(0);
  r.SetLen(static_cast<int64_t>(db::SetLen(o)));
  db::SetForEach(o, [&](std::string_view m) { r.Bulk(m); });
}

void SPopCommand(Client* c) {
  auto& a = c->argv;
  if (a.size() > 3) return c->R().Error(kErrSyntax);
  int64_t count = 1;
  bool with_count = a.size() == 3;
  if (with_count && !ArgPositive(c, a[2], &count)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kSet, &err);
  if (err) return;
  auto r = c->R();
  if (!o) return with_count ? r.SetLen(0) : r.Null();
  if (with_count && count == 0) return r.SetLen(0);
  std::string key(a[1]);
  size_t size = db::SetLen(o);
  if (with_count && static_cast<uint64_t>(count) >= size) {
    // The whole set, in its own order (as SUNION of it), then the key goes: replicas get one
    // UNLINK (lazyfree-lazy-server-del yes) or DEL, as Valkey sends.
    r.SetLen(static_cast<int64_t>(size));
    db::SetForEach(o, [&](std::string_view m) { r.Bulk(m); });
    Modified(c, key, static_cast<int64_t>(size));
    Notify(kNotifySet, "spop", key, c->dbid);
    DeleteIfEmpty(c, key, 0);
    PropagateAs(c, {server::cfg.lazyfree_lazy_server_del ? "UNLINK" : "DEL", key});
    return;
  }
  std::vector<std::string> popped;
  for (size_t i = 0; i < static_cast<size_t>(count); i++) popped.push_back(db::SetPop(o));
  if (with_count) {
    r.SetLen(static_cast<int64_t>(popped.size()));
    for (auto& m : popped) r.Bulk(m);
  } else {
    r.Bulk(popped[0]);
  }
  Modified(c, key, static_cast<int64_t>(popped.size()));
  Notify(kNotifySet, "spop", key, c->dbid);
  // Replicas remove exactly what was popped here: SREM, 1024 members at most each.
  std::vector<std::vector<std::string>> prop;
  for (size_t i = 0; i < popped.size(); i++) {
    if (i % 1024 == 0) prop.push_back({"SREM", key});
    prop.back().push_back(popped[i]);
  }
  if (db::SetLen(o) == 0) DeleteIfEmpty(c, key, 0);  // the last one: SREM deletes it there too
  PropagateAsMany(c, std::move(prop));
}

void SRandMemberCommand(Client* c) {
  auto& a = c->argv;
  if (a.size() > 3) return c->R().Error(kErrSyntax);
  bool err;
  if (a.size() == 2) {
    db::Obj* o = LookupSetRead(c, a[1], &err);
    if (err) return;
    if (!o) return c->R().Null();
    return c->R().Bulk(db::SetRandom(o));
  }
  int64_t l;
  if (!ArgRange(c, a[2], -INT64_MAX, INT64_MAX, &l) || !CheckRandomPicks(c, l)) return;
  db::Obj* o = LookupSetRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o || l == 0) return r.ArrayLen(0);
  if (l < 0) {
    uint64_t count = static_cast<uint64_t>(-l);
    r.ArrayLen(static_cast<int64_t>(count));
    for (uint64_t i = 0; i < count; i++) r.Bulk(db::SetRandom(o));
    return;
  }
  if (DrawsDistinct(l, db::SetLen(o))) {
    auto picks = DrawDistinct<std::string>(
        l, [&](std::string* m) { *m = db::SetRandom(o); },
        [](const std::string& m) -> std::string_view { return m; });
    r.ArrayLen(l);
    for (auto& m : picks) r.Bulk(m);
    return;
  }
  std::vector<std::string> all;
  db::SetForEach(o, [&](std::string_view m) { all.emplace_back(m); });
  size_t n = std::min<uint64_t>(l, all.size());
  for (size_t i = 0; i < n && n < all.size(); i++)
    std::swap(all[i], all[i + ds::RandomU64() % (all.size() - i)]);
  r.ArrayLen(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; i++) r.Bulk(all[i]);
}

void SMoveCommand(Client* c) {
  auto& a = c->argv;
  // As in Valkey: a missing source answers 0 before the destination's type is checked.
  db::Obj* src = LookupWrite(c, a[1]);
  db::Obj* dst = LookupWrite(c, a[2]);
  if (!src) return c->R().Int(0);
  if (src->type() != db::kSet || (dst && dst->type() != db::kSet))
    return c->R().Error(kErrWrongType);
  if (src == dst) return c->R().Int(db::SetContains(src, a[3]) ? 1 : 0);
  if (!db::SetRemove(src, a[3])) return c->R().Int(0);
  std::string srckey(a[1]), dstkey(a[2]), member(a[3]);
  Notify(kNotifySet, "srem", srckey, c->dbid);
  DeleteIfEmpty(c, srckey, db::SetLen(src));
  if (!dst) {
    dst = db::NewSet(dstkey, member);
    c->db->Add(dst);
  }
  Modified(c, srckey);
  // The destination counts as changed only when the member was not in it already (a WATCH of
  // it holds, as Valkey 8's smoveCommand signals it only then).
  if (db::SetAdd(dst, member)) {
    Notify(kNotifySet, "sadd", dstkey, c->dbid);
    Modified(c, dstkey);
  }
  c->R().Int(1);
}

// Loads the sets of keys[]; missing keys are nullptr. False (error replied) on WRONGTYPE.
bool LoadSets(Client* c, const std::vector<std::string_view>& keys, bool write,
              std::vector<db::Obj*>* sets) {
  for (auto k : keys) {
    db::Obj* o = write ? LookupWrite(c, k) : LookupRead(c, k);
    if (o && o->type() != db::kSet) {
      c->R().Error(kErrWrongType);
      return false;
    }
    sets->push_back(o);
  }
  return true;
}

enum SetOp { kInter, kUnion, kDiff };

// Computes the operation; members in a stable order (first set's order for inter/diff).
std::vector<std::string> ComputeSetOp(std::vector<db::Obj*>& sets, SetOp op, int64_t limit) {
  std::vector<std::string> out;
  if (op == kInter) {
    for (auto* s : sets)
      if (!s) return out;
    std::vector<db::Obj*> sorted = sets;
    std::sort(sorted.begin(), sorted.end(),
              [](db::Obj* x, db::Obj* y) { return db::SetLen(x) < db::SetLen(y); });
    db::SetForEach(sorted[0], [&](std::string_view m) {
      if (limit && static_cast<int64_t>(out.size()) >= limit) return;
      for (size_t i = 1; i < sorted.size(); i++)
        if (sorted[i] != sorted[0] && !db::SetContains(sorted[i], m)) return;
      out.emplace_back(m);
    });
  } else if (op == kUnion) {
    std::set<std::string> seen;
    for (auto* s : sets) {
      if (!s) continue;
      db::SetForEach(s, [&](std::string_view m) {
        if (seen.emplace(m).second) out.emplace_back(m);
      });
    }
  } else {
    if (!sets[0]) return out;
    db::SetForEach(sets[0], [&](std::string_view m) {
      for (size_t i = 1; i < sets.size(); i++)
        if (sets[i] && (sets[i] == sets[0] || db::SetContains(sets[i], m))) return;
      out.emplace_back(m);
    });
  }
  return out;
}

void SetOpCommand(Client* c, SetOp op, bool store) {
  auto& a = c->argv;
  size_t first = store ? 2 : 1;
  std::vector<std::string_view> keys(a.begin() + first, a.end());
  std::vector<db::Obj*> sets;
  if (!LoadSets(c, keys, store, &sets)) return;
  std::vector<std::string> result = ComputeSetOp(sets, op, 0);
  if (!store) {
    auto r = c->R();
    r.SetLen(static_cast<int64_t>(result.size()));
    for (auto& m : result) r.Bulk(m);
    return;
  }
  db::Obj* o = nullptr;
  if (!result.empty()) {
    o = db::NewSet(a[1], result[0], result.size());
    for (auto& m : result) db::SetAdd(o, m);
    db::SetMaybeToIntset(o);
  }
  static const char* kEvents[] = {"sinterstore", "sunionstore", "sdiffstore"};
  StoreResult(c, std::string(a[1]), o, kNotifySet, kEvents[op]);
  c->R().Int(static_cast<int64_t>(result.size()));
}
void SInterCommand(Client* c) { SetOpCommand(c, kInter, false); }
void SUnionCommand(Client* c) { SetOpCommand(c, kUnion, false); }
void SDiffCommand(Client* c) { SetOpCommand(c, kDiff, false); }
void SInterStoreCommand(Client* c) { SetOpCommand(c, kInter, true); }
void SUnionStoreCommand(Client* c) { SetOpCommand(c, kUnion, true); }
void SDiffStoreCommand(Client* c) { SetOpCommand(c, kDiff, true); }

void SInterCardCommand(Client* c) {
  auto& a = c->argv;
  int64_t numkeys;
  if (!ArgRange(c, a[1], 1, INT64_MAX, &numkeys, "numkeys should be greater than 0")) return;
  if (numkeys > static_cast<int64_t>(a.size()) - 2)
    return c->R().Error("Number of keys can't be greater than number of args");
  int64_t limit = 0;
  for (size_t j = 2 + numkeys; j < a.size(); j++) {
    if (base::EqualsNoCase(a[j], "limit") && j + 1 < a.size()) {
      if (!ArgPositive(c, a[++j], &limit, "LIMIT can't be negative")) return;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  std::vector<std::string_view> keys(a.begin() + 2, a.begin() + 2 + numkeys);
  std::vector<db::Obj*> sets;
  if (!LoadSets(c, keys, false, &sets)) return;
  c->R().Int(static_cast<int64_t>(ComputeSetOp(sets, kInter, limit).size()));
}

void SScanCommand(Client* c) {
  uint64_t cursor;
  if (!ParseScanCursor(c, c->argv[2], &cursor)) return;
  bool err;
  db::Obj* o = LookupSetRead(c, c->argv[1], &err);
  if (err) return;
  ScanElements(
      c, o,
      [&](uint64_t cur, const ScanEmit& emit) {
        return db::SetScan(o, cur, [&](std::string_view m) { emit(m, {}); });
      },
      false);
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterSetCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "set";
  const uint32_t kR = kCmdReadonly;
  t->push_back({"sadd", -3, kCmdWrite | kCmdDenyOom | kCmdFast, SAddCommand, g, "1.0.0",
                "Adds members to a set.", "O(N)"});
  t->push_back({"srem", -3, kCmdWrite | kCmdFast, SRemCommand, g, "1.0.0",
                "Removes members from a set.", "O(N)"});
  t->push_back({"sismember", 3, kR | kCmdFast, SIsMemberCommand, g, "1.0.0",
                "Tells whether a member belongs to a set.", "O(1)"});
  t->push_back({"smismember", -3, kR | kCmdFast, SMIsMemberCommand, g, "6.2.0",
                "Tells for each member whether it belongs.", "O(N)"});
  t->push_back({"scard", 2, kR | kCmdFast, SCardCommand, g, "1.0.0", "Counts the members of a set.",
                "O(1)"});
  t->push_back(
      {"smembers", 2, kR, SMembersCommand, g, "1.0.0", "Lists the members of a set.", "O(N)"});
  t->push_back({"spop", -2, kCmdWrite | kCmdFast, SPopCommand, g, "1.0.0",
                "Removes and returns random members.", "O(N)"});
  t->push_back(
      {"srandmember", -2, kR, SRandMemberCommand, g, "1.0.0", "Returns random members.", "O(N)"});
  t->push_back({"smove", 4, kCmdWrite | kCmdFast, SMoveCommand, g, "1.0.0",
                "Moves a member to another set.", "O(1)"});
  t->push_back({"sinter", -2, kR, SInterCommand, g, "1.0.0", "Intersects sets.", "O(N*M)"});
  t->push_back({"sintercard", -3, kR, SInterCardCommand, g, "7.0.0",
                "Counts the intersection of sets.", "O(N*M)"});
  t->push_back({"sinterstore", -3, kCmdWrite | kCmdDenyOom, SInterStoreCommand, g, "1.0.0",
                "Stores the intersection of sets.", "O(N*M)"});
  t->push_back({"sunion", -2, kR, SUnionCommand, g, "1.0.0", "Unites sets.", "O(N)"});
  t->push_back({"sunionstore", -3, kCmdWrite | kCmdDenyOom, SUnionStoreCommand, g, "1.0.0",
                "Stores the union of sets.", "O(N)"});
  t->push_back(
      {"sdiff", -2, kR, SDiffCommand, g, "1.0.0", "Subtracts sets from the first.", "O(N)"});
  t->push_back({"sdiffstore", -3, kCmdWrite | kCmdDenyOom, SDiffStoreCommand, g, "1.0.0",
                "Stores the difference of sets.", "O(N)"});
  t->push_back({"sscan", -3, kR, SScanCommand, g, "2.8.0",
                "Walks the members of a set with a cursor.", "O(1) per call"});
}
}  // namespace server
