// Set values and their intset -> listpack -> hashtable conversions (Valkey 8's rules). The
// listpack encoding holds a ds::pack of stride 1 (members, front-coded in insertion order).
#include "db/set.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/util.h"
#include "db/hash.h"
#include "ds/intset.h"
#include "ds/pack.h"

namespace db {
namespace {
size_t NodeBytes(size_t len) { return sizeof(SetNode) + VarintLen(len) + len; }

SetNode* NewNode(std::string_view m) {
  auto* n = static_cast<SetNode*>(malloc(NodeBytes(m.size())));
  n->next = nullptr;
  memcpy(PutVarint(n->data, m.size()), m.data(), m.size());
  return n;
}
uint8_t* Raw(const Obj* o) { return static_cast<uint8_t*>(o->ptr()); }
SetTableT* Table(const Obj* o) { return static_cast<SetTableT*>(o->ptr()); }

bool AsInt(std::string_view s, int64_t* v) { return s.size() <= 20 && base::ParseInt64(s, v); }

void ToHashtable(Obj* o, size_t reserve) {
  auto* t = new SetTableT();
  t->Reserve(std::max(reserve, SetLen(o)));
  SetForEach(o, [&](std::string_view m) { t->Insert(NewNode(m)); });
  if (o->enc() == kEncIntset)
    ds::intset::Free(Raw(o));
  else
    ds::pack::Free(Raw(o));
  o->set_ptr(t);
  SetObjEncoding(o, kEncHashtable);
}

void IntsetToListpack(Obj* o) {
  uint8_t* is = Raw(o);
  uint32_t n = ds::intset::Length(is);
  std::vector<std::string> texts(n);
  std::vector<std::string_view> views(n);
  for (uint32_t i = 0; i < n; i++) views[i] = texts[i] = base::Int64ToString(ds::intset::Get(is, i));
  uint8_t* pk = ds::pack::Append(ds::pack::New(), 1, views.data(), n);
  ds::intset::Free(is);
  o->set_ptr(pk);
  SetObjEncoding(o, kEncListpack);
}

void FreeSet(void* ptr, Enc e) {
  if (e == kEncIntset)
    ds::intset::Free(static_cast<uint8_t*>(ptr));
  else if (e == kEncListpack)
    ds::pack::Free(static_cast<uint8_t*>(ptr));
  else {
    auto* t = static_cast<SetTableT*>(ptr);
    t->Clear([](SetNode* n) { free(n); });
    delete t;
  }
}

void* DupSet(const void* ptr, Enc e) {
  if (e == kEncIntset || e == kEncListpack) {
    auto* src = static_cast<const uint8_t*>(ptr);
    size_t n = e == kEncIntset ? ds::intset::Bytes(src) : ds::pack::Bytes(src);
    auto* d = static_cast<uint8_t*>(malloc(n));
    memcpy(d, src, n);
    return d;
  }
  auto* src = static_cast<SetTableT*>(const_cast<void*>(ptr));
  auto* t = new SetTableT();
  t->Reserve(src->Size());
  src->ForEach([&](SetNode* n) { t->Insert(NewNode(n->member())); });
  return t;
}

size_t SetBytes(const void* ptr, Enc e) {
  if (e == kEncIntset) return ds::intset::Bytes(static_cast<const uint8_t*>(ptr));
  if (e == kEncListpack) return ds::pack::Bytes(static_cast<const uint8_t*>(ptr));
  auto* t = static_cast<SetTableT*>(const_cast<void*>(ptr));
  size_t total = t->BucketBytes();
  t->ForEach([&](SetNode* n) { total += NodeBytes(n->member().size()); });
  return total;
}
}  // namespace

SetLimits& GetSetLimits() {
  static SetLimits l;
  return l;
}

Obj* NewSet(std::string_view key, std::string_view hint, size_t size_hint) {
  const SetLimits& lim = GetSetLimits();
  int64_t v;
  if (AsInt(hint, &v) && size_hint <= lim.max_intset_entries)
    return NewContainer(key, kSet, kEncIntset, ds::intset::New());
  if (size_hint <= lim.max_listpack_entries && hint.size() <= lim.max_listpack_value)
    return NewContainer(key, kSet, kEncListpack, ds::pack::New());
  Obj* o = NewContainer(key, kSet, kEncHashtable, new SetTableT());
  Table(o)->Reserve(size_hint);
  return o;
}

size_t SetLen(const Obj* o) {
  switch (o->enc()) {
    case kEncIntset:
      return ds::intset::Length(Raw(o));
    case kEncListpack:
      return ds::pack::Length(Raw(o));
    default:
      return Table(o)->Size();
  }
}

bool SetAdd(Obj* o, std::string_view m) {
  const SetLimits& lim = GetSetLimits();
  int64_t v;
  if (o->enc() == kEncIntset) {
    if (AsInt(m, &v)) {
      bool added;
      o->set_ptr(ds::intset::Add(Raw(o), v, &added));
      // Too many integers: straight to a hash table, as Valkey does.
      if (added && ds::intset::Length(Raw(o)) > lim.max_intset_entries) ToHashtable(o, 0);
      return added;
    }
    // A non-integer member: listpack when it and every integer fit, else hashtable.
    uint8_t* is = Raw(o);
    uint32_t n = ds::intset::Length(is);
    size_t widest = n ? std::max(base::Int64ToString(ds::intset::Min(is)).size(),
                                 base::Int64ToString(ds::intset::Max(is)).size())
                      : 0;
    if (n < lim.max_listpack_entries && m.size() <= lim.max_listpack_value &&
        widest <= lim.max_listpack_value)
      IntsetToListpack(o);
    else
      ToHashtable(o, n + 1);
  }
  if (o->enc() == kEncListpack) {
    uint8_t* pk = Raw(o);
    if (ds::pack::Reader(pk, 1).Find(m)) return false;
    if (ds::pack::Length(pk) >= lim.max_listpack_entries || m.size() > lim.max_listpack_value ||
        !ds::pack::SafeToAdd(pk, m.size() + 16)) {
      ToHashtable(o, 0);
    } else {
      o->set_ptr(ds::pack::Append(pk, 1, &m, 1));
      return true;
    }
  }
  SetTableT* t = Table(o);
  if (t->Find(m)) return false;
  t->Insert(NewNode(m));
  return true;
}

bool SetRemove(Obj* o, std::string_view m) {
  int64_t v;
  switch (o->enc()) {
    case kEncIntset: {
      if (!AsInt(m, &v)) return false;
      bool removed;
      o->set_ptr(ds::intset::Remove(Raw(o), v, &removed));
      return removed;
    }
    case kEncListpack: {
      ds::pack::Reader r(Raw(o), 1);
      if (!r.Find(m)) return false;
      o->set_ptr(ds::pack::Splice(Raw(o), 1, r.Index(), 1, nullptr, 0));
      return true;
    }
    default: {
      SetNode* n = Table(o)->Unlink(m);
      if (!n) return false;
      free(n);
      return true;
    }
  }
}

bool SetContains(Obj* o, std::string_view m) {
  int64_t v;
  switch (o->enc()) {
    case kEncIntset:
      return AsInt(m, &v) && ds::intset::Find(Raw(o), v);
    case kEncListpack:
      return ds::pack::Reader(Raw(o), 1).Find(m);
    default:
      return Table(o)->Find(m) != nullptr;
  }
}

void SetForEach(Obj* o, const std::function<void(std::string_view)>& fn) {
  switch (o->enc()) {
    case kEncIntset: {
      uint8_t* is = Raw(o);
      for (uint32_t i = 0; i < ds::intset::Length(is); i++) {
        char buf[24];
        fn(std::string_view(buf, base::FormatInt64(ds::intset::Get(is, i), buf)));
      }
      return;
    }
    case kEncListpack: {
      ds::pack::Reader r(Raw(o), 1);
      while (r.Next()) fn(r.Text());
      return;
    }
    default:
      Table(o)->ForEach([&](SetNode* n) { fn(n->member()); });
  }
}

uint64_t SetScan(Obj* o, uint64_t cursor, const std::function<void(std::string_view)>& fn) {
  if (o->enc() != kEncHashtable) {
    SetForEach(o, fn);
    return 0;
  }
  return Table(o)->Scan(cursor, [&](SetNode* n) { fn(n->member()); });
}

std::string SetRandom(Obj* o) {
  size_t n = SetLen(o);
  switch (o->enc()) {
    case kEncIntset:
      return base::Int64ToString(
          ds::intset::Get(Raw(o), static_cast<uint32_t>(ds::RandomU64() % n)));
    case kEncListpack: {
      ds::pack::Reader r(Raw(o), 1);
      r.SeekTo(ds::RandomU64() % n);
      return std::string(r.Text());
    }
    default:
      return std::string(Table(o)->Random()->member());
  }
}

namespace {

template <typename Members>
void LoadMembers(Obj* o, const Members& ms) {
  const SetLimits& lim = GetSetLimits();
  if (o->enc() != kEncHashtable && SetLen(o) == 0 && !ms.empty() &&
      ms.size() <= lim.max_listpack_entries) {
    bool all_ints = true, fits = true;
    size_t bytes = 0;
    for (std::string_view m : ms) {
      int64_t v;
      all_ints = all_ints && AsInt(m, &v);
      fits = fits && m.size() <= lim.max_listpack_value;
      bytes += m.size() + 16;
    }
    if ((!all_ints || ms.size() > lim.max_intset_entries) && fits && bytes < ds::pack::kSafeSize) {
      ds::pack::Builder b(1, bytes);
      for (std::string_view m : ms) b.Add(m);
      FreeSet(o->ptr(), o->enc());
      o->set_ptr(b.Finish());
      SetObjEncoding(o, kEncListpack);
      return;
    }
  }
  for (std::string_view m : ms) SetAdd(o, m);
}

}  // namespace

void SetLoad(Obj* o, const std::vector<std::string>& ms) { LoadMembers(o, ms); }

void SetLoad(Obj* o, const std::vector<std::string_view>& ms) { LoadMembers(o, ms); }

std::string SetPop(Obj* o) {
  std::string m = SetRandom(o);
  SetRemove(o, m);
  return m;
}

void SetReserve(Obj* o, size_t expected) {
  // Valkey 8's setTypeMaybeConvert: only the hint decides, whatever the set already holds.
  const SetLimits& lim = GetSetLimits();
  if ((o->enc() == kEncListpack && expected > lim.max_listpack_entries) ||
      (o->enc() == kEncIntset && expected > lim.max_intset_entries))
    ToHashtable(o, expected);
}

void SetReserveMembers(Obj* o, size_t n) {
  SetReserve(o, n);
  if (o->enc() == kEncHashtable) Table(o)->Reserve(n);
}

void SetMaybeToIntset(Obj* o) {
  if (o->enc() == kEncIntset || SetLen(o) > GetSetLimits().max_intset_entries) return;
  uint8_t* is = ds::intset::New();
  bool all_ints = true;
  SetForEach(o, [&](std::string_view m) {
    int64_t v;
    bool added;
    if (!all_ints || !AsInt(m, &v)) {
      all_ints = false;
      return;
    }
    is = ds::intset::Add(is, v, &added);
  });
  if (!all_ints) {
    ds::intset::Free(is);
    return;
  }
  FreeSet(o->ptr(), o->enc());
  o->set_ptr(is);
  SetObjEncoding(o, kEncIntset);
}

void RegisterSetType() { RegisterTypeOps(kSet, {FreeSet, DupSet, SetBytes}); }

bool SetTableStats(const Obj* o, int t, bool full, ds::HtStats* out) {
  return o->enc() == kEncHashtable && Table(o)->Stats(t, full, out);
}

}  // namespace db
