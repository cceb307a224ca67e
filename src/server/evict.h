// maxmemory: eviction of keys by maxmemory-policy, and the -OOM verdict of the execution gate.
#pragma once
#include <cstdint>
#include <string>

namespace server {

enum class EvictResult {
  kOk,       // under the limit (or no limit, or evictions do not apply here)
  kRunning,  // over the limit, evicting continues after the time limit cut this round short
  kFail,     // over the limit and nothing more can be evicted (noeviction, no candidates)
};

// The maxmemory-policy values, in the order of the config's enum.
enum MaxmemoryPolicy {
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoEviction,
};
bool MaxmemoryPolicyIsLfu();

// Evicts keys until the memory counted for eviction is at most maxmemory, or the time limit
// of maxmemory-eviction-tenacity is reached (then it goes on between event loop rounds).
// Each evicted key is propagated as UNLINK (lazyfree-lazy-eviction yes) or DEL, notified as
// "evicted" and counted in evicted_keys. A replica with replica-ignore-maxmemory yes never
// evicts (its primary's DELs arrive instead).
EvictResult PerformEvictions();
// Evicts from the next event loop round on (CONFIG SET maxmemory).
void StartEviction();
// Called before each sleep of the event loop: continues an eviction the time limit cut short.
void EvictionBeforeSleep();
// maxmemory-clients: closes the clients holding the most memory while normal and pub/sub
// clients together hold more than the limit (CLIENT NO-EVICT exempts one).
void EvictClients();
size_t ClientEvictionLimit();
// Memory not counted against maxmemory: the replicas' output buffers.
uint64_t MemoryNotCountedForEvict();
// Whether the keyspace's tables may take more_bytes for a bigger bucket array without going
// past maxmemory (Valkey 8's overMaxmemoryAfterAlloc); installed on db::KeyTable and
// db::ExpireSet at start.
bool TableGrowthAllowed(size_t more_bytes);
// INFO fields: stats (total/current_eviction_exceeded_time) and memory (mem_not_counted...).
void AppendEvictionStats(std::string* s);

}  // namespace server
