// See memory_report.h.
#include "server/memory_report.h"

#include <unistd.h>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include <cstdio>
#include <string>

#include "db/db.h"
#include "server/aof.h"
#include "server/client.h"
#include "server/cluster_hooks.h"
#include "server/config.h"
#include "server/repl_hooks.h"
#include "server/server.h"

namespace server {

namespace {

#ifdef USE_JEMALLOC
template <typename T>
T Ctl(const std::string& name) {
  T v{};
  size_t sz = sizeof(v);
  if (mallctl(name.c_str(), &v, &sz, nullptr, 0) != 0) return T{};
  return v;
}
#endif

}  // namespace

std::string AllocatorStatsText() {
  std::string text;
#ifdef USE_JEMALLOC
  malloc_stats_print([](void* out, const char* s) { static_cast<std::string*>(out)->append(s); },
                     &text, nullptr);
#endif
  return text;
}

void PurgeAllocator() {
#ifdef USE_JEMALLOC
  std::string all = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  mallctl(all.c_str(), nullptr, nullptr, nullptr, 0);
#endif
}

AllocatorFigures ReadAllocatorFigures() {
  AllocatorFigures f;
#ifdef USE_JEMALLOC
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);  // refresh the cached statistics
  f.allocated = Ctl<size_t>("stats.allocated");
  f.active = Ctl<size_t>("stats.active");
  f.resident = Ctl<size_t>("stats.resident");
  // All arenas merged (MALLCTL_ARENAS_ALL).
  const std::string all = "stats.arenas." + std::to_string(MALLCTL_ARENAS_ALL);
  f.muzzy = Ctl<size_t>(all + ".pmuzzy") * Ctl<size_t>("arenas.page");
  // The free regions of the small-size slabs in use: memory the allocator holds for sizes
  // nothing asks for now (external fragmentation), as Valkey 8 counts it.
  unsigned nbins = Ctl<unsigned>("arenas.nbins");
  for (unsigned j = 0; j < nbins; j++) {
    std::string bin = "arenas.bin." + std::to_string(j);
    std::string stats = all + ".bins." + std::to_string(j);
    uint64_t regs =
        static_cast<uint64_t>(Ctl<uint32_t>(bin + ".nregs")) * Ctl<size_t>(stats + ".curslabs");
    uint64_t used = Ctl<size_t>(stats + ".curregs");
    if (regs > used) f.frag_smallbins += (regs - used) * Ctl<size_t>(bin + ".size");
  }
#endif
  return f;
}

uint64_t RssBytes() {
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, rss = 0;
  if (fscanf(f, "%lu %lu", &size, &rss) != 2) rss = 0;
  fclose(f);
  return static_cast<uint64_t>(rss) * sysconf(_SC_PAGESIZE);
}

MemoryReport BuildMemoryReport() {
  MemoryReport m;
  m.total = UsedMemory();
  if (m.total > g.stat_peak_memory) g.stat_peak_memory = m.total;
  m.peak = g.stat_peak_memory;
  m.startup = g.initial_memory_usage;
  m.repl_buffers = Repl().repl_buffer_bytes();
  bool replicas = false;
  for (Client* c : g.clients) {
    if (c->flags & kReplica) {
      m.clients_replicas += c->conn.OutputHeapBytes();
      replicas = true;
    } else {
      m.clients_normal += ClientMemory(c);
    }
  }
  uint64_t backlog_size = static_cast<uint64_t>(cfg.repl_backlog_size);
  if (replicas && m.repl_buffers > backlog_size) {
    m.repl_backlog = backlog_size;
    m.clients_replicas += m.repl_buffers - backlog_size;
  } else {
    m.repl_backlog = m.repl_buffers;
  }
  m.cluster_links = Cluster().links_memory();
  m.aof_buffer = AofBufferBytes();
  uint64_t overhead = m.startup + m.repl_backlog + m.clients_replicas + m.clients_normal +
                      m.cluster_links + m.aof_buffer;
  for (int i = 0; i < NumDbs(); i++) {
    db::Db* d = GetDb(i);
    db::Db::Overhead o = d->TablesOverhead();
    m.keys += d->Size();
    m.buckets += o.bucket_bytes;
    m.rehashing += o.rehashing_bytes;
    m.rehashing_tables += o.rehashing_tables;
    if (o.tables == 0) continue;
    m.dbs.push_back({i, o.main_bytes, o.expires_bytes});
    overhead += o.main_bytes + o.expires_bytes;
  }
  m.overhead_total = overhead;
  m.dataset = m.total > overhead ? m.total - overhead : 0;
  m.peak_perc = m.peak ? m.total * 100.0 / m.peak : 0;
  uint64_t net = m.total > m.startup ? m.total - m.startup : 1;
  m.dataset_perc = m.dataset * 100.0 / net;
  m.bytes_per_key = m.keys ? m.dataset / m.keys : 0;

  m.rss = RssBytes();
  m.alloc = ReadAllocatorFigures();
  const AllocatorFigures& a = m.alloc;
  auto ratio = [](uint64_t x, uint64_t y) { return y ? static_cast<double>(x) / y : 0.0; };
  auto diff = [](uint64_t x, uint64_t y) {
    return static_cast<int64_t>(x) - static_cast<int64_t>(y);
  };
  m.allocator_frag = ratio(a.frag_smallbins, a.allocated) + 1;
  m.allocator_frag_bytes = static_cast<int64_t>(a.frag_smallbins);
  m.allocator_rss = ratio(a.resident, a.active);
  m.allocator_rss_bytes = diff(a.resident, a.active);
  m.rss_extra = ratio(m.rss, a.resident);
  m.rss_extra_bytes = diff(m.rss, a.resident);
  m.total_frag = ratio(m.rss, m.total);
  m.total_frag_bytes = diff(m.rss, m.total);
  return m;
}

}  // namespace server
