// MULTI/EXEC state and WATCH bookkeeping.
#pragma once
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/command.h"

namespace server {
void QueueCommand(Client* c, const CommandSpec* cmd);
void DiscardTransaction(Client* c);
void UnwatchAll(Client* c);
void TouchWatchedKey(int dbid, std::string_view key);
// Before a flush or swap of dbid (-1: every db); `other` is the db swapped in, if any;
// `slots` (indexed by slot): only the keys of those slots are flushed.
void TouchAllWatched(int dbid, int other = -2, const std::vector<bool>* slots = nullptr);
}  // namespace server
