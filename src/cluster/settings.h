// Cluster settings derived from the configuration.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "cluster/state.h"
#include "server/config.h"

namespace cluster {

// cluster-node-timeout in ms (at least 1).
inline int64_t NodeTimeout() { return std::max<int64_t>(server::cfg.cluster_node_timeout, 1); }

// Client-visible address of a node for MOVED/ASK and CLUSTER SLOTS
// (cluster-preferred-endpoint-type: ip, hostname, unknown-endpoint).
inline std::string NodeEndpoint(const Node* n) {
  switch (server::cfg.cluster_preferred_endpoint_type) {
    case 1:
      return n->hostname.empty() ? "?" : n->hostname;
    case 2:
      return "";
    default:
      return n->client_ipv4.empty() ? n->ip : n->client_ipv4;
  }
}

}  // namespace cluster
