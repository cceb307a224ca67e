// Declarations shared by the replication files (not for the rest of the node).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "repl/repl.h"
#include "repl/repl_buffer.h"

namespace repl {

// Per-replica state on the primary, hung on the replica's Client.
struct ReplicaLink {
  enum StateT { kNone, kWaitBgsaveStart, kWaitBgsaveEnd, kSendRdb, kOnline };
  StateT state = kNone;
  int64_t ack_offset = 0;
  int64_t aof_ack_offset = -1;  // FACK: its AOF holds this offset on disk (-1: no AOF)
  int64_t ack_time_ms = 0;
  int listening_port = 0;
  std::string announced_ip, version;
  bool capa_eof = false, capa_psync2 = false;
  bool capa_slot_import = false;  // one of ours: applies CLUSTER SYNCSLOTS
  bool old_sync = false;  // came with SYNC: no +FULLRESYNC line, no acks
  // REPLCONF rdb-only 1: a snapshot alone is wanted; rdb-filter-only: one without the data
  // (redis-cli --functions-rdb), which this node sends without a fork and then closes.
  bool rdb_only = false, exclude_data = false;
  bool diskless = false;
  // Its place in the replication buffer, once it takes the stream (from the +FULLRESYNC or
  // +CONTINUE line, which `out` holds with the handshake's replies: they go first).
  bool streaming = false;
  ReplBuffer::Pos pos;
  // An EOF-marked snapshot was sent: the stream waits for the replica's first REPLCONF ACK.
  // A replica finds the mark in the last bytes it read, so stream bytes glued to it would hide
  // it (Valkey 8's repl_start_cmd_stream_on_ack).
  bool stream_on_ack = false;
  // snapshot transfer
  int rdb_fd = -1;
  int64_t rdb_off = 0, rdb_size = 0;
  std::string rdb_buf;
  // A diskless transfer's socket has taken nothing since (0: it takes bytes). The child feeds
  // every replica at once, so one that stops reading holds all: after repl-timeout it goes.
  int64_t stalled_since_ms = 0;
  // A disk snapshot sent while the child writes it (EOF-marked form): the file is read up to
  // where it ends so far; once the child is done (`tail_end`), what is left, then the mark.
  bool tailing = false, tail_end = false;
  bool tail_caught_up = false;  // all the child wrote so far is sent: the timer looks again
  std::string eof_mark;
};

// A replica that has its snapshot and takes the stream: what min-replicas-to-write, WAIT,
// WAITAOF and FAILOVER count. A tool that asked for the snapshot alone (rdb-only) holds no
// copy of the writes that follow, so it never counts (fail closed).
inline bool HoldsTheStream(const ReplicaLink* l) {
  return l->state == ReplicaLink::kOnline && !l->rdb_only;
}

// New stream bytes are in the buffer: wakes the replicas that read it; when it took a new
// block, checks their output limits (a replica's usage grows by blocks, as Valkey 8 checks).
void FeedReplicas(bool new_block);
// Frees what of the buffer neither the backlog's size nor a replica holds, about max_bytes
// (at least a block): a big release is spread over the calls.
void TrimBacklog(size_t max_bytes);
// Freed a feed or a write to a replica, and a cron tick: a replica gone after holding a
// large part of the stream leaves much, freed over a few ticks rather than in one pass.
constexpr size_t kTrimBytesPerFeed = 8 << 20;
constexpr size_t kTrimBytesPerCron = 64 << 20;
// repl-backlog-size, at least 16 KB.
size_t BacklogLimit();
// A primary keeps a backlog once it has had a replica (or restarted with a history to offer).
void EnsureBacklog();
// A fresh backlog that starts after the current offset (a new history); replicas still
// reading the old one are dropped.
void NewBacklog();
// A replica link's address as INFO and the log name it (announced IP, listening port), and
// its state as Valkey 8 names it.
std::string ReplicaIp(const server::Client* c);
const char* ReplicaStateName(const ReplicaLink* l);
// How the log names a replica, as Valkey 8's replicationGetReplicaName: its address and
// listening port (the port it is reached at, not the connection's), or
// "<unknown-replica-port>" before REPLCONF listening-port.
std::string ReplicaName(const server::Client* c);
// Replicas whose acknowledged offset is not ours (logged each, as Valkey 8 does at shutdown).
int LaggingReplicas(bool log, int* total);
// Closes every replica link: they reconnect and learn our new history (Valkey 8's
// disconnectReplicas).
void DisconnectReplicas();
const std::vector<server::Client*>& Replicas();
// The address of a replica of mine that cannot stage slot imports (not one of ours), or "".
std::string ReplicaWithoutSlotImport();
int ReplicasWithSlotImport();
void PrimaryCron();
void PrimaryBeforeSleep();
void InitPrimary();
void ReplicaCron();
// Sends REPLCONF ACK <offset> to our primary (now, when asked with GETACK).
void SendAckToPrimary(bool now);
// Commands.
void ReplconfCommand(server::Client* c);
void PsyncCommand(server::Client* c);
void SyncCommand(server::Client* c);
void WaitCommand(server::Client* c);
void WaitaofCommand(server::Client* c);
void ReplicaofCommand(server::Client* c);
void RoleCommand(server::Client* c);
std::string RandomId();
// The db of the stream we pass on (a replica proxies its primary's stream), -1 if none.
int CurrentStreamDb();
// The db a snapshot says the stream continues in: CurrentStreamDb, or for a replica whose link
// is down with data of its primary's history, the db the link was in (-1 if none).
int StreamDbToRecord();
void SetStreamDbFromSnapshot(int db);
void AppendReplicaInfo(std::string* s);
const char* ReplicaLinkStateName();
bool ReplicaWantsWrite(server::Client* c);
// Shifts replication ids on promotion (PSYNC2): the old id stays valid up to our offset.
void ShiftReplicationId();
// This node's data now holds history `id` up to `offset` (a full sync loaded, or a snapshot
// that recorded it): no second id, and a fresh backlog that starts there.
void AdoptHistory(const std::string& id, int64_t offset);
// Called when a primary link is established or dropped (keyspace behaviour, ids).
// full_sync_required: the new primary is of another history (another shard): until its
// snapshot is loaded this node holds none of it (data offset 0), as Valkey 8's
// replicationSetPrimary without a cached primary of itself.
void BecomeReplica(const std::string& host, int port, bool full_sync_required = false);
void BecomePrimary();
// Coordinated failover (failover.cc): the FAILOVER command, its cron step, and what the
// replication handshake and PSYNC ask of it.
void FailoverCommand(server::Client* c);
void FailoverCron();
bool FailoverInProgress();
bool FailoverHandingOver();  // demoted, asking the target with PSYNC ... FAILOVER
const char* FailoverStateName();
void FailoverPsyncAnswered(bool accepted);

}  // namespace repl
