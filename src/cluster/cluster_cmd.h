// What the files of the CLUSTER command share.
#pragma once
#include <string_view>

namespace server {
struct Client;
}

namespace cluster {

// False (with the error replied) when cluster mode is off.
bool Enabled(server::Client* c);
// A slot argument, or the error "Invalid or out of range slot".
bool SlotArg(server::Client* c, std::string_view s, int* slot);

// open_slots.cc: CLUSTER SETSLOT, and the full-sync aux field of the open slots.
void SetSlotCommand(server::Client* c);
void InitOpenSlots();

}  // namespace cluster
