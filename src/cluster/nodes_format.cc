// Client-visible views of the cluster state: NODES/REPLICAS lines, INFO text, SLOTS/SHARDS/LINKS
// reply trees.
#include "cluster/nodes_format.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "net/reply.h"

namespace cluster {
namespace {

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendUint(std::string* out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

// The IP a client is told: the announced client address of its family if set, else the bus IP.
const std::string& ClientIp(const Node& n, const FormatOptions& opts) {
  if (opts.nodes_conf) return n.ip;
  const std::string& announced = opts.ipv6 ? n.client_ipv6 : n.client_ipv4;
  return announced.empty() ? n.ip : announced;
}

int ClientPort(const Node& n, const FormatOptions& opts) {
  if (opts.nodes_conf) return n.tcp_port;
  return opts.tls ? n.tls_port : n.tcp_port;
}

// CLUSTER SLOTS / SHARDS endpoint text ("" for unknown-endpoint: SHARDS shows it empty).
std::string PreferredEndpoint(const Node& n, const FormatOptions& opts) {
  switch (opts.endpoint) {
    case EndpointType::kIp:
      return ClientIp(n, opts);
    case EndpointType::kHostname:
      return n.hostname.empty() ? "?" : n.hostname;
    case EndpointType::kUnknownEndpoint:
      break;
  }
  return "";
}

uint64_t ReplOffset(const Node& n, uint64_t my_repl_offset) {
  return n.Has(kNodeMyself) ? my_repl_offset : n.repl_offset;
}

// `[endpoint, port, id, {ip?, hostname?}]` of CLUSTER SLOTS.
ReplyValue SlotsNodeEntry(const Node& n, const FormatOptions& opts) {
  ReplyValue v = ReplyValue::Array();
  if (opts.endpoint == EndpointType::kUnknownEndpoint)
    v.items.push_back(ReplyValue::Null());
  else
    v.items.push_back(ReplyValue::Bulk(PreferredEndpoint(n, opts)));
  v.items.push_back(ReplyValue::Int(ClientPort(n, opts)));
  v.items.push_back(ReplyValue::Bulk(n.name));
  ReplyValue extra = ReplyValue::Map();
  if (opts.endpoint != EndpointType::kIp) extra.Add("ip", ReplyValue::Bulk(ClientIp(n, opts)));
  if (opts.endpoint != EndpointType::kHostname && !n.hostname.empty())
    extra.Add("hostname", ReplyValue::Bulk(n.hostname));
  v.items.push_back(std::move(extra));
  return v;
}

ReplyValue ShardsNodeEntry(const Node& n, const FormatOptions& opts, uint64_t my_repl_offset) {
  ReplyValue m = ReplyValue::Map();
  m.Add("id", ReplyValue::Bulk(n.name));
  if (n.tcp_port) m.Add("port", ReplyValue::Int(n.tcp_port));
  if (n.tls_port) m.Add("tls-port", ReplyValue::Int(n.tls_port));
  m.Add("ip", ReplyValue::Bulk(ClientIp(n, opts)));
  m.Add("endpoint", ReplyValue::Bulk(PreferredEndpoint(n, opts)));
  if (!n.hostname.empty()) m.Add("hostname", ReplyValue::Bulk(n.hostname));
  m.Add("role", ReplyValue::Bulk(n.IsReplica() ? "replica" : "master"));
  uint64_t offset = ReplOffset(n, my_repl_offset);
  m.Add("replication-offset", ReplyValue::Int(static_cast<int64_t>(offset)));
  const char* health = n.Has(kNodeFail)                 ? "fail"
                       : (n.IsReplica() && offset == 0) ? "loading"
                                                        : "online";
  m.Add("health", ReplyValue::Bulk(health));
  return m;
}

}  // namespace

std::vector<std::pair<int, int>> SlotRuns(const SlotBitmap& slots) {
  std::vector<std::pair<int, int>> runs;
  int start = -1;
  for (size_t byte = 0; byte < kSlotBitmapLen; byte++) {
    uint8_t v = slots[byte];
    // Whole bytes that neither start nor end a run.
    if ((v == 0 && start < 0) || (v == 0xff && start >= 0)) continue;
    for (int bit = 0; bit < 8; bit++) {
      int slot = static_cast<int>(byte) * 8 + bit;
      bool set = (v >> bit) & 1;
      if (set && start < 0) {
        start = slot;
      } else if (!set && start >= 0) {
        runs.emplace_back(start, slot - 1);
        start = -1;
      }
    }
  }
  if (start >= 0) runs.emplace_back(start, kSlots - 1);
  return runs;
}

std::string FormatNodesLine(const State& state, const Node& node, const FormatOptions& opts) {
  std::string s;
  s.reserve(256);
  s += node.name;
  s += ' ';
  s += ClientIp(node, opts);
  s += ':';
  AppendInt(&s, ClientPort(node, opts));
  s += '@';
  AppendInt(&s, node.cport);
  if (!node.hostname.empty()) {
    s += ',';
    s += node.hostname;
  }
  if (opts.nodes_conf) {
    // Aux fields, in the order Valkey writes them; the TCP port is the main port, so only
    // tls-port is written (always, 0 when unused).
    if (node.hostname.empty()) s += ',';
    if (!node.client_ipv6.empty()) s += ",client-ipv6=" + node.client_ipv6;
    if (!node.client_ipv4.empty()) s += ",client-ipv4=" + node.client_ipv4;
    s += ",tls-port=";
    AppendInt(&s, node.tls_port);
    if (!node.human_nodename.empty()) s += ",nodename=" + node.human_nodename;
    if (!node.shard_id.empty()) s += ",shard-id=" + node.shard_id;
  }
  s += ' ';
  s += FormatNodeFlags(node.flags);
  s += ' ';
  s += node.primary ? node.primary->name : "-";
  s += ' ';
  AppendInt(&s, node.ping_sent_ms);
  s += ' ';
  AppendInt(&s, node.pong_received_ms);
  s += ' ';
  AppendUint(&s, NodeEpoch(node));
  s += (node.link || node.Has(kNodeMyself)) ? " connected" : " disconnected";
  if (node.num_slots > 0) {
    for (auto [a, b] : SlotRuns(node.slots)) {
      s += ' ';
      AppendInt(&s, a);
      if (b != a) {
        s += '-';
        AppendInt(&s, b);
      }
    }
  }
  if (node.Has(kNodeMyself)) {
    // Open slots; migrating wins when a slot is both.
    for (int slot = 0; slot < kSlots; slot++) {
      const Node* to = state.migrating_to[slot];
      const Node* from = to ? nullptr : state.importing_from[slot];
      if (!to && !from) continue;
      s += " [";
      AppendInt(&s, slot);
      s += to ? "->-" : "-<-";
      s += to ? to->name : from->name;
      s += ']';
    }
  }
  return s;
}

std::string FormatClusterNodes(const State& state, const FormatOptions& opts) {
  std::string out;
  for (const auto& n : state.nodes) {
    if (opts.nodes_conf && n->Has(kNodeHandshake)) continue;
    out += FormatNodesLine(state, *n, opts);
    out += '\n';
  }
  return out;
}

std::vector<std::string> FormatReplicasLines(const State& state, const Node& primary,
                                             const FormatOptions& opts) {
  std::vector<std::string> lines;
  lines.reserve(primary.replicas.size());
  for (const Node* r : primary.replicas) lines.push_back(FormatNodesLine(state, *r, opts));
  return lines;
}

std::string ClusterInfoText(const State& state) {
  int assigned = 0, ok = 0, pfail = 0, fail = 0;
  for (const Node* n : state.slot_owner) {
    if (!n) continue;
    assigned++;
    if (n->Has(kNodeFail))
      fail++;
    else if (n->Has(kNodePfail))
      pfail++;
    else
      ok++;
  }
  std::string s;
  auto line = [&s](std::string_view name, auto value) {
    s += name;
    s += ':';
    if constexpr (std::is_same_v<decltype(value), const char*>)
      s += value;
    else
      AppendUint(&s, static_cast<uint64_t>(value));
    s += "\r\n";
  };
  line("cluster_state", state.ok ? "ok" : "fail");
  line("cluster_slots_assigned", assigned);
  line("cluster_slots_ok", ok);
  line("cluster_slots_pfail", pfail);
  line("cluster_slots_fail", fail);
  line("cluster_known_nodes", state.nodes.size());
  line("cluster_size", state.size);
  line("cluster_current_epoch", state.current_epoch);
  line("cluster_my_epoch", state.myself ? NodeEpoch(*state.myself) : 0);
  const auto& st = state.stats;
  for (const auto* counts : {&st.sent, &st.received}) {
    const char* dir = counts == &st.sent ? "sent" : "received";
    uint64_t total = 0;
    for (uint16_t t = 0; t < kTypeCount; t++) {
      if ((*counts)[t] == 0) continue;
      total += (*counts)[t];
      line(std::string("cluster_stats_messages_") + MessageTypeName(t) + "_" + dir, (*counts)[t]);
    }
    line(std::string("cluster_stats_messages_") + dir, total);
  }
  line("total_cluster_links_buffer_limit_exceeded", st.links_buffer_limit_exceeded);
  return s;
}

// ---- Reply tree ----

ReplyValue ReplyValue::Int(int64_t v) {
  ReplyValue r = WithKind(Kind::kInt);
  r.num = v;
  return r;
}

ReplyValue ReplyValue::Bulk(std::string s) {
  ReplyValue r = WithKind(Kind::kBulk);
  r.str = std::move(s);
  return r;
}

ReplyValue ReplyValue::Array(std::vector<ReplyValue> items) {
  ReplyValue r = WithKind(Kind::kArray);
  r.items = std::move(items);
  return r;
}

ReplyValue& ReplyValue::Add(std::string key, ReplyValue value) {
  items.push_back(Bulk(std::move(key)));
  items.push_back(std::move(value));
  return *this;
}

bool ReplyValue::operator==(const ReplyValue& o) const {
  return kind == o.kind && num == o.num && str == o.str && items == o.items;
}

void WriteReply(const ReplyValue& v, net::Reply* out) {
  switch (v.kind) {
    case ReplyValue::Kind::kNull:
      out->Null();
      return;
    case ReplyValue::Kind::kInt:
      out->Int(v.num);
      return;
    case ReplyValue::Kind::kBulk:
      out->Bulk(v.str);
      return;
    case ReplyValue::Kind::kArray:
      out->ArrayLen(static_cast<int64_t>(v.items.size()));
      break;
    case ReplyValue::Kind::kMap:
      out->MapLen(static_cast<int64_t>(v.items.size() / 2));
      break;
  }
  for (const ReplyValue& item : v.items) WriteReply(item, out);
}

// ---- CLUSTER SLOTS / SHARDS / LINKS ----

ReplyValue ClusterSlotsReply(const State& state, const FormatOptions& opts,
                             uint64_t my_repl_offset) {
  ReplyValue reply = ReplyValue::Array();
  for (int start = 0; start < kSlots;) {
    const Node* owner = state.slot_owner[start];
    int end = start;
    while (end + 1 < kSlots && state.slot_owner[end + 1] == owner) end++;
    if (owner) {
      ReplyValue entry = ReplyValue::Array();
      entry.items.push_back(ReplyValue::Int(start));
      entry.items.push_back(ReplyValue::Int(end));
      entry.items.push_back(SlotsNodeEntry(*owner, opts));
      for (const Node* r : owner->replicas) {
        if (r->Has(kNodeFail) || ReplOffset(*r, my_repl_offset) == 0) continue;
        entry.items.push_back(SlotsNodeEntry(*r, opts));
      }
      reply.items.push_back(std::move(entry));
    }
    start = end + 1;
  }
  return reply;
}

ReplyValue ClusterShardsReply(const State& state, const FormatOptions& opts,
                              uint64_t my_repl_offset) {
  // Shards by ID, in order of their first node; members in table order.
  std::vector<std::vector<const Node*>> shards;
  std::unordered_map<std::string_view, size_t> index;
  for (const auto& n : state.nodes) {
    if (n->Has(kNodeHandshake)) continue;
    auto [it, added] = index.emplace(n->shard_id, shards.size());
    if (added) shards.emplace_back();
    shards[it->second].push_back(n.get());
  }
  ReplyValue reply = ReplyValue::Array();
  for (const auto& members : shards) {
    ReplyValue slots = ReplyValue::Array();
    for (const Node* n : members) {
      if (n->num_slots == 0) continue;
      for (auto [a, b] : SlotRuns(n->slots)) {
        slots.items.push_back(ReplyValue::Int(a));
        slots.items.push_back(ReplyValue::Int(b));
      }
      break;
    }
    ReplyValue nodes = ReplyValue::Array();
    for (const Node* n : members) nodes.items.push_back(ShardsNodeEntry(*n, opts, my_repl_offset));
    ReplyValue shard = ReplyValue::Map();
    shard.Add("slots", std::move(slots));
    shard.Add("nodes", std::move(nodes));
    reply.items.push_back(std::move(shard));
  }
  return reply;
}

ReplyValue ClusterLinksReply(const State& state, const std::vector<LinkInfo>& links) {
  std::unordered_map<const Node*, size_t> order;
  for (size_t i = 0; i < state.nodes.size(); i++) order.emplace(state.nodes[i].get(), i);
  std::vector<std::pair<size_t, const LinkInfo*>> sorted;  // (2 * node index + inbound, link)
  for (const LinkInfo& l : links) {
    auto it = order.find(l.node);
    if (it != order.end()) sorted.emplace_back(2 * it->second + (l.inbound ? 1 : 0), &l);
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ReplyValue reply = ReplyValue::Array();
  for (const auto& [key, l] : sorted) {
    std::string events;
    if (l->reading) events += 'r';
    if (l->writing) events += 'w';
    ReplyValue m = ReplyValue::Map();
    m.Add("direction", ReplyValue::Bulk(l->inbound ? "from" : "to"));
    m.Add("node", ReplyValue::Bulk(l->node->name));
    m.Add("create-time", ReplyValue::Int(l->create_time_ms));
    m.Add("events", ReplyValue::Bulk(std::move(events)));
    m.Add("send-buffer-allocated", ReplyValue::Int(l->send_buffer_allocated));
    m.Add("send-buffer-used", ReplyValue::Int(l->send_buffer_used));
    reply.items.push_back(std::move(m));
  }
  return reply;
}

}  // namespace cluster
