// Client-visible views of the cluster state: CLUSTER NODES / REPLICAS lines (also the lines of
// nodes.conf), CLUSTER INFO text, and the CLUSTER SLOTS / SHARDS / LINKS replies as a small reply
// tree that the command layer writes with the RESP2/RESP3 encoder. The formats are Valkey 8's.
//
// Pure functions of their inputs: no sockets, clock or globals, so tables of cases can test them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/state.h"

namespace net {
class Reply;
}

namespace cluster {

// cluster-preferred-endpoint-type.
enum class EndpointType { kIp, kHostname, kUnknownEndpoint };

// How the asking client sees the cluster.
struct FormatOptions {
  bool tls = false;   // the client connection is TLS: show TLS ports (Valkey; else TCP ports)
  bool ipv6 = false;  // the client connection is IPv6: show announced client IPv6 (else IPv4)
  EndpointType endpoint = EndpointType::kIp;  // SLOTS and SHARDS only
  // The nodes.conf form of a line: the bus IP, always the TCP port, and the aux fields
  // (`,hostname` then client-ipv6, client-ipv4, tls-port, nodename, shard-id). `tls`, `ipv6`
  // and `endpoint` are ignored.
  bool nodes_conf = false;
};

// ---- Text views ----

// One CLUSTER NODES line, without '\n':
// `<id> <ip>:<port>@<cport>[,<hostname>] <flags> <primary|-> <ping> <pong> <epoch> <link> <slots>`
// plus the open-slot tokens `[s->-id]` / `[s-<-id]` (ascending slot order) on the myself line.
std::string FormatNodesLine(const State& state, const Node& node, const FormatOptions& opts);
// CLUSTER NODES: every node in table order, each line ended by '\n'. With opts.nodes_conf,
// handshake nodes are left out (the node lines of nodes.conf).
std::string FormatClusterNodes(const State& state, const FormatOptions& opts);
// CLUSTER REPLICAS <primary>: one line per replica of `primary`, without '\n'.
std::vector<std::string> FormatReplicasLines(const State& state, const Node& primary,
                                             const FormatOptions& opts);
// CLUSTER INFO, verbatim with "\r\n" line ends (state, slot health, known nodes, size, epochs,
// per-type message counters > 0, totals, links over the buffer limit).
std::string ClusterInfoText(const State& state);

// ---- Structured replies ----

// A minimal reply tree. A map holds its keys and values alternately in `items`; RESP2 writes it
// as a flat array. Null is RESP2 `$-1` / RESP3 `_`.
struct ReplyValue {
  enum class Kind : uint8_t { kNull, kInt, kBulk, kArray, kMap };
  Kind kind = Kind::kNull;
  int64_t num = 0;
  std::string str;
  std::vector<ReplyValue> items;

  static ReplyValue Null() { return {}; }
  static ReplyValue Int(int64_t v);
  static ReplyValue Bulk(std::string s);
  static ReplyValue Array(std::vector<ReplyValue> items = {});
  static ReplyValue Map() { return WithKind(Kind::kMap); }
  // Map helper: appends one key/value pair.
  ReplyValue& Add(std::string key, ReplyValue value);
  bool operator==(const ReplyValue& o) const;

 private:
  static ReplyValue WithKind(Kind k) {
    ReplyValue v;
    v.kind = k;
    return v;
  }
};

// Writes `v` with the client's encoder (RESP2 or RESP3 as the encoder was made).
void WriteReply(const ReplyValue& v, net::Reply* out);

// CLUSTER SLOTS: one `[start, end, primary, replica...]` entry per run of slots with the same
// owner, in slot order. A node is `[endpoint, port, id, extra-map]`. Replicas that are FAIL or at
// replication offset 0 are left out; `my_repl_offset` is this node's own offset (the offset
// used for myself when it is a replica).
ReplyValue ClusterSlotsReply(const State& state, const FormatOptions& opts,
                             uint64_t my_repl_offset);
// CLUSTER SHARDS: one `{slots: [s,e,...], nodes: [...]}` map per shard ID, shards in order of
// their first node in the table, nodes in table order; handshake nodes are left out. Node map
// fields in order: id, port (if != 0), tls-port (if != 0), ip, endpoint, hostname (if set),
// role, replication-offset (`my_repl_offset` for myself), health (fail/loading/online).
ReplyValue ClusterShardsReply(const State& state, const FormatOptions& opts,
                              uint64_t my_repl_offset);

// What the bus runtime knows of one link bound to a node (CLUSTER LINKS).
struct LinkInfo {
  const Node* node = nullptr;
  bool inbound = false;  // accepted ("from") or outbound ("to")
  int64_t create_time_ms = 0;
  bool reading = false;  // a read handler is installed
  bool writing = false;  // a write handler is installed
  int64_t send_buffer_allocated = 0;
  int64_t send_buffer_used = 0;
};
// CLUSTER LINKS: one map of 6 fields per link (direction, node, create-time, events,
// send-buffer-allocated, send-buffer-used), ordered by node in table order, outbound first.
// Links whose node is not in `state` are left out.
ReplyValue ClusterLinksReply(const State& state, const std::vector<LinkInfo>& links);

// ---- Helpers shared with nodes.conf ----

// The config epoch a node is shown with: its primary's for a replica, else its own.
inline uint64_t NodeEpoch(const Node& n) {
  return n.primary ? n.primary->config_epoch : n.config_epoch;
}
// Runs of set slots as (start, end) pairs, ascending.
std::vector<std::pair<int, int>> SlotRuns(const SlotBitmap& slots);

}  // namespace cluster
