// The running node's bus and failover, made once at start-up (cluster.cc's Init) over the
// node's cluster state (GetState). The CLUSTER command and slot-migration commands reach them
// here; the bus and failover themselves get what they use as constructor arguments, so a test
// builds its own over a state of its own.
#pragma once
#include "cluster/bus.h"
#include "cluster/failover.h"

namespace cluster {

// Made by MakeRuntime; calling them before is a bug.
Bus& NodeBus();
Failover& NodeFailover();
void MakeRuntime(net::EventLoop& loop, BusHooks bus_hooks, FailoverHooks failover_hooks);

}  // namespace cluster
