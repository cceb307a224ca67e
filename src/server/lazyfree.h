// Freeing big values and whole databases on a thread of their own, as Valkey's lazyfree: an
// UNLINK (a DEL with lazyfree-lazy-user-del, a FLUSHALL ASYNC or one with
// lazyfree-lazy-user-flush) of a sorted set of 5M members took the loop 0.3 s to free.
// The objects given away are out of every db and reachable from nowhere else; freeing them
// touches only the allocator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "db/db.h"

namespace server {

// Valkey's LAZYFREE_THRESHOLD: values cheaper to free than this many allocations are freed in
// place (handing them over would cost more).
inline constexpr size_t kLazyFreeThreshold = 64;

// What freeing o costs, in allocations, as Valkey's lazyfreeGetFreeEffort counts them: the
// elements of a table or skiplist, a list's nodes, a stream's nodes and consumer groups'
// entries; 1 for a string and any compact encoding.
size_t FreeEffort(const db::Obj* o);

// Frees o (out of every db): on the lazy-free thread when its effort passes the threshold,
// else here.
void FreeObjLazily(db::Obj* o);
// Frees a db's tables (Db::TakeAll) on the lazy-free thread; `keys` of them count as pending.
void FreeTablesLazily(std::vector<std::unique_ptr<db::SlotTables>> tables, size_t keys);
// Empties d: its keys freed on the lazy-free thread when `lazy`, else here.
void EmptyDb(db::Db* d, bool lazy);
// FLUSHALL's, FLUSHDB's and CLUSTER FLUSHSLOT's mode: `arg` SYNC (freed in place) or ASYNC (on
// the lazy-free thread), any case; without one (nullptr), `dflt` (lazyfree-lazy-user-flush).
// False for any other argument.
bool FlushModeLazy(const std::string_view* arg, bool dflt, bool* lazy);

// INFO: objects (keys, for tables) queued and not freed yet; freed so far (CONFIG RESETSTAT
// zeroes it).
size_t LazyFreePending();
uint64_t LazyFreedObjects();
void LazyFreeResetStats();

// Bytes the lazy-free thread freed less those it allocated (jemalloc's per-thread totals): the
// serving thread's used memory counts what it allocated and this thread freed.
int64_t LazyFreeNetFreedBytes();

}  // namespace server
