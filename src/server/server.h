// Process-wide server state, owned by the main thread.
#pragma once
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/db.h"
#include "net/event_loop.h"
#include "server/proc_title.h"

namespace server {

struct Client;

struct Stats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t expired_keys = 0;
  uint64_t evicted_keys = 0;
  uint64_t evicted_clients = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t total_error_replies = 0;
  uint64_t error_seq = 0;  // never reset: tells whether a call replied an error
  uint64_t unexpected_error_replies = 0;  // on a replication link or to the AOF load
  std::string last_error_text;            // the last error replied, up to 4 KB
  uint64_t client_qbuf_limit_disconnections = 0;
  uint64_t sync_full = 0, sync_partial_ok = 0, sync_partial_err = 0;
  uint64_t net_repl_input_bytes = 0, net_repl_output_bytes = 0;
  uint64_t client_outbuf_limit_disconnections = 0;
  double expired_stale_perc = 0;  // share of sampled keys found expired, smoothed
  uint64_t total_active_expire_cycles = 0;
  uint64_t io_reads = 0, io_writes = 0;
  std::unordered_map<std::string, uint64_t> error_counts;  // errorstats, by code
  // instantaneous metrics: ring of samples
  static constexpr int kSamples = 16;
  struct Ring {
    int64_t last_base = 0;
    uint64_t last_value = 0;
    double samples[kSamples] = {};
    int idx = 0;
    // Per second, over the time since the last sample.
    void Track(int64_t now_ms, uint64_t value) { TrackPer(now_ms, value, 1000.0); }
    // Per unit of `base` (another counter), times `factor`.
    void TrackPer(int64_t base, uint64_t value, double factor) {
      int64_t d = base - last_base;
      if (last_base && d > 0) {
        samples[idx] = static_cast<double>(value - last_value) * factor / static_cast<double>(d);
        idx = (idx + 1) % kSamples;
      }
      last_base = base;
      last_value = value;
    }
    double Mean() const {
      double s = 0;
      for (double v : samples) s += v;
      return s / kSamples;
    }
  } ops, net_in, net_out, net_repl_in, net_repl_out, el_cycles, el_duration;
  // Event loop passes (as Valkey 8's duration stats): a pass runs from the poll's return to the
  // end of the work before the next poll, in microseconds.
  uint64_t el_cycles_total = 0, el_duration_sum = 0, el_duration_max = 0;
  uint64_t el_cmd_sum = 0;   // top-level commands' own time
  uint64_t el_cron_sum = 0;  // the timer's and the pre-poll work's, replies and AOF aside
  uint64_t el_aof_sum = 0;   // the AOF's write (and fsync) before replies
  uint64_t el_cmd_per_cycle_max = 0;
};

// Output buffer limit for one client class.
struct OutputLimit {
  uint64_t hard = 0, soft = 0;
  int64_t soft_seconds = 0;
};

struct Server {
  net::EventLoop* loop = nullptr;
  std::vector<std::unique_ptr<db::Db>> dbs;
  std::list<Client*> clients;
  std::unordered_map<uint64_t, Client*> clients_by_id;
  std::vector<Client*> pending_writes;
  std::vector<Client*> close_queue;
  // Clients over their soft output limit: the cron closes those still over it once its time
  // is up, also when nothing more is sent to them (as Valkey 8's clientsCron checks them).
  std::vector<Client*> obuf_soft_clients;
  std::vector<Client*> unblocked;  // clients whose pending input must be processed again
  std::vector<Client*> resume_input;  // kInputSliced clients whose time slice ran out
  uint64_t next_client_id = 1;
  std::vector<int> listen_fds;
  int unix_fd = -1;
  Client* current_client = nullptr;

  std::string run_id;  // 40 hex chars
  int64_t start_time_ms = 0;
  int64_t dirty = 0;     // changes since last save
  int64_t lastsave = 0;  // unix seconds
  uint64_t cron_loops = 0;
  bool shutdown_asap = false;
  bool in_exec = false;
  // The data of the start (snapshot or AOF) is loaded; a replica's link waits for it.
  bool data_loaded_at_start = false;
  // A command is writing a slot import's staging db (cluster/syncslots_cmd.cc), which no
  // client serves: its keys signal no WATCH, no blocked client, no client-side cache and no
  // keyspace notification (KeyModified, DbModified, KeyReady and Notify return at once).
  bool staging_writes = false;
  int64_t loop_time_ms = 0;  // wall clock at the last event-loop wake-up
  // The same instant in microseconds, on the wall clock and on base::FastUs: a command's
  // wall time is derived from one cheap FastUs read (Call).
  int64_t wake_wall_us = 0, wake_fast_us = 0;
  // The event loop pass now running (INFO's eventloop_* fields): started by a poll's return
  // (false before the first one), and the commands count then.
  bool el_pass_open = false;
  uint64_t loop_pass = 0;  // passes of the loop since start (AfterSleep): per-pass budgets
  uint64_t el_pass_commands = 0;
  // Wall-clock ms of the fast-clock reading `fast_us` (a command's time, from one cheap read).
  int64_t WallMsAt(int64_t fast_us) const {
    return (wake_wall_us + (fast_us - wake_fast_us)) / 1000;
  }
  bool active_expire_enabled = true;
  // DEBUG switches (commands/server.cc), off in normal running.
  bool pause_cron = false;                // DEBUG PAUSE-CRON: Cron does nothing
  bool skip_checksum_validation = false;  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE, loads
  int aof_flush_sleep_us = 0;  // DEBUG AOF-FLUSH-SLEEP: each AOF write waits this long first
  // DEBUG DROP-CLUSTER-PACKET-FILTER: the cluster bus ignores received messages of this type
  // (-1: none); with the second switch it also closes the link that brought one.
  int64_t cluster_drop_packet_filter = -1;
  bool cluster_close_link_on_packet_drop = false;
  // DEBUG SLOT-MIGRATION-HANDOVER-DELAY: a target stalls this long before it takes the slots
  // of an atomic slot migration (a slow or paused target, for tests).
  int64_t slot_migration_handover_delay_ms = 0;
  // DEBUG CONFIG-FSYNC-DELAY: each nodes.conf job of the helper thread waits this long first
  // (a slow disk); read by that thread.
  std::atomic<int64_t> config_fsync_delay_ms{0};
  // DEBUG SLOT-MIGRATION-WALK-LIMIT: a source's walk stops once a job has sent this many keys
  // or pieces of big values (0: no limit), leaving its slots half sent, for tests.
  uint64_t slot_migration_walk_limit = 0;
  // DEBUG SLOT-MIGRATION-LINK: a source leaves its targets' replies unread (HOLD) until
  // RELEASE, or drops its links at its next loop pass (DROP; what was unread is lost with
  // them), so that a test can make a target take requests whose answers never arrive.
  bool slot_migration_hold_replies = false;
  bool slot_migration_drop_links = false;
  std::string executable, config_file;
  std::vector<std::string> exec_argv;

  // CLIENT PAUSE, and the write pause of a manual failover (cluster), which ends on its own
  // terms and never shortens an operator's pause.
  int64_t pause_end_ms = 0;
  bool pause_all = false;  // true: ALL, false: WRITE
  int64_t failover_pause_end_ms = 0;
  int64_t shutdown_pause_end_ms = 0;
  std::vector<Client*> paused_clients;

  Stats stats;
  uint64_t stat_peak_memory = 0;
  uint64_t initial_memory_usage = 0;  // once started, before any data (used_memory_startup)
};

extern Server g;

// Databases.
db::Db* GetDb(int id);
int NumDbs();
// Sets the command clock (db::Env::now_ms) from the wall clock.
void UpdateCommandTime();
// A key was modified by a write: invalidates WATCH and client-side caches. Every write calls
// this.
void KeyModified(int dbid, std::string_view key);  // nothing while g.staging_writes
// The data set of a db was flushed (FLUSHDB, FLUSHALL, a full sync, DEBUG RELOAD): dbid -1
// means every db. WATCHes fail and tracking clients get a null invalidation.
void DbModified(int dbid);
// Some slots' keys of a db are about to go at once (CLUSTER FLUSHSLOT, slots moved away whole):
// WATCHes of their keys fail and the clients that read them hear it now, not as each is freed.
// One pass over the watched and tracked keys for them all.
void SlotsModified(int dbid, const std::vector<int>& slots);
// After the config is loaded: the clocks of the running command, the hash seed, the databases,
// the value types and the keyspace hooks (expired and new keys, error replies). server::Main
// calls it before anything runs a command; so does the aof_load fuzz target (tests/fuzz).
void InitDataState();
// Re-derives settings that depend on several directives (after load and CONFIG SET).
void RefreshDerivedConfig();
// SHUTDOWN ABORT: cancels a shutdown a signal asked for that has not run yet (the cron runs
// it). False when none is pending.
bool AbortPendingShutdown();
// The after_key hook of a load (loading.h) with this node's key-load-delay and
// loading-process-events-interval-bytes, serving as ServeWhileLoading.
std::function<void(uint64_t parsed)> LoadProgress();
// Between the keys of a load, as Valkey 8's processEventsWhileBlocked: up to 4 rounds of the
// file events ready now, with the replies and closes they caused and the cluster bus's
// queued messages, then the replica's keepalive to its primary. No timer runs: the cron's work
// (expiry, failover, timeouts) waits for the load's end.
void ServeWhileLoading();
// Memory in use (allocator's view).
uint64_t UsedMemory();
// The allocator's own figure (jemalloc stats.allocated after an epoch refresh): slow.
uint64_t AllocatorAllocated();
// jemalloc's background purging thread on or off (jemalloc-bg-thread); a no-op without jemalloc.
void SetAllocatorBackgroundThread(bool on);
// The process title from proc-title-template (proc_title.h): title null is the executable as
// started; a forked child names its work ("valkey-rdb-bgsave": "redis-" with
// extended-redis-compatibility). Nothing with set-proc-title no.
void SetProcTitle(const char* title = nullptr);
// The template's variables now (proc_title.h), for SetProcTitle and CONFIG SET's check.
ProcTitleVars ProcTitleVarsNow(const char* title);

}  // namespace server
