// cluster/nodes_format.h against replies captured from a live Valkey 8.0.1 cluster (3 primaries
// with a replica each, one replica FAIL, one slotless primary, open slots, a hostname, announced
// client IPs), rebuilt here as an equivalent State by hand, plus tables of edge cases.
#include "cluster/nodes_format.h"

#include <string>
#include <vector>

#include "check.h"
#include "net/reply.h"

namespace {

using cluster::ClusterInfoText;
using cluster::ClusterLinksReply;
using cluster::ClusterShardsReply;
using cluster::ClusterSlotsReply;
using cluster::EndpointType;
using cluster::FormatClusterNodes;
using cluster::FormatNodesLine;
using cluster::FormatOptions;
using cluster::FormatReplicasLines;
using cluster::LinkInfo;
using cluster::Node;
using cluster::ReplyValue;
using cluster::SlotRuns;
using cluster::State;
using cluster::WriteReply;

// ---- The captured cluster ----
// Ports 26101..26107, bus ports +50. N1 has a hostname and a human nodename, N2 announces client
// IPs, N5 (replica of N3) was killed and is FAIL, N7 joined with no slots. Open slots: 100
// migrating N1 -> N2, 6000 importing N1 <- N2 (on N1 and, replicated, on its replica N6).
constexpr const char* N1 = "0756a81b1baf8a066fa0309bfb7d8b6820a479d3";
constexpr const char* N2 = "69e5a2966072e58457515e8143a4e508823c8f8f";
constexpr const char* N3 = "bee713ce26365aba26e8274930f475123e5c78dd";
constexpr const char* N4 = "f8111ac9646d6ccdb676724a49a9fc60022f5deb";
constexpr const char* N5 = "27dd442f00d424cd326d54ec7db74e8f46245cca";
constexpr const char* N6 = "d65ca3e813283d5863b674cdc6e09c966c8b9c8b";
constexpr const char* N7 = "8b1685cc422bd13979d9c5d4ffe30d749da4faea";

constexpr uint16_t kMaster = cluster::kNodePrimary, kSlave = cluster::kNodeReplica,
                   kMyself = cluster::kNodeMyself, kFail = cluster::kNodeFail;

// What differs between views and capture times; the rest is fixed per node in Build.
struct Row {
  const char* name;
  int port;
  uint16_t flags;
  const char* primary;  // nullptr: none
  int64_t ping, pong;
  uint64_t epoch;
  bool link;
  uint64_t offset;  // last header offset (unused for myself)
};

cluster::Link* FakeLink() {
  static int dummy;
  return reinterpret_cast<cluster::Link*>(&dummy);  // never dereferenced: "connected"
}

const char* ShardOf(const std::string& name) {
  if (name == N1 || name == N6) return "182eb8bfba193ad397d416842add4dfee271e331";
  if (name == N2 || name == N4) return "4374d115f90c5f61e070618a5915dadb2340ec9d";
  if (name == N3 || name == N5) return "69c903ac5ba95128948c07adbe4e2e45e52c024f";
  return "6acc79e71fab4bf55a3bff4b3b5a95132256e2b3";
}

// Builds the view in the given rows order (the table order of the node being imitated).
void Build(State* st, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    Node* n = st->Add(r.name, r.flags, 0);
    n->ip = "127.0.0.1";
    n->tcp_port = r.port;
    n->cport = r.port + 50;
    n->shard_id = ShardOf(n->name);
    n->ping_sent_ms = r.ping;
    n->pong_received_ms = r.pong;
    n->config_epoch = r.epoch;
    n->repl_offset = r.offset;
    if (r.link) n->link = FakeLink();
    if (r.flags & kMyself) st->myself = n;
    if (n->name == N1) n->hostname = "vk1.example", n->human_nodename = "vk-one";
    if (n->name == N2) n->client_ipv4 = "10.9.8.7", n->client_ipv6 = "fe80::1";
  }
  for (const Row& r : rows) {
    if (!r.primary) continue;
    Node* n = st->Find(r.name);
    st->SetPrimary(n, st->Find(r.primary));
    n->flags = r.flags;
  }
  for (int s = 0; s <= 5461; s++) st->AssignSlot(s, st->Find(N1));
  st->AssignSlot(7000, st->Find(N1));
  for (int s = 5462; s <= 10922; s++)
    if (s != 7000) st->AssignSlot(s, st->Find(N2));
  for (int s = 10923; s < cluster::kSlots; s++) st->AssignSlot(s, st->Find(N3));
  st->migrating_to[100] = st->Find(N2);
  st->importing_from[6000] = st->Find(N2);
  st->ok = true;
  st->size = 3;
  st->current_epoch = 7;
}

// N1's view when its replies were captured (table order as N1 listed it).
const std::vector<Row> kN1View = {
    {N1, 26101, kMyself | kMaster, nullptr, 0, 0, 7, false, 0},
    {N2, 26102, kMaster, nullptr, 0, 1796129014503, 2, true, 888},
    {N5, 26105, kSlave | kFail, N3, 1796128998536, 1796128997000, 0, false, 2716},
    {N6, 26106, kSlave, N1, 0, 1796129015005, 0, true, 3056},
    {N4, 26104, kSlave, N2, 0, 1796129014000, 0, true, 888},
    {N7, 26107, kMaster, nullptr, 0, 1796129014503, 0, true, 0},
    {N3, 26103, kMaster, nullptr, 0, 1796129014503, 3, true, 2716},
};
constexpr uint64_t kN1Offset = 3056;  // N1's own replication offset

// N6's view (N6 is a replica of N1).
const std::vector<Row> kN6View = {
    {N3, 26103, kMaster, nullptr, 0, 1796129014101, 3, true, 2716},
    {N5, 26105, kSlave | kFail, N3, 1796128998042, 1796128997037, 0, false, 2716},
    {N7, 26107, kMaster, nullptr, 0, 1796129015105, 0, true, 0},
    {N1, 26101, kMaster, nullptr, 0, 1796129014000, 7, true, 3056},
    {N2, 26102, kMaster, nullptr, 0, 1796129014000, 2, true, 888},
    {N6, 26106, kMyself | kSlave, N1, 0, 0, 0, false, 0},
    {N4, 26104, kSlave, N2, 0, 1796129014603, 0, true, 888},
};
constexpr uint64_t kN6Offset = 3056;

// The same rows in another order (Valkey lists SHARDS in the order of its shard dict; our
// order is that of the first node of each shard in the table).
std::vector<Row> Reorder(const std::vector<Row>& rows, std::vector<const char*> names) {
  std::vector<Row> out;
  for (const char* name : names)
    for (const Row& r : rows)
      if (std::string(r.name) == name) out.push_back(r);
  return out;
}

std::string Encode(const ReplyValue& v, int resp) {
  std::string out;
  net::Reply r(&out, resp);
  WriteReply(v, &r);
  return out;
}

FormatOptions Opts(EndpointType e, bool ipv6 = false) {
  FormatOptions o;
  o.endpoint = e;
  o.ipv6 = ipv6;
  return o;
}

// ---- Golden replies (the bytes Valkey sent; NODES and INFO without the bulk framing) ----

const char* kN1NodesV4 =
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 127.0.0.1:26101@26151,vk1.example myself,master - 0 "
    "0 7 connected 0-5461 7000 [100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
    "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f 10.9.8.7:26102@26152 master - 0 1796129014503 2 "
    "connected 5462-6999 7001-10922\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca 127.0.0.1:26105@26155 slave,fail "
    "bee713ce26365aba26e8274930f475123e5c78dd 1796128998536 1796128997000 3 disconnected\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b 127.0.0.1:26106@26156 slave "
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 1796129015005 7 connected\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb 127.0.0.1:26104@26154 slave "
    "69e5a2966072e58457515e8143a4e508823c8f8f 0 1796129014000 2 connected\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea 127.0.0.1:26107@26157 master - 0 1796129014503 0 "
    "connected\n"
    "bee713ce26365aba26e8274930f475123e5c78dd 127.0.0.1:26103@26153 master - 0 1796129014503 3 "
    "connected 10923-16383\n";

// The same, asked over IPv6: N2 shows its announced client IPv6.
const char* kN1NodesV6 =
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 127.0.0.1:26101@26151,vk1.example myself,master - 0 "
    "0 7 connected 0-5461 7000 [100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
    "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f fe80::1:26102@26152 master - 0 1796129014503 2 "
    "connected 5462-6999 7001-10922\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca 127.0.0.1:26105@26155 slave,fail "
    "bee713ce26365aba26e8274930f475123e5c78dd 1796128998536 1796128997000 3 disconnected\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b 127.0.0.1:26106@26156 slave "
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 1796129015005 7 connected\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb 127.0.0.1:26104@26154 slave "
    "69e5a2966072e58457515e8143a4e508823c8f8f 0 1796129014000 2 connected\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea 127.0.0.1:26107@26157 master - 0 1796129014503 0 "
    "connected\n"
    "bee713ce26365aba26e8274930f475123e5c78dd 127.0.0.1:26103@26153 master - 0 1796129014503 3 "
    "connected 10923-16383\n";

// From the replica N6: myself,slave with the replicated open slots; N1's hostname is shown.
const char* kN6NodesV4 =
    "bee713ce26365aba26e8274930f475123e5c78dd 127.0.0.1:26103@26153 master - 0 1796129014101 3 "
    "connected 10923-16383\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca 127.0.0.1:26105@26155 slave,fail "
    "bee713ce26365aba26e8274930f475123e5c78dd 1796128998042 1796128997037 3 disconnected\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea 127.0.0.1:26107@26157 master - 0 1796129015105 0 "
    "connected\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 127.0.0.1:26101@26151,vk1.example master - 0 "
    "1796129014000 7 connected 0-5461 7000\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f 10.9.8.7:26102@26152 master - 0 1796129014000 2 "
    "connected 5462-6999 7001-10922\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b 127.0.0.1:26106@26156 myself,slave "
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 0 7 connected "
    "[100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
    "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb 127.0.0.1:26104@26154 slave "
    "69e5a2966072e58457515e8143a4e508823c8f8f 0 1796129014603 2 connected\n";

const char* kN1Info =
    "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n"
    "cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:7\r\n"
    "cluster_size:3\r\ncluster_current_epoch:7\r\ncluster_my_epoch:7\r\n"
    "cluster_stats_messages_ping_sent:116\r\ncluster_stats_messages_pong_sent:116\r\n"
    "cluster_stats_messages_fail_sent:5\r\ncluster_stats_messages_sent:237\r\n"
    "cluster_stats_messages_ping_received:100\r\ncluster_stats_messages_pong_received:118\r\n"
    "cluster_stats_messages_meet_received:6\r\ncluster_stats_messages_fail_received:1\r\n"
    "cluster_stats_messages_received:225\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n";

const char* kN6Info =
    "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n"
    "cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:7\r\n"
    "cluster_size:3\r\ncluster_current_epoch:7\r\ncluster_my_epoch:7\r\n"
    "cluster_stats_messages_ping_sent:112\r\ncluster_stats_messages_pong_sent:126\r\n"
    "cluster_stats_messages_meet_sent:1\r\ncluster_stats_messages_sent:239\r\n"
    "cluster_stats_messages_ping_received:121\r\ncluster_stats_messages_pong_received:116\r\n"
    "cluster_stats_messages_fail_received:2\r\ncluster_stats_messages_received:239\r\n"
    "total_cluster_links_buffer_limit_exceeded:0\r\n";

const char* kN1SlotsIpResp2 =
    "*5\r\n*4\r\n:0\r\n:5461\r\n*4\r\n$9\r\n127.0.0.1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*2\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n*4\r\n$9\r\n127.0.0.1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*0\r\n*4\r\n:5462\r\n:6999\r\n*4\r\n$8\r\n"
    "10.9.8.7\r\n:26102\r\n$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n*0\r\n*4\r\n"
    "$9\r\n127.0.0.1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*0\r\n"
    "*4\r\n:7000\r\n:7000\r\n*4\r\n$9\r\n127.0.0.1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*2\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n*4\r\n$9\r\n127.0.0.1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*0\r\n*4\r\n:7001\r\n:10922\r\n*4\r\n$8\r\n"
    "10.9.8.7\r\n:26102\r\n$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n*0\r\n*4\r\n"
    "$9\r\n127.0.0.1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*0\r\n"
    "*3\r\n:10923\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:26103\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n*0\r\n";

const char* kN1SlotsHostnameResp3 =
    "*5\r\n*4\r\n:0\r\n:5461\r\n*4\r\n$11\r\nvk1.example\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n"
    "$1\r\n?\r\n:26106\r\n$40\r\nd65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n%1\r\n$2\r\n"
    "ip\r\n$9\r\n127.0.0.1\r\n*4\r\n:5462\r\n:6999\r\n*4\r\n$1\r\n?\r\n:26102\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n%1\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n*4\r\n"
    "$1\r\n?\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n%1\r\n$2\r\n"
    "ip\r\n$9\r\n127.0.0.1\r\n*4\r\n:7000\r\n:7000\r\n*4\r\n$11\r\nvk1.example\r\n:26101\r\n"
    "$40\r\n0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n"
    "*4\r\n$1\r\n?\r\n:26106\r\n$40\r\nd65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n%1\r\n"
    "$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n:7001\r\n:10922\r\n*4\r\n$1\r\n?\r\n:26102\r\n"
    "$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n%1\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n"
    "*4\r\n$1\r\n?\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n%1\r\n"
    "$2\r\nip\r\n$9\r\n127.0.0.1\r\n*3\r\n:10923\r\n:16383\r\n*4\r\n$1\r\n?\r\n:26103\r\n"
    "$40\r\nbee713ce26365aba26e8274930f475123e5c78dd\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n";

const char* kN1SlotsUnknownResp2 =
    "*5\r\n*4\r\n:0\r\n:5461\r\n*4\r\n$-1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*4\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\n"
    "hostname\r\n$11\r\nvk1.example\r\n*4\r\n$-1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*2\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n"
    ":5462\r\n:6999\r\n*4\r\n$-1\r\n:26102\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n*2\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n*4\r\n"
    "$-1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*2\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n*4\r\n:7000\r\n:7000\r\n*4\r\n$-1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*4\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\n"
    "hostname\r\n$11\r\nvk1.example\r\n*4\r\n$-1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*2\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n"
    ":7001\r\n:10922\r\n*4\r\n$-1\r\n:26102\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n*2\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n*4\r\n"
    "$-1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*2\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n*3\r\n:10923\r\n:16383\r\n*4\r\n$-1\r\n:26103\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n*2\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n";

const char* kN1SlotsUnknownResp3 =
    "*5\r\n*4\r\n:0\r\n:5461\r\n*4\r\n_\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n%2\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\n"
    "hostname\r\n$11\r\nvk1.example\r\n*4\r\n_\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n"
    ":5462\r\n:6999\r\n*4\r\n_\r\n:26102\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n%1\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n*4\r\n"
    "_\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n%1\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n*4\r\n:7000\r\n:7000\r\n*4\r\n_\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n%2\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\n"
    "hostname\r\n$11\r\nvk1.example\r\n*4\r\n_\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n*4\r\n"
    ":7001\r\n:10922\r\n*4\r\n_\r\n:26102\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n%1\r\n$2\r\nip\r\n$8\r\n10.9.8.7\r\n*4\r\n"
    "_\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n%1\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n*3\r\n:10923\r\n:16383\r\n*4\r\n_\r\n:26103\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n%1\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n";

const char* kN1SlotsIpV6Resp2 =
    "*5\r\n*4\r\n:0\r\n:5461\r\n*4\r\n$9\r\n127.0.0.1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*2\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n*4\r\n$9\r\n127.0.0.1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*0\r\n*4\r\n:5462\r\n:6999\r\n*4\r\n$7\r\n"
    "fe80::1\r\n:26102\r\n$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n*0\r\n*4\r\n"
    "$9\r\n127.0.0.1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*0\r\n"
    "*4\r\n:7000\r\n:7000\r\n*4\r\n$9\r\n127.0.0.1\r\n:26101\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n*2\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n*4\r\n$9\r\n127.0.0.1\r\n:26106\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n*0\r\n*4\r\n:7001\r\n:10922\r\n*4\r\n$7\r\n"
    "fe80::1\r\n:26102\r\n$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n*0\r\n*4\r\n"
    "$9\r\n127.0.0.1\r\n:26104\r\n$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n*0\r\n"
    "*3\r\n:10923\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:26103\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n*0\r\n";

const char* kN1ShardsIpResp3 =
    "*4\r\n%2\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*1\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$4\r\nport\r\n:26107\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:0\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%2\r\n$5\r\nslots\r\n*4\r\n"
    ":5462\r\n:6999\r\n:7001\r\n:10922\r\n$5\r\nnodes\r\n*2\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$4\r\nport\r\n:26102\r\n$2\r\nip\r\n$8\r\n"
    "10.9.8.7\r\n$8\r\nendpoint\r\n$8\r\n10.9.8.7\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$4\r\nport\r\n:26104\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%2\r\n$5\r\nslots\r\n"
    "*4\r\n:0\r\n:5461\r\n:7000\r\n:7000\r\n$5\r\nnodes\r\n*2\r\n%8\r\n$2\r\nid\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n$4\r\nport\r\n:26101\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\nreplication-offset\r\n:3056\r\n"
    "$6\r\nhealth\r\n$6\r\nonline\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$4\r\nport\r\n:26106\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:3056\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%2\r\n$5\r\nslots\r\n"
    "*2\r\n:10923\r\n:16383\r\n$5\r\nnodes\r\n*2\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$4\r\nport\r\n:26103\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:2716\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca\r\n$4\r\nport\r\n:26105\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:2716\r\n$6\r\nhealth\r\n$4\r\nfail\r\n";

const char* kN1ShardsHostnameResp2 =
    "*4\r\n*4\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*1\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$4\r\nport\r\n:26107\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:0\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\nslots\r\n*4\r\n"
    ":5462\r\n:6999\r\n:7001\r\n:10922\r\n$5\r\nnodes\r\n*2\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$4\r\nport\r\n:26102\r\n$2\r\nip\r\n$8\r\n"
    "10.9.8.7\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$4\r\nport\r\n:26104\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\nslots\r\n"
    "*4\r\n:0\r\n:5461\r\n:7000\r\n:7000\r\n$5\r\nnodes\r\n*2\r\n*16\r\n$2\r\nid\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n$4\r\nport\r\n:26101\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$11\r\nvk1.example\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\nreplication-offset\r\n:3056\r\n"
    "$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$4\r\nport\r\n:26106\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:3056\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\nslots\r\n"
    "*2\r\n:10923\r\n:16383\r\n$5\r\nnodes\r\n*2\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$4\r\nport\r\n:26103\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:2716\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n"
    "$40\r\n27dd442f00d424cd326d54ec7db74e8f46245cca\r\n$4\r\nport\r\n:26105\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$1\r\n?\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:2716\r\n$6\r\nhealth\r\n$4\r\nfail\r\n";

const char* kN1ShardsUnknownV6Resp3 =
    "*4\r\n%2\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*1\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$4\r\nport\r\n:26107\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:0\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%2\r\n$5\r\nslots\r\n*4\r\n"
    ":5462\r\n:6999\r\n:7001\r\n:10922\r\n$5\r\nnodes\r\n*2\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$4\r\nport\r\n:26102\r\n$2\r\nip\r\n$7\r\n"
    "fe80::1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%7\r\n$2\r\nid\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$4\r\nport\r\n:26104\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%2\r\n$5\r\nslots\r\n"
    "*4\r\n:0\r\n:5461\r\n:7000\r\n:7000\r\n$5\r\nnodes\r\n*2\r\n%8\r\n$2\r\nid\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n$4\r\nport\r\n:26101\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$8\r\nhostname\r\n$11\r\nvk1.example\r\n$4\r\n"
    "role\r\n$6\r\nmaster\r\n$18\r\nreplication-offset\r\n:3056\r\n$6\r\nhealth\r\n$6\r\n"
    "online\r\n%7\r\n$2\r\nid\r\n$40\r\nd65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$4\r\n"
    "port\r\n:26106\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\n"
    "role\r\n$7\r\nreplica\r\n$18\r\nreplication-offset\r\n:3056\r\n$6\r\nhealth\r\n$6\r\n"
    "online\r\n%2\r\n$5\r\nslots\r\n*2\r\n:10923\r\n:16383\r\n$5\r\nnodes\r\n*2\r\n%7\r\n"
    "$2\r\nid\r\n$40\r\nbee713ce26365aba26e8274930f475123e5c78dd\r\n$4\r\nport\r\n:26103\r\n"
    "$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\nrole\r\n$6\r\n"
    "master\r\n$18\r\nreplication-offset\r\n:2716\r\n$6\r\nhealth\r\n$6\r\nonline\r\n%7\r\n"
    "$2\r\nid\r\n$40\r\n27dd442f00d424cd326d54ec7db74e8f46245cca\r\n$4\r\nport\r\n:26105\r\n"
    "$2\r\nip\r\n$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$0\r\n\r\n$4\r\nrole\r\n$7\r\n"
    "replica\r\n$18\r\nreplication-offset\r\n:2716\r\n$6\r\nhealth\r\n$4\r\nfail\r\n";

const char* kN6ShardsIpResp2 =
    "*4\r\n*4\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*1\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$4\r\nport\r\n:26107\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:0\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\nslots\r\n*4\r\n"
    ":0\r\n:5461\r\n:7000\r\n:7000\r\n$5\r\nnodes\r\n*2\r\n*16\r\n$2\r\nid\r\n$40\r\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3\r\n$4\r\nport\r\n:26101\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$8\r\nhostname\r\n$11\r\n"
    "vk1.example\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\nreplication-offset\r\n:3056\r\n"
    "$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$4\r\nport\r\n:26106\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n$18\r\n"
    "replication-offset\r\n:3056\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\nslots\r\n"
    "*4\r\n:5462\r\n:6999\r\n:7001\r\n:10922\r\n$5\r\nnodes\r\n*2\r\n*14\r\n$2\r\nid\r\n"
    "$40\r\n69e5a2966072e58457515e8143a4e508823c8f8f\r\n$4\r\nport\r\n:26102\r\n$2\r\nip\r\n"
    "$8\r\n10.9.8.7\r\n$8\r\nendpoint\r\n$8\r\n10.9.8.7\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
    "$18\r\nreplication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n"
    "$40\r\nf8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$4\r\nport\r\n:26104\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n"
    "$18\r\nreplication-offset\r\n:888\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*4\r\n$5\r\n"
    "slots\r\n*2\r\n:10923\r\n:16383\r\n$5\r\nnodes\r\n*2\r\n*14\r\n$2\r\nid\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$4\r\nport\r\n:26103\r\n$2\r\nip\r\n$9\r\n"
    "127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\n"
    "replication-offset\r\n:2716\r\n$6\r\nhealth\r\n$6\r\nonline\r\n*14\r\n$2\r\nid\r\n"
    "$40\r\n27dd442f00d424cd326d54ec7db74e8f46245cca\r\n$4\r\nport\r\n:26105\r\n$2\r\nip\r\n"
    "$9\r\n127.0.0.1\r\n$8\r\nendpoint\r\n$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$7\r\nreplica\r\n"
    "$18\r\nreplication-offset\r\n:2716\r\n$6\r\nhealth\r\n$4\r\nfail\r\n";

const char* kN1LinksResp2 =
    "*10\r\n*12\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$11\r\ncreate-time\r\n:1796128980957\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$11\r\ncreate-time\r\n:1796128981056\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$11\r\ncreate-time\r\n:1796128980973\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$11\r\ncreate-time\r\n:1796128980965\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$11\r\ncreate-time\r\n:1796128992912\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$11\r\ncreate-time\r\n:1796128992846\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n*12\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$11\r\ncreate-time\r\n:1796128980957\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n";

const char* kN1LinksResp3 =
    "*10\r\n%6\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f\r\n$11\r\ncreate-time\r\n:1796128980957\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$11\r\ncreate-time\r\n:1796128981056\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b\r\n$11\r\ncreate-time\r\n:1796128980973\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb\r\n$11\r\ncreate-time\r\n:1796128980965\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$11\r\ncreate-time\r\n:1796128992912\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea\r\n$11\r\ncreate-time\r\n:1796128992846\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$2\r\nto\r\n$4\r\nnode\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$11\r\ncreate-time\r\n:1796128981057\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n%6\r\n$9\r\ndirection\r\n$4\r\nfrom\r\n$4\r\nnode\r\n$40\r\n"
    "bee713ce26365aba26e8274930f475123e5c78dd\r\n$11\r\ncreate-time\r\n:1796128980957\r\n"
    "$6\r\nevents\r\n$1\r\nr\r\n$21\r\nsend-buffer-allocated\r\n:48\r\n$16\r\n"
    "send-buffer-used\r\n:48\r\n";

// CLUSTER REPLICAS N1, asked on N1 right after the captures above.
const char* kN1Replicas =
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b 127.0.0.1:26106@26156 slave "
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 1796129015005 7 connected";

void SetN1Stats(State* st) {
  auto& s = st->stats;
  s.sent[cluster::kTypePing] = 116;
  s.sent[cluster::kTypePong] = 116;
  s.sent[cluster::kTypeFail] = 5;
  s.received[cluster::kTypePing] = 100;
  s.received[cluster::kTypePong] = 118;
  s.received[cluster::kTypeMeet] = 6;
  s.received[cluster::kTypeFail] = 1;
}

void SetN6Stats(State* st) {
  auto& s = st->stats;
  s.sent[cluster::kTypePing] = 112;
  s.sent[cluster::kTypePong] = 126;
  s.sent[cluster::kTypeMeet] = 1;
  s.received[cluster::kTypePing] = 121;
  s.received[cluster::kTypePong] = 116;
  s.received[cluster::kTypeFail] = 2;
}

}  // namespace

// ---- Golden comparisons ----

TEST_CASE(nodes_format_golden_cluster_nodes) {
  State st;
  Build(&st, kN1View);
  CHECK_EQ(FormatClusterNodes(st, FormatOptions{}), std::string(kN1NodesV4));
  FormatOptions v6;
  v6.ipv6 = true;
  CHECK_EQ(FormatClusterNodes(st, v6), std::string(kN1NodesV6));
  State st6;
  Build(&st6, kN6View);
  CHECK_EQ(FormatClusterNodes(st6, FormatOptions{}), std::string(kN6NodesV4));
}

TEST_CASE(nodes_format_golden_cluster_replicas) {
  State st;
  Build(&st, kN1View);
  auto lines = FormatReplicasLines(st, *st.Find(N1), FormatOptions{});
  CHECK_EQ(lines.size(), 1u);
  CHECK_EQ(lines[0], std::string(kN1Replicas));
  CHECK(FormatReplicasLines(st, *st.Find(N7), FormatOptions{}).empty());
}

TEST_CASE(nodes_format_golden_cluster_info) {
  State st;
  Build(&st, kN1View);
  SetN1Stats(&st);
  CHECK_EQ(ClusterInfoText(st), std::string(kN1Info));
  State st6;
  Build(&st6, kN6View);
  SetN6Stats(&st6);
  CHECK_EQ(ClusterInfoText(st6), std::string(kN6Info));
}

TEST_CASE(nodes_format_golden_cluster_slots) {
  State st;
  Build(&st, kN1View);
  auto slots = [&](EndpointType e, bool v6, int resp) {
    return Encode(ClusterSlotsReply(st, Opts(e, v6), kN1Offset), resp);
  };
  CHECK_EQ(slots(EndpointType::kIp, false, 2), std::string(kN1SlotsIpResp2));
  CHECK_EQ(slots(EndpointType::kHostname, false, 3), std::string(kN1SlotsHostnameResp3));
  CHECK_EQ(slots(EndpointType::kUnknownEndpoint, false, 2), std::string(kN1SlotsUnknownResp2));
  CHECK_EQ(slots(EndpointType::kUnknownEndpoint, false, 3), std::string(kN1SlotsUnknownResp3));
  CHECK_EQ(slots(EndpointType::kIp, true, 2), std::string(kN1SlotsIpV6Resp2));
}

TEST_CASE(nodes_format_golden_cluster_shards) {
  State st;
  Build(&st, Reorder(kN1View, {N7, N2, N4, N1, N6, N3, N5}));
  auto shards = [&](EndpointType e, bool v6, int resp) {
    return Encode(ClusterShardsReply(st, Opts(e, v6), kN1Offset), resp);
  };
  CHECK_EQ(shards(EndpointType::kIp, false, 3), std::string(kN1ShardsIpResp3));
  CHECK_EQ(shards(EndpointType::kHostname, false, 2), std::string(kN1ShardsHostnameResp2));
  CHECK_EQ(shards(EndpointType::kUnknownEndpoint, true, 3), std::string(kN1ShardsUnknownV6Resp3));
  // From the replica: its own offset, not a header offset.
  State st6;
  Build(&st6, Reorder(kN6View, {N7, N1, N6, N2, N4, N3, N5}));
  CHECK_EQ(Encode(ClusterShardsReply(st6, FormatOptions{}, kN6Offset), 2),
           std::string(kN6ShardsIpResp2));
}

TEST_CASE(nodes_format_golden_cluster_links) {
  State st;
  Build(&st, kN1View);
  auto link = [&](const char* name, bool inbound, int64_t ctime) {
    LinkInfo l;
    l.node = st.Find(name);
    l.inbound = inbound;
    l.create_time_ms = ctime;
    l.reading = true;
    l.send_buffer_allocated = l.send_buffer_used = 48;
    return l;
  };
  // Given in another order: the reply lists them by node in table order, outbound first.
  std::vector<LinkInfo> links = {
      link(N3, true, 1796128980957),  link(N3, false, 1796128981057),
      link(N7, true, 1796128992846),  link(N2, true, 1796128980957),
      link(N6, false, 1796128981056), link(N6, true, 1796128980973),
      link(N4, true, 1796128980965),  link(N4, false, 1796128981057),
      link(N7, false, 1796128992912), link(N2, false, 1796128981057),
  };
  ReplyValue v = ClusterLinksReply(st, links);
  CHECK_EQ(Encode(v, 2), std::string(kN1LinksResp2));
  CHECK_EQ(Encode(v, 3), std::string(kN1LinksResp3));
}

// ---- Tables of edge cases ----

namespace {

constexpr const char* kA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
constexpr const char* kB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
constexpr const char* kC = "cccccccccccccccccccccccccccccccccccccccc";
constexpr const char* kShard = "5555555555555555555555555555555555555555";

// A: myself, primary; B: replica of A; C: another node set up per case.
struct Small {
  State st;
  Node *a, *b, *c;
  Small() {
    a = st.Add(kA, kMyself | kMaster, 0);
    b = st.Add(kB, kSlave, 0);
    c = st.Add(kC, kMaster, 0);
    st.myself = a;
    st.SetPrimary(b, a);
    for (Node* n : {a, b, c}) n->ip = "10.0.0.1", n->shard_id = kShard;
    a->tcp_port = 7000, a->cport = 17000, a->config_epoch = 5;
    b->tcp_port = 7001, b->cport = 17001, b->config_epoch = 1;
    c->tcp_port = 7002, c->cport = 17002, c->config_epoch = 2;
    c->shard_id = "6666666666666666666666666666666666666666";
  }
};

}  // namespace

TEST_CASE(nodes_format_line_cases) {
  struct Case {
    const char* what;
    void (*setup)(Small*);
    const char* node;
    FormatOptions opts;
    const char* want;
  };
  FormatOptions plain, tls, conf, conf_tls;
  tls.tls = true;
  conf.nodes_conf = true;
  conf_tls.nodes_conf = conf_tls.tls = true;
  const Case cases[] = {
      {"primary, no slots", [](Small*) {}, kA, plain,
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 10.0.0.1:7000@17000 myself,master - 0 0 5 "
       "connected"},
      {"replica shows its primary's epoch", [](Small*) {}, kB, plain,
       "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 10.0.0.1:7001@17001 slave "
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0 0 5 disconnected"},
      {"noaddr with no address, pfail",
       [](Small* s) {
         s->c->ip.clear();
         s->c->tcp_port = s->c->cport = 0;
         s->c->flags = kMaster | cluster::kNodeNoAddr | cluster::kNodePfail;
       },
       kC, plain,
       "cccccccccccccccccccccccccccccccccccccccc :0@0 master,fail?,noaddr - 0 0 2 disconnected"},
      {"handshake, nofailover",
       [](Small* s) { s->c->flags = cluster::kNodeHandshake | cluster::kNodeNoFailover; }, kC,
       plain,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002 handshake,nofailover - 0 0 "
       "2 disconnected"},
      {"noflags", [](Small* s) { s->c->flags = 0; }, kC, plain,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002 noflags - 0 0 2 "
       "disconnected"},
      {"TLS client sees the TLS port", [](Small* s) { s->c->tls_port = 7102; }, kC, tls,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7102@17002 master - 0 0 2 "
       "disconnected"},
      {"slot runs: single, range, last slot, pings",
       [](Small* s) {
         s->st.AssignSlot(0, s->c);
         for (int i = 5; i <= 9; i++) s->st.AssignSlot(i, s->c);
         s->st.AssignSlot(16383, s->c);
         s->c->ping_sent_ms = 1700000000123;
         s->c->pong_received_ms = 1700000000000;
         s->c->link = FakeLink();
       },
       kC, plain,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002 master - 1700000000123 "
       "1700000000000 2 connected 0 5-9 16383"},
      {"open slots ascending, migrating wins, only on myself",
       [](Small* s) {
         for (int i = 0; i < cluster::kSlots; i++) s->st.AssignSlot(i, s->a);
         s->st.migrating_to[16383] = s->c;
         s->st.importing_from[16383] = s->c;
         s->st.importing_from[7] = s->c;
         s->st.migrating_to[3] = s->b;
       },
       kA, plain,
       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 10.0.0.1:7000@17000 myself,master - 0 0 5 "
       "connected 0-16383 [3->-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb] "
       "[7-<-cccccccccccccccccccccccccccccccccccccccc] "
       "[16383->-cccccccccccccccccccccccccccccccccccccccc]"},
      {"no open slots on another node's line", [](Small* s) { s->st.migrating_to[3] = s->b; }, kC,
       plain,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002 master - 0 0 2 "
       "disconnected"},
      {"hostname shown, aux fields not, client IPv4 announced",
       [](Small* s) {
         s->c->hostname = "c.example";
         s->c->human_nodename = "cee";
         s->c->client_ipv4 = "192.0.2.1";
       },
       kC, plain,
       "cccccccccccccccccccccccccccccccccccccccc 192.0.2.1:7002@17002,c.example master - 0 0 2 "
       "disconnected"},
      {"nodes.conf: no hostname, every aux field, bus IP, TCP port even for TLS",
       [](Small* s) {
         s->c->human_nodename = "cee";
         s->c->client_ipv4 = "192.0.2.1";
         s->c->client_ipv6 = "2001:db8::1";
         s->c->tls_port = 7102;
       },
       kC, conf_tls,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002,,client-ipv6=2001:db8::1,"
       "client-ipv4=192.0.2.1,tls-port=7102,nodename=cee,"
       "shard-id=6666666666666666666666666666666666666666 master - 0 0 2 disconnected"},
      {"nodes.conf: hostname, tls-port 0", [](Small* s) { s->c->hostname = "c.example"; }, kC, conf,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002,c.example,tls-port=0,"
       "shard-id=6666666666666666666666666666666666666666 master - 0 0 2 disconnected"},
      {"nodes.conf: no shard ID (never the case after load) writes no field",
       [](Small* s) { s->c->shard_id.clear(); }, kC, conf,
       "cccccccccccccccccccccccccccccccccccccccc 10.0.0.1:7002@17002,,tls-port=0 master - 0 0 2 "
       "disconnected"},
  };
  for (const Case& c : cases) {
    Small s;
    c.setup(&s);
    std::string got = FormatNodesLine(s.st, *s.st.Find(c.node), c.opts);
    if (got != c.want) {
      fprintf(stderr, "  case \"%s\":\n    got  %s\n    want %s\n", c.what, got.c_str(), c.want);
      check::failures++;
    }
  }
}

TEST_CASE(nodes_format_slot_runs) {
  using Runs = std::vector<std::pair<int, int>>;
  cluster::SlotBitmap b{};
  CHECK(SlotRuns(b).empty());
  cluster::SlotSet(&b, 16383);
  CHECK(SlotRuns(b) == (Runs{{16383, 16383}}));
  for (int i = 0; i < cluster::kSlots; i++) cluster::SlotSet(&b, i);
  CHECK(SlotRuns(b) == (Runs{{0, 16383}}));
  cluster::SlotClear(&b, 8);
  cluster::SlotClear(&b, 15);
  cluster::SlotClear(&b, 16);
  CHECK(SlotRuns(b) == (Runs{{0, 7}, {9, 14}, {17, 16383}}));
  cluster::SlotBitmap alt{};
  for (int i = 0; i < 64; i += 2) cluster::SlotSet(&alt, i);
  Runs want;
  for (int i = 0; i < 64; i += 2) want.emplace_back(i, i);
  CHECK(SlotRuns(alt) == want);
}

TEST_CASE(nodes_format_slots_replica_filter) {
  // Replicas listed only when not FAIL and at a non-zero offset; myself uses its own offset.
  Small s;
  for (int i = 0; i < 10; i++) s.st.AssignSlot(i, s.a);
  Node* d = s.st.Add("dddddddddddddddddddddddddddddddddddddddd", kSlave, 0);
  Node* e = s.st.Add("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", kSlave | kFail, 0);
  Node* f = s.st.Add("ffffffffffffffffffffffffffffffffffffffff", kSlave | cluster::kNodePfail, 0);
  for (Node* n : {d, e, f}) s.st.SetPrimary(n, s.a);
  e->flags |= kFail;
  f->flags |= cluster::kNodePfail;
  s.b->repl_offset = 0;  // loading: left out
  d->repl_offset = 10;
  e->repl_offset = 10;  // FAIL: left out
  f->repl_offset = 10;  // PFAIL: still listed
  auto ids = [](const ReplyValue& entry) {
    std::string out;
    for (size_t i = 2; i < entry.items.size(); i++) out += entry.items[i].items[2].str.substr(0, 1);
    return out;
  };
  ReplyValue v = ClusterSlotsReply(s.st, FormatOptions{}, 0);
  CHECK_EQ(v.items.size(), 1u);
  CHECK_EQ(v.items[0].items[0].num, 0);
  CHECK_EQ(v.items[0].items[1].num, 9);
  CHECK_EQ(ids(v.items[0]), std::string("adf"));
  // Seen from a replica that is myself: its own offset decides.
  s.a->flags = kMaster;
  s.b->flags = kMyself | kSlave;
  s.st.myself = s.b;
  s.b->repl_offset = 0;
  CHECK_EQ(ids(ClusterSlotsReply(s.st, FormatOptions{}, 0).items[0]), std::string("adf"));
  CHECK_EQ(ids(ClusterSlotsReply(s.st, FormatOptions{}, 5).items[0]), std::string("abdf"));
  // TLS clients get TLS ports; no slots anywhere: an empty array.
  s.a->tls_port = 7100;
  FormatOptions tls;
  tls.tls = true;
  CHECK_EQ(ClusterSlotsReply(s.st, tls, 5).items[0].items[2].items[1].num, 7100);
  Small empty;
  CHECK_EQ(Encode(ClusterSlotsReply(empty.st, FormatOptions{}, 0), 2), std::string("*0\r\n"));
}

TEST_CASE(nodes_format_shards_cases) {
  Small s;
  for (int i = 0; i < 3; i++) s.st.AssignSlot(i, s.a);
  s.st.AssignSlot(9, s.a);
  s.a->tls_port = 7100;  // both ports shown
  s.b->tcp_port = 0;     // no port field
  s.b->tls_port = 7101;
  s.b->repl_offset = 0;                                          // a replica at offset 0 is loading
  Node* h = s.st.Add("", cluster::kNodeHandshake | kMaster, 0);  // not listed
  h->shard_id = "7777777777777777777777777777777777777777";
  s.c->flags |= kFail;
  ReplyValue v = ClusterShardsReply(s.st, FormatOptions{}, 42);
  ReplyValue want = ReplyValue::Array();
  {
    ReplyValue nodes = ReplyValue::Array();
    ReplyValue a = ReplyValue::Map();
    a.Add("id", ReplyValue::Bulk(kA))
        .Add("port", ReplyValue::Int(7000))
        .Add("tls-port", ReplyValue::Int(7100))
        .Add("ip", ReplyValue::Bulk("10.0.0.1"))
        .Add("endpoint", ReplyValue::Bulk("10.0.0.1"))
        .Add("role", ReplyValue::Bulk("master"))
        .Add("replication-offset", ReplyValue::Int(42))
        .Add("health", ReplyValue::Bulk("online"));
    ReplyValue b = ReplyValue::Map();
    b.Add("id", ReplyValue::Bulk(kB))
        .Add("tls-port", ReplyValue::Int(7101))
        .Add("ip", ReplyValue::Bulk("10.0.0.1"))
        .Add("endpoint", ReplyValue::Bulk("10.0.0.1"))
        .Add("role", ReplyValue::Bulk("replica"))
        .Add("replication-offset", ReplyValue::Int(0))
        .Add("health", ReplyValue::Bulk("loading"));
    nodes.items = {a, b};
    ReplyValue shard = ReplyValue::Map();
    shard.Add("slots", ReplyValue::Array({ReplyValue::Int(0), ReplyValue::Int(2),
                                          ReplyValue::Int(9), ReplyValue::Int(9)}));
    shard.Add("nodes", nodes);
    want.items.push_back(shard);
  }
  {
    ReplyValue c = ReplyValue::Map();
    c.Add("id", ReplyValue::Bulk(kC))
        .Add("port", ReplyValue::Int(7002))
        .Add("ip", ReplyValue::Bulk("10.0.0.1"))
        .Add("endpoint", ReplyValue::Bulk("10.0.0.1"))
        .Add("role", ReplyValue::Bulk("master"))
        .Add("replication-offset", ReplyValue::Int(0))
        .Add("health", ReplyValue::Bulk("fail"));
    ReplyValue shard = ReplyValue::Map();
    shard.Add("slots", ReplyValue::Array());
    shard.Add("nodes", ReplyValue::Array({c}));
    want.items.push_back(shard);
  }
  CHECK(v == want);
  if (!(v == want)) fprintf(stderr, "  got %s\n", Encode(v, 3).c_str());
}

TEST_CASE(nodes_format_links_cases) {
  Small s;
  Node gone;  // a node the table no longer has
  gone.name = "9999999999999999999999999999999999999999";
  std::vector<LinkInfo> links(4);
  links[0] = {s.c, true, 5, false, false, 0, 0};
  links[1] = {&gone, false, 6, true, true, 1, 1};
  links[2] = {s.b, false, 7, true, true, 100, 30};
  links[3] = {s.c, false, 8, false, true, 2, 2};
  ReplyValue v = ClusterLinksReply(s.st, links);
  CHECK_EQ(v.items.size(), 3u);
  auto field = [&](size_t i, size_t k) { return v.items[i].items[2 * k + 1]; };
  CHECK_EQ(field(0, 1).str, std::string(kB));
  CHECK_EQ(field(0, 3).str, std::string("rw"));
  CHECK_EQ(field(0, 4).num, 100);
  CHECK_EQ(field(0, 5).num, 30);
  CHECK_EQ(field(1, 0).str, std::string("to"));
  CHECK_EQ(field(1, 3).str, std::string("w"));
  CHECK_EQ(field(2, 0).str, std::string("from"));
  CHECK_EQ(field(2, 3).str, std::string(""));
  CHECK_EQ(Encode(ClusterLinksReply(s.st, {}), 3), std::string("*0\r\n"));
}

TEST_CASE(nodes_format_info_cases) {
  Small s;
  for (int i = 0; i < 100; i++) s.st.AssignSlot(i, s.a);
  for (int i = 100; i < 130; i++) s.st.AssignSlot(i, s.c);
  s.c->flags |= cluster::kNodePfail;
  s.st.current_epoch = 9;
  s.st.size = 2;
  s.st.stats.sent[cluster::kTypePublishShard] = 3;
  s.st.stats.received[cluster::kTypeUpdate] = 1;
  s.st.stats.received[cluster::kTypeFailoverAuthAck] = 2;
  s.st.stats.links_buffer_limit_exceeded = 4;
  std::string want =
      "cluster_state:fail\r\ncluster_slots_assigned:130\r\ncluster_slots_ok:100\r\n"
      "cluster_slots_pfail:30\r\ncluster_slots_fail:0\r\ncluster_known_nodes:3\r\n"
      "cluster_size:2\r\ncluster_current_epoch:9\r\ncluster_my_epoch:5\r\n"
      "cluster_stats_messages_publishshard_sent:3\r\ncluster_stats_messages_sent:3\r\n"
      "cluster_stats_messages_auth-ack_received:2\r\ncluster_stats_messages_update_received:1\r\n"
      "cluster_stats_messages_received:3\r\ntotal_cluster_links_buffer_limit_exceeded:4\r\n";
  CHECK_EQ(ClusterInfoText(s.st), want);
  // FAIL beats PFAIL; a replica reports its primary's epoch.
  s.c->flags |= kFail;
  s.a->flags = kMaster;
  s.b->flags = kMyself | kSlave;
  s.st.myself = s.b;
  std::string info = ClusterInfoText(s.st);
  CHECK(info.find("cluster_slots_pfail:0\r\ncluster_slots_fail:30\r\n") != std::string::npos);
  CHECK(info.find("cluster_my_epoch:5\r\n") != std::string::npos);
}
