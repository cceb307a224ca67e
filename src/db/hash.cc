// Hash values and their listpack -> hashtable conversion. The listpack encoding holds a ds::pack
// of stride 2: field, value pairs in insertion order, fields front-coded after fields and values
// after values.
#include "db/hash.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ds/pack.h"

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
uint8_t* Pk(const Obj* o) { return static_cast<uint8_t*>(o->ptr()); }

// `reserve`: fields the table is sized for, if more than it holds.
void ToHashtable(Obj* o, size_t reserve = 0) {
  auto* t = new HashTableT();
  uint8_t* pk = Pk(o);
  t->Reserve(std::max<size_t>(ds::pack::Length(pk) / 2, reserve));
  ds::pack::Reader r(pk, 2);
  while (r.Next() && r.Next()) t->Insert(NewNode(r.Column(0), r.Text()));
  ds::pack::Free(pk);
  o->set_ptr(t);
  SetObjEncoding(o, kEncHashtable);
}

void FreeHash(void* ptr, Enc e) {
  if (e == kEncListpack) {
    ds::pack::Free(static_cast<uint8_t*>(ptr));
  } else {
    auto* t = static_cast<HashTableT*>(ptr);
    t->Clear([](HashNode* n) { free(n); });
    delete t;
  }
}

void* DupHash(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::pack::Dup(static_cast<const uint8_t*>(ptr));
  auto* src = static_cast<HashTableT*>(const_cast<void*>(ptr));
  auto* t = new HashTableT();
  t->Reserve(src->Size());
  src->ForEach([&](HashNode* n) { t->Insert(NewNode(n->field(), n->value())); });
  return t;
}

size_t HashBytes(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::pack::Bytes(static_cast<const uint8_t*>(ptr));
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

Obj* NewHash(std::string_view key) {
  return NewContainer(key, kHash, kEncListpack, ds::pack::New());
}

size_t HashLen(const Obj* o) {
  if (o->enc() == kEncListpack) return ds::pack::Length(Pk(o)) / 2;
  return Table(o)->Size();
}

bool HashGet(Obj* o, std::string_view field, std::string* val) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    if (!r.Find(field) || !r.Next()) return false;
    val->assign(r.Text());
    return true;
  }
  HashNode* n = Table(o)->Find(field);
  if (!n) return false;
  val->assign(n->value());
  return true;
}

bool HashExists(Obj* o, std::string_view field) {
  if (o->enc() == kEncListpack) return ds::pack::Reader(Pk(o), 2).Find(field);
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
  if (o->enc() == kEncListpack &&
      (field.size() > lim.max_value || value.size() > lim.max_value ||
       !ds::pack::SafeToAdd(Pk(o), field.size() + value.size() + 32)))
    ToHashtable(o);
  if (o->enc() == kEncListpack) {
    uint8_t* pk = Pk(o);
    ds::pack::Reader r(pk, 2);
    if (r.Find(field)) {
      r.Next();
      if (r.Text() != value) o->set_ptr(ds::pack::Splice(pk, 2, r.Index(), 1, &value, 1));
      return false;
    }
    std::string_view pair[2] = {field, value};
    pk = ds::pack::Append(pk, 2, pair, 2);
    o->set_ptr(pk);
    if (ds::pack::Length(pk) / 2 > lim.max_entries) ToHashtable(o);
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

namespace {

template <typename Pairs>
void LoadPairs(Obj* o, const Pairs& pairs) {
  const HashLimits& lim = GetHashLimits();
  HashReserveFields(o, pairs.size());
  if (o->enc() == kEncListpack && HashLen(o) == 0 && !pairs.empty()) {
    bool fits = true;
    size_t bytes = 0;
    for (const auto& [f, v] : pairs) {
      fits = fits && f.size() <= lim.max_value && v.size() <= lim.max_value;
      bytes += f.size() + v.size() + 32;
    }
    if (fits && bytes < ds::pack::kSafeSize) {
      ds::pack::Builder b(2, bytes);
      for (const auto& [f, v] : pairs) {
        b.Add(f);
        b.Add(v);
      }
      ds::pack::Free(Pk(o));
      o->set_ptr(b.Finish());
      return;
    }
  }
  for (const auto& [f, v] : pairs) HashSet(o, f, v);
}

}  // namespace

void HashLoad(Obj* o, const std::vector<std::pair<std::string, std::string>>& pairs) {
  LoadPairs(o, pairs);
}

void HashLoad(Obj* o, const std::vector<std::pair<std::string_view, std::string_view>>& pairs) {
  LoadPairs(o, pairs);
}

bool HashDelete(Obj* o, std::string_view field) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    if (!r.Find(field)) return false;
    o->set_ptr(ds::pack::Splice(Pk(o), 2, r.Index(), 2, nullptr, 0));
    return true;
  }
  HashNode* n = Table(o)->Unlink(field);
  if (!n) return false;
  free(n);
  return true;
}

void HashForEach(Obj* o, const std::function<void(std::string_view, std::string_view)>& fn) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    while (r.Next() && r.Next()) fn(r.Column(0), r.Text());
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
    ds::pack::Reader r(Pk(o), 2);
    r.SeekTo(2 * (ds::RandomU64() % (ds::pack::Length(Pk(o)) / 2)) + 1);
    field->assign(r.Column(0));
    value->assign(r.Text());
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
