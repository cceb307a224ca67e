// Where the used memory goes, for INFO memory and MEMORY STATS: the overheads apart from the
// data set, split as Valkey 8's getMemoryOverheadData splits them (startup, replication, clients,
// cluster links, AOF buffer, per-db tables), and the allocator's own figures (active, resident,
// fragmentation) with the ratios Valkey 8 derives from them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace server {

struct AllocatorFigures {
  uint64_t allocated = 0, active = 0, resident = 0, muzzy = 0;
  uint64_t frag_smallbins = 0;  // free regions in the small-size slabs in use
};
// jemalloc's figures (zeros with another allocator).
AllocatorFigures ReadAllocatorFigures();
// jemalloc's own report (MEMORY MALLOC-STATS); empty with another allocator.
std::string AllocatorStatsText();
// Every arena's unused dirty pages go back to the system now (MEMORY PURGE, and after a
// synchronous flush, as Valkey 8's jemalloc_purge): without traffic jemalloc would keep them.
void PurgeAllocator();

struct MemoryReport {
  uint64_t total = 0, startup = 0, peak = 0;
  // The replication buffer, shared by the backlog and the replicas, split as Valkey 8 splits
  // it: up to repl-backlog-size is the backlog's, the rest the replicas' (with their own
  // output before the stream).
  uint64_t repl_buffers = 0;
  uint64_t repl_backlog = 0;
  uint64_t clients_replicas = 0;
  uint64_t clients_normal = 0;    // every other client
  uint64_t cluster_links = 0, aof_buffer = 0;
  struct DbOverhead {
    int id;
    uint64_t main, expires;
  };
  std::vector<DbOverhead> dbs;  // the dbs with tables
  uint64_t buckets = 0, rehashing = 0, rehashing_tables = 0;
  uint64_t overhead_total = 0, dataset = 0, keys = 0, bytes_per_key = 0;
  double dataset_perc = 0, peak_perc = 0;
  uint64_t rss = 0;
  AllocatorFigures alloc;
  // Valkey 8's ratios and differences: allocator (small-bin holes), allocator RSS (pages it
  // holds beyond active), RSS overhead (the process beyond the allocator), and the total.
  double allocator_frag = 0, allocator_rss = 0, rss_extra = 0, total_frag = 0;
  int64_t allocator_frag_bytes = 0, allocator_rss_bytes = 0, rss_extra_bytes = 0,
          total_frag_bytes = 0;
};
MemoryReport BuildMemoryReport();

// The process's resident set (bytes).
uint64_t RssBytes();

}  // namespace server
