// Hash values and their listpack <-> hashtable conversion.
#include "db/hash.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ds/listpack.h"

namespace db {

namespace {
size_t NodeBytes(size_t flen, size_t vlen) {
  return sizeof(HashNode) + VarintLen(flen) + VarintLen(vlen) + flen + vlen;
}

HashNode* NewNode(std::string_view f, std::string_view v) {
  auto* n = static_cast<HashNode*>(malloc(NodeBytes(f.size(), v.size())));
  n->next = nullptr;
  char* p = PutVarint(PutVarint(n->data, f.size()), v.size());
  memcpy(p, f.data(), f.size());
  memcpy(p + f.size(), v.data(), v.size());
  return n;
}

HashTableT* Table(const Obj* o) { return static_cast<HashTableT*>(o->ptr()); }
uint8_t* Lp(const Obj* o) { return static_cast<uint8_t*>(o->ptr()); }

// `reserve`: fields the table is sized for, if more than it holds.
void ToHashtable(Obj* o, size_t reserve = 0) {
  auto* t = new HashTableT();
  uint8_t* lp = Lp(o);
  t->Reserve(std::max<size_t>(ds::lp::Length(lp) / 2, reserve));
  char b1[24], b2[24];
  for (uint8_t* p = ds::lp::First(lp); p;) {
    uint8_t* vp = ds::lp::Next(lp, p);
    std::string_view f = ds::lp::Get(p).View(b1);
    std::string_view v = ds::lp::Get(vp).View(b2);
    t->Insert(NewNode(f, v));
    p = ds::lp::Next(lp, vp);
  }
  ds::lp::Free(lp);
  o->set_ptr(t);
  SetObjEncoding(o, kEncHashtable);
}

void FreeHash(void* ptr, Enc e) {
  if (e == kEncListpack) {
    ds::lp::Free(static_cast<uint8_t*>(ptr));
  } else {
    auto* t = static_cast<HashTableT*>(ptr);
    t->Clear([](HashNode* n) { free(n); });
    delete t;
  }
}

void* DupHash(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::lp::Dup(static_cast<const uint8_t*>(ptr));
  auto* src = static_cast<HashTableT*>(const_cast<void*>(ptr));
  auto* t = new HashTableT();
  t->Reserve(src->Size());
  src->ForEach([&](HashNode* n) { t->Insert(NewNode(n->field(), n->value())); });
  return t;
}

size_t HashBytes(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::lp::Bytes(static_cast<const uint8_t*>(ptr));
  auto* t = static_cast<HashTableT*>(const_cast<void*>(ptr));
  size_t total = t->BucketBytes();
  t->ForEach([&](HashNode* n) { total += NodeBytes(n->field().size(), n->value().size()); });
  return total;
}
}  // namespace

HashLimits& GetHashLimits() {
  static HashLimits l;
  return l;
}

void SetObjEncoding(Obj* o, Enc e) { o->set_enc(e); }

Obj* NewHash(std::string_view key) { return NewContainer(key, kHash, kEncListpack, ds::lp::New()); }

size_t HashLen(const Obj* o) {
  if (o->enc() == kEncListpack) return ds::lp::Length(Lp(o)) / 2;
  return Table(o)->Size();
}

bool HashGet(Obj* o, std::string_view field, std::string* val) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    uint8_t* p = ds::lp::Find(lp, ds::lp::First(lp), field, 1);
    if (!p) return false;
    char buf[24];
    val->assign(ds::lp::Get(ds::lp::Next(lp, p)).View(buf));
    return true;
  }
  HashNode* n = Table(o)->Find(field);
  if (!n) return false;
  val->assign(n->value());
  return true;
}

bool HashExists(Obj* o, std::string_view field) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    return ds::lp::Find(lp, ds::lp::First(lp), field, 1) != nullptr;
  }
  return Table(o)->Find(field) != nullptr;
}

void HashReserveFields(Obj* o, size_t n) {
  if (o->enc() == kEncListpack) {
    if (n <= GetHashLimits().max_entries) return;
    return ToHashtable(o, n);
  }
  Table(o)->Reserve(n);
}

bool HashSet(Obj* o, std::string_view field, std::string_view value) {
  const HashLimits& lim = GetHashLimits();
  if (o->enc() == kEncListpack && (field.size() > lim.max_value || value.size() > lim.max_value))
    ToHashtable(o);
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    uint8_t* p = ds::lp::Find(lp, ds::lp::First(lp), field, 1);
    if (p) {
      uint8_t* vp = ds::lp::Next(lp, p);
      lp = ds::lp::Replace(lp, &vp, value);
      o->set_ptr(lp);
      return false;
    }
    lp = ds::lp::Append(lp, field);
    lp = ds::lp::Append(lp, value);
    o->set_ptr(lp);
    if (ds::lp::Length(lp) / 2 > lim.max_entries) ToHashtable(o);
    return true;
  }
  HashTableT* t = Table(o);
  HashNode* old = t->Find(field);
  HashNode* n = NewNode(field, value);
  if (old) {
    t->Replace(old, n);
    free(old);
    return false;
  }
  t->Insert(n);
  return true;
}

bool HashDelete(Obj* o, std::string_view field) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    uint8_t* p = ds::lp::Find(lp, ds::lp::First(lp), field, 1);
    if (!p) return false;
    uint8_t* next;
    lp = ds::lp::Delete(lp, p, &next);
    lp = ds::lp::Delete(lp, next, nullptr);
    o->set_ptr(lp);
    return true;
  }
  HashNode* n = Table(o)->Unlink(field);
  if (!n) return false;
  free(n);
  return true;
}

void HashForEach(Obj* o, const std::function<void(std::string_view, std::string_view)>& fn) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    char b1[24], b2[24];
    for (uint8_t* p = ds::lp::First(lp); p;) {
      uint8_t* vp = ds::lp::Next(lp, p);
      fn(ds::lp::Get(p).View(b1), ds::lp::Get(vp).View(b2));
      p = ds::lp::Next(lp, vp);
    }
    return;
  }
  Table(o)->ForEach([&](HashNode* n) { fn(n->field(), n->value()); });
}

uint64_t HashScan(Obj* o, uint64_t cursor,
                  const std::function<void(std::string_view, std::string_view)>& fn) {
  if (o->enc() == kEncListpack) {
    HashForEach(o, fn);
    return 0;
  }
  return Table(o)->Scan(cursor, [&](HashNode* n) { fn(n->field(), n->value()); });
}

void HashRandom(Obj* o, std::string* field, std::string* value) {
  if (o->enc() == kEncListpack) {
    uint8_t* lp = Lp(o);
    size_t pairs = ds::lp::Length(lp) / 2;
    uint8_t* p = ds::lp::Seek(lp, static_cast<long>(2 * (ds::RandomU64() % pairs)));
    char b[24];
    field->assign(ds::lp::Get(p).View(b));
    value->assign(ds::lp::Get(ds::lp::Next(lp, p)).View(b));
    return;
  }
  HashNode* n = Table(o)->Random();
  field->assign(n->field());
  value->assign(n->value());
}

void RegisterHashType() { RegisterTypeOps(kHash, {FreeHash, DupHash, HashBytes}); }

bool HashTableStats(const Obj* o, int t, bool full, ds::HtStats* out) {
  return o->enc() == kEncHashtable && Table(o)->Stats(t, full, out);
}

}  // namespace db
