// Slot ranges as slot migration's commands name them (SLOTSRANGE start end ...).
#pragma once
#include <string>
#include <vector>

namespace cluster {

struct SlotRange {
  int start = 0, end = 0;  // inclusive
  bool operator==(const SlotRange&) const = default;
};

// "0-10 20-29" (a single slot as "5-5"), as CLUSTER GETSLOTMIGRATIONS' slot_ranges.
std::string FormatSlotRanges(const std::vector<SlotRange>& ranges);

}  // namespace cluster
