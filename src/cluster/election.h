// Election rules of a replica, as pure functions of what it is given: its rank among the
// replicas of its failed primary, and how a change of rank moves its election's start.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace cluster {

// Another replica of my primary, as its last header described it.
struct Sibling {
  uint64_t offset = 0;  // of its primary's history that it holds (0 while it full-syncs)
  std::string_view name;
  bool no_failover = false;  // it never runs for election (cluster-replica-no-failover)
};

// How many siblings would win before me: those holding more of the primary's history, or as
// much with a smaller node ID. Valkey 8's clusterGetReplicaRank counts only more data and lets
// equal ranks collide; the ID breaks the tie so that two replicas never start together.
int ReplicaRank(uint64_t my_offset, std::string_view my_name, const std::vector<Sibling>& sibs);

// The election's start moves by a second per place of rank gained or lost (Valkey 8.0.1
// recomputes the rank until the request is sent, both ways).
int64_t RankDelayChangeMs(int old_rank, int new_rank);

}  // namespace cluster
