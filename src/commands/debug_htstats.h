// DEBUG HTSTATS <dbid> [full] and DEBUG HTSTATS-KEY <key> [full]: the figures of the key,
// expire and value hash tables, in Valkey 8's text.
#pragma once
#include "server/client.h"

namespace cmd {

void DebugHtStats(server::Client* c);
void DebugHtStatsKey(server::Client* c);

}  // namespace cmd
