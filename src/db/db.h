// Databases: keys and their expires in tables per hash slot (cluster mode) or one pair
// (standalone), lookups with explicit expiry behaviour, and the active expiry cycle.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"
#include "ds/bucket_table.h"
#include "ds/hashtable.h"
#include "ds/ptr_set.h"

namespace db {

struct ObjTraits {
  static std::string_view Key(const Obj* o) { return o->key(); }
};
// Cache-line buckets of pointers, no link in the object (ds/bucket_table.h).
using KeyTable = ds::BucketTable<Obj, ObjTraits>;
static_assert(sizeof(KeyTable) == 48);  // cluster mode holds one a slot

// The keys of a table that have an expire, by address (8.4 bytes a key at 1M keys; a chained
// entry by key cost 24). Every change of an object's address (Db::Replace, Db::SetExpire)
// moves its entry.
using ExpireSet = ds::PtrSet<Obj>;

inline constexpr int kSlots = 16384;

// One hash slot's keys and the expires among them (standalone: the whole db's). A slot's
// tables move whole: slot migration takes them out of one Db and puts them into another
// (Db::TakeSlot, Db::PutSlot) in O(1), whatever the number of keys, and drops them the same
// way. Destroying one frees its objects.
struct SlotTables {
  KeyTable keys;
  ExpireSet expires;  // the objects of `keys` that have an expire
  SlotTables() = default;
  SlotTables(const SlotTables&) = delete;
  SlotTables& operator=(const SlotTables&) = delete;
  ~SlotTables();
};

// The slot cluster routing found for a command's keys, with a copy of the first of those keys:
// a lookup of a key equal to one of them takes the slot without hashing it again (routing
// hashed the same bytes). Any other key the command looks at (SCAN's, the WATCHed keys at
// EXEC, what a reload adds) may be in any slot and is hashed; Valkey 8's getKeySlot reuses the
// slot for every key. Copies, not views into argv: EXEC's queue may be freed before EXEC
// returns, and a copy also matches the object's own key (Add, Replace) with a short memcmp.
class RoutedKeys {
 public:
  static constexpr int kMax = 4;
  static constexpr size_t kMaxBytes = 1024;  // longer keys are hashed at each lookup

  void Clear() {
    slot_ = -1;
    n_ = 0;
  }
  // `keys` all hash to `slot` (-1: no key).
  void Set(int slot, std::span<const std::string_view> keys);
  int slot() const { return slot_; }
  bool Holds(std::string_view key) const {
    uint32_t begin = 0;
    for (int i = 0; i < n_; begin = end_[i++])
      if (end_[i] - begin == key.size() &&
          memcmp(bytes_.data() + begin, key.data(), key.size()) == 0)
        return true;
    return false;
  }

 private:
  int slot_ = -1;
  int n_ = 0;
  uint32_t end_[kMax] = {};  // where each key ends in bytes_
  std::string bytes_;
};

// Process-wide keyspace environment set by the server layer (the narrow interface down).
struct Env {
  int64_t now_ms = 0;         // the command's clock: fixed for a command / transaction
  bool replica = false;       // replicas hide expired keys but never delete them on their own
  // applying the primary's stream, or the AOF at load (its client counts as the primary), or
  // an import's stream: expired keys are still there, and an expire in the past is kept, not
  // applied, as Valkey 8 expires nothing while it loads
  bool from_primary = false;
  // Whether an expire already in the past deletes the key now (not on replicas, not while
  // applying a stream of writes: see from_primary).
  bool ExpiresAtOnce() const { return !replica && !from_primary; }
  // Writes are paused (CLIENT PAUSE, manual failover): expired keys are hidden, not deleted,
  // so that nothing reaches the replication stream.
  bool keep_expired = false;
  bool cluster = false;       // db 0 split per slot
  // The running command's keys and their slot as routing found them (cluster mode), set by
  // the server around each command; nullptr: every key is hashed.
  const RoutedKeys* routed = nullptr;
  bool lfu = false;  // maxmemory-policy is an LFU one: objects count accesses
  int lfu_log_factor = 10;
  int lfu_decay_time = 1;
  // Called when a key is deleted because it expired (propagation, notifications, stats).
  void (*on_expired)(int dbid, std::string_view key) = nullptr;
  // Frees an expired key's object (lazyfree-lazy-expire: big ones off the loop).
  void (*free_expired)(Obj* o) = FreeObj;
  // Frees a value the server itself deletes or replaces (Db::Replace: SET over a sorted set, a
  // STORE into an existing key; Db::DeleteByServer: RENAME or RESTORE over one, MIGRATE's moved
  // keys; lazyfree-lazy-server-del: big ones off the loop).
  void (*free_server_del)(Obj* o) = FreeObj;
  // Called when Add creates a key (the "new" keyspace notification).
  void (*on_new)(int dbid, std::string_view key) = nullptr;
  // A replica runs a write command of one of its own clients (replica-read-only no), not its
  // primary's: an expired key it looks up is deleted (as Valkey's lookups for writing force,
  // else the write would add the key again beside the hidden one), and a key given an expire
  // is reported to on_local_expire, as the replica expires such keys itself (Valkey's
  // replicaKeysWithExpire).
  bool local_write = false;
  void (*on_local_expire)(int dbid, std::string_view key) = nullptr;
};
// Constant-initialised (no constructor runs), so it is ready before any other static's
// initialisation, and read inline: it is consulted several times a command.
inline constinit Env g_env;
inline Env& GetEnv() { return g_env; }

class Db {
 public:
  Db(int id, bool per_slot);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int id() const { return id_; }
  size_t Size() const { return size_; }
  size_t ExpiresSize() const { return volatile_; }
  bool per_slot() const { return slots_.size() > 1; }

  // Raw access, no expiry check.
  Obj* Find(std::string_view key);
  // Lookup honouring expiry: an expired key is deleted (primary) or hidden (replica).
  Obj* Lookup(std::string_view key);
  bool IsExpired(const Obj* o) const;

  // Adds an object whose key is absent.
  void Add(Obj* o);
  // Replaces `old` (same key) by `nw`, keeping the expires table in step; frees old (by
  // Env::free_server_del) unless keep_old. Returns nw. The key keeps its LRU/LFU field: a
  // new value is not a new key (Valkey 8's dbSetValue; a key deleted and added anew, as by
  // RENAME or RESTORE REPLACE, starts afresh).
  Obj* Replace(Obj* old, Obj* nw, bool keep_old = false);
  // Sets (or with -1 removes) the expire of a present object; returns its new address.
  Obj* SetExpire(Obj* o, int64_t when);
  // Removes and frees; false if absent.
  bool Delete(std::string_view key);
  // As Delete, for a key removed because it expired (freed by Env::free_expired), and for one
  // the server removes itself (freed by Env::free_server_del).
  bool DeleteExpired(std::string_view key) { return DeleteFreeingBy(key, GetEnv().free_expired); }
  bool DeleteByServer(std::string_view key) {
    return DeleteFreeingBy(key, GetEnv().free_server_del);
  }
  // Removes and returns (caller owns); nullptr if absent.
  Obj* Unlink(std::string_view key);
  // Removes everything.
  void Clear();
  // Removes everything and hands it over (to be freed elsewhere): the tables that held keys.
  std::vector<std::unique_ptr<SlotTables>> TakeAll();
  void Swap(Db& other);

  Obj* RandomKey();  // may return an expired key; caller checks
  Obj* RandomVolatileKey();  // a random key with an expire (volatile-* eviction), or nullptr
  // Keyspace scan; cursor layout: (table cursor << 14) | slot in cluster mode.
  uint64_t Scan(uint64_t cursor, const std::function<void(Obj*)>& fn);
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (auto& t : slots_)
      if (t) t->keys.ForEach(fn);
  }

  size_t CountInSlot(int slot) const;
  // One slot's keys, as Scan walks them (cursor 0 starts, 0 returned when done): every key
  // there for the whole walk is seen at least once.
  uint64_t ScanSlot(int slot, uint64_t cursor, const std::function<void(Obj*)>& fn);
  // As ScanSlot, up to `buckets` buckets at once, their heads loaded ahead of the visits
  // (HashTable::ScanBatch): a walk of a whole slot (atomic migration) waits less on memory.
  template <typename Fn>
  uint64_t ScanSlotBatch(int slot, uint64_t cursor, int buckets, Fn&& fn) {
    SlotTables* t = slots_[per_slot() ? slot : 0].get();
    return t ? t->keys.ScanBatch(cursor, buckets, fn) : 0;
  }
  // Sizes a slot's key table for `keys` keys ahead of a bulk load (atomic migration's
  // staging), so that it does not grow, and rehash every key, several times on the way.
  void ReserveSlot(int slot, size_t keys) { TablesAt(slot, true)->keys.Reserve(keys); }
  // Loads the bucket of key's table ahead of its lookup or insert (a batch of keys).
  void PrefetchKey(std::string_view key) const {
    if (const SlotTables* t = TablesOf(key)) t->keys.Prefetch(key);
  }
  // Before both, in cluster mode: the slot's tables (PrefetchKey reads them to find the bucket).
  void PrefetchKeySlot(std::string_view key) const {
    if (per_slot()) __builtin_prefetch(TablesOf(key));
  }
  // Then its object (the bucket read now, loaded by PrefetchKey earlier).
  void PrefetchKeyObject(std::string_view key) const {
    if (const SlotTables* t = TablesOf(key)) t->keys.PrefetchNodes(key);
  }
  // A slot's keys and expires, out of this db whole (nullptr if it has none), and into it
  // (where the slot has none). O(1) in the number of keys; per_slot dbs only.
  std::unique_ptr<SlotTables> TakeSlot(int slot);
  void PutSlot(int slot, std::unique_ptr<SlotTables> t);
  // Up to `count` keys of a slot.
  void KeysInSlot(int slot, size_t count, std::vector<std::string_view>* out);
  uint64_t avg_ttl = 0;  // estimate maintained by active expiry (INFO keyspace)
  // Active expiry: works on this db until `deadline_us` (monotonic) or until few keys are
  // found expired. Returns the number of keys expired; adds the keys looked at to *sampled.
  size_t ActiveExpire(int64_t deadline_us, int64_t now_ms, size_t* sampled);
  // Figures of the key (or expire) tables' bucket arrays t, the per-slot tables of cluster
  // mode summed as Valkey 8 sums its per-slot dicts; empty tables are left out, and
  // false means none is left (t 1: none is rehashing).
  bool TableStats(bool expires, int t, bool full, ds::HtStats* out) const;
  // Incremental rehash work for idle tables, until `deadline_us` (monotonic); false when time
  // ran out first. Bounded by time, as Valkey 8's databasesCron: cluster mode can have a
  // thousand slot tables half rehashed after a bulk load.
  bool RehashSome(int64_t deadline_us);
  // What the tables cost beyond the objects' data (MEMORY STATS, INFO memory), as Valkey 8
  // splits it: bucket arrays, per-key headers and expire entries; `tables` 0 when none exists.
  struct Overhead {
    size_t tables = 0;
    uint64_t main_bytes = 0, expires_bytes = 0;
    uint64_t bucket_bytes = 0;     // every bucket array (Valkey's hashtable "lut")
    uint64_t rehashing_bytes = 0;  // the arrays being emptied by a rehash
    uint64_t rehashing_tables = 0;
  };
  Overhead TablesOverhead() const;

 private:
  SlotTables* TablesAt(int slot, bool create);
  // The tables that hold (or would hold) key, nullptr when its slot has none.
  const SlotTables* TablesOf(std::string_view key) const {
    return slots_[per_slot() ? SlotOf(key) : 0].get();
  }
  int SlotOf(std::string_view key) const;
  // Per-slot counts of keys and of keys with an expire, as Fenwick trees (cluster mode):
  // RandomKey and RandomVolatileKey weigh slots by them.
  static void FenwickAdd(std::vector<int64_t>* f, int slot, int64_t delta);
  static int FenwickFind(const std::vector<int64_t>& f, int64_t nth);
  // First slot >= from with keys (with expires), or -1.
  int NextNonEmptySlot(int from) const;
  int NextVolatileSlot(int from) const;
  // Active expiry's walk over the expires, slot after slot (cursor as Scan's).
  uint64_t ScanExpires(uint64_t cursor, const std::function<void(Obj*)>& fn);
  void RemoveExpireEntry(SlotTables* t, int slot, Obj* o);
  bool DeleteFreeingBy(std::string_view key, void (*free_fn)(Obj*));
  void AddExpireEntry(SlotTables* t, int slot, Obj* o);
  void UpdateExpireEntry(SlotTables* t, Obj* old, Obj* nw);
  void NoteLocalExpire(const Obj* o);

  int id_;
  size_t size_ = 0;
  size_t volatile_ = 0;  // keys with an expire
  std::vector<std::unique_ptr<SlotTables>> slots_;
  std::vector<int64_t> fenwick_, volatile_fenwick_;
  uint64_t expire_cursor_ = 0;  // (table cursor << 14) | slot, as Scan's
};

}  // namespace db
