// See shutdown.h.
#include "server/shutdown.h"

#include <unistd.h>

#include <cstdlib>

#include "base/log.h"
#include "base/time.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/loading.h"
#include "server/persistence.h"
#include "server/repl_hooks.h"
#include "server/server.h"

namespace server {

namespace {

struct Pending {
  int64_t deadline_ms = 0;  // 0: no shutdown waits
  unsigned flags = 0;
};
Pending pending_;

bool ReplicasCaughtUp() {
  int total = 0;
  return Repl().lagging_replicas(false, &total) == 0;
}

void EndWait() {
  pending_ = Pending{};
  SetShutdownPause(0);
}

// The last steps: exits, or returns false (logged) when the save failed without FORCE.
bool Finish(unsigned flags) {
  int total = 0;
  int lagging = Repl().lagging_replicas(true, &total);
  if (total > 0)
    LOG_NOTICE("%d of %d replicas are in sync when shutting down.", total - lagging, total);
  if (!AofShutdown(flags & kShutdownForce)) return false;
  if (!ShutdownSave(flags & kShutdownSave, flags & kShutdownNosave, flags & kShutdownForce))
    return false;
  if (!cfg.pidfile.empty()) unlink(cfg.pidfile.c_str());
  if (!cfg.unixsocket.empty()) unlink(cfg.unixsocket.c_str());
  LOG_WARNING("Valkey is now ready to exit, bye bye...");
  exit(0);
}

void Failed() {
  g.shutdown_asap = false;  // a signal that came meanwhile does not start it again
  LOG_WARNING("Errors trying to shut down the server. Check the logs for more information.");
  ShutdownBlocksFail("Errors trying to SHUTDOWN. Check logs.");
}

}  // namespace

void StartShutdown(Client* c, unsigned flags) {
  if (c) BlockForShutdown(c);       // answered only if the shutdown fails
  if (ShutdownInitiated()) return;  // the one under way decides
  // During a load the databases hold none of it yet: saving them would replace the file being
  // loaded with nothing (Valkey 8 forces NOSAVE too).
  if (Loading()) flags = (flags & ~kShutdownSave) | kShutdownNosave;
  if (c)
    LOG_NOTICE("User requested shutdown... (user request from '%s')", ClientInfoForLog(c).c_str());
  else
    LOG_WARNING("User requested shutdown...");
  if (!(flags & kShutdownNow) && cfg.shutdown_timeout != 0 && !ReplicasCaughtUp()) {
    pending_.deadline_ms = base::MsTime() + cfg.shutdown_timeout * 1000;
    pending_.flags = flags;
    Repl().request_acks();
    SetShutdownPause(INT64_MAX);  // nothing more for them to catch up with
    LOG_NOTICE("Waiting for replicas before shutting down.");
    return;
  }
  if (!Finish(flags)) Failed();
}

void ShutdownCron() {
  if (!ShutdownInitiated()) return;
  if (base::MsTime() < pending_.deadline_ms && !ReplicasCaughtUp()) return;
  unsigned flags = pending_.flags;
  if (Finish(flags)) return;
  EndWait();
  Failed();
}

bool ShutdownInitiated() { return pending_.deadline_ms != 0; }

int64_t ShutdownInMs() { return pending_.deadline_ms - base::MsTime(); }

bool CancelShutdown() {
  if (!ShutdownInitiated()) return false;
  EndWait();
  ShutdownBlocksFail("Errors trying to SHUTDOWN. Check logs.");
  return true;
}

}  // namespace server
