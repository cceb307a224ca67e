// Epoch rules of the cluster bus (see epochs.h).
#include "cluster/epochs.h"

#include <algorithm>

namespace cluster {

uint64_t MaxEpoch(uint64_t current_epoch, uint64_t max_config_epoch) {
  return std::max(current_epoch, max_config_epoch);
}

uint64_t EpochWithoutConsensus(uint64_t current_epoch, uint64_t my_config_epoch,
                               uint64_t max_config_epoch) {
  // currentEpoch counts too: after an election elsewhere it is above every config epoch, and a
  // claim made below it could lose to a rival claim the node has not heard of yet.
  uint64_t max = MaxEpoch(current_epoch, max_config_epoch);
  if (my_config_epoch != 0 && my_config_epoch == max) return 0;
  return max + 1;  // currentEpoch + 1: no config epoch is above currentEpoch

}

bool CollisionMovesMe(const EpochCollision& c) {
  return c.sender_is_primary && c.me_is_primary &&
         c.sender_config_epoch == c.my_config_epoch && c.sender_name > c.my_name;
}

}  // namespace cluster
