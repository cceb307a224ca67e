// The cluster bus and failover run in one process over a state built by the test: packets are
// fed to a link as bytes (Bus::ProcessInput), and what the node answers is read back from the
// link's output queue. Each case is one rule of Valkey 8's clusterProcessPacket that a
// multi-process test can only reach by chance, or only with a Valkey 8 peer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "base/time.h"
#include "check.h"
#include "cluster/bus.h"
#include "cluster/failover.h"
#include "net/event_loop.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kP(40, 'b'), kR(40, 'c'), kQ(40, 'd'), kV(40, 'e');

// A connected TCP pair on the loopback: the link's end (the node under test) and the peer's.
struct TcpPair {
  int ours = -1, theirs = -1;
  TcpPair() {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(lfd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    listen(lfd, 1);
    socklen_t len = sizeof(sa);
    getsockname(lfd, reinterpret_cast<sockaddr*>(&sa), &len);
    theirs = socket(AF_INET, SOCK_STREAM, 0);
    connect(theirs, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    ours = accept(lfd, nullptr, nullptr);
    close(lfd);
  }
  ~TcpPair() {
    if (theirs >= 0) close(theirs);  // `ours` belongs to the link, which closes it
  }
};

// A node of three primaries (myself owning slots 0-99, P 100-199, Q 200-299) and R, a replica
// of P; V is a primary without slots. Nobody has an address the cron would connect to.
struct Cluster {
  State st;
  net::EventLoop loop{64};
  std::vector<std::string> published;
  int saves = 0;
  std::vector<int> deleted_slots;
  Bus bus;
  Failover failover;
  Node *me, *p, *q, *r, *v;

  Cluster()
      : bus(st, loop,
            BusHooks{
                .publish = [this](std::string_view ch, std::string_view msg,
                                  bool) { published.push_back(std::string(ch) + "=" +
                                                              std::string(msg)); },
                .saw_header = [this](Node* s, const Header& h) { failover.SawHeader(s, h); },
                .auth_request = [this](Node* s, const Header& h) { failover.AuthRequest(s, h); },
                .auth_ack = [this](Node* s, const Header& h) { failover.AuthAck(s, h); },
                .slot_has_keys = [](int slot) { return slot == 42; },
                .delete_keys_in_slot = [this](int slot) { deleted_slots.push_back(slot); },
            }),
        failover(st, bus, FailoverHooks{.save_or_die = [this] { saves++; }}) {
    int64_t now = base::MsTime();
    me = st.myself = st.Add(kMe, kNodePrimary | kNodeMyself, now);
    me->ip = "127.0.0.1";
    p = st.Add(kP, kNodePrimary, now);
    q = st.Add(kQ, kNodePrimary, now);
    r = st.Add(kR, kNodeReplica, now);
    v = st.Add(kV, kNodePrimary, now);
    st.SetPrimary(r, p);
    for (Node* n : {p, q, r, v}) {
      n->ip = "127.0.0.1";
      n->tcp_port = 7000 + static_cast<int>(n->index);
      n->pong_received_ms = now;
      n->flags |= kNodeExtSupported;
    }
    for (int s = 0; s < 100; s++) st.AssignSlot(s, me);
    for (int s = 100; s < 200; s++) st.AssignSlot(s, p);
    for (int s = 200; s < 300; s++) st.AssignSlot(s, q);
    me->config_epoch = 1;
    p->config_epoch = 2;
    q->config_epoch = 3;
    st.current_epoch = 3;
    st.size = 3;
  }

  // An accepted link, not yet bound to a node, and an outbound link to n (as the cron's
  // Connect makes), each over a connected pair.
  std::vector<std::unique_ptr<TcpPair>> pairs;
  Link* Inbound() {
    pairs.push_back(std::make_unique<TcpPair>());
    return bus.AddLink(pairs.back()->ours, true, nullptr);
  }
  Link* LinkTo(Node* n) {
    pairs.push_back(std::make_unique<TcpPair>());
    Link* l = bus.AddLink(pairs.back()->ours, false, n);
    n->link = l;
    return l;
  }
};

// The header of a message from `from` as it would send it.
Message From(const Node* from, uint16_t type, uint64_t current_epoch) {
  Message m;
  m.header.type = type;
  NodeNameFromString(from->name, &m.header.sender);
  m.header.current_epoch = current_epoch;
  m.header.config_epoch = from->IsReplica() ? from->primary->config_epoch : from->config_epoch;
  m.header.port = static_cast<uint16_t>(from->tcp_port);
  m.header.cport = static_cast<uint16_t>(from->cport);
  m.header.flags = from->flags & (kNodePrimary | kNodeReplica);
  m.header.myslots = from->IsReplica() ? from->primary->slots : from->slots;
  if (from->IsReplica()) NodeNameFromString(from->primary->name, &m.header.replicaof);
  IpFromString(from->ip, &m.header.myip);
  return m;
}

void Feed(Link* l, const Message& m) {
  std::vector<uint8_t> b = Encode(m);
  l->conn.in.append(reinterpret_cast<const char*>(b.data()), b.size());
}

// The messages the node queued on a link (not yet written: nothing calls FlushOutput).
std::vector<Message> Sent(const Link* l) {
  std::vector<Message> out;
  const std::string& s = l->conn.out;
  size_t pos = 0;
  while (pos < s.size()) {
    auto* p = reinterpret_cast<const uint8_t*>(s.data()) + pos;
    Frame f = FrameNext(p, s.size() - pos);
    if (f.state != FrameState::kComplete) break;
    Message m;
    Decode(p, f.length, &m);
    out.push_back(m);
    pos += f.length;
  }
  return out;
}

bool Linked(Bus& bus, const Link* l) {
  bool found = false;
  bus.ForEachLink([&](const Link& x) { found |= &x == l; });
  return found;
}

TEST_CASE(BusLightPublishLeavesTheSendersOffsetAlone) {
  // A light header has no offset, epochs or slots: a Valkey 8 replica that publishes must not
  // read as a replica at offset 0 (hidden from CLUSTER SLOTS, last in election rank).
  Cluster c;
  c.r->repl_offset = 1234;
  Link* l = c.LinkTo(c.r);
  Message m;
  m.header.type = kTypePublish;
  m.header.light = true;
  m.publish = {"news", "hello"};
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK_EQ(c.published.size(), 1u);
  CHECK_EQ(c.published[0], std::string("news=hello"));
  CHECK_EQ(c.r->repl_offset, 1234u);
  CHECK(c.r->data_received_ms > 0);
}

TEST_CASE(BusLightMessageOnAnUnboundLinkClosesIt) {
  // A light header names no sender: on a link not yet bound to a node it cannot be placed.
  Cluster c;
  Link* l = c.Inbound();
  Message m;
  m.header.type = kTypePublish;
  m.header.light = true;
  m.publish = {"news", "hello"};
  Feed(l, m);
  CHECK(!c.bus.ProcessInput(l));
  CHECK(c.published.empty());
}

TEST_CASE(BusPingAdoptsEpochsSlotsAndIsAnswered) {
  Cluster c;
  Link* l = c.Inbound();
  // P claims slots 100-199 and 300-309 (taken from nobody) at a newer epoch.
  c.p->config_epoch = 5;
  Message m = From(c.p, kTypePing, 7);
  for (int s = 300; s < 310; s++) SlotSet(&m.header.myslots, s);
  m.header.offset = 99;
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK(l->node == c.p);  // the inbound link is bound to its sender
  CHECK(c.p->inbound_link == l);
  CHECK_EQ(c.st.current_epoch, 7u);
  CHECK_EQ(c.p->repl_offset, 99u);
  CHECK(c.st.slot_owner[305] == c.p);
  CHECK_EQ(c.p->num_slots, 110);
  std::vector<Message> sent = Sent(l);
  CHECK_EQ(sent.size(), 1u);
  CHECK_EQ(sent[0].header.type, kTypePong);
  CHECK_EQ(NodeNameToString(sent[0].header.sender), kMe);
}

TEST_CASE(BusNewerClaimOfMySlotTakesItAndCleansTheDirtyOne) {
  // P claims slots 40-44 of mine at an epoch above mine: they are its; slot 42 held keys here,
  // which are deleted (a dirty slot), the others had none.
  Cluster c;
  Link* l = c.Inbound();
  c.p->config_epoch = 9;
  Message m = From(c.p, kTypePing, 9);
  for (int s = 40; s < 45; s++) SlotSet(&m.header.myslots, s);
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK(c.st.slot_owner[42] == c.p);
  CHECK(c.st.slot_owner[39] == c.me);
  CHECK_EQ(c.me->num_slots, 95);
  CHECK_EQ(c.deleted_slots.size(), 1u);
  CHECK_EQ(c.deleted_slots[0], 42);
}

TEST_CASE(BusStaleClaimGetsAnUpdateAboutTheOwner) {
  // V (no slots, epoch 0) claims slot 150, P's at epoch 2: V keeps nothing and hears of P.
  Cluster c;
  Link* in = c.Inbound();
  Link* out = c.LinkTo(c.v);
  Message m = From(c.v, kTypePing, 3);
  SlotSet(&m.header.myslots, 150);
  Feed(in, m);
  CHECK(c.bus.ProcessInput(in));
  CHECK(c.st.slot_owner[150] == c.p);
  std::vector<Message> sent = Sent(out);
  CHECK_EQ(sent.size(), 1u);
  CHECK_EQ(sent[0].header.type, kTypeUpdate);
  CHECK_EQ(NodeNameToString(sent[0].update.name), kP);
  CHECK_EQ(sent[0].update.config_epoch, 2u);
  CHECK(SlotTest(sent[0].update.slots, 150));
}

TEST_CASE(BusHandshakeThatFindsAKnownNodeFreesItsLinkMidPacket) {
  // My handshake to a new address is answered by P, already known: the handshake node and its
  // link go while the packet is processed, P takes the new address, and the rest of the
  // buffer is not read from the freed link (under ASan, any use of it fails the test).
  Cluster c;
  int64_t now = base::MsTime();
  Node* h = c.st.Add("", kNodeHandshake, now);
  std::string handshake_name = h->name;
  Link* l = c.LinkTo(h);
  Message pong = From(c.p, kTypePong, 3);
  pong.header.port = 7777;
  pong.header.cport = 17777;
  Feed(l, pong);
  Feed(l, From(c.p, kTypePing, 3));  // never processed
  size_t nodes = c.st.nodes.size();
  CHECK(!c.bus.ProcessInput(l));
  CHECK(!Linked(c.bus, l));
  CHECK(c.st.Find(handshake_name) == nullptr);
  CHECK_EQ(c.st.nodes.size(), nodes - 1);
  CHECK_EQ(c.p->tcp_port, 7777);
  CHECK_EQ(c.p->cport, 17777);
  CHECK(c.p->inbound_link == nullptr);  // the PING after it was not taken
}

TEST_CASE(BusMeetFromAnUnknownNodeStartsAHandshakeAndLearnsItsGossip) {
  Cluster c;
  Link* l = c.Inbound();
  Message m;
  m.header.type = kTypeMeet;
  NodeNameFromString(std::string(40, 'f'), &m.header.sender);
  m.header.flags = kNodePrimary;
  IpFromString("127.0.0.1", &m.header.myip);
  m.header.port = 7100;  // cport 0: the test's cron would not connect
  GossipEntry e;
  NodeNameFromString(std::string(40, '9'), &e.name);
  IpFromString("127.0.0.1", &e.ip);
  e.port = 7200;
  e.flags = kNodePrimary;
  m.ping.gossip.push_back(e);
  size_t nodes = c.st.nodes.size();
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK_EQ(c.st.nodes.size(), nodes + 2);
  CHECK(c.st.nodes[nodes]->Has(kNodeHandshake));  // a random name until it answers
  CHECK_EQ(c.st.nodes[nodes]->tcp_port, 7100);
  Node* gossiped = c.st.Find(std::string(40, '9'));
  CHECK(gossiped != nullptr);
  CHECK_EQ(gossiped->tcp_port, 7200);
  std::vector<Message> sent = Sent(l);
  CHECK_EQ(sent.size(), 1u);
  CHECK_EQ(sent[0].header.type, kTypePong);
}

TEST_CASE(BusFailFromAKnownNodeMarksTheNode) {
  Cluster c;
  Link* l = c.Inbound();
  Message m = From(c.p, kTypeFail, 3);
  NodeNameFromString(kQ, &m.fail.name);
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK(c.q->Has(kNodeFail));
  // From an unknown sender it is ignored.
  Cluster d;
  Link* l2 = d.Inbound();
  Message m2 = From(d.p, kTypeFail, 3);
  NodeNameFromString(std::string(40, '7'), &m2.header.sender);
  NodeNameFromString(kQ, &m2.fail.name);
  Feed(l2, m2);
  CHECK(d.bus.ProcessInput(l2));
  CHECK(!d.q->Has(kNodeFail));
}

TEST_CASE(BusInvalidNodeNameInGossipVoidsTheSection) {
  Cluster c;
  Link* l = c.Inbound();
  Message m = From(c.p, kTypePing, 3);
  GossipEntry good, bad;
  NodeNameFromString(std::string(40, '1'), &good.name);
  NodeNameFromString("ZZZZ" + std::string(36, '2'), &bad.name);
  IpFromString("127.0.0.1", &good.ip);
  bad.ip = good.ip;
  m.ping.gossip = {good, bad};
  size_t nodes = c.st.nodes.size();
  Feed(l, m);
  CHECK(c.bus.ProcessInput(l));
  CHECK_EQ(c.st.nodes.size(), nodes);
}

TEST_CASE(FailoverVotesOncePerEpochAfterSavingTheVote) {
  // R asks for a vote for failed P's slots at epoch 4: granted, on disk before the ACK leaves;
  // the same request again in that epoch is refused.
  Cluster c;
  c.p->flags |= kNodeFail;
  Link* in = c.Inbound();
  Link* out = c.LinkTo(c.r);
  Feed(in, From(c.r, kTypeFailoverAuthRequest, 4));
  CHECK(c.bus.ProcessInput(in));
  CHECK_EQ(c.st.last_vote_epoch, 4u);
  CHECK_EQ(c.saves, 1);
  std::vector<Message> sent = Sent(out);
  CHECK_EQ(sent.size(), 1u);
  CHECK_EQ(sent[0].header.type, kTypeFailoverAuthAck);
  Feed(in, From(c.r, kTypeFailoverAuthRequest, 4));
  CHECK(c.bus.ProcessInput(in));
  CHECK_EQ(c.saves, 1);
  CHECK_EQ(Sent(out).size(), 1u);
}

TEST_CASE(FailoverRefusesAVoteWhileThePrimaryIsUp) {
  Cluster c;
  Link* in = c.Inbound();
  Link* out = c.LinkTo(c.r);
  Feed(in, From(c.r, kTypeFailoverAuthRequest, 4));
  CHECK(c.bus.ProcessInput(in));
  CHECK_EQ(c.st.last_vote_epoch, 0u);
  CHECK_EQ(c.saves, 0);
  CHECK(Sent(out).empty());
}

}  // namespace
