// cluster/nodes_conf.h: nodes.conf files written by a live Valkey 8.0.1 cluster and by Redis
// 7.0.15 (golden text, and the State rebuilt by hand), the round trip, every parse error with its
// message, accepted variants, a fuzz run over random and mutated files, and the file side (atomic
// save, lock).
#include "cluster/nodes_conf.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "cluster/nodes_format.h"

namespace {

using cluster::FormatNodesConf;
using cluster::Node;
using cluster::ParseNodesConf;
using cluster::State;

constexpr int64_t kNow = 1800000000000;

// ---- The Valkey 8 cluster (see nodes_format_test.cc): N1 myself in n1's file, N6 in n6's ----
constexpr const char* N1 = "0756a81b1baf8a066fa0309bfb7d8b6820a479d3";
constexpr const char* N2 = "69e5a2966072e58457515e8143a4e508823c8f8f";
constexpr const char* N3 = "bee713ce26365aba26e8274930f475123e5c78dd";
constexpr const char* N4 = "f8111ac9646d6ccdb676724a49a9fc60022f5deb";
constexpr const char* N5 = "27dd442f00d424cd326d54ec7db74e8f46245cca";
constexpr const char* N6 = "d65ca3e813283d5863b674cdc6e09c966c8b9c8b";
constexpr const char* N7 = "8b1685cc422bd13979d9c5d4ffe30d749da4faea";
constexpr const char* S1 = "182eb8bfba193ad397d416842add4dfee271e331";  // N1, N6
constexpr const char* S2 = "4374d115f90c5f61e070618a5915dadb2340ec9d";  // N2, N4
constexpr const char* S3 = "69c903ac5ba95128948c07adbe4e2e45e52c024f";  // N3, N5
constexpr const char* S7 = "6acc79e71fab4bf55a3bff4b3b5a95132256e2b3";  // N7

constexpr uint16_t kMaster = cluster::kNodePrimary, kSlave = cluster::kNodeReplica,
                   kMyself = cluster::kNodeMyself, kFail = cluster::kNodeFail;

// nodes.conf of the Valkey 8.0.1 node on port 26101 (N1).
const char* kN1Conf =
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 "
    "127.0.0.1:26101@26151,vk1.example,tls-port=0,nodename=vk-one,shard-id="
    "182eb8bfba193ad397d416842add4dfee271e331 myself,master - 0 0 7 connected 0-5461 7000 "
    "[100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
    "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f "
    "127.0.0.1:26102@26152,,client-ipv6=fe80::1,client-ipv4=10.9.8.7,tls-port=0,shard-id="
    "4374d115f90c5f61e070618a5915dadb2340ec9d master - 0 1796129001000 2 connected 5462-6999 "
    "7001-10922\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca "
    "127.0.0.1:26105@26155,,tls-port=0,shard-id=69c903ac5ba95128948c07adbe4e2e45e52c024f "
    "slave,fail bee713ce26365aba26e8274930f475123e5c78dd 1796128998536 1796128997000 3 "
    "disconnected\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b "
    "127.0.0.1:26106@26156,,tls-port=0,shard-id=182eb8bfba193ad397d416842add4dfee271e331 slave "
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 1796129001552 7 connected\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb "
    "127.0.0.1:26104@26154,,tls-port=0,shard-id=4374d115f90c5f61e070618a5915dadb2340ec9d slave "
    "69e5a2966072e58457515e8143a4e508823c8f8f 0 1796129001000 2 connected\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea "
    "127.0.0.1:26107@26157,,tls-port=0,shard-id=6acc79e71fab4bf55a3bff4b3b5a95132256e2b3 master - "
    "0 1796129000546 0 connected\n"
    "bee713ce26365aba26e8274930f475123e5c78dd "
    "127.0.0.1:26103@26153,,tls-port=0,shard-id=69c903ac5ba95128948c07adbe4e2e45e52c024f master - "
    "0 1796129000947 3 connected 10923-16383\n"
    "vars currentEpoch 7 lastVoteEpoch 0\n";

// Its replica's file: myself,slave with the open slots it took from its primary.
const char* kN6Conf =
    "bee713ce26365aba26e8274930f475123e5c78dd "
    "127.0.0.1:26103@26153,,tls-port=0,shard-id=69c903ac5ba95128948c07adbe4e2e45e52c024f master - "
    "0 1796129001000 3 connected 10923-16383\n"
    "27dd442f00d424cd326d54ec7db74e8f46245cca "
    "127.0.0.1:26105@26155,,tls-port=0,shard-id=69c903ac5ba95128948c07adbe4e2e45e52c024f "
    "slave,fail bee713ce26365aba26e8274930f475123e5c78dd 1796128998042 1796128997037 3 "
    "disconnected\n"
    "8b1685cc422bd13979d9c5d4ffe30d749da4faea "
    "127.0.0.1:26107@26157,,tls-port=0,shard-id=6acc79e71fab4bf55a3bff4b3b5a95132256e2b3 master - "
    "0 1796129000553 0 connected\n"
    "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 "
    "127.0.0.1:26101@26151,vk1.example,tls-port=0,nodename=vk-one,shard-id="
    "182eb8bfba193ad397d416842add4dfee271e331 master - 0 1796129000553 7 connected 0-5461 7000\n"
    "69e5a2966072e58457515e8143a4e508823c8f8f "
    "127.0.0.1:26102@26152,,client-ipv6=fe80::1,client-ipv4=10.9.8.7,tls-port=0,shard-id="
    "4374d115f90c5f61e070618a5915dadb2340ec9d master - 0 1796129001054 2 connected 5462-6999 "
    "7001-10922\n"
    "d65ca3e813283d5863b674cdc6e09c966c8b9c8b "
    "127.0.0.1:26106@26156,,tls-port=0,shard-id=182eb8bfba193ad397d416842add4dfee271e331 "
    "myself,slave 0756a81b1baf8a066fa0309bfb7d8b6820a479d3 0 0 7 connected "
    "[100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
    "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
    "f8111ac9646d6ccdb676724a49a9fc60022f5deb "
    "127.0.0.1:26104@26154,,tls-port=0,shard-id=4374d115f90c5f61e070618a5915dadb2340ec9d slave "
    "69e5a2966072e58457515e8143a4e508823c8f8f 0 1796129001556 2 connected\n"
    "vars currentEpoch 7 lastVoteEpoch 0\n";

// Redis 7.0.15: no aux fields, a hostname, a migrating slot, myself with a non-zero pong.
const char* kR1Conf =
    "09dccc4cfb590b4d117168e2d243fdfd9cc1cc7a 127.0.0.1:26123@26173 master - 0 1796129032564 3 "
    "connected 10923-16383\n"
    "02f8eaf949adf4b2fe97384bed40a04c49ff4582 127.0.0.1:26122@26172 master - 0 1796129032766 2 "
    "connected 5461-10922\n"
    "69292fa5eb5a3495ff4ac9210361e43e90b9dcd5 127.0.0.1:26124@26174 slave "
    "d4632eea7be4c7dcb14241c1d7697dd1bf93153b 0 1796129031761 1 connected\n"
    "d4632eea7be4c7dcb14241c1d7697dd1bf93153b 127.0.0.1:26121@26171,rd1.example myself,master - 0 "
    "1796129032000 1 connected 0-5460 [10->-02f8eaf949adf4b2fe97384bed40a04c49ff4582]\n"
    "vars currentEpoch 3 lastVoteEpoch 0\n";

// Redis 7.0.15 replica: its line comes before its primary's and has no shard ID.
const char* kR4Conf =
    "09dccc4cfb590b4d117168e2d243fdfd9cc1cc7a 127.0.0.1:26123@26173 master - 0 1796129029072 3 "
    "connected 10923-16383\n"
    "02f8eaf949adf4b2fe97384bed40a04c49ff4582 127.0.0.1:26122@26172 master - 0 1796129029173 2 "
    "connected 5461-10922\n"
    "69292fa5eb5a3495ff4ac9210361e43e90b9dcd5 127.0.0.1:26124@26174 myself,slave "
    "d4632eea7be4c7dcb14241c1d7697dd1bf93153b 0 1796129029000 1 connected\n"
    "d4632eea7be4c7dcb14241c1d7697dd1bf93153b 127.0.0.1:26121@26171,rd1.example master - 0 "
    "1796129029775 1 connected 0-5460\n"
    "vars currentEpoch 3 lastVoteEpoch 0\n";

struct Row {
  const char* name;
  int port;
  uint16_t flags;
  const char* primary;
  int64_t ping, pong;
  uint64_t epoch;
  bool link;
};

cluster::Link* FakeLink() {
  static int dummy;
  return reinterpret_cast<cluster::Link*>(&dummy);  // never dereferenced: "connected"
}

void Build(State* st, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    Node* n = st->Add(r.name, r.flags, 0);
    n->ip = "127.0.0.1";
    n->tcp_port = r.port;
    n->cport = r.port + 50;
    std::string name = r.name;
    n->shard_id = (name == N1 || name == N6)   ? S1
                  : (name == N2 || name == N4) ? S2
                  : (name == N3 || name == N5) ? S3
                                               : S7;
    n->ping_sent_ms = r.ping;
    n->pong_received_ms = r.pong;
    n->config_epoch = r.epoch;
    if (r.link) n->link = FakeLink();
    if (r.flags & kMyself) st->myself = n;
    if (name == N1) n->hostname = "vk1.example", n->human_nodename = "vk-one";
    if (name == N2) n->client_ipv4 = "10.9.8.7", n->client_ipv6 = "fe80::1";
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
  st->current_epoch = 7;
}

const std::vector<Row> kN1File = {
    {N1, 26101, kMyself | kMaster, nullptr, 0, 0, 7, false},
    {N2, 26102, kMaster, nullptr, 0, 1796129001000, 2, true},
    {N5, 26105, kSlave | kFail, N3, 1796128998536, 1796128997000, 0, false},
    {N6, 26106, kSlave, N1, 0, 1796129001552, 0, true},
    {N4, 26104, kSlave, N2, 0, 1796129001000, 0, true},
    {N7, 26107, kMaster, nullptr, 0, 1796129000546, 0, true},
    {N3, 26103, kMaster, nullptr, 0, 1796129000947, 3, true},
};

const std::vector<Row> kN6File = {
    {N3, 26103, kMaster, nullptr, 0, 1796129001000, 3, true},
    {N5, 26105, kSlave | kFail, N3, 1796128998042, 1796128997037, 0, false},
    {N7, 26107, kMaster, nullptr, 0, 1796129000553, 0, true},
    {N1, 26101, kMaster, nullptr, 0, 1796129000553, 7, true},
    {N2, 26102, kMaster, nullptr, 0, 1796129001054, 2, true},
    {N6, 26106, kMyself | kSlave, N1, 0, 0, 0, false},
    {N4, 26104, kSlave, N2, 0, 1796129001556, 0, true},
};

// What a file becomes once loaded at `now` and written again: non-zero ping/pong are `now`, and
// no link exists yet (every node but myself is disconnected).
std::string AsLoaded(const std::string& text, int64_t now) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("vars ", 0) != 0) {
      std::vector<std::string> f;
      size_t p = 0;
      while (p <= line.size()) {
        size_t sp = line.find(' ', p);
        if (sp == std::string::npos) sp = line.size();
        f.push_back(line.substr(p, sp - p));
        p = sp + 1;
      }
      for (int i : {4, 5})
        if (f[i] != "0") f[i] = std::to_string(now);
      if (f[2].find("myself") == std::string::npos) f[7] = "disconnected";
      line.clear();
      for (size_t i = 0; i < f.size(); i++) line += (i ? " " : "") + f[i];
    }
    out += line + "\n";
  }
  return out;
}

bool Parse(const std::string& text, State* st, std::string* err, bool tls = false) {
  return ParseNodesConf(text, st, kNow, tls, err);
}

}  // namespace

// ---- Golden files ----

TEST_CASE(nodes_conf_golden_format) {
  State st;
  Build(&st, kN1File);
  CHECK_EQ(FormatNodesConf(st), std::string(kN1Conf));
  State st6;
  Build(&st6, kN6File);
  CHECK_EQ(FormatNodesConf(st6), std::string(kN6Conf));
  // Handshake nodes are not written.
  st.Add("", cluster::kNodeHandshake | cluster::kNodeMeet, 0);
  CHECK_EQ(FormatNodesConf(st), std::string(kN1Conf));
}

TEST_CASE(nodes_conf_golden_parse_valkey) {
  State st;
  std::string err;
  CHECK(Parse(kN1Conf, &st, &err));
  CHECK_EQ(err, std::string());
  CHECK_EQ(st.nodes.size(), 7u);
  CHECK(st.myself == st.Find(N1));
  CHECK_EQ(st.current_epoch, 7u);
  CHECK_EQ(st.last_vote_epoch, 0u);
  const char* order[] = {N1, N2, N5, N6, N4, N7, N3};
  for (int i = 0; i < 7; i++) CHECK_EQ(st.nodes[i]->name, std::string(order[i]));
  Node *n1 = st.Find(N1), *n2 = st.Find(N2), *n3 = st.Find(N3), *n5 = st.Find(N5),
       *n6 = st.Find(N6);
  // MIGRATE_TO (internal, never printed): a primary with replicas attracts migrating replicas.
  CHECK_EQ(n1->flags, kMyself | kMaster | cluster::kNodeMigrateTo);
  CHECK_EQ(n1->hostname, std::string("vk1.example"));
  CHECK_EQ(n1->human_nodename, std::string("vk-one"));
  CHECK_EQ(n1->shard_id, std::string(S1));
  CHECK_EQ(n1->ip, std::string("127.0.0.1"));
  CHECK_EQ(n1->tcp_port, 26101);
  CHECK_EQ(n1->tls_port, 0);
  CHECK_EQ(n1->cport, 26151);
  CHECK_EQ(n1->config_epoch, 7u);
  CHECK_EQ(n1->num_slots, 5463);
  CHECK(st.slot_owner[5461] == n1 && st.slot_owner[7000] == n1 && st.slot_owner[5462] == n2);
  CHECK(st.migrating_to[100] == n2 && st.importing_from[6000] == n2);
  CHECK(st.importing_from[100] == nullptr && st.migrating_to[6000] == nullptr);
  CHECK_EQ(n2->client_ipv4, std::string("10.9.8.7"));
  CHECK_EQ(n2->client_ipv6, std::string("fe80::1"));
  CHECK_EQ(n2->hostname, std::string());
  CHECK_EQ(n2->num_slots, 10922 - 5462 + 1 - 1);
  CHECK_EQ(n2->pong_received_ms, kNow);
  CHECK_EQ(n2->ping_sent_ms, 0);
  CHECK(n2->link == nullptr);
  // A replica: linked both ways, its own epoch loads as 0 (it shows its primary's).
  CHECK(n6->primary == n1 && n6->IsReplica() && !n6->IsPrimary());
  CHECK(n1->replicas.size() == 1 && n1->replicas[0] == n6);
  CHECK_EQ(n6->config_epoch, 0u);
  CHECK_EQ(n5->flags, kSlave | kFail);
  CHECK_EQ(n5->fail_time_ms, kNow);
  CHECK_EQ(n5->ping_sent_ms, kNow);
  CHECK(n5->primary == n3);
  CHECK_EQ(n5->shard_id, std::string(S3));
  CHECK_EQ(n3->num_slots, 16384 - 10923);
  CHECK_EQ(st.Find(N7)->num_slots, 0);
  CHECK_EQ(st.Find(N7)->ctime_ms, kNow);
  // Written back: the same file as loaded at kNow.
  CHECK_EQ(FormatNodesConf(st), AsLoaded(kN1Conf, kNow));

  State st6;
  CHECK(Parse(kN6Conf, &st6, &err));
  CHECK(st6.myself == st6.Find(N6));
  CHECK_EQ(st6.myself->flags, kMyself | kSlave);
  CHECK(st6.migrating_to[100] == st6.Find(N2) && st6.importing_from[6000] == st6.Find(N2));
  CHECK_EQ(FormatNodesConf(st6), AsLoaded(kN6Conf, kNow));
}

TEST_CASE(nodes_conf_golden_parse_redis70) {
  State st;
  std::string err;
  CHECK(Parse(kR1Conf, &st, &err));
  Node* me = st.Find("d4632eea7be4c7dcb14241c1d7697dd1bf93153b");
  Node* replica = st.Find("69292fa5eb5a3495ff4ac9210361e43e90b9dcd5");
  Node* target = st.Find("02f8eaf949adf4b2fe97384bed40a04c49ff4582");
  CHECK(st.myself == me);
  CHECK_EQ(me->hostname, std::string("rd1.example"));
  CHECK_EQ(me->tcp_port, 26121);  // no port aux field, plaintext bus: the TCP port
  CHECK_EQ(me->tls_port, 0);
  CHECK_EQ(me->cport, 26171);
  CHECK_EQ(me->pong_received_ms, kNow);
  CHECK(st.migrating_to[10] == target);
  CHECK(replica->primary == me);
  // No shard IDs in the file: each primary has its own random one; the replica takes its
  // primary's.
  CHECK_EQ(me->shard_id.size(), 40u);
  CHECK_EQ(replica->shard_id, me->shard_id);
  CHECK(target->shard_id != me->shard_id);
  // Written back in Valkey's form.
  std::string out = FormatNodesConf(st);
  CHECK(out.find("d4632eea7be4c7dcb14241c1d7697dd1bf93153b 127.0.0.1:26121@26171,rd1.example,"
                 "tls-port=0,shard-id=" +
                 me->shard_id + " myself,master - 0 " + std::to_string(kNow) +
                 " 1 connected 0-5460 [10->-02f8eaf949adf4b2fe97384bed40a04c49ff4582]\n") !=
        std::string::npos);
  // With a TLS bus, the main port of an aux-less file is the TLS port (and @cport is kept).
  State tls;
  CHECK(Parse(kR1Conf, &tls, &err, true));
  me = tls.Find("d4632eea7be4c7dcb14241c1d7697dd1bf93153b");
  CHECK_EQ(me->tls_port, 26121);
  CHECK_EQ(me->tcp_port, 0);
  CHECK_EQ(me->cport, 26171);

  // The replica's own file: its line comes first and names a primary defined later.
  State r4;
  CHECK(Parse(kR4Conf, &r4, &err));
  me = r4.myself;
  CHECK_EQ(me->name, std::string("69292fa5eb5a3495ff4ac9210361e43e90b9dcd5"));
  CHECK_EQ(me->flags, kMyself | kSlave);
  CHECK(me->primary == r4.Find("d4632eea7be4c7dcb14241c1d7697dd1bf93153b"));
  CHECK_EQ(me->shard_id, me->primary->shard_id);
  CHECK_EQ(me->config_epoch, 0u);
  CHECK_EQ(r4.nodes[2].get(), me);  // file order kept
  CHECK_EQ(me->primary->hostname, std::string("rd1.example"));
  CHECK_EQ(me->primary->num_slots, 5461);
}

TEST_CASE(nodes_conf_round_trip) {
  // A State with no links and times that are 0 or now survives Format -> Parse -> Format.
  for (const auto* rows : {&kN1File, &kN6File}) {
    State st;
    Build(&st, *rows);
    for (auto& n : st.nodes) {
      n->link = nullptr;
      if (n->ping_sent_ms) n->ping_sent_ms = kNow;
      if (n->pong_received_ms) n->pong_received_ms = kNow;
    }
    st.Find(N7)->tls_port = 26207;
    st.Find(N7)->human_nodename = "seven";
    st.Find(N3)->flags |= cluster::kNodeNoFailover | cluster::kNodePfail;
    st.last_vote_epoch = 6;
    std::string text = FormatNodesConf(st);
    State back;
    std::string err;
    CHECK(Parse(text, &back, &err));
    CHECK_EQ(FormatNodesConf(back), text);
    CHECK_EQ(back.Find(N7)->tls_port, 26207);
    CHECK_EQ(back.last_vote_epoch, 6u);
    // And with a TLS bus: the aux tls-port field makes the main port the TCP port anyway.
    State back_tls;
    CHECK(Parse(text, &back_tls, &err, true));
    CHECK_EQ(FormatNodesConf(back_tls), text);
  }
}

// ---- Errors: every one names its line ----

namespace {
constexpr const char* kA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
constexpr const char* kB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
// A valid myself line and a second node, to build cases from.
const std::string kMe = std::string(kA) +
                        " 127.0.0.1:7000@17000,,tls-port=0 myself,master - 0 0 1 " +
                        "connected 0-10\n";
std::string B(const std::string& addr, const std::string& rest) {
  return std::string(kB) + " " + addr + " " + rest + "\n";
}
const std::string kBAddr = "127.0.0.1:7001@17001";
}  // namespace

TEST_CASE(nodes_conf_parse_errors) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::string id39(39, 'a');
  const Case cases[] = {
      {"", "line 1: end of file and no myself node"},
      {"garbage\n", "line 1: expected at least 8 fields, got 1"},
      {kMe + "a b c d e f g\n", "line 2: expected at least 8 fields, got 7"},
      {kMe + "\n\n" + B("a\"b c", "x"), "line 4: unbalanced quotes"},
      {kMe + B("\"127.0.0.1:7001\"x", "master - 0 0 0 connected"), "line 2: unbalanced quotes"},
      {kMe + "'abc\n", "line 2: unbalanced quotes"},
      {kMe + std::string("vars currentEpoch 1\0\n", 21), "line 2: NUL byte"},
      {kMe + "vars currentEpoch\n", "line 2: vars needs name value pairs"},
      {"vars currentEpoch x\n" + kMe, "line 1: invalid currentEpoch 'x'"},
      {kMe + "VARS lastVoteEpoch -1\n", "line 2: invalid lastVoteEpoch '-1'"},
      {id39 + " 1.2.3.4:1@2 master - 0 0 0 connected\n", "line 1: invalid node ID '" + id39 + "'"},
      {std::string(40, 'A') + " 1.2.3.4:1@2 master - 0 0 0 connected\n",
       "line 1: invalid node ID '" + std::string(40, 'A') + "'"},
      {kMe + kMe, "line 2: node " + std::string(kA) + " defined twice"},
      {kMe + B(kBAddr, "master,bogus - 0 0 0 connected"), "line 2: unknown flag 'bogus'"},
      {kMe + B(kBAddr, "master, - 0 0 0 connected"), "line 2: unknown flag ''"},
      {kMe + B(kBAddr, "myself - 0 0 0 connected"), "line 2: a second myself node"},
      {std::string(kA) + " 1.2.3.4:1@2 myself,handshake - 0 0 0 connected\n",
       "line 1: myself cannot be in handshake"},
      {kMe + B(kBAddr, "slave xyz 0 0 0 connected"), "line 2: invalid primary ID 'xyz'"},
      {kMe + B(kBAddr, "slave -x 0 0 0 connected"), "line 2: invalid primary ID '-x'"},
      {kMe + B(kBAddr, "slave " + std::string(kB) + " 0 0 0 connected"),
       "line 2: node is its own primary"},
      {kMe + B("127.0.0.1", "master - 0 0 0 connected"), "line 2: address '127.0.0.1' has no port"},
      {kMe + B("\"\"", "master - 0 0 0 connected"), "line 2: address '' has no port"},
      {kMe + B("127.0.0.1:70000@1", "master - 0 0 0 connected"), "line 2: invalid port '70000'"},
      {kMe + B("127.0.0.1:@1", "master - 0 0 0 connected"), "line 2: invalid port ''"},
      {kMe + B("127.0.0.1:7001@x", "master - 0 0 0 connected"),
       "line 2: invalid cluster bus port 'x'"},
      {kMe + B("127.0.0.1:7001@", "master - 0 0 0 connected"),
       "line 2: invalid cluster bus port ''"},
      {kMe + B("127.0.0.1:60000", "master - 0 0 0 connected"),
       "line 2: no @cport and port + 10000 is above 65535"},
      {kMe + B(std::string(46, '1') + ":1@2", "master - 0 0 0 connected"),
       "line 2: invalid IP '" + std::string(46, '1') + "'"},
      {kMe + B("\"127.0.0.1:7001@17001,a\\tb\"", "master - 0 0 0 connected"),
       "line 2: invalid hostname 'a\\x09b'"},
      {kMe + B(kBAddr + ",,foo", "master - 0 0 0 connected"), "line 2: invalid aux field 'foo'"},
      {kMe + B(kBAddr + ",,a=b=c", "master - 0 0 0 connected"),
       "line 2: invalid aux field 'a=b=c'"},
      {kMe + B(kBAddr + ",,nodename=a$b", "master - 0 0 0 connected"),
       "line 2: invalid aux field 'nodename=a$b'"},
      {kMe + B(kBAddr + ",,color=red", "master - 0 0 0 connected"),
       "line 2: unknown aux field 'color'"},
      {kMe + B(kBAddr + ",,=red", "master - 0 0 0 connected"), "line 2: unknown aux field ''"},
      {kMe + B(kBAddr + ",,shard-id=xyz", "master - 0 0 0 connected"),
       "line 2: invalid value for aux field 'shard-id=xyz'"},
      {kMe + B(kBAddr + ",,tls-port=99999", "master - 0 0 0 connected"),
       "line 2: invalid value for aux field 'tls-port=99999'"},
      {kMe + B(kBAddr + ",,tcp-port=", "master - 0 0 0 connected"),
       "line 2: invalid value for aux field 'tcp-port='"},
      {kMe + B(kBAddr + ",,client-ipv4=300.1.1.1", "master - 0 0 0 connected"),
       "line 2: invalid value for aux field 'client-ipv4=300.1.1.1'"},
      {kMe + B(kBAddr + ",,client-ipv6=10.0.0.1", "master - 0 0 0 connected"),
       "line 2: invalid value for aux field 'client-ipv6=10.0.0.1'"},
      {kMe + B(kBAddr, "master - x 0 0 connected"), "line 2: invalid ping time 'x'"},
      {kMe + B(kBAddr, "master - 0 1.5 0 connected"), "line 2: invalid pong time '1.5'"},
      {kMe + B(kBAddr, "master - 0 0 -1 connected"), "line 2: invalid config epoch '-1'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 16384"), "line 2: invalid slot '16384'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 20-x"), "line 2: invalid slot '20-x'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected -5"), "line 2: invalid slot '-5'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 20-"), "line 2: invalid slot '20-'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 1-2-3"), "line 2: invalid slot '1-2-3'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 30-20"), "line 2: invalid slot range '30-20'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected 11 5"),
       "line 2: slot 5 already belongs to " + std::string(kA)},
      {kMe + B(kBAddr, "master - 0 0 0 connected [5->-short]"),
       "line 2: invalid open slot '[5->-short]'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected [5-x-" + std::string(kA) + "]"),
       "line 2: invalid open slot '[5-x-" + std::string(kA) + "]'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected [16384->-" + std::string(kA) + "]"),
       "line 2: invalid open slot '[16384->-" + std::string(kA) + "]'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected [5->-" + std::string(kA) + "x"),
       "line 2: invalid open slot '[5->-" + std::string(kA) + "x'"},
      {kMe + B(kBAddr, "master - 0 0 0 connected [5->-" + std::string(kA) + "]]"),
       "line 2: invalid open slot '[5->-" + std::string(kA) + "]]'"},
      {B(kBAddr, "master - 0 0 0 connected") + "\nvars currentEpoch 1\n",
       "line 3: end of file and no myself node"},
      {std::string(kA) + " 1.2.3.4:1@2 myself,slave " + kB + " 0 0 0 connected\n" +
           B(kBAddr, "slave " + std::string(kA) + " 0 0 0 connected"),
       "line 1: primary loop through node " + std::string(kA)},
      {std::string(kA) + " 1.2.3.4:1@2,,shard-id=" + std::string(40, '1') +
           " myself,master - 0 0 0 connected\n" +
           B(kBAddr + ",,shard-id=" + std::string(40, '2'),
             "slave " + std::string(kA) + " 0 0 0 connected"),
       "line 2: shard-id differs from the shard-id of its primary " + std::string(kA)},
  };
  for (const Case& c : cases) {
    State st;
    st.current_epoch = 99;  // untouched on error
    std::string err;
    bool ok = ParseNodesConf(c.text, &st, kNow, false, &err);
    if (ok || err != c.want || st.current_epoch != 99 || !st.nodes.empty()) {
      fprintf(stderr, "  input %s\n    got  %s (%s)\n    want %s\n", c.text.c_str(), err.c_str(),
              ok ? "accepted" : "rejected", c.want.c_str());
      check::failures++;
    }
  }
}

// ---- Accepted variants ----

TEST_CASE(nodes_conf_parse_variants) {
  std::string err;
  {
    // Flag words in any case and their new names, quotes, CRLF, blank lines, vars anywhere with
    // unknown names skipped, no @cport, tcp-port aux field (the main port is then the TLS port).
    std::string text = "\r\n   \n\tvars currentEpoch 3 foo bar\r\n" + std::string(kA) +
                       " \"127.0.0.1:7000,,tcp-port=6000\" MySelf,Primary - 0 0 5 connected "
                       "0-9 12\r\n" +
                       "'" + kB + "' ::1:7001@17001 REPLICA,Fail?,nofailover " + kA +
                       " 1 1 9 disconnected\n\nvars lastVoteEpoch 2";
    State st;
    bool ok = ParseNodesConf(text, &st, kNow, false, &err);
    if (!ok) fprintf(stderr, "  %s\n", err.c_str());
    CHECK(ok);
    Node *a = st.Find(kA), *b = st.Find(kB);
    CHECK_EQ(a->tcp_port, 6000);
    CHECK_EQ(a->tls_port, 7000);
    CHECK_EQ(a->cport, 16000);  // no @cport: the port of the bus's kind + 10000
    CHECK_EQ(a->num_slots, 11);
    CHECK_EQ(st.current_epoch, 5u);  // raised to the largest configEpoch
    CHECK_EQ(st.last_vote_epoch, 2u);
    CHECK_EQ(b->ip, std::string("::1"));
    CHECK_EQ(b->flags, kSlave | cluster::kNodePfail | cluster::kNodeNoFailover);
    CHECK_EQ(b->ping_sent_ms, kNow);
    CHECK_EQ(b->config_epoch, 0u);
    CHECK_EQ(b->shard_id, a->shard_id);
  }
  {
    // An unknown primary and an unknown open-slot target become placeholder nodes (no flags,
    // no address) after the defined ones; a replica chain takes the shard ID found up the chain.
    std::string c(40, 'c'), d(40, 'd'), e(40, 'e');
    std::string text = kMe + c + " 1.1.1.1:1@2 slave " + d + " 0 0 0 connected\n" +
                       std::string(kB) + " 1.1.1.1:3@4,,shard-id=" + std::string(40, '7') +
                       " master - 0 0 4 " + "connected [200-<-" + e + "]\n" + d +
                       " 1.1.1.1:5@6 slave " + kB + " 0 0 0 connected\n";
    State st;
    CHECK(ParseNodesConf(text, &st, kNow, false, &err));
    CHECK_EQ(st.nodes.size(), 5u);
    CHECK_EQ(st.nodes[4]->name, e);
    CHECK_EQ(st.nodes[4]->flags, 0);
    CHECK(st.importing_from[200] == st.nodes[4].get());
    CHECK_EQ(st.Find(c)->shard_id, std::string(40, '7'));
    CHECK_EQ(st.Find(d)->shard_id, std::string(40, '7'));
    CHECK_EQ(st.current_epoch, 4u);
    // Written back, the placeholder has a line of its own and the file is stable from then on.
    std::string once = FormatNodesConf(st);
    CHECK(once.find(e + " :0@0,,tls-port=0,shard-id=") != std::string::npos);
    State again;
    CHECK(ParseNodesConf(once, &again, kNow, false, &err));
    CHECK_EQ(FormatNodesConf(again), once);
  }
  {
    // A failed parse leaves the target untouched.
    State st;
    CHECK(ParseNodesConf(kMe, &st, kNow, false, &err));
    Node* before = st.myself;
    CHECK(!ParseNodesConf(kMe + "junk\n", &st, kNow, false, &err));
    CHECK(st.myself == before && st.nodes.size() == 1);
  }
}

// ---- Fuzz: random and mutated files never crash; errors name a line; a loaded file is stable
// after one more write/read ----

namespace {

int LineCount(const std::string& text) {
  int lines = 0;
  for (size_t pos = 0; pos < text.size(); lines++) {
    size_t eol = text.find('\n', pos);
    pos = eol == std::string::npos ? text.size() : eol + 1;
  }
  return lines;
}

// Returns false (and reports) if an invariant is broken.
bool FuzzOne(const std::string& text, int* accepted) {
  State st;
  std::string err;
  if (!ParseNodesConf(text, &st, kNow, false, &err)) {
    int line = 0;
    if (sscanf(err.c_str(), "line %d: ", &line) != 1 || line < 1 ||
        line > std::max(1, LineCount(text))) {
      fprintf(stderr, "  bad error \"%s\" for input of %d lines\n", err.c_str(), LineCount(text));
      return false;
    }
    return true;
  }
  (*accepted)++;
  std::string t1 = FormatNodesConf(st);
  State s2, s3;
  if (!ParseNodesConf(t1, &s2, kNow, false, &err)) {
    fprintf(stderr, "  own output rejected: %s\n%s\n--- from ---\n%s\n", err.c_str(), t1.c_str(),
            text.c_str());
    return false;
  }
  std::string t2 = FormatNodesConf(s2);
  if (!ParseNodesConf(t2, &s3, kNow, false, &err) || FormatNodesConf(s3) != t2) {
    fprintf(stderr, "  not stable:\n%s\n--- then ---\n%s\n", t2.c_str(),
            FormatNodesConf(s3).c_str());
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE(nodes_conf_fuzz) {
  std::mt19937_64 rng(20240601);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::vector<std::string> seeds = {kN1Conf, kN6Conf, kR1Conf, kR4Conf};
  // Bytes that matter to the grammar.
  const std::string special = " \t\r\n,:@-[]<>='\"\\x0019afmsz?!";
  int accepted = 0, runs = 0;
  for (int i = 0; i < 3000; i++) {
    std::string text;
    size_t len = pick(300);
    for (size_t k = 0; k < len; k++)
      text.push_back(pick(2) ? special[pick(special.size())] : static_cast<char>(rng()));
    runs++;
    if (!FuzzOne(text, &accepted)) return (void)check::failures++;
  }
  for (int i = 0; i < 6000; i++) {
    std::string text = seeds[pick(seeds.size())];
    int edits = 1 + static_cast<int>(pick(4));
    for (int e = 0; e < edits && !text.empty(); e++) {
      size_t at = pick(text.size());
      switch (pick(6)) {
        case 0:  // replace a byte
          text[at] = pick(2) ? special[pick(special.size())] : static_cast<char>(rng());
          break;
        case 1:  // delete a run
          text.erase(at, 1 + pick(12));
          break;
        case 2:  // insert grammar bytes
          text.insert(at, 1 + pick(3), special[pick(special.size())]);
          break;
        case 3: {  // duplicate a line
          size_t s = text.rfind('\n', at);
          s = s == std::string::npos ? 0 : s + 1;
          size_t eol = text.find('\n', at);
          if (eol != std::string::npos) text.insert(s, text.substr(s, eol + 1 - s));
          break;
        }
        case 4:  // truncate
          text.resize(at);
          break;
        case 5: {  // swap two tokens of a line
          size_t a = text.find(' ', at), b = a == std::string::npos ? a : text.find(' ', a + 1);
          size_t c = b == std::string::npos ? b : text.find(' ', b + 1);
          if (c != std::string::npos) {
            std::string t1 = text.substr(a + 1, b - a - 1), t2 = text.substr(b + 1, c - b - 1);
            text.replace(a + 1, c - a - 1, t2 + " " + t1);
          }
          break;
        }
      }
    }
    runs++;
    if (!FuzzOne(text, &accepted)) return (void)check::failures++;
  }
  // The mutations must also produce loadable files, or the stability check proves nothing.
  CHECK(accepted > 200);
  CHECK_EQ(runs, 9000);
}

// ---- File side ----

namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/nodes-conf-test-XXXXXX";
  char* d = mkdtemp(tmpl);
  return d ? d : "";
}

std::vector<std::string> DirEntries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

std::string ReadAll(const std::string& path) {
  std::string out;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  fclose(f);
  return out;
}

}  // namespace

TEST_CASE(nodes_conf_save_atomic) {
  std::string dir = TempDir();
  CHECK(!dir.empty());
  std::string path = dir + "/nodes.conf", err;
  CHECK(cluster::SaveNodesConfAtomic(path, "first\n", true, &err));
  CHECK_EQ(ReadAll(path), std::string("first\n"));
  // A shorter file replaces a longer one whole; no temp file is left behind.
  CHECK(cluster::SaveNodesConfAtomic(path, std::string(kN1Conf), false, &err));
  CHECK(cluster::SaveNodesConfAtomic(path, "x\n", true, &err));
  CHECK_EQ(ReadAll(path), std::string("x\n"));
  CHECK(DirEntries(dir) == std::vector<std::string>{"nodes.conf"});
  // A missing directory: an error naming the temp file, nothing written.
  CHECK(!cluster::SaveNodesConfAtomic(dir + "/no/such/nodes.conf", "y\n", true, &err));
  CHECK(err.find(dir + "/no/such/nodes.conf.tmp-" + std::to_string(getpid()) + "-") !=
        std::string::npos);
  CHECK(err.find("No such file or directory") != std::string::npos);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST_CASE(nodes_conf_lock) {
  std::string dir = TempDir();
  CHECK(!dir.empty());
  std::string path = dir + "/nodes.conf", err;
  int fd = cluster::LockNodesConf(path, &err);
  CHECK(fd >= 0);
  struct stat sb;
  CHECK(stat(path.c_str(), &sb) == 0 && sb.st_size == 0);  // created empty
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  // A second open file description (as another process would have) cannot take it.
  int fd2 = cluster::LockNodesConf(path, &err);
  CHECK_EQ(fd2, -1);
  CHECK(err.find("is already used by a different cluster node") != std::string::npos);
  // Saving renames a new inode over the path: without the lock descriptor the lock stays on the
  // old inode and a second holder gets the new file (the server's gap)...
  CHECK(cluster::SaveNodesConfAtomic(path, "one\n", false, &err));
  fd2 = cluster::LockNodesConf(path, &err);
  CHECK(fd2 >= 0);
  close(fd2);
  close(fd);
  // ...with it, the same descriptor number holds the new file, locked, still close-on-exec.
  fd = cluster::LockNodesConf(path, &err);
  CHECK(fd >= 0);
  CHECK(cluster::SaveNodesConfAtomic(path, "two\n", true, &err, fd));
  CHECK_EQ(cluster::LockNodesConf(path, &err), -1);
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  struct stat by_fd, by_path;
  CHECK(fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_path) == 0);
  CHECK(by_fd.st_ino == by_path.st_ino);
  CHECK_EQ(ReadAll(path), std::string("two\n"));
  CHECK(DirEntries(dir) == std::vector<std::string>{"nodes.conf"});
  // Released on close.
  close(fd);
  fd2 = cluster::LockNodesConf(path, &err);
  CHECK(fd2 >= 0);
  close(fd2);
  CHECK_EQ(cluster::LockNodesConf(dir + "/no/such/nodes.conf", &err), -1);
  CHECK(err.find("can't open") != std::string::npos);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

namespace {
std::vector<std::string> SortedEntries(const std::string& dir) {
  std::vector<std::string> v = DirEntries(dir);
  std::sort(v.begin(), v.end());
  return v;
}
}  // namespace

std::vector<int> g_closed_later;
void CloseLater(int fd) { g_closed_later.push_back(fd); }
// The helper thread's calls, run when the test says so.
std::vector<std::pair<void (*)(void*), void*>> g_calls;
void CallLater(void (*fn)(void*), void* arg) { g_calls.emplace_back(fn, arg); }
void RunCalls() {
  auto calls = std::move(g_calls);
  g_calls.clear();
  for (auto& c : calls) c.first(c.second);
}

using Sync = cluster::NodesConfFile::Sync;

// A temporary directory for nodes.conf with the fake helper thread's queues emptied; the
// file, its spare and the directory go with it.
struct ConfDir {
  std::string dir = TempDir();
  std::string path = dir + "/nodes.conf";
  std::string err;
  // Opens f on path with the fake helper thread, and lets it make the first spare.
  bool OpenWithHelper(cluster::NodesConfFile* f) {
    if (dir.empty() || !f->Open(path, &err, {CloseLater, CallLater})) return false;
    RunCalls();
    return true;
  }
  ConfDir() {
    g_calls.clear();
    g_closed_later.clear();
  }
  ~ConfDir() {
    unlink(path.c_str());
    unlink((path + ".spare").c_str());
    rmdir(dir.c_str());
  }
};

size_t OpenFds() {
  size_t n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

TEST_CASE(nodes_conf_file_syncs_later_on_the_helper_thread_once_per_burst) {
  ConfDir d;
  const std::string& path = d.path;
  std::string& err = d.err;
  {
    cluster::NodesConfFile f;
    CHECK(d.OpenWithHelper(&f));
    size_t fds = OpenFds();
    // A later sync is a job for the helper, holding its own descriptor of the new inode.
    CHECK(f.Save("one\n", Sync::kLater, &err));
    CHECK_EQ(g_calls.size(), 2u);  // the sync and the next spare
    CHECK_EQ(f.LastSave(), 1u);
    CHECK(!f.Durable(1));  // not before the helper's fsync
    CHECK_EQ(OpenFds(), fds + 1);
    struct stat first;
    CHECK(stat(path.c_str(), &first) == 0);
    // Saved again before the helper ran: no second job; the first one syncs the newest inode,
    // and the descriptor it held of the older one is handed over for closing.
    CHECK(f.Save("two\n", Sync::kLater, &err));
    CHECK_EQ(g_calls.size(), 2u);
    CHECK(!f.Durable(1) && !f.Durable(2));
    CHECK_EQ(g_closed_later.size(), 3u);  // two replaced inodes, one superseded sync descriptor
    struct stat st;
    CHECK(fstat(g_closed_later[2], &st) == 0);
    CHECK(st.st_ino == first.st_ino);
    for (int fd : g_closed_later) close(fd);
    g_closed_later.clear();
    CHECK_EQ(OpenFds(), fds);  // the sync's descriptor open, the spare not made yet
    auto sync = g_calls[0];    // queued before the spare
    g_calls.erase(g_calls.begin());
    sync.first(sync.second);
    CHECK(f.Durable(2) && !f.Durable(3));  // one job made both saves durable
    CHECK_EQ(OpenFds(), fds - 1);  // the sync's descriptor closed
    RunCalls();
    CHECK_EQ(OpenFds(), fds);
    CHECK_EQ(f.TakeSyncError(), 0);
    CHECK_EQ(ReadAll(path), std::string("two\n"));
    // Saves that ask for no sync, or a sync now, leave no job behind.
    CHECK(f.Save("three\n", Sync::kNo, &err));
    CHECK(!f.Durable(3));
    CHECK(f.Save("four\n", Sync::kNow, &err));
    CHECK(f.Durable(4));  // and the unsynced third with it
    CHECK_EQ(g_calls.size(), 1u);  // the spare only
    RunCalls();
    for (int fd : g_closed_later) close(fd);
    g_closed_later.clear();
  }
  {
    // Without a helper thread, a later sync is made at once.
    cluster::NodesConfFile f;
    CHECK(f.Open(path, &err));
    size_t fds = OpenFds();
    CHECK(f.Save("five\n", Sync::kLater, &err));
    CHECK(f.Durable(f.LastSave()));
    CHECK_EQ(OpenFds(), fds);
    CHECK(g_calls.empty());
    CHECK_EQ(ReadAll(path), std::string("five\n"));
  }
}

TEST_CASE(plan_save_waits_only_for_what_was_learned_from_others) {
  struct Case {
    bool fsync, save, learned;
    int64_t now, last;
    bool save_now;
    Sync sync;
    int64_t wait;
  } cases[] = {
      {false, false, false, 1000, 990, false, Sync::kNo, -1},   // nothing to save
      {false, true, false, 1000, 990, true, Sync::kNo, -1},     // own change: at once
      {true, false, false, 1000, 990, true, Sync::kNow, -1},    // a promise: at once, fsynced
      {true, true, true, 1000, 990, true, Sync::kNow, -1},      // fsync covers the learned
      {false, false, true, 1000, 0, true, Sync::kLater, -1},    // learned after a quiet time
      {false, false, true, 1000, 900, true, Sync::kLater, -1},  // the delay is over
      {false, false, true, 1000, 990, false, Sync::kNo, 90},    // within it: wait
      {false, false, true, 1000, 1000, false, Sync::kNo, 100},  // just saved
      {false, true, true, 1000, 990, true, Sync::kLater, -1},   // rides along with a save
  };
  for (const Case& k : cases) {
    cluster::SavePlan p = cluster::PlanSave(k.fsync, k.save, k.learned, k.now, k.last, 100);
    CHECK_EQ(p.save_now, k.save_now);
    CHECK(p.sync == k.sync);
    CHECK_EQ(p.wait_ms, k.wait);
  }
}

TEST_CASE(nodes_conf_file_saves_new_inodes_and_hands_old_ones_over) {
  std::string dir = TempDir();
  CHECK(!dir.empty());
  std::string path = dir + "/nodes.conf", err;
  // Left beside it by earlier versions (which swapped two inodes): removed at Open.
  for (const char* leftover : {".prev", ".next"}) {
    FILE* f = fopen((path + leftover).c_str(), "w");
    CHECK(f != nullptr);
    fclose(f);
  }
  {
    cluster::NodesConfFile f;
    CHECK(f.Open(path, &err, {CloseLater, CallLater}));
    // The next save's file is made by the helper: not yet.
    CHECK_EQ(g_calls.size(), 1u);
    CHECK(SortedEntries(dir) == (std::vector<std::string>{"nodes.conf"}));
    // Locked against a second process from the start and after every save.
    CHECK_EQ(cluster::LockNodesConf(path, &err), -1);
    std::set<ino_t> inodes;
    for (int i = 0; i < 6; i++) {
      struct stat before;
      CHECK(stat(path.c_str(), &before) == 0);
      std::string content = "version " + std::to_string(i) + std::string(i % 2 ? 300 : 3, 'x') + "\n";
      // Saves 2 and 5 come before the helper made the spare: they make their own file.
      bool spare_ready = i != 2 && i != 5;
      if (spare_ready) {
        RunCalls();
        CHECK(SortedEntries(dir) == (std::vector<std::string>{"nodes.conf", "nodes.conf.spare"}));
      }
      CHECK(f.Save(content, i == 3 ? Sync::kNow : Sync::kNo, &err));
      // Used or not, the spare is the helper's to make again (once: one is still pending).
      CHECK_EQ(g_calls.size(), 1u);
      CHECK(SortedEntries(dir) == (std::vector<std::string>{"nodes.conf"}));
      CHECK_EQ(ReadAll(path), content);
      CHECK_EQ(cluster::LockNodesConf(path, &err), -1);
      struct stat by_fd, by_path;
      CHECK(fstat(f.lock_fd(), &by_fd) == 0 && stat(path.c_str(), &by_path) == 0);
      CHECK(by_fd.st_ino == by_path.st_ino);
      CHECK(fcntl(f.lock_fd(), F_GETFD) & FD_CLOEXEC);
      inodes.insert(by_path.st_ino);
      // The replaced inode is handed over, still open (unnamed), for closing elsewhere.
      CHECK_EQ(g_closed_later.size(), static_cast<size_t>(i + 1));
      struct stat old;
      CHECK(fstat(g_closed_later.back(), &old) == 0);
      CHECK(old.st_ino == before.st_ino);
      CHECK_EQ(old.st_nlink, 0u);
    }
    // Every save wrote a fresh inode (never one rewritten in place), and nothing else is left.
    // (The replaced ones are still open here, so their numbers cannot have been reused.)
    CHECK_EQ(inodes.size(), 6u);
    for (int old_fd : g_closed_later) close(old_fd);
    // A spare made and never used stays for the next start, which empties and reuses it.
    RunCalls();
  }
  {
    std::string spare = ReadAll(path + ".spare");
    CHECK_EQ(spare, std::string());
    FILE* junk = fopen((path + ".spare").c_str(), "w");  // as a crash mid-save may leave it
    CHECK(junk != nullptr);
    fputs("half a nodes.conf", junk);
    fclose(junk);
    cluster::NodesConfFile f;
    CHECK(f.Open(path, &err, {nullptr, [](void (*fn)(void*), void* arg) { fn(arg); }}));
    CHECK_EQ(ReadAll(path + ".spare"), std::string());
    CHECK(f.Save("after restart\n", Sync::kNow, &err));
    CHECK_EQ(ReadAll(path), std::string("after restart\n"));
    CHECK(SortedEntries(dir) == (std::vector<std::string>{"nodes.conf", "nodes.conf.spare"}));
  }
  // Released when the file object goes (the process exits).
  int fd = cluster::LockNodesConf(path, &err);
  CHECK(fd >= 0);
  close(fd);
  unlink(path.c_str());
  unlink((path + ".spare").c_str());
  rmdir(dir.c_str());
}

TEST_CASE(nodes_conf_file_closes_every_descriptor_of_it_in_a_forked_child) {
  // A snapshot child must hold no descriptor of nodes.conf: not the locked one, and not those
  // that helper-thread jobs held at the fork (a dup of the locked file for a background
  // fsync, replaced inodes waiting to be freed), which nothing in the child would close.
  ConfDir d;
  const std::string& path = d.path;
  std::string& err = d.err;
  {
    cluster::NodesConfFile f;
    CHECK(d.OpenWithHelper(&f));
    CHECK(f.Save("one\n", Sync::kNo, &err));
    CHECK(f.Save("two\n", Sync::kNo, &err));
    CHECK_EQ(g_closed_later.size(), 2u);     // replaced inodes, not freed yet
    int in_flight_sync = dup(f.lock_fd());  // as SyncNewest holds it while it fsyncs
    CHECK(in_flight_sync >= 0);
    int other[2];
    CHECK(pipe(other) == 0);
    pid_t child = fork();
    if (child == 0) {
      f.CloseInChild();
      char real[4096];
      if (!realpath(path.c_str(), real)) _exit(2);
      DIR* d = opendir("/proc/self/fd");
      int bad = 0;
      while (dirent* e = readdir(d)) {
        char target[4096];
        ssize_t n = readlink(("/proc/self/fd/" + std::string(e->d_name)).c_str(), target,
                             sizeof(target) - 1);
        if (n > 0 && std::string(target, static_cast<size_t>(n)).rfind(real, 0) == 0) bad++;
      }
      closedir(d);
      // Descriptors of other files stay open.
      _exit(bad ? 3 : fcntl(other[0], F_GETFD) == -1 ? 4 : 0);
    }
    CHECK(child > 0);
    int status = 0;
    CHECK_EQ(waitpid(child, &status, 0), child);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    // The node's own descriptors are untouched: still locked against a second process.
    CHECK_EQ(cluster::LockNodesConf(path, &err), -1);
    close(other[0]);
    close(other[1]);
    close(in_flight_sync);
    for (int fd : g_closed_later) close(fd);
    g_closed_later.clear();
    RunCalls();
  }
}
