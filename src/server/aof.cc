// The append-only file: feed, write and sync, the manifest, loading, and the rewrite child.
//
// Files live in appenddirname (inside `dir`): the base file, the incremental files and the
// manifest that names them (persist/aof_format.h). The node appends to the last incremental
// file. A rewrite first opens a new incremental file (and records it in the manifest, so that
// a failed rewrite leaves a complete list), then forks a child that writes the data set as a
// new base file; when the child succeeds the manifest names the new base and the new
// incremental file only, and the files before them are deleted.
#include "server/aof.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "net/reply.h"
#include "persist/aof_format.h"
#include "persist/object_codec.h"
#include "server/bio.h"
#include "server/blocking.h"
#include "server/cluster_hooks.h"
#include "server/command.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/loading.h"
#include "server/persistence.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/transactions.h"

namespace server {

namespace {

enum class Status { kOff, kOn, kWaitRewrite };
enum Fsync { kAlways = 0, kEverysec = 1, kNo = 2 };

struct Aof {
  Status status = Status::kOff;
  int fd = -1;
  std::string buf;
  int select_db = -1;
  bool in_tx = false;
  std::vector<std::pair<int, std::string>> tx;  // the open transaction: db, encoded command
  int64_t last_ts = 0;          // aof-timestamp-enabled: the last #TS annotation
  persist::AofManifest manifest;
  uint64_t incr_size = 0;     // bytes in the file being appended to
  uint64_t current_size = 0;  // base + every incremental file (aof_current_size)
  uint64_t base_size = 0;     // current_size after the last rewrite (aof_base_size)
  uint64_t written = 0;       // bytes written since start, across files (fsync offsets)
  int64_t last_fsync_ms = 0;
  uint64_t fsync_asked = 0;  // `written` when the last fsync was asked for
  uint64_t fsynced = 0;      // `written` known on disk (always: at once; everysec: the thread)
  // A replica: the primary's offset its file held at a point of `written`, so that the
  // offset synced to disk can be acknowledged (REPLCONF ACK ... FACK).
  std::vector<std::pair<uint64_t, int64_t>> repl_marks;
  int64_t fsynced_reploff = 0;
  // The primary's offset when the first base after turning on (or after a full sync) forked:
  // what that base holds, on disk once the rewrite succeeds.
  int64_t fork_reploff = 0;
  int64_t postponed_since_ms = 0;
  uint64_t delayed_fsync = 0;
  bool last_write_ok = true;
  int last_write_errno = 0;
  // rewrite
  pid_t child = -1;
  int64_t child_start_ms = 0;
  bool child_rdb_preamble = true;  // the format the child writes, fixed when it forked
  bool scheduled = false;
  int64_t last_rewrite_sec = -1;
  bool last_rewrite_ok = true;
  uint64_t rewrites = 0, consecutive_failures = 0;
  int64_t last_failure_ms = 0;
  bool loading = false;
};
Aof aof_;

// write(2) until all is written (files only; EINTR retried).
bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string DirPath(const std::string& name) { return cfg.appenddirname + "/" + name; }
std::string ManifestName() { return cfg.appendfilename + ".manifest"; }
std::string TempIncrName() { return "temp-" + cfg.appendfilename + ".incr"; }
// Inside the AOF directory (Valkey writes it in `dir`): the rename that installs it never
// crosses file systems, even when appenddirname is a mount of its own.
std::string RewriteTempName(pid_t pid) {
  return DirPath("temp-rewriteaof-bg-" + std::to_string(pid) + ".aof");
}

uint64_t FileSize(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 ? static_cast<uint64_t>(sb.st_size) : 0;
}

bool FsyncDir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY);
  if (fd < 0) return false;
  bool ok = fsync(fd) == 0 || errno == EINVAL;
  close(fd);
  return ok;
}

// Writes the manifest to a temp file, syncs it and renames it into place.
bool PersistManifest(const persist::AofManifest& m) {
  std::string text = persist::FormatAofManifest(m);
  std::string tmp = DirPath("temp-" + ManifestName());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Can't open the AOF manifest file %s: %s", tmp.c_str(), strerror(errno));
    return false;
  }
  bool ok = WriteAll(fd, text.data(), text.size()) && fsync(fd) == 0;
  int err = errno;
  close(fd);
  if (ok && rename(tmp.c_str(), DirPath(ManifestName()).c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    LOG_WARNING("Can't persist the AOF manifest file %s: %s", ManifestName().c_str(),
                strerror(err));
    unlink(tmp.c_str());
    return false;
  }
  FsyncDir(cfg.appenddirname);
  return true;
}

std::string NewIncrName(persist::AofManifest* m) {
  persist::AofFile f;
  f.seq = ++m->incr_seq;
  f.type = 'i';
  f.name = cfg.appendfilename + "." + std::to_string(f.seq) + ".incr.aof";
  m->incr.push_back(f);
  return f.name;
}

// Names a new base file; the old base (if any) becomes history.
std::string NewBaseName(persist::AofManifest* m, bool rdb) {
  if (m->has_base) {
    m->base.type = 'h';
    m->history.push_back(m->base);
  }
  m->has_base = true;
  m->base.seq = ++m->base_seq;
  m->base.type = 'b';
  m->base.name = cfg.appendfilename + "." + std::to_string(m->base.seq) + ".base." +
                 (rdb ? "rdb" : "aof");
  return m->base.name;
}

// Deletes the files the manifest keeps as history, then writes the manifest without them.
void DeleteHistory(persist::AofManifest* m) {
  if (m->history.empty()) return;
  for (auto& f : m->history) {
    LOG_NOTICE("Removing the history file %s in the background", f.name.c_str());
    unlink(DirPath(f.name).c_str());
  }
  m->history.clear();
  PersistManifest(*m);
}

// The data set as a base file at `path` (snapshot preamble, or commands), written to
// `path`.tmp in the same directory and renamed.
bool WriteBase(const std::string& path) {
  std::string tmp = path + ".tmp";
  if (cfg.aof_use_rdb_preamble) {
    if (!WriteSnapshotFile(tmp, true)) {
      unlink(tmp.c_str());
      return false;
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
      LOG_WARNING("Error moving the temp AOF base file %s into place: %s", tmp.c_str(),
                  strerror(errno));
      unlink(tmp.c_str());
      return false;
    }
    return true;
  }
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s",
                strerror(errno));
    return false;
  }
  std::string out;
  if (cfg.aof_timestamp_enabled) out += "#TS:" + std::to_string(time(nullptr)) + "\r\n";
  bool ok = true;
  for (int i = 0; i < NumDbs() && ok; i++) {
    db::Db* d = GetDb(i);
    if (d->Size() == 0) continue;
    std::string id = std::to_string(i);
    net::AppendCommand(&out, {"SELECT", id});
    d->ForEach([&](db::Obj* o) {
      if (!ok) return;
      persist::AppendKeyAsCommands(&out, o->key(), persist::ToValue(o), o->expire());
      if (out.size() > (1 << 20)) {
        ok = WriteAll(fd, out.data(), out.size());
        out.clear();
      }
    });
  }
  ok = ok && WriteAll(fd, out.data(), out.size()) && fsync(fd) == 0;
  int err = errno;
  close(fd);
  if (ok && rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    LOG_WARNING("Write error writing append only file on disk: %s", strerror(err));
    unlink(tmp.c_str());
  }
  return ok;
}

int OpenForAppend(const std::string& path, bool truncate) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0),
                0644);
  if (fd < 0) LOG_WARNING("Can't open the append-only file %s: %s", path.c_str(), strerror(errno));
  return fd;
}

// Replaces the file written to: the old one is synced and closed by the helper thread.
void SwitchFd(int fd, uint64_t size) {
  if (aof_.fd >= 0) {
    BioFsync(aof_.fd, aof_.written);
    BioClose(aof_.fd);
  }
  aof_.fd = fd;
  aof_.incr_size = size;
  // A file starts with its own SELECT (and timestamp): it may be loaded after a new base.
  aof_.select_db = -1;
  aof_.last_ts = 0;
}

// ---- writing ----

// aof-timestamp-enabled: an annotation line when the second changed.
void Annotate(std::string* out) {
  if (!cfg.aof_timestamp_enabled) return;
  int64_t now = time(nullptr);
  if (now == aof_.last_ts) return;
  *out += "#TS:" + std::to_string(now) + "\r\n";
  aof_.last_ts = now;
}

void SelectIfNeeded(std::string* out, int dbid) {
  if (dbid == aof_.select_db) return;
  std::string id = std::to_string(dbid);
  net::AppendCommand(out, {"SELECT", id});
  aof_.select_db = dbid;
}

bool ChildRunning() { return aof_.child != -1; }

void FsyncIfDue(bool force) {
  if (aof_.fd < 0 || aof_.written == aof_.fsync_asked) return;
  if (cfg.no_appendfsync_on_rewrite && (ChildRunning() || BgsaveInProgress())) return;
  int64_t now = base::MsTime();
  if (cfg.appendfsync == kAlways) {
    if (fdatasync(aof_.fd) != 0 && errno != EINVAL) {
      LOG_WARNING(
          "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. "
          "Exiting...",
          strerror(errno));
      exit(1);
    }
    aof_.fsync_asked = aof_.written;
    aof_.fsynced = aof_.written;
    aof_.last_fsync_ms = now;
  } else if (cfg.appendfsync == kEverysec || force) {
    if ((force || now - aof_.last_fsync_ms >= 1000) && BioPendingFsyncs() == 0) {
      BioFsync(aof_.fd, aof_.written);
      aof_.fsync_asked = aof_.written;
      aof_.last_fsync_ms = now;
    }
  }
}

// Writes the buffer to the file. `force`: even while an everysec fsync is still running.
void Flush(bool force) {
  if (aof_.fd < 0) return;
  if (aof_.buf.empty()) {
    FsyncIfDue(false);
    return;
  }
  if (cfg.appendfsync == kEverysec && !force && BioPendingFsyncs() > 0) {
    // A slow disk: hold the data up to 2 s rather than block behind the running fsync.
    int64_t now = base::MsTime();
    if (aof_.postponed_since_ms == 0) {
      aof_.postponed_since_ms = now;
      return;
    }
    if (now - aof_.postponed_since_ms < 2000) return;
    aof_.delayed_fsync++;
    LOG_NOTICE(
        "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "
        "without waiting for fsync to complete, this may slow down the server.");
  }
  aof_.postponed_since_ms = 0;
  if (g.aof_flush_sleep_us > 0) usleep(static_cast<useconds_t>(g.aof_flush_sleep_us));
  size_t done = 0;
  while (done < aof_.buf.size()) {
    ssize_t w = write(aof_.fd, aof_.buf.data() + done, aof_.buf.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  if (done < aof_.buf.size()) {
    int err = done == 0 ? errno : ENOSPC;
    // Retried every cron: logged at most every 30 s, as Valkey does.
    static int64_t last_log_ms = 0;
    int64_t now_ms = base::MsTime();
    if (now_ms - last_log_ms >= 30000) {
      last_log_ms = now_ms;
      if (done == 0)
        LOG_WARNING("Error writing to the AOF file: %s", strerror(err));
      else
        LOG_WARNING("Short write while writing to the AOF file: (nwritten=%lld, expected=%lld)",
                    static_cast<long long>(done), static_cast<long long>(aof_.buf.size()));
    }
    // Take the partial command back out, so the file never holds half a command.
    if (done > 0 && ftruncate(aof_.fd, static_cast<off_t>(aof_.incr_size)) != 0) {
      // It stays: account for it and keep only the rest to write.
      aof_.incr_size += done;
      aof_.current_size += done;
      aof_.written += done;
      aof_.buf.erase(0, done);
    }
    if (cfg.appendfsync == kAlways) {
      LOG_WARNING(
          "Can't recover from AOF write error when the AOF fsync policy is 'always'. "
          "Exiting...");
      exit(1);
    }
    aof_.last_write_ok = false;
    aof_.last_write_errno = err;
    return;
  }
  if (!aof_.last_write_ok) {
    LOG_WARNING("AOF write error looks solved, the server can write again.");
    aof_.last_write_ok = true;
  }
  aof_.incr_size += done;
  aof_.current_size += done;
  aof_.written += done;
  if (Repl().is_replica()) {
    if (aof_.repl_marks.size() >= 64) aof_.repl_marks.erase(aof_.repl_marks.begin());
    aof_.repl_marks.emplace_back(aof_.written, Repl().offset());
  }
  aof_.buf.clear();
  if (aof_.buf.capacity() > (4u << 20)) std::string().swap(aof_.buf);
  FsyncIfDue(false);
}

// ---- rewrite ----

void RewriteDone(bool ok, int bysignal);

[[noreturn]] void RunRewriteChild(pid_t parent) {
  base::SetLogRoleChar('C');
  SetProcTitle("valkey-aof-rewrite");
  signal(SIGINT, SIG_DFL);
  signal(SIGUSR1, SIG_DFL);
  std::string tmp = RewriteTempName(getpid());
  std::string writing = tmp + ".tmp";  // what WriteBase writes before its rename
  StopWithParent(parent, writing.c_str());
  for (int fd : g.listen_fds) close(fd);
  if (g.unix_fd >= 0) close(g.unix_fd);
  bool ok = WriteBase(tmp);
  if (ok) LOG_NOTICE("Successfully created the temporary AOF base file %s", tmp.c_str());
  _exit(ok ? 0 : 1);
}

bool StartRewrite() {
  if (ChildRunning() || BgsaveInProgress() || OtherChildActive() || Cluster().imports_running())
    return false;
  Cluster().aof_rewrite_starting();  // before the flush: an ABORT it writes is in the old file
  Flush(true);
  if (aof_.fd >= 0 && aof_.written != aof_.fsync_asked) BioFsync(aof_.fd, aof_.written);
  // The writes made from now on go to a new incremental file.
  if (aof_.status == Status::kOn) {
    persist::AofManifest m = aof_.manifest;
    std::string name = NewIncrName(&m);
    int fd = OpenForAppend(DirPath(name), true);
    if (fd < 0) return false;
    if (!PersistManifest(m)) {
      close(fd);
      unlink(DirPath(name).c_str());
      return false;
    }
    aof_.manifest = m;
    SwitchFd(fd, 0);
    LOG_NOTICE("Creating AOF incr file %s on background rewrite", name.c_str());
  } else if (aof_.status == Status::kWaitRewrite) {
    aof_.fork_reploff = Repl().offset();
    // (With the AOF off, BGREWRITEAOF writes a base and nothing else: no incremental file.)
    int fd = OpenForAppend(DirPath(TempIncrName()), true);
    if (fd < 0) return false;
    SwitchFd(fd, 0);
    // The first base: what was fed before the fork is in the child's snapshot, so it must
    // not also open the temp incr file (a load would apply an INCR twice).
    aof_.buf.clear();
  }
  int64_t start = base::UsTime();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) RunRewriteChild(parent);
  if (pid < 0) {
    LOG_WARNING("Can't rewrite append only file in background: fork: %s", strerror(errno));
    aof_.last_rewrite_ok = false;
    aof_.consecutive_failures++;
    aof_.last_failure_ms = base::MsTime();
    return false;
  }
  NoteFork(base::UsTime() - start);
  aof_.child = pid;
  aof_.child_start_ms = base::MsTime();
  aof_.child_rdb_preamble = cfg.aof_use_rdb_preamble;
  aof_.scheduled = false;
  SetResizeAllowed(false);
  LOG_NOTICE("Background append only file rewriting started by pid %ld", static_cast<long>(pid));
  return true;
}

void RewriteDone(bool ok, int bysignal) {
  pid_t pid = aof_.child;
  aof_.child = -1;
  SetResizeAllowed(true);
  aof_.last_rewrite_sec = (base::MsTime() - aof_.child_start_ms) / 1000;
  std::string tmp = RewriteTempName(pid);
  if (ok) {
    LOG_NOTICE("Background AOF rewrite terminated with success");
    persist::AofManifest m = aof_.manifest;
    // Named for what the child wrote: aof-use-rdb-preamble may have changed since it forked.
    std::string base = NewBaseName(&m, aof_.child_rdb_preamble);
    bool done = rename(tmp.c_str(), DirPath(base).c_str()) == 0;
    if (!done)
      LOG_WARNING("Error trying to rename the temporary AOF base file %s into %s: %s",
                  tmp.c_str(), base.c_str(), strerror(errno));
    std::string incr_name;
    if (done && aof_.status == Status::kWaitRewrite) {
      incr_name = NewIncrName(&m);
      done = rename(DirPath(TempIncrName()).c_str(), DirPath(incr_name).c_str()) == 0;
      if (!done)
        LOG_WARNING("Error trying to rename the temporary AOF incr file %s into %s: %s",
                    TempIncrName().c_str(), incr_name.c_str(), strerror(errno));
    }
    if (done) {
      // Every incremental file is history but the one being written (opened when the rewrite
      // started); with the AOF off, none is (Valkey 8's markRewrittenIncrAofAsHistory).
      size_t keep = aof_.fd >= 0 ? 1 : 0;
      while (m.incr.size() > keep) {
        persist::AofFile f = m.incr.front();
        f.type = 'h';
        m.history.push_back(f);
        m.incr.erase(m.incr.begin());
      }
      done = PersistManifest(m);
    }
    if (done) {
      LOG_NOTICE("Successfully renamed the temporary AOF base file %s into %s", tmp.c_str(),
                 base.c_str());
      aof_.manifest = m;
      DeleteHistory(&aof_.manifest);
      aof_.current_size = FileSize(DirPath(base)) + aof_.incr_size;
      aof_.base_size = aof_.current_size;
      if (aof_.status == Status::kWaitRewrite) {
        aof_.status = Status::kOn;
        // The base holds everything up to the fork, on disk: acknowledged from now (a replica
        // with appendfsync no had nothing else to acknowledge after a full sync).
        aof_.fsynced_reploff = std::max(aof_.fsynced_reploff, aof_.fork_reploff);
        LOG_NOTICE("Background AOF rewrite finished successfully (AOF enabled)");
      } else {
        LOG_NOTICE("Background AOF rewrite finished successfully");
      }
      aof_.rewrites++;
      aof_.last_rewrite_ok = true;
      aof_.consecutive_failures = 0;
      return;
    }
    unlink(DirPath(base).c_str());
  } else if (bysignal) {
    LOG_WARNING("Background AOF rewrite terminated by signal %d", bysignal);
  } else {
    LOG_WARNING("Background AOF rewrite terminated with error");
  }
  unlink(tmp.c_str());
  if (bysignal != SIGUSR1) {
    aof_.last_rewrite_ok = false;
    aof_.consecutive_failures++;
    aof_.last_failure_ms = base::MsTime();
  }
  // appendonly yes is still waiting for its first rewrite: try again from cron. What the
  // temp incr file took is in the next child's snapshot: it goes (Valkey 8's
  // aofDelTempIncrAofFile), and the next try opens a new one.
  if (aof_.status == Status::kWaitRewrite) {
    aof_.scheduled = true;
    SwitchFd(-1, 0);
    aof_.buf.clear();
    LOG_NOTICE("Removing the temp incr aof file %s in the background", TempIncrName().c_str());
    unlink(DirPath(TempIncrName()).c_str());
  }
}

void CheckChild() {
  if (!ChildRunning()) return;
  int status = 0;
  pid_t r = waitpid(aof_.child, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  if (r < 0) {
    RewriteDone(false, 0);
    return;
  }
  if (WIFSIGNALED(status))
    RewriteDone(false, WTERMSIG(status));
  else
    RewriteDone(WIFEXITED(status) && WEXITSTATUS(status) == 0, 0);
}

void KillChild() {
  if (!ChildRunning()) return;
  pid_t pid = aof_.child;
  kill(pid, SIGUSR1);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  RewriteDone(false, SIGUSR1);
}

// ---- loading ----

// Runs one command read from the AOF through a client that answers no one.
bool Execute(Client* fake, const std::vector<std::string_view>& argv, const std::string& file,
             std::string* err) {
  const CommandSpec* cmd = LookupRealCommand(argv[0]);
  if (!cmd) cmd = LookupCommand(argv[0]);
  if (cmd && !cmd->subcommands.empty() && argv.size() >= 2) {
    const CommandSpec* sub = nullptr;
    for (auto& s : cmd->subcommands)
      if (base::EqualsNoCase(argv[1], s.name)) sub = &s;
    cmd = sub;
  }
  if (!cmd) {
    *err = "Unknown command '" + std::string(argv[0].substr(0, 128)) +
           "' reading the append only file " + file;
    return false;
  }
  int argc = static_cast<int>(argv.size());
  if ((cmd->arity > 0 && argc != cmd->arity) || (cmd->arity < 0 && argc < -cmd->arity)) {
    *err = "Wrong number of arguments for '" + std::string(cmd->name) +
           "' reading the append only file " + file;
    return false;
  }
  // Slot ownership lives in nodes.conf: a CLUSTER SETSLOT in an AOF (ours wrote them until
  // SETSLOT went to replicas only) is history; replayed at start it took back slots moved away
  // since, and the nodes holding them now deleted their keys as a newer owner's.
  if (cmd->fullname == "cluster|setslot") return true;
  fake->argv = argv;
  std::string_view name = cmd->name;
  fake->last_cmd = cmd;
  if (fake->InMulti() && name != "exec" && name != "discard" && name != "multi") {
    QueueCommand(fake, cmd);
  } else {
    uint64_t errors_before = g.stats.error_seq;
    Call(fake, cmd);
    if (g.stats.error_seq != errors_before) ReportLinkError(fake, true);
  }
  fake->discard.clear();
  return true;
}

enum class FileLoad { kOk, kEmpty, kTruncatedFixed, kFailed };

// Loads one file of the AOF. `last`: a cut-short tail may be truncated (aof-load-truncated).
FileLoad LoadOne(const persist::AofFile& f, bool last, Client* fake) {
  std::string path = DirPath(f.name);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    LOG_WARNING("Fatal error: can't open the append log file %s for reading: %s", f.name.c_str(),
                strerror(errno));
    return FileLoad::kFailed;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    close(fd);
    return FileLoad::kFailed;
  }
  size_t n = static_cast<size_t>(sb.st_size);
  if (n == 0) {
    close(fd);
    return FileLoad::kEmpty;
  }
  void* map = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    LOG_WARNING("Fatal error: can't map the append log file %s: %s", f.name.c_str(),
                strerror(errno));
    close(fd);
    return FileLoad::kFailed;
  }
  const uint8_t* p = static_cast<const uint8_t*>(map);
  size_t start = 0;
  FileLoad result = FileLoad::kOk;
  if (n >= 5 && memcmp(p, "REDIS", 5) == 0) {
    LOG_NOTICE("Reading RDB base file on AOF loading...");
    uint64_t consumed = 0;
    if (!LoadSnapshotPreamble(f.name, p, n, &consumed)) {
      munmap(map, n);
      close(fd);
      return FileLoad::kFailed;
    }
    LOG_NOTICE("Reading the remaining AOF tail...");
    start = static_cast<size_t>(consumed);
  }
  persist::AofReader r(p, n, start);
  size_t valid = start, valid_before_multi = start;
  std::string err;
  uint64_t commands = 0;
  while (true) {
    persist::AofReader::Status s = r.Next();
    if (s == persist::AofReader::kCommand) {
      bool was_multi = fake->InMulti();
      // Every 1024 commands outside a transaction the node serves meanwhile (loading.h), as
      // Valkey 8's AOF load does; key-load-delay per command.
      KeyLoadDelay(cfg.key_load_delay);
      LoadingProgress().loaded_bytes = LoadingProgress().base + r.pos();
      if (++commands % 1024 == 0 && !was_multi) ServeWhileLoading();
      if (!Execute(fake, r.argv(), f.name, &err)) {
        LOG_WARNING("%s", err.c_str());
        result = FileLoad::kFailed;
        break;
      }
      if (!was_multi && fake->InMulti()) valid_before_multi = valid;
      valid = r.pos();
      continue;
    }
    if (s == persist::AofReader::kBadFormat) {
      LOG_WARNING(
          "Bad file format reading the append only file %s at offset %zu: make a backup of "
          "your AOF file, then use ./valkey-check-aof --fix <filename.manifest>",
          f.name.c_str(), r.error_offset());
      result = FileLoad::kFailed;
      break;
    }
    size_t good = valid;
    if (s == persist::AofReader::kEnd) {
      if (!fake->InMulti()) break;  // complete
      LOG_WARNING("Revert incomplete MULTI/EXEC transaction in AOF file %s", f.name.c_str());
    }
    if (fake->InMulti()) {
      DiscardTransaction(fake);
      good = valid_before_multi;
    }
    // Cut short: only the end of the last file may be, and then only when allowed.
    if (!last || !cfg.aof_load_truncated) {
      LOG_WARNING(
          "Unexpected end of file reading the append only file %s. You can: 1) Make a backup "
          "of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>. 2) "
          "Alternatively you can set the 'aof-load-truncated' configuration option to yes and "
          "restart the server.",
          f.name.c_str());
      result = FileLoad::kFailed;
      break;
    }
    LOG_WARNING("!!! Warning: short read while loading the AOF file %s!!!", f.name.c_str());
    LOG_WARNING("!!! Truncating the AOF %s at offset %llu !!!", f.name.c_str(),
                static_cast<unsigned long long>(good));
    if (ftruncate(fd, static_cast<off_t>(good)) != 0) {
      LOG_WARNING("Error truncating the AOF file %s: %s", f.name.c_str(), strerror(errno));
      result = FileLoad::kFailed;
      break;
    }
    LOG_WARNING("AOF %s loaded anyway because aof-load-truncated is enabled", f.name.c_str());
    result = FileLoad::kTruncatedFixed;
    break;
  }
  munmap(map, n);
  close(fd);
  return result;
}

// Reads the manifest; false with nothing loaded when it is absent (`*exists` false) or bad.
bool ReadManifest(persist::AofManifest* m, bool* exists) {
  std::string path = DirPath(ManifestName());
  std::string text;
  *exists = base::ReadWholeFile(path, &text);
  if (!*exists) {
    if (errno == ENOENT) return false;
    *exists = true;  // there, but unreadable: the start stops
    LOG_WARNING("Fatal error: can't open the AOF manifest %s for reading: %s",
                ManifestName().c_str(), strerror(errno));
    return false;
  }
  std::string err;
  persist::ManifestErrorAt where;
  if (!persist::ParseAofManifest(text, m, &err, &where)) {
    LOG_WARNING("\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
    if (where.line) {
      LOG_WARNING("Reading the manifest file, at line %d\n", where.line);
      LOG_WARNING(">>> '%s'\n", where.text.c_str());
    }
    LOG_WARNING("%s\n", err.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool AofActive() { return aof_.status != Status::kOff; }

uint64_t AofBufferBytes() { return aof_.status == Status::kOff ? 0 : aof_.buf.capacity(); }

bool AofLoading() { return aof_.loading; }

uint64_t AofStreamOffset() { return aof_.written + aof_.buf.size(); }

uint64_t AofFsyncedOffset() {
  if (cfg.appendfsync != kAlways) {
    uint64_t b = BioFsyncedOffset();
    if (b > aof_.fsynced) aof_.fsynced = b;
  }
  return aof_.fsynced;
}

// Until the first base after turning on is written, nothing is on disk in this AOF.
bool AofLocalSynced(uint64_t offset) {
  return aof_.status == Status::kOn && AofFsyncedOffset() >= offset;
}

int64_t AofFsyncedReplOffset() {
  // Until the first base is written, nothing since the AOF (re)started is on disk in it.
  if (aof_.status == Status::kWaitRewrite) return aof_.fsynced_reploff;
  uint64_t synced = AofFsyncedOffset();
  while (!aof_.repl_marks.empty() && aof_.repl_marks.front().first <= synced) {
    aof_.fsynced_reploff = aof_.repl_marks.front().second;
    aof_.repl_marks.erase(aof_.repl_marks.begin());
  }
  // Nothing unsynced left: everything applied so far is on disk.
  if (aof_.repl_marks.empty() && aof_.buf.empty() && synced == aof_.written)
    aof_.fsynced_reploff = Repl().offset();
  return aof_.fsynced_reploff;
}

bool AofFsyncPending() { return BioPendingFsyncs() > 0 || aof_.written != aof_.fsync_asked; }

void AofFeed(int dbid, const std::vector<std::string_view>& argv) {
  // Waiting to start the first base (another child runs): no file yet, and the base will hold
  // these writes.
  if (aof_.status == Status::kOff || aof_.loading || aof_.fd < 0) return;
  if (aof_.in_tx) {
    aof_.tx.emplace_back(dbid, std::string());
    net::AppendCommand(&aof_.tx.back().second, argv);
    return;
  }
  Annotate(&aof_.buf);
  SelectIfNeeded(&aof_.buf, dbid);
  net::AppendCommand(&aof_.buf, argv);
}

void AofBeginTransaction() {
  aof_.in_tx = true;
  aof_.tx.clear();
}

void AofEndTransaction() {
  aof_.in_tx = false;
  if (aof_.tx.empty() || aof_.status == Status::kOff) {
    aof_.tx.clear();
    return;
  }
  Annotate(&aof_.buf);
  // One write is written alone; more are wrapped so that a load applies all or none, MULTI
  // before the SELECT of its first command, as Valkey 8 writes it (and as the stream goes).
  bool wrap = aof_.tx.size() > 1;
  if (wrap) net::AppendCommand(&aof_.buf, {"MULTI"});
  for (auto& [dbid, cmd] : aof_.tx) {
    SelectIfNeeded(&aof_.buf, dbid);
    aof_.buf += cmd;
  }
  if (wrap) net::AppendCommand(&aof_.buf, {"EXEC"});
  aof_.tx.clear();
}

void AofFlushBeforeReplies() {
  if (aof_.status == Status::kOff) return;
  Flush(false);
  static uint64_t last_synced = 0;
  uint64_t synced = AofFsyncedOffset();
  if (synced != last_synced) {
    last_synced = synced;
    HandleReplicaAcks();  // WAITAOF clients waiting for the local sync
  }
}

// After 3 rewrites in a row failed, the automatic and scheduled ones wait 1 minute, then 2,
// 4... up to an hour between tries (as Valkey 8's aofRewriteLimited): each try opens a new
// incremental file, and a rewrite that cannot succeed (a full disk, fork refused) would add one
// a second. BGREWRITEAOF is never held back.
bool RewriteLimited() {
  static int next_delay_min = 0;
  static int64_t next_try_ms = 0;
  if (aof_.consecutive_failures < 3) {
    next_delay_min = 0;
    next_try_ms = 0;
    return false;
  }
  int64_t now = base::MsTime();
  if (next_try_ms != 0) {
    if (now < next_try_ms) return true;
    next_try_ms = 0;
    return false;
  }
  next_delay_min = next_delay_min == 0 ? 1 : std::min(next_delay_min * 2, 60);
  next_try_ms = now + next_delay_min * 60000LL;
  LOG_WARNING(
      "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d "
      "minutes",
      next_delay_min);
  return true;
}

void AofCron() {
  CheckChild();
  if (aof_.status != Status::kOff) {
    // A failed write is retried every cron; everysec syncs what was written.
    if (!aof_.last_write_ok || !aof_.buf.empty()) Flush(false);
    if (cfg.appendfsync == kEverysec) FsyncIfDue(false);
  }
  if (ChildRunning() || BgsaveInProgress() || OtherChildActive()) return;
  // A scheduled rewrite starts once no child runs, with the AOF on or off (a BGREWRITEAOF
  // that met a BGSAVE or ran inside MULTI), as Valkey 8's serverCron starts it.
  if (aof_.scheduled) {
    // After a failure, wait a little before the next try.
    if ((aof_.consecutive_failures == 0 || base::MsTime() - aof_.last_failure_ms > 1000) &&
        !RewriteLimited()) {
      std::string err;
      AofStartRewrite(&err);
    }
    return;
  }
  if (aof_.status == Status::kOn && cfg.auto_aof_rewrite_percentage > 0 &&
      aof_.current_size > static_cast<uint64_t>(cfg.auto_aof_rewrite_min_size)) {
    uint64_t base = aof_.base_size ? aof_.base_size : 1;
    int64_t growth = static_cast<int64_t>(aof_.current_size * 100 / base) - 100;
    if (growth >= cfg.auto_aof_rewrite_percentage && !RewriteLimited()) {
      LOG_NOTICE("Starting automatic rewriting of AOF on %lld%% growth",
                 static_cast<long long>(growth));
      StartRewrite();
    }
  }
}

namespace {

bool IsRegularFile(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

// An AOF from before multi-part files (one appendfilename in `dir`) becomes the base, as Valkey
// 8's aofUpgradePrepare does it: the manifest naming it goes first and the file moves after, so
// that a crash between the two leaves a state the next start recognises and finishes (the
// manifest's lone base is missing from the directory but still in `dir`), never one whose data
// a start would miss.
bool UpgradeOldAof(persist::AofManifest* m) {
  if (mkdir(cfg.appenddirname.c_str(), 0755) != 0 && errno != EEXIST) {
    LOG_WARNING("Can't open or create append-only dir %s: %s", cfg.appenddirname.c_str(),
                strerror(errno));
    return false;
  }
  *m = persist::AofManifest{};
  m->has_base = true;
  m->base.name = cfg.appendfilename;
  m->base.seq = m->base_seq = 1;
  m->base.type = 'b';
  if (!PersistManifest(*m)) return false;
  if (rename(cfg.appendfilename.c_str(), DirPath(cfg.appendfilename).c_str()) != 0) {
    LOG_WARNING("Error trying to move the old AOF file %s into dir %s: %s",
                cfg.appendfilename.c_str(), cfg.appenddirname.c_str(), strerror(errno));
    return false;
  }
  LOG_NOTICE("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
             cfg.appendfilename.c_str(), cfg.appenddirname.c_str());
  return true;
}

// Whether `dir` holds an old-style AOF still to move into the AOF directory: the directory or
// its manifest missing, or an upgrade interrupted between the manifest and the move.
bool OldAofToUpgrade(const persist::AofManifest& m, bool manifest_exists) {
  if (!IsRegularFile(cfg.appendfilename)) return false;
  struct stat sb;
  if (stat(cfg.appenddirname.c_str(), &sb) != 0 || !manifest_exists) return true;
  return m.has_base && m.incr.empty() && m.base.name == cfg.appendfilename &&
         !IsRegularFile(DirPath(cfg.appendfilename));
}

}  // namespace

bool AofLoadAtStartup() {
  BioStart();
  persist::AofManifest m;
  bool exists = false;
  if (!ReadManifest(&m, &exists)) {
    if (exists) return false;
    m = persist::AofManifest{};
  }
  if (OldAofToUpgrade(m, exists) && !UpgradeOldAof(&m)) return false;
  aof_.manifest = m;
  if (!m.has_base && m.incr.empty()) return true;  // nothing to load
  int64_t start = base::UsTime();
  Client fake;
  fake.flags = kPrimary | kReplyOff;
  fake.id = UINT64_MAX;  // CLIENT_ID_AOF
  SelectDb(&fake, 0);
  aof_.loading = true;
  LoadingScope loading(false);
  std::vector<persist::AofFile> files;
  if (m.has_base) files.push_back(m.base);
  for (auto& f : m.incr) files.push_back(f);
  for (auto& f : files) LoadingProgress().total_bytes += FileSize(DirPath(f.name));
  bool ok = true, any = false;
  for (size_t i = 0; i < files.size() && ok; i++) {
    int64_t t = base::UsTime();
    LoadingProgress().base = LoadingProgress().loaded_bytes;
    FileLoad r = LoadOne(files[i], i + 1 == files.size(), &fake);
    LoadingProgress().loaded_bytes = LoadingProgress().base + FileSize(DirPath(files[i].name));
    if (r == FileLoad::kFailed) ok = false;
    if (r != FileLoad::kEmpty) any = true;
    if (ok && r != FileLoad::kEmpty)
      LOG_NOTICE("DB loaded from %s file %s: %.3f seconds",
                 files[i].type == 'b' ? "base" : "incr", files[i].name.c_str(),
                 static_cast<double>(base::UsTime() - t) / 1e6);
  }
  aof_.loading = false;
  Cluster().aof_loaded();
  // The file may hold what a client does to itself (BLPOP on an empty list, SUBSCRIBE, WAIT,
  // MONITOR, WATCH): the registries must not keep this stack client once the load returns (a
  // BLPOP left it blocked, and the next push to that list served a dead client).
  if (fake.InMulti()) DiscardTransaction(&fake);
  ReleaseClientState(&fake);
  if (!ok) {
    LOG_WARNING("Fatal error loading the DB, check server logs. Exiting.");
    return false;
  }
  if (any)
    LOG_NOTICE("DB loaded from append only file: %.3f seconds",
               static_cast<double>(base::UsTime() - start) / 1e6);
  g.dirty = 0;  // what was loaded is on disk already: no save point is due for it
  return true;
}

bool AofOpenAtStartup() {
  if (!cfg.appendonly) return true;
  BioStart();
  if (mkdir(cfg.appenddirname.c_str(), 0755) != 0 && errno != EEXIST) {
    LOG_WARNING("Can't create the AOF directory %s: %s", cfg.appenddirname.c_str(),
                strerror(errno));
    return false;
  }
  persist::AofManifest& m = aof_.manifest;
  if (!m.has_base && m.incr.empty()) {
    std::string base = NewBaseName(&m, cfg.aof_use_rdb_preamble);
    if (!WriteBase(DirPath(base))) return false;
    LOG_NOTICE("Creating AOF base file %s on server start", base.c_str());
  }
  if (m.incr.empty()) {
    std::string name = NewIncrName(&m);
    LOG_NOTICE("Creating AOF incr file %s on server start", name.c_str());
  }
  std::string last = m.incr.back().name;
  int fd = OpenForAppend(DirPath(last), false);
  if (fd < 0) return false;
  if (!PersistManifest(m)) {
    close(fd);
    return false;
  }
  DeleteHistory(&m);
  aof_.fd = fd;
  aof_.incr_size = FileSize(DirPath(last));
  aof_.current_size = m.has_base ? FileSize(DirPath(m.base.name)) : 0;
  for (auto& f : m.incr) aof_.current_size += FileSize(DirPath(f.name));
  aof_.base_size = aof_.current_size;
  aof_.status = Status::kOn;
  aof_.last_fsync_ms = base::MsTime();
  return true;
}

bool AofStartRewrite(std::string* err) {
  if (ChildRunning()) {
    *err = "Background append only file rewriting already in progress";
    return false;
  }
  if (BgsaveInProgress() || OtherChildActive() || Cluster().imports_running()) {
    aof_.scheduled = true;
    *err = "";  // scheduled: not an error
    return false;
  }
  if (aof_.status == Status::kOff) {
    // BGREWRITEAOF with appendonly no writes a base file and a manifest all the same.
    BioStart();
    if (mkdir(cfg.appenddirname.c_str(), 0755) != 0 && errno != EEXIST) {
      LOG_WARNING("Can't create the AOF directory %s: %s", cfg.appenddirname.c_str(),
                  strerror(errno));
      aof_.consecutive_failures++;  // a scheduled try waits, as after a failed fork
      aof_.last_failure_ms = base::MsTime();
      *err = "Can't execute an AOF background rewriting. Please check the server logs for more "
             "information.";
      return false;
    }
  }
  if (!StartRewrite()) {
    *err = "Can't execute an AOF background rewriting. Please check the server logs for more "
           "information.";
    return false;
  }
  return true;
}

void AofScheduleRewrite() { aof_.scheduled = true; }
bool AofRewriteInProgress() { return ChildRunning(); }

bool AofTurnOn(std::string* err) {
  BioStart();
  if (mkdir(cfg.appenddirname.c_str(), 0755) != 0 && errno != EEXIST) {
    *err = "Can't create the AOF directory " + cfg.appenddirname + ": " + strerror(errno);
    return false;
  }
  bool exists = false;
  persist::AofManifest m;
  if (ReadManifest(&m, &exists)) aof_.manifest = m;
  aof_.status = Status::kWaitRewrite;
  aof_.select_db = -1;
  aof_.buf.clear();
  if (ChildRunning() || BgsaveInProgress() || OtherChildActive() || Cluster().imports_running() ||
      Loading() || AsyncLoading()) {
    // The file starts when the running child (or slot import, or load: CONFIG SET runs while
    // loading) is done.
    LOG_NOTICE(
        "AOF was enabled but there is already another background operation. An AOF background "
        "was scheduled to start when possible.");
    aof_.scheduled = true;
    // Until then nothing is fed (AofFeed sees no file): the base will contain every change.
    return true;
  }
  if (g.in_exec) {  // no fork inside a transaction (Valkey 8 waits the same way)
    LOG_NOTICE(
        "AOF was enabled during a transaction. An AOF background was scheduled to start when "
        "possible.");
    aof_.scheduled = true;
    return true;
  }
  if (!StartRewrite()) {
    aof_.status = Status::kOff;
    *err = "Can't execute an AOF background rewriting. Please check the server logs for more "
           "information.";
    return false;
  }
  return true;
}

namespace {
// Closes the file and kills a rewrite; the files stay as they are.
void StopAof() {
  Flush(true);
  if (aof_.fd >= 0) {
    fdatasync(aof_.fd);
    close(aof_.fd);
    aof_.fsync_asked = aof_.fsynced = aof_.written;  // all of it is on disk now
  }
  aof_.fd = -1;
  if (ChildRunning())
    LOG_NOTICE("Killing running AOF rewrite child: %ld", static_cast<long>(aof_.child));
  KillChild();
  aof_.status = Status::kOff;
  aof_.buf.clear();
  aof_.select_db = -1;
  unlink(DirPath(TempIncrName()).c_str());
}
}  // namespace

void AofTurnOff() {
  StopAof();
  LOG_NOTICE("AOF stopped (appendonly no)");
  HandleReplicaAcks();  // WAITAOF clients waiting for the local sync get their error
}

void AofRestartAfterSync() {
  if (aof_.status == Status::kOff) return;
  StopAof();
  // The new primary's offsets are another history: what the old file acknowledged says
  // nothing of them (a higher old offset would acknowledge writes never synced here).
  aof_.fsynced_reploff = 0;
  aof_.repl_marks.clear();
  std::string err;
  if (AofTurnOn(&err)) return;
  LOG_WARNING("Failed enabling the AOF after successful primary synchronization: %s Trying again.",
              err.c_str());
  aof_.status = Status::kWaitRewrite;  // nothing is fed until the rewrite starts
  aof_.scheduled = true;
}

bool AofShutdown(bool force) {
  if (aof_.status == Status::kWaitRewrite && ChildRunning()) {
    if (!force) {
      LOG_WARNING("Writing initial AOF, can't exit.");
      return false;
    }
    LOG_WARNING("Writing initial AOF. Exit anyway.");
  }
  if (ChildRunning()) {
    LOG_WARNING("There is a child rewriting the AOF. Killing it!");
    KillChild();
  }
  if (aof_.status == Status::kOff || aof_.fd < 0) return true;
  Flush(true);
  LOG_NOTICE("Calling fsync() on the AOF file.");
  fdatasync(aof_.fd);
  return true;
}

bool AofDebugReload() {
  if (aof_.status != Status::kOff) {
    Flush(true);
    if (aof_.fd >= 0) fdatasync(aof_.fd);
  }
  for (int i = 0; i < NumDbs(); i++) GetDb(i)->Clear();
  DbModified(-1);
  if (!AofLoadAtStartup()) return false;
  aof_.select_db = -1;
  return true;
}

bool AofWritesDenied(std::string* err) {
  if (aof_.status == Status::kOff) return false;
  int e = aof_.last_write_ok ? BioLastFsyncErrno() : aof_.last_write_errno;
  if (aof_.last_write_ok && e == 0) return false;
  *err = std::string("-MISCONF Errors writing to the AOF file: ") + strerror(e);
  return true;
}

void AppendAofInfo(std::string* s) {
  auto line = [s](const std::string& k, const std::string& v) { *s += k + ":" + v + "\r\n"; };
  auto num = [&](const char* k, long long v) { line(k, std::to_string(v)); };
  bool on = aof_.status != Status::kOff;
  num("aof_enabled", on ? 1 : 0);
  num("aof_rewrite_in_progress", ChildRunning() ? 1 : 0);
  num("aof_rewrite_scheduled", aof_.scheduled ? 1 : 0);
  num("aof_last_rewrite_time_sec", aof_.last_rewrite_sec);
  num("aof_current_rewrite_time_sec",
      ChildRunning() ? (base::MsTime() - aof_.child_start_ms) / 1000 : -1);
  line("aof_last_bgrewrite_status", aof_.last_rewrite_ok ? "ok" : "err");
  num("aof_rewrites", static_cast<long long>(aof_.rewrites));
  num("aof_rewrites_consecutive_failures", static_cast<long long>(aof_.consecutive_failures));
  line("aof_last_write_status",
       aof_.last_write_ok && BioLastFsyncErrno() == 0 ? "ok" : "err");
  num("aof_last_cow_size", 0);
  num("module_fork_in_progress", 0);
  num("module_fork_last_cow_size", 0);
  if (on) {
    num("aof_current_size", static_cast<long long>(aof_.current_size));
    num("aof_base_size", static_cast<long long>(aof_.base_size));
    num("aof_pending_rewrite", aof_.scheduled ? 1 : 0);
    num("aof_buffer_length", static_cast<long long>(aof_.buf.size()));
    num("aof_pending_bio_fsync", static_cast<long long>(BioPendingFsyncs()));
    num("aof_delayed_fsync", static_cast<long long>(aof_.delayed_fsync));
  }
}

void ResetAofStats() { aof_.delayed_fsync = 0; }

}  // namespace server
