// Snapshot persistence: foreground and forked saves, save points, loading, DEBUG RELOAD.
#include "server/persistence.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "base/crc64.h"
#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "db/db.h"
#include "db/hash.h"
#include "db/set.h"
#include "db/zset.h"
#include "persist/snapshot.h"
#include "server/cluster_hooks.h"
#include "server/config.h"
#include "server/lazyfree.h"
#include "server/loading.h"
#include "server/oom_score.h"
#include "server/repl_hooks.h"
#include "server/server.h"

namespace server {
namespace {

PersistenceState st;
std::vector<std::function<void(bool)>> g_done_hooks;
struct OtherChild {
  std::function<bool()> active;
  std::function<void()> kill_on_flushall;  // may be empty
};
std::vector<OtherChild> g_other_children;
bool g_child_for_replication = false;  // the running snapshot child was forked for replicas
int64_t g_socket_snapshot_start_ms = 0;  // a diskless replication child runs since
int g_child_pipe = -1;  // parent's read end of the child's progress pipe
// The temp file the snapshot child writes: set by the parent before the fork when it made the
// file itself (a save that replicas read while it is written), else the child's
// TempFileName(pid). g_child_file is the parent's record of the running child's.
std::string g_tmp_override;
std::string g_child_file;
int g_child_pidfd = -1;  // WatchChild's descriptor of the snapshot child
// In a child: the process that forked it (0 in the node itself), and the temp file the signal
// handler removes when that process dies.
pid_t g_parent_pid = 0;
char g_child_tmp[64] = "";

void OnParentDeath(int sig) {
  // Async-signal-safe only: remove the partial file, then die of the signal.
  if (g_child_tmp[0]) unlink(g_child_tmp);
  signal(sig, SIG_DFL);
  raise(sig);
}

constexpr int64_t kBgsaveRetryDelay = 5;                  // seconds after a failed BGSAVE
constexpr uint64_t kAutosyncBytes = 32ULL * 1024 * 1024;  // rdb-save-incremental-fsync

// Progress message from the child: fixed size, written atomically to the pipe.
struct ChildInfo {
  uint64_t keys_processed;
  uint64_t cow_bytes;
};

struct SavePoint {
  int64_t seconds, changes;
};

std::vector<SavePoint> SavePoints() {
  std::vector<SavePoint> out;
  std::vector<std::string> w;
  size_t i = 0;
  const std::string& s = cfg.save;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') i++;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') j++;
    if (j > i) w.push_back(s.substr(i, j - i));
    i = j;
  }
  for (size_t k = 0; k + 1 < w.size(); k += 2) {
    int64_t a, b;
    if (base::ParseInt64(w[k], &a) && base::ParseInt64(w[k + 1], &b)) out.push_back({a, b});
  }
  return out;
}

std::string Cwd() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string("?");
}

std::string TempFileName(pid_t pid) { return "temp-" + std::to_string(pid) + ".rdb"; }
// In the snapshot child: the file it writes before renaming it into place.
std::string ChildTempName() {
  return g_tmp_override.empty() ? TempFileName(getpid()) : g_tmp_override;
}

// Private dirty bytes of this process (the copy-on-write cost of a child).
uint64_t PrivateDirtyBytes() {
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  if (!f) return 0;
  char line[256];
  uint64_t total = 0;
  while (fgets(line, sizeof(line), f)) {
    unsigned long long kb;
    if (sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) total += kb * 1024;
  }
  fclose(f);
  return total;
}

void SendChildInfo(int fd, uint64_t keys, uint64_t cow) {
  if (fd < 0) return;
  ChildInfo ci{keys, cow};
  ssize_t r = write(fd, &ci, sizeof(ci));  // non-blocking: dropped when the pipe is full
  (void)r;
}

bool FsyncDirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int fd = open(dir.c_str(), O_RDONLY);
  if (fd < 0) return false;
  bool ok = fsync(fd) == 0 || errno == EINVAL;
  close(fd);
  return ok;
}

// Writes every database to a temp file, syncs it and renames it over `filename`. Runs in the
// main process (SAVE) or in the child (BGSAVE); progress goes to `progress_fd` when >= 0.
bool SaveToFile(const std::string& filename, int progress_fd, uint64_t used_mem,
                bool for_replication = false, bool aof_base = false, bool direct = false) {
  // `direct`: the caller's file is itself a temp file (the AOF rewrite child's): no rename.
  std::string tmp = direct ? filename : ChildTempName();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Failed opening the temp RDB file %s (in server root dir %s) for saving: %s",
                tmp.c_str(), Cwd().c_str(), strerror(errno));
    return false;
  }
  persist::SnapshotWriter w(fd, SnapshotSaveOptions(for_replication, aof_base));
  w.Header(time(nullptr), used_mem);
  int64_t last_report = base::MonotonicUs();
  uint64_t keys = 0;
  for (int i = 0; i < NumDbs() && w.ok(); i++) {
    db::Db* d = GetDb(i);
    if (d->Size() == 0) continue;
    w.SelectDb(i, d->Size(), d->ExpiresSize());
    d->ForEach([&](db::Obj* o) {
      if (!w.ok()) return;
      w.Object(o);
      if (cfg.rdb_key_save_delay > 0) usleep(static_cast<useconds_t>(cfg.rdb_key_save_delay));
      if (progress_fd >= 0 && ((++keys & 1023) == 0 || cfg.rdb_key_save_delay > 0)) {
        int64_t now = base::MonotonicUs();
        if (now - last_report >= 1000000) {
          last_report = now;
          SendChildInfo(progress_fd, keys, PrivateDirtyBytes());
        }
      }
    });
  }
  bool ok = w.Finish();
  int err = w.error();
  if (ok && fsync(fd) != 0) {
    ok = false;
    err = errno;
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    LOG_WARNING("Write error saving DB on disk: %s", strerror(err));
    unlink(tmp.c_str());
    return false;
  }
  // The death signal covers most of the save; this covers a parent that died before the
  // child asked for it, or while the signal is on its way.
  if (g_parent_pid && getppid() != g_parent_pid) {
    LOG_WARNING("The node that started this save is gone: %s is not replaced.", filename.c_str());
    unlink(tmp.c_str());
    return false;
  }
  if (direct) return true;
  if (rename(tmp.c_str(), filename.c_str()) != 0) {
    LOG_WARNING(
        "Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
        tmp.c_str(), filename.c_str(), Cwd().c_str(), strerror(errno));
    unlink(tmp.c_str());
    return false;
  }
  if (!FsyncDirOf(filename)) {
    LOG_WARNING("Failed to fsync directory while saving DB: %s", strerror(errno));
    return false;
  }
  return true;
}

[[noreturn]] void RunChild(pid_t parent, int progress_fd, uint64_t used_mem, bool for_replication) {
  base::SetLogRoleChar('C');
  SetProcTitle("valkey-rdb-bgsave");
  signal(SIGINT, SIG_DFL);
  signal(SIGUSR1, SIG_DFL);
  StopWithParent(parent, ChildTempName().c_str());
  // The child never serves: drop the listeners so a dying parent frees its ports.
  for (int fd : g.listen_fds) close(fd);
  if (g.unix_fd >= 0) close(g.unix_fd);
  bool ok = SaveToFile(cfg.dbfilename, progress_fd, used_mem, for_replication);
  if (ok) {
    uint64_t cow = PrivateDirtyBytes();
    LOG_NOTICE("DB saved on disk");
    LOG_NOTICE("Fork CoW for RDB: current %llu MB, peak %llu MB, average %llu MB",
               static_cast<unsigned long long>(cow >> 20),
               static_cast<unsigned long long>(cow >> 20),
               static_cast<unsigned long long>(cow >> 20));
    uint64_t keys = 0;
    for (int i = 0; i < NumDbs(); i++) keys += GetDb(i)->Size();
    SendChildInfo(progress_fd, keys, cow);
  }
  _exit(ok ? 0 : 1);
}

void DrainChildPipe() {
  if (g_child_pipe < 0) return;
  ChildInfo ci;
  while (read(g_child_pipe, &ci, sizeof(ci)) == static_cast<ssize_t>(sizeof(ci))) {
    st.save_keys_processed = ci.keys_processed;
    st.cow_size = ci.cow_bytes;
    if (ci.cow_bytes > st.cow_peak) st.cow_peak = ci.cow_bytes;
    st.cow_updated_ms = base::MsTime();
  }
}

void BgsaveDone(int exitcode, int bysignal) {
  bool ok = false;
  if (!bysignal && exitcode == 0) {
    LOG_NOTICE("Background saving terminated with success");
    g.dirty -= st.dirty_at_fork;
    g.lastsave = time(nullptr);
    st.last_bgsave_ok = true;
    ok = true;
  } else if (!bysignal) {
    LOG_WARNING("Background saving error");
    st.last_bgsave_ok = false;
  } else {
    LOG_WARNING("Background saving terminated by signal %d", bysignal);
    // SIGUSR1 is how the node itself stops a child: not a failure of the save.
    if (bysignal != SIGUSR1) st.last_bgsave_ok = false;
  }
  if (!ok) unlink(g_child_file.c_str());
  st.last_bgsave_time_sec = (base::MsTime() - st.child_start_ms) / 1000;
  st.last_cow_size = st.cow_size;
  st.child_pid = -1;
  st.cow_size = st.cow_peak = 0;
  st.cow_updated_ms = 0;
  st.save_keys_processed = st.save_keys_total = 0;
  if (g_child_pipe >= 0) close(g_child_pipe);
  g_child_pipe = -1;
  UnwatchChild(&g_child_pidfd);
  SetResizeAllowed(true);
  for (auto& fn : g_done_hooks) fn(ok);
}

void CheckChildDone() {
  if (st.child_pid == -1) return;
  DrainChildPipe();
  int status = 0;
  pid_t r = waitpid(st.child_pid, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  DrainChildPipe();
  if (r < 0) {
    LOG_WARNING("waitpid() for the snapshot child returned an error: %s", strerror(errno));
    BgsaveDone(1, 0);
    return;
  }
  if (WIFSIGNALED(status))
    BgsaveDone(-1, WTERMSIG(status));
  else
    BgsaveDone(WIFEXITED(status) ? WEXITSTATUS(status) : 1, 0);
}

// The keys the start's snapshot held already expired (left out of the load), while it loads.
std::vector<std::pair<int, std::string>>* g_expired_at_start = nullptr;
std::vector<std::pair<int, std::string>> g_expired_at_start_keys;

// An AOF's base keeps the keys already expired: its incremental files may still write to them
// (Valkey 8 drops them from snapshots only, not from an AOF's preamble).
bool g_loading_aof_base = false;

enum class LoadStatus { kOk, kNotExist, kError };
enum class LoadMode { kReplace, kAdd, kMerge };
LoadStatus LoadRange(const std::string& filename, const uint8_t* p, size_t n, LoadMode mode,
                     uint64_t* consumed);

void LogLoadFailure(const std::string& filename, const uint8_t* p, size_t n,
                    const persist::LoadResult& res) {
  if (res.short_read)
    LOG_WARNING("Short read or OOM loading DB. Unrecoverable error, aborting now.");
  bool checksum = res.error.rfind("Wrong RDB checksum", 0) == 0;
  if (checksum) {
    // Valkey 8 logs the sums, then the cause as "RDB CRC error" (what operators and its tests
    // look for).
    LOG_WARNING("%s", res.error.c_str());
    LOG_WARNING("Error reading the RDB file %s at offset %llu: RDB CRC error", filename.c_str(),
                static_cast<unsigned long long>(res.error_offset));
    return;
  }
  LOG_WARNING("Error reading the RDB file %s at offset %llu: %s", filename.c_str(),
              static_cast<unsigned long long>(res.error_offset), res.error.c_str());
  if (res.version >= 5) {
    // A file that does not end with EOF + a matching checksum was cut short or damaged.
    bool tail_ok = false;
    if (n >= 9 && p[n - 9] == persist::kOpEof) {
      uint64_t stored = 0;
      for (int i = 0; i < 8; i++) stored |= static_cast<uint64_t>(p[n - 8 + i]) << (8 * i);
      tail_ok = stored == 0 || stored == base::Crc64(0, p, n - 8);
    }
    if (!tail_ok)
      LOG_WARNING(
          "The RDB file (%zu bytes) does not end with a valid EOF marker and checksum: it "
          "is truncated or corrupt.",
          n);
  }
}

// Loads `filename` into staging databases, then swaps them in (kReplace) or moves their keys
// into the live ones (kAdd: duplicates are an error, kMerge: the file wins). Nothing of a
// failed load reaches the live databases.
LoadStatus LoadFile(const std::string& filename, LoadMode mode) {
  int fd = open(filename.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return LoadStatus::kNotExist;
    LOG_WARNING("Fatal error: can't open the RDB file %s for reading: %s", filename.c_str(),
                strerror(errno));
    return LoadStatus::kError;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    LOG_WARNING("Fatal error: can't stat the RDB file %s: %s", filename.c_str(), strerror(errno));
    close(fd);
    return LoadStatus::kError;
  }
  size_t n = static_cast<size_t>(sb.st_size);
  const uint8_t* p = reinterpret_cast<const uint8_t*>("");
  void* map = nullptr;
  if (n > 0) {
    map = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      LOG_WARNING("Fatal error: can't map the RDB file %s: %s", filename.c_str(), strerror(errno));
      close(fd);
      return LoadStatus::kError;
    }
    madvise(map, n, MADV_SEQUENTIAL);
    p = static_cast<const uint8_t*>(map);
  }
  close(fd);

  LoadStatus ls = LoadRange(filename, p, n, mode, nullptr);
  if (map) munmap(map, n);
  return ls;
}

LoadStatus LoadRange(const std::string& filename, const uint8_t* p, size_t n, LoadMode mode,
                     uint64_t* consumed) {
  std::vector<std::unique_ptr<db::Db>> staging;
  std::vector<db::Db*> ptrs;
  for (int i = 0; i < NumDbs(); i++) {
    staging.push_back(std::make_unique<db::Db>(i, GetDb(i)->per_slot()));
    ptrs.push_back(staging.back().get());
  }
  persist::LoadOptions opts;
  opts.verify_checksum = cfg.rdbchecksum && !g.skip_checksum_validation;
  opts.skip_expired = !db::GetEnv().replica && !g_loading_aof_base;
  opts.now_ms = base::MsTime();
  opts.num_dbs = NumDbs();
  opts.after_key = LoadProgress();
  opts.used_mem = [](int64_t v) { LoadingProgress().rdb_used_mem = v; };
  if (g_expired_at_start)
    opts.skipped_expired = [](int dbid, std::string_view key) {
      g_expired_at_start->emplace_back(dbid, std::string(key));
    };
  persist::LoadResult res;
  {
    LoadingScope loading(false);
    // An AOF's base: the AOF load counts all its files.
    if (!LoadingProgress().total_bytes) LoadingProgress().total_bytes = n;
    res = persist::LoadSnapshot(p, n, opts, ptrs);
  }

  LogLoadOrigin(res);
  if (!res.ok) {
    LogLoadFailure(filename, p, n, res);
    return LoadStatus::kError;
  }
  if (consumed) *consumed = res.consumed;

  if (mode == LoadMode::kReplace) {
    for (int i = 0; i < NumDbs(); i++) {
      GetDb(i)->Swap(*staging[i]);
      EmptyDb(staging[i].get(), false);
    }
  } else {
    if (mode == LoadMode::kAdd) {
      for (int i = 0; i < NumDbs(); i++) {
        std::string dup;
        staging[i]->ForEach([&](db::Obj* o) {
          if (dup.empty() && GetDb(i)->Find(o->key())) dup = o->key();
        });
        if (!dup.empty()) {
          LOG_WARNING("RDB has duplicated key '%s' in DB %d", dup.c_str(), i);
          return LoadStatus::kError;
        }
      }
    }
    auto& env = db::GetEnv();
    auto saved_on_new = env.on_new;
    env.on_new = nullptr;
    for (int i = 0; i < NumDbs(); i++) {
      std::vector<std::string> keys;
      keys.reserve(staging[i]->Size());
      staging[i]->ForEach([&](db::Obj* o) { keys.emplace_back(o->key()); });
      for (auto& k : keys) {
        db::Obj* o = staging[i]->Unlink(k);
        GetDb(i)->Delete(k);
        GetDb(i)->Add(o);
      }
    }
    env.on_new = saved_on_new;
  }
  staging.clear();  // frees what was replaced
  DbModified(-1);
  NoteLoaded(res);
  return LoadStatus::kOk;
}

}  // namespace

bool HasSavePoints() { return cfg.save.find_first_not_of(' ') != std::string::npos; }

persist::SaveOptions SnapshotSaveOptions(bool for_replication, bool aof_base) {
  persist::SaveOptions o;
  o.for_replication = for_replication;
  o.aof_base = aof_base;
  o.compress = cfg.rdbcompression;
  o.checksum = cfg.rdbchecksum;
  std::string policy = ConfigValue("maxmemory-policy");
  o.write_idle = policy.find("lru") != std::string::npos;
  o.write_freq = policy.find("lfu") != std::string::npos;
  o.autosync_bytes = cfg.rdb_save_incremental_fsync ? kAutosyncBytes : 0;
  return o;
}

void LogLoadOrigin(const persist::LoadResult& res) {
  if (!res.producer.empty()) LOG_NOTICE("Loading RDB produced by %s", res.producer.c_str());
  if (res.ctime >= 0) {
    int64_t age = time(nullptr) - res.ctime;
    LOG_NOTICE("RDB age %lld seconds", static_cast<long long>(age < 0 ? 0 : age));
  }
  if (res.used_mem >= 0)
    LOG_NOTICE("RDB memory usage when created %.2f Mb",
               static_cast<double>(res.used_mem) / (1024 * 1024));
}

void NoteLoaded(const persist::LoadResult& res) {
  if (res.functions_skipped)
    LOG_WARNING(
        "The RDB file holds %llu function libraries: this node does not support functions, "
        "they were not loaded.",
        static_cast<unsigned long long>(res.functions_skipped));
  st.last_load_keys_loaded = res.keys_loaded;
  st.last_load_keys_expired = res.keys_expired;
  if (res.empty_keys_skipped)
    LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu, empty keys skipped: %llu.",
               static_cast<unsigned long long>(res.keys_loaded),
               static_cast<unsigned long long>(res.keys_expired),
               static_cast<unsigned long long>(res.empty_keys_skipped));
  else
    LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
               static_cast<unsigned long long>(res.keys_loaded),
               static_cast<unsigned long long>(res.keys_expired));
}

const PersistenceState& Persistence() { return st; }

std::vector<std::pair<int, std::string>> TakeKeysExpiredAtStart() {
  return std::exchange(g_expired_at_start_keys, {});
}

bool LoadSnapshotAtStartup() {
  int64_t start = base::UsTime();
  g_expired_at_start = &g_expired_at_start_keys;
  LoadStatus s = LoadFile(cfg.dbfilename, LoadMode::kReplace);
  g_expired_at_start = nullptr;
  if (s == LoadStatus::kNotExist) return true;
  if (s == LoadStatus::kError) {
    LOG_WARNING("Fatal error loading the DB, check server logs. Exiting.");
    return false;
  }
  LOG_NOTICE("DB loaded from disk: %.3f seconds",
             static_cast<double>(base::UsTime() - start) / 1e6);
  return true;
}

bool LoadSnapshotPreamble(const std::string& name, const uint8_t* p, size_t n,
                          uint64_t* consumed) {
  g_loading_aof_base = true;
  LoadStatus s = LoadRange(name, p, n, LoadMode::kMerge, consumed);
  g_loading_aof_base = false;
  return s == LoadStatus::kOk;
}

bool WriteSnapshotFile(const std::string& path, bool aof_base) {
  return SaveToFile(path, -1, UsedMemory(), false, aof_base, true);
}

bool SaveForeground() {
  if (!SaveToFile(cfg.dbfilename, -1, UsedMemory())) return false;
  LOG_NOTICE("DB saved on disk");
  g.dirty = 0;
  g.lastsave = time(nullptr);
  st.last_bgsave_ok = true;
  st.rdb_saves++;
  return true;
}

bool BgsaveInProgress() { return st.child_pid != -1; }

void NoteFork(int64_t fork_usec) {
  st.total_forks++;
  st.latest_fork_usec = fork_usec;
}

void ScheduleBgsave() { st.bgsave_scheduled = true; }

bool StartBgsave(bool for_replication, int* tail_fd) {
  if (st.child_pid != -1) return false;
  if (OtherChildActive()) {
    LOG_WARNING("Can't save in background: another child process is active");
    return false;
  }
  st.last_bgsave_try = time(nullptr);
  // Replicas read the file while the child writes it: the parent makes it (so the descriptor
  // is the child's file, never a stale one of that name) and the child writes into it.
  if (tail_fd) {
    *tail_fd = -1;
    std::string path = "temp-" + std::to_string(getpid()) + "-sync.rdb";
    unlink(path.c_str());
    int w = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w >= 0) {
      close(w);
      *tail_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (*tail_fd >= 0)
        g_tmp_override = path;
      else
        unlink(path.c_str());
    }
  }
  int pfd[2] = {-1, -1};
  if (pipe2(pfd, O_NONBLOCK | O_CLOEXEC) != 0) pfd[0] = pfd[1] = -1;
  uint64_t used = UsedMemory();
  uint64_t keys = 0;
  for (int i = 0; i < NumDbs(); i++) keys += GetDb(i)->Size();
  Cluster().before_snapshot();
  int64_t start = base::UsTime();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    if (pfd[0] >= 0) close(pfd[0]);
    RunChild(parent, pfd[1], used, for_replication);
  }
  st.latest_fork_usec = base::UsTime() - start;
  if (pfd[1] >= 0) close(pfd[1]);
  g_child_file = g_tmp_override.empty() ? TempFileName(pid) : g_tmp_override;
  g_tmp_override.clear();
  if (pid < 0) {
    int err = errno;
    if (pfd[0] >= 0) close(pfd[0]);
    if (tail_fd && *tail_fd >= 0) {
      close(*tail_fd);
      *tail_fd = -1;
      unlink(g_child_file.c_str());
    }
    st.last_bgsave_ok = false;
    LOG_WARNING("Can't save in background: fork: %s", strerror(err));
    return false;
  }
  NoteFork(st.latest_fork_usec);
  st.rdb_saves++;
  g_child_pipe = pfd[0];
  st.child_pid = pid;
  g_child_for_replication = for_replication;
  st.child_start_ms = base::MsTime();
  st.dirty_at_fork = g.dirty;
  st.save_keys_total = keys;
  st.save_keys_processed = 0;
  st.cow_size = st.cow_peak = 0;
  SetResizeAllowed(false);
  g_child_pidfd = WatchChild(pid, CheckChildDone);
  LOG_NOTICE("Background saving started by pid %ld", static_cast<long>(pid));
  return true;
}

namespace {
void OnChildExit(int, void* data, int) { reinterpret_cast<void (*)()>(data)(); }
}  // namespace

int WatchChild(pid_t pid, void (*on_exit)()) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));  // close-on-exec
  if (fd < 0) return -1;
  if (!g.loop->AddFile(fd, net::kReadable, OnChildExit, reinterpret_cast<void*>(on_exit))) {
    close(fd);
    return -1;
  }
  return fd;
}

void UnwatchChild(int* fd) {
  if (*fd < 0) return;
  g.loop->DelFile(*fd, net::kReadable);
  close(*fd);
  *fd = -1;
}

void KillSnapshotChild() {
  if (st.child_pid == -1) return;
  pid_t pid = st.child_pid;
  kill(pid, SIGUSR1);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  DrainChildPipe();
  BgsaveDone(-1, SIGUSR1);
}

void StopWithParent(pid_t parent, const char* tmp_path) {
  Cluster().in_child();
  SetOomScoreAdj(cfg.oom_score_adj, kOomBgChild);
  g_parent_pid = parent;
  snprintf(g_child_tmp, sizeof(g_child_tmp), "%s", tmp_path);
  struct sigaction sa = {};
  sa.sa_handler = OnParentDeath;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(1);  // died before the request: nobody will signal us
}

void AddBgsaveDoneHook(std::function<void(bool)> fn) { g_done_hooks.push_back(std::move(fn)); }

void NoteSocketSnapshot(int64_t start_ms) { g_socket_snapshot_start_ms = start_ms; }

void AddOtherChildCheck(std::function<bool()> active, std::function<void()> kill_on_flushall) {
  g_other_children.push_back({std::move(active), std::move(kill_on_flushall)});
}

bool OtherChildActive() {
  for (auto& c : g_other_children)
    if (c.active()) return true;
  return false;
}

bool BgsaveForReplicasInProgress() { return st.child_pid != -1 && g_child_for_replication; }

bool ForkedChildRunning() { return st.child_pid != -1 || OtherChildActive(); }

void PersistenceCron() {
  CheckChildDone();
  if (ForkedChildRunning()) return;
  int64_t now = time(nullptr);
  bool may_retry = st.last_bgsave_ok || now - st.last_bgsave_try > kBgsaveRetryDelay;
  if (!may_retry) return;
  for (const SavePoint& sp : SavePoints()) {
    if (g.dirty >= sp.changes && now - g.lastsave > sp.seconds) {
      LOG_NOTICE("%lld changes in %lld seconds. Saving...", static_cast<long long>(sp.changes),
                 static_cast<long long>(sp.seconds));
      StartBgsave();
      return;
    }
  }
  if (st.bgsave_scheduled && StartBgsave()) st.bgsave_scheduled = false;
}

bool ShutdownSave(bool save, bool nosave, bool force) {
  if (st.child_pid != -1) {
    LOG_WARNING("There is a child saving an .rdb. Killing it!");
    KillSnapshotChild();
  }
  if ((HasSavePoints() && !nosave) || save) {
    LOG_NOTICE("Saving the final RDB snapshot before exiting.");
    if (!SaveForeground()) {
      if (!force) {
        LOG_WARNING("Error trying to save the DB, can't exit.");
        return false;
      }
      LOG_WARNING("Error trying to save the DB. Exit anyway.");
    }
  }
  Cluster().shutdown();
  return true;
}

void AfterFlushAll() {
  // A snapshot of the data just flushed is of no use: killed, as Valkey 8's FLUSHALL kills
  // its RDB child, whether it writes a file or streams to replicas (they sync again).
  KillSnapshotChild();
  for (auto& c : g_other_children)
    if (c.kill_on_flushall && c.active()) c.kill_on_flushall();
  if (HasSavePoints()) SaveForeground();
}

std::string ErrMisconf() {
  std::string name = ServerTitle();
  return "-MISCONF " + name +
         " is configured to save RDB snapshots, but it's currently unable to persist to disk. "
         "Commands that may modify the data set are disabled, because this instance is "
         "configured to report errors during writes if RDB snapshotting fails "
         "(stop-writes-on-bgsave-error option). Please check the " +
         name + " logs for details about the RDB error.";
}

bool WritesDeniedByDiskError() {
  return cfg.stop_writes_on_bgsave_error && !st.last_bgsave_ok && HasSavePoints();
}

void DebugReloadCommand(Client* c) {
  bool merge = false, flush = true, save = true;
  for (size_t i = 2; i < c->argv.size(); i++) {
    std::string o = base::ToLower(c->argv[i]);
    if (o == "merge")
      merge = true;
    else if (o == "noflush")
      flush = false;
    else if (o == "nosave")
      save = false;
    else
      return c->R().Error("DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
  }
  if (save && !SaveForeground()) return c->R().Error("-ERR");
  LoadMode mode = flush ? LoadMode::kReplace : merge ? LoadMode::kMerge : LoadMode::kAdd;
  if (LoadFile(cfg.dbfilename, mode) != LoadStatus::kOk)
    return c->R().Error("Error trying to load the RDB dump, check server logs.");
  LOG_NOTICE("DB reloaded by DEBUG RELOAD");
  c->R().Ok();
}

void AppendPersistenceInfo(std::string* s) {
  auto line = [s](const std::string& k, const std::string& v) { *s += k + ":" + v + "\r\n"; };
  auto num = [&](const char* k, long long v) { line(k, std::to_string(v)); };
  bool child = st.child_pid != -1;
  int64_t now_ms = base::MsTime();
  *s += "# Persistence\r\n";
  num("loading", Loading() ? 1 : 0);
  num("async_loading", AsyncLoading() ? 1 : 0);
  num("current_cow_peak", static_cast<long long>(st.cow_peak));
  num("current_cow_size", static_cast<long long>(st.cow_size));
  num("current_cow_size_age", st.cow_updated_ms ? (now_ms - st.cow_updated_ms) / 1000 : 0);
  char perc[32];
  snprintf(perc, sizeof(perc), "%.2f",
           child && st.save_keys_total ? 100.0 * st.save_keys_processed / st.save_keys_total : 0.0);
  line("current_fork_perc", perc);
  num("current_save_keys_processed", static_cast<long long>(st.save_keys_processed));
  num("current_save_keys_total", static_cast<long long>(st.save_keys_total));
  num("rdb_changes_since_last_save", g.dirty);
  int64_t save_start_ms = child ? st.child_start_ms : g_socket_snapshot_start_ms;
  num("rdb_bgsave_in_progress", save_start_ms ? 1 : 0);
  num("rdb_last_save_time", g.lastsave);
  line("rdb_last_bgsave_status", st.last_bgsave_ok ? "ok" : "err");
  num("rdb_last_bgsave_time_sec", st.last_bgsave_time_sec);
  num("rdb_current_bgsave_time_sec", save_start_ms ? (now_ms - save_start_ms) / 1000 : -1);
  num("rdb_saves", static_cast<long long>(st.rdb_saves));
  num("rdb_last_cow_size", static_cast<long long>(st.last_cow_size));
  num("rdb_last_load_keys_expired", static_cast<long long>(st.last_load_keys_expired));
  num("rdb_last_load_keys_loaded", static_cast<long long>(st.last_load_keys_loaded));
}

void ResetPersistenceStats() {
  st.total_forks = 0;
  st.latest_fork_usec = 0;
  st.rdb_saves = 0;
}

void SetResizeAllowed(bool allowed) {
  db::KeyTable::SetResizeAllowed(allowed);
  db::ExpireSet::SetResizeAllowed(allowed);
  db::HashTableT::SetResizeAllowed(allowed);
  db::SetTableT::SetResizeAllowed(allowed);
  db::ZSetSetResizeAllowed(allowed);
}

}  // namespace server
