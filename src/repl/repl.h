// Replication: the primary side (replica links, backlog, PSYNC, full sync, acks, WAIT) and the
// replica side (link to a primary, handshake, snapshot load, stream apply). All writes reach
// replicas through FeedStream, fed by repl::Propagate (the one propagation point) or, on a
// replica, by the primary's stream passed through verbatim.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/client.h"

namespace repl {

class ReplBuffer;

struct State {
  std::string replid, replid2;
  int64_t offset = 0;          // master_repl_offset: stream bytes produced or applied
  int64_t second_offset = -1;  // replid2 valid up to this offset
  // The backlog: the replication buffer the replicas read from too (repl_buffer.h).
  std::unique_ptr<ReplBuffer> backlog;
  int64_t no_replicas_since_ms = 0;
  // replica side
  std::string primary_host;
  int primary_port = 0;
};
State& GetState();

// Fills the server layer's replication hooks (server/repl_hooks.h); main calls it first.
void Install();
void Init();
// Per cron tick and before sleeping.
void Cron();
void BeforeSleep();

// Bytes of the replication stream (RESP commands) to backlog and replicas.
void FeedStream(std::string_view bytes);
// Whether anything consumes the stream (a backlog exists): Propagate skips encoding if not.
bool HasConsumers();

// Applies a new repl-backlog-size to the live backlog (it trims to it as replicas allow).
void ResizeBacklog();

bool IsReplica();
bool PrimaryLinkUp();
// A replica that must load a snapshot of its primary before its data is of that primary's
// history: from +FULLRESYNC, or from following a primary of another history, until the load.
// Meanwhile it holds none of its primary's offsets.
bool FullSyncPending();
// Replica: the last bytes from the primary, or when the link went down (failover data age).
int64_t PrimaryLastContactMs();
// A write from a normal client on a replica is refused (replica-read-only).
bool RefuseWrites();
// replica-serve-stale-data no and the link is down.
bool StaleDataRefused();
// min-replicas-to-write not met.
bool NotEnoughReplicas();

// Primary side hooks from the client layer.
// Writes what a replica link has to send, in order: replies of its handshake and the PSYNC
// line, the snapshot, the stream. False when the link is being closed.
bool ReplicaWrite(server::Client* c);
bool ReplicaHasPending(server::Client* c);  // anything of the above left to send
// The replication buffer a replica link holds (its block and every later one, whole), and
// how many blocks: its output buffer, as Valkey 8 counts it.
size_t ReplicaHeldOutput(const server::Client* c, size_t* blocks);
// Every client going away (replica links, our primary's link, clients blocked in WAIT).
void ClientFreed(server::Client* c);
// Replica side: bytes of a command applied from the primary (offset accounting, proxying).
void PrimaryStreamApplied(server::Client* c, std::string_view raw);
void PrimaryLinkFreed(server::Client* c);

// CLUSTER SETSLOT is replicated before it is applied (see open_slots.cc). The replicas it
// waits for: online ones that reported REPLCONF version above 7.2.255 (older ones ignore it).
int SlotStateReplicas();
int64_t SlotStateReplicasAckedAtLeast(int64_t offset);
// Whether any replica link (online or still syncing) takes SETSLOT from the stream.
bool SlotStateReplicaLinks();
// Sends REPLCONF GETACK before the loop sleeps, after the running command reached the stream.
void RequestAcks();

// INFO replication section.
void AppendInfo(std::string* s);
int ConnectedReplicas();

void RegisterCommands(std::vector<server::CommandSpec>* t);

}  // namespace repl
