// The keys of a slot in db 0 (cluster mode has one database): counted before a slot changes
// hands, deleted when the slot was lost with keys in it (a dirty slot), or dropped in slices
// once an atomic migration moved the slot away.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cluster {

bool SlotHasKeys(int slot);
// Deletes them through server::WriteOut, so replicas and the AOF see each DEL.
size_t DeleteKeysInSlot(int slot);

// A slot moved away whole: its keys leave db 0 at once (Db::TakeSlot, O(1)); DropSomeKeys then
// frees them a slice at a time, each key's DEL to the replicas and the AOF as it goes, a big
// value in pieces (value_pieces.h: RemovePiece), so that neither this node nor its replicas
// stall on a slot of a million keys or on one big value. A key written again meanwhile (the
// slot came back) is freed here and nothing of it leaves: the new key's own writes went down.
void DropSlotLater(int slot);
// Works until deadline_us (monotonic); true while keys are left to drop.
bool DropSomeKeys(int64_t deadline_us);

}  // namespace cluster
