// The startup check of a primary's data against its slot map, one row per case, as Valkey 8's
// verifyClusterConfigWithData decides.
#include "cluster/data_check.h"

#include <string>

#include "check.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kB(40, 'b');

struct Row {
  const char* name;
  int owner;      // 0: nobody, 1: me, 2: B
  int importing;  // 0: no, 2: from B
  SlotDataVerdict verdict;
};

TEST_CASE(DataCheckRows) {
  const Row rows[] = {
      {"my slot", 1, 0, SlotDataVerdict::kKeep},
      {"my slot, importing (stale)", 1, 2, SlotDataVerdict::kKeep},
      {"being imported from its owner", 2, 2, SlotDataVerdict::kKeep},
      {"nobody's slot", 0, 0, SlotDataVerdict::kClaim},
      {"nobody's, being imported", 0, 2, SlotDataVerdict::kKeep},
      {"another node's slot (moved away, keys left behind)", 2, 0, SlotDataVerdict::kDelete},
  };
  for (const Row& r : rows) {
    State st;
    Node* me = st.myself = st.Add(kMe, kNodePrimary | kNodeMyself, 0);
    Node* b = st.Add(kB, kNodePrimary, 0);
    Node* who[] = {nullptr, me, b};
    if (who[r.owner]) st.AssignSlot(7, who[r.owner]);
    st.importing_from[7] = who[r.importing];
    if (JudgeSlotData(st, 7) != r.verdict) fprintf(stderr, "  row: %s\n", r.name);
    CHECK(JudgeSlotData(st, 7) == r.verdict);
  }
}

}  // namespace
