// The keys of a slot in db 0 (cluster mode has one database): counted before a slot changes
// hands, deleted when the slot was lost with keys in it (a dirty slot), or dropped in slices
// once an atomic migration moved the slot away.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cluster {

bool SlotHasKeys(int slot);
// Deletes them through server::WriteOut, so replicas and the AOF see each DEL.
size_t DeleteKeysInSlot(int slot);

// A slot moved away whole, or flushed (CLUSTER FLUSHSLOT): its keys leave db 0 at once
// (Db::TakeSlot, O(1)), WATCHes of them fail and tracking clients hear of them
// (server::SlotsModified, once for them all). Without `send_dels` (the caller sent the one
// CLUSTER FLUSHSLOT, nothing more leaves) the slots' tables go whole to the lazy-free thread:
// the loop does nothing per key. With it, for replicas that cannot take CLUSTER FLUSHSLOT,
// DropSomeKeys frees them a slice at a time and sends each key's DEL to the replicas and the
// AOF as it goes, a big value in pieces (value_pieces.h: RemovePiece), so that neither this
// node nor its replicas stall on a slot of a million keys or on one big value; a key written
// again meanwhile (the slot came back) is freed silently: the new key's own writes went down.
void DropSlotsLater(const std::vector<int>& slots, bool send_dels);
// CLUSTER FLUSHSLOT SYNC: the slots' keys are freed before it returns.
void DropSlotsNow(const std::vector<int>& slots);
// Whether a slot moved away leaves as one CLUSTER FLUSHSLOT rather than a DEL per key: only
// if every replica of this node takes it (ours announce `capa slot-import`; a Valkey 8 or
// Redis 7 replica would reject it and keep the keys) and none is away (it would read the
// command from the backlog when it comes back, whatever it is).
bool FlushSlotByCommand(int known_replicas, int attached_capable, bool attached_incapable);
// Works until deadline_us (monotonic); true while keys are left to drop.
bool DropSomeKeys(int64_t deadline_us);

}  // namespace cluster
