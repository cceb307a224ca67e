// The CLUSTER command (all subcommands but SETSLOT, open_slots.h, and FAILOVER, failover.h),
// ASKING, READONLY and READWRITE.
#pragma once
#include <vector>

namespace server {
struct CommandSpec;
}

namespace cluster {

void RegisterCommands(std::vector<server::CommandSpec>* t);

}  // namespace cluster
