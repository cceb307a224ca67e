// The config table: one entry per directive, used for the config file, CONFIG GET/SET/REWRITE
// and the documented defaults. Values the node acts on live in `cfg`.
#pragma once
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "server/oom_score.h"
#include "server/server.h"

namespace server {

// propagation-error-behavior's values, in its enum's order (config.cc).
enum PropagationErrorBehavior {
  kPropagationErrorIgnore,
  kPropagationErrorPanic,
  kPropagationErrorPanicOnReplicas,
};

struct Config {
  // network
  // Valkey 8's default without a config file: every interface, protected-mode refusing
  // remote clients while no password is set (valkey.conf names the loopback addresses).
  std::vector<std::string> bind{"*", "-::*"};
  // The address the replication link and the cluster bus connect from (empty: any).
  std::string bind_source_addr;
  int64_t port = 6379;
  std::string unixsocket;
  int64_t unixsocketperm = 0;
  std::string unixsocketgroup;  // group name or number given to the socket file
  // Valkey 9's hash-seed: set, it is this node's seed (a primary's never replaces it).
  std::string hash_seed;
  bool protected_mode = true;
  int64_t maxclients = 10000;
  int64_t timeout = 0;
  int64_t tcp_keepalive = 300;
  int64_t busy_poll_us = 200;
  bool io_uring = true;  // client connections through io_uring where the kernel allows it
  int64_t tcp_backlog = 511;
  // process
  bool daemonize = false;
  std::string pidfile;
  std::string logfile;
  int loglevel = 2;
  std::string dir;
  bool always_show_logo = false;
  bool hide_user_data_from_log = true;
  bool crash_log_enabled = true;  // crash_report.h
  int64_t watchdog_period = 0;    // ms; 0: off (crash_report.h)
  int64_t databases = 16;
  int64_t hz = 10;
  bool dynamic_hz = true;
  int enable_debug_command = 0;      // 0 no, 1 yes, 2 local
  int enable_protected_configs = 0;  // 0 no, 1 yes, 2 local: may CONFIG SET change dir etc.
  // protocol and clients
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  OutputLimit obuf_normal{0, 0, 0};
  OutputLimit obuf_replica{256ULL << 20, 64ULL << 20, 60};
  OutputLimit obuf_pubsub{32ULL << 20, 8ULL << 20, 60};
  std::string requirepass;
  std::string aclfile;
  int64_t acllog_max_len = 128;
  int64_t tracking_table_max_keys = 1000000;  // client-side caching table (0: no limit)
  int acl_pubsub_default = 1;  // 0 allchannels, 1 resetchannels
  int64_t client_default_resp = 2;
  // keyspace
  int64_t active_expire_effort = 1;
  bool activerehashing = true;
  // Valkey 8's bridge for clients that check the server's name: HELLO says redis 7.2.4, INFO
  // redis_mode, the LOADING and MISCONF errors "Redis" (server/version.h).
  bool extended_redis_compat = false;
  bool set_proc_title = true;  // server/proc_title.h
  std::string proc_title_template = "{title} {listen-addr} {server-mode}";
  int64_t slowlog_log_slower_than = 10000;  // microseconds; negative: off
  int64_t slowlog_max_len = 128;
  int64_t latency_monitor_threshold = 0;  // milliseconds; 0: LATENCY records nothing
  int64_t maxmemory = 0;
  int64_t maxmemory_clients = 0;  // bytes; negative: that percentage of maxmemory
  int maxmemory_policy = 7;  // index in kMaxmemoryPolicies ("noeviction")
  int64_t maxmemory_samples = 5;
  int64_t maxmemory_eviction_tenacity = 10;
  bool replica_ignore_maxmemory = true;
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time = 1;
  // jemalloc purges freed pages on its own thread (else inside whichever allocation or free
  // crosses its decay deadline: a loop pass of the node that spent 25 ms in madvise).
  bool jemalloc_bg_thread = true;
  // DEL (as UNLINK always does) and FLUSHALL/FLUSHDB without SYNC free big values on the
  // lazy-free thread.
  bool lazyfree_lazy_user_del = true;
  bool latency_tracking = true;  // per-command latency histograms (INFO latencystats)
  std::vector<double> latency_tracking_info_percentiles{50, 99, 99.9};
  bool lazyfree_lazy_user_flush = true;
  // A replica frees the data a full sync replaced on the lazy-free thread.
  bool replica_lazy_flush = true;
  bool lazyfree_lazy_eviction = true;  // evictions propagate as UNLINK (else DEL)
  // Keys deleted because their time passed (lazy or active expiry, EXPIRE/SET EXAT in the
  // past), and by the server itself (SPOP of a whole set, RESTORE over a key with a past
  // TTL, slots dropped), propagate as UNLINK (else DEL). Big values are also freed on the
  // lazy-free thread: keys that expire (lazyfree-lazy-expire) and values the server deletes or
  // replaces (lazyfree-lazy-server-del: SET, RENAME, COPY or RESTORE over a key, MIGRATE's
  // moved keys); the others are freed in place.
  bool lazyfree_lazy_expire = true;
  bool lazyfree_lazy_server_del = true;
  bool cluster_enabled = false;
  // cluster (used by src/cluster/)
  std::string cluster_config_file = "nodes.conf";
  int64_t cluster_port = 0;
  int64_t cluster_node_timeout = 15000;
  int64_t cluster_slot_migration_log_max_len = 1000;  // finished slot migrations listed
  int64_t cluster_replica_validity_factor = 10;  // 0: a replica fails over however stale
  int64_t cluster_migration_barrier = 1;
  int64_t cluster_ping_interval = 0;
  std::string cluster_announce_ip, cluster_announce_hostname, cluster_announce_human_nodename;
  std::string cluster_announce_client_ipv4, cluster_announce_client_ipv6;
  int64_t cluster_announce_port = 0, cluster_announce_bus_port = 0, cluster_announce_tls_port = 0;
  int cluster_preferred_endpoint_type = 0;  // ip, hostname, unknown-endpoint
  bool cluster_require_full_coverage = true;
  bool cluster_allow_reads_when_down = false;
  bool cluster_allow_replica_migration = true;  // SETSLOT NODE and gossip: follow my last slot
  bool cluster_allow_pubsubshard_when_down = true;
  bool cluster_replica_no_failover = false;
  bool cluster_slot_stats_enabled = false;  // CLUSTER SLOT-STATS cpu and network counters
  int64_t cluster_link_sendbuf_limit = 0;
  int64_t cluster_blacklist_ttl = 60;
  // replication
  int64_t repl_backlog_size = 10LL * 1024 * 1024;
  int64_t repl_backlog_ttl = 3600;
  bool repl_diskless_sync = true;
  int64_t repl_diskless_sync_delay = 5;
  int64_t repl_diskless_sync_max_replicas = 0;  // 0: the delay is always waited out
  int repl_diskless_load = 0;  // disabled, on-empty-db, swapdb
  // An error replied on a replication link or to the AOF load: ignore (logged), panic (stop
  // the node, also for the AOF), panic-on-replicas (a read-only replica only).
  int propagation_error_behavior = 0;  // kPropagationError*
  bool replica_read_only = true;
  bool replica_serve_stale_data = true;
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag = 10;
  int64_t repl_timeout = 60;
  int64_t shutdown_timeout = 10;  // seconds a shutdown waits for replicas to catch up
  // SHUTDOWN's flags (server/shutdown.h) for a shutdown by SIGINT / SIGTERM; 0: "default".
  unsigned shutdown_on_sigint = 0, shutdown_on_sigterm = 0;
  int64_t repl_ping_replica_period = 10;
  std::string primaryauth, primaryuser;
  std::string replicaof;  // "host port" from the config file, applied at start
  // compact encodings of the data types
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  int64_t set_max_listpack_entries = 128;
  int64_t set_max_listpack_value = 64;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  int64_t list_max_listpack_size = -2;
  int64_t stream_node_max_bytes = 4096;
  int64_t stream_node_max_entries = 100;
  int64_t list_compress_depth = 0;
  int64_t hll_sparse_max_bytes = 3000;  // HyperLogLog: sparse values grow up to this, then dense
  // persistence (stored; snapshots come with the persistence issue)
  std::string dbfilename = "dump.rdb";
  // append-only file
  bool appendonly = false;
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir";
  int appendfsync = 1;  // index in kAppendFsync: always, everysec, no
  OomScoreAdj oom_score_adj;  // oom-score-adj and oom-score-adj-values
  bool aof_use_rdb_preamble = true;
  bool aof_load_truncated = true;
  bool aof_timestamp_enabled = false;
  bool no_appendfsync_on_rewrite = false;
  int64_t auto_aof_rewrite_percentage = 100;
  int64_t auto_aof_rewrite_min_size = 64 * 1024 * 1024;
  std::string save = "3600 1 300 100 60 10000";
  bool rdbcompression = true;
  bool rdbchecksum = true;
  bool stop_writes_on_bgsave_error = true;
  bool rdb_save_incremental_fsync = true;
  int64_t rdb_key_save_delay = 0;  // microseconds slept per key saved (tests)
  int64_t key_load_delay = 0;      // microseconds slept per key loaded (tests)
  int64_t loading_process_events_interval_bytes = 2 * 1024 * 1024;
};
extern Config cfg;

// Reads a config file plus command-line "--name value" pairs; on error prints the fatal
// message (naming the line) to stderr and returns false. Needs the command table
// (rename-command edits it).
bool LoadConfig(const std::string& path, const std::vector<std::string>& cli_args);
// The same for lines already read (config file lines, then "--name value" lines): the part of
// LoadConfig that the config fuzz target drives.
bool LoadConfigLines(const std::vector<std::string>& lines);
// A percentile as Valkey 8 prints it in CONFIG GET and INFO latencystats: %f, trailing zeros
// and dot trimmed ("99.9", "50", "0").
std::string FormatPercentile(double p);
// Where the fatal messages of the two functions above go (nullptr: stderr).
void SetConfigErrorStream(FILE* f);
// Logs one warning per directive that was set but is not implemented yet.
void WarnUnimplementedDirectives();
// CONFIG GET pattern(s): appends name/value pairs.
void ConfigGet(const std::vector<std::string>& patterns,
               std::vector<std::pair<std::string, std::string>>* out);
// CONFIG SET name value [name value ...]: all or nothing. Returns "" or the error text.
// local_client: whether the caller may change protected configs under
// enable-protected-configs local.
std::string ConfigSet(const std::vector<std::pair<std::string, std::string>>& pairs,
                      bool local_client);
// CONFIG REWRITE: returns "" or the error text.
// force_all: every directive, defaults too (DEBUG CONFIG-REWRITE-FORCE-ALL), as Valkey 8.
std::string ConfigRewrite(bool force_all = false);
// The command line's "--name value ..." arguments as config file lines (exposed for tests).
std::vector<std::string> CliToLines(const std::vector<std::string>& cli);
// Value of a directive as CONFIG GET shows it ("" if unknown).
std::string ConfigValue(const std::string& name);

// The names the node gives itself, as extended-redis-compatibility asks (Valkey 8's names):
// HELLO's server and version, and "Valkey" or "Redis" in some error texts.
const char* HelloServerName();  // valkey / redis
const char* HelloVersion();     // kValkeyVersion / kRedisCompatVersion (server/version.h)
const char* ServerTitle();      // Valkey / Redis
// "-LOADING Valkey is loading the dataset in memory" (Redis with extended-redis-compatibility).
std::string ErrLoading();

}  // namespace server
