// Set values: intset (all integers), listpack (few small members), seeded hash table.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"
#include "db/varint.h"
#include "ds/hashtable.h"

namespace db {

struct SetNode {
  SetNode* next;
  char data[];  // varint length, member bytes
  std::string_view member() const {
    size_t len;
    const char* p = GetVarint(data, &len);
    return {p, len};
  }
};
struct SetNodeTraits {
  static SetNode** NextLink(SetNode* n) { return &n->next; }
  static std::string_view Key(const SetNode* n) { return n->member(); }
};
using SetTableT = ds::HashTable<SetNode, SetNodeTraits>;

struct SetLimits {
  size_t max_intset_entries = 512;
  size_t max_listpack_entries = 128;
  size_t max_listpack_value = 64;
};
SetLimits& GetSetLimits();

// A new empty set whose encoding suits a first member like `hint` (intset for integers).
Obj* NewSet(std::string_view key, std::string_view hint, size_t size_hint = 1);
size_t SetLen(const Obj* o);
bool SetAdd(Obj* o, std::string_view member);
// Fills a new, empty set with a decoded value's members, which are distinct (decoders refuse
// duplicates): a small set is packed in one pass instead of one search per member.
void SetLoad(Obj* o, const std::vector<std::string>& members);
// The same from views (a snapshot's listpack read in place).
void SetLoad(Obj* o, const std::vector<std::string_view>& members);
bool SetRemove(Obj* o, std::string_view member);
bool SetContains(Obj* o, std::string_view member);
void SetForEach(Obj* o, const std::function<void(std::string_view)>& fn);
uint64_t SetScan(Obj* o, uint64_t cursor, const std::function<void(std::string_view)>& fn);
std::string SetRandom(Obj* o);
// Removes and returns a random member.
std::string SetPop(Obj* o);
// Converts to the hashtable encoding when a hint of `expected` members passes the compact
// encoding's limit (members the set already holds are not added to it, as in Valkey 8).
void SetReserve(Obj* o, size_t expected);
// The same, and the table sized for `n` members at once.
void SetReserveMembers(Obj* o, size_t n);
// Turns a set whose members are all integers back into an intset when it fits (SINTERSTORE...).
void SetMaybeToIntset(Obj* o);
void RegisterSetType();
// As HashTableStats, for a hashtable-encoded set.
bool SetTableStats(const Obj* o, int t, bool full, ds::HtStats* out);

}  // namespace db
