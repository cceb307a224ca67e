// The one dispatch path: lookup -> arity -> auth -> (cluster routing) -> queue or execute.
#pragma once
#include "server/client.h"
#include "server/command.h"

namespace server {
void ProcessCommand(Client* c);
// The checks of the dispatch path after lookup and arity (auth, subscriber context, MULTI,
// MISCONF, READONLY, MASTERDOWN, NOREPLICAS; cluster routing next): every command passes them
// before it runs, including a woken blocked command. EXEC is judged by what it queued. On
// failure the error is already replied.
bool PassesGate(Client* c, const CommandSpec* cmd);
// Executes one command with stats, timing and propagation (also used by EXEC).
void Call(Client* c, const CommandSpec* cmd);
// Replace what is propagated for the running command (e.g. SET EX -> SET PXAT).
void PropagateAs(Client* c, std::vector<std::string> argv);
// Propagate the running command although it changed no data (PUBLISH).
void ForcePropagation();
// Resumes clients held by CLIENT PAUSE once the pause is over.
void UnpauseClientsIfDue();
}  // namespace server
