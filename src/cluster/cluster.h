// Cluster mode as a whole, the composition root of src/cluster/: start-up (nodes.conf or a new
// identity), the cron and before-sleep work, cluster_state (as Valkey 8's clusterUpdateState),
// the routing glue between the dispatch path and cluster::Route, and the hooks that connect the
// bus to failover and to the server.
#pragma once

namespace cluster {

// Fills the server layer's cluster hooks (server/cluster_hooks.h); main calls it first.
void Install();

}  // namespace cluster
