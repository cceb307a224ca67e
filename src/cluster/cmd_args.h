// Arguments and preconditions shared by the CLUSTER subcommands (cluster_cmd.cc, open_slots.cc).
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

}  // namespace cluster
