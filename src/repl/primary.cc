// Primary side of replication: replica links, the backlog, PSYNC (partial and full), the
// snapshot transfer (from disk or streamed from a forked child), REPLCONF ACK, WAIT.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "persist/snapshot.h"
#include "repl/repl_buffer.h"
#include "repl/propagate.h"
#include "repl/repl.h"
#include "repl/repl_internal.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/cluster_hooks.h"
#include "server/command.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/persistence.h"
#include "server/server.h"

namespace repl {

using server::Client;
using server::g;

namespace {

// The primary side: replica links and the diskless child.
struct PrimarySide {
  std::vector<Client*> replicas;  // clients that sent SYNC/PSYNC
  pid_t child = -1;
  int child_pidfd = -1;  // server::WatchChild's: reaped when it exits
  int pipe = -1;
  bool pipe_eof = false;
  int64_t waiting_since_ms = 0;
  bool getack_pending = false;  // RequestAcks: GETACK once the running command is in the stream
  int tail_timer = -1;          // wakes the replicas that read a disk snapshot as it is written
};
PrimarySide primary_;

void ReapDisklessChild();

// Diskless transfer: the child writes the snapshot into this pipe.

ReplicaLink* Link(Client* c) { return c->repl; }

// The PSYNC reply line, after which the replica reads the stream from `pos` (once it has the
// snapshot, in a full sync): `out` goes first.
void StartStream(Client* c, std::string_view line, ReplBuffer::Pos pos) {
  c->conn.out.append(line);
  c->repl->streaming = true;
  c->repl->pos = pos;
  server::QueueWrite(c);
}

// Whether the stream is sent to it now: it has a place in the buffer, and no EOF-marked
// snapshot's first ACK is awaited.
bool SendsStream(const ReplicaLink* l) { return l->streaming && !l->stream_on_ack; }

size_t StreamPending(const ReplicaLink* l) {
  const ReplBuffer* b = GetState().backlog.get();
  return SendsStream(l) && b ? b->PendingFrom(l->pos) : 0;
}

// The lowest block a replica still reads (UINT64_MAX: none).
uint64_t OldestReader() {
  uint64_t oldest = UINT64_MAX;
  for (Client* c : primary_.replicas)
    if (Link(c)->streaming) oldest = std::min(oldest, Link(c)->pos.block);
  return oldest;
}

// Bytes written to a replica link: Valkey 8 counts them apart from replies to clients.
void CountReplicaBytes(Client* c, size_t n) {
  c->net_output_bytes += n;
  g.stats.net_repl_output_bytes += n;
}

bool TryPartial(Client* c, std::string_view replid, int64_t from) {
  State& st = GetState();
  if (!st.backlog) return false;
  // The secondary ID holds up to second_offset: a replica asking for a byte after it took a
  // byte of the old history this node never had (Valkey 8's bound).
  bool same = replid == st.replid || (replid == st.replid2 && from <= st.second_offset);
  if (!same) return false;
  // No copy: the replica reads the buffer from there, as it reads what comes next.
  ReplBuffer::Pos pos;
  if (!st.backlog->PosOf(from, &pos)) return false;
  Link(c)->state = ReplicaLink::kOnline;
  Link(c)->ack_time_ms = base::MsTime();
  StartStream(c, Link(c)->capa_psync2 ? "+CONTINUE " + st.replid + "\r\n" : "+CONTINUE\r\n",
              pos);
  g.stats.sync_partial_ok++;
  LOG_NOTICE(
      "Partial resynchronization request from %s accepted. Sending %zu bytes of backlog "
      "starting from offset %lld.",
      ReplicaName(c).c_str(), st.backlog->PendingFrom(pos), static_cast<long long>(from));
  return true;
}

void StartDisklessChild();

// The reply to a PSYNC that gets a full sync: the history's ID and the offset it starts at.
std::string FullResyncLine() {
  const State& st = GetState();
  return "+FULLRESYNC " + st.replid + " " + std::to_string(st.offset) + "\r\n";
}

// Starts the snapshot for replicas waiting for one, when no child is running.
void MaybeStartFullSync() {
  bool any = false;
  for (Client* c : primary_.replicas)
    if (Link(c)->state == ReplicaLink::kWaitBgsaveStart) any = true;
  // One child at a time: a snapshot, an AOF rewrite or a diskless transfer.
  if (!any || server::BgsaveInProgress() || server::OtherChildActive()) return;
  // Diskless only when every waiting replica can read the EOF-marked form; only then is the
  // start delayed for more replicas to join (a replica without it gets a disk snapshot now).
  bool diskless = server::cfg.repl_diskless_sync;
  for (Client* c : primary_.replicas)
    if (Link(c)->state == ReplicaLink::kWaitBgsaveStart && !Link(c)->capa_eof) diskless = false;
  if (diskless) {
    int64_t delay = server::cfg.repl_diskless_sync_delay * 1000;
    if (!primary_.waiting_since_ms) primary_.waiting_since_ms = base::MsTime();
    // repl-diskless-sync-max-replicas: that many waiting replicas end the delay.
    int64_t waiting = 0;
    for (Client* c : primary_.replicas)
      waiting += Link(c)->state == ReplicaLink::kWaitBgsaveStart;
    int64_t enough = server::cfg.repl_diskless_sync_max_replicas;
    if (base::MsTime() - primary_.waiting_since_ms < delay && !(enough > 0 && waiting >= enough))
      return;
  }
  primary_.waiting_since_ms = 0;
  // Imports of slots (cluster) staged keys no snapshot carries: they end before it is taken.
  server::Cluster().full_sync_starting();
  State& st = GetState();
  EnsureBacklog();
  // Replicas start from the offset the snapshot is taken at.
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    if (l->state != ReplicaLink::kWaitBgsaveStart) continue;
    l->state = ReplicaLink::kWaitBgsaveEnd;
    l->diskless = diskless;
    std::string line = l->old_sync ? std::string() : FullResyncLine();
    if (l->rdb_only) {
      // REPLCONF rdb-only 1 (redis-cli --rdb): the snapshot alone. It never takes the stream,
      // so it holds no part of the buffer while the tool reads, as Valkey 8 does.
      c->conn.out.append(line);
      server::QueueWrite(c);
    } else {
      StartStream(c, line, st.backlog->EndPos());
    }
  }
  ResetStreamDb();
  if (diskless) return StartDisklessChild();
  // Replicas that read the EOF-marked form get the file as the child writes it, so that they
  // load while it is made (the others get it whole once it is done).
  bool tail = false;
  for (Client* c : primary_.replicas)
    if (Link(c)->state == ReplicaLink::kWaitBgsaveEnd && Link(c)->capa_eof) tail = true;
  int tail_fd = -1;
  if (!server::StartBgsave(/*for_replication=*/true, tail ? &tail_fd : nullptr)) {
    for (Client* c : primary_.replicas)
      if (Link(c)->state == ReplicaLink::kWaitBgsaveEnd) server::CloseAsync(c);
    return;
  }
  LOG_NOTICE("Starting BGSAVE for SYNC with target: disk");
  if (tail_fd < 0) return;
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    if (l->state != ReplicaLink::kWaitBgsaveEnd || !l->capa_eof) continue;
    l->rdb_fd = dup(tail_fd);
    if (l->rdb_fd < 0) continue;  // it gets the whole file at the end
    l->state = ReplicaLink::kSendRdb;
    l->tailing = true;
    l->tail_end = false;
    l->rdb_off = 0;
    l->eof_mark = RandomId();
    l->rdb_buf = "$EOF:" + l->eof_mark + "\r\n";
    server::QueueWrite(c);
  }
  close(tail_fd);
  // The file grows without an event to wait on: the readers look again every millisecond.
  if (primary_.tail_timer == -1)
    primary_.tail_timer = g.loop->AddTimer(1, [] {
      bool any = false;
      for (Client* c : primary_.replicas)
        if (Link(c)->tailing) {
          any = true;
          server::QueueWrite(c);
        }
      if (!any) {
        g.loop->DelTimer(primary_.tail_timer);
        primary_.tail_timer = -1;
      }
    });
}

void OnBgsaveDone(bool ok) {
  std::string path = server::cfg.dbfilename;
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    if (l->tailing && !l->tail_end) {
      if (!ok) {
        LOG_WARNING("SYNC failed. BGSAVE child returned an error");
        server::CloseAsync(c);
        continue;
      }
      l->tail_end = true;  // the file is whole: the rest, then the mark
      server::QueueWrite(c);
      continue;
    }
    if (l->state != ReplicaLink::kWaitBgsaveEnd || l->diskless) continue;
    if (!ok) {
      LOG_WARNING("SYNC failed. BGSAVE child returned an error");
      server::CloseAsync(c);
      continue;
    }
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0) {
      LOG_WARNING("SYNC failed. Can't open/stat the snapshot for the replica: %s", strerror(errno));
      if (fd >= 0) close(fd);
      server::CloseAsync(c);
      continue;
    }
    l->rdb_fd = fd;
    l->rdb_off = 0;
    l->rdb_size = sb.st_size;
    l->rdb_buf = "$" + std::to_string(sb.st_size) + "\r\n";
    l->state = ReplicaLink::kSendRdb;
    server::QueueWrite(c);
  }
}

void DisklessPipeRead(int fd, void*, int);

void StartDisklessChild() {
  LOG_NOTICE("Starting BGSAVE for SYNC with target: replicas sockets");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) == -1) return;
  std::string mark;
  static const char* hex = "0123456789abcdef";
  for (int i = 0; i < 40; i++) mark.push_back(hex[ds::RandomU64() & 15]);
  std::vector<db::Db*> dbs;
  for (auto& d : g.dbs) dbs.push_back(d.get());
  uint64_t mem = server::UsedMemory();
  int64_t now = time(nullptr);
  server::SetResizeAllowed(false);  // keep copy-on-write pages shared while it runs
  pid_t parent = getpid();
  int64_t fork_start = base::UsTime();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    base::SetLogRoleChar('C');
    server::SetProcTitle("valkey-rdb-to-replicas");
    signal(SIGUSR1, SIG_DFL);  // how the node stops it
    server::StopWithParent(parent, "");  // no reader left: nothing to stream to
    std::string head = "$EOF:" + mark + "\r\n";
    if (write(fds[1], head.data(), head.size()) != static_cast<ssize_t>(head.size())) _exit(1);
    persist::SaveOptions opts = server::SnapshotSaveOptions(true);
    opts.key_save_delay_us = server::cfg.rdb_key_save_delay;
    persist::SnapshotWriter w(fds[1], opts);
    bool ok = persist::WriteSnapshot(w, dbs, now, mem);
    if (ok && write(fds[1], mark.data(), mark.size()) != static_cast<ssize_t>(mark.size()))
      ok = false;
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  if (pid < 0) {
    server::SetResizeAllowed(true);
    close(fds[0]);
    LOG_WARNING("Can't fork for the diskless replication snapshot: %s", strerror(errno));
    return;
  }
  server::NoteFork(base::UsTime() - fork_start);
  server::NoteSocketSnapshot(base::MsTime());
  primary_.child = pid;
  // Reaped as soon as it exits, not at the next cron tick.
  primary_.child_pidfd = server::WatchChild(pid, ReapDisklessChild);
  primary_.pipe = fds[0];
  primary_.pipe_eof = false;
  fcntl(primary_.pipe, F_SETFL, O_NONBLOCK);
  g.loop->AddFile(primary_.pipe, net::kReadable, DisklessPipeRead, nullptr);
  for (Client* c : primary_.replicas)
    if (Link(c)->state == ReplicaLink::kWaitBgsaveEnd && Link(c)->diskless) {
      Link(c)->state = ReplicaLink::kSendRdb;
      Link(c)->rdb_fd = -1;
      Link(c)->stalled_since_ms = 0;
    }
  LOG_NOTICE("Background RDB transfer started by pid %ld to pipe through parent process",
             static_cast<long>(pid));
}

bool DisklessBacklogged() {
  for (Client* c : primary_.replicas)
    if (Link(c)->state == ReplicaLink::kSendRdb && Link(c)->rdb_buf.size() > (1 << 20)) return true;
  return false;
}

// The pipe is read again once no replica has too much of it waiting.
void ResumePipeIfDrained() {
  if (primary_.pipe != -1 && !DisklessBacklogged() &&
      !(g.loop->FileMask(primary_.pipe) & net::kReadable))
    g.loop->AddFile(primary_.pipe, net::kReadable, DisklessPipeRead, nullptr);
}

// A replica being sent the diskless child's snapshot.
bool InDisklessTransfer(Client* c) {
  return Link(c)->state == ReplicaLink::kSendRdb && Link(c)->diskless;
}

// The transfers' write steps run: a transfer ends there once the child is reaped and its pipe's
// end read (whichever comes last wakes them) and all is sent.
void WakeDisklessTransfers() {
  for (Client* c : primary_.replicas)
    if (InDisklessTransfer(c)) server::QueueWrite(c);
}

void DisklessPipeRead(int fd, void*, int) {
  if (DisklessBacklogged()) {  // let replicas drain first
    g.loop->DelFile(fd, net::kReadable);
    return;
  }
  char buf[64 * 1024];
  ssize_t n = read(fd, buf, sizeof(buf));
  if (n > 0) {
    for (Client* c : primary_.replicas)
      if (InDisklessTransfer(c)) Link(c)->rdb_buf.append(buf, static_cast<size_t>(n));
    WakeDisklessTransfers();
    return;
  }
  if (n < 0 && errno == EAGAIN) return;
  // EOF (or error): the child is done writing. Woken here too: reaped before this, a child
  // left a replica that had been sent everything waiting for the next write to it (a PING).
  g.loop->DelFile(fd, net::kReadable);
  close(fd);
  primary_.pipe = -1;
  primary_.pipe_eof = true;
  LOG_NOTICE("Diskless rdb transfer, done reading from pipe, %zu replicas still up.",
             primary_.replicas.size());
  WakeDisklessTransfers();
}

void ReapDisklessChild() {
  if (primary_.child == -1) return;
  ResumePipeIfDrained();
  int status = 0;
  pid_t r = waitpid(primary_.child, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  // Reaped, or lost to an error (then failed: its readable pidfd would wake every loop pass).
  bool ok = r == primary_.child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok)
    LOG_NOTICE("Background RDB transfer terminated with success");
  else if (r == primary_.child && WIFSIGNALED(status))
    LOG_WARNING("Background RDB transfer terminated by signal %d", WTERMSIG(status));
  else
    LOG_WARNING("Background RDB transfer error");
  primary_.child = -1;
  server::NoteSocketSnapshot(0);
  server::UnwatchChild(&primary_.child_pidfd);
  server::SetResizeAllowed(true);
  if (!ok) {
    // What is left in the pipe is a cut snapshot: no one reads it.
    if (primary_.pipe != -1) {
      g.loop->DelFile(primary_.pipe, net::kReadable);
      close(primary_.pipe);
      primary_.pipe = -1;
    }
    for (Client* c : primary_.replicas)
      if (InDisklessTransfer(c)) {
        LOG_WARNING("SYNC failed. BGSAVE child returned an error");
        server::CloseAsync(c);
      }
    return;
  }
  WakeDisklessTransfers();
}

// Stops the diskless child; it is reaped (and logged) by ReapDisklessChild.
void KillDisklessChild() {
  if (primary_.child != -1) kill(primary_.child, SIGUSR1);
}

bool WaitsForDiskSnapshot(const ReplicaLink* l) {
  return (l->state == ReplicaLink::kWaitBgsaveEnd && !l->diskless) || (l->tailing && !l->tail_end);
}

// A snapshot that no replica waits for any more is stopped, as Valkey 8 stops it: the
// diskless child once its last reader is gone, a disk one made for replicas alone when there
// are no save points (then no one keeps the file). Its memory and CPU serve no one, and the
// next replica to come gets a fresh snapshot sooner.
void StopUnwantedSnapshot(const ReplicaLink* gone) {
  bool was_diskless = gone->state == ReplicaLink::kSendRdb && gone->diskless;
  if (was_diskless && primary_.child != -1) {
    for (Client* c : primary_.replicas)
      if (InDisklessTransfer(c)) return;
    LOG_WARNING("Diskless rdb transfer, last replica dropped, killing fork child.");
    return KillDisklessChild();
  }
  if (!WaitsForDiskSnapshot(gone) || !server::BgsaveForReplicasInProgress() ||
      server::HasSavePoints())
    return;
  for (Client* c : primary_.replicas)
    if (WaitsForDiskSnapshot(Link(c))) return;
  server::KillSnapshotChild();
}

int GoodReplicas() {
  int n = 0;
  int64_t now = base::MsTime();
  for (Client* c : primary_.replicas)
    if (HoldsTheStream(Link(c)) &&
        now - Link(c)->ack_time_ms <= server::cfg.min_replicas_max_lag * 1000)
      n++;
  return n;
}

// ---- WAIT ----
int64_t AckedAtLeast(int64_t off) {
  int64_t n = 0;
  for (Client* c : primary_.replicas)
    if (HoldsTheStream(Link(c)) && Link(c)->ack_offset >= off) n++;
  return n;
}

int64_t AofAckedAtLeast(int64_t off) {
  int64_t n = 0;
  for (Client* c : primary_.replicas)
    if (HoldsTheStream(Link(c)) && Link(c)->aof_ack_offset >= off) n++;
  return n;
}

void SendGetAck() {
  static const char kGetAck[] = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
  FeedStream(kGetAck);
}

// "x.y.z" from REPLCONF version as 0xXXYYZZ; 0 when absent or malformed (an old replica).
int64_t EncodedVersion(std::string_view v) {
  int64_t parts[3] = {0, 0, 0};
  int i = 0;
  for (size_t pos = 0; i < 3; i++) {
    size_t dot = v.find('.', pos);
    std::string_view part = v.substr(pos, dot == std::string_view::npos ? v.npos : dot - pos);
    if (!base::ParseInt64(part, &parts[i]) || parts[i] < 0 || parts[i] > 255) return 0;
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  if (i != 2) return 0;
  return (parts[0] << 16) | (parts[1] << 8) | parts[2];
}

// Applies CLUSTER SETSLOT from the stream: newer than 7.2.255 (older ones refuse it).
bool TakesSlotStates(Client* c) { return EncodedVersion(Link(c)->version) > 0x0702ff; }
bool AppliesSlotStates(Client* c) {
  return Link(c)->state == ReplicaLink::kOnline && TakesSlotStates(c);
}

}  // namespace

size_t BacklogLimit() {
  return static_cast<size_t>(std::max<int64_t>(16 * 1024, server::cfg.repl_backlog_size));
}

void EnsureBacklog() {
  if (!GetState().backlog) NewBacklog();
}

void NewBacklog() {
  State& st = GetState();
  for (Client* c : primary_.replicas)
    if (Link(c)->streaming) {  // its place is in the buffer that goes
      Link(c)->streaming = false;
      server::CloseAsync(c);
    }
  // Stream offsets continue from here.
  st.backlog = std::make_unique<ReplBuffer>(BacklogLimit(), st.offset);
}

void TrimBacklog(size_t max_bytes) {
  ReplBuffer* b = GetState().backlog.get();
  if (b) b->Trim(OldestReader(), max_bytes);
}

size_t ReplicaHeldOutput(const Client* c, size_t* blocks) {
  *blocks = 0;
  const ReplBuffer* b = GetState().backlog.get();
  if (!c->repl || !c->repl->streaming || !b) return 0;
  return b->HeldFrom(c->repl->pos, blocks);
}

int SlotStateReplicas() {
  int n = 0;
  for (Client* c : primary_.replicas) n += AppliesSlotStates(c);
  return n;
}

bool SlotStateReplicaLinks() {
  for (Client* c : primary_.replicas)
    if (TakesSlotStates(c)) return true;
  return false;
}

int64_t SlotStateReplicasAckedAtLeast(int64_t offset) {
  int64_t n = 0;
  for (Client* c : primary_.replicas)
    if (AppliesSlotStates(c) && Link(c)->ack_offset >= offset) n++;
  return n;
}

void RequestAcks() { primary_.getack_pending = true; }

// ---- hooks used by the rest of the node ----

namespace {
// Sends the snapshot; true once all of it is sent (the link is online then).
bool SendSnapshot(Client* c) {
  ReplicaLink* l = Link(c);
  while (true) {
    if (l->rdb_buf.empty() && l->rdb_fd >= 0 && (l->tailing || l->rdb_off < l->rdb_size)) {
      char buf[64 * 1024];
      ssize_t n = pread(l->rdb_fd, buf, sizeof(buf), l->rdb_off);
      if (n < 0 || (n == 0 && !l->tailing)) {
        server::CloseAsync(c);
        return false;
      }
      l->tail_caught_up = n == 0 && !l->tail_end;
      if (n == 0) {
        // The end of what the child wrote so far; once it is done, the mark ends the payload.
        if (!l->tail_end) return false;
        l->tailing = false;
        l->rdb_buf = l->eof_mark;
      } else {
        l->rdb_off += n;
        l->rdb_buf.assign(buf, static_cast<size_t>(n));
      }
    }
    if (l->rdb_buf.empty()) break;
    net::IoResult io = net::WriteOnce(c->conn.fd, l->rdb_buf.data(), l->rdb_buf.size());
    if (io.status != net::IoResult::kOk) {
      if (io.Failed()) server::CloseAsync(c);
      if (!l->stalled_since_ms) l->stalled_since_ms = base::MsTime();
      return false;
    }
    l->stalled_since_ms = 0;
    CountReplicaBytes(c, io.bytes);
    l->rdb_buf.erase(0, io.bytes);
  }
  // Drained: let the diskless pipe flow again.
  if (l->diskless) ResumePipeIfDrained();
  bool done = l->diskless            ? (primary_.child == -1 && primary_.pipe_eof)
              : !l->eof_mark.empty() ? !l->tailing && l->tail_end
                                     : l->rdb_off >= l->rdb_size;
  if (!done) return false;
  if (l->rdb_fd >= 0) close(l->rdb_fd);
  l->rdb_fd = -1;
  std::string().swap(l->rdb_buf);  // its 64 KB chunks' room, kept for the link's life else
  if (l->diskless)
    LOG_NOTICE(
        "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK "
        "from replica to enable streaming",
        ReplicaName(c).c_str());
  l->stream_on_ack = l->diskless || !l->eof_mark.empty();
  l->state = ReplicaLink::kOnline;
  l->ack_time_ms = base::MsTime();
  LOG_NOTICE("Synchronization with replica %s succeeded", ReplicaName(c).c_str());
  return true;
}

// Sends the stream from the replica's place in the buffer, as much as the socket takes.
bool SendStream(Client* c) {
  ReplicaLink* l = Link(c);
  ReplBuffer* b = GetState().backlog.get();
  if (!SendsStream(l) || !b) return true;
  uint64_t was_on = l->pos.block;
  while (true) {
    iovec iov[16];
    size_t n = b->Gather(l->pos, iov, 16, 1 << 20);
    if (n == 0) break;
    net::IoResult io = net::WritevOnce(c->conn.fd, iov, static_cast<int>(n));
    if (io.bytes) {
      CountReplicaBytes(c, io.bytes);
      l->pos = b->Advance(l->pos, io.bytes);
    }
    if (io.status == net::IoResult::kOk) continue;
    if (io.Failed()) {
      server::CloseAsync(c);
      return false;
    }
    break;  // the socket is full
  }
  // It left a block: the backlog may free what no one reads now.
  if (l->pos.block != was_on) TrimBacklog(kTrimBytesPerFeed);
  return true;
}
}  // namespace

bool ReplicaWrite(Client* c) {
  ReplicaLink* l = Link(c);
  // Replies of the handshake and the PSYNC line first...
  if (c->conn.Pending()) {
    net::IoResult io = c->conn.Write();
    CountReplicaBytes(c, io.bytes);
    if (io.Failed()) {
      server::CloseAsync(c);
      return false;
    }
    if (c->conn.Pending()) return true;
  }
  // ...then the snapshot, then the stream from where the snapshot was taken.
  if (l->state == ReplicaLink::kWaitBgsaveEnd) return true;
  if (l->state == ReplicaLink::kSendRdb && !SendSnapshot(c)) return !(c->flags & server::kCloseAsap);
  return SendStream(c);
}

// Whether the client layer should wait for the socket to become writable.
bool ReplicaWantsWrite(Client* c) {
  ReplicaLink* l = Link(c);
  if (c->conn.Pending()) return true;
  if (l->state == ReplicaLink::kSendRdb) {
    // Caught up with a file still being written: no socket event helps, the tail timer does.
    if (l->tail_caught_up && l->rdb_buf.empty()) return false;
    return !l->rdb_buf.empty() || l->rdb_fd >= 0;
  }
  if (l->state == ReplicaLink::kWaitBgsaveEnd) return false;
  return StreamPending(l) > 0;
}

bool ReplicaHasPending(Client* c) { return c->repl && ReplicaWantsWrite(c); }

void ClientFreed(Client* c) {
  if (c->flags & server::kPrimary) PrimaryLinkFreed(c);
  if (c->flags & server::kReplica) {
    primary_.replicas.erase(std::remove(primary_.replicas.begin(), primary_.replicas.end(), c),
                            primary_.replicas.end());
    if (c->repl && c->repl->rdb_fd >= 0) close(c->repl->rdb_fd);
    LOG_NOTICE("Connection with replica %s lost.", ReplicaName(c).c_str());
    if (primary_.replicas.empty()) GetState().no_replicas_since_ms = base::MsTime();
    if (c->repl) StopUnwantedSnapshot(c->repl);
    ResumePipeIfDrained();  // it may have been the replica the pipe waited for
  }
  bool was_replica = c->flags & server::kReplica;
  delete c->repl;
  c->repl = nullptr;
  if (was_replica) TrimBacklog(kTrimBytesPerFeed);  // what it alone held (then the cron)
}

void FeedReplicas(bool new_block) {
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    if (!l->streaming) continue;  // waits for its snapshot to start
    if (l->state == ReplicaLink::kOnline) server::QueueWrite(c);
    if (new_block) server::CheckOutputLimits(c);
  }
}

int ConnectedReplicas() { return static_cast<int>(primary_.replicas.size()); }
const std::vector<Client*>& Replicas() { return primary_.replicas; }

std::string ReplicaWithoutSlotImport() {
  for (Client* c : primary_.replicas)
    if (c->repl && !c->repl->capa_slot_import)  // named as INFO lists it: its listening port
      return ReplicaIp(c) + ":" + std::to_string(c->repl->listening_port);
  return "";
}

int ReplicasWithSlotImport() {
  int n = 0;
  for (Client* c : primary_.replicas) n += c->repl && c->repl->capa_slot_import;
  return n;
}

bool NotEnoughReplicas() {
  return server::cfg.min_replicas_to_write > 0 &&
         GoodReplicas() < server::cfg.min_replicas_to_write;
}

// A replica waiting for its snapshot to start (repl-diskless-sync-delay, another child) or for
// a disk snapshot to finish hears nothing else for that long: a bare "\n" every second keeps
// its repl-timeout from expiring, as Valkey 8's replicationCron does. Written straight to the
// socket, and only once all before the stream has left: it is neither a reply nor stream.
void SendPresyncNewlines(int64_t now) {
  static int64_t last = 0;
  if (now - last < 1000) return;
  last = now;
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    bool waiting = l->state == ReplicaLink::kWaitBgsaveStart ||
                   (l->state == ReplicaLink::kWaitBgsaveEnd && !l->diskless);
    if (!waiting || c->conn.Pending()) continue;
    net::IoResult io = net::WriteOnce(c->conn.fd, "\n", 1);
    if (io.Failed()) server::CloseAsync(c);
    g.stats.net_repl_output_bytes += io.bytes;
  }
}

void PrimaryCron() {
  ReapDisklessChild();
  // Replicas that stopped acknowledging for repl-timeout are dropped (they come back by PSYNC).
  int64_t t = base::MsTime();
  for (Client* c : primary_.replicas) {
    ReplicaLink* l = Link(c);
    if (l->state == ReplicaLink::kOnline && !l->old_sync &&
        t - l->ack_time_ms > server::cfg.repl_timeout * 1000) {
      LOG_WARNING("Disconnecting timedout replica (streaming sync): %s", ReplicaName(c).c_str());
      server::CloseAsync(c);
    }
    // Only a diskless transfer: its child waits for the slowest reader, so one that stopped
    // holds up every other replica's sync (a disk transfer's reader holds up no one).
    if (InDisklessTransfer(c) && l->stalled_since_ms &&
        t - l->stalled_since_ms > server::cfg.repl_timeout * 1000) {
      LOG_WARNING("Disconnecting timedout replica (full sync): %s", ReplicaName(c).c_str());
      server::CloseAsync(c);
    }
  }
  MaybeStartFullSync();
  SendPresyncNewlines(t);
  server::HandleReplicaAcks();
  TrimBacklog(kTrimBytesPerCron);
  State& st = GetState();
  // Free the backlog after repl-backlog-ttl without replicas (never on a replica: PSYNC2).
  if (st.backlog && primary_.replicas.empty() && !IsReplica() && server::cfg.repl_backlog_ttl > 0 &&
      base::MsTime() - st.no_replicas_since_ms > server::cfg.repl_backlog_ttl * 1000) {
    st.backlog.reset();
    LOG_NOTICE("Replication backlog freed after %lld seconds without connected replicas.",
               static_cast<long long>(server::cfg.repl_backlog_ttl));
  }
  // Ping replicas now and then so their link stays alive (part of the stream). Not while
  // writes are paused: a manual failover waits for the offset to hold still.
  // Counted from the start, as Valkey 8's replication cron counts its ticks: the first
  // replica's stream does not begin with a PING (tools reading the stream see the writes).
  int64_t now = base::MsTime();
  static int64_t last_ping = now;
  if (!primary_.replicas.empty() && !IsReplica() && !server::WritesPaused() &&
      now - last_ping >= server::cfg.repl_ping_replica_period * 1000) {
    last_ping = now;
    FeedStream("*1\r\n$4\r\nPING\r\n");
  }
}

void PrimaryBeforeSleep() {
  if (primary_.getack_pending && !primary_.replicas.empty()) SendGetAck();
  primary_.getack_pending = false;
  server::HandleReplicaAcks();
}

void InitPrimary() {
  server::AddBgsaveDoneHook(OnBgsaveDone);
  // Only one child at a time: BGSAVE waits for our diskless child and the reverse.
  server::AddOtherChildCheck([] { return primary_.child != -1; }, KillDisklessChild);
}

// ---- commands ----

void ReplconfCommand(Client* c) {
  auto& a = c->argv;
  if (a.size() % 2 == 0) return c->R().Error(server::kErrSyntax);
  for (size_t i = 1; i + 1 < a.size(); i += 2) {
    std::string opt = base::ToLower(a[i]);
    std::string_view v = a[i + 1];
    if (opt == "ack") {
      // From a replica: no reply. ACK <offset> [FACK <offset its AOF holds on disk>]
      int64_t off, fack;
      if (c->repl && base::ParseInt64(v, &off)) {
        if (off > c->repl->ack_offset) c->repl->ack_offset = off;
        if (i + 3 < a.size() && base::EqualsNoCase(a[i + 2], "fack") &&
            base::ParseInt64(a[i + 3], &fack) && fack > c->repl->aof_ack_offset)
          c->repl->aof_ack_offset = fack;
        c->repl->ack_time_ms = base::MsTime();
        if (c->repl->stream_on_ack && c->repl->state == ReplicaLink::kOnline) {
          c->repl->stream_on_ack = false;  // it has the snapshot: what waited goes now
          server::QueueWrite(c);
        }
        server::HandleReplicaAcks();
      }
      return;
    }
    if (opt == "getack") {
      if (c->flags & server::kPrimary) SendAckToPrimary(true);
      return;
    }
    if (!c->repl) c->repl = new ReplicaLink();
    if (opt == "listening-port") {
      int64_t port;
      if (!base::ParseInt64(v, &port))
        return c->R().Error("value is not an integer or out of range");
      c->repl->listening_port = static_cast<int>(port);
    } else if (opt == "ip-address") {
      c->repl->announced_ip = std::string(v);
    } else if (opt == "capa") {
      if (base::EqualsNoCase(v, "eof"))
        c->repl->capa_eof = true;
      else if (base::EqualsNoCase(v, "psync2"))
        c->repl->capa_psync2 = true;
      else if (base::EqualsNoCase(v, "slot-import"))
        c->repl->capa_slot_import = true;
    } else if (opt == "version") {
      c->repl->version = std::string(v);
    } else if (opt == "rdb-only") {
      int64_t only;
      if (!base::ParseInt64(v, &only))
        return c->R().Error("value is not an integer or out of range");
      if (only < 0 || only > 1)
        return c->R().Error("value is out of range, value must between 0 and 1");
      c->repl->rdb_only = only == 1;
    } else if (opt == "rdb-filter-only") {
      // Include filters, as Valkey 8: "functions" is the one known; what is not listed is
      // left out, so any filter leaves the data out.
      c->repl->exclude_data = true;
      size_t at = 0;
      while (at < v.size()) {
        size_t end = v.find(' ', at);
        if (end == std::string_view::npos) end = v.size();
        std::string_view f = v.substr(at, end - at);
        if (!f.empty() && !base::EqualsNoCase(f, "functions"))
          return c->R().Error("Unsupported rdb-filter-only option: " + std::string(f));
        at = end + 1;
      }
    } else if (opt == "rdb-channel" || opt == "main-ch-client-id") {
      // accepted, not used (dual-channel replication)
    } else {
      return c->R().Error("Unrecognized REPLCONF option: " + std::string(a[i]));
    }
  }
  c->R().Ok();
}

// REPLCONF rdb-filter-only: a snapshot with none of the data (redis-cli --functions-rdb asks
// for the functions alone, which this node does not keep): the header and aux fields, made
// here without a fork, in the EOF-marked form. The connection closes after it: it never
// becomes a replica, takes no stream and holds no backlog.
void SendSnapshotWithoutData(Client* c, bool psync) {
  std::string rdb;
  persist::SnapshotWriter w(&rdb, server::SnapshotSaveOptions(/*for_replication=*/true));
  w.Header(time(nullptr), server::UsedMemory());
  w.Finish();
  std::string mark = RandomId();
  if (psync) c->R().Raw(FullResyncLine());
  c->R().Raw("$EOF:" + mark + "\r\n");
  c->R().Raw(rdb);
  c->R().Raw(mark);
  c->flags |= server::kCloseAfterReply;
  LOG_NOTICE("Sent %s a snapshot without data (rdb-filter-only): %zu bytes", ReplicaName(c).c_str(),
             rdb.size());
}

void PsyncGeneric(Client* c, bool psync) {
  if (c->flags & server::kReplica) return;  // already a replica link
  // PSYNC <replid> <offset> FAILOVER: my primary hands its role over to me (FAILOVER on it).
  if (psync && c->argv.size() > 3 && base::EqualsNoCase(c->argv[3], "failover")) {
    LOG_NOTICE("Failover request received for replid %s.", std::string(c->argv[1]).c_str());
    if (!IsReplica()) return c->R().Error("PSYNC FAILOVER can't be sent to a master.");
    if (c->argv[1] != GetState().replid)
      return c->R().Error("PSYNC FAILOVER replid must match my replid.");
    BecomePrimary();
    LOG_NOTICE("PRIMARY MODE enabled (failover request from '%s')",
               server::ClientInfoForLog(c).c_str());
  }
  if (FailoverInProgress())
    return c->R().Error("-NOMASTERLINK Can't SYNC while failing over");
  if (IsReplica() && !PrimaryLinkUp())
    return c->R().Error("-NOMASTERLINK Can't SYNC while not connected with my master");
  // Replies of earlier commands still unsent would land inside the replica's stream.
  if (c->PendingOutput() > 0)
    return c->R().Error("SYNC and PSYNC are invalid with pending output");
  // A filtered snapshot goes over the socket only (as Valkey 8), never through dump.rdb.
  if (c->repl && c->repl->exclude_data && !c->repl->capa_eof)
    return c->R().Error("Filtered replica requires EOF capability");
  LOG_NOTICE("Replica %s asks for synchronization", ReplicaName(c).c_str());
  if (c->repl && c->repl->exclude_data) return SendSnapshotWithoutData(c, psync);
  int64_t from = 0;
  if (psync && !base::ParseInt64(c->argv[2], &from)) {
    LOG_WARNING("Replica %s asks for synchronization but with a wrong offset",
                ReplicaName(c).c_str());
    return c->R().Error("value is not an integer or out of range");
  }
  if (!c->repl) c->repl = new ReplicaLink();
  c->repl->old_sync = !psync;
  c->flags |= server::kReplica;
  c->repl->ack_time_ms = base::MsTime();
  primary_.replicas.push_back(c);
  EnsureBacklog();
  if (psync) {
    if (TryPartial(c, c->argv[1], from)) return;
    if (c->argv[1] != "?")
      LOG_NOTICE("Partial resynchronization not accepted: replid or offset out of range");
    g.stats.sync_partial_err += c->argv[1] != "?";
  }
  g.stats.sync_full++;
  c->repl->state = ReplicaLink::kWaitBgsaveStart;
  // A disk snapshot, or a diskless one that waits for no other replica (or has as many as
  // repl-diskless-sync-max-replicas), starts now; else the cron starts it once the delay has
  // passed (Valkey starts both from its cron, up to 1000/hz ms later).
  if (!server::cfg.repl_diskless_sync || server::cfg.repl_diskless_sync_delay == 0 ||
      server::cfg.repl_diskless_sync_max_replicas > 0)
    MaybeStartFullSync();
}
void PsyncCommand(Client* c) { PsyncGeneric(c, true); }
void SyncCommand(Client* c) { PsyncGeneric(c, false); }

// WAIT's and WAITAOF's timeout in ms (0: none) as a deadline, as Valkey 8's
// getTimeoutFromObjectOrReply: false when the reply is an error.
bool WaitDeadline(Client* c, std::string_view arg, int64_t* deadline) {
  int64_t timeout;
  if (!server::ArgInt(c, arg, &timeout, "timeout is not an integer or out of range")) return false;
  if (timeout < 0) {
    c->R().Error("timeout is negative");
    return false;
  }
  int64_t now = base::MsTime();
  if (timeout > INT64_MAX - now) {  // past what a millisecond clock holds
    c->R().Error("timeout is out of range");
    return false;
  }
  *deadline = timeout ? now + timeout : 0;
  return true;
}

void WaitCommand(Client* c) {
  if (IsReplica()) return c->R().Error("WAIT cannot be used with replica instances.");
  int64_t num, deadline;
  if (!server::ArgInt(c, c->argv[1], &num)) return;
  if (!WaitDeadline(c, c->argv[2], &deadline)) return;
  int64_t target = c->woff;
  int64_t acked = AckedAtLeast(target);
  if (acked >= num || g.in_exec || c->InMulti()) return c->R().Int(acked);
  server::BlockForReplicas(c, target, num, deadline, AckedAtLeast);
  SendGetAck();
}

void WaitaofCommand(Client* c) {
  int64_t numlocal, numreplicas, deadline;
  if (!server::ArgInt(c, c->argv[1], &numlocal)) return;
  if (numlocal < 0 || numlocal > 1)
    return c->R().Error("value is out of range, value must between 0 and 1");
  if (!server::ArgInt(c, c->argv[2], &numreplicas)) return;
  if (numreplicas < 0) return c->R().Error("value is out of range, must be positive");
  if (!WaitDeadline(c, c->argv[3], &deadline)) return;
  if (IsReplica())
    return c->R().Error(
        "WAITAOF cannot be used with replica instances. Please also note that writes to "
        "replicas are just local and are not propagated.");
  if (numlocal && !server::AofActive())
    return c->R().Error("WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
  int64_t target = c->woff;
  uint64_t local = c->aof_woff;
  int64_t acked = AofAckedAtLeast(target);
  bool local_ok = server::AofLocalSynced(local);
  if ((acked >= numreplicas && local_ok >= numlocal) || g.in_exec || c->InMulti()) {
    c->R().ArrayLen(2);
    c->R().Int(local_ok ? 1 : 0);
    c->R().Int(acked);
    return;
  }
  server::BlockForAof(c, local, numlocal, target, numreplicas,
                      deadline, AofAckedAtLeast,
                      server::AofLocalSynced);
  SendGetAck();
}

}  // namespace repl
