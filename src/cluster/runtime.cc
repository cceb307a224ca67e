#include "cluster/runtime.h"

#include <memory>

namespace cluster {
namespace {

// Never destroyed: links and timers may still name them while the process exits.
Bus* bus = nullptr;
Failover* failover = nullptr;

}  // namespace

Bus& NodeBus() { return *bus; }
Failover& NodeFailover() { return *failover; }

void MakeRuntime(net::EventLoop& loop, BusHooks bus_hooks, FailoverHooks failover_hooks) {
  bus = new Bus(GetState(), loop, std::move(bus_hooks));
  failover = new Failover(GetState(), *bus, std::move(failover_hooks));
}

}  // namespace cluster
