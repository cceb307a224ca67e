// Eviction (Valkey's algorithm, its facts and its limits): keys are sampled
// (maxmemory-samples per database per round) into a pool of the 16 best candidates kept across
// calls, best = longest idle (LRU), least used (LFU) or nearest expire (TTL); the random
// policies take one random key per round, databases in turn. Memory is measured before and
// after each deletion until what was over the limit is freed.
#include "server/evict.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "base/log.h"
#include "base/time.h"
#include "db/db.h"
#include "server/aof.h"
#include "server/client.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/notify.h"
#include "server/observe.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/write_out.h"

namespace server {

namespace {

constexpr int kPoolSize = 16;

struct Candidate {
  uint64_t idle = 0;  // larger is a better victim
  std::string key;
  int dbid = -1;  // -1: empty slot
};
// Sorted by idle, ascending: the best candidate is the rightmost non-empty one.
Candidate g_pool[kPoolSize];

bool g_running = false;               // an eviction cut short by the time limit goes on
int64_t g_exceeded_since_us = 0;      // over the limit since (monotonic), 0: not over
int64_t g_total_exceeded_us = 0;

MaxmemoryPolicy Policy() { return static_cast<MaxmemoryPolicy>(cfg.maxmemory_policy); }
bool AllKeys() { return Policy() >= kAllkeysLru && Policy() <= kAllkeysRandom; }

// How long one round may run: maxmemory-eviction-tenacity 10 (default) gives 500 us; each
// step above 10 multiplies by 1.15; 100 means no limit.
int64_t TimeLimitUs() {
  int64_t t = cfg.maxmemory_eviction_tenacity;
  if (t <= 10) return 50 * t;
  if (t < 100) return static_cast<int64_t>(500.0 * std::pow(1.15, static_cast<double>(t - 10)));
  return INT64_MAX;
}

uint64_t IdleScore(const db::Obj* o) {
  switch (Policy()) {
    case kVolatileLru:
    case kAllkeysLru: {
      uint32_t now = db::LruClock(), lru = o->lru();
      uint64_t sec = now >= lru ? now - lru : (db::kLruMax - lru) + now;
      return sec * 1000;
    }
    case kVolatileLfu:
    case kAllkeysLfu:
      return 255 - db::LfuCounter(o);
    case kVolatileTtl:
      return UINT64_MAX - static_cast<uint64_t>(o->expire());
    default:
      return 0;
  }
}

void PoolInsert(uint64_t idle, std::string_view key, int dbid) {
  int k = 0;
  while (k < kPoolSize && g_pool[k].dbid >= 0 && g_pool[k].idle < idle) k++;
  if (k == 0 && g_pool[kPoolSize - 1].dbid >= 0) return;  // worse than all, and no room
  if (k < kPoolSize && g_pool[k].dbid < 0) {
    // an empty slot: nothing to move
  } else if (g_pool[kPoolSize - 1].dbid < 0) {
    for (int i = kPoolSize - 1; i > k; i--) g_pool[i] = std::move(g_pool[i - 1]);
  } else {
    k--;  // full: drop the worst (leftmost) to make room left of k
    for (int i = 0; i < k; i++) g_pool[i] = std::move(g_pool[i + 1]);
  }
  g_pool[k].idle = idle;
  g_pool[k].key.assign(key);
  g_pool[k].dbid = dbid;
}

void PoolPopulate(int dbid, db::Db* d) {
  bool all = AllKeys();
  for (int64_t i = 0; i < cfg.maxmemory_samples; i++) {
    db::Obj* o = all ? d->RandomKey() : d->RandomVolatileKey();
    if (!o) return;
    PoolInsert(IdleScore(o), o->key(), dbid);
  }
}

// The next victim: its db and key, or false when there is nothing to evict.
bool PickVictim(int* dbid, std::string* key) {
  static int next_db = 0;
  bool all = AllKeys();
  if (Policy() == kAllkeysRandom || Policy() == kVolatileRandom) {
    for (int i = 0; i < NumDbs(); i++) {
      int j = (++next_db) % NumDbs();
      db::Db* d = GetDb(j);
      db::Obj* o = all ? d->RandomKey() : d->RandomVolatileKey();
      if (o) {
        *dbid = j;
        key->assign(o->key());
        return true;
      }
    }
    return false;
  }
  while (true) {
    size_t total = 0;
    for (int i = 0; i < NumDbs(); i++) {
      db::Db* d = GetDb(i);
      size_t n = all ? d->Size() : d->ExpiresSize();
      if (n) PoolPopulate(i, d);
      total += n;
    }
    if (total == 0) return false;
    for (int k = kPoolSize - 1; k >= 0; k--) {
      if (g_pool[k].dbid < 0) continue;
      int id = g_pool[k].dbid;
      std::string cand = std::move(g_pool[k].key);
      g_pool[k].dbid = -1;
      g_pool[k].key.clear();
      if (id >= NumDbs()) continue;
      db::Obj* o = GetDb(id)->Find(cand);
      // A candidate deleted (or, for volatile policies, persisted) since it was sampled.
      if (!o || (!all && o->expire() < 0)) continue;
      *dbid = id;
      *key = std::move(cand);
      return true;
    }
  }
}

// Returns what the deletion itself gave back. The invalidations sent to tracking clients, the
// stream's DEL and the notification take memory too, but counted, they could exceed what a key
// frees (a long key name to 10 tracking clients), and each eviction would call for another
// until the data set was gone (Valkey 8 measures the deletion alone, for that reason).
uint64_t EvictKey(int dbid, const std::string& key) {
  uint64_t before = UsedMemory();
  GetDb(dbid)->Delete(key);
  uint64_t after = UsedMemory();
  g.stats.evicted_keys++;
  KeyModified(dbid, key);
  std::vector<std::string_view> del{cfg.lazyfree_lazy_eviction ? "UNLINK" : "DEL", key};
  WriteOut(dbid, del);
  Notify(kNotifyEvicted, "evicted", key, dbid);
  return before > after ? before - after : 0;
}

// By how much `used` bytes of memory would be over maxmemory, once what is not counted is left
// out; 0 when within it.
uint64_t ExcessOver(uint64_t used) {
  uint64_t limit = static_cast<uint64_t>(cfg.maxmemory);
  if (used <= limit) return 0;
  uint64_t not_counted = MemoryNotCountedForEvict();
  used = used > not_counted ? used - not_counted : 0;
  return used > limit ? used - limit : 0;
}

// Over the limit by *to_free bytes (after what is not counted): false. Else true.
bool UnderLimit(uint64_t* to_free) {
  uint64_t over = ExcessOver(UsedMemory());
  if (over && to_free) *to_free = over;
  return over == 0;
}

bool SafeToEvict() {
  if (Repl().is_replica() && cfg.replica_ignore_maxmemory) return false;
  return !WritesPaused();  // CLIENT PAUSE WRITE and a failover's pause hold evictions too
}

void UpdateMetrics(EvictResult r) {
  if (r != EvictResult::kOk) {
    if (g_exceeded_since_us == 0) g_exceeded_since_us = base::MonotonicUs();
  } else if (g_exceeded_since_us != 0) {
    g_total_exceeded_us += base::MonotonicUs() - g_exceeded_since_us;
    g_exceeded_since_us = 0;
  }
}

}  // namespace

bool MaxmemoryPolicyIsLfu() { return Policy() == kVolatileLfu || Policy() == kAllkeysLfu; }

uint64_t MemoryNotCountedForEvict() {
  uint64_t n = 0;
  // Replicas' output, as Valkey 8's freeMemoryGetNotCountedMemory: what a slow replica is owed
  // must not evict data (its size as allocated: capacity alone missed jemalloc's rounding).
  // The replication buffer beyond the backlog's size is theirs (the backlog's part counts, as
  // it stays that size); each block's header is allowed for in the backlog's part.
  // And input the io_uring path received ahead of its turn (a client's stash, client.cc): on
  // epoll, as in Valkey 8, it waits in the socket, outside used_memory. A client pipelining
  // 450 KB of SETs made evictions of up to 300 KB more than its keys needed.
  for (Client* c : g.clients) {
    if (c->flags & kReplica) n += c->conn.OutputHeapBytes();
    if (c->StashPending()) n += c->in_stash.capacity();
  }
  uint64_t buffers = Repl().repl_buffer_bytes();
  uint64_t backlog = static_cast<uint64_t>(cfg.repl_backlog_size);
  backlog += (backlog / (16 * 1024) + 1) * 64;
  if (buffers > backlog) n += buffers - backlog;
  return n;
}

bool TableGrowthAllowed(size_t more_bytes) {
  return !cfg.maxmemory || ExcessOver(UsedMemory() + more_bytes) == 0;
}

EvictResult PerformEvictions() {
  if (!cfg.maxmemory) {
    // No limit, nothing exceeded (Valkey 8 keeps counting current_eviction_exceeded_time
    // after maxmemory is set back to 0).
    g_running = false;
    UpdateMetrics(EvictResult::kOk);
    return EvictResult::kOk;
  }
  if (!SafeToEvict()) return EvictResult::kOk;
  uint64_t to_free = 0;
  EvictResult result = EvictResult::kFail;
  if (UnderLimit(&to_free)) {
    g_running = false;
    UpdateMetrics(EvictResult::kOk);
    return EvictResult::kOk;
  }
  if (Policy() != kNoEviction) {
    CallClockChain::Break();  // the next command is timed from after the evictions
    int64_t start = base::MonotonicUs(), limit = TimeLimitUs();
    uint64_t freed = 0, keys = 0;
    bool cut = false;
    while (freed < to_free) {
      int dbid;
      std::string key;
      if (!PickVictim(&dbid, &key)) break;
      freed += EvictKey(dbid, key);
      if (++keys % 16 == 0 && base::MonotonicUs() - start > limit) {
        cut = true;
        break;
      }
    }
    if (freed >= to_free) {
      result = EvictResult::kOk;
    } else if (cut) {
      result = EvictResult::kRunning;
    }
    g_running = cut;
    LatencyAddSampleIfNeeded("eviction-cycle", (base::MonotonicUs() - start) / 1000);
  }
  UpdateMetrics(result);
  return result;
}

void StartEviction() { g_running = true; }

void EvictionBeforeSleep() {
  if (!g_running) return;
  if (PerformEvictions() == EvictResult::kRunning) g.loop->SetMaxWaitMs(0);
}

size_t ClientEvictionLimit() {
  int64_t limit = cfg.maxmemory_clients;
  if (limit < 0) limit = cfg.maxmemory * -limit / 100;  // a percentage of maxmemory
  // Never so small that no client could talk to the node (Valkey's floor).
  if (limit > 0 && limit < 128 * 1024) limit = 128 * 1024;
  return static_cast<size_t>(limit);
}

void EvictClients() {
  size_t limit = ClientEvictionLimit();
  if (limit == 0) return;
  // Normal and pub/sub clients count (replicas and the primary link do not); a CLIENT
  // NO-EVICT client counts but is never closed, as in Valkey.
  std::vector<std::pair<size_t, Client*>> evictable;
  size_t total = 0;
  for (Client* c : g.clients) {
    if (c->flags & (kReplica | kPrimary | kCloseAsap)) continue;
    size_t m = ClientMemory(c);
    total += m;
    if (!(c->flags & kNoEvict)) evictable.emplace_back(m, c);
  }
  if (total < limit) return;
  // The largest first (Valkey takes them from its largest memory bucket).
  std::sort(evictable.begin(), evictable.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [m, c] : evictable) {
    if (total < limit) return;
    LOG_NOTICE("Evicting client: %s", ClientInfoLine(c, cfg.hide_user_data_from_log).c_str());
    total -= m;
    g.stats.evicted_clients++;
    FreeClient(c);
  }
  if (total >= limit) LOG_WARNING("Over client maxmemory after evicting all evictable clients");
}

void AppendEvictionStats(std::string* s) {
  int64_t now = base::MonotonicUs();
  int64_t current = g_exceeded_since_us ? now - g_exceeded_since_us : 0;
  *s += "total_eviction_exceeded_time:" + std::to_string((g_total_exceeded_us + current) / 1000) +
        "\r\n";
  *s += "current_eviction_exceeded_time:" + std::to_string(current / 1000) + "\r\n";
}

}  // namespace server
