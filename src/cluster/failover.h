// Failover: replica elections and votes, manual failover with the MFSTART handshake, replica
// migration, and CLUSTER FAILOVER, as Valkey 8 does them. The bus (bus.cc) hands it the
// failover messages and every header from a known node; the cron drives the rest.
#pragma once
#include <cstdint>

#include "cluster/bus.h"
#include "cluster/bus_codec.h"
#include "cluster/state.h"

namespace server {
struct Client;
}

namespace cluster {

// Every header from a known sender: a replica in a manual failover learns the paused
// primary's offset from it.
void FailoverSawHeader(Node* sender, const Header& h);
// FAILOVER_AUTH_REQUEST: vote (primaries owning slots).
void FailoverAuthRequest(Node* sender, const Header& h);
// FAILOVER_AUTH_ACK: count the vote.
void FailoverAuthAck(Node* sender, const Header& h);
// MFSTART from one of my replicas (on link l): pause writes and tell it my offset.
void FailoverMfStart(Node* sender, Link* l);

// Per bus tick (100 ms) and before the loop sleeps.
void FailoverCron(int64_t now_ms);
void FailoverBeforeSleep();

// A primary in a manual failover marks its messages PAUSED.
bool ManualFailoverPausedHere();
// Ends a manual failover (either side); a paused primary resumes writes.
void ResetManualFailover();

// I become a replica of `primary` (every path: slot claims, replica migration, a lost last
// slot, CLUSTER REPLICATE). Another shard's history means a full sync (offset 0 until it is
// loaded), and my open slots close: a replica's open slots are its primary's, which the sync
// brings. A manual failover in progress ends.
void BecomeReplicaOf(Node* primary, bool same_shard);

// A replica's open slots are its primary's: a full sync brings them (cluster-slot-states,
// open_slots.cc), the replicated SETSLOTs keep them. Those this node holds on becoming a
// replica are kept only if its replication may continue a stream that carries them: a primary
// of another shard, or no replication history of its own (offset 0: a node just restarted,
// since no replication id survives a restart) means a full sync, and until it loads they would
// be this node's own, stale ones: a slot its primary closed while it was down still open here,
// shown to redis-cli (whose SETSLOT a replica refuses) and routed by.
void CloseOpenSlotsUnlessContinued(bool same_shard);

// CLUSTER FAILOVER [FORCE|TAKEOVER].
void ClusterFailoverCommand(server::Client* c);

}  // namespace cluster
