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

// CLUSTER FAILOVER [FORCE|TAKEOVER].
void ClusterFailoverCommand(server::Client* c);

}  // namespace cluster
