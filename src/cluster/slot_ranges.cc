#include "cluster/slot_ranges.h"

namespace cluster {

std::string FormatSlotRanges(const std::vector<SlotRange>& ranges) {
  std::string out;
  for (const SlotRange& r : ranges) {
    if (!out.empty()) out += ' ';
    out += std::to_string(r.start) + "-" + std::to_string(r.end);
  }
  return out;
}

}  // namespace cluster
