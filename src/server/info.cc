// INFO sections.
#include "server/info.h"

#include "server/acl.h"
#include "server/tracking.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <set>

#include "base/time.h"
#include "base/util.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/cluster_hooks.h"
#include "server/command.h"
#include "server/config.h"
#include "server/evict.h"
#include "server/lazyfree.h"
#include "server/loading.h"
#include "server/memory_report.h"
#include "server/persistence.h"
#include "server/pubsub.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/shutdown.h"
#include "server/slot_stats.h"
#include "server/version.h"

namespace server {
namespace {

void Line(std::string* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Line(std::string* s, const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  s->append(buf, std::min<int>(n, sizeof(buf) - 1));
  s->append("\r\n");
}

using ull = unsigned long long;
using ll = long long;

void SecServer(std::string* s) {
  struct utsname u;
  uname(&u);
  int64_t now = base::MsTime();
  int64_t up = (now - g.start_time_ms) / 1000;
  Line(s, "# Server");
  Line(s, "redis_version:%s", kRedisCompatVersion);
  Line(s, "server_name:%s", kServerName);
  Line(s, "valkey_version:%s", kValkeyVersion);
  Line(s, "redis_git_sha1:00000000");
  Line(s, "redis_git_dirty:0");
  Line(s, "redis_build_id:0");
  Line(s, "%s_mode:%s", cfg.extended_redis_compat ? "redis" : "server",
       cfg.cluster_enabled ? "cluster" : "standalone");
  Line(s, "os:%s %s %s", u.sysname, u.release, u.machine);
  Line(s, "arch_bits:64");
  Line(s, "monotonic_clock:POSIX clock_gettime");
  Line(s, "multiplexing_api:epoll");
  Line(s, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  Line(s, "process_id:%d", static_cast<int>(getpid()));
  Line(s, "process_supervised:no");
  Line(s, "run_id:%s", g.run_id.c_str());
  Line(s, "tcp_port:%lld", static_cast<long long>(cfg.port));
  Line(s, "server_time_usec:%lld", static_cast<ll>(base::UsTime()));
  Line(s, "uptime_in_seconds:%lld", static_cast<ll>(up));
  Line(s, "uptime_in_days:%lld", static_cast<ll>(up / 86400));
  Line(s, "hz:%lld", static_cast<ll>(cfg.hz));
  Line(s, "configured_hz:%lld", static_cast<ll>(cfg.hz));
  Line(s, "lru_clock:%u", db::LruClock());
  Line(s, "executable:%s", g.executable.c_str());
  Line(s, "config_file:%s", g.config_file.c_str());
  Line(s, "io_threads_active:0");
  Line(s, "availability_zone:");
  if (ShutdownInitiated())
    Line(s, "shutdown_in_milliseconds:%lld", static_cast<ll>(ShutdownInMs()));
  std::string listener = "listener0:name=tcp";
  for (auto& b : cfg.bind) listener += ",bind=" + b;
  listener += ",port=" + std::to_string(cfg.port);
  Line(s, "%s", listener.c_str());
  if (!cfg.unixsocket.empty()) Line(s, "listener1:name=unix,bind=%s", cfg.unixsocket.c_str());
}

void SecClients(std::string* s) {
  size_t max_in = 0, max_out = 0, paused = g.paused_clients.size();
  for (Client* c : g.clients) {
    max_in = std::max(max_in, c->conn.in.size());
    max_out = std::max(max_out, c->conn.PendingBytes());
  }
  Line(s, "# Clients");
  // As Valkey 8: replica links are not clients here (our primary's link is).
  size_t replicas = static_cast<size_t>(std::count_if(
      g.clients.begin(), g.clients.end(), [](Client* c) { return c->flags & kReplica; }));
  Line(s, "connected_clients:%zu", g.clients.size() - replicas);
  Line(s, "cluster_connections:%llu", static_cast<ull>(Cluster().connections()));
  Line(s, "maxclients:%lld", static_cast<ll>(cfg.maxclients));
  Line(s, "client_recent_max_input_buffer:%zu", max_in);
  Line(s, "client_recent_max_output_buffer:%zu", max_out);
  // Clients held by a pause (CLIENT PAUSE, a failover's, an atomic migration's handover) count
  // as blocked, as Valkey 8's postponed clients do.
  Line(s, "blocked_clients:%zu", BlockedClientCount() + g.paused_clients.size());
  Line(s, "tracking_clients:%zu", GetTrackingStats().clients);
  Line(s, "pubsub_clients:%zu", PubsubNumClients());
  Line(s, "watching_clients:%zu",
       static_cast<size_t>(std::count_if(g.clients.begin(), g.clients.end(),
                                         [](Client* c) { return !c->watched.empty(); })));
  Line(s, "clients_in_timeout_table:0");
  Line(s, "total_watched_keys:%zu", [] {
    size_t n = 0;
    for (Client* c : g.clients) n += c->watched.size();
    return n;
  }());
  Line(s, "total_blocking_keys:%zu", BlockingKeyCount());
  Line(s, "total_blocking_keys_on_nokey:%zu", BlockingKeyOnNoKeyCount());
  Line(s, "paused_clients:%zu", paused);
}

void SecMemory(std::string* s) {
  MemoryReport m = BuildMemoryReport();
  auto human = [](uint64_t n) { return base::BytesToHuman(n); };
  uint64_t system = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  Line(s, "# Memory");
  Line(s, "used_memory:%llu", static_cast<ull>(m.total));
  Line(s, "used_memory_human:%s", human(m.total).c_str());
  Line(s, "used_memory_rss:%llu", static_cast<ull>(m.rss));
  Line(s, "used_memory_rss_human:%s", human(m.rss).c_str());
  Line(s, "used_memory_peak:%llu", static_cast<ull>(m.peak));
  Line(s, "used_memory_peak_human:%s", human(m.peak).c_str());
  Line(s, "used_memory_peak_perc:%.2f%%", m.peak_perc);
  Line(s, "used_memory_overhead:%llu", static_cast<ull>(m.overhead_total));
  Line(s, "used_memory_startup:%llu", static_cast<ull>(m.startup));
  Line(s, "used_memory_dataset:%llu", static_cast<ull>(m.dataset));
  Line(s, "used_memory_dataset_perc:%.2f%%", m.dataset_perc);
  Line(s, "allocator_allocated:%llu", static_cast<ull>(m.alloc.allocated));
  Line(s, "allocator_active:%llu", static_cast<ull>(m.alloc.active));
  Line(s, "allocator_resident:%llu", static_cast<ull>(m.alloc.resident));
  Line(s, "allocator_muzzy:%llu", static_cast<ull>(m.alloc.muzzy));
  Line(s, "total_system_memory:%llu", static_cast<ull>(system));
  Line(s, "total_system_memory_human:%s", human(system).c_str());
  // No scripting engine: Valkey 8's script and function fields, all empty.
  for (const char* f : {"used_memory_lua", "used_memory_vm_eval"}) Line(s, "%s:0", f);
  Line(s, "used_memory_lua_human:0B");
  for (const char* f :
       {"used_memory_scripts_eval", "number_of_cached_scripts", "number_of_functions",
        "number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total"})
    Line(s, "%s:0", f);
  Line(s, "used_memory_vm_total_human:0B");
  Line(s, "used_memory_functions:0");
  Line(s, "used_memory_scripts:0");
  Line(s, "used_memory_scripts_human:0B");
  Line(s, "maxmemory:%lld", static_cast<ll>(cfg.maxmemory));
  Line(s, "maxmemory_human:%s", human(cfg.maxmemory).c_str());
  Line(s, "maxmemory_policy:%s", ConfigValue("maxmemory-policy").c_str());
  Line(s, "allocator_frag_ratio:%.2f", m.allocator_frag);
  Line(s, "allocator_frag_bytes:%lld", static_cast<ll>(m.allocator_frag_bytes));
  Line(s, "allocator_rss_ratio:%.2f", m.allocator_rss);
  Line(s, "allocator_rss_bytes:%lld", static_cast<ll>(m.allocator_rss_bytes));
  Line(s, "rss_overhead_ratio:%.2f", m.rss_extra);
  Line(s, "rss_overhead_bytes:%lld", static_cast<ll>(m.rss_extra_bytes));
  Line(s, "mem_fragmentation_ratio:%.2f", m.total_frag);
  Line(s, "mem_fragmentation_bytes:%lld", static_cast<ll>(m.total_frag_bytes));
  Line(s, "mem_not_counted_for_evict:%llu", static_cast<ull>(MemoryNotCountedForEvict()));
  Line(s, "mem_replication_backlog:%llu", static_cast<ull>(m.repl_backlog));
  Line(s, "mem_total_replication_buffers:%llu", static_cast<ull>(m.repl_buffers));
  Line(s, "mem_clients_slaves:%llu", static_cast<ull>(m.clients_replicas));
  Line(s, "mem_clients_normal:%llu", static_cast<ull>(m.clients_normal));
  Line(s, "mem_cluster_links:%llu", static_cast<ull>(m.cluster_links));
  Line(s, "mem_aof_buffer:%llu", static_cast<ull>(m.aof_buffer));
#ifdef USE_JEMALLOC
  // As Valkey prints it: jemalloc-<major>.<minor>.<bugfix> of the library built against.
  Line(s, "mem_allocator:jemalloc-%d.%d.%d", JEMALLOC_VERSION_MAJOR, JEMALLOC_VERSION_MINOR,
       JEMALLOC_VERSION_BUGFIX);
#else
  Line(s, "mem_allocator:libc");
#endif
  Line(s, "mem_overhead_db_hashtable_rehashing:%llu", static_cast<ull>(m.rehashing));
  Line(s, "active_defrag_running:0");
  Line(s, "lazyfree_pending_objects:%zu", LazyFreePending());
  Line(s, "lazyfreed_objects:%llu", static_cast<ull>(LazyFreedObjects()));
}

void SecPersistence(std::string* s) {
  AppendPersistenceInfo(s);
  AppendAofInfo(s);
  AppendLoadingInfo(s);
}

void SecStats(std::string* s) {
  auto& st = g.stats;
  Line(s, "# Stats");
  Line(s, "total_connections_received:%llu", static_cast<ull>(st.total_connections_received));
  Line(s, "total_commands_processed:%llu", static_cast<ull>(st.total_commands_processed));
  Line(s, "instantaneous_ops_per_sec:%lld", static_cast<ll>(st.ops.Mean()));
  // The totals count the replication links' bytes too, as Valkey 8's.
  Line(s, "total_net_input_bytes:%llu", static_cast<ull>(st.net_input_bytes + st.net_repl_input_bytes));
  Line(s, "total_net_output_bytes:%llu",
       static_cast<ull>(st.net_output_bytes + st.net_repl_output_bytes));
  Line(s, "total_net_repl_input_bytes:%llu", static_cast<ull>(st.net_repl_input_bytes));
  Line(s, "total_net_repl_output_bytes:%llu", static_cast<ull>(st.net_repl_output_bytes));
  Line(s, "instantaneous_input_kbps:%.2f", st.net_in.Mean() / 1024);
  Line(s, "instantaneous_output_kbps:%.2f", st.net_out.Mean() / 1024);
  Line(s, "instantaneous_input_repl_kbps:%.2f", st.net_repl_in.Mean() / 1024);
  Line(s, "instantaneous_output_repl_kbps:%.2f", st.net_repl_out.Mean() / 1024);
  Line(s, "rejected_connections:%llu", static_cast<ull>(st.rejected_connections));
  Line(s, "sync_full:%llu", static_cast<ull>(st.sync_full));
  Line(s, "sync_partial_ok:%llu", static_cast<ull>(st.sync_partial_ok));
  Line(s, "sync_partial_err:%llu", static_cast<ull>(st.sync_partial_err));
  Line(s, "expired_keys:%llu", static_cast<ull>(st.expired_keys));
  Line(s, "expired_stale_perc:%.2f", st.expired_stale_perc * 100);
  Line(s, "expired_time_cap_reached_count:0");
  Line(s, "expire_cycle_cpu_milliseconds:0");
  Line(s, "evicted_keys:%llu", static_cast<ull>(st.evicted_keys));
  Line(s, "evicted_clients:%llu", static_cast<ull>(st.evicted_clients));
  Line(s, "evicted_scripts:0");
  AppendEvictionStats(s);
  Line(s, "keyspace_hits:%llu", static_cast<ull>(st.keyspace_hits));
  Line(s, "keyspace_misses:%llu", static_cast<ull>(st.keyspace_misses));
  Line(s, "pubsub_channels:%zu", PubsubNumChannels());
  Line(s, "pubsub_patterns:%zu", PubsubNumPatterns());
  Line(s, "pubsubshard_channels:%zu", PubsubNumShardChannels());
  Line(s, "latest_fork_usec:%lld", static_cast<ll>(Persistence().latest_fork_usec));
  Line(s, "total_forks:%llu", static_cast<ull>(Persistence().total_forks));
  Line(s, "migrate_cached_sockets:%zu", MigrateCachedConnections());
  Line(s, "slave_expires_tracked_keys:0");
  Line(s, "active_defrag_hits:0");
  Line(s, "active_defrag_misses:0");
  Line(s, "active_defrag_key_hits:0");
  Line(s, "active_defrag_key_misses:0");
  Line(s, "total_active_defrag_time:0");
  Line(s, "current_active_defrag_time:0");
  TrackingStats ts = GetTrackingStats();
  Line(s, "tracking_total_keys:%zu", ts.keys);
  Line(s, "tracking_total_items:%zu", ts.items);
  Line(s, "tracking_total_prefixes:%zu", ts.prefixes);
  Line(s, "unexpected_error_replies:%llu", static_cast<ull>(st.unexpected_error_replies));
  Line(s, "total_error_replies:%llu", static_cast<ull>(st.total_error_replies));
  Line(s, "dump_payload_sanitizations:0");
  Line(s, "total_reads_processed:%llu", static_cast<ull>(st.io_reads));
  Line(s, "total_writes_processed:%llu", static_cast<ull>(st.io_writes));
  Line(s, "io_threaded_reads_processed:0");
  Line(s, "io_threaded_writes_processed:0");
  Line(s, "io_threaded_freed_objects:0");
  Line(s, "io_threaded_poll_processed:0");
  Line(s, "io_threaded_total_prefetch_batches:0");
  Line(s, "io_threaded_total_prefetch_entries:0");
  Line(s, "client_query_buffer_limit_disconnections:%llu",
       static_cast<ull>(st.client_qbuf_limit_disconnections));
  Line(s, "client_output_buffer_limit_disconnections:%llu",
       static_cast<ull>(st.client_outbuf_limit_disconnections));
  Line(s, "reply_buffer_shrinks:0");
  Line(s, "reply_buffer_expands:0");
  Line(s, "eventloop_cycles:%llu", static_cast<ull>(st.el_cycles_total));
  Line(s, "eventloop_duration_sum:%llu", static_cast<ull>(st.el_duration_sum));
  Line(s, "eventloop_duration_cmd_sum:%llu", static_cast<ull>(st.el_cmd_sum));
  Line(s, "instantaneous_eventloop_cycles_per_sec:%llu", static_cast<ull>(st.el_cycles.Mean()));
  Line(s, "instantaneous_eventloop_duration_usec:%llu", static_cast<ull>(st.el_duration.Mean()));
  const acl::DeniedStats& denied = acl::Denied();
  Line(s, "acl_access_denied_auth:%llu", static_cast<ull>(denied.auth));
  Line(s, "acl_access_denied_cmd:%llu", static_cast<ull>(denied.cmd));
  Line(s, "acl_access_denied_key:%llu", static_cast<ull>(denied.key));
  Line(s, "acl_access_denied_channel:%llu", static_cast<ull>(denied.channel));
}

void SecReplication(std::string* s) { Repl().append_info(s); }

void SecCpu(std::string* s) {
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  auto sec = [](const struct timeval& tv) { return tv.tv_sec + tv.tv_usec / 1000000.0; };
  Line(s, "# CPU");
  Line(s, "used_cpu_sys:%.6f", sec(self.ru_stime));
  Line(s, "used_cpu_user:%.6f", sec(self.ru_utime));
  Line(s, "used_cpu_sys_children:%.6f", sec(children.ru_stime));
  Line(s, "used_cpu_user_children:%.6f", sec(children.ru_utime));
  Line(s, "used_cpu_sys_main_thread:%.6f", sec(self.ru_stime));
  Line(s, "used_cpu_user_main_thread:%.6f", sec(self.ru_utime));
}

void OneCommandStats(std::string* s, const CommandSpec* c) {
  const auto& st = c->stats;
  if (st.calls || st.rejected || st.failed) {
    Line(s,
         "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,failed_calls=%llu",
         c->fullname.c_str(), static_cast<ull>(st.calls), static_cast<ull>(st.usec),
         st.calls ? static_cast<double>(st.usec) / st.calls : 0.0, static_cast<ull>(st.rejected),
         static_cast<ull>(st.failed));
  }
  for (auto& sub : c->subcommands) OneCommandStats(s, &sub);
}

void SecCommandStats(std::string* s) {
  Line(s, "# Commandstats");
  for (const CommandSpec* c : AllCommands()) OneCommandStats(s, c);
}

void OneLatency(std::string* s, const CommandSpec* c) {
  if (c->stats.recorded) {
    std::string line = "latency_percentiles_usec_" + c->fullname + ":";
    bool first = true;
    for (double p : cfg.latency_tracking_info_percentiles) {
      char v[64];
      snprintf(v, sizeof(v), "=%.3f", c->stats.Percentile(p));
      line += (first ? "p" : ",p") + FormatPercentile(p) + v;
      first = false;
    }
    *s += line + "\r\n";
  }
  for (auto& sub : c->subcommands) OneLatency(s, &sub);
}

void SecLatencyStats(std::string* s) {
  Line(s, "# Latencystats");
  for (const CommandSpec* c : AllCommands()) OneLatency(s, c);
}

void SecErrorStats(std::string* s) {
  Line(s, "# Errorstats");
  std::set<std::string> codes;
  for (auto& [k, v] : g.stats.error_counts) codes.insert(k);
  for (auto& k : codes)
    Line(s, "errorstat_%s:count=%llu", k.c_str(), static_cast<ull>(g.stats.error_counts[k]));
}

void SecDebug(std::string* s) {
  const Stats& st = g.stats;
  Line(s, "# Debug");
  Line(s, "eventloop_duration_aof_sum:%llu", static_cast<ull>(st.el_aof_sum));
  Line(s, "eventloop_duration_cron_sum:%llu", static_cast<ull>(st.el_cron_sum));
  Line(s, "eventloop_duration_max:%llu", static_cast<ull>(st.el_duration_max));
  Line(s, "eventloop_cmd_per_cycle_max:%llu", static_cast<ull>(st.el_cmd_per_cycle_max));
}

void SecKeyspace(std::string* s) {
  Line(s, "# Keyspace");
  for (int i = 0; i < NumDbs(); i++) {
    db::Db* d = GetDb(i);
    if (d->Size() == 0) continue;
    Line(s, "db%d:keys=%zu,expires=%zu,avg_ttl=%llu", i, d->Size(), d->ExpiresSize(),
         static_cast<ull>(d->avg_ttl));
  }
}

struct Section {
  const char* name;
  void (*fn)(std::string*);
  bool in_default;
  bool only_named = false;  // not in "all" or "everything" either (Valkey 8's debug)
};
const Section kSections[] = {
    {"server", SecServer, true},
    {"clients", SecClients, true},
    {"memory", SecMemory, true},
    {"persistence", SecPersistence, true},
    {"stats", SecStats, true},
    {"replication", SecReplication, true},
    {"cpu", SecCpu, true},
    {"modules", nullptr, true},
    {"commandstats", SecCommandStats, false},
    {"errorstats", SecErrorStats, true},
    {"latencystats", SecLatencyStats, false},
    {"cluster", nullptr, true},
    {"keyspace", SecKeyspace, true},
    {"debug", SecDebug, false, true},
};
}  // namespace

std::string GenInfo(const std::vector<std::string>& sections) {
  std::set<std::string> want;
  bool all = false, everything = false, dflt = sections.empty();
  for (auto& s : sections) {
    if (s == "all")
      all = true;
    else if (s == "everything")
      everything = true;
    else if (s == "default")
      dflt = true;
    else
      want.insert(s);
  }
  std::string out;
  for (auto& sec : kSections) {
    bool named = want.count(sec.name);
    bool on = named || (!sec.only_named && (everything || all || (dflt && sec.in_default)));
    if (!on) continue;
    std::string part;
    if (std::string(sec.name) == "cluster") {
      part =
          "# Cluster\r\ncluster_enabled:" + std::string(cfg.cluster_enabled ? "1" : "0") + "\r\n";
    } else if (std::string(sec.name) == "modules") {
      part = "# Modules\r\n";
    } else {
      sec.fn(&part);
    }
    if (!out.empty()) out += "\r\n";
    out += part;
  }
  return out;
}

void ResetStats() {
  uint64_t seq = g.stats.error_seq;
  g.stats = server::Stats{};
  g.stats.error_seq = seq;
  ResetPersistenceStats();
  LazyFreeResetStats();
  slot_stats::ResetAll();  // CLUSTER SLOT-STATS counters too, as Valkey's RESETSTAT
  for (const CommandSpec* c : AllCommands()) {
    c->stats = server::CommandStats{};
    for (auto& sub : c->subcommands) sub.stats = server::CommandStats{};
  }
}

}  // namespace server
