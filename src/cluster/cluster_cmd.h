// The CLUSTER command (all subcommands but SETSLOT, open_slots.h, and FAILOVER, failover.h),
// ASKING, READONLY and READWRITE.
#pragma once
#include <vector>

namespace server {
struct Client;
struct CommandSpec;
}

namespace cluster {

void RegisterCommands(std::vector<server::CommandSpec>* t);
// DEBUG CLUSTERLINK KILL <to|from|all> <node-id> (as Valkey 8's handleDebugClusterCommand):
// false when the DEBUG command is not that one.
bool DebugCommand(server::Client* c);

}  // namespace cluster
