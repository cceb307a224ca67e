// Hash values: listpack (field, value pairs) while small, a seeded hash table when large.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/object.h"
#include "db/varint.h"
#include "ds/hashtable.h"

namespace db {

struct HashNode {
  HashNode* next;
  char data[];  // varint field length, varint value length, field bytes, value bytes
  std::string_view field() const {
    size_t flen, vlen;
    const char* p = GetVarint(GetVarint(data, &flen), &vlen);
    return {p, flen};
  }
  std::string_view value() const {
    size_t flen, vlen;
    const char* p = GetVarint(GetVarint(data, &flen), &vlen);
    return {p + flen, vlen};
  }
};
struct HashNodeTraits {
  static HashNode** NextLink(HashNode* n) { return &n->next; }
  static std::string_view Key(const HashNode* n) { return n->field(); }
};
using HashTableT = ds::HashTable<HashNode, HashNodeTraits>;

// Conversion thresholds (hash-max-listpack-entries / -value).
struct HashLimits {
  size_t max_entries = 512;
  size_t max_value = 64;
};
HashLimits& GetHashLimits();

// Operations on the value of a hash object (o->type() == kHash). Functions that may change the
// encoding take the object by reference to the pointer held by the keyspace (the object itself
// is not reallocated; only its value pointer and encoding change).
Obj* NewHash(std::string_view key);
size_t HashLen(const Obj* o);
// Returns true and fills *val (rendered into buf for integers) when the field exists.
bool HashGet(Obj* o, std::string_view field, std::string* val);
bool HashExists(Obj* o, std::string_view field);
// Sets a field; returns true when the field is new.
bool HashSet(Obj* o, std::string_view field, std::string_view value);
// Fills a new, empty hash with a decoded value's pairs, whose fields are distinct: a small
// hash is packed in one pass instead of one search per field.
void HashLoad(Obj* o, const std::vector<std::pair<std::string, std::string>>& pairs);
// The same from views (a snapshot's listpack read in place).
void HashLoad(Obj* o, const std::vector<std::pair<std::string_view, std::string_view>>& pairs);
// Sizes the field table for `n` fields at once; converts a listpack that could not hold them.
void HashReserveFields(Obj* o, size_t n);
bool HashDelete(Obj* o, std::string_view field);
// Calls fn(field, value) for every pair.
void HashForEach(Obj* o, const std::function<void(std::string_view, std::string_view)>& fn);
// One step of HSCAN over the hashtable encoding (listpack: everything, returns 0).
uint64_t HashScan(Obj* o, uint64_t cursor,
                  const std::function<void(std::string_view, std::string_view)>& fn);
// Random pair (for HRANDFIELD).
void HashRandom(Obj* o, std::string* field, std::string* value);
void RegisterHashType();
// Figures of a hashtable-encoded hash's bucket array t (DEBUG HTSTATS-KEY); false for a
// listpack, or for t 1 when no rehash runs.
bool HashTableStats(const Obj* o, int t, bool full, ds::HtStats* out);
void SetObjEncoding(Obj* o, Enc e);

}  // namespace db
