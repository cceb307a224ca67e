// The check of the data a primary loaded at start against its slot map, as Valkey 8's
// verifyClusterConfigWithData does it: a slot holding keys that is neither this node's nor
// being imported is taken when nobody serves it, and emptied when another node does (its keys
// would otherwise linger unserved, and come back if the slot ever returned; an atomic
// migration's source killed before it finished dropping a moved slot leaves such keys in its
// AOF). A replica keeps whatever its primary's stream gives it.
#pragma once
#include "cluster/state.h"

namespace cluster {

enum class SlotDataVerdict {
  kKeep,    // mine, or being imported: the data fits the map
  kClaim,   // nobody serves it: this node takes it
  kDelete,  // another node serves it: its keys here go
};

// For a slot that holds keys here.
SlotDataVerdict JudgeSlotData(const State& st, int slot);

// Applies the verdicts to db 0 (each deletion to the AOF too) and saves nodes.conf if the map
// changed. On a replica, nothing.
void CheckDataAgainstSlots(State& st);

}  // namespace cluster
