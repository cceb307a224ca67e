// Start-up, cron and process-level services of the node.
#include "server/server.h"

#include "server/acl.h"

#include <fcntl.h>
#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
extern "C" size_t __sanitizer_get_current_allocated_bytes();  // libasan
#endif
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <set>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/stream.h"
#include "db/zset.h"
#include "ds/seed.h"
#include "net/reply.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/cluster_hooks.h"
#include "server/command.h"
#include "server/config.h"
#include "server/crash_report.h"
#include "server/dispatch.h"
#include "server/evict.h"
#include "server/oom_score.h"
#include "server/lazyfree.h"
#include "server/loading.h"
#include "server/notify.h"
#include "server/observe.h"
#include "server/persistence.h"
#include "server/proc_title.h"
#include "server/repl_hooks.h"
#include "server/shutdown.h"
#include "server/tracking.h"
#include "server/transactions.h"
#include "server/version.h"
#include "server/write_out.h"

namespace server {

Server g;

db::Db* GetDb(int id) { return g.dbs[id].get(); }
int NumDbs() { return static_cast<int>(g.dbs.size()); }

void UpdateCommandTime() { db::GetEnv().now_ms = base::MsTime(); }

void RefreshDerivedConfig() {
  auto& env = db::GetEnv();
  env.lfu = MaxmemoryPolicyIsLfu();
  env.lfu_log_factor = static_cast<int>(cfg.lfu_log_factor);
  env.lfu_decay_time = static_cast<int>(cfg.lfu_decay_time);
  env.free_expired = cfg.lazyfree_lazy_expire ? FreeObjLazily : db::FreeObj;
  env.free_server_del = cfg.lazyfree_lazy_server_del ? FreeObjLazily : db::FreeObj;
}

void KeyModified(int dbid, std::string_view key) {
  if (g.staging_writes) return;
  TouchWatchedKey(dbid, key);
  KeyReady(dbid, key);  // waiters look again: a stream group reader sees its key gone
  TrackingInvalidateKey(key);
}

void DbModified(int dbid) {
  if (g.staging_writes) return;
  TouchAllWatched(dbid);
  TrackingInvalidateAll();
}

void SlotsModified(int dbid, const std::vector<int>& slots) {
  if (g.staging_writes || slots.empty()) return;
  std::vector<bool> in(16384, false);
  for (int s : slots) in[static_cast<size_t>(s)] = true;
  TouchAllWatched(dbid, -2, &in);
  TrackingInvalidateSlots(in);
}

uint64_t UsedMemory() {
#ifdef USE_JEMALLOC
  // The node allocates from one thread: that thread's running totals, less what the lazy-free
  // thread freed of it, are the process's, and reading them costs a few loads (eviction
  // measures before and after every deletion).
  static uint64_t* allocated = nullptr;
  static uint64_t* deallocated = nullptr;
  if (!allocated) {
    size_t sz = sizeof(allocated);
    if (mallctl("thread.allocatedp", &allocated, &sz, nullptr, 0) != 0 ||
        mallctl("thread.deallocatedp", &deallocated, &sz, nullptr, 0) != 0) {
      allocated = deallocated = nullptr;
      uint64_t epoch = 1;
      sz = sizeof(epoch);
      mallctl("epoch", &epoch, &sz, &epoch, sz);
      size_t total = 0;
      sz = sizeof(total);
      return mallctl("stats.allocated", &total, &sz, nullptr, 0) == 0 ? total : 0;
    }
  }
  // What the lazy-free thread freed was allocated here.
  int64_t used = static_cast<int64_t>(*allocated - *deallocated) - LazyFreeNetFreedBytes();
  return used > 0 ? static_cast<uint64_t>(used) : 0;
#elif defined(__SANITIZE_ADDRESS__)
  // ASan replaces malloc, and mallinfo2 then reports nothing: ask ASan's allocator.
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

uint64_t AllocatorAllocated() {
#ifdef USE_JEMALLOC
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  size_t total = 0;
  sz = sizeof(total);
  return mallctl("stats.allocated", &total, &sz, nullptr, 0) == 0 ? total : 0;
#else
  return UsedMemory();
#endif
}

void SetAllocatorBackgroundThread(bool on) {
#ifdef USE_JEMALLOC
  if (mallctl("background_thread", nullptr, nullptr, &on, sizeof(on)) != 0)
    LOG_WARNING("Could not turn jemalloc's background thread %s", on ? "on" : "off");
#else
  (void)on;
#endif
}

namespace {

// For a crash report: the command being run, by name only (its arguments may be user data,
// which hide-user-data-from-log keeps out of the log).
std::string DescribeCurrentCommand() {
  Client* c = g.current_client;
  if (!c) return "";
  std::string s = "------ CURRENT CLIENT INFO ------\n" + ClientInfoForLog(c) +
                  "\nargc: '" + std::to_string(c->argv.size()) + "'";
  if (!c->argv.empty())
    s += "\nargv[0]: '" + std::string(c->argv[0].substr(0, 64)) + "'";
  return s;
}

volatile sig_atomic_t g_signal = 0;
// A shutdown asked by a signal is under way (until it fails or is aborted).
volatile sig_atomic_t g_signalled_shutdown = 0;
char g_shutdown_temp_rdb[64];  // the final save's temp file (temp-<pid>.rdb in dir)

void OnSignal(int sig) {
  // SIGINT again while a shutdown runs (its wait for replicas, or a long final save): exit
  // now, removing the save's temp file, as Valkey 8 does.
  if (sig == SIGINT && g_signalled_shutdown) {
    base::LogFromSignalHandler("You insist... exiting now.");
    unlink(g_shutdown_temp_rdb);
    _exit(1);
  }
  g_signalled_shutdown = 1;
  g_signal = sig;
}

// The wall clock and the fast clock at one instant (see Server::wake_wall_us).
void StampWakeUp() {
  int64_t wall = base::UsTime();
  g.wake_fast_us = base::FastUs();
  g.wake_wall_us = wall;
  g.loop_time_ms = wall / 1000;
}

void OnErrorReply(std::string_view code, std::string_view text) {
  g.stats.total_error_replies++;
  g.stats.error_seq++;
  g.stats.error_counts[std::string(code.substr(0, 64))]++;
  // Kept for the log line of an error replied on a replication link (ReportLinkError), as
  // written: Valkey 8 logs "-WRONGTYPE ..." but a plain ERR's text without its code.
  g.stats.last_error_text.assign(text.substr(0, 4096));
}

void OnExpired(int dbid, std::string_view key) {
  g.stats.expired_keys++;
  KeyModified(dbid, key);
  std::string k(key);
  std::string_view verb = cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL";
  WriteOut(dbid, {verb, k});
  Notify(kNotifyExpired, "expired", k, dbid);
}

// A new key may be what a blocked client waits for, however it was made (RENAME, MOVE, COPY,
// RESTORE, a STORE option...): the pushing commands are not the only way.
void OnNewKey(int dbid, std::string_view key) {
  KeyReady(dbid, key);
  Notify(kNotifyNew, "new", key, dbid);
}

// Keys that a writable replica's own clients gave an expire (db::Env::local_write). A replica
// leaves its primary's keys to the primary's DEL, but nobody else expires these: the cron
// does, as Valkey's expireReplicaKeys does (its replicaKeysWithExpire). An entry whose key is
// gone or has no expire any more is dropped when met.
std::set<std::pair<int, std::string>> local_expires_;
std::pair<int, std::string> local_expires_next_;  // where the next pass starts

void OnLocalExpire(int dbid, std::string_view key) {
  local_expires_.emplace(dbid, std::string(key));
}

void ExpireLocalReplicaKeys(int64_t deadline_us) {
  if (local_expires_.empty()) return;
  UpdateCommandTime();
  auto it = local_expires_.lower_bound(local_expires_next_);
  for (size_t n = local_expires_.size(); n > 0; n--) {
    if (it == local_expires_.end()) it = local_expires_.begin();
    if (base::MonotonicUs() >= deadline_us) {
      local_expires_next_ = *it;
      return;
    }
    auto [dbid, key] = *it;
    it = local_expires_.erase(it);
    if (dbid >= NumDbs()) continue;
    db::Db* d = GetDb(dbid);
    db::Obj* o = d->Find(key);
    if (!o || !o->has_expire()) continue;
    if (!d->IsExpired(o)) {
      it = local_expires_.emplace_hint(it, dbid, std::move(key));
      ++it;
      continue;
    }
    d->DeleteExpired(key);
    OnExpired(dbid, key);
  }
  local_expires_next_ = {};
}

void ActiveExpireCycle() {
  if (!g.active_expire_enabled || db::GetEnv().keep_expired) return;
  int64_t budget_us = 1000000 / cfg.hz * (25 + 2 * (cfg.active_expire_effort - 1)) / 100;
  if (db::GetEnv().replica) return ExpireLocalReplicaKeys(base::MonotonicUs() + budget_us);
  local_expires_.clear();  // a primary expires every key itself
  // Budget: 25% of each cron period, raised a little by active-expire-effort.
  int64_t deadline = base::MonotonicUs() + budget_us;
  UpdateCommandTime();
  g.stats.total_active_expire_cycles++;
  static int next_db = 0;
  size_t sampled = 0, expired = 0;
  for (int i = 0; i < NumDbs(); i++) {
    db::Db* d = GetDb((next_db + i) % NumDbs());
    if (d->ExpiresSize())
      expired += d->ActiveExpire(deadline, db::GetEnv().now_ms, &sampled);
    else
      d->avg_ttl = 0;  // nothing left to expire: no average either (as Valkey)
    if (base::MonotonicUs() >= deadline) break;
  }
  next_db = (next_db + 1) % NumDbs();
  LatencyAddSampleIfNeeded("expire-cycle", (base::MonotonicUs() - (deadline - budget_us)) / 1000);
  // INFO expired_stale_perc, smoothed over cycles as Valkey does.
  double current = sampled ? static_cast<double>(expired) / sampled : 0;
  g.stats.expired_stale_perc = current * 0.05 + g.stats.expired_stale_perc * 0.95;
}

void CronWork();

void Cron() {
  if (g.pause_cron) return;  // DEBUG PAUSE-CRON: none of the periodic work, the cluster's too
  int64_t start = base::FastUs();
  CronWork();
  g.stats.el_cron_sum += static_cast<uint64_t>(std::max<int64_t>(0, base::FastUs() - start));
}

void CronWork() {
  g.cron_loops++;
  ArmWatchdog(cfg.watchdog_period, cfg.hz);
  db::UpdateLruClock();
  Repl().cron();
  int64_t now = base::MsTime();
  // The cluster cron every 100 ms whatever hz is, without a timer (and a wake-up) of its own.
  static int64_t last_cluster_cron = 0;
  if (now - last_cluster_cron >= 100 - 1000 / cfg.hz / 2) {
    last_cluster_cron = now;
    Cluster().cron();
  }
  g.stats.ops.Track(now, g.stats.total_commands_processed);
  g.stats.net_in.Track(now, g.stats.net_input_bytes);
  g.stats.net_out.Track(now, g.stats.net_output_bytes);
  g.stats.net_repl_in.Track(now, g.stats.net_repl_input_bytes);
  g.stats.net_repl_out.Track(now, g.stats.net_repl_output_bytes);
  g.stats.el_cycles.Track(now, g.stats.el_cycles_total);
  g.stats.el_duration.TrackPer(static_cast<int64_t>(g.stats.el_cycles_total),
                               g.stats.el_duration_sum, 1.0);
  static unsigned signal_flags = 0;  // shutdown-on-sigint / -sigterm of the signal received
  if (g_signal) {
    LOG_WARNING("Received %s scheduling shutdown...", g_signal == SIGINT ? "SIGINT" : "SIGTERM");
    signal_flags = g_signal == SIGINT ? cfg.shutdown_on_sigint : cfg.shutdown_on_sigterm;
    g_signal = 0;
    g.shutdown_asap = true;
  }
  if (g.shutdown_asap && !ShutdownInitiated()) {
    g.shutdown_asap = false;
    StartShutdown(nullptr, signal_flags);  // exits, unless it waits for replicas or failed
  }
  ShutdownCron();
  if (!ShutdownInitiated() && !g.shutdown_asap && !g_signal) g_signalled_shutdown = 0;
  ActiveExpireCycle();
  if (cfg.activerehashing) {
    int64_t deadline = base::MonotonicUs() + 1000;  // 1 ms a tick for all dbs
    for (auto& d : g.dbs)
      if (!d->RehashSome(deadline)) break;
  }
  ClientsCron();
  PersistenceCron();
  AofCron();
  MigrateCloseIdleConnections();
  TrackingCron();
  UnpauseClientsIfDue();
  uint64_t mem = UsedMemory();
  if (mem > g.stat_peak_memory) g.stat_peak_memory = mem;
}

// A poll returned: a loop pass starts.
void AfterSleep() {
  StampWakeUp();
  g.loop_pass++;
  g.el_pass_open = true;
  g.el_pass_commands = g.stats.total_commands_processed;
}

// Its end (as Valkey 8's beforeSleep records them): the pass's time, the work here and in the
// timer apart from the AOF and the replies, the commands it ran.
void EndLoopPass(int64_t start_us, int64_t replies_us) {
  Stats& st = g.stats;
  int64_t now = base::FastUs();
  st.el_cron_sum += static_cast<uint64_t>(std::max<int64_t>(0, now - start_us - replies_us));
  if (!g.el_pass_open) return;
  g.el_pass_open = false;
  uint64_t d = static_cast<uint64_t>(std::max<int64_t>(0, now - g.wake_fast_us));
  st.el_cycles_total++;
  st.el_duration_sum += d;
  st.el_duration_max = std::max(st.el_duration_max, d);
  // CONFIG RESETSTAT may have zeroed the count meanwhile.
  if (st.total_commands_processed >= g.el_pass_commands)
    st.el_cmd_per_cycle_max =
        std::max(st.el_cmd_per_cycle_max, st.total_commands_processed - g.el_pass_commands);
}

void BeforeSleep() {
  int64_t start_us = base::FastUs();
  Repl().before_sleep();  // GETACKs; acks complete WAIT and replicated SETSLOT
  int64_t next_timeout = HandleBlockedTimeouts();
  if (next_timeout >= 0) g.loop->SetMaxWaitMs(static_cast<int>(next_timeout));
  // Commands pipelined behind one that completed above run now: before the cluster's save,
  // so that what they change is on disk before their replies go, and before the GETACK that
  // their own replicated SETSLOT or WAIT needs (else it waited for a replica's periodic ack).
  if (ProcessUnblockedClients()) Repl().before_sleep();
  ResumeSlicedInput();
  Cluster().before_sleep();
  TrackingBeforeSleep();  // broadcast invalidations, before replies are written
  // An eviction round (after CONFIG SET maxmemory, or one cut short by its time limit) before
  // the replies: what its deletions send (tracking invalidations, the stream's DELs) goes out
  // in this pass, as Valkey 8's eviction timer runs before its beforeSleep writes. After them,
  // it waited in the clients' buffers, counted as used memory by the next command's check,
  // which evicted more for it, sending more: 10 tracking clients drained a data set of 300
  // keys of 1 KB names.
  EvictionBeforeSleep();
  int64_t replies_start = base::FastUs();
  HandleClientsBeforeSleep();
  int64_t replies_us = base::FastUs() - replies_start;
  if (cfg.maxmemory_clients) EvictClients();
  // WAITAOF waiting on the sync thread: poll it rather than sleep until the next cron.
  if (AofFsyncPending() && WaitingForLocalSync()) g.loop->SetMaxWaitMs(1);
  if (int64_t left = NextPauseEndIn(); left >= 0) {
    // A pause without an end (a failover's, a shutdown's) lasts INT64_MAX: no int holds it.
    g.loop->SetMaxWaitMs(static_cast<int>(std::min<int64_t>(left, 1000)));
    if (left == 0) UnpauseClientsIfDue();
  }
  Cluster().after_replies();
  if (!g.unblocked.empty()) g.loop->SetMaxWaitMs(0);  // unblocked after their turn above
  if (!g.resume_input.empty()) g.loop->SetMaxWaitMs(0);  // the next slice of their input
  EndLoopPass(start_us, replies_us);
}

}  // namespace

bool AbortPendingShutdown() {
  bool waiting = CancelShutdown();
  if (!waiting && !g_signal && !g.shutdown_asap) return false;
  g_signal = 0;
  g_signalled_shutdown = 0;
  g.shutdown_asap = false;
  LOG_NOTICE("Shutdown manually aborted.");
  return true;
}

std::function<void(uint64_t)> LoadProgress() {
  return LoadProgressHook(&cfg.key_load_delay, &cfg.loading_process_events_interval_bytes,
                          ServeWhileLoading);
}

void ServeWhileLoading() {
  static bool serving = false;
  if (serving || !g.loop) return;  // no loop: the fuzz driver's load
  serving = true;
  StampWakeUp();
  for (int round = 0; round < 4; round++) {
    int n = g.loop->ProcessFileEventsNow();
    HandleClientsWhileLoading();
    Cluster().while_loading();
    if (n == 0) break;
  }
  serving = false;
}

namespace {

void PrintBanner() {
  const char* mode = cfg.cluster_enabled ? "cluster" : "standalone";
  if (!cfg.always_show_logo && (!cfg.logfile.empty() || !isatty(STDOUT_FILENO))) {
    LOG_NOTICE("Running mode=%s, port=%d.", mode, static_cast<int>(cfg.port));
    return;
  }
  char buf[1024];
  snprintf(buf, sizeof(buf),
           "\n"
           "   ______________    Valkey-compatible node %s (00000000/0) 64 bit\n"
           "  /  __  __  __  \\\n"
           " |  |  ||  ||  |  |  Running in %s mode\n"
           " |  |__||__||__|  |  Port: %d\n"
           "  \\______________/   PID: %ld\n\n",
           kValkeyVersion, mode, static_cast<int>(cfg.port), static_cast<long>(getpid()));
  base::LogRaw(base::kLogNotice, buf);
}

void Daemonize() {
  if (fork() != 0) exit(0);
  setsid();
  int fd = open("/dev/null", O_RDWR);
  if (fd != -1) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
}

void WritePidFile() {
  if (cfg.pidfile.empty()) return;
  FILE* f = fopen(cfg.pidfile.c_str(), "w");
  if (!f) {
    LOG_WARNING("Failed to write PID file: %s", strerror(errno));
    return;
  }
  fprintf(f, "%d\n", static_cast<int>(getpid()));
  fclose(f);
}

int Usage() {
  fprintf(stderr,
          "Usage: ./valkey-server [/path/to/valkey.conf] [options] [-]\n"
          "       ./valkey-server - (read config from stdin)\n"
          "       ./valkey-server -v or --version\n"
          "       ./valkey-server -h or --help\n");
  return 1;
}

}  // namespace

void InitDataState() {
  StampWakeUp();
  ds::RandomizeHashSeed();
  if (!cfg.hash_seed.empty()) ds::SetHashSeedFromText(cfg.hash_seed);
  g.run_id = base::RandomHex(40);
  g.start_time_ms = base::MsTime();
  g.lastsave = time(nullptr);
  db::GetEnv().cluster = cfg.cluster_enabled;
  db::GetEnv().on_expired = OnExpired;
  db::GetEnv().on_new = OnNewKey;
  db::GetEnv().on_local_expire = OnLocalExpire;
  net::SetErrorHook(OnErrorReply);
  db::KeyTable::SetExpandAllowed(TableGrowthAllowed);
  db::ExpireSet::SetExpandAllowed(TableGrowthAllowed);
  for (int i = 0; i < cfg.databases; i++)
    g.dbs.push_back(std::make_unique<db::Db>(i, cfg.cluster_enabled && i == 0));
  db::RegisterHashType();
  db::RegisterSetType();
  db::RegisterListType();
  db::RegisterZSetType();
  db::RegisterStreamType();
}

ProcTitleVars ProcTitleVarsNow(const char* title) {
  ProcTitleVars v;
  v.title = title ? title : g.exec_argv.empty() ? "valkey-server" : g.exec_argv[0];
  if (title && cfg.extended_redis_compat && v.title.rfind("valkey-", 0) == 0)
    v.title = "redis-" + v.title.substr(7);
  v.listen_addr = cfg.port ? (cfg.bind.empty() ? std::string("*") : cfg.bind[0]) + ":" +
                                 std::to_string(cfg.port)
                           : "unixsocket:" + cfg.unixsocket;
  v.server_mode = cfg.cluster_enabled ? "[cluster]" : "";
  v.config_file = g.config_file.empty() ? "-" : g.config_file;
  v.port = std::to_string(cfg.port);
  v.tls_port = "0";  // tls-port is refused: no TLS listener
  v.unixsocket = cfg.unixsocket;
  return v;
}

void SetProcTitle(const char* title) {
  if (!cfg.set_proc_title) return;
  std::string text;
  if (ExpandProcTitle(cfg.proc_title_template, ProcTitleVarsNow(title), &text))
    WriteProcTitle(text);
}

int Main(int argc, char** argv) {
  base::InitFastClock();
  StampWakeUp();
  std::string config_path;
  std::vector<std::string> cli;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (i == 1 && (a == "-v" || a == "--version")) {
      printf("Valkey server %s\n", kVersionDetails);
      return 0;
    }
    if (i == 1 && (a == "-h" || a == "--help")) return Usage();
    if (i == 1 && a.rfind("--", 0) != 0) {
      config_path = a;
      continue;
    }
    cli.push_back(a);
  }
  g.exec_argv.assign(argv, argv + argc);
  ProcTitleInit(argc, argv);  // argv's memory becomes the title's: read from exec_argv below
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  g.executable = n > 0 ? std::string(exe, n) : argv[0];
  if (!config_path.empty()) {
    char abs[4096];
    g.config_file = realpath(config_path.c_str(), abs) ? std::string(abs) : config_path;
  }
  base::SetLogRoleChar('C');
  BuildCommandTable();  // before the config: rename-command edits it
  if (!LoadConfig(config_path, cli)) return 1;
  if (!cfg.logfile.empty() && !base::SetLogFile(cfg.logfile)) {
    fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
    return 1;
  }
  base::SetLogLevel(cfg.loglevel);
  if (cfg.daemonize) Daemonize();
  LOG_NOTICE("oO0OoO0OoO0Oo Valkey is starting oO0OoO0OoO0Oo");
  LOG_NOTICE("Valkey version=%s, bits=64, commit=00000000, modified=0, pid=%d, just started",
             kValkeyVersion, static_cast<int>(getpid()));
  if (config_path.empty())
    LOG_WARNING(
        "Warning: no config file specified, using the default config. In order to "
        "specify a config file use %s /path/to/valkey.conf",
        g.exec_argv[0].c_str());
  else
    LOG_NOTICE("Configuration loaded");
  WarnUnimplementedDirectives();
  {
    std::string err;
    if (!acl::StartUsers(&err)) {
      LOG_WARNING("%s", err.c_str());
      return 1;
    }
  }
  if (cfg.maxmemory && cfg.maxmemory < 1024 * 1024)
    LOG_WARNING(
        "WARNING: You specified a maxmemory value that is less than 1MB (current value is %llu "
        "bytes). Are you sure this is what you really want?",
        static_cast<unsigned long long>(cfg.maxmemory));
  RefreshDerivedConfig();
  SetProcTitle();
  base::SetLogRoleChar('M');

  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  InstallCrashHandlers(cfg.crash_log_enabled, DescribeCurrentCommand);
  snprintf(g_shutdown_temp_rdb, sizeof(g_shutdown_temp_rdb), "temp-%ld.rdb",
           static_cast<long>(getpid()));
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rlim_t want = static_cast<rlim_t>(cfg.maxclients) + 32;
    if (rl.rlim_cur < want) {
      rl.rlim_cur = std::min(want, rl.rlim_max);
      setrlimit(RLIMIT_NOFILE, &rl);
    }
  }

  InitDataState();
  // After daemonizing (a fork keeps only the forking thread), as Valkey's InitServerLast.
  SetAllocatorBackgroundThread(cfg.jemalloc_bg_thread);
  SetOomScoreAdj(cfg.oom_score_adj, -1);
  Repl().init();
  net::EventLoop loop(static_cast<int>(cfg.maxclients) + 128);
  g.loop = &loop;
  PrintBanner();
  // Before any client: a client's socket is a stream of the ring or an epoll file for good.
  if (cfg.io_uring) {
    if (loop.EnableUring())
      LOG_NOTICE("Client connections use io_uring.");
    else
      LOG_NOTICE("io_uring is not available (%s): client connections use epoll.", strerror(errno));
  }
  std::string err;
  if (!ListenAll(&err)) {
    LOG_WARNING("%s", err.c_str());
    return 1;
  }
  if (!Cluster().init(&err)) {
    LOG_WARNING("%s", err.c_str());
    return 1;
  }
  WritePidFile();
  LOG_NOTICE("Server initialized");
  AddOtherChildCheck([] { return AofRewriteInProgress(); });
  g.initial_memory_usage = UsedMemory();
  // The AOF, when on, is preferred to the snapshot.
  if (!(cfg.appendonly ? AofLoadAtStartup() : LoadSnapshotAtStartup())) return 1;
  g.data_loaded_at_start = true;
  if (!cfg.appendonly) {
    Repl().snapshot_loaded_at_start();
    // Keys the snapshot held already expired were left out: a primary's replicas continuing its
    // history by PSYNC still hold them, and get their deletes (as Valkey 8's load feeds them).
    std::string_view verb = cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL";
    bool primary = !Repl().is_replica() && cfg.replicaof.empty();
    for (auto& [dbid, key] : TakeKeysExpiredAtStart())
      if (primary) WriteOut(dbid, {verb, key});
  }
  Cluster().data_loaded();
  if (!AofOpenAtStartup()) return 1;
  LOG_NOTICE("Ready to accept connections tcp");
  if (!cfg.replicaof.empty()) {
    size_t sp = cfg.replicaof.rfind(' ');
    Repl().become_replica(cfg.replicaof.substr(0, sp), atoi(cfg.replicaof.substr(sp + 1).c_str()),
                          false);
  }
  if (!cfg.unixsocket.empty()) LOG_NOTICE("Ready to accept connections unix");
  loop.SetBeforeSleep(BeforeSleep);
  loop.SetAfterSleep(AfterSleep);
  loop.AddTimer(1000 / cfg.hz, Cron);
  loop.SetSpinUs(cfg.busy_poll_us);
  loop.Run();
  return 0;
}

}  // namespace server
