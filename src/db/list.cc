// List values over listpack / quicklist.
#include "db/list.h"

#include <cstdlib>
#include <cstring>

#include "db/hash.h"
#include "ds/listpack.h"
#include "ds/quicklist.h"

namespace db {
namespace {
uint8_t* Lp(const Obj* o) { return static_cast<uint8_t*>(o->ptr()); }
ds::Quicklist* Ql(const Obj* o) { return static_cast<ds::Quicklist*>(o->ptr()); }

void ToQuicklist(Obj* o) {
  auto* ql = new ds::Quicklist(GetListLimits().fill, GetListLimits().compress_depth);
  ql->AppendListpack(Lp(o));
  o->set_ptr(ql);
  SetObjEncoding(o, kEncQuicklist);
}

// Converts before adding `add_bytes` in `add_count` elements when the listpack would overflow.
void GrowCheck(Obj* o, size_t add_bytes, size_t add_count) {
  if (o->enc() != kEncListpack) return;
  if (ds::Quicklist::ExceedsLimit(GetListLimits().fill, ds::lp::Bytes(Lp(o)) + add_bytes,
                                  ds::lp::Length(Lp(o)) + add_count))
    ToQuicklist(o);
}

// Runs op on the listpack wrapped as a one-node quicklist, keeping whatever shape results.
void WithQuicklist(Obj* o, const std::function<void(ds::Quicklist*)>& op) {
  if (o->enc() == kEncQuicklist) {
    op(Ql(o));
    return;
  }
  ds::Quicklist tmp(GetListLimits().fill);
  tmp.AppendListpack(Lp(o));
  op(&tmp);
  if (tmp.NodeCount() <= 1) {
    o->set_ptr(tmp.TakeSingleListpack());
    return;
  }
  // The list outgrew one node: keep the quicklist.
  auto* ql = new ds::Quicklist(GetListLimits().fill, GetListLimits().compress_depth);
  tmp.MoveNodesTo(ql);
  o->set_ptr(ql);
  SetObjEncoding(o, kEncQuicklist);
}

void FreeList(void* ptr, Enc e) {
  if (e == kEncListpack)
    ds::lp::Free(static_cast<uint8_t*>(ptr));
  else
    delete static_cast<ds::Quicklist*>(ptr);
}

void* DupList(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::lp::Dup(static_cast<const uint8_t*>(ptr));
  return static_cast<const ds::Quicklist*>(ptr)->Clone();
}

size_t ListBytes(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::lp::Bytes(static_cast<const uint8_t*>(ptr));
  return static_cast<const ds::Quicklist*>(ptr)->Bytes();
}
}  // namespace

ListLimits& GetListLimits() {
  static ListLimits l;
  return l;
}

Obj* NewList(std::string_view key) { return NewContainer(key, kList, kEncListpack, ds::lp::New()); }

size_t ListLen(const Obj* o) {
  return o->enc() == kEncListpack ? ds::lp::Length(Lp(o)) : Ql(o)->Count();
}

void ListPush(Obj* o, std::string_view s, bool head) {
  GrowCheck(o, s.size(), 1);
  if (o->enc() == kEncListpack) {
    o->set_ptr(head ? ds::lp::Prepend(Lp(o), s) : ds::lp::Append(Lp(o), s));
  } else if (head) {
    Ql(o)->PushHead(s);
  } else {
    Ql(o)->PushTail(s);
  }
}

void ListLoad(Obj* o, const std::vector<std::string>& elems) {
  if (o->enc() == kEncListpack && ListLen(o) == 0 && !elems.empty()) {
    // Tail pushes keep one listpack unless one of them finds the limit passed (GrowCheck:
    // the listpack so far plus the new element); bytes and count only grow, so the last
    // push's check decides for all.
    std::string buf;
    ds::lp::Writer w(&buf);
    for (size_t i = 0; i + 1 < elems.size(); i++) w.Add(elems[i]);
    size_t before_last = buf.size() + 1;  // the listpack of all but the last: + terminator
    if (!ds::Quicklist::ExceedsLimit(GetListLimits().fill, before_last + elems.back().size(),
                                     elems.size())) {
      w.Add(elems.back());
      ds::lp::Free(Lp(o));
      o->set_ptr(ds::lp::FromBytes(w.Finish()));
      return;
    }
  }
  for (const std::string& e : elems) ListPush(o, e, false);
}

void ListLoadNodes(Obj* o, const std::vector<std::string>& listpacks) {
  int fill = GetListLimits().fill;
  if (listpacks.size() == 1) {
    const std::string& lp = listpacks[0];
    size_t count = ds::lp::Length(reinterpret_cast<const uint8_t*>(lp.data()));
    if (!ds::Quicklist::ExceedsLimit(fill, lp.size(), count)) {
      ds::lp::Free(Lp(o));
      o->set_ptr(ds::lp::FromBytes(lp));
      return;
    }
  }
  ds::Quicklist nodes(fill);
  for (const std::string& lp : listpacks) nodes.AppendListpack(ds::lp::FromBytes(lp));
  auto* ql = new ds::Quicklist(fill, GetListLimits().compress_depth);
  nodes.MoveNodesTo(ql);  // compresses the inner nodes, as the depth asks
  ds::lp::Free(Lp(o));
  o->set_ptr(ql);
  SetObjEncoding(o, kEncQuicklist);
}

void ListMaybeShrink(Obj* o) {
  if (o->enc() != kEncQuicklist) return;
  ds::Quicklist* ql = Ql(o);
  if (ql->NodeCount() > 1) return;
  size_t bl, cl;
  ds::Quicklist::Limits(GetListLimits().fill, &bl, &cl);
  size_t bytes = ql->FirstNodeBytes();
  if ((bl != SIZE_MAX && bytes > bl / 2) || ql->Count() > cl / 2) return;
  uint8_t* lp = ql->TakeSingleListpack();
  delete ql;
  o->set_ptr(lp);
  SetObjEncoding(o, kEncListpack);
}

bool ListPop(Obj* o, bool head, std::string* out) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    uint8_t* p = head ? ds::lp::First(lp) : ds::lp::Last(lp);
    if (!p) return false;
    char buf[24];
    out->assign(ds::lp::Get(p).View(buf));
    o->set_ptr(ds::lp::Delete(lp, p, nullptr));
    return true;
  }
  bool ok = head ? Ql(o)->PopHead(out) : Ql(o)->PopTail(out);
  ListMaybeShrink(o);
  return ok;
}

bool ListIndex(Obj* o, long index, std::string* out) {
  if (o->enc() == kEncListpack) {
    uint8_t* p = ds::lp::Seek(Lp(o), index);
    if (!p) return false;
    char buf[24];
    out->assign(ds::lp::Get(p).View(buf));
    return true;
  }
  return Ql(o)->Get(index, out);
}

bool ListSet(Obj* o, long index, std::string_view s) {
  bool ok = false;
  // Judged as if the value were appended, as Valkey 8's LSET does (listTypeTryConversionAppend):
  // a listpack at its entry limit becomes a quicklist even though the count stays.
  GrowCheck(o, s.size(), 1);
  WithQuicklist(o, [&](ds::Quicklist* ql) { ok = ql->Set(index, s); });
  return ok;
}

void ListInsertAt(Obj* o, size_t index, std::string_view s, bool after) {
  GrowCheck(o, s.size(), 1);
  WithQuicklist(o, [&](ds::Quicklist* ql) { ql->InsertAt(index, s, after); });
}

void ListDeleteRange(Obj* o, size_t start, size_t n) {
  WithQuicklist(o, [&](ds::Quicklist* ql) { ql->DeleteRange(start, n); });
  ListMaybeShrink(o);
}

void ListWalk(Obj* o, size_t index, bool reverse,
              const std::function<bool(size_t, std::string_view)>& fn) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    char buf[24];
    size_t idx = index;
    for (uint8_t* p = ds::lp::Seek(lp, static_cast<long>(index)); p;
         p = reverse ? ds::lp::Prev(lp, p) : ds::lp::Next(lp, p)) {
      if (!fn(idx, ds::lp::Get(p).View(buf))) return;
      idx = reverse ? idx - 1 : idx + 1;
    }
    return;
  }
  Ql(o)->Walk(index, reverse, fn);
}

size_t ListRemove(Obj* o, std::string_view s, size_t limit, bool from_tail) {
  size_t n = 0;
  WithQuicklist(o, [&](ds::Quicklist* ql) { n = ql->Remove(s, limit, from_tail); });
  ListMaybeShrink(o);
  return n;
}

void RegisterListType() { RegisterTypeOps(kList, {FreeList, DupList, ListBytes}); }

}  // namespace db
