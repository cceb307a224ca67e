#include "cluster/slot_export_plan.h"

#include <cstdint>

#include "base/util.h"

namespace cluster {
namespace {

bool Overlap(const SlotRange& a, const SlotRange& b) {
  return a.start <= b.end && b.start <= a.end;
}

// The ranges after SLOTSRANGE, up to the first argument that is not an integer (as Valkey 9's
// parseSlotRangesOrReply); every slot must have one owner, the same for all. *pos is left on
// the argument after them.
std::string ParseRanges(const State& st, const std::vector<std::string_view>& args, size_t* pos,
                        std::vector<SlotRange>* out, const Node** owner) {
  *owner = nullptr;
  for (size_t i = *pos; i < args.size(); i += 2) {
    int64_t start, end;
    if (!base::ParseInt64(args[i], &start)) {
      *pos = i;
      break;
    }
    if (start < 0 || start >= kSlots) return "Invalid or out of range slot";
    if (i + 1 >= args.size()) return "No end slot for final slot range";
    if (!base::ParseInt64(args[i + 1], &end) || end < 0 || end >= kSlots)
      return "Invalid or out of range slot";
    if (start > end)
      return "Start slot number " + std::to_string(start) + " is greater than end slot number " +
             std::to_string(end) + ".";
    for (int s = static_cast<int>(start); s <= end; s++) {
      const Node* o = st.slot_owner[s];
      if (!o) return "Slot " + std::to_string(s) + " has no node served.";
      if (!*owner) *owner = o;
      if (*owner != o) return "Requested slots span multiple shards";
    }
    SlotRange r{static_cast<int>(start), static_cast<int>(end)};
    for (const SlotRange& prev : *out)
      if (Overlap(r, prev))
        return "Slot range " + std::to_string(r.start) + "-" + std::to_string(r.end) +
               " overlaps with previous range " + std::to_string(prev.start) + "-" +
               std::to_string(prev.end) + ".";
    out->push_back(r);
    *pos = i + 2;
  }
  if (out->empty()) return "No slot ranges specified";
  return "";
}

}  // namespace

MigrateSlotsPlan PlanMigrateSlots(const State& st, const std::vector<std::string_view>& args,
                                  const std::function<bool(int)>& exporting) {
  MigrateSlotsPlan plan;
  auto fail = [&](std::string e) {
    plan.error = std::move(e);
    plan.jobs.clear();
    return plan;
  };
  if (!st.myself->IsPrimary()) return fail("Slot migration can only be used on primary nodes.");
  for (int s = 0; s < kSlots; s++)
    if (st.importing_from[s]) return fail("Slots are being manually imported");
  for (int s = 0; s < kSlots; s++)
    if (st.migrating_to[s]) return fail("Slots are being manually migrated");
  size_t i = 0;
  while (i < args.size()) {
    if (!base::EqualsNoCase(args[i], "slotsrange")) return fail("syntax error");
    i++;
    ExportRequest job;
    const Node* owner = nullptr;
    if (std::string e = ParseRanges(st, args, &i, &job.ranges, &owner); !e.empty()) return fail(e);
    if (owner != st.myself) return fail("Slots are not served by this node.");
    for (const SlotRange& r : job.ranges)
      for (int s = r.start; s <= r.end; s++)
        if (exporting(s)) return fail("I am already migrating slot " + std::to_string(s) + ".");
    for (const ExportRequest& other : plan.jobs)
      for (const SlotRange& a : other.ranges)
        for (const SlotRange& b : job.ranges)
          if (Overlap(a, b)) return fail("Slot ranges in migrations overlap");
    if (i + 1 >= args.size() || !base::EqualsNoCase(args[i], "node")) return fail("syntax error");
    std::string_view id = args[++i];
    if (id.size() != kNodeNameLen) return fail("Invalid node name: " + std::string(id));
    Node* target = st.Find(id);
    if (!target) return fail("Unknown node name: " + std::string(id));
    if (target == st.myself) return fail("Target node can not be this node.");
    i++;
    job.target = target;
    plan.jobs.push_back(std::move(job));
  }
  return plan;
}

}  // namespace cluster
