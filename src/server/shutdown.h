// The shutdown sequence of SHUTDOWN and of SIGTERM/SIGINT, as Valkey 8 runs it: unless NOW (or
// shutdown-timeout 0), a primary whose replicas have not acknowledged its offset first holds
// client writes, asks them for an ACK and waits up to shutdown-timeout seconds for them to catch
// up (the cron finishes it as soon as they do), so that what it acknowledged reaches them
// before it exits; then it logs the lagging ones, saves, and exits.
#pragma once
#include <cstdint>

namespace server {

struct Client;

enum ShutdownFlag : unsigned {
  kShutdownSave = 1,
  kShutdownNosave = 2,
  kShutdownNow = 4,
  kShutdownForce = 8,
};

// Starts a shutdown (from SHUTDOWN: c, which waits without a reply until it ends; from a
// signal: nullptr). Exits the process when it completes now; otherwise returns with the
// shutdown waiting for replicas, or failed (c told, the failure logged).
void StartShutdown(Client* c, unsigned flags);
// From the cron: finishes a waiting shutdown once the replicas caught up or the time is up.
void ShutdownCron();
bool ShutdownInitiated();
// INFO shutdown_in_milliseconds: how long the wait may still last.
int64_t ShutdownInMs();
// SHUTDOWN ABORT of a waiting shutdown: writes resume, waiting SHUTDOWN clients get an error.
// False when none waits.
bool CancelShutdown();

}  // namespace server
