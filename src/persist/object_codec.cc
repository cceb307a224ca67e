// Keyspace object <-> persist::Value.
#include "persist/object_codec.h"

#include <algorithm>
#include <memory>

#include "base/util.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/stream.h"
#include "db/zset.h"
#include "ds/listpack.h"
#include "ds/pack.h"

namespace persist {

namespace {

// A compact hash's or sorted set's pairs (a pack of stride 2, a sorted set's in its order) as
// the listpack WriteValue would write, built in `buf`; false when they exceed what it writes
// compact. Each entry goes in as WriteValue appends its text: an integer pack entry is that
// integer's text, and a score's text is the one the plain path formats (db/zset.cc keeps it so).
bool PairsAsListpack(const uint8_t* pk, bool zset, std::string* buf, std::string_view* lp) {
  size_t n = ds::pack::Length(pk);
  if (n == 0 || n / 2 > kMaxListpackEntries) return false;
  buf->clear();
  ds::lp::Writer w(buf);
  ds::pack::Reader r(pk, 2);
  while (r.Next()) {
    if (r.IsInt()) {
      w.AddInt(r.Int());
      continue;
    }
    bool limited = !zset || r.Index() % 2 == 0;  // a score has no length limit
    if (limited && r.Text().size() > kMaxListpackValue) return false;
    w.Add(r.Text());
  }
  *lp = w.Finish();
  return true;
}

// A hash, sorted set or set read with keep_listpack: built from the listpack's entries in
// place, after the checks ReadValue makes of the plain form; nullptr when one fails.
db::Obj* FromListpack(std::string_view key, const Value& v) {
  auto* lp = reinterpret_cast<uint8_t*>(const_cast<char*>(v.listpack.data()));
  size_t n = ds::lp::Length(lp);
  bool set = v.kind == Kind::kSet;
  if (n % 2 && !set) return nullptr;
  bool zset = v.kind == Kind::kZSet;
  // Integers' texts, at most 21 bytes each, in one block that does not move.
  std::unique_ptr<char[]> ints(new char[n * 21 + 1]);
  size_t ints_used = 0;
  auto view = [&](const ds::lp::Entry& e) {
    if (!e.is_int) return std::string_view(reinterpret_cast<const char*>(e.sval), e.slen);
    char* at = ints.get() + ints_used;
    size_t len = static_cast<size_t>(base::FormatInt64(e.ival, at));
    ints_used += len;
    return std::string_view(at, len);
  };
  std::vector<std::string_view> firsts;
  firsts.reserve(set ? n : n / 2);
  if (set) {
    for (uint8_t* p = ds::lp::First(lp); p; p = ds::lp::Next(lp, p))
      firsts.push_back(view(ds::lp::Get(p)));
    std::vector<std::string_view> members = firsts;  // HasDuplicates reorders its argument
    if (HasDuplicates(firsts)) return nullptr;
    db::Obj* o = db::NewSet(key, members.empty() ? std::string_view() : members[0], members.size());
    db::SetLoad(o, members);
    return o;
  }
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  std::vector<db::ZLoadEntry> entries;
  if (zset)
    entries.reserve(n / 2);
  else
    pairs.reserve(n / 2);
  size_t maxlen = 0;
  for (uint8_t* p = ds::lp::First(lp); p;) {
    std::string_view first = view(ds::lp::Get(p));
    p = ds::lp::Next(lp, p);
    ds::lp::Entry second = ds::lp::Get(p);
    p = ds::lp::Next(lp, p);
    firsts.push_back(first);
    maxlen = std::max(maxlen, first.size());
    if (!zset) {
      pairs.emplace_back(first, view(second));
      continue;
    }
    constexpr int64_t kExact = int64_t{1} << 53;
    double score;
    std::string_view text;
    if (second.is_int) {
      score = static_cast<double>(second.ival);
      if (second.ival >= -kExact && second.ival <= kExact) text = view(second);
    } else {
      std::string_view s(reinterpret_cast<const char*>(second.sval), second.slen);
      if (!base::ParseDouble(s, &score)) return nullptr;
      if (db::ZScoreTextIsCanonical(s)) text = s;
    }
    entries.push_back({first, score, text});
  }
  if (HasDuplicates(firsts)) return nullptr;
  if (!zset) {
    db::Obj* o = db::NewHash(key);
    db::HashLoad(o, pairs);
    return o;
  }
  db::Obj* o = db::NewZSet(key, entries.size(), maxlen);
  db::ZSetLoad(o, entries);
  return o;
}

}  // namespace

void WriteObject(std::string* out, db::Obj* o, bool compress) {
  if (o->enc() == db::kEncListpack) {
    bool zset = o->type() == db::kZSet;
    if (zset || o->type() == db::kHash) {
      static thread_local std::string buf;  // reused: a snapshot writes many
      std::string_view lp;
      if (PairsAsListpack(static_cast<const uint8_t*>(o->ptr()), zset, &buf, &lp)) {
        if (zset)
          WriteZSetListpack(out, lp, compress);
        else
          WriteHashListpack(out, lp, compress);
        return;
      }
    } else if (o->type() == db::kList) {
      const auto* lp = static_cast<const uint8_t*>(o->ptr());
      if (ds::lp::Length(lp) > 0 && ds::lp::Bytes(lp) <= kListNodeBytes)
        return WriteListOneNode(
            out, {reinterpret_cast<const char*>(lp), ds::lp::Bytes(lp)}, compress);
    }
  }
  WriteValue(out, ToValue(o), compress);
}

Value ToValue(db::Obj* o) {
  Value v;
  switch (o->type()) {
    case db::kString: {
      v.kind = Kind::kString;
      char buf[24];
      v.str.assign(o->str(buf));
      break;
    }
    case db::kList:
      v.kind = Kind::kList;
      v.elems.reserve(db::ListLen(o));
      db::ListWalk(o, 0, false, [&](size_t, std::string_view e) {
        v.elems.emplace_back(e);
        return true;
      });
      break;
    case db::kSet:
      v.kind = Kind::kSet;
      v.elems.reserve(db::SetLen(o));
      db::SetForEach(o, [&](std::string_view m) { v.elems.emplace_back(m); });
      break;
    case db::kZSet:
      v.kind = Kind::kZSet;
      v.zelems.reserve(db::ZLen(o));
      db::ZWalk(o, 0, false, [&](std::string_view m, double s) {
        v.zelems.emplace_back(m, s);
        return true;
      });
      break;
    case db::kHash:
      v.kind = Kind::kHash;
      v.pairs.reserve(db::HashLen(o));
      db::HashForEach(
          o, [&](std::string_view f, std::string_view val) { v.pairs.emplace_back(f, val); });
      break;
    case db::kStream:
      v.kind = Kind::kStream;
      v.stream = std::shared_ptr<db::Stream>(db::GetStream(o), [](db::Stream*) {});
      break;
    default:
      break;
  }
  return v;
}

db::Obj* FromValue(std::string_view key, const Value& v, int64_t expire) {
  db::Obj* o = nullptr;
  if (!v.listpack.empty()) {
    o = FromListpack(key, v);
    return o && expire >= 0 ? db::WithExpire(o, expire) : o;
  }
  switch (v.kind) {
    case Kind::kString:
      return db::NewString(key, v.str, expire);
    case Kind::kList:
      o = db::NewList(key);
      if (!v.list_nodes.empty())
        db::ListLoadNodes(o, v.list_nodes);
      else
        db::ListLoad(o, v.elems);
      break;
    case Kind::kSet:
      o = db::NewSet(key, v.elems.empty() ? std::string_view() : v.elems[0], v.elems.size());
      db::SetLoad(o, v.elems);
      break;
    case Kind::kZSet: {
      size_t maxlen = 0;
      for (auto& [m, s] : v.zelems) maxlen = std::max(maxlen, m.size());
      o = db::NewZSet(key, v.zelems.size(), maxlen);
      db::ZSetLoad(o, v.zelems);
      break;
    }
    case Kind::kHash:
      o = db::NewHash(key);
      db::HashLoad(o, v.pairs);
      break;
    case Kind::kStream: {
      // A decoded value hands its stream over; a borrowed one is copied.
      db::Stream* s = v.stream_owned && v.stream.use_count() == 1
                          ? new db::Stream(std::move(*v.stream))
                          : new db::Stream(*v.stream);
      o = db::NewContainer(key, db::kStream, db::kEncStream, s);
      break;
    }
  }
  return o && expire >= 0 ? db::WithExpire(o, expire) : o;
}

}  // namespace persist
