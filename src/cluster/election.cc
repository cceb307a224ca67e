// Election rules of a replica (see election.h).
#include "cluster/election.h"

namespace cluster {

int ReplicaRank(uint64_t my_offset, std::string_view my_name, const std::vector<Sibling>& sibs) {
  int rank = 0;
  for (const Sibling& s : sibs) {
    if (s.no_failover) continue;
    if (s.offset > my_offset || (s.offset == my_offset && s.name < my_name)) rank++;
  }
  return rank;
}

int64_t RankDelayChangeMs(int old_rank, int new_rank) {
  return static_cast<int64_t>(new_rank - old_rank) * 1000;
}

}  // namespace cluster
