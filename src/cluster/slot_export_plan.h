// CLUSTER MIGRATESLOTS as a pure decision: its arguments checked against the node's view of
// the cluster, in Valkey 9's order and with its error texts, giving the export jobs to start
// (all or none). The run time (slot_export.cc) starts them.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/slot_ranges.h"
#include "cluster/state.h"

namespace cluster {

struct ExportRequest {
  Node* target = nullptr;
  std::vector<SlotRange> ranges;
};

struct MigrateSlotsPlan {
  std::string error;  // the error reply without its "-ERR "; empty: start every job
  std::vector<ExportRequest> jobs;
};

// `args`: the arguments after MIGRATESLOTS. `exporting(slot)`: a running export job covers
// the slot.
MigrateSlotsPlan PlanMigrateSlots(const State& st, const std::vector<std::string_view>& args,
                                  const std::function<bool(int)>& exporting);

}  // namespace cluster
