// What operators see of the commands the node runs: MONITOR's feed, the SLOWLOG and the
// LATENCY spikes, the first two with
// the arguments that must not be shown (passwords) replaced by "(redacted)", as Valkey does.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "server/client.h"
#include "server/command.h"

namespace server {

// After a command ran (end of Call); `duration_us`: its execution time. `monitor`: show it on
// MONITOR (not when a blocked command runs again: it showed when it blocked); `slowlog`:
// consider it for SLOWLOG (not when it blocked: it counts when it runs again).
void CommandObserved(Client* c, const CommandSpec* cmd, int64_t duration_us, bool monitor,
                     bool slowlog);
// LATENCY: records a spike of `event` (e.g. "expire-cycle") when it reaches
// latency-monitor-threshold (milliseconds; 0: off).
void LatencyAddSampleIfNeeded(const char* event, int64_t latency_ms);
// Clients in MONITOR mode (and the mode ends with them).
void AddMonitor(Client* c);
void RemoveMonitor(Client* c);
size_t MonitorCount();
// EXEC that aborts (EXECABORT) still shows on MONITOR, as Valkey sends it.
void FeedMonitorsExecAbort(Client* c);
void RegisterObserveCommands(std::vector<CommandSpec>* t);

}  // namespace server
