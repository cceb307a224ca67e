// Cluster mode as a whole: start-up (nodes.conf or a new identity), the cron, cluster_state,
// the routing glue between the dispatch path and cluster::Route, and the services the bus and
// the CLUSTER command share.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster/state.h"

namespace cluster {

// Fills the server layer's cluster hooks (server/cluster_hooks.h); main calls it first.
void Install();

// cluster-node-timeout in ms (at least 1).
int64_t NodeTimeout();

// Something changed: re-evaluate cluster_state before sleeping, and save nodes.conf (with
// fsync) if asked. Facts about this node that it promises to others (its epoch, its vote, its
// role) are saved with fsync before the loop sleeps, so before the messages that carry them.
void MarkChanged(bool save, bool fsync);
// A change learned from other nodes (their slots, epochs, roles, failures): saved with the
// next save, at most kLearnedSaveMs after the last one, and fsynced on the helper thread.
// Nothing this node sends depends on it being on disk, and after a crash the cluster tells it
// again; a save with fsync in the loop per change would cost every node of the cluster a disk
// round trip for each slot a reshard moves.
void MarkLearned();
constexpr int64_t kLearnedSaveMs = 100;
// Writes nodes.conf now (with what is pending); false with *err on failure.
bool SaveConfig(bool fsync, std::string* err);
// The node's own promises (epoch, vote, role, open slots) reach disk before anyone hears of
// them. A node that cannot write them stops, as Valkey does, rather than go on with promises
// its restart would forget (e.g. vote twice in one epoch).
void SaveConfigOrDie();
// cluster_state, as Valkey 8's clusterUpdateState.
void UpdateState(int64_t now_ms);

bool IsBlacklisted(const std::string& name, int64_t now_ms);
void Blacklist(const std::string& name, int64_t until_ms);
// Closes the node's links and removes it from the state.
void DeleteNode(Node* n);

// My configEpoch becomes the greatest, without agreement (as Valkey 8's
// clusterBumpConfigEpochWithoutConsensus); false if it already is.
bool BumpEpochWithoutConsensus();

// I become a replica of `primary` (every path: slot claims, replica migration, a lost last
// slot, CLUSTER REPLICATE). Another shard's history means a full sync (offset 0 until it is
// loaded), and my open slots close: a replica's open slots are its primary's, which the sync
// brings.
void BecomeReplicaOf(Node* primary, bool same_shard);

// Keys of db 0 in a slot.
bool SlotHasKeys(int slot);
size_t DeleteKeysInSlot(int slot);

// Client-visible address of a node for MOVED/ASK and CLUSTER SLOTS.
std::string NodeEndpoint(const Node* n);

}  // namespace cluster
