// nodes.conf: the cluster configuration file. A pure formatter and a validating parser (the text
// Valkey 8 writes and reads, open-slot tokens included, and the Redis 7.0 form without aux
// fields), plus the two file operations around them (atomic save, lock), kept small and apart.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster/state.h"

namespace cluster {

// The whole file: one line per node that is not in handshake (table order, the nodes.conf form of
// FormatNodesLine: bus IP, TCP port, aux fields, open-slot tokens on the myself line), then
// `vars currentEpoch <n> lastVoteEpoch <n>`. Every line ends with '\n'.
std::string FormatNodesConf(const State& state);

// Builds a State from the text of nodes.conf. On success `*out` is replaced; on error it is left
// untouched and `*err` says what is wrong, starting with "line <n>: " (1-based).
//  * Lines are split into shell-like tokens (quotes and escapes as the server's config loader);
//    blank lines are skipped. `vars` takes name/value pairs (currentEpoch, lastVoteEpoch; other
//    names are skipped). Other lines need at least 8 fields.
//  * Flag words: myself, master|primary, slave|replica, fail?, fail, handshake, noaddr,
//    nofailover, noflags (any case); anything else is an error.
//  * Address `ip:port[@cport][,hostname[,name=value...]]`, aux fields in any order: shard-id,
//    nodename, tcp-port, tls-port, client-ipv4, client-ipv6; an unknown one is an error. With no
//    port aux field the main port is the TLS port if `tls_cluster`; a missing @cport is the
//    node's port + 10000.
//  * Non-zero ping/pong times become `now_ms` (and a FAIL node's fail time); nodes get
//    ctime `now_ms`. A replica with a primary loads configEpoch 0 (it shows its primary's). A
//    node or open-slot target named before its own line (or never defined) is created with no
//    flags, as the server does; nodes keep the file order, placeholders come last.
//  * A replica without shard-id takes its primary's (up the chain); a primary without one takes
//    its replicas'. currentEpoch is raised to the largest configEpoch. A myself node must exist.
// Stricter than the server where it would crash or load nonsense: two `myself`, a node defined
// twice, a slot claimed by two nodes, a node that is its own primary (or a primary loop),
// explicit shard IDs that differ between a replica and its primary, numbers that are not
// numbers, and IPs/hostnames/aux values with spaces, quotes or control bytes are all errors.
// An empty file means "no configuration": check for it before calling (it is an error here).
bool ParseNodesConf(std::string_view text, State* out, int64_t now_ms, bool tls_cluster,
                    std::string* err);

// A node ID as Valkey accepts one: 40 characters of [a-z0-9].
bool IsNodeId(std::string_view s);

// ---- File side ----

// Writes `content` to `<path>.tmp-<pid>-<ms>`, fsyncs it (if `fsync`), renames it over `path` and
// fsyncs the directory (if `fsync`). On failure the temp file is removed and `*err` says why.
// Every save is a new inode, so even a save without fsync leaves `path` naming either the old
// or the new file whole after a power loss (the file systems flush a file renamed over another
// before the rename commits; an inode rewritten in place has no such ordering).
// The rename gives `path` a new inode, so a lock taken on the old one no longer keeps a second
// process off the file (Valkey 8.0.1 has this gap: a second server started on a saved nodes.conf
// and took the first one's identity). Pass the descriptor of LockNodesConf as `lock_fd`: the new
// file is locked before the rename and `lock_fd` is made to refer to it (same number). The old
// inode is then released by `close_old` (given a descriptor of it; default: close at once).
bool SaveNodesConfAtomic(const std::string& path, const std::string& content, bool fsync,
                         std::string* err, int lock_fd = -1, void (*close_old)(int) = nullptr);

// Opens `path` (created empty if absent, close-on-exec) and takes flock(LOCK_EX|LOCK_NB) on it.
// Returns the fd to keep open for the life of the process (close it in forked children), or -1
// with `*err` set, e.g. when another process holds the lock.
int LockNodesConf(const std::string& path, std::string* err);

// The node's own nodes.conf: locked for the life of the process and replaced atomically on
// every change, which slot migration makes many times a second (each SETSLOT, on primaries
// and replicas). Making the new inode and freeing the replaced one are what cost there (on
// this kind of disk ~100 us each; with -o discard the free is a synchronous discard), in the
// path of every SETSLOT reply. So both happen on the helper thread: `call_later` makes the
// next file, `<path>.spare`, ahead of time (a save finds it ready, writes it, renames it over
// `path`; a save that finds none makes one itself), and `close_old` closes the last
// descriptor of a replaced inode. Without hooks every save makes its file and frees at once.
//
// A save is made durable now (fsync of the file and the directory before Save returns), later
// (the same two fsyncs on the helper thread; a burst of such saves shares one) or not at all.
// Every save is a new inode renamed over the old one, so a crash leaves the old file or the new
// one whole whichever is chosen; the choice only says how soon the new one is certain to stay.
class NodesConfFile {
 public:
  enum class Sync { kNo, kLater, kNow };
  struct Hooks {  // {} (both null): everything in the caller's thread
    void (*close_old)(int);
    void (*call_later)(void (*fn)(void*), void* arg);
  };
  NodesConfFile() = default;
  NodesConfFile(const NodesConfFile&) = delete;
  NodesConfFile& operator=(const NodesConfFile&) = delete;
  ~NodesConfFile();
  // Locks `path` as LockNodesConf does (false with *err if another process holds it). Removes
  // `<path>.prev` and `<path>.next`, which earlier versions kept beside it.
  bool Open(const std::string& path, std::string* err, Hooks hooks = {});
  bool Save(const std::string& content, Sync sync, std::string* err);
  // Saves are numbered from 1; the last one made, and whether save `seq` is on disk (fsynced
  // with its directory: at once for kNow, once the helper thread got to it for kLater; a kNo
  // save becomes durable with the next fsynced one).
  uint64_t LastSave() const { return saves_; }
  bool Durable(uint64_t seq) const { return durable_.load() >= seq; }
  // errno of a background fsync that failed since the last call, else 0.
  int TakeSyncError() { return sync_errno_.exchange(0); }
  int lock_fd() const { return cur_fd_; }
  // Releases the lock (the process exits next).
  void Unlock();
  // In a forked child: closes the descriptors without unlocking (the lock belongs to the open
  // file, which the node keeps; LOCK_UN here would release it for the node too), those of
  // helper-thread jobs in flight at the fork included.
  void CloseInChild();

 private:
  void MakeSpare();
  static void CreateSpare(void* self);
  void SyncLater();
  static void SyncNewest(void* self);
  void RaiseDurable(uint64_t seq);
  std::string path_, spare_path_;
  std::string real_path_;  // path_ made absolute, as /proc/self/fd names the files
  int cur_fd_ = -1;  // the inode named path_, locked
  int dir_fd_ = -1;  // path_'s directory, for the helper thread's fsync
  Hooks hooks_;
  std::atomic<int> spare_fd_{-1};           // the inode named spare_path_, empty, once made
  std::atomic<bool> spare_pending_{false};  // the helper thread is making it
  // The newest inode waiting for its fsync (a dup) with the number of its save: one word, so
  // that the helper thread takes both at once. 0: none; else (save << 32) | (fd + 1).
  std::atomic<uint64_t> sync_job_{0};
  uint64_t saves_ = 0;                  // saves made (the serving thread's)
  std::atomic<uint64_t> durable_{0};    // the last save known to be on disk
  std::atomic<int> sync_errno_{0};
};

// When the cluster state is saved, and how durably. `fsync`: a change to what this node
// promises others (its epoch, vote, role), saved and fsynced before the loop sleeps. `save`: a
// change of its own, saved before the loop sleeps. `learned`: a change learned from others,
// saved with the next save, at most `learned_delay_ms` after the last one (`last_save_ms`),
// and fsynced later. `wait_ms` (when not saving yet): how soon the loop must wake for it.
struct SavePlan {
  bool save_now = false;
  NodesConfFile::Sync sync = NodesConfFile::Sync::kNo;
  int64_t wait_ms = -1;
};
SavePlan PlanSave(bool fsync, bool save, bool learned, int64_t now_ms, int64_t last_save_ms,
                  int64_t learned_delay_ms);

}  // namespace cluster
