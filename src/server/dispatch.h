// The one dispatch path: lookup -> arity -> auth -> (cluster routing) -> queue or execute.
#pragma once
#include "server/client.h"
#include "server/command.h"

namespace server {
void ProcessCommand(Client* c);
// Executes one command with stats, timing and propagation (also used by EXEC).
void Call(Client* c, const CommandSpec* cmd);
// Replace what is propagated for the running command (e.g. SET EX -> SET PXAT).
void PropagateAs(Client* c, std::vector<std::string> argv);
// Propagate the running command although it changed no data (PUBLISH).
void ForcePropagation();
// Resumes clients held by CLIENT PAUSE once the pause is over.
void UnpauseClientsIfDue();
}  // namespace server
