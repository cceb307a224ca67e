// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | ABORT: a standalone primary hands its role to
// one of its replicas without losing a write. The primary pauses writes, waits until the
// target acknowledged its whole stream, becomes the target's replica and asks it, with
// `PSYNC <replid> <offset> FAILOVER`, to become the primary; the target continues the
// history under a new id (PSYNC2), so the old primary follows by partial resync. Replies,
// checks and log lines as Valkey 8. Cluster mode has CLUSTER FAILOVER (cluster/failover.cc).
#include <climits>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "repl/repl_internal.h"
#include "server/client.h"
#include "server/command.h"
#include "server/config.h"
#include "server/dispatch.h"

namespace repl {
namespace {

using server::Client;

enum class Phase { kNone, kWaitForSync, kInProgress };

struct Coordinated {
  Phase phase = Phase::kNone;
  int64_t end_ms = 0;  // TIMEOUT deadline, 0: none
  bool force = false;
  std::string host;  // target; empty: the first replica found in step
  int port = 0;
};
Coordinated fo_;

Client* FindReplica(const std::string& host, int port) {
  for (Client* c : Replicas())
    if (c->repl->listening_port == port && ReplicaIp(c) == host) return c;
  return nullptr;
}

void Clear() {
  fo_ = Coordinated();
  server::SetFailoverPause(base::MsTime());  // held writes run again (READONLY if we moved)
}

void Abort(const char* why) {
  if (fo_.phase == Phase::kNone) return;
  if (!fo_.host.empty())
    LOG_NOTICE("FAILOVER to %s:%d aborted: %s", fo_.host.c_str(), fo_.port, why);
  else
    LOG_NOTICE("FAILOVER to any replica aborted: %s", why);
  if (fo_.phase == Phase::kInProgress) BecomePrimary();
  Clear();
}

void StartHandover() {
  fo_.phase = Phase::kInProgress;
  BecomeReplica(fo_.host, fo_.port);  // its handshake sends PSYNC ... FAILOVER
}

}  // namespace

bool FailoverInProgress() { return fo_.phase != Phase::kNone; }
bool FailoverHandingOver() { return fo_.phase == Phase::kInProgress; }

const char* FailoverStateName() {
  switch (fo_.phase) {
    case Phase::kWaitForSync:
      return "waiting-for-sync";
    case Phase::kInProgress:
      return "failover-in-progress";
    default:
      return "no-failover";
  }
}

void FailoverPsyncAnswered(bool accepted) {
  if (fo_.phase != Phase::kInProgress) return;
  if (accepted)
    Clear();
  else
    Abort("Failover target rejected psync request");
}

void FailoverCron() {
  if (fo_.phase != Phase::kWaitForSync) return;
  int64_t now = base::MsTime();
  if (fo_.end_ms && fo_.end_ms <= now) {
    if (!fo_.force) return Abort("Replica never caught up before timeout");
    LOG_NOTICE("FAILOVER to %s:%d time out exceeded, failing over.", fo_.host.c_str(), fo_.port);
    return StartHandover();
  }
  int64_t offset = GetState().offset;
  Client* target = nullptr;
  if (!fo_.host.empty()) {
    target = FindReplica(fo_.host, fo_.port);
  } else {
    for (Client* c : Replicas())
      if (HoldsTheStream(c->repl) && c->repl->ack_offset == offset) {
        target = c;
        fo_.host = ReplicaIp(c);
        fo_.port = c->repl->listening_port;
        break;
      }
  }
  if (!target || target->repl->ack_offset != offset) return;
  LOG_NOTICE("Failover target %s:%d is synced, failing over.", fo_.host.c_str(), fo_.port);
  StartHandover();
}

void FailoverCommand(Client* c) {
  auto& a = c->argv;
  if (server::cfg.cluster_enabled)
    return c->R().Error("FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
  if (a.size() == 2 && base::EqualsNoCase(a[1], "abort")) {
    if (fo_.phase == Phase::kNone) return c->R().Error("No failover in progress.");
    Abort("Failover manually aborted");
    return c->R().Ok();
  }
  int64_t timeout = 0, port = 0;
  bool force = false;
  std::string host;
  bool have_host = false;
  for (size_t j = 1; j < a.size(); j++) {
    if (base::EqualsNoCase(a[j], "timeout") && j + 1 < a.size() && timeout == 0) {
      if (!server::ArgInt(c, a[j + 1], &timeout)) return;
      if (timeout <= 0) return c->R().Error("FAILOVER timeout must be greater than 0");
      j++;
    } else if (base::EqualsNoCase(a[j], "to") && j + 2 < a.size() && !have_host) {
      if (!server::ArgInt(c, a[j + 2], &port)) return;
      host = std::string(a[j + 1]);
      have_host = true;
      j += 2;
    } else if (base::EqualsNoCase(a[j], "force") && !force) {
      force = true;
    } else {
      return c->R().Error(server::kErrSyntax);
    }
  }
  if (fo_.phase != Phase::kNone) return c->R().Error("FAILOVER already in progress.");
  if (IsReplica()) return c->R().Error("FAILOVER is not valid when server is a replica.");
  if (Replicas().empty()) return c->R().Error("FAILOVER requires connected replicas.");
  if (force && (!timeout || !have_host))
    return c->R().Error("FAILOVER with force option requires both a timeout and target HOST and IP.");
  if (have_host) {
    Client* r = port < 0 || port > INT_MAX ? nullptr : FindReplica(host, static_cast<int>(port));
    if (!r) return c->R().Error("FAILOVER target HOST and PORT is not a replica.");
    if (!HoldsTheStream(r->repl))
      return c->R().Error("FAILOVER target replica is not online.");
    fo_.host = host;
    fo_.port = static_cast<int>(port);
    LOG_NOTICE("FAILOVER requested to %s:%lld.", host.c_str(), static_cast<long long>(port));
  } else {
    LOG_NOTICE("FAILOVER requested to any replica.");
  }
  if (timeout) fo_.end_ms = base::MsTime() + timeout;
  fo_.force = force;
  fo_.phase = Phase::kWaitForSync;
  server::SetFailoverPause(INT64_MAX);  // until it ends one way or the other
  c->R().Ok();
}

}  // namespace repl
