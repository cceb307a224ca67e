// Stream commands: XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID, XREAD, XREADGROUP (with
// BLOCK through the blocking registry), XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO.
// Replies, errors, propagation and events follow Valkey 8.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/util.h"
#include "commands/common.h"
#include "db/stream.h"
#include "server/blocking.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;
using db::Stream;
using db::StreamCG;
using db::StreamConsumer;
using db::StreamID;
using db::StreamIterator;
using db::StreamNack;

constexpr const char* kErrInvalidId = "Invalid stream ID specified as stream command argument";

int FormatU64(uint64_t v, char* buf) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  return n;
}

std::string_view FormatID(StreamID id, char* buf) {
  int n = FormatU64(id.ms, buf);
  buf[n++] = '-';
  n += FormatU64(id.seq, buf + n);
  return std::string_view(buf, static_cast<size_t>(n));
}

void ReplyID(net::Reply& r, StreamID id) {
  char buf[48];
  r.Bulk(FormatID(id, buf));
}

// Valkey's unsigned parse: strict digits first, then strtoull's looser forms.
bool ParseU64(std::string_view s, uint64_t* out) {
  int64_t v;
  if (base::ParseInt64(s, &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (s.empty() || s.size() > 127) return false;
  char buf[128];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = 0;
  if (memchr(buf, 0, s.size())) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long u = strtoull(buf, &end, 10);
  if (errno == EINVAL || errno == ERANGE || *end != 0) return false;
  *out = u;
  return true;
}

// Parses <ms>-<seq>, <ms> (seq = missing_seq), and unless strict "-" and "+". seq_given (when
// not null) allows "<ms>-*" and says whether the sequence was given. c null: no reply.
bool ParseID(Client* c, std::string_view s, StreamID* id, uint64_t missing_seq, bool strict,
             bool* seq_given = nullptr) {
  auto invalid = [&] {
    if (c) c->R().Error(kErrInvalidId);
    return false;
  };
  if (s.size() > 127) return invalid();
  if (strict && (s == "-" || s == "+")) return invalid();
  if (seq_given) *seq_given = true;
  if (s == "-") {
    *id = {0, 0};
    return true;
  }
  if (s == "+") {
    *id = db::kStreamMaxID;
    return true;
  }
  size_t dash = s.find('-');
  std::string_view ms_part = dash == std::string_view::npos ? s : s.substr(0, dash);
  // A NUL byte ends the C string Valkey parses.
  size_t nul = ms_part.find('\0');
  if (nul != std::string_view::npos) ms_part = ms_part.substr(0, nul);
  uint64_t ms, seq;
  if (!ParseU64(ms_part, &ms)) return invalid();
  if (dash != std::string_view::npos) {
    std::string_view rest = s.substr(dash + 1);
    if (seq_given && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!ParseU64(rest, &seq)) {
      return invalid();
    }
  } else {
    seq = missing_seq;
  }
  *id = {ms, seq};
  return true;
}

bool ParseStrictID(Client* c, std::string_view s, StreamID* id, bool* seq_given = nullptr) {
  return ParseID(c, s, id, 0, true, seq_given);
}

// A range bound: "(" makes it exclusive.
bool ParseIntervalID(Client* c, std::string_view s, StreamID* id, bool* exclude,
                     uint64_t missing_seq) {
  *exclude = s.size() > 1 && s[0] == '(';
  if (*exclude) return ParseStrictID(c, s.substr(1), id);
  return ParseID(c, s, id, missing_seq, false);
}

db::Obj* LookupStreamRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kStream);
  return *err ? nullptr : o;
}

// Replies one entry [id, [field, value...]] from an iterator positioned on it.
void ReplyEntry(net::Reply& r, StreamIterator& si, StreamID id, int64_t n) {
  r.ArrayLen(2);
  ReplyID(r, id);
  r.ArrayLen(n * 2);
  std::string_view f, v;
  for (int64_t i = 0; i < n; i++) {
    si.Field(&f, &v);
    r.Bulk(f);
    r.Bulk(v);
  }
}

// Replies entries of [start, end] (count 0: all) as an array; returns how many.
size_t ReplyRange(Client* c, Stream* s, StreamID start, StreamID end, size_t count, bool rev) {
  auto r = c->R();
  size_t handle = r.DeferLen();
  StreamIterator si(s, start, end, rev);
  StreamID id;
  int64_t n;
  size_t len = 0;
  while (si.Next(&id, &n)) {
    ReplyEntry(r, si, id, n);
    if (++len == count) break;
  }
  r.SetDeferredArrayLen(handle, static_cast<int64_t>(len));
  return len;
}

// One entry without an enclosing array; false when it does not exist.
// rev/edge: the last (or first, edge without rev) entry of the stream instead of id.
bool ReplyOneEntry(Client* c, Stream* s, StreamID id, bool edge = false, bool rev = false) {
  StreamIterator si(s, edge ? StreamID{} : id, edge ? db::kStreamMaxID : id, rev);
  StreamID got;
  int64_t n;
  if (!si.Next(&got, &n)) return false;
  auto r = c->R();
  ReplyEntry(r, si, got, n);
  return true;
}

std::string IdString(StreamID id) { return id.ToString(); }

// XADD / XTRIM arguments.
struct AddTrimArgs {
  db::StreamTrimArgs trim;
  size_t trim_arg = 0;  // index of the MAXLEN/MINID value
  bool limit_given = false;
  bool nomkstream = false;
  bool id_given = false, seq_given = true;
  StreamID id;
};

// Returns the index of the ID argument (XADD) or argv.size() (XTRIM); -1 after an error.
int64_t ParseAddTrimArgs(Client* c, bool xadd, AddTrimArgs* a) {
  auto& argv = c->argv;
  size_t i = 2;
  for (; i < argv.size(); i++) {
    size_t moreargs = argv.size() - 1 - i;
    std::string_view opt = argv[i];
    if (xadd && opt == "*") break;
    bool maxlen = base::EqualsNoCase(opt, "maxlen");
    if ((maxlen || base::EqualsNoCase(opt, "minid")) && moreargs) {
      if (a->trim.strategy != db::StreamTrimArgs::kNone) {
        c->R().Error("syntax error, MAXLEN and MINID options at the same time are not compatible");
        return -1;
      }
      a->trim.approx = false;
      std::string_view next = argv[i + 1];
      if (moreargs >= 2 && next == "~") {
        a->trim.approx = true;
        i++;
      } else if (moreargs >= 2 && next == "=") {
        i++;
      }
      if (maxlen) {
        int64_t v;
        if (!ArgInt(c, argv[i + 1], &v)) return -1;
        if (v < 0) {
          c->R().Error("The MAXLEN argument must be >= 0.");
          return -1;
        }
        a->trim.maxlen = v;
      } else if (!ParseStrictID(c, argv[i + 1], &a->trim.minid)) {
        return -1;
      }
      i++;
      a->trim.strategy = maxlen ? db::StreamTrimArgs::kMaxLen : db::StreamTrimArgs::kMinId;
      a->trim_arg = i;
    } else if (base::EqualsNoCase(opt, "limit") && moreargs) {
      if (!ArgInt(c, argv[i + 1], &a->trim.limit)) return -1;
      if (a->trim.limit < 0) {
        c->R().Error("The LIMIT argument must be >= 0.");
        return -1;
      }
      a->limit_given = true;
      i++;
    } else if (xadd && base::EqualsNoCase(opt, "nomkstream")) {
      a->nomkstream = true;
    } else if (xadd) {
      if (!ParseStrictID(c, argv[i], &a->id, &a->seq_given)) return -1;
      a->id_given = true;
      break;
    } else {
      c->R().Error(kErrSyntax);
      return -1;
    }
  }
  if (a->trim.limit && a->trim.strategy == db::StreamTrimArgs::kNone) {
    c->R().Error("syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return -1;
  }
  if (!xadd && a->trim.strategy == db::StreamTrimArgs::kNone) {
    c->R().Error("syntax error, XTRIM must be called with a trimming strategy");
    return -1;
  }
  if (c->flags & kPrimary) {
    // From the primary (or the AOF): the trimming argument was rewritten, no limit applies.
    a->trim.limit = 0;
  } else if (a->limit_given) {
    if (!a->trim.approx) {
      c->R().Error("syntax error, LIMIT cannot be used without the special ~ option");
      return -1;
    }
  } else if (a->trim.approx) {
    int64_t max_entries = db::GetStreamLimits().node_max_entries;
    a->trim.limit = max_entries > 0 && max_entries <= INT64_MAX / 100 ? 100 * max_entries : 10000;
    if (a->trim.limit <= 0 || a->trim.limit > 1000000) a->trim.limit = 10000;
  } else {
    a->trim.limit = 0;
  }
  return static_cast<int64_t>(i);
}

// After an approximate trim, replicas get the exact effect: "=" and the length or first ID.
void RewriteTrim(const AddTrimArgs& a, Stream* s, std::vector<std::string>* out) {
  (*out)[a.trim_arg - 1] = "=";
  (*out)[a.trim_arg] = a.trim.strategy == db::StreamTrimArgs::kMaxLen
                           ? std::to_string(s->length)
                           : IdString(db::StreamFirstStoredID(s));
}

void XAddCommand(Client* c) {
  AddTrimArgs a;
  int64_t idpos = ParseAddTrimArgs(c, true, &a);
  if (idpos < 0) return;
  size_t field_pos = static_cast<size_t>(idpos) + 1;
  auto& argv = c->argv;
  if (field_pos > argv.size() || argv.size() - field_pos < 2 || (argv.size() - field_pos) % 2) {
    return ReplyArity(c, c->cmd);
  }
  if (a.id_given && a.seq_given && a.id.IsZero()) {
    return c->R().Error("The ID specified in XADD must be greater than 0-0");
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, argv[1], db::kStream, &err);
  if (err) return;
  if (!o) {
    if (a.nomkstream) return c->R().Null();
    o = db::NewStream(argv[1]);
    c->db->Add(o);
  }
  Stream* s = db::GetStream(o);
  if (s->last_id == db::kStreamMaxID) {
    return c->R().Error("The stream has exhausted the last possible ID, unable to add more items");
  }
  std::vector<std::string_view> fields(argv.begin() + static_cast<long>(field_pos), argv.end());
  StreamID id;
  auto st = db::StreamAppend(s, fields, db::GetEnv().now_ms, a.id_given ? &a.id : nullptr,
                             a.seq_given, &id);
  if (st != db::AppendStatus::kOk) {
    // A stream created for this command stays (empty), as in Valkey.
    if (st == db::AppendStatus::kIdTooSmall)
      return c->R().Error(
          "The ID specified in XADD is equal or smaller than the target stream top item");
    return c->R().Error("Elements are too large to be stored");
  }
  {
    auto r = c->R();
    ReplyID(r, id);
  }
  Modified(c, argv[1]);
  Notify(kNotifyStream, "xadd", argv[1], c->dbid);
  bool rewrite = !a.id_given || !a.seq_given;
  bool trimmed_rewrite = false;
  if (a.trim.strategy != db::StreamTrimArgs::kNone) {
    if (db::StreamTrim(s, a.trim)) Notify(kNotifyStream, "xtrim", argv[1], c->dbid);
    trimmed_rewrite = a.trim.approx;
  }
  if (rewrite || trimmed_rewrite) {
    std::vector<std::string> out(argv.begin(), argv.end());
    if (trimmed_rewrite) RewriteTrim(a, s, &out);
    if (rewrite) out[static_cast<size_t>(idpos)] = IdString(id);
    PropagateAs(c, std::move(out));
  }
  KeyReady(c->dbid, argv[1]);
}

void XTrimCommand(Client* c) {
  AddTrimArgs a;
  if (ParseAddTrimArgs(c, false, &a) < 0) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kStream, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  Stream* s = db::GetStream(o);
  int64_t deleted = db::StreamTrim(s, a.trim);
  if (deleted) {
    Notify(kNotifyStream, "xtrim", c->argv[1], c->dbid);
    if (a.trim.approx) {
      std::vector<std::string> out(c->argv.begin(), c->argv.end());
      RewriteTrim(a, s, &out);
      PropagateAs(c, std::move(out));
    }
    Modified(c, c->argv[1], deleted);
  }
  c->R().Int(deleted);
}

void RangeGeneric(Client* c, bool rev) {
  auto& argv = c->argv;
  std::string_view startarg = rev ? argv[3] : argv[2];
  std::string_view endarg = rev ? argv[2] : argv[3];
  StreamID start, end;
  bool startex, endex;
  if (!ParseIntervalID(c, startarg, &start, &startex, 0)) return;
  if (startex && !start.Incr()) return c->R().Error("invalid start ID for the interval");
  if (!ParseIntervalID(c, endarg, &end, &endex, UINT64_MAX)) return;
  if (endex && !end.Decr()) return c->R().Error("invalid end ID for the interval");
  int64_t count = -1;
  for (size_t j = 4; j < argv.size(); j++) {
    size_t additional = argv.size() - j - 1;
    if (base::EqualsNoCase(argv[j], "count") && additional >= 1) {
      if (!ArgInt(c, argv[j + 1], &count)) return;
      if (count < 0) count = 0;
      j++;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  bool err;
  db::Obj* o = LookupStreamRead(c, argv[1], &err);
  if (err) return;
  if (!o) return c->R().ArrayLen(0);
  if (count == 0) return c->R().NullArray();
  ReplyRange(c, db::GetStream(o), start, end, count < 0 ? 0 : static_cast<size_t>(count), rev);
}
void XRangeCommand(Client* c) { RangeGeneric(c, false); }
void XRevRangeCommand(Client* c) { RangeGeneric(c, true); }

void XLenCommand(Client* c) {
  bool err;
  db::Obj* o = LookupStreamRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::GetStream(o)->length) : 0);
}

void XDelCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kStream, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  std::vector<StreamID> ids(c->argv.size() - 2);
  for (size_t j = 2; j < c->argv.size(); j++)
    if (!ParseStrictID(c, c->argv[j], &ids[j - 2])) return;
  Stream* s = db::GetStream(o);
  int64_t deleted = 0;
  bool first_entry = false;
  for (StreamID id : ids) {
    if (!db::StreamDeleteID(s, id)) continue;
    if (id == s->first_id) first_entry = true;
    if (id > s->max_deleted_entry_id) s->max_deleted_entry_id = id;
    deleted++;
  }
  if (deleted) {
    if (s->length == 0)
      s->first_id = StreamID{};
    else if (first_entry)
      s->first_id = db::StreamEdgeID(s, true);
    Notify(kNotifyStream, "xdel", c->argv[1], c->dbid);
    Modified(c, c->argv[1], deleted);
  }
  c->R().Int(deleted);
}

void XSetIdCommand(Client* c) {
  auto& argv = c->argv;
  StreamID id, max_xdel_id;
  int64_t entries_added = -1;
  if (!ParseStrictID(c, argv[2], &id)) return;
  for (size_t i = 3; i < argv.size();) {
    size_t moreargs = argv.size() - 1 - i;
    if (base::EqualsNoCase(argv[i], "entriesadded") && moreargs) {
      if (!ArgInt(c, argv[i + 1], &entries_added)) return;
      if (entries_added < 0) return c->R().Error("entries_added must be positive");
      i += 2;
    } else if (base::EqualsNoCase(argv[i], "maxdeletedid") && moreargs) {
      if (!ParseStrictID(c, argv[i + 1], &max_xdel_id)) return;
      if (id < max_xdel_id)
        return c->R().Error(
            "The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      i += 2;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, argv[1], db::kStream, &err);
  if (err) return;
  if (!o) return c->R().Error(kErrNoSuchKey);
  Stream* s = db::GetStream(o);
  if (id < s->max_deleted_entry_id)
    return c->R().Error("The ID specified in XSETID is smaller than current max_deleted_entry_id");
  if (s->length > 0) {
    StreamID maxid = db::StreamEdgeID(s, false);
    if (id < maxid)
      return c->R().Error("The ID specified in XSETID is smaller than the target stream top item");
    if (entries_added != -1 && s->length > static_cast<uint64_t>(entries_added))
      return c->R().Error(
          "The entries_added specified in XSETID is smaller than the target stream length");
  }
  s->last_id = id;
  if (entries_added != -1) s->entries_added = static_cast<uint64_t>(entries_added);
  if (!max_xdel_id.IsZero()) s->max_deleted_entry_id = max_xdel_id;
  Modified(c, argv[1]);
  Notify(kNotifyStream, "xsetid", argv[1], c->dbid);
  c->R().Ok();
}

// ---- Consumer groups ----

std::string NoGroupError(std::string_view key, std::string_view group) {
  return "-NOGROUP No such key '" + std::string(key) + "' or consumer group '" +
         std::string(group) + "'";
}

std::string DeliveryTimeString(int64_t t) { return std::to_string(t); }

// XCLAIM <key> <group> <consumer> 0 <id> TIME <ms> RETRYCOUNT <n> FORCE JUSTID LASTID <id>:
// what a replica needs to reproduce one pending entry.
std::vector<std::string> ClaimCommand(std::string_view key, std::string_view group,
                                      const StreamCG* cg, StreamID id, const StreamNack& nack) {
  return {"XCLAIM",
          std::string(key),
          std::string(group),
          nack.consumer->name,
          "0",
          IdString(id),
          "TIME",
          DeliveryTimeString(nack.delivery_time),
          "RETRYCOUNT",
          std::to_string(nack.delivery_count),
          "FORCE",
          "JUSTID",
          "LASTID",
          IdString(cg->last_id)};
}

std::vector<std::string> SetIdCommand(std::string_view key, std::string_view group,
                                      const StreamCG* cg) {
  return {"XGROUP",
          "SETID",
          std::string(key),
          std::string(group),
          IdString(cg->last_id),
          "ENTRIESREAD",
          std::to_string(cg->entries_read)};
}

StreamConsumer* CreateConsumerNotify(Client* c, StreamCG* cg, std::string_view name,
                                     std::string_view key) {
  StreamConsumer* consumer = db::StreamCreateConsumer(cg, name, db::GetEnv().now_ms);
  if (!consumer) return nullptr;
  g.dirty++;
  Notify(kNotifyStream, "xgroup-createconsumer", key, c->dbid);
  return consumer;
}

// Serves a group read of new entries from start on: replies them, moves the group's last ID,
// adds them to the pending lists (unless noack) and records what replicas need.
size_t ReplyGroupRange(Client* c, Stream* s, StreamID start, size_t count, StreamCG* cg,
                       StreamConsumer* consumer, bool noack, std::string_view key,
                       std::string_view group, std::vector<std::vector<std::string>>* prop) {
  auto r = c->R();
  size_t handle = r.DeferLen();
  StreamIterator si(s, start, db::kStreamMaxID, false);
  StreamID id;
  int64_t n;
  size_t len = 0;
  bool propagate_last_id = false;
  int64_t now = db::GetEnv().now_ms;
  while (si.Next(&id, &n)) {
    if (id > cg->last_id) {
      if (cg->entries_read != db::kEntriesReadInvalid &&
          !db::StreamRangeHasTombstones(s, &id, nullptr)) {
        cg->entries_read++;
      } else if (s->entries_added) {
        cg->entries_read = db::StreamEstimateDistanceFromFirstEverEntry(s, id);
      }
      cg->last_id = id;
      propagate_last_id = true;  // Valkey 8 sends the group's position after the claims
    }
    ReplyEntry(r, si, id, n);
    if (!noack) {
      auto [it, fresh] = cg->pel.try_emplace(id);
      StreamNack& nack = it->second;
      if (!fresh) nack.consumer->pel.erase(id);
      nack.consumer = consumer;
      nack.delivery_time = now;
      nack.delivery_count = 1;
      consumer->pel[id] = &nack;
      consumer->active_time = now;
      prop->push_back(ClaimCommand(key, group, cg, id, nack));
    }
    if (++len == count) break;
  }
  if (propagate_last_id) prop->push_back(SetIdCommand(key, group, cg));
  r.SetDeferredArrayLen(handle, static_cast<int64_t>(len));
  return len;
}

// A consumer's own history from start on: entries no longer in the stream come as [id, nil].
size_t ReplyConsumerHistory(Client* c, Stream* s, StreamID start, size_t count,
                            StreamConsumer* consumer) {
  auto r = c->R();
  size_t handle = r.DeferLen();
  size_t len = 0;
  int64_t now = db::GetEnv().now_ms;
  for (auto it = consumer->pel.lower_bound(start);
       it != consumer->pel.end() && (!count || len < count); ++it) {
    if (!ReplyOneEntry(c, s, it->first)) {
      r.ArrayLen(2);
      ReplyID(r, it->first);
      r.NullArray();
    } else {
      it->second->delivery_time = now;
      it->second->delivery_count++;
    }
    len++;
  }
  r.SetDeferredArrayLen(handle, static_cast<int64_t>(len));
  return len;
}

void ReadGeneric(Client* c, bool xreadgroup) {
  auto& argv = c->argv;
  int64_t timeout = -1;
  int64_t count = 0;
  size_t streams_arg = 0, streams_count = 0;
  bool noack = false;
  std::string_view groupname, consumername;
  bool has_group = false;
  for (size_t i = 1; i < argv.size(); i++) {
    size_t moreargs = argv.size() - i - 1;
    std::string_view o = argv[i];
    if (base::EqualsNoCase(o, "block") && moreargs) {
      i++;
      if (!ArgInt(c, argv[i], &timeout, "timeout is not an integer or out of range")) return;
      if (timeout < 0) return c->R().Error("timeout is negative");
    } else if (base::EqualsNoCase(o, "count") && moreargs) {
      i++;
      if (!ArgInt(c, argv[i], &count)) return;
      if (count < 0) count = 0;
    } else if (base::EqualsNoCase(o, "streams") && moreargs) {
      streams_arg = i + 1;
      streams_count = argv.size() - streams_arg;
      if (streams_count % 2) {
        std::string msg = std::string("Unbalanced '") + (xreadgroup ? "xreadgroup" : "xread") +
                          "' list of streams: for each stream key an ID or '" +
                          (xreadgroup ? ">" : "$") + "' must be specified.";
        return c->R().Error(msg);
      }
      streams_count /= 2;
      break;
    } else if (base::EqualsNoCase(o, "group") && moreargs >= 2) {
      if (!xreadgroup)
        return c->R().Error(
            "The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      groupname = argv[i + 1];
      consumername = argv[i + 2];
      has_group = true;
      i += 2;
    } else if (base::EqualsNoCase(o, "noack")) {
      if (!xreadgroup)
        return c->R().Error(
            "The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
      noack = true;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  if (streams_arg == 0) return c->R().Error(kErrSyntax);
  if (xreadgroup && !has_group) return c->R().Error("Missing GROUP option for XREADGROUP");
  int64_t deadline = 0;
  if (timeout > 0) {
    if (timeout > INT64_MAX - db::GetEnv().now_ms) return c->R().Error("timeout is out of range");
    deadline = db::GetEnv().now_ms + timeout;
  }
  // Woken and run again: the block keeps the deadline it started with.
  if ((c->flags & server::kReprocessing) && c->reprocess_deadline_ms >= 0)
    deadline = c->reprocess_deadline_ms;

  std::vector<StreamID> ids(streams_count);
  std::vector<StreamCG*> groups(streams_count, nullptr);
  std::vector<bool> dollar(streams_count, false);
  for (size_t i = streams_arg + streams_count; i < argv.size(); i++) {
    size_t idx = i - streams_arg - streams_count;
    std::string_view key = argv[i - streams_count];
    db::Obj* o = c->db->Lookup(key);
    if (o && !CheckType(c, o, db::kStream)) return;
    if (has_group) {
      StreamCG* cg = o ? db::StreamLookupCG(db::GetStream(o), groupname) : nullptr;
      if (!cg)
        return c->R().Error(NoGroupError(key, groupname) + " in XREADGROUP with GROUP option");
      groups[idx] = cg;
    }
    std::string_view a = argv[i];
    if (a == "$") {
      if (xreadgroup)
        return c->R().Error(
            "The $ ID is meaningless in the context of XREADGROUP: you want to read the history "
            "of this consumer by specifying a proper ID, or use the > ID to get new messages. "
            "The $ ID would just return an empty result set.");
      ids[idx] = o ? db::GetStream(o)->last_id : StreamID{};
      dollar[idx] = true;
      continue;
    }
    if (a == "+") {
      if (xreadgroup)
        return c->R().Error(
            "The + ID is meaningless in the context of XREADGROUP: you want to read the history "
            "of this consumer by specifying a proper ID, or use the > ID to get new messages. "
            "The + ID would just return an empty result set.");
      if (o) {
        ids[idx] = db::GetStream(o)->last_id;
        if (!ids[idx].Decr()) return c->R().Error("the stream last element ID is 0-0");
      } else {
        ids[idx] = StreamID{};
      }
      continue;
    }
    if (a == ">") {
      if (!xreadgroup)
        return c->R().Error(
            "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
            "<consumer> option.");
      ids[idx] = db::kStreamMaxID;
      continue;
    }
    if (!ParseStrictID(c, a, &ids[idx])) return;
  }

  // Serve what can be served now.
  auto r = c->R();
  size_t served = 0;
  size_t handle = 0;
  std::vector<std::vector<std::string>> prop;
  int64_t now = db::GetEnv().now_ms;
  for (size_t i = 0; i < streams_count; i++) {
    std::string_view key = argv[streams_arg + i];
    db::Obj* o = LookupRead(c, key);
    if (!o) continue;
    Stream* s = db::GetStream(o);
    StreamID gt = ids[i];
    bool serve = false, history = false;
    StreamConsumer* consumer = nullptr;
    if (has_group) {
      if (gt != db::kStreamMaxID) {
        serve = history = true;
      } else if (s->length) {
        StreamID maxid = db::StreamEdgeID(s, false);
        if (maxid > groups[i]->last_id) {
          serve = true;
          gt = groups[i]->last_id;
        }
      }
      consumer = db::StreamLookupConsumer(groups[i], consumername);
      if (!consumer) {
        consumer = CreateConsumerNotify(c, groups[i], consumername, key);
        // With NOACK no XCLAIM will create it on replicas (otherwise they do).
        if (noack)
          prop.push_back({"XGROUP", "CREATECONSUMER", std::string(key), std::string(groupname),
                          std::string(consumername)});
      }
      consumer->seen_time = now;
    } else if (s->length) {
      StreamID maxid = db::StreamEdgeID(s, false);
      serve = maxid > gt;
    }
    if (!serve) continue;
    if (++served == 1) handle = r.DeferLen();
    StreamID start = gt;
    start.Incr();
    if (c->resp == 2) r.ArrayLen(2);
    r.Bulk(key);
    if (has_group) {
      if (history)
        ReplyConsumerHistory(c, s, start, static_cast<size_t>(count), consumer);
      else
        ReplyGroupRange(c, s, start, static_cast<size_t>(count), groups[i], consumer, noack, key,
                        groupname, &prop);
      g.dirty++;
    } else {
      ReplyRange(c, s, start, db::kStreamMaxID, static_cast<size_t>(count), false);
    }
  }
  if (has_group) PropagateAsMany(c, std::move(prop));
  if (served) {
    if (c->resp == 2)
      r.SetDeferredArrayLen(handle, static_cast<int64_t>(served));
    else
      r.SetDeferredMapLen(handle, static_cast<int64_t>(served));
    return;
  }
  if (timeout != -1) {
    std::vector<std::string_view> keys(
        argv.begin() + static_cast<long>(streams_arg),
        argv.begin() + static_cast<long>(streams_arg + streams_count));
    BlockForKeys(c, keys, deadline, db::kStream, true);
    if (c->flags & kBlocked) {
      // "$" means "after what is there now", also when the command runs again on wake-up.
      for (size_t i = 0; i < streams_count; i++)
        if (dollar[i]) c->held_argv[streams_arg + streams_count + i] = IdString(ids[i]);
      if (has_group) SetBlockUnblockOnNoKey(c);
    }
    return;
  }
  r.NullArray();
}
void XReadCommand(Client* c) { ReadGeneric(c, false); }
void XReadGroupCommand(Client* c) { ReadGeneric(c, true); }

void XGroupGeneric(Client* c, const char* sub) {
  auto& argv = c->argv;
  std::string_view opt = argv[1];
  bool create = strcmp(sub, "create") == 0;
  bool setid = strcmp(sub, "setid") == 0;
  bool mkstream = false;
  int64_t entries_read = db::kEntriesReadInvalid;
  for (size_t i = 5; i < argv.size();) {
    if (create && base::EqualsNoCase(argv[i], "mkstream")) {
      mkstream = true;
      i++;
    } else if ((create || setid) && base::EqualsNoCase(argv[i], "entriesread") &&
               i + 1 < argv.size()) {
      if (!ArgInt(c, argv[i + 1], &entries_read)) return;
      if (entries_read < 0 && entries_read != db::kEntriesReadInvalid)
        return c->R().Error("value for ENTRIESREAD must be positive or -1");
      i += 2;
    } else {
      return c->R().Error("unknown subcommand or wrong number of arguments for '" +
                          std::string(opt.substr(0, 128)) + "'. Try XGROUP HELP.");
    }
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, argv[2], db::kStream, &err);
  if (err) return;
  Stream* s = o ? db::GetStream(o) : nullptr;
  std::string_view grpname = argv[3];
  StreamCG* cg = nullptr;
  if (!mkstream) {
    if (!s)
      return c->R().Error(
          "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to "
          "use the MKSTREAM option to create an empty stream automatically.");
    cg = db::StreamLookupCG(s, grpname);
    if (!cg && !create && strcmp(sub, "destroy") != 0)
      return c->R().Error("-NOGROUP No such consumer group '" + std::string(grpname) +
                          "' for key name '" + std::string(argv[2]) + "'");
  }
  auto syntax = [&] {
    c->R().Error("unknown subcommand or wrong number of arguments for '" +
                 std::string(opt.substr(0, 128)) + "'. Try XGROUP HELP.");
  };
  if (create) {
    if (argv.size() > 8) return syntax();
    StreamID id;
    if (argv[4] == "$") {
      id = s ? s->last_id : StreamID{};
    } else if (!ParseStrictID(c, argv[4], &id)) {
      return;
    }
    if (!s) {
      o = db::NewStream(argv[2]);
      c->db->Add(o);
      s = db::GetStream(o);
      KeyModified(c->dbid, argv[2]);
    }
    if (!db::StreamCreateCG(s, grpname, id, entries_read))
      return c->R().Error("-BUSYGROUP Consumer Group name already exists");
    c->R().Ok();
    g.dirty++;
    Notify(kNotifyStream, "xgroup-create", argv[2], c->dbid);
  } else if (setid) {
    if (argv.size() != 5 && argv.size() != 7) return syntax();
    StreamID id;
    if (argv[4] == "$") {
      id = s->last_id;
    } else if (!ParseID(c, argv[4], &id, 0, false)) {
      return;
    }
    cg->last_id = id;
    cg->entries_read = entries_read;
    c->R().Ok();
    g.dirty++;
    Notify(kNotifyStream, "xgroup-setid", argv[2], c->dbid);
  } else if (strcmp(sub, "destroy") == 0) {
    if (!cg) return c->R().Int(0);
    s->groups.erase(std::string(grpname));
    c->R().Int(1);
    g.dirty++;
    Notify(kNotifyStream, "xgroup-destroy", argv[2], c->dbid);
    KeyReady(c->dbid, argv[2]);  // blocked XREADGROUP clients learn the group is gone
  } else if (strcmp(sub, "createconsumer") == 0) {
    StreamConsumer* created = CreateConsumerNotify(c, cg, argv[4], argv[2]);
    c->R().Int(created ? 1 : 0);
  } else if (strcmp(sub, "delconsumer") == 0) {
    int64_t pending = 0;
    if (db::StreamLookupConsumer(cg, argv[4])) {
      pending = static_cast<int64_t>(db::StreamDeleteConsumer(cg, argv[4]));
      g.dirty++;
      Notify(kNotifyStream, "xgroup-delconsumer", argv[2], c->dbid);
    }
    c->R().Int(pending);
  }
}
void XGroupCreate(Client* c) { XGroupGeneric(c, "create"); }
void XGroupSetId(Client* c) { XGroupGeneric(c, "setid"); }
void XGroupDestroy(Client* c) { XGroupGeneric(c, "destroy"); }
void XGroupCreateConsumer(Client* c) { XGroupGeneric(c, "createconsumer"); }
void XGroupDelConsumer(Client* c) { XGroupGeneric(c, "delconsumer"); }
void XGroupHelp(Client* c) {
  ReplyHelp(
      c, "XGROUP",
      {"CREATE <key> <groupname> <id|$> [option]",
       "    Create a new consumer group. Options are:", "    * MKSTREAM",
       "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
       "      Set the group's entries_read counter (internal use).",
       "CREATECONSUMER <key> <groupname> <consumer>",
       "    Create a new consumer in the specified group.",
       "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
       "DESTROY <key> <groupname>", "    Remove the specified group.",
       "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
       "    Set the current group ID and entries_read counter."});
}

void XAckCommand(Client* c) {
  bool err;
  db::Obj* o = LookupStreamRead(c, c->argv[1], &err);
  if (err) return;
  StreamCG* cg = o ? db::StreamLookupCG(db::GetStream(o), c->argv[2]) : nullptr;
  if (!cg) return c->R().Int(0);
  std::vector<StreamID> ids(c->argv.size() - 3);
  for (size_t j = 3; j < c->argv.size(); j++)
    if (!ParseStrictID(c, c->argv[j], &ids[j - 3])) return;
  int64_t acked = 0;
  for (StreamID id : ids) {
    auto it = cg->pel.find(id);
    if (it == cg->pel.end()) continue;
    it->second.consumer->pel.erase(id);
    cg->pel.erase(it);
    acked++;
    g.dirty++;
  }
  c->R().Int(acked);
}

void XPendingCommand(Client* c) {
  auto& argv = c->argv;
  bool justinfo = argv.size() == 3;
  if (argv.size() != 3 && (argv.size() < 6 || argv.size() > 9)) return c->R().Error(kErrSyntax);
  StreamID startid, endid;
  int64_t count = 0, minidle = 0;
  std::string_view consumername;
  bool has_consumer = false;
  if (argv.size() >= 6) {
    size_t startidx = 3;
    if (base::EqualsNoCase(argv[3], "idle")) {
      if (!ArgInt(c, argv[4], &minidle)) return;
      if (argv.size() < 8) return c->R().Error(kErrSyntax);
      startidx += 2;
    }
    if (!ArgInt(c, argv[startidx + 2], &count)) return;
    if (count < 0) count = 0;
    bool startex, endex;
    if (!ParseIntervalID(c, argv[startidx], &startid, &startex, 0)) return;
    if (startex && !startid.Incr()) return c->R().Error("invalid start ID for the interval");
    if (!ParseIntervalID(c, argv[startidx + 1], &endid, &endex, UINT64_MAX)) return;
    if (endex && !endid.Decr()) return c->R().Error("invalid end ID for the interval");
    if (startidx + 3 < argv.size()) {
      consumername = argv[startidx + 3];
      has_consumer = true;
    }
  }
  bool err;
  db::Obj* o = LookupStreamRead(c, argv[1], &err);
  if (err) return;
  StreamCG* cg = o ? db::StreamLookupCG(db::GetStream(o), argv[2]) : nullptr;
  if (!cg) return c->R().Error(NoGroupError(argv[1], argv[2]));
  auto r = c->R();
  if (justinfo) {
    r.ArrayLen(4);
    r.Int(static_cast<int64_t>(cg->pel.size()));
    if (cg->pel.empty()) {
      r.Null();
      r.Null();
      r.NullArray();
      return;
    }
    ReplyID(r, cg->pel.begin()->first);
    ReplyID(r, cg->pel.rbegin()->first);
    size_t handle = r.DeferLen();
    int64_t n = 0;
    for (auto& [name, consumer] : cg->consumers) {
      if (consumer->pel.empty()) continue;
      r.ArrayLen(2);
      r.Bulk(name);
      r.BulkInt(static_cast<int64_t>(consumer->pel.size()));
      n++;
    }
    r.SetDeferredArrayLen(handle, n);
    return;
  }
  StreamConsumer* consumer = nullptr;
  if (has_consumer) {
    consumer = db::StreamLookupConsumer(cg, consumername);
    if (!consumer) return r.ArrayLen(0);
  }
  int64_t now = db::GetEnv().now_ms;
  size_t handle = r.DeferLen();
  int64_t n = 0;
  auto emit = [&](StreamID id, const StreamNack& nack) {
    if (minidle && now - nack.delivery_time < minidle) return;
    n++;
    count--;
    r.ArrayLen(4);
    ReplyID(r, id);
    r.Bulk(nack.consumer->name);
    r.Int(std::max<int64_t>(0, now - nack.delivery_time));
    r.Int(static_cast<int64_t>(nack.delivery_count));
  };
  if (consumer) {
    for (auto it = consumer->pel.lower_bound(startid);
         count && it != consumer->pel.end() && it->first <= endid; ++it)
      emit(it->first, *it->second);
  } else {
    for (auto it = cg->pel.lower_bound(startid); count && it != cg->pel.end() && it->first <= endid;
         ++it)
      emit(it->first, it->second);
  }
  r.SetDeferredArrayLen(handle, n);
}

void XClaimCommand(Client* c) {
  auto& argv = c->argv;
  bool err;
  db::Obj* o = LookupStreamRead(c, argv[1], &err);
  if (err) return;
  StreamCG* cg = o ? db::StreamLookupCG(db::GetStream(o), argv[2]) : nullptr;
  if (!cg) return c->R().Error(NoGroupError(argv[1], argv[2]));
  Stream* s = db::GetStream(o);
  int64_t minidle;
  if (!ArgInt(c, argv[4], &minidle, "Invalid min-idle-time argument for XCLAIM")) return;
  if (minidle < 0) minidle = 0;
  size_t j = 5;
  std::vector<StreamID> ids;
  for (; j < argv.size(); j++) {
    StreamID id;
    if (!ParseStrictID(nullptr, argv[j], &id)) break;
    ids.push_back(id);
  }
  int64_t now = db::GetEnv().now_ms;
  int64_t retrycount = -1, deliverytime = -1;
  bool force = false, justid = false, propagate_last_id = false;
  StreamID last_id;
  for (; j < argv.size(); j++) {
    size_t moreargs = argv.size() - 1 - j;
    std::string_view opt = argv[j];
    if (base::EqualsNoCase(opt, "force")) {
      force = true;
    } else if (base::EqualsNoCase(opt, "justid")) {
      justid = true;
    } else if (base::EqualsNoCase(opt, "idle") && moreargs) {
      j++;
      if (!ArgInt(c, argv[j], &deliverytime, "Invalid IDLE option argument for XCLAIM")) return;
      deliverytime = now - deliverytime;
    } else if (base::EqualsNoCase(opt, "time") && moreargs) {
      j++;
      if (!ArgInt(c, argv[j], &deliverytime, "Invalid TIME option argument for XCLAIM")) return;
    } else if (base::EqualsNoCase(opt, "retrycount") && moreargs) {
      j++;
      if (!ArgInt(c, argv[j], &retrycount, "Invalid RETRYCOUNT option argument for XCLAIM")) return;
    } else if (base::EqualsNoCase(opt, "lastid") && moreargs) {
      j++;
      if (!ParseStrictID(c, argv[j], &last_id)) return;
    } else {
      return c->R().Error("Unrecognized XCLAIM option '" + std::string(opt) + "'");
    }
  }
  if (last_id > cg->last_id) {
    cg->last_id = last_id;
    propagate_last_id = true;
  }
  if (deliverytime != -1) {
    if (deliverytime < 0 || deliverytime > now) deliverytime = now;
  } else {
    deliverytime = now;
  }
  std::string_view key = argv[1], group = argv[2];
  std::vector<std::vector<std::string>> prop;
  StreamConsumer* consumer = db::StreamLookupConsumer(cg, argv[3]);
  if (!consumer) consumer = CreateConsumerNotify(c, cg, argv[3], key);
  consumer->seen_time = now;
  auto r = c->R();
  size_t handle = r.DeferLen();
  int64_t n = 0;
  for (StreamID id : ids) {
    auto it = cg->pel.find(id);
    if (!db::StreamHasID(s, id)) {
      if (it != cg->pel.end()) {
        prop.push_back(ClaimCommand(key, group, cg, id, it->second));
        propagate_last_id = false;
        g.dirty++;
        it->second.consumer->pel.erase(id);
        cg->pel.erase(it);
      }
      continue;
    }
    if (force && it == cg->pel.end()) {
      it = cg->pel.try_emplace(id).first;
      it->second.consumer = nullptr;
      it->second.delivery_time = now;
      it->second.delivery_count = 1;
    }
    if (it == cg->pel.end()) continue;
    StreamNack& nack = it->second;
    if (nack.consumer && minidle && now - nack.delivery_time < minidle) continue;
    if (nack.consumer != consumer && nack.consumer) nack.consumer->pel.erase(id);
    nack.delivery_time = deliverytime;
    if (retrycount >= 0)
      nack.delivery_count = static_cast<uint64_t>(retrycount);
    else if (!justid)
      nack.delivery_count++;
    if (nack.consumer != consumer) {
      consumer->pel[id] = &nack;
      nack.consumer = consumer;
    }
    if (justid)
      ReplyID(r, id);
    else
      ReplyOneEntry(c, s, id);
    n++;
    consumer->active_time = now;
    prop.push_back(ClaimCommand(key, group, cg, id, nack));
    propagate_last_id = false;
    g.dirty++;
  }
  if (propagate_last_id) {
    prop.push_back(SetIdCommand(key, group, cg));
    g.dirty++;
  }
  r.SetDeferredArrayLen(handle, n);
  PropagateAsMany(c, std::move(prop));
}

void XAutoClaimCommand(Client* c) {
  auto& argv = c->argv;
  int64_t minidle;
  if (!ArgInt(c, argv[4], &minidle, "Invalid min-idle-time argument for XAUTOCLAIM")) return;
  if (minidle < 0) minidle = 0;
  StreamID startid;
  bool startex;
  if (!ParseIntervalID(c, argv[5], &startid, &startex, 0)) return;
  if (startex && !startid.Incr()) return c->R().Error("invalid start ID for the interval");
  int64_t count = 100;
  bool justid = false;
  constexpr int64_t kAttemptsFactor = 10;
  for (size_t j = 6; j < argv.size(); j++) {
    size_t moreargs = argv.size() - 1 - j;
    if (base::EqualsNoCase(argv[j], "count") && moreargs) {
      int64_t max_count = LONG_MAX / 16;
      if (!ArgRange(c, argv[j + 1], 1, max_count, &count, "COUNT must be > 0")) return;
      j++;
    } else if (base::EqualsNoCase(argv[j], "justid")) {
      justid = true;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  bool err;
  db::Obj* o = LookupStreamRead(c, argv[1], &err);
  if (err) return;
  StreamCG* cg = o ? db::StreamLookupCG(db::GetStream(o), argv[2]) : nullptr;
  if (!cg) return c->R().Error(NoGroupError(argv[1], argv[2]));
  Stream* s = db::GetStream(o);
  std::string_view key = argv[1], group = argv[2];
  std::vector<std::vector<std::string>> prop;
  int64_t now = db::GetEnv().now_ms;
  StreamConsumer* consumer = db::StreamLookupConsumer(cg, argv[3]);
  if (!consumer) consumer = CreateConsumerNotify(c, cg, argv[3], key);
  consumer->seen_time = now;
  int64_t attempts = count * kAttemptsFactor;
  std::vector<StreamID> deleted;
  auto r = c->R();
  r.ArrayLen(3);
  std::string entries;  // the claimed entries, replied after the cursor
  int64_t n = 0;
  {
    // Build the entries into a side buffer: the cursor comes first in the reply.
    net::Reply side(&entries, c->resp);
    auto it = cg->pel.lower_bound(startid);
    while (attempts-- && count && it != cg->pel.end()) {
      StreamID id = it->first;
      StreamNack& nack = it->second;
      if (!db::StreamHasID(s, id)) {
        prop.push_back(ClaimCommand(key, group, cg, id, nack));
        g.dirty++;
        nack.consumer->pel.erase(id);
        it = cg->pel.erase(it);
        deleted.push_back(id);
        count--;
        continue;
      }
      if (minidle && now - nack.delivery_time < minidle) {
        ++it;
        continue;
      }
      if (nack.consumer != consumer) {
        if (nack.consumer) nack.consumer->pel.erase(id);
      }
      nack.delivery_time = now;
      if (!justid) nack.delivery_count++;
      if (nack.consumer != consumer) {
        consumer->pel[id] = &nack;
        nack.consumer = consumer;
      }
      if (justid) {
        ReplyID(side, id);
      } else {
        StreamIterator si(s, id, id, false);
        StreamID got;
        int64_t nf;
        si.Next(&got, &nf);
        ReplyEntry(side, si, got, nf);
      }
      n++;
      count--;
      consumer->active_time = now;
      prop.push_back(ClaimCommand(key, group, cg, id, nack));
      g.dirty++;
      ++it;
    }
    ReplyID(r, it == cg->pel.end() ? StreamID{} : it->first);
  }
  r.ArrayLen(n);
  r.Raw(entries);
  r.ArrayLen(static_cast<int64_t>(deleted.size()));
  for (StreamID id : deleted) ReplyID(r, id);
  PropagateAsMany(c, std::move(prop));
}

void ReplyLag(net::Reply& r, const Stream* s, const StreamCG* cg) {
  int64_t lag;
  if (db::StreamGroupLag(s, cg, &lag))
    r.Int(lag);
  else
    r.Null();
}

void ReplyEntriesRead(net::Reply& r, const StreamCG* cg) {
  if (cg->entries_read != db::kEntriesReadInvalid)
    r.Int(cg->entries_read);
  else
    r.Null();
}

db::Obj* XInfoLookup(Client* c) {
  db::Obj* o = LookupRead(c, c->argv[2]);
  if (!o) {
    c->R().Error(kErrNoSuchKey);
    return nullptr;
  }
  if (!CheckType(c, o, db::kStream)) return nullptr;
  return o;
}

void XInfoConsumers(Client* c) {
  db::Obj* o = XInfoLookup(c);
  if (!o) return;
  StreamCG* cg = db::StreamLookupCG(db::GetStream(o), c->argv[3]);
  if (!cg)
    return c->R().Error("-NOGROUP No such consumer group '" + std::string(c->argv[3]) +
                        "' for key name '" + std::string(c->argv[2]) + "'");
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(cg->consumers.size()));
  int64_t now = db::GetEnv().now_ms;
  for (auto& [name, consumer] : cg->consumers) {
    int64_t inactive = consumer->active_time != -1 ? now - consumer->active_time : -1;
    int64_t idle = std::max<int64_t>(0, now - consumer->seen_time);
    r.MapLen(4);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("pending");
    r.Int(static_cast<int64_t>(consumer->pel.size()));
    r.Bulk("idle");
    r.Int(idle);
    r.Bulk("inactive");
    r.Int(inactive);
  }
}

void XInfoGroups(Client* c) {
  db::Obj* o = XInfoLookup(c);
  if (!o) return;
  Stream* s = db::GetStream(o);
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(s->groups.size()));
  for (auto& [name, cg] : s->groups) {
    r.MapLen(6);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("consumers");
    r.Int(static_cast<int64_t>(cg->consumers.size()));
    r.Bulk("pending");
    r.Int(static_cast<int64_t>(cg->pel.size()));
    r.Bulk("last-delivered-id");
    ReplyID(r, cg->last_id);
    r.Bulk("entries-read");
    ReplyEntriesRead(r, cg.get());
    r.Bulk("lag");
    ReplyLag(r, s, cg.get());
  }
}

void XInfoStream(Client* c) {
  auto& argv = c->argv;
  bool full = true;
  int64_t count = 10;
  size_t optc = argv.size() - 3;
  auto syntax = [&] {
    c->R().Error("unknown subcommand or wrong number of arguments for '" +
                 std::string(argv[1].substr(0, 128)) + "'. Try XINFO HELP.");
  };
  if (optc == 0) {
    full = false;
  } else {
    if (optc != 1 && optc != 3) return syntax();
    if (!base::EqualsNoCase(argv[3], "full")) return syntax();
    if (optc == 3) {
      if (!base::EqualsNoCase(argv[4], "count")) return syntax();
      if (!ArgInt(c, argv[5], &count)) return;
      if (count < 0) count = 10;
    }
  }
  db::Obj* o = XInfoLookup(c);
  if (!o) return;
  Stream* s = db::GetStream(o);
  auto r = c->R();
  r.MapLen(full ? 9 : 10);
  r.Bulk("length");
  r.Int(static_cast<int64_t>(s->length));
  r.Bulk("radix-tree-keys");
  r.Int(static_cast<int64_t>(s->nodes.size()));
  r.Bulk("radix-tree-nodes");
  r.Int(static_cast<int64_t>(db::StreamRadixTreeNodes(s)));
  r.Bulk("last-generated-id");
  ReplyID(r, s->last_id);
  r.Bulk("max-deleted-entry-id");
  ReplyID(r, s->max_deleted_entry_id);
  r.Bulk("entries-added");
  r.Int(static_cast<int64_t>(s->entries_added));
  r.Bulk("recorded-first-entry-id");
  ReplyID(r, s->first_id);
  if (!full) {
    r.Bulk("groups");
    r.Int(static_cast<int64_t>(s->groups.size()));
    r.Bulk("first-entry");
    if (!ReplyOneEntry(c, s, StreamID{}, true, false)) r.Null();
    r.Bulk("last-entry");
    if (!ReplyOneEntry(c, s, StreamID{}, true, true)) r.Null();
    return;
  }
  r.Bulk("entries");
  ReplyRange(c, s, StreamID{}, db::kStreamMaxID, static_cast<size_t>(count), false);
  r.Bulk("groups");
  r.ArrayLen(static_cast<int64_t>(s->groups.size()));
  for (auto& [name, cg] : s->groups) {
    r.MapLen(7);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("last-delivered-id");
    ReplyID(r, cg->last_id);
    r.Bulk("entries-read");
    ReplyEntriesRead(r, cg.get());
    r.Bulk("lag");
    ReplyLag(r, s, cg.get());
    r.Bulk("pel-count");
    r.Int(static_cast<int64_t>(cg->pel.size()));
    r.Bulk("pending");
    size_t handle = r.DeferLen();
    int64_t n = 0;
    for (auto it = cg->pel.begin(); it != cg->pel.end() && (!count || n < count); ++it, ++n) {
      r.ArrayLen(4);
      ReplyID(r, it->first);
      r.Bulk(it->second.consumer->name);
      r.Int(it->second.delivery_time);
      r.Int(static_cast<int64_t>(it->second.delivery_count));
    }
    r.SetDeferredArrayLen(handle, n);
    r.Bulk("consumers");
    r.ArrayLen(static_cast<int64_t>(cg->consumers.size()));
    for (auto& [cname, consumer] : cg->consumers) {
      r.MapLen(5);
      r.Bulk("name");
      r.Bulk(cname);
      r.Bulk("seen-time");
      r.Int(consumer->seen_time);
      r.Bulk("active-time");
      r.Int(consumer->active_time);
      r.Bulk("pel-count");
      r.Int(static_cast<int64_t>(consumer->pel.size()));
      r.Bulk("pending");
      size_t h2 = r.DeferLen();
      int64_t m = 0;
      for (auto it = consumer->pel.begin(); it != consumer->pel.end() && (!count || m < count);
           ++it, ++m) {
        r.ArrayLen(3);
        ReplyID(r, it->first);
        r.Int(it->second->delivery_time);
        r.Int(static_cast<int64_t>(it->second->delivery_count));
      }
      r.SetDeferredArrayLen(h2, m);
    }
  }
}

void XInfoHelp(Client* c) {
  ReplyHelp(c, "XINFO",
            {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.", "GROUPS <key>",
             "    Show the stream consumer groups.", "STREAM <key> [FULL [COUNT <count>]",
             "    Show information about the stream."});
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterStreamCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "stream";
  t->push_back({"xadd", -5, kCmdWrite | kCmdDenyOom | kCmdFast, XAddCommand, g, "5.0.0",
                "Appends an entry to a stream, creating it if needed.",
                "O(1), plus O(N) for the N entries trimmed"});
  t->push_back({"xrange", -4, kCmdReadonly, XRangeCommand, g, "5.0.0",
                "Returns the entries of an ID range.", "O(N) for N entries returned"});
  t->push_back({"xrevrange", -4, kCmdReadonly, XRevRangeCommand, g, "5.0.0",
                "Returns the entries of an ID range, newest first.",
                "O(N) for N entries returned"});
  t->push_back({"xlen", 2, kCmdReadonly | kCmdFast, XLenCommand, g, "5.0.0",
                "Counts the entries of a stream.", "O(1)"});
  t->push_back({"xdel", -3, kCmdWrite | kCmdFast, XDelCommand, g, "5.0.0", "Removes entries by ID.",
                "O(1) per entry"});
  t->push_back({"xtrim", -4, kCmdWrite, XTrimCommand, g, "5.0.0", "Removes the oldest entries.",
                "O(N) for N entries removed"});
  t->push_back({"xsetid", -3, kCmdWrite | kCmdDenyOom | kCmdFast, XSetIdCommand, g, "5.0.0",
                "Sets the last ID and counters of a stream (replication).", "O(1)"});
  t->push_back({"xread", -4, kCmdReadonly | kCmdBlocking, XReadCommand, g, "5.0.0",
                "Reads entries after given IDs, optionally waiting for them.",
                nullptr});  // no complexity in Valkey 8's docs
  t->push_back({"xreadgroup", -7, kCmdWrite | kCmdBlocking, XReadGroupCommand, g, "5.0.0",
                "Reads entries for a consumer of a group, optionally waiting for them.",
                "O(M) for M entries returned per stream"});
  t->push_back({"xack", -4, kCmdWrite | kCmdFast, XAckCommand, g, "5.0.0",
                "Acknowledges pending entries of a group.", "O(1) per ID"});
  t->push_back({"xpending", -3, kCmdReadonly, XPendingCommand, g, "5.0.0",
                "Lists or summarises the pending entries of a group.",
                "O(N) for N entries returned"});
  t->push_back({"xclaim", -6, kCmdWrite | kCmdFast, XClaimCommand, g, "5.0.0",
                "Transfers pending entries to another consumer.", "O(log N) per ID"});
  t->push_back({"xautoclaim", -6, kCmdWrite | kCmdFast, XAutoClaimCommand, g, "6.2.0",
                "Transfers idle pending entries to another consumer, scanning from a cursor.",
                "O(1) for a small COUNT"});
  CommandSpec xgroup{
      "xgroup", -2, 0, nullptr, g, "5.0.0", "Manages consumer groups.", "Depends on subcommand."};
  xgroup.subcommands = {
      {"create", -5, kCmdWrite | kCmdDenyOom, XGroupCreate, g, "5.0.0", "Creates a group.", "O(1)"},
      {"setid", -5, kCmdWrite, XGroupSetId, g, "5.0.0", "Moves a group's last delivered ID.",
       "O(1)"},
      {"destroy", 4, kCmdWrite, XGroupDestroy, g, "5.0.0", "Deletes a group.",
       "O(N) for N pending entries"},
      {"createconsumer", 5, kCmdWrite | kCmdDenyOom, XGroupCreateConsumer, g, "6.2.0",
       "Adds a consumer to a group.", "O(1)"},
      {"delconsumer", 5, kCmdWrite, XGroupDelConsumer, g, "5.0.0",
       "Removes a consumer from a group.", "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, XGroupHelp, g, "5.0.0", "Lists the subcommands.",
       "O(1)"},
  };
  t->push_back(std::move(xgroup));
  CommandSpec xinfo{"xinfo",
                    -2,
                    0,
                    nullptr,
                    g,
                    "5.0.0",
                    "Describes streams, groups and consumers.",
                    "Depends on subcommand."};
  xinfo.subcommands = {
      {"stream", -3, kCmdReadonly, XInfoStream, g, "5.0.0", "Describes a stream.", "O(1)"},
      {"groups", 3, kCmdReadonly, XInfoGroups, g, "5.0.0", "Lists the groups of a stream.", "O(1)"},
      {"consumers", 4, kCmdReadonly, XInfoConsumers, g, "5.0.0", "Lists the consumers of a group.",
       "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, XInfoHelp, g, "5.0.0", "Lists the subcommands.", "O(1)"},
  };
  t->push_back(std::move(xinfo));
}
}  // namespace server
