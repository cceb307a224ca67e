// The epoch rules of cluster/epochs.h, one named row per rule, and the forget blacklist's
// deadline (cluster/state.h), whose TTL comes from the wire.
#include "cluster/epochs.h"

#include <cstdint>
#include <limits>
#include <string>

#include "check.h"
#include "cluster/state.h"

namespace {

struct BumpRow {
  const char* name;
  uint64_t current_epoch, my_config_epoch, max_config_epoch;
  uint64_t want;  // the epoch taken; 0: keeps its own
};

// Valkey 8 answers CLUSTER BUMPEPOCH on each of these states as `want` says.
const BumpRow kBumpRows[] = {
    {"new node, all zero: takes 1", 0, 0, 0, 1},
    {"own epoch 0 is never kept, even when it is the largest", 5, 0, 0, 6},
    {"sole holder of the largest config epoch, currentEpoch equal: keeps it", 3, 3, 3, 0},
    {"another node holds a larger config epoch", 7, 3, 7, 8},
    {"ties with another node's config epoch: keeps it (no collision handling here)", 4, 4, 4, 0},
    {"currentEpoch above every config epoch (an election elsewhere): bumps past it", 10, 3, 3,
     11},
    {"currentEpoch above and another node larger than mine", 10, 3, 6, 11},
    {"own epoch largest but currentEpoch larger still", 9, 8, 8, 10},
};

TEST_CASE(EpochWithoutConsensusRows) {
  for (const BumpRow& r : kBumpRows) {
    uint64_t got =
        cluster::EpochWithoutConsensus(r.current_epoch, r.my_config_epoch, r.max_config_epoch);
    if (got != r.want) fprintf(stderr, "  row: %s\n", r.name);
    CHECK_EQ(got, r.want);
  }
  CHECK_EQ(cluster::MaxEpoch(10, 3), 10u);
  CHECK_EQ(cluster::MaxEpoch(2, 3), 3u);
}

const std::string kLow(40, '1');
const std::string kHigh(40, 'e');

struct CollisionRow {
  const char* name;
  cluster::EpochCollision in;
  bool moves_me;
};

const CollisionRow kCollisionRows[] = {
    {"same epoch, sender's ID larger: I move", {true, true, 5, 5, kHigh, kLow}, true},
    {"same epoch, sender's ID smaller: it moves, not I", {true, true, 5, 5, kLow, kHigh}, false},
    {"different epochs: no collision", {true, true, 5, 6, kHigh, kLow}, false},
    {"sender is a replica: its epoch is its primary's", {false, true, 5, 5, kHigh, kLow}, false},
    {"I am a replica", {true, false, 5, 5, kHigh, kLow}, false},
};

TEST_CASE(EpochCollisionRows) {
  for (const CollisionRow& r : kCollisionRows) {
    if (cluster::CollisionMovesMe(r.in) != r.moves_me) fprintf(stderr, "  row: %s\n", r.name);
    CHECK_EQ(cluster::CollisionMovesMe(r.in), r.moves_me);
  }
}

TEST_CASE(ForgetUntilSaturates) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t now = 1'700'000'000'000;
  CHECK_EQ(cluster::ForgetUntilMs(now, 60), now + 60'000);
  CHECK_EQ(cluster::ForgetUntilMs(now, 0), now);
  // TTLs from a hostile or broken peer: multiplying by 1000 would overflow.
  CHECK_EQ(cluster::ForgetUntilMs(now, std::numeric_limits<uint64_t>::max()), kMax);
  CHECK_EQ(cluster::ForgetUntilMs(now, uint64_t{1} << 63), kMax);
  CHECK_EQ(cluster::ForgetUntilMs(now, static_cast<uint64_t>(kMax / 1000)), kMax);
  uint64_t largest_ok = static_cast<uint64_t>((kMax - now) / 1000);
  CHECK_EQ(cluster::ForgetUntilMs(now, largest_ok), now + static_cast<int64_t>(largest_ok) * 1000);
}

}  // namespace
