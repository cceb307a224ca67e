// String commands.
#include <climits>
#include <cmath>

#include "base/util.h"
#include "commands/common.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using server::Client;
using server::CommandSpec;
using namespace server;  // flags

constexpr int64_t kNoExpire = -1;

// Stores a string value. expire: absolute ms, or -1; keep_ttl carries the old expire over.
void SetString(Client* c, db::Obj* old, std::string_view key, std::string_view val, int64_t expire,
               bool keep_ttl) {
  if (keep_ttl && old) expire = old->expire();
  // The expire stays as it is: in place; else a new object takes the old one's place.
  bool same_expire = old && (keep_ttl || (expire < 0 && !old->has_expire()));
  if (!same_expire || !db::OverwriteString(old, val))
    StoreKey(c, old, db::NewString(key, val, expire));
  Modified(c, key);
  Notify(kNotifyString, "set", key, c->dbid);
}

void ReplyString(Client* c, const db::Obj* o) {
  char buf[24];
  c->R().Bulk(o->str(buf));
}

// An expire already in the past deletes the key (if any), propagating DEL. True when the
// expire was in the past.
bool DeleteIfPastExpire(Client* c, std::string_view key, int64_t when) {
  if (when < 0 || when > db::GetEnv().now_ms || !db::GetEnv().ExpiresAtOnce()) return false;
  std::string k(key);
  if (c->db->DeleteExpired(k)) {
    Modified(c, k);
    PropagateAs(c, {server::cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL", k});
    Notify(kNotifyGeneric, "del", k, c->dbid);
  }
  return true;
}

void GetCommand(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!o) return c->R().Null();
  if (!CheckType(c, o, db::kString)) return;
  ReplyString(c, o);
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL]
void SetCommand(Client* c) {
  auto& a = c->argv;
  bool nx = false, xx = false, get = false, keepttl = false;
  int64_t when = kNoExpire;
  std::string expire_kind;  // the one expire option given (it may repeat)
  for (size_t i = 3; i < a.size(); i++) {
    std::string_view o = a[i];
    bool has_next = i + 1 < a.size();
    if (base::EqualsNoCase(o, "nx") && !xx)
      nx = true;
    else if (base::EqualsNoCase(o, "xx") && !nx)
      xx = true;
    else if (base::EqualsNoCase(o, "get"))
      get = true;
    else if (base::EqualsNoCase(o, "keepttl") && expire_kind.empty())
      keepttl = true;
    else if (!keepttl && has_next &&
             (base::EqualsNoCase(o, "ex") || base::EqualsNoCase(o, "px") ||
              base::EqualsNoCase(o, "exat") || base::EqualsNoCase(o, "pxat")) &&
             (expire_kind.empty() || base::EqualsNoCase(o, expire_kind))) {
      bool secs = base::EqualsNoCase(o, "ex") || base::EqualsNoCase(o, "exat");
      bool abs = base::EqualsNoCase(o, "exat") || base::EqualsNoCase(o, "pxat");
      if (!ParseExpire(c, a[++i], secs ? 1000 : 1, abs, "set", &when)) return;
      expire_kind = base::ToLower(o);
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  // With GET: a read first (keyspace hit or miss, keymiss), then the write's access, as Valkey
  // 8's GET then its write lookup.
  db::Obj* old;
  if (get) {
    old = LookupRead(c, a[1]);
    if (!CheckType(c, old, db::kString)) return;
    TouchForWrite(c, old);
  } else {
    old = LookupWrite(c, a[1]);
  }
  bool exists = old != nullptr;
  if ((nx && exists) || (xx && !exists)) {
    if (get) {
      if (old)
        ReplyString(c, old);
      else
        c->R().Null();
    } else {
      c->R().Null();
    }
    return;
  }
  if (get) {
    if (old)
      ReplyString(c, old);
    else
      c->R().Null();
  }
  if (when != kNoExpire && DeleteIfPastExpire(c, a[1], when)) {  // no "set" event, as Valkey
    if (!get) c->R().Ok();
    return;
  }
  SetString(c, old, a[1], a[2], when, keepttl);
  if (when != kNoExpire) {
    Notify(kNotifyGeneric, "expire", a[1], c->dbid);
    // Relative expires travel as absolute times so replicas agree on the instant; a PXAT
    // given travels as given (Valkey 8 rewrites EX, PX and EXAT only).
    if (expire_kind != "pxat") {
      std::vector<std::string> p{"SET", std::string(a[1]), std::string(a[2]), "PXAT",
                                 base::Int64ToString(when)};
      if (keepttl) p.push_back("KEEPTTL");
      PropagateAs(c, std::move(p));
    }
  }
  if (!get) c->R().Ok();
}

void SetNxCommand(Client* c) {
  db::Obj* old = LookupWrite(c, c->argv[1]);
  if (old) return c->R().Int(0);
  SetString(c, nullptr, c->argv[1], c->argv[2], kNoExpire, false);
  c->R().Int(1);
}

void SetExGeneric(Client* c, int64_t unit, const char* name) {
  int64_t when;
  if (!ParseExpire(c, c->argv[2], unit, false, name, &when)) return;
  db::Obj* old = LookupWrite(c, c->argv[1]);
  SetString(c, old, c->argv[1], c->argv[3], when, false);
  Notify(kNotifyGeneric, "expire", c->argv[1], c->dbid);
  PropagateAs(c, {"SET", std::string(c->argv[1]), std::string(c->argv[3]), "PXAT",
                  base::Int64ToString(when)});
  c->R().Ok();
}
void SetExCommand(Client* c) { SetExGeneric(c, 1000, "setex"); }
void PSetExCommand(Client* c) { SetExGeneric(c, 1, "psetex"); }

void GetSetCommand(Client* c) {
  // A read (keyspace hit or miss, keymiss) then the write's access, as Valkey 8's GET then
  // setKey.
  db::Obj* old = LookupRead(c, c->argv[1]);
  if (!CheckType(c, old, db::kString)) return;
  TouchForWrite(c, old);
  if (old)
    ReplyString(c, old);
  else
    c->R().Null();
  SetString(c, old, c->argv[1], c->argv[2], kNoExpire, false);
  PropagateAs(c, {"SET", std::string(c->argv[1]), std::string(c->argv[2])});  // as Valkey
}

void GetDelCommand(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!o) return c->R().Null();
  if (!CheckType(c, o, db::kString)) return;
  ReplyString(c, o);
  std::string k(c->argv[1]);
  c->db->Delete(k);
  Modified(c, k);
  Notify(kNotifyGeneric, "del", k, c->dbid);
  PropagateAs(c, {"DEL", k});
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST]
void GetExCommand(Client* c) {
  auto& a = c->argv;
  int64_t when = kNoExpire;
  bool persist = false, set = false;
  size_t value_at = 0;  // index of the expire value, parsed only when the key exists
  bool secs = false, abs = false;
  for (size_t i = 2; i < a.size(); i++) {
    std::string_view o = a[i];
    bool has_next = i + 1 < a.size();
    if (base::EqualsNoCase(o, "persist") && !set && !persist) {
      persist = true;
    } else if (!set && !persist && has_next &&
               (base::EqualsNoCase(o, "ex") || base::EqualsNoCase(o, "px") ||
                base::EqualsNoCase(o, "exat") || base::EqualsNoCase(o, "pxat"))) {
      secs = base::EqualsNoCase(o, "ex") || base::EqualsNoCase(o, "exat");
      abs = base::EqualsNoCase(o, "exat") || base::EqualsNoCase(o, "pxat");
      value_at = ++i;
      set = true;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  db::Obj* o = LookupRead(c, a[1]);
  if (!o) return c->R().Null();
  if (!CheckType(c, o, db::kString)) return;
  if (set && !ParseExpire(c, a[value_at], secs ? 1000 : 1, abs, "getex", &when)) return;
  ReplyString(c, o);
  std::string k(a[1]);
  if (set) {
    if (DeleteIfPastExpire(c, k, when)) return;
    c->db->SetExpire(o, when);
    Modified(c, k);
    Notify(kNotifyGeneric, "expire", k, c->dbid);
    PropagateAs(c, {"PEXPIREAT", k, base::Int64ToString(when)});
  } else if (persist && o->has_expire()) {
    c->db->SetExpire(o, -1);
    Modified(c, k);
    Notify(kNotifyGeneric, "persist", k, c->dbid);
    PropagateAs(c, {"PERSIST", k});
  }
}

void MGetCommand(Client* c) {
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 1));
  for (size_t i = 1; i < c->argv.size(); i++) {
    db::Obj* o = LookupRead(c, c->argv[i]);
    if (!o || o->type() != db::kString)
      r.Null();
    else
      ReplyString(c, o);
  }
}

void MSetGeneric(Client* c, bool nx) {
  auto& a = c->argv;
  if (a.size() % 2 == 0) return ReplyArity(c, c->cmd);
  if (nx) {
    for (size_t i = 1; i < a.size(); i += 2)
      if (LookupWrite(c, a[i])) return c->R().Int(0);
  }
  for (size_t i = 1; i < a.size(); i += 2) {
    db::Obj* old = LookupWrite(c, a[i]);
    SetString(c, old, a[i], a[i + 1], kNoExpire, false);
  }
  if (nx)
    c->R().Int(1);
  else
    c->R().Ok();
}
void MSetCommand(Client* c) { MSetGeneric(c, false); }
void MSetNxCommand(Client* c) { MSetGeneric(c, true); }

bool CheckStringLength(Client* c, uint64_t len) {
  if (len > static_cast<uint64_t>(server::cfg.proto_max_bulk_len)) {
    c->R().Error("string exceeds maximum allowed size (proto-max-bulk-len)");
    return false;
  }
  return true;
}

void AppendCommand(Client* c) {
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!CheckType(c, o, db::kString)) return;
  size_t len;
  if (!o) {
    c->db->Add(db::NewString(c->argv[1], c->argv[2]));
    len = c->argv[2].size();
  } else {
    if (!CheckStringLength(c, o->str_len() + c->argv[2].size())) return;
    o = MakeRaw(c, o);
    o->raw()->append(c->argv[2]);
    len = o->raw()->size();
  }
  Modified(c, c->argv[1]);
  Notify(kNotifyString, "append", c->argv[1], c->dbid);
  c->R().Int(static_cast<int64_t>(len));
}

void StrlenCommand(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!CheckType(c, o, db::kString)) return;
  c->R().Int(o ? static_cast<int64_t>(o->str_len()) : 0);
}

void GetRangeCommand(Client* c) {
  int64_t start, end;
  if (!ArgInt(c, c->argv[2], &start) || !ArgInt(c, c->argv[3], &end)) return;
  db::Obj* o = LookupRead(c, c->argv[1]);
  if (!o) return c->R().Bulk("");
  if (!CheckType(c, o, db::kString)) return;
  char buf[24];
  std::string_view s = o->str(buf);
  int64_t len = static_cast<int64_t>(s.size());
  if (start < 0 && end < 0 && start > end) return c->R().Bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (len == 0 || start > end) return c->R().Bulk("");
  c->R().Bulk(s.substr(start, end - start + 1));
}

void SetRangeCommand(Client* c) {
  int64_t offset;
  if (!ArgInt(c, c->argv[2], &offset)) return;
  if (offset < 0) return c->R().Error("offset is out of range");
  std::string_view val = c->argv[3];
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!CheckType(c, o, db::kString)) return;
  if (!o) {
    if (val.empty()) return c->R().Int(0);
    if (!CheckStringLength(c, offset + val.size())) return;
    std::string s(offset + val.size(), '\0');
    s.replace(offset, val.size(), val);
    c->db->Add(db::NewRaw(c->argv[1], std::move(s)));
    Modified(c, c->argv[1]);
    Notify(kNotifyString, "setrange", c->argv[1], c->dbid);
    return c->R().Int(static_cast<int64_t>(offset + val.size()));
  }
  size_t olen = o->str_len();
  if (val.empty()) return c->R().Int(static_cast<int64_t>(olen));
  if (!CheckStringLength(c, offset + val.size())) return;
  o = MakeRaw(c, o);
  std::string* s = o->raw();
  if (s->size() < offset + val.size()) s->resize(offset + val.size(), '\0');
  s->replace(offset, val.size(), val);
  Modified(c, c->argv[1]);
  Notify(kNotifyString, "setrange", c->argv[1], c->dbid);
  c->R().Int(static_cast<int64_t>(s->size()));
}

void IncrGeneric(Client* c, int64_t by) {
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!CheckType(c, o, db::kString)) return;
  int64_t v = 0;
  if (o) {
    if (o->enc() == db::kEncInt) {
      v = o->int_value();
    } else {
      char buf[24];
      if (!base::ParseInt64(o->str(buf), &v)) return c->R().Error(kErrNotInt);
    }
  }
  if ((by < 0 && v < 0 && by < INT64_MIN - v) || (by > 0 && v > 0 && by > INT64_MAX - v))
    return c->R().Error(kErrOverflow);
  v += by;
  if (o && o->enc() == db::kEncInt) {
    o->set_int_value(v);  // in place: no reallocation
  } else {
    StoreKey(c, o, db::NewInt(c->argv[1], v, o ? o->expire() : -1));
  }
  Modified(c, c->argv[1]);
  Notify(kNotifyString, "incrby", c->argv[1], c->dbid);
  c->R().Int(v);
}
void IncrCommand(Client* c) { IncrGeneric(c, 1); }
void DecrCommand(Client* c) { IncrGeneric(c, -1); }
void IncrByCommand(Client* c) {
  int64_t by;
  if (ArgInt(c, c->argv[2], &by)) IncrGeneric(c, by);
}
void DecrByCommand(Client* c) {
  int64_t by;
  if (!ArgInt(c, c->argv[2], &by)) return;
  if (by == INT64_MIN) return c->R().Error("decrement would overflow");
  IncrGeneric(c, -by);
}

void IncrByFloatCommand(Client* c) {
  long double by;
  db::Obj* o = LookupWrite(c, c->argv[1]);
  if (!CheckType(c, o, db::kString)) return;
  long double v = 0;
  if (o) {
    char buf[24];
    if (!base::ParseLongDouble(o->str(buf), &v)) return c->R().Error(kErrNotFloat);
  }
  if (!ArgLongDouble(c, c->argv[2], &by)) return;
  v += by;
  if (std::isnan(v) || std::isinf(v))
    return c->R().Error("increment would produce NaN or Infinity");
  std::string s = base::FormatLongDouble(v);
  db::Obj* nw = db::NewString(c->argv[1], s, o ? o->expire() : -1, /*try_int=*/false);
  StoreKey(c, o, nw);
  Modified(c, c->argv[1]);
  Notify(kNotifyString, "incrbyfloat", c->argv[1], c->dbid);
  c->R().Bulk(s);
  PropagateAs(c, {"SET", std::string(c->argv[1]), s, "KEEPTTL"});
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest common subsequence
// of two string values by the dynamic-programming table, walked back from the end; IDX lists
// the matching ranges from the last one, as Valkey does.
void LcsCommand(Client* c) {
  auto& a = c->argv;
  db::Obj* oa = LookupRead(c, a[1]);
  db::Obj* ob = LookupRead(c, a[2]);
  if ((oa && oa->type() != db::kString) || (ob && ob->type() != db::kString))
    return c->R().Error("The specified keys must contain string values");
  char bufa[24], bufb[24];
  std::string sa(oa ? oa->str(bufa) : std::string_view());
  std::string sb(ob ? ob->str(bufb) : std::string_view());
  bool getlen = false, getidx = false, withmatchlen = false;
  int64_t minmatchlen = 0;
  for (size_t j = 3; j < a.size(); j++) {
    bool more = j + 1 < a.size();
    if (base::EqualsNoCase(a[j], "idx")) {
      getidx = true;
    } else if (base::EqualsNoCase(a[j], "len")) {
      getlen = true;
    } else if (base::EqualsNoCase(a[j], "withmatchlen")) {
      withmatchlen = true;
    } else if (base::EqualsNoCase(a[j], "minmatchlen") && more) {
      if (!ArgInt(c, a[j + 1], &minmatchlen)) return;
      if (minmatchlen < 0) minmatchlen = 0;
      j++;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  if (getlen && getidx)
    return c->R().Error("If you want both the length and indexes, please just use IDX.");
  if (sa.size() >= UINT32_MAX - 1 || sb.size() >= UINT32_MAX - 1)
    return c->R().Error("String too long for LCS");
  uint64_t alen = sa.size(), blen = sb.size();
  uint64_t cells = (alen + 1) * (blen + 1);
  if (cells * sizeof(uint32_t) > static_cast<uint64_t>(cfg.proto_max_bulk_len))
    return c->R().Error(
        "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  std::vector<uint32_t> table(cells, 0);
  auto at = [&](uint64_t i, uint64_t j) -> uint32_t& { return table[j + i * (blen + 1)]; };
  for (uint64_t i = 1; i <= alen; i++)
    for (uint64_t j = 1; j <= blen; j++)
      at(i, j) = sa[i - 1] == sb[j - 1] ? at(i - 1, j - 1) + 1
                                         : std::max(at(i - 1, j), at(i, j - 1));
  uint32_t len = at(alen, blen);
  if (getlen) return c->R().Int(len);
  auto r = c->R();
  std::string result(len, '\0');
  size_t handle = 0;
  if (getidx) {
    r.MapLen(2);
    r.Bulk("matches");
    handle = r.DeferLen();
  }
  // The current range, from its last byte backwards; astart == alen: none.
  uint64_t astart = alen, aend = 0, bstart = 0, bend = 0;
  int64_t ranges = 0;
  uint64_t i = alen, j = blen, idx = len;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (sa[i - 1] == sb[j - 1]) {
      result[idx - 1] = sa[i - 1];
      if (astart == alen) {
        astart = aend = i - 1;
        bstart = bend = j - 1;
      } else if (astart == i && bstart == j) {
        astart--;
        bstart--;
      } else {
        emit = true;
      }
      if (astart == 0 || bstart == 0) emit = true;
      idx--;
      i--;
      j--;
    } else {
      if (at(i - 1, j) > at(i, j - 1))
        i--;
      else
        j--;
      if (astart != alen) emit = true;
    }
    if (emit) {
      uint64_t match_len = aend - astart + 1;
      if (getidx && (minmatchlen == 0 || match_len >= static_cast<uint64_t>(minmatchlen))) {
        r.ArrayLen(withmatchlen ? 3 : 2);
        r.ArrayLen(2);
        r.Int(static_cast<int64_t>(astart));
        r.Int(static_cast<int64_t>(aend));
        r.ArrayLen(2);
        r.Int(static_cast<int64_t>(bstart));
        r.Int(static_cast<int64_t>(bend));
        if (withmatchlen) r.Int(static_cast<int64_t>(match_len));
        ranges++;
      }
      astart = alen;
    }
  }
  if (getidx) {
    r.SetDeferredArrayLen(handle, ranges);
    r.Bulk("len");
    r.Int(len);
  } else {
    r.Bulk(result);
  }
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterStringCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "string";
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  t->push_back(
      {"get", 2, kCmdReadonly | kCmdFast, GetCommand, g, "1.0.0", "Reads a string value.", "O(1)"});
  t->push_back({"set", -3, kW, SetCommand, g, "1.0.0",
                "Writes a string value, replacing whatever the key held.", "O(1)"});
  t->push_back({"setnx", 3, kW | kCmdFast, SetNxCommand, g, "1.0.0",
                "Writes a string value only if the key is absent.", "O(1)"});
  t->push_back({"setex", 4, kW, SetExCommand, g, "2.0.0",
                "Writes a string value with a time to live in seconds.", "O(1)"});
  t->push_back({"psetex", 4, kW, PSetExCommand, g, "2.6.0",
                "Writes a string value with a time to live in milliseconds.", "O(1)"});
  t->push_back({"getset", 3, kW | kCmdFast, GetSetCommand, g, "1.0.0",
                "Replaces a string value and returns the old one.", "O(1)"});
  t->push_back({"getdel", 2, kCmdWrite | kCmdFast, GetDelCommand, g, "6.2.0",
                "Reads a string value and removes the key.", "O(1)"});
  t->push_back({"getex", -2, kCmdWrite | kCmdFast, GetExCommand, g, "6.2.0",
                "Reads a string value and changes or clears its expiry.", "O(1)"});
  t->push_back({"mget", -2, kCmdReadonly | kCmdFast, MGetCommand, g, "1.0.0",
                "Reads several string values at once.", "O(N)"});
  t->push_back(
      {"mset", -3, kW, MSetCommand, g, "1.0.1", "Writes several string values at once.", "O(N)"});
  t->push_back({"msetnx", -3, kW, MSetNxCommand, g, "1.0.1",
                "Writes several string values only if none of the keys exists.", "O(N)"});
  t->push_back({"append", 3, kW | kCmdFast, AppendCommand, g, "2.0.0",
                "Adds bytes to the end of a string value (an absent key starts empty).", "O(1)"});
  t->push_back({"strlen", 2, kCmdReadonly | kCmdFast, StrlenCommand, g, "2.2.0",
                "Byte length of a string value.", "O(1)"});
  t->push_back({"lcs", -3, kCmdReadonly, LcsCommand, g, "7.0.0",
                "The longest common subsequence of two string values.", "O(N*M)"});
  t->push_back({"getrange", 4, kCmdReadonly, GetRangeCommand, g, "2.4.0",
                "Reads a byte range of a string value.", "O(N)"});
  t->push_back({"substr", 4, kCmdReadonly, GetRangeCommand, g, "1.0.0",
                "Reads a byte range of a string value (old name of GETRANGE).", "O(N)"});
  t->push_back({"setrange", 4, kW, SetRangeCommand, g, "2.2.0",
                "Overwrites bytes of a string value from an offset, padding with zero bytes.",
                "O(1)"});
  t->push_back({"incr", 2, kW | kCmdFast, IncrCommand, g, "1.0.0",
                "Adds one to an integer string (absent keys count as 0).", "O(1)"});
  t->push_back({"decr", 2, kW | kCmdFast, DecrCommand, g, "1.0.0",
                "Subtracts one from an integer string (absent keys count as 0).", "O(1)"});
  t->push_back({"incrby", 3, kW | kCmdFast, IncrByCommand, g, "1.0.0",
                "Adds an amount to an integer string (absent keys count as 0).", "O(1)"});
  t->push_back({"decrby", 3, kW | kCmdFast, DecrByCommand, g, "1.0.0",
                "Subtracts an amount from an integer string (absent keys count as 0).", "O(1)"});
  t->push_back({"incrbyfloat", 3, kW | kCmdFast, IncrByFloatCommand, g, "2.6.0",
                "Adds a decimal amount to a numeric string (absent keys count as 0).", "O(1)"});
}
}  // namespace server
