// List commands, including the blocking forms.
#include <algorithm>
#include <climits>
#include <vector>

#include "base/util.h"
#include "commands/common.h"
#include "db/list.h"
#include "server/blocking.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;

constexpr bool kHead = true, kTail = false;

db::Obj* LookupListRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kList);
  return *err ? nullptr : o;
}

// Bookkeeping after elements were taken out of a list: event, empty-key deletion, dirty.
void ElementsRemoved(Client* c, std::string_view key, bool head, db::Obj* o, int64_t n) {
  Notify(kNotifyList, head ? "lpop" : "rpop", key, c->dbid);
  Modified(c, key, n);
  if (db::ListLen(o) == 0) DeleteIfEmpty(c, key, 0);
}

void PushGeneric(Client* c, bool head, bool only_existing) {
  auto& a = c->argv;
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kList, &err);
  if (err) return;
  if (!o) {
    if (only_existing) return c->R().Int(0);
    o = db::NewList(a[1]);
    c->db->Add(o);
  }
  for (size_t i = 2; i < a.size(); i++) db::ListPush(o, a[i], head);
  c->R().Int(static_cast<int64_t>(db::ListLen(o)));
  Modified(c, a[1], static_cast<int64_t>(a.size() - 2));
  Notify(kNotifyList, head ? "lpush" : "rpush", a[1], c->dbid);
  KeyReady(c->dbid, a[1]);
}
void LPushCommand(Client* c) { PushGeneric(c, kHead, false); }
void RPushCommand(Client* c) { PushGeneric(c, kTail, false); }
void LPushXCommand(Client* c) { PushGeneric(c, kHead, true); }
void RPushXCommand(Client* c) { PushGeneric(c, kTail, true); }

// Pops up to count elements from one end and replies them (count < 0: single bulk reply).
void PopAndReply(Client* c, db::Obj* o, std::string_view key, bool head, int64_t count) {
  auto r = c->R();
  std::string v;
  if (count < 0) {
    db::ListPop(o, head, &v);
    r.Bulk(v);
    ElementsRemoved(c, key, head, o, 1);
    return;
  }
  int64_t n = std::min<int64_t>(count, static_cast<int64_t>(db::ListLen(o)));
  r.ArrayLen(n);
  for (int64_t i = 0; i < n; i++) {
    db::ListPop(o, head, &v);
    r.Bulk(v);
  }
  ElementsRemoved(c, key, head, o, n);
}

void PopGeneric(Client* c, bool head) {
  auto& a = c->argv;
  if (a.size() > 3) return ReplyArity(c, c->cmd);
  int64_t count = -1;
  if (a.size() == 3 && !ArgPositive(c, a[2], &count)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kList, &err);
  if (err) return;
  if (!o) return count >= 0 ? c->R().NullArray() : c->R().Null();
  if (count == 0) return c->R().ArrayLen(0);
  PopAndReply(c, o, a[1], head, count);
}
void LPopCommand(Client* c) { PopGeneric(c, kHead); }
void RPopCommand(Client* c) { PopGeneric(c, kTail); }

void LLenCommand(Client* c) {
  bool err;
  db::Obj* o = LookupListRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::ListLen(o)) : 0);
}

void LRangeCommand(Client* c) {
  int64_t start, end;
  if (!ArgInt(c, c->argv[2], &start) || !ArgInt(c, c->argv[3], &end)) return;
  bool err;
  db::Obj* o = LookupListRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o) return r.ArrayLen(0);
  int64_t len = static_cast<int64_t>(db::ListLen(o));
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) return r.ArrayLen(0);
  if (end >= len) end = len - 1;
  r.ArrayLen(end - start + 1);
  db::ListWalk(o, static_cast<size_t>(start), false, [&](size_t idx, std::string_view v) {
    r.Bulk(v);
    return static_cast<int64_t>(idx) < end;
  });
}

void LIndexCommand(Client* c) {
  // The key first, as Valkey 8: a missing key is a nil and a wrong type WRONGTYPE, whatever
  // the index; the index is parsed only for a list.
  bool err;
  db::Obj* o = LookupListRead(c, c->argv[1], &err);
  if (err) return;
  if (!o) return c->R().Null();
  int64_t idx;
  if (!ArgInt(c, c->argv[2], &idx)) return;
  std::string v;
  if (!db::ListIndex(o, static_cast<long>(idx), &v)) return c->R().Null();
  c->R().Bulk(v);
}

void LSetCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kList, &err);
  if (err) return;
  if (!o) return c->R().Error(kErrNoSuchKey);
  int64_t idx;
  if (!ArgInt(c, c->argv[2], &idx)) return;
  if (!db::ListSet(o, static_cast<long>(idx), c->argv[3]))
    return c->R().Error("index out of range");
  db::ListMaybeShrink(o);
  Modified(c, c->argv[1]);
  Notify(kNotifyList, "lset", c->argv[1], c->dbid);
  c->R().Ok();
}

void LInsertCommand(Client* c) {
  auto& a = c->argv;
  bool after;
  if (base::EqualsNoCase(a[2], "after"))
    after = true;
  else if (base::EqualsNoCase(a[2], "before"))
    after = false;
  else
    return c->R().Error(kErrSyntax);
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kList, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  int64_t pos = -1;
  db::ListWalk(o, 0, false, [&](size_t idx, std::string_view v) {
    if (v == a[3]) {
      pos = static_cast<int64_t>(idx);
      return false;
    }
    return true;
  });
  if (pos < 0) return c->R().Int(-1);
  db::ListInsertAt(o, static_cast<size_t>(pos), a[4], after);
  Modified(c, a[1]);
  Notify(kNotifyList, "linsert", a[1], c->dbid);
  c->R().Int(static_cast<int64_t>(db::ListLen(o)));
}

void LRemCommand(Client* c) {
  int64_t count;
  if (!ArgRange(c, c->argv[2], -INT64_MAX, INT64_MAX, &count)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kList, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  size_t removed =
      db::ListRemove(o, c->argv[3], static_cast<size_t>(count < 0 ? -count : count), count < 0);
  if (removed) {
    Modified(c, c->argv[1], static_cast<int64_t>(removed));
    Notify(kNotifyList, "lrem", c->argv[1], c->dbid);
    DeleteIfEmpty(c, c->argv[1], db::ListLen(o));
  }
  c->R().Int(static_cast<int64_t>(removed));
}

void LTrimCommand(Client* c) {
  int64_t start, end;
  if (!ArgInt(c, c->argv[2], &start) || !ArgInt(c, c->argv[3], &end)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kList, &err);
  if (err) return;
  if (!o) return c->R().Ok();
  int64_t len = static_cast<int64_t>(db::ListLen(o));
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  int64_t ltrim, rtrim;
  if (start > end || start >= len) {
    ltrim = len;
    rtrim = 0;
  } else {
    if (end >= len) end = len - 1;
    ltrim = start;
    rtrim = len - end - 1;
  }
  if (rtrim) db::ListDeleteRange(o, static_cast<size_t>(len - rtrim), static_cast<size_t>(rtrim));
  if (ltrim) db::ListDeleteRange(o, 0, static_cast<size_t>(ltrim));
  Notify(kNotifyList, "ltrim", c->argv[1], c->dbid);
  Modified(c, c->argv[1], ltrim + rtrim);
  DeleteIfEmpty(c, c->argv[1], db::ListLen(o));
  c->R().Ok();
}

void LPosCommand(Client* c) {
  auto& a = c->argv;
  int64_t rank = 1, count = -1, maxlen = 0;
  for (size_t j = 3; j < a.size(); j++) {
    bool more = j + 1 < a.size();
    if (base::EqualsNoCase(a[j], "rank") && more) {
      if (!ArgRange(c, a[++j], -INT64_MAX, INT64_MAX, &rank)) return;
      if (rank == 0)
        return c->R().Error(
            "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or "
            "use negative to start from the end of the list");
    } else if (base::EqualsNoCase(a[j], "count") && more) {
      if (!ArgPositive(c, a[++j], &count, "COUNT can't be negative")) return;
    } else if (base::EqualsNoCase(a[j], "maxlen") && more) {
      if (!ArgPositive(c, a[++j], &maxlen, "MAXLEN can't be negative")) return;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  bool err;
  db::Obj* o = LookupListRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o) return count >= 0 ? r.ArrayLen(0) : r.Null();
  bool reverse = rank < 0;
  int64_t skip = (rank < 0 ? -rank : rank) - 1;
  int64_t len = static_cast<int64_t>(db::ListLen(o));
  std::vector<int64_t> found;
  int64_t seen = 0;
  db::ListWalk(
      o, reverse ? static_cast<size_t>(len - 1) : 0, reverse, [&](size_t idx, std::string_view v) {
        if (maxlen && seen >= maxlen) return false;
        seen++;
        if (v == a[2]) {
          if (skip > 0) {
            skip--;
          } else {
            found.push_back(static_cast<int64_t>(idx));
            if (count != 0 && static_cast<int64_t>(found.size()) >= std::max<int64_t>(count, 1))
              return false;
          }
        }
        return true;
      });
  if (count < 0) return found.empty() ? r.Null() : r.Int(found[0]);
  r.ArrayLen(static_cast<int64_t>(found.size()));
  for (int64_t i : found) r.Int(i);
}

bool ParseWhere(Client* c, std::string_view s, bool* head) {
  if (base::EqualsNoCase(s, "left"))
    *head = true;
  else if (base::EqualsNoCase(s, "right"))
    *head = false;
  else {
    c->R().Error(kErrSyntax);
    return false;
  }
  return true;
}

// Moves one element; src exists and is a list. Replies the element.
void MoveOne(Client* c, db::Obj* src, std::string_view srckey, std::string_view dstkey,
             bool from_head, bool to_head) {
  bool err;
  db::Obj* dst = LookupWriteTyped(c, dstkey, db::kList, &err);
  if (err) return;
  std::string v;
  db::ListPop(src, from_head, &v);
  std::string sk(srckey), dk(dstkey);
  if (!dst) {
    dst = db::NewList(dk);
    c->db->Add(dst);
  }
  // src may equal dst (rotation): src stays valid because the object is the same.
  db::ListPush(dst, v, to_head);
  Notify(kNotifyList, from_head ? "lpop" : "rpop", sk, c->dbid);
  Notify(kNotifyList, to_head ? "lpush" : "rpush", dk, c->dbid);
  Modified(c, sk);
  Modified(c, dk, 0);  // one change for the move, as Valkey 8 counts it
  if (db::ListLen(src) == 0) DeleteIfEmpty(c, sk, 0);
  KeyReady(c->dbid, dk);
  c->R().Bulk(v);
}

void LMoveGeneric(Client* c, bool from_head, bool to_head) {
  bool err;
  db::Obj* src = LookupWriteTyped(c, c->argv[1], db::kList, &err);
  if (err) return;
  if (!src) return c->R().Null();
  // Check the destination type before touching the source.
  db::Obj* dst = LookupWrite(c, c->argv[2]);
  if (dst && dst->type() != db::kList) return c->R().Error(kErrWrongType);
  MoveOne(c, src, c->argv[1], c->argv[2], from_head, to_head);
}

void LMoveCommand(Client* c) {
  bool from, to;
  if (!ParseWhere(c, c->argv[3], &from) || !ParseWhere(c, c->argv[4], &to)) return;
  LMoveGeneric(c, from, to);
}
void RPopLPushCommand(Client* c) { LMoveGeneric(c, kTail, kHead); }

// LMPOP / BLMPOP: numkeys at argv[first]; deadline_ms >= 0 blocks.
void LMPopGeneric(Client* c, size_t first, bool block, int64_t deadline_ms) {
  MPopArgs m;
  if (!ParseMPopArgs(c, first, "left", "right", &m)) return;
  bool head = m.which == 0;
  int64_t count = m.count;
  auto& keys = m.keys;
  for (auto k : keys) {
    bool err;
    db::Obj* o = LookupWriteTyped(c, k, db::kList, &err);
    if (err) return;
    if (!o) continue;
    auto r = c->R();
    r.ArrayLen(2);
    r.Bulk(k);
    int64_t popped = std::min<int64_t>(count, static_cast<int64_t>(db::ListLen(o)));
    PopAndReply(c, o, k, head, count);
    // Replicas pop exactly what was popped from that key.
    PropagateAs(c, {head ? "LPOP" : "RPOP", std::string(k), base::Int64ToString(popped)});
    return;
  }
  if (block) return BlockForKeys(c, keys, deadline_ms, db::kList, true);
  c->R().NullArray();
}
void LMPopCommand(Client* c) { LMPopGeneric(c, 1, false, 0); }
void BLMPopCommand(Client* c) {
  int64_t deadline;
  if (!ParseBlockTimeout(c, c->argv[1], &deadline)) return;
  LMPopGeneric(c, 2, true, deadline);
}

void BPopGeneric(Client* c, bool head) {
  auto& a = c->argv;
  int64_t deadline;
  if (!ParseBlockTimeout(c, a.back(), &deadline)) return;
  std::vector<std::string_view> keys(a.begin() + 1, a.end() - 1);
  for (auto k : keys) {
    bool err;
    db::Obj* o = LookupWriteTyped(c, k, db::kList, &err);
    if (err) return;
    if (!o) continue;
    std::string v;
    db::ListPop(o, head, &v);
    auto r = c->R();
    r.ArrayLen(2);
    r.Bulk(k);
    r.Bulk(v);
    ElementsRemoved(c, k, head, o, 1);
    PropagateAs(c, {head ? "LPOP" : "RPOP", std::string(k)});
    return;
  }
  BlockForKeys(c, keys, deadline, db::kList, true);
}
void BLPopCommand(Client* c) { BPopGeneric(c, kHead); }
void BRPopCommand(Client* c) { BPopGeneric(c, kTail); }

void BLMoveGeneric(Client* c, bool from, bool to, std::string_view timeout) {
  int64_t deadline;
  if (!ParseBlockTimeout(c, timeout, &deadline)) return;
  bool err;
  db::Obj* src = LookupWriteTyped(c, c->argv[1], db::kList, &err);
  if (err) return;
  if (!src) return BlockForKeys(c, {c->argv[1]}, deadline, db::kList, false);
  db::Obj* dst = LookupWrite(c, c->argv[2]);
  if (dst && dst->type() != db::kList) return c->R().Error(kErrWrongType);
  MoveOne(c, src, c->argv[1], c->argv[2], from, to);
  // The non-blocking form, with the directions as the client wrote them (Valkey's).
  if (c->argv.size() == 6)
    PropagateAs(c, {"LMOVE", std::string(c->argv[1]), std::string(c->argv[2]),
                    std::string(c->argv[3]), std::string(c->argv[4])});
  else
    PropagateAs(c, {"RPOPLPUSH", std::string(c->argv[1]), std::string(c->argv[2])});
}
void BLMoveCommand(Client* c) {
  bool from, to;
  if (!ParseWhere(c, c->argv[3], &from) || !ParseWhere(c, c->argv[4], &to)) return;
  BLMoveGeneric(c, from, to, c->argv[5]);
}
void BRPopLPushCommand(Client* c) { BLMoveGeneric(c, kTail, kHead, c->argv[3]); }

}  // namespace
}  // namespace cmd

namespace server {
void RegisterListCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "list";
  const uint32_t kW = kCmdWrite | kCmdDenyOom | kCmdFast;
  const uint32_t kB = kCmdWrite | kCmdBlocking;
  t->push_back({"lpush", -3, kW, LPushCommand, g, "1.0.0", "Prepends elements to a list.", "O(N)"});
  t->push_back({"rpush", -3, kW, RPushCommand, g, "1.0.0", "Appends elements to a list.", "O(N)"});
  t->push_back({"lpushx", -3, kW, LPushXCommand, g, "2.2.0",
                "Prepends elements to an existing list.", "O(N)"});
  t->push_back({"rpushx", -3, kW, RPushXCommand, g, "2.2.0",
                "Appends elements to an existing list.", "O(N)"});
  t->push_back({"lpop", -2, kCmdWrite | kCmdFast, LPopCommand, g, "1.0.0",
                "Takes elements from the head.", "O(N)"});
  t->push_back({"rpop", -2, kCmdWrite | kCmdFast, RPopCommand, g, "1.0.0",
                "Takes elements from the tail.", "O(N)"});
  t->push_back({"llen", 2, kCmdReadonly | kCmdFast, LLenCommand, g, "1.0.0",
                "Counts the elements of a list.", "O(1)"});
  t->push_back({"lrange", 4, kCmdReadonly, LRangeCommand, g, "1.0.0",
                "Returns a range of elements.", "O(S+N)"});
  t->push_back({"lindex", 3, kCmdReadonly, LIndexCommand, g, "1.0.0",
                "Returns the element at an index.", "O(N)"});
  t->push_back({"lset", 4, kCmdWrite | kCmdDenyOom, LSetCommand, g, "1.0.0",
                "Replaces the element at an index.", "O(N)"});
  t->push_back({"linsert", 5, kCmdWrite | kCmdDenyOom, LInsertCommand, g, "2.2.0",
                "Inserts an element next to another.", "O(N)"});
  t->push_back({"lrem", 4, kCmdWrite, LRemCommand, g, "1.0.0", "Removes occurrences of an element.",
                "O(N+M)"});
  t->push_back(
      {"ltrim", 4, kCmdWrite, LTrimCommand, g, "1.0.0", "Keeps only a range of elements.", "O(N)"});
  t->push_back({"lpos", -3, kCmdReadonly, LPosCommand, g, "6.0.6", "Finds positions of an element.",
                "O(N)"});
  t->push_back({"lmove", 5, kCmdWrite | kCmdDenyOom, LMoveCommand, g, "6.2.0",
                "Moves an element between lists.", "O(1)"});
  t->push_back({"rpoplpush", 3, kCmdWrite | kCmdDenyOom, RPopLPushCommand, g, "1.2.0",
                "Moves the tail of one list to the head of another.", "O(1)"});
  t->push_back({"lmpop", -4, kCmdWrite, LMPopCommand, g, "7.0.0",
                "Pops from the first non-empty list.", "O(N+M)"});
  t->push_back(
      {"blpop", -3, kB, BLPopCommand, g, "2.0.0", "Pops from the head, waiting for data.", "O(N)"});
  t->push_back(
      {"brpop", -3, kB, BRPopCommand, g, "2.0.0", "Pops from the tail, waiting for data.", "O(N)"});
  t->push_back({"blmove", 6, kB | kCmdDenyOom, BLMoveCommand, g, "6.2.0",
                "Moves an element, waiting for data.", "O(1)"});
  t->push_back({"brpoplpush", 4, kB | kCmdDenyOom, BRPopLPushCommand, g, "2.2.0",
                "RPOPLPUSH, waiting for data.", "O(1)"});
  t->push_back({"blmpop", -5, kB, BLMPopCommand, g, "7.0.0", "LMPOP, waiting for data.", "O(N+M)"});
}
}  // namespace server
