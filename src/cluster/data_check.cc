// The startup check of data against the slot map (see data_check.h).
#include "cluster/data_check.h"

#include "base/log.h"
#include "cluster/slot_keys.h"

namespace cluster {

SlotDataVerdict JudgeSlotData(const State& st, int slot) {
  if (st.slot_owner[slot] == st.myself || st.importing_from[slot]) return SlotDataVerdict::kKeep;
  if (!st.slot_owner[slot]) return SlotDataVerdict::kClaim;
  return SlotDataVerdict::kDelete;
}

void CheckDataAgainstSlots(State& st) {
  if (!st.myself || st.myself->IsReplica()) return;
  bool changed = false;
  for (int s = 0; s < kSlots; s++) {
    if (!SlotHasKeys(s)) continue;
    switch (JudgeSlotData(st, s)) {
      case SlotDataVerdict::kKeep:
        break;
      case SlotDataVerdict::kClaim:
        LOG_NOTICE("I have keys for unassigned slot %d. Taking responsibility for it.", s);
        st.AssignSlot(s, st.myself);
        changed = true;
        break;
      case SlotDataVerdict::kDelete:
        LOG_NOTICE(
            "I have keys for slot %d, but the slot is assigned to another node. Deleting keys "
            "in the slot.",
            s);
        DeleteKeysInSlot(s);
        break;
    }
  }
  if (changed) st.MarkChanged(true, true);
}

}  // namespace cluster
