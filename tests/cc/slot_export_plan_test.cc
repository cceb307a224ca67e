// CLUSTER MIGRATESLOTS' checks, one row per rule, in Valkey 9's order and words.
#include "cluster/slot_export_plan.h"

#include <string>
#include <vector>

#include "check.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kB(40, 'b'), kC(40, 'c');

struct View {
  State st;
  Node *me, *b, *c;
  View() {
    me = st.myself = st.Add(kMe, kNodePrimary | kNodeMyself, 0);
    b = st.Add(kB, kNodePrimary, 0);
    c = st.Add(kC, kNodeReplica, 0);
    st.SetPrimary(c, b);
    for (int s = 0; s < 100; s++) st.AssignSlot(s, me);
    for (int s = 100; s < 200; s++) st.AssignSlot(s, b);
  }
};

std::vector<std::string_view> Split(const std::string& s, std::vector<std::string>* keep) {
  keep->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    keep->push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return std::vector<std::string_view>(keep->begin(), keep->end());
}

struct Row {
  const char* name;
  std::string args;
  std::string error;  // empty: accepted
};

TEST_CASE(MigrateSlotsPlanRows) {
  const std::string B = " NODE " + kB;
  const Row rows[] = {
      {"one range to a primary", "SLOTSRANGE 0 9" + B, ""},
      {"two blocks, two targets", "SLOTSRANGE 0 9" + B + " SLOTSRANGE 10 19 NODE " + kC, ""},
      {"several ranges in one block", "SLOTSRANGE 0 9 20 29" + B, ""},
      {"keyword other than SLOTSRANGE", "SLOTS 0 9" + B, "syntax error"},
      {"no range", "SLOTSRANGE" + B, "No slot ranges specified"},
      {"slot out of range", "SLOTSRANGE 0 16384" + B, "Invalid or out of range slot"},
      {"negative slot", "SLOTSRANGE -1 3" + B, "Invalid or out of range slot"},
      {"no end slot", "SLOTSRANGE 0", "No end slot for final slot range"},
      {"reversed range", "SLOTSRANGE 9 0" + B,
       "Start slot number 9 is greater than end slot number 0."},
      {"unassigned slot", "SLOTSRANGE 250 300" + B, "Slot 250 has no node served."},
      {"slots of two owners", "SLOTSRANGE 90 110" + B, "Requested slots span multiple shards"},
      {"overlapping ranges", "SLOTSRANGE 0 9 5 12" + B,
       "Slot range 5-12 overlaps with previous range 0-9."},
      {"slots of another node", "SLOTSRANGE 100 109" + B, "Slots are not served by this node."},
      {"slot already exporting", "SLOTSRANGE 40 49" + B, "I am already migrating slot 42."},
      {"blocks overlap", "SLOTSRANGE 0 9" + B + " SLOTSRANGE 5 6 NODE " + kC,
       "Slot ranges in migrations overlap"},
      {"NODE missing", "SLOTSRANGE 0 9", "syntax error"},
      {"NODE without id", "SLOTSRANGE 0 9 NODE", "syntax error"},
      {"short node id", "SLOTSRANGE 0 9 NODE abc", "Invalid node name: abc"},
      {"unknown node", "SLOTSRANGE 0 9 NODE " + std::string(40, 'f'),
       "Unknown node name: " + std::string(40, 'f')},
      {"target is myself", "SLOTSRANGE 0 9 NODE " + kMe, "Target node can not be this node."},
  };
  for (const Row& row : rows) {
    View v;
    std::vector<std::string> keep;
    MigrateSlotsPlan plan = PlanMigrateSlots(v.st, Split(row.args, &keep),
                                             [](int slot) { return slot == 42; });
    if (plan.error != row.error) fprintf(stderr, "  row: %s\n", row.name);
    CHECK_EQ(plan.error, row.error);
    CHECK_EQ(plan.jobs.empty(), !row.error.empty());
  }
  // Accepted: each block's target and ranges, in order.
  View v;
  std::vector<std::string> keep;
  MigrateSlotsPlan plan = PlanMigrateSlots(
      v.st, Split("slotsrange 0 9 20 29 node " + kB + " SLOTSRANGE 10 19 NODE " + kC, &keep),
      [](int) { return false; });
  CHECK_EQ(plan.jobs.size(), 2u);
  CHECK(plan.jobs[0].target == v.b);
  CHECK(plan.jobs[0].ranges == (std::vector<SlotRange>{{0, 9}, {20, 29}}));
  CHECK(plan.jobs[1].target == v.c);
  CHECK_EQ(FormatSlotRanges(plan.jobs[0].ranges), std::string("0-9 20-29"));
}

TEST_CASE(MigrateSlotsPlanRefusesReplicasAndLegacyMigrations) {
  {
    View v;
    v.st.SetPrimary(v.me, v.b);
    v.me->flags = static_cast<uint16_t>((v.me->flags & ~kNodePrimary) | kNodeReplica);
    std::vector<std::string> keep;
    CHECK_EQ(PlanMigrateSlots(v.st, Split("SLOTSRANGE 0 9 NODE " + kB, &keep),
                              [](int) { return false; })
                 .error,
             std::string("Slot migration can only be used on primary nodes."));
  }
  {
    View v;
    v.st.importing_from[150] = v.b;
    std::vector<std::string> keep;
    CHECK_EQ(PlanMigrateSlots(v.st, Split("SLOTSRANGE 0 9 NODE " + kB, &keep),
                              [](int) { return false; })
                 .error,
             std::string("Slots are being manually imported"));
  }
  {
    View v;
    v.st.migrating_to[5] = v.b;
    std::vector<std::string> keep;
    CHECK_EQ(PlanMigrateSlots(v.st, Split("SLOTSRANGE 0 9 NODE " + kB, &keep),
                              [](int) { return false; })
                 .error,
             std::string("Slots are being manually migrated"));
  }
}

}  // namespace
