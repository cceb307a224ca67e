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

// Client-visible address of a node for MOVED/ASK (cluster-preferred-endpoint-type: ip,
// hostname, unknown-endpoint). An IP endpoint is the announced client address of the client's
// own family (cluster-announce-client-ipv4/-ipv6), else the node's IP, as Valkey 8 answers.
inline std::string NodeEndpoint(const Node* n, bool client_ipv6) {
  switch (server::cfg.cluster_preferred_endpoint_type) {
    case 1:
      return n->hostname.empty() ? "?" : n->hostname;
    case 2:
      return "";
    default:
      const std::string& announced = client_ipv6 ? n->client_ipv6 : n->client_ipv4;
      return announced.empty() ? n->ip : announced;
  }
}

}  // namespace cluster
