// Epoch rules of the cluster bus, as pure functions of the epochs they are given: the largest
// epoch a node knows, the config epoch it may take without agreement, and which side of a
// config-epoch collision moves. The bus and the CLUSTER command gather the inputs.
#pragma once
#include <cstdint>
#include <string_view>

namespace cluster {

// The largest of currentEpoch and every known configEpoch (Valkey 8's clusterGetMaxEpoch).
uint64_t MaxEpoch(uint64_t current_epoch, uint64_t max_config_epoch);

// The config epoch a node takes without agreement (CLUSTER BUMPEPOCH, SETSLOT NODE, a target's
// claim of an imported slot, FAILOVER TAKEOVER): the largest epoch known + 1 (it becomes the
// currentEpoch too), unless its own config epoch is non-zero and already the largest epoch
// known; 0 when it keeps its own.
uint64_t EpochWithoutConsensus(uint64_t current_epoch, uint64_t my_config_epoch,
                               uint64_t max_config_epoch);

// Two primaries with one config epoch: the one with the smaller node ID takes a new epoch
// (Valkey 8's clusterHandleConfigEpochCollision). True when that is this node.
struct EpochCollision {
  bool sender_is_primary = false;
  bool me_is_primary = false;
  uint64_t sender_config_epoch = 0;
  uint64_t my_config_epoch = 0;
  std::string_view sender_name;
  std::string_view my_name;
};
bool CollisionMovesMe(const EpochCollision& c);

}  // namespace cluster
