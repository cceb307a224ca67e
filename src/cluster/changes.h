// How the node's changes to its cluster state reach nodes.conf (and cluster_state): marked on
// the State by the bus, failover and the CLUSTER command, saved before the loop sleeps
// (SaveDue), with fsync for the node's own promises. Owns the nodes.conf file of the running node.
#pragma once
#include <cstdint>
#include <string>

#include "cluster/nodes_conf.h"

namespace cluster {

// Marked by State::MarkChanged (the node's own promises, saved with fsync before the loop
// sleeps, so before the messages that carry them) and State::MarkLearned (facts learned from
// other nodes: their slots, epochs, roles, failures). Learned facts are saved with the next
// save, at most kLearnedSaveMs after the last one, and fsynced on the helper thread. Nothing
// this node sends depends on them being on disk, and after a crash the cluster tells it
// again; a save with fsync in the loop per change would cost every node of the cluster a disk
// round trip for each slot a reshard moves.
constexpr int64_t kLearnedSaveMs = 100;
// Writes nodes.conf now (with what is pending); false with *err on failure.
bool SaveConfig(bool fsync, std::string* err);
// The node's own promises (epoch, vote, role, open slots) reach disk before anyone hears of
// them. A node that cannot write them stops, as Valkey does, rather than go on with promises
// its restart would forget (e.g. vote twice in one epoch).
void SaveConfigOrDie();
// Saves what is pending now, its fsync left to the helper thread: for a promise whose reply
// may wait but the loop should not (a slot import's claim). The save's number for
// ConfigDurable; the node stops if the save, or later its fsync, fails.
uint64_t SaveConfigLaterOrDie();
bool ConfigDurable(uint64_t save);
// Saves what is pending; a failure with a change of the node's own pending stops the node, one
// with only learned facts is logged.
void SavePending();
// Before the loop sleeps: saves if due (PlanSave), else bounds the sleep until it is.
void SaveDue();

// My configEpoch becomes the greatest, without agreement (as Valkey 8's
// clusterBumpConfigEpochWithoutConsensus), saved with fsync; false if it already is.
bool BumpEpochWithoutConsensus(State& st);

// nodes.conf, locked for the life of the process (opened by start-up).
NodesConfFile& ConfFile();

}  // namespace cluster
