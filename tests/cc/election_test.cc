// The election rules of cluster/election.h, one named row per rule.
#include "cluster/election.h"

#include <cstdio>
#include <string>
#include <vector>

#include "check.h"

namespace {

using cluster::Sibling;

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');

struct RankRow {
  const char* name;
  uint64_t my_offset;
  std::string_view my_name;
  std::vector<Sibling> sibs;
  int want;
};

TEST_CASE(ReplicaRankRows) {
  const RankRow rows[] = {
      {"alone: rank 0", 100, kB, {}, 0},
      {"a sibling with more data goes first", 100, kB, {{200, kA, false}}, 1},
      {"a sibling with less data goes after", 100, kB, {{50, kA, false}}, 0},
      {"equal data: the smaller ID goes first", 100, kB, {{100, kA, false}}, 1},
      {"equal data: a larger ID goes after", 100, kB, {{100, kC, false}}, 0},
      {"a sibling that never runs is not counted", 100, kB, {{200, kA, true}}, 0},
      // A replica still full-syncing holds none of its primary's history: it announces 0
      // (Repl().data_offset) and so ranks behind one in step, however much old data it has.
      {"full-syncing me (0) behind a synced sibling", 0, kA, {{5000, kC, false}}, 1},
      {"a full-syncing sibling (0) behind me", 5000, kC, {{0, kA, false}, {0, kB, false}}, 0},
      {"several: counts each that wins",
       300,
       kB,
       {{400, kC, false}, {300, kA, false}, {200, kA, false}, {900, kC, true}},
       2},
  };
  for (const RankRow& r : rows) {
    int got = cluster::ReplicaRank(r.my_offset, r.my_name, r.sibs);
    if (got != r.want) fprintf(stderr, "  row: %s\n", r.name);
    CHECK_EQ(got, r.want);
  }
}

TEST_CASE(RankChangeMovesTheStartBothWays) {
  CHECK_EQ(cluster::RankDelayChangeMs(0, 2), 2000);
  CHECK_EQ(cluster::RankDelayChangeMs(2, 0), -2000);  // a sibling fell behind: start sooner
  CHECK_EQ(cluster::RankDelayChangeMs(1, 1), 0);
}

}  // namespace
