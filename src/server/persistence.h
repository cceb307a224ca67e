// Snapshot persistence of the node: SAVE, BGSAVE through a forked child, save points, loading
// at start, DEBUG RELOAD, the final save at shutdown and the INFO persistence fields.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "persist/snapshot.h"
#include "server/client.h"

namespace persist {
struct LoadResult;
}

namespace server {

struct PersistenceState {
  pid_t child_pid = -1;  // the snapshot child, -1 when none
  int64_t child_start_ms = 0;
  int64_t dirty_at_fork = 0;
  bool bgsave_scheduled = false;  // BGSAVE SCHEDULE / BGSAVE inside EXEC
  bool last_bgsave_ok = true;
  int64_t last_bgsave_time_sec = -1;
  int64_t last_bgsave_try = 0;  // unix seconds of the last fork attempt
  uint64_t rdb_saves = 0;
  uint64_t total_forks = 0;
  int64_t latest_fork_usec = 0;
  uint64_t save_keys_total = 0;         // keys at fork time
  uint64_t save_keys_processed = 0;     // reported by the child
  uint64_t cow_size = 0, cow_peak = 0;  // current child's copy-on-write bytes
  int64_t cow_updated_ms = 0;
  uint64_t last_cow_size = 0;
  uint64_t last_load_keys_loaded = 0, last_load_keys_expired = 0;
};
const PersistenceState& Persistence();

// Loads `dbfilename` from `dir` before the node serves clients (with appendonly no; the AOF is
// preferred when on, and server::Main loads it instead). A missing file is an empty start; any
// other failure is logged and returns false (the caller exits with code 1).
bool LoadSnapshotAtStartup();
// The keys (db, name) that snapshot held already expired, left out of the load; once.
std::vector<std::pair<int, std::string>> TakeKeysExpiredAtStart();

// The log lines of a load: where the snapshot came from (before its keys are counted), and
// its end, with INFO's rdb_last_load_keys_* (a replica's full sync loads without a file).
void LogLoadOrigin(const persist::LoadResult& res);
void NoteLoaded(const persist::LoadResult& res);

// The snapshot at the start of p[0..n) (an AOF base file's preamble) merged into the live
// databases; *consumed: its length (commands may follow). False when it does not load.
bool LoadSnapshotPreamble(const std::string& name, const uint8_t* p, size_t n,
                          uint64_t* consumed);
// Writes every database as a snapshot to `path` itself (synced; the caller renames it into
// place), with the aux field aof-base 1 when it is an AOF base file.
bool WriteSnapshotFile(const std::string& path, bool aof_base);

// How a snapshot is written as configured (rdbcompression, rdbchecksum, the LRU/LFU fields of
// maxmemory-policy): to a file, an AOF's base, or a diskless sync's socket alike.
persist::SaveOptions SnapshotSaveOptions(bool for_replication, bool aof_base = false);
// Foreground save to dbfilename (SAVE, SHUTDOWN, DEBUG RELOAD, FLUSHALL with save points).
bool SaveForeground();
// Forks the snapshot child. False (and logged) when the fork fails or a child is running.
// for_replication: the file also carries the replication-only aux fields. tail_fd: also a
// descriptor to read the file while the child writes it (-1 if it could not be made), for
// replicas sent the snapshot as it is written; the child renames it into place at its end.
bool StartBgsave(bool for_replication = false, int* tail_fd = nullptr);
bool BgsaveInProgress();
// Runs a BGSAVE from cron as soon as possible (BGSAVE SCHEDULE, BGSAVE inside EXEC).
void ScheduleBgsave();
// Reaps the child, reads its progress, runs save points and scheduled BGSAVEs (every cron).
void PersistenceCron();
// Kills a running snapshot child (SIGUSR1: not counted as a failure) and removes its temp file.
void KillSnapshotChild();
// Called when a background save ends (ok or not), after the bookkeeping. Replication hooks in.
void AddBgsaveDoneHook(std::function<void(bool ok)> fn);
// Other forked children (e.g. the diskless replication one) report whether they are alive:
// BGSAVE is then refused (or scheduled with SCHEDULE) and save points wait, one child at a time.
// kill_on_flushall: how to stop one that snapshots the data (FLUSHALL makes it useless).
void AddOtherChildCheck(std::function<bool()> active,
                        std::function<void()> kill_on_flushall = nullptr);
// `save` has save points (a snapshot file is part of what the operator keeps).
bool HasSavePoints();
// The running snapshot child was started for replicas (StartBgsave's for_replication).
bool BgsaveForReplicasInProgress();
// Every forked child calls this first: the child ends (SIGTERM) when `parent` dies, removing
// `tmp_path` (may be empty) on the way, and exits at once when `parent` is already gone. A
// snapshot child whose node was killed must not go on to replace dbfilename under a node
// started after it. It also closes what only the node may hold (Cluster().in_child) and takes
// the forked child's OOM-killer preference (oom-score-adj).
void StopWithParent(pid_t parent, const char* tmp_path);
// Pauses (false) or resumes hash-table resizing of every table while a forked child shares
// the parent's memory pages.
void SetResizeAllowed(bool allowed);
// A forked child (snapshot, AOF rewrite, diskless sync) runs: it holds copies of our sockets.
bool ForkedChildRunning();
bool OtherChildActive();
// A diskless replication child writes a snapshot to replicas from now (start_ms), or no longer
// (0): INFO counts it as a snapshot in progress, as Valkey 8 counts its socket RDB child.
void NoteSocketSnapshot(int64_t start_ms);
// Runs on_exit from the event loop as soon as forked child `pid` exits (a pidfd, Linux 5.3),
// rather than at the next cron tick (up to 1000/hz ms later: a full sync waited for it).
// Returns the descriptor to give UnwatchChild, or -1 where pidfds are not available (the
// cron's waitpid then finds the child, as before).
int WatchChild(pid_t pid, void (*on_exit)());
void UnwatchChild(int* fd);

// The snapshot part of a shutdown, called after AofShutdown(): kills the child and saves when
// save points are configured (unless nosave) or when `save`, then shuts the cluster side down.
// False when the save failed and !force: do not exit.
bool ShutdownSave(bool save, bool nosave, bool force);
// A child was forked (an AOF rewrite, a diskless transfer): INFO total_forks and
// latest_fork_usec count every fork, as Valkey 8's.
void NoteFork(int64_t fork_usec);
// FLUSHALL side effects: kills the child, saves the empty dataset when save points exist.
void AfterFlushAll();

// stop-writes-on-bgsave-error: the last background save failed and save points are set.
bool WritesDeniedByDiskError();
// Its error: Valkey's text (Redis in it with extended-redis-compatibility).
std::string ErrMisconf();

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE].
void DebugReloadCommand(Client* c);

// INFO: the persistence section up to its rdb_ fields (the aof_ fields, AppendAofInfo, follow
// them); Persistence() gives the fork counters of the stats section.
void AppendPersistenceInfo(std::string* s);
// CONFIG RESETSTAT: fork and save counters.
void ResetPersistenceStats();

}  // namespace server
