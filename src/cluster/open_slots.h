// Open slots (slot migration): CLUSTER SETSLOT, replicated to the replicas before it applies,
// and the full-sync aux field that carries the open slots (open_slots.cc).
#pragma once

namespace server {
struct Client;
}

namespace cluster {

void SetSlotCommand(server::Client* c);
// Registers the aux field and the replication hooks of the open slots (start-up).
void InitOpenSlots();

}  // namespace cluster
