// The keys of a slot in db 0 (cluster mode has one database): counted before a slot changes
// hands, deleted when the slot was lost with keys in it (a dirty slot).
#pragma once
#include <cstddef>

namespace cluster {

bool SlotHasKeys(int slot);
// Deletes them through server::WriteOut, so replicas and the AOF see each DEL.
size_t DeleteKeysInSlot(int slot);

}  // namespace cluster
