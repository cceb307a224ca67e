// Atomic slot migration, source side (see slot_export.h).
#include "cluster/slot_export.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_set>

#include "base/crc16.h"
#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/settings.h"
#include "cluster/slot_import.h"
#include "cluster/slot_keys.h"
#include "cluster/value_pieces.h"
#include "db/db.h"
#include "net/buffered_conn.h"
#include "net/event_loop.h"
#include "net/reply.h"
#include "net/socket.h"
#include "persist/object_codec.h"
#include "persist/value_codec.h"
#include "server/command.h"
#include "server/client.h"
#include "server/command_keys.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/write_out.h"

namespace cluster {
namespace {

using server::cfg;
using server::g;

// Each loop pass gives the jobs together this long, once the pass's replies went, and a walk
// stops earlier when this much is queued for the target (it waits for the socket rather than
// fill memory). A command arriving during a slice waits for its end: with 1 ms, a paced load of
// 2,000 SETs/s on the source's other slots saw its median go from 0.13 to 0.6 ms during moves;
// with 250 us, to 0.4 ms, and moves went no slower (the passes' own cost is a few us).
constexpr int64_t kWalkSliceUs = 250;
constexpr size_t kMaxQueued = 4 << 20;
// The handover starts once everything is written and the requests not yet answered hold at
// most this many bytes: the target is nearly caught up (not still loading a big value), so
// writes to the slots are held only for the last few.
constexpr size_t kHandoverMaxOwedBytes = 32 * 1024;
// Forwarded writes are queued whatever the target's pace (the walk waits for it, writes cannot):
// past this much queued, as past a replica's default hard output limit, the job fails rather
// than hold the node's memory.
constexpr size_t kMaxForwardQueue = 256 << 20;
// A big value goes in pieces of this many elements or bytes (one APPLY each): a piece of a big
// sorted set costs the target about 1 ms (random inserts into its skiplist).
constexpr size_t kPieceElements = 64;
constexpr size_t kPieceBytes = 16 * 1024;
// Small keys go this many (or this many bytes) per RESTORE: the target's cost per command
// (parsing, dispatch, propagation) is paid once for them all.
constexpr size_t kBatchKeys = 64;
constexpr size_t kBatchBytes = 64 * 1024;
// Buckets of a slot's key table the walk takes a step (about 60 keys at the table's usual
// load): its time, queue and DEBUG SLOT-MIGRATION-WALK-LIMIT bounds are checked between steps.
constexpr int kWalkBuckets = 8;
// A slot of this many keys or more has its table on the target sized before its walk
// (SYNCSLOTS RESERVE): growing it key by key rehashes every key several times.
constexpr size_t kReserveFrom = 4096;
// Requests kept until answered, to be sent again after a lost connection: the walk waits past
// this much (a target that reads fast and applies slowly would have it keep them all).
constexpr size_t kMaxUnacked = 8 << 20;
// What one Flush writes at most: on loopback a write(2) also runs the target's side of TCP, and
// one flush of the 4 MB queue held the source's loop for 2.4 ms in the copy alone (perf); the
// rest goes in the next passes (the socket stays writable).
constexpr size_t kFlushMaxBytes = 256 * 1024;
// A reconnection that has not connected within this long is tried again.
constexpr int64_t kConnectAttemptMs = 1000;
constexpr int64_t kReconnectEveryMs = 100;

enum class Expect { kAuth, kEstablish, kData, kHandover, kResume };

// Requests kept as sent until answered, oldest first, in chunks of about 256 KB that are
// freed as their requests are answered: never one big buffer whose front is moved down (a
// slow target's backlog of forwarded writes may reach hundreds of MB). A request never
// spans two chunks.
class KeptRequests {
 public:
  // Encodes argv at the end; returns it as kept.
  std::string_view Add(const std::vector<std::string_view>& argv) {
    if (chunks_.empty() || chunks_.back().size() >= kChunk) chunks_.emplace_back();
    std::string& tail = chunks_.back();
    size_t before = tail.size();
    net::AppendCommand(&tail, argv);
    size_t n = tail.size() - before;
    sizes_.push_back(n);
    bytes_ += n;
    return std::string_view(tail).substr(before, n);
  }
  void PopFront() {
    size_t n = sizes_.front();
    sizes_.pop_front();
    bytes_ -= n;
    head_ += n;
    if (head_ == chunks_.front().size()) {
      chunks_.pop_front();
      head_ = 0;
    }
  }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    auto it = chunks_.begin();
    size_t at = head_;
    for (size_t n : sizes_) {
      if (at == it->size()) ++it, at = 0;
      fn(std::string_view(*it).substr(at, n));
      at += n;
    }
  }
  size_t count() const { return sizes_.size(); }
  size_t bytes() const { return bytes_; }
  void Clear() {
    chunks_.clear();
    sizes_.clear();
    head_ = bytes_ = 0;
  }

 private:
  static constexpr size_t kChunk = 256 * 1024;
  std::deque<std::string> chunks_;
  std::deque<size_t> sizes_;
  size_t head_ = 0;  // answered bytes of the first chunk
  size_t bytes_ = 0;
};
enum class JobState {
  kConnecting,
  kEstablishing,
  kSnapshotting,
  kStreaming,
  kHandingOver,
  kSuccess,
  kFailed,
  kCancelled
};

const char* StateName(JobState s) {
  switch (s) {
    case JobState::kConnecting:
      return "connecting";
    case JobState::kEstablishing:
      return "reading-establish-response";
    case JobState::kSnapshotting:
      return "snapshotting";
    case JobState::kStreaming:
      return "replicating";
    case JobState::kHandingOver:
      return "failover-paused";
    case JobState::kSuccess:
      return "success";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

struct Job {
  std::string name, target_id, source_id;
  std::vector<SlotRange> ranges;
  SlotBitmap slots{};
  std::vector<int> slot_list;  // the walk's order
  size_t walk_slot = 0;
  uint64_t walk_cursor = 0;
  // Slots whose walk has begun. A write to a slot not begun yet is not forwarded: its keys are
  // sent later in their state of then, that write included.
  SlotBitmap walk_begun{};
  // Keys whose state on the target is unknown after a write that involved several keys
  // (RENAME, SMOVE, the *STORE commands...): the target may lack one it reads, not sent yet,
  // and compute something else. Their state here goes at the end of the loop pass (SendDirty);
  // writes to them are not forwarded meanwhile (that state includes them).
  std::unordered_set<std::string> dirty;
  // Big values (SentInPieces) wait here as the walk finds them, then go one at a time:
  // `piece_key` is the one going (empty: none), rebuilt on the target by an APPLY DEL and its
  // pieces (value_pieces.h). Writes to it that are not right on a part are held meanwhile
  // (ExportHoldsWrite); one that runs anyway starts it over (StartOver).
  std::deque<std::string> big_keys;
  // Every big value queued so far: a walk step during a rehash of the slot's table may find a
  // key twice, which for a big value would mean sending it twice.
  std::unordered_set<std::string> big_seen;
  std::string piece_key;
  db::Type piece_type = db::kString;
  PieceCursor piece;
  JobState state = JobState::kConnecting;
  int64_t create_ms = 0, update_ms = 0, ack_ms = 0, hold_start_ms = 0;
  std::string message;
  net::BufferedConn conn;
  std::deque<Expect> expect;
  std::deque<size_t> expect_bytes;  // each unanswered request's size
  size_t owed_bytes = 0;
  // HANDOVER went and its answer did not come (no reply in time, or the connection dropped):
  // the target may have taken the slots, so their writes stay held until its claim is seen.
  bool in_doubt = false;
  // The data requests (RESTORE, APPLY) not answered yet, as sent: after a lost connection
  // the target says how many it took (RESUME), and the rest go again. `answered` counts those
  // answered since the job began.
  KeptRequests unacked;
  uint64_t answered = 0;
  // The connection was lost before the handover: a new one is tried until lost_ms plus
  // ExportResumeWindowMs. Until RESUME is answered, requests only join `unacked`, and the walk
  // waits (writes are still forwarded: they join it too).
  bool resuming = false;
  bool connecting = false;  // a connect(2) in progress
  int64_t lost_ms = 0, attempt_ms = 0;
  std::string lost_why;  // what ended the link the job resumes from
  // A job ended on purpose: the replies still to come on its lingering link, ABORT's last.
  size_t linger_replies = 0;
  uint64_t resumes = 0;
  size_t UnackedBytes() const { return unacked.bytes(); }
  uint64_t keys_sent = 0, writes_forwarded = 0;
  uint64_t sends = 0;  // RESTOREs and pieces (DEBUG SLOT-MIGRATION-WALK-LIMIT counts these)
  uint64_t bytes_sent = 0;  // everything queued for the target, requests of every kind
  // Keys waiting to go in one RESTORE (key, expire, payload, ...): sent before any other
  // request, so that the stream keeps its order.
  std::vector<std::string> batch;
  size_t batch_bytes = 0;
  int64_t hold_ms = -1;  // how long writes to the slots were held (the handover)
  bool Running() const { return state < JobState::kSuccess; }
  // Writes are forwarded from the moment the import is open on the target until the handover
  // is sent (after it, writes to the slots are held; a key that expires meanwhile expires on
  // the target by itself).
  bool Forwarding() const {
    return state == JobState::kSnapshotting || state == JobState::kStreaming;
  }
};

std::vector<std::unique_ptr<Job>> jobs;
bool release_due = false;  // a hold ended: held writes run again before the loop sleeps

// Jobs forwarding writes, and jobs holding them (a handover): every write consults these
// first, so that a node with no such job (finished ones are kept for GETSLOTMIGRATIONS) pays
// one test, not a walk of the job list.
int forwarding_jobs = 0, holding_jobs = 0;

// Every change of a job's state goes here (jobs are made in kConnecting, counted by neither).
void SetState(Job* j, JobState s) {
  forwarding_jobs -= j->Forwarding();
  holding_jobs -= j->state == JobState::kHandingOver;
  j->state = s;
  j->update_ms = base::MsTime();
  forwarding_jobs += j->Forwarding();
  holding_jobs += j->state == JobState::kHandingOver;
}

void OnReadable(int fd, void* data, int);
void OnWritable(int fd, void* data, int);

// Jobs sending a big value in pieces: the hold of writes to its key is looked at only then.
int piece_jobs = 0;

void EndPiece(Job* j) {
  if (j->piece_key.empty()) return;
  j->piece_key.clear();
  piece_jobs--;
  release_due = true;  // writes held for the key run again
}

void CloseLink(Job* j) {
  j->connecting = false;
  if (j->conn.fd < 0) return;
  g.loop->DelFile(j->conn.fd, net::kReadable | net::kWritable);
  close(j->conn.fd);
  j->conn.fd = -1;
  j->conn.Clear();
}

// Forgets what the link had in flight (the requests themselves stay in `unacked`).
void DropLink(Job* j) {
  CloseLink(j);
  j->expect.clear();
  j->expect_bytes.clear();
  j->owed_bytes = 0;
}

void Finish(Job* j, JobState s, const std::string& message) {
  if (!j->Running()) return;
  bool was_handover = j->state == JobState::kHandingOver;
  if (was_handover) {
    j->hold_ms = base::MsTime() - j->hold_start_ms;
    release_due = true;
  }
  // Ended on purpose with the import open on a live link: the target hears ABORT (after what
  // is queued, which it takes first) and drops what it staged at once, rather than wait for a
  // resume that will not come. The link lingers until ABORT is answered (a close before that
  // could make the target drop the input it has not run yet, ABORT with it), or the window.
  bool abort = s != JobState::kSuccess && !was_handover && j->Forwarding() && !j->resuming &&
               j->conn.fd >= 0 && !j->connecting;
  if (abort) {
    net::AppendCommand(&j->conn.out, {"CLUSTER", "SYNCSLOTS", "ABORT", j->name});
    j->linger_replies = j->expect.size() + 1;
    j->expect.clear();
    j->expect_bytes.clear();
    j->owed_bytes = 0;
  } else {
    DropLink(j);
  }
  j->unacked.Clear();
  j->resuming = false;
  j->dirty.clear();
  j->big_keys.clear();
  j->batch.clear();
  j->batch_bytes = 0;
  EndPiece(j);
  j->message = message;
  SetState(j, s);
  if (s == JobState::kSuccess)
    LOG_NOTICE(
        "Slot migration %.40s to node %.40s (slots %s) succeeded: %llu keys, %llu writes "
        "forwarded, writes held %lld ms",
        j->name.c_str(), j->target_id.c_str(), FormatSlotRanges(j->ranges).c_str(),
        static_cast<unsigned long long>(j->keys_sent),
        static_cast<unsigned long long>(j->writes_forwarded), static_cast<long long>(j->hold_ms));
  else
    LOG_WARNING("Slot migration %.40s to node %.40s (slots %s) %s: %s", j->name.c_str(),
                j->target_id.c_str(), FormatSlotRanges(j->ranges).c_str(), StateName(s),
                message.c_str());
}

// After HANDOVER went, silence or a dropped connection says nothing of whether the target took
// the slots: resuming their writes here could have them acknowledged and then lost to the
// target's claim. The writes stay held until the target's +OK (on a link still open) or its
// claim is seen (CheckOwnership), or a bound passes (ExportBeforeSleep).
void HandoverInDoubt(Job* j, const std::string& why, bool link_lost) {
  if (link_lost) DropLink(j);
  if (j->in_doubt) return;
  j->in_doubt = true;
  j->message = why + "; writes to the slots held until the target's answer or claim";
  LOG_WARNING("Slot migration %.40s: %s", j->name.c_str(), j->message.c_str());
}

// A failure of the connection: after HANDOVER went the job is in doubt; while keys and writes
// flow, a new connection resumes it (ExportBeforeSleep) within the window; else it fails.
void Fail(Job* j, const std::string& why) {
  if (!j->Running()) return DropLink(j);  // a finished job's lingering ABORT
  if (j->state == JobState::kHandingOver) return HandoverInDoubt(j, why, true);
  if (!j->Forwarding()) return Finish(j, JobState::kFailed, why);
  DropLink(j);
  int64_t now = base::MsTime();
  if (!j->resuming) {
    j->resuming = true;
    j->lost_ms = now;
    j->attempt_ms = 0;
    j->lost_why = why;
    j->message = why + "; resuming";
    LOG_WARNING("Slot migration %.40s: %s; resuming on a new connection", j->name.c_str(),
                why.c_str());
  } else {
    j->message = j->lost_why + "; resuming (last attempt: " + why + ")";
  }
  j->update_ms = now;
}

void FlushBatch(Job* j);

// On the link (when there is one to write to): its reply is expected in turn.
void QueueBytes(Job* j, std::string_view bytes, Expect e) {
  j->conn.out.append(bytes);
  j->expect.push_back(e);
  j->expect_bytes.push_back(bytes.size());
  j->owed_bytes += bytes.size();
}

// A request: data requests are also kept until answered (resent after a lost connection) and
// are kept only, not written, while the job resumes; the others need a link.
void Queue(Job* j, const std::vector<std::string_view>& argv, Expect e) {
  bool data = e == Expect::kData;
  if (!data && j->conn.fd < 0) return;
  if (data && !j->Running()) return;
  FlushBatch(j);
  if (!data) {
    size_t before = j->conn.out.size();
    net::AppendCommand(&j->conn.out, argv);
    size_t bytes = j->conn.out.size() - before;
    j->expect.push_back(e);
    j->expect_bytes.push_back(bytes);
    j->owed_bytes += bytes;
    return;
  }
  std::string_view kept = j->unacked.Add(argv);  // encoded once, kept; the link gets a copy
  j->bytes_sent += kept.size();
  if (!j->resuming) QueueBytes(j, kept, e);
}

// The data requests answered drop out of `unacked`.
void Answered(Job* j, uint64_t n) {
  for (; n > 0 && j->unacked.count() > 0; n--) {
    j->unacked.PopFront();
    j->answered++;
  }
}

// Writes what is queued; asks for writability while some is left.
void Flush(Job* j) {
  if (j->conn.fd < 0 || j->connecting || !j->conn.Pending()) return;
  g.loop->SubmitQueued();  // io_uring: this pass's replies go before what the target reads
  net::IoResult r = j->conn.Write(SIZE_MAX, kFlushMaxBytes);
  if (r.Failed()) return Fail(j, "Connection to the target node lost");
  // A queue never empty (the walk refills it) would grow `out` without end, written part
  // and all, each doubling a copy that stalls the loop: the unwritten part goes into blocks.
  if (j->conn.out.size() >= net::BufferedConn::kSealBlock) j->conn.Seal();
  int fd = j->conn.fd;
  bool want = j->conn.Pending();
  bool has = g.loop->FileMask(fd) & net::kWritable;
  if (want && !has) g.loop->AddFile(fd, net::kWritable, OnWritable, j);
  if (!want && has) g.loop->DelFile(fd, net::kWritable);
}

void OnWritable(int, void* data, int) { Flush(static_cast<Job*>(data)); }

// The end of one whole RESP2 reply starting at p; npos while incomplete, kGarbage when the
// bytes are not a reply.
constexpr size_t kGarbage = std::string::npos - 1;
constexpr int64_t kMaxReplyBulk = 512 << 20;
size_t ReplyEnd(const std::string& b, size_t p, int depth = 0) {
  if (p >= b.size()) return std::string::npos;
  size_t eol = b.find("\r\n", p);
  if (eol == std::string::npos) return std::string::npos;
  char t = b[p];
  if (t == '+' || t == '-' || t == ':') return eol + 2;
  int64_t n;
  if ((t != '$' && t != '*') || depth > 8 ||
      !base::ParseInt64(std::string_view(b).substr(p + 1, eol - p - 1), &n))
    return kGarbage;
  if (n < 0) return eol + 2;
  if (t == '$') {
    if (n > kMaxReplyBulk) return kGarbage;  // no reply of ours is that big; nor wraps below
    size_t end = eol + 2 + static_cast<size_t>(n) + 2;
    return end <= b.size() ? end : std::string::npos;
  }
  size_t q = eol + 2;
  for (int64_t i = 0; i < n; i++) {
    q = ReplyEnd(b, q, depth + 1);
    if (q == std::string::npos || q == kGarbage) return q;
  }
  return q;
}

void Complete(Job* j);

// RESUME's answer: how many data requests the target took. The ones after go again, in order,
// before anything queued since (which followed them in `unacked`).
void Resumed(Job* j, bool error, const std::string& text) {
  int64_t took;
  if (error) return Finish(j, JobState::kFailed, "Target node could not resume: " + text);
  if (!base::ParseInt64(std::string_view(text).substr(text.empty() ? 0 : 1), &took) ||
      took < static_cast<int64_t>(j->answered) ||
      took > static_cast<int64_t>(j->answered + j->unacked.count()))
    return Finish(j, JobState::kFailed, "Target node resumed at a point never sent: " + text);
  Answered(j, static_cast<uint64_t>(took) - j->answered);
  j->unacked.ForEach([&](std::string_view req) { QueueBytes(j, req, Expect::kData); });
  j->resuming = false;
  j->resumes++;
  j->message.clear();
  LOG_NOTICE("Slot migration %.40s: resumed after %lld ms; %zu requests sent again",
             j->name.c_str(), static_cast<long long>(base::MsTime() - j->lost_ms),
             j->unacked.count());
  j->lost_ms = 0;
}

void OnReply(Job* j, Expect e, std::string_view line) {
  bool error = !line.empty() && line[0] == '-';
  std::string text(line.substr(error ? 1 : 0));
  j->ack_ms = base::MsTime();
  switch (e) {
    case Expect::kAuth:
      if (error) Finish(j, JobState::kFailed, "Failed to AUTH to target node: " + text);
      return;
    case Expect::kEstablish:
      if (error) return Finish(j, JobState::kFailed, "Target node refused the import: " + text);
      LOG_NOTICE("Slot migration %.40s to node %.40s: import open, sending slots %s",
                 j->name.c_str(), j->target_id.c_str(), FormatSlotRanges(j->ranges).c_str());
      SetState(j, JobState::kSnapshotting);
      return;
    case Expect::kData:
      return Answered(j, 1);  // a RESTORE's +OK, an APPLY's own reply (an error is the command's)
    case Expect::kResume:
      return Resumed(j, error, text);
    case Expect::kHandover:
      if (error) return Finish(j, JobState::kFailed, "Target node refused the handover: " + text);
      return Complete(j);
  }
}

void OnReadable(int fd, void* data, int) {
  Job* j = static_cast<Job*>(data);
  if (g.slot_migration_hold_replies) return g.loop->DelFile(fd, net::kReadable);  // DEBUG
  for (int i = 0; i < 4; i++) {
    net::IoResult r = j->conn.Read(64 * 1024);
    if (r.status == net::IoResult::kAgain) break;
    if (r.Failed()) return Fail(j, "Connection to the target node lost");
    if (r.bytes < 64 * 1024) break;
  }
  if (!j->Running()) {  // a lingering ABORT's link: closed once ABORT is answered
    size_t end, pos = j->conn.in_pos;
    while ((end = ReplyEnd(j->conn.in, pos)) != std::string::npos) {
      if (end == kGarbage || --j->linger_replies == 0) return CloseLink(j);
      pos = end;
    }
    j->conn.in_pos = pos;
    j->conn.CompactIn();
    return;
  }
  std::string& in = j->conn.in;
  size_t pos = j->conn.in_pos;
  while (j->Running()) {
    size_t end = ReplyEnd(in, pos);
    if (end == std::string::npos) break;
    if (end == kGarbage || j->expect.empty()) return Fail(j, "Protocol error from the target node");
    Expect e = j->expect.front();
    j->expect.pop_front();
    j->owed_bytes -= j->expect_bytes.front();
    j->expect_bytes.pop_front();
    std::string_view line(in.data() + pos, in.find("\r\n", pos) - pos);
    pos = end;
    OnReply(j, e, line);
  }
  if (j->conn.fd < 0) return;
  j->conn.in_pos = pos;
  j->conn.CompactIn();
}

void OnConnected(int fd, void* data, int) {
  Job* j = static_cast<Job*>(data);
  g.loop->DelFile(fd, net::kWritable);
  j->connecting = false;
  if (int err = net::ConnectError(fd)) {
    std::string why = std::string("Failed to connect to target node: ") + strerror(err);
    if (j->resuming) return Fail(j, why);  // tried again until the window closes
    return Finish(j, JobState::kFailed, why);
  }
  g.loop->AddFile(fd, net::kReadable, OnReadable, j);
  j->ack_ms = base::MsTime();
  if (!j->resuming) SetState(j, JobState::kEstablishing);
  if (!cfg.primaryauth.empty()) {
    if (cfg.primaryuser.empty())
      Queue(j, {"AUTH", cfg.primaryauth}, Expect::kAuth);
    else
      Queue(j, {"AUTH", cfg.primaryuser, cfg.primaryauth}, Expect::kAuth);
  }
  if (j->resuming) {
    Queue(j, {"CLUSTER", "SYNCSLOTS", "RESUME", j->name, j->source_id}, Expect::kResume);
    return Flush(j);
  }
  std::vector<std::string> owned = {"CLUSTER", "SYNCSLOTS", "ESTABLISH", j->name, j->source_id};
  for (const SlotRange& r : j->ranges) {
    owned.push_back(std::to_string(r.start));
    owned.push_back(std::to_string(r.end));
  }
  Queue(j, std::vector<std::string_view>(owned.begin(), owned.end()), Expect::kEstablish);
  Flush(j);
}

void Connect(Job* j) {
  Node* t = GetState().Find(j->target_id);
  if (!t || t->ip.empty() || !t->tcp_port)
    return Finish(j, JobState::kFailed, "Target node has no known address");
  std::string err;
  j->attempt_ms = base::MsTime();
  int fd = net::ConnectTcp(t->ip, t->tcp_port, &err);
  if (fd < 0) {
    if (j->resuming) return Fail(j, "Failed to connect to target node: " + err);
    return Finish(j, JobState::kFailed, "Failed to connect to target node: " + err);
  }
  j->conn.fd = fd;
  j->connecting = true;
  g.loop->AddFile(fd, net::kWritable, OnConnected, j);
}

// A job that lost its connection: a new one every kReconnectEveryMs (one not connected within
// kConnectAttemptMs is dropped: a partition swallows the SYN), until the window closes.
void Reconnect(Job* j) {
  int64_t now = base::MsTime();
  int64_t window = ExportResumeWindowMs(NodeTimeout());
  if (now - j->lost_ms > window)
    return Finish(j, JobState::kFailed,
                  "Connection to the target node lost and not resumed within " +
                      std::to_string(window) + " ms: " + j->message);
  if (j->connecting && now - j->attempt_ms > kConnectAttemptMs) DropLink(j);
  if (j->conn.fd < 0 && now - j->attempt_ms >= kReconnectEveryMs) Connect(j);
}

bool Expired(const db::Obj* o, int64_t now_ms) {
  return o->expire() >= 0 && o->expire() <= now_ms;
}

// The keys batched so far, as one RESTORE.
void FlushBatch(Job* j) {
  if (j->batch.empty()) return;
  static std::vector<std::string_view> argv;
  argv.assign({"CLUSTER", "SYNCSLOTS", "RESTORE", j->name});
  argv.insert(argv.end(), j->batch.begin(), j->batch.end());
  std::vector<std::string> keep;
  keep.swap(j->batch);  // the views stay valid; Queue finds no batch to send first
  j->batch_bytes = 0;
  Queue(j, argv, Expect::kData);
}

// A key as it is here, whole (a replaced staged value is dropped by the target), batched.
void SendKey(Job* j, db::Obj* o) {
  if (j->conn.fd < 0) return;
  j->batch.emplace_back(o->key());
  j->batch.push_back(std::to_string(o->expire()));
  j->batch.push_back(persist::EncodeDump(persist::ToValue(o)));
  j->batch_bytes += o->key().size() + j->batch.back().size();
  j->keys_sent++;
  j->sends++;
  if (j->batch.size() >= 3 * kBatchKeys || j->batch_bytes >= kBatchBytes) FlushBatch(j);
}

void SendDel(Job* j, std::string_view key) {
  Queue(j, {"CLUSTER", "SYNCSLOTS", "APPLY", j->name, "DEL", key}, Expect::kData);
}

// The big value going in pieces changed in a way its part on the target cannot follow: the
// target drops it, and it goes again from its first piece (as it is then).
void StartOver(Job* j) {
  SendDel(j, j->piece_key);
  j->piece = PieceCursor{};
  if (db::Obj* o = server::GetDb(0)->Find(j->piece_key)) j->piece_type = o->type();
}

// A key found by the walk or made dirty: whole, or queued to go in pieces.
void SendOrQueue(Job* j, db::Obj* o) {
  if (!SentInPieces(o)) return SendKey(j, o);
  if (j->big_seen.emplace(o->key()).second) j->big_keys.emplace_back(o->key());
}

// The state of the dirty keys: each as it is here, or deleted there.
void SendDirty(Job* j) {
  db::Db* d = server::GetDb(0);
  int64_t now_ms = base::MsTime();
  for (const std::string& key : j->dirty) {
    db::Obj* o = d->Find(key);
    if (key == j->piece_key)
      StartOver(j);
    else if (o && !Expired(o, now_ms) && SentInPieces(o))
      j->big_keys.emplace_back(key);  // its new state, again
    else if (o && !Expired(o, now_ms))
      SendKey(j, o);
    else
      SendDel(j, key);
  }
  j->dirty.clear();
}

// Big values, piece by piece, until the deadline or the queue is full.
void SendPieces(Job* j, int64_t deadline) {
  db::Db* d = server::GetDb(0);
  int64_t now_ms = base::MsTime();
  static std::vector<std::string> piece;
  static std::vector<std::string_view> argv;
  while (j->conn.PendingBytes() < kMaxQueued && j->UnackedBytes() < kMaxUnacked &&
         base::MonotonicUs() < deadline) {
    if (g.slot_migration_walk_limit && j->sends >= g.slot_migration_walk_limit) return;
    if (j->piece_key.empty()) {
      if (j->big_keys.empty()) return;
      j->piece_key = std::move(j->big_keys.front());
      j->big_keys.pop_front();
      piece_jobs++;
      StartOver(j);  // whatever a forwarded write made of the key there goes first
    }
    db::Obj* o = d->Find(j->piece_key);
    if (!o || Expired(o, now_ms)) {  // gone (its DEL went, or goes when it expires here)
      SendDel(j, j->piece_key);
      EndPiece(j);
      continue;
    }
    if (o->type() != j->piece_type) StartOver(j);  // replaced
    if (!j->piece.begun && !SentInPieces(o)) {  // shrank before its first piece
      SendKey(j, o);
      EndPiece(j);
      continue;
    }
    bool first = !j->piece.begun;
    if (NextPiece(o, &j->piece, kPieceElements, kPieceBytes, &piece)) {
      argv.assign({"CLUSTER", "SYNCSLOTS", "APPLY", j->name});
      argv.insert(argv.end(), piece.begin(), piece.end());
      Queue(j, argv, Expect::kData);
      j->sends++;
      // The first piece made the value there: its table is sized for all of it at once, or it
      // doubled a dozen times on the way, the last doublings each a burst of page faults of
      // the new bucket array that stalled the target's loop for milliseconds.
      if (size_t n = first ? TableElements(o) : 0)
        Queue(j, {"CLUSTER", "SYNCSLOTS", "SIZEHINT", j->name, j->piece_key, std::to_string(n)},
              Expect::kData);
      continue;
    }
    if (o->expire() >= 0) {
      std::string when = std::to_string(o->expire());
      Queue(j, {"CLUSTER", "SYNCSLOTS", "APPLY", j->name, "PEXPIREAT", j->piece_key, when},
            Expect::kData);
    }
    j->keys_sent++;
    EndPiece(j);
  }
}

// The walk: a slice of the job's keys as RESTOREs, big values queued for SendPieces (expired
// ones are left: their deletion follows as a forwarded DEL).
void Walk(Job* j, int64_t deadline) {
  db::Db* d = server::GetDb(0);
  int64_t now_ms = base::MsTime();
  while (j->walk_slot < j->slot_list.size()) {
    if (j->conn.PendingBytes() >= kMaxQueued || j->UnackedBytes() >= kMaxUnacked ||
        base::MonotonicUs() >= deadline)
      return;
    if (g.slot_migration_walk_limit && j->sends >= g.slot_migration_walk_limit) return;
    int slot = j->slot_list[j->walk_slot];
    if (!SlotTest(j->walk_begun, slot) && d->CountInSlot(slot) >= kReserveFrom) {
      std::string s = std::to_string(slot), n = std::to_string(d->CountInSlot(slot));
      Queue(j, {"CLUSTER", "SYNCSLOTS", "RESERVE", j->name, s, n}, Expect::kData);
    }
    SlotSet(&j->walk_begun, slot);
    j->walk_cursor = d->ScanSlotBatch(slot, j->walk_cursor, kWalkBuckets, [&](db::Obj* o) {
      if (!Expired(o, now_ms)) SendOrQueue(j, o);
    });
    if (j->walk_cursor == 0) j->walk_slot++;
  }
  LOG_NOTICE("Slot migration %.40s: %llu keys sent, streaming writes until the handover",
             j->name.c_str(), static_cast<unsigned long long>(j->keys_sent));
  SetState(j, JobState::kStreaming);
}

// The target is nearly caught up: hold writes to the slots, send the rest and the handover.
void MaybeHandOver(Job* j) {
  if (!j->big_keys.empty() || !j->piece_key.empty() || !j->dirty.empty()) return;
  if (j->conn.Pending() || j->owed_bytes > kHandoverMaxOwedBytes) return;
  SetState(j, JobState::kHandingOver);
  j->hold_start_ms = j->update_ms;
  Queue(j, {"CLUSTER", "SYNCSLOTS", "HANDOVER", j->name}, Expect::kHandover);
}

// The target owns the slots now (its epoch bump is on its disk): they are its here too, their
// keys leave db 0 at once and are freed in slices (DropSlotsLater), and the held writes run
// again and get MOVED. Replicas and the AOF hear of each slot as one CLUSTER FLUSHSLOT, or,
// with a replica that may not take it, as a DEL per key (not forwarded: the job is over).
void Complete(Job* j) {
  State& st = GetState();
  Node* target = st.Find(j->target_id);
  Finish(j, JobState::kSuccess, "");
  if (target)
    for (int s : j->slot_list)
      if (st.slot_owner[s] == st.myself) st.AssignSlot(s, target);
  st.MarkChanged(true, false);
  bool by_command =
      FlushSlotByCommand(static_cast<int>(st.myself->replicas.size()),
                         server::Repl().replicas_with_slot_import(),
                         !server::Repl().replica_without_slot_import().empty());
  if (by_command)
    for (int s : j->slot_list)
      server::WriteOut(0, {"CLUSTER", "FLUSHSLOT", std::to_string(s), "ASYNC"});
  DropSlotsLater(j->slot_list, !by_command);
}

// Slots that stopped being mine, or my demotion, end a running job; during the handover the
// target's own claim (its PONG may come before its reply) completes it.
void CheckOwnership(Job* j) {
  State& st = GetState();
  if (!st.myself->IsPrimary()) return Finish(j, JobState::kFailed, "I was demoted to a replica");
  Node* target = st.Find(j->target_id);
  bool all_target = target != nullptr;
  for (int s : j->slot_list) all_target &= st.slot_owner[s] == target;
  if (j->state == JobState::kHandingOver && all_target) return Complete(j);
  for (int s : j->slot_list)
    if (st.slot_owner[s] != st.myself)
      return Finish(j, JobState::kFailed, "Slots are no longer owned by this node");
}

}  // namespace

std::vector<int64_t> FinishedExportTimes() {
  std::vector<int64_t> out;
  for (auto& j : jobs)
    if (!j->Running() && j->conn.fd < 0) out.push_back(j->update_ms);
  return out;
}

void DropFinishedExports(int64_t upto_ms, size_t* budget) {
  // Oldest first: one sort of the candidates, one pass to erase the chosen.
  std::vector<std::pair<int64_t, const Job*>> c;
  for (auto& j : jobs)
    if (!j->Running() && j->conn.fd < 0 && j->update_ms <= upto_ms) c.emplace_back(j->update_ms, j.get());
  std::sort(c.begin(), c.end());
  c.resize(std::min(c.size(), *budget));
  *budget -= c.size();
  std::unordered_set<const Job*> chosen;
  for (auto& [when, j] : c) chosen.insert(j);
  std::erase_if(jobs, [&](const std::unique_ptr<Job>& j) { return chosen.count(j.get()) > 0; });
}

namespace {

}  // namespace

void StartExports(std::vector<ExportRequest> requests, const std::string& who) {
  State& st = GetState();
  int64_t now = base::MsTime();
  for (ExportRequest& r : requests) {
    auto j = std::make_unique<Job>();
    j->name = RandomName();
    j->target_id = r.target->name;
    j->source_id = st.myself->name;
    j->ranges = std::move(r.ranges);
    for (const SlotRange& range : j->ranges)
      for (int s = range.start; s <= range.end; s++) {
        SlotSet(&j->slots, s);
        j->slot_list.push_back(s);
      }
    j->create_ms = j->update_ms = j->ack_ms = now;
    LOG_NOTICE(
        "Slot migration %.40s initiated through CLUSTER MIGRATESLOTS: slots %s to node "
        "%.40s (user request from '%s')",
        j->name.c_str(), FormatSlotRanges(j->ranges).c_str(), j->target_id.c_str(), who.c_str());
    Job* raw = j.get();
    jobs.push_back(std::move(j));
    Connect(raw);
  }
}

bool SlotExporting(int slot) {
  for (auto& j : jobs)
    if (j->Running() && SlotTest(j->slots, slot)) return true;
  return false;
}

bool CancelExports(const std::string& who) {
  bool any = false;
  for (auto& j : jobs)
    if (j->Running()) {
      any = true;
      // Once HANDOVER went, the slots may already be the target's: it ends on its own.
      if (j->state != JobState::kHandingOver)
        Finish(j.get(), JobState::kCancelled, "Cancelled by the operator");
    }
  if (any)
    LOG_NOTICE("Canceled all in progress slot migrations (user request from '%s')", who.c_str());
  return any;
}

void ExportBeforeSleep() {
  for (auto& up : jobs) {
    Job* j = up.get();
    if (!j->Running()) {
      // A lingering ABORT: closed once answered (OnReadable), or after the resume window.
      if (j->conn.fd >= 0) Flush(j);
      if (j->conn.fd >= 0 && base::MsTime() - j->update_ms > ExportResumeWindowMs(NodeTimeout()))
        CloseLink(j);
      continue;
    }
    CheckOwnership(j);
    // DEBUG SLOT-MIGRATION-LINK: replies read again after HOLD; links dropped.
    if (j->Running() && j->conn.fd >= 0 && !j->connecting && !g.slot_migration_hold_replies &&
        !(g.loop->FileMask(j->conn.fd) & net::kReadable))
      g.loop->AddFile(j->conn.fd, net::kReadable, OnReadable, j);
    if (j->Running() && j->Forwarding() && !j->resuming && g.slot_migration_drop_links)
      Fail(j, "Connection dropped by DEBUG SLOT-MIGRATION-LINK");
    // A target that answers nothing for longer than the node timeout (partitioned, stopped)
    // while requests wait: the link is dropped and a new one resumes the job, or it fails
    // when none can within the window. (After HANDOVER went, silence means doubt instead.)
    int64_t silent = base::MsTime() - j->ack_ms;
    if (j->Running() && !j->resuming && j->state != JobState::kHandingOver &&
        !j->expect.empty() && silent > std::max<int64_t>(NodeTimeout(), 1000))
      Fail(j, "Target node did not answer for " + std::to_string(silent) + " ms");
    if (j->Running() && std::max(j->conn.PendingBytes(), j->UnackedBytes()) > kMaxForwardQueue)
      Finish(j, JobState::kFailed, "Target node does not keep up with the writes to forward");
    if (j->Running() && j->resuming) Reconnect(j);
    if (!j->Running() || j->resuming) continue;
    // A target that does not answer the handover within the node timeout may still have
    // taken the slots: in doubt, their writes stay held. If no claim comes within three node
    // timeouts, the target is taken not to have them (Valkey 9 logs the same risk).
    int64_t held = base::MsTime() - j->hold_start_ms, nt = std::max<int64_t>(NodeTimeout(), 1000);
    if (j->state == JobState::kHandingOver && !j->in_doubt && held > nt)
      HandoverInDoubt(j, "Target node did not answer the handover within the node timeout", false);
    if (j->state == JobState::kHandingOver && j->in_doubt && held > 3 * nt)
      Finish(j, JobState::kFailed,
             "Target node never claimed the slots after the handover; they stay here (write "
             "loss risk if it took them after all)");
    Flush(j);
  }
  g.slot_migration_drop_links = false;
  if (release_due) {
    release_due = false;
    server::ReleaseHeldClients();
  }
}

void ExportAfterReplies() {
  // One slice per loop pass for all of it (every job's walk and pieces, then the drop), once
  // the replies of the pass went: what a command arriving meanwhile waits for at most.
  int64_t deadline = base::MonotonicUs() + kWalkSliceUs;
  for (auto& up : jobs) {
    Job* j = up.get();
    if (!j->Running() || j->resuming) continue;
    if (j->Forwarding() && !j->dirty.empty()) SendDirty(j);
    if (j->Forwarding()) SendPieces(j, deadline);
    if (j->state == JobState::kSnapshotting) Walk(j, deadline);
    FlushBatch(j);
    if (j->state == JobState::kStreaming) MaybeHandOver(j);
    Flush(j);
  }
  // What the slice left, the drop of moved slots takes (at least a little, or it never ends).
  // The next pass comes at once: it writes what the drop sent to the replicas, and runs what
  // a job's failure here released.
  if (DropSomeKeys(std::max(deadline, base::MonotonicUs() + 100)) || release_due)
    g.loop->SetMaxWaitMs(0);
}

void ExportWriteOut(int dbid, const std::vector<std::string_view>& argv) {
  if (!forwarding_jobs || dbid != 0 || argv.empty()) return;
  if (base::EqualsNoCase(argv[0], "flushall") || base::EqualsNoCase(argv[0], "flushdb")) {
    for (auto& j : jobs)
      if (j->Forwarding()) Finish(j.get(), JobState::kFailed, "Data was flushed");
    return;
  }
  // CLUSTER FLUSHSLOT names its slot, not keys: what the target has of it would stay.
  int64_t flushed;
  if (argv.size() >= 3 && base::EqualsNoCase(argv[0], "cluster") &&
      base::EqualsNoCase(argv[1], "flushslot") && base::ParseInt64(argv[2], &flushed)) {
    for (auto& j : jobs)
      if (j->Forwarding() && flushed >= 0 && flushed < kSlots && SlotTest(j->slots, flushed))
        Finish(j.get(), JobState::kFailed, "Slot " + std::to_string(flushed) + " was flushed");
    return;
  }
  const server::CommandSpec* cmd = server::LookupCommandArgv(argv);
  if (!cmd) return;
  static std::vector<server::KeyRef> refs;
  if (!server::FindKeys(cmd, argv, &refs) || refs.empty()) return;
  std::string_view key = argv[refs[0].pos];
  int slot = base::KeySlot(key);
  bool one_key = true;
  for (const server::KeyRef& r : refs) one_key &= argv[r.pos] == key;
  static std::vector<std::string_view> wrapped;
  for (auto& j : jobs) {
    if (!j->Forwarding() || !SlotTest(j->walk_begun, slot)) continue;
    // A command of one key is right on the target whatever it holds of the key: it is there
    // as here (sent), or not yet sent (the walk sends it later, replacing what the command
    // made). One of several keys may read a key not sent yet: its keys go as they are.
    if (!one_key) {
      for (const server::KeyRef& r : refs) j->dirty.emplace(argv[r.pos]);
      continue;
    }
    if (!j->dirty.empty() && j->dirty.count(std::string(key))) continue;
    if (key == j->piece_key && !RightOnPart(argv, j->piece_type)) {
      StartOver(j.get());  // held, unless no hold reached it (a blocked command woken up)
      continue;
    }
    wrapped.assign({"CLUSTER", "SYNCSLOTS", "APPLY", j->name});
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    Queue(j.get(), wrapped, Expect::kData);
    j->writes_forwarded++;
  }
}

namespace {

// Whether this command writes the job's big value in a way its part on the target cannot
// follow (RightOnPart), or with other keys.
bool WritesPieceKey(const Job& j, const server::CommandSpec* cmd,
                    const std::vector<std::string_view>& argv) {
  static std::vector<server::KeyRef> refs;
  if (!(cmd->flags & server::kCmdWrite) || !server::FindKeys(cmd, argv, &refs)) return false;
  bool touches = false;
  for (const server::KeyRef& r : refs) touches |= argv[r.pos] == j.piece_key;
  if (!touches) return false;
  if (refs.size() > 1) return true;
  static std::vector<std::string_view> named;  // by its own name (argv[0] may be a renamed one)
  named.assign(argv.begin(), argv.end());
  named[0] = cmd->parent ? cmd->parent->name : cmd->name;
  return !RightOnPart(named, j.piece_type);
}

}  // namespace

bool ExportHoldsWrite(const server::Client* c, const server::CommandSpec* cmd) {
  if (!holding_jobs && !piece_jobs) return false;
  int slot = c->routed.slot();
  for (auto& j : jobs) {
    if (!SlotTest(j->slots, slot)) continue;
    if (j->state == JobState::kHandingOver) return true;
    if (j->piece_key.empty() || base::KeySlot(j->piece_key) != slot) continue;
    if (c->InMulti() && std::string_view(cmd->name) == "exec") {
      for (const server::QueuedCommand& q : c->mstate)
        if (WritesPieceKey(*j, q.cmd, std::vector<std::string_view>(q.argv.begin(), q.argv.end())))
          return true;
    } else if (WritesPieceKey(*j, cmd, c->argv)) {
      return true;
    }
  }
  return false;
}

void ListExports(std::vector<std::vector<MigrationField>>* out) {
  auto text = [](const char* n, std::string v) {
    return MigrationField{n, std::move(v), 0, false};
  };
  auto num = [](const char* n, int64_t v) { return MigrationField{n, "", v, true}; };
  // Times in unix seconds and cow_size (0: no fork here) as Valkey 9 gives them; then our own
  // progress figures.
  for (auto& j : jobs) {
    out->push_back(
        {text("name", j->name), text("operation", "EXPORT"),
         text("slot_ranges", FormatSlotRanges(j->ranges)), text("target_node", j->target_id),
         text("source_node", j->source_id), num("create_time", j->create_ms / 1000),
         num("last_update_time", j->update_ms / 1000), num("last_ack_time", j->ack_ms / 1000),
         text("state", StateName(j->state)), text("message", j->message), num("cow_size", 0),
         num("remaining_repl_size", static_cast<int64_t>(j->conn.PendingBytes())),
         num("keys_sent", static_cast<int64_t>(j->keys_sent)),
         num("bytes_sent", static_cast<int64_t>(j->bytes_sent)),
         num("writes_forwarded", static_cast<int64_t>(j->writes_forwarded)),
         num("write_hold_ms", j->hold_ms), num("resumes", static_cast<int64_t>(j->resumes))});
  }
}

}  // namespace cluster
