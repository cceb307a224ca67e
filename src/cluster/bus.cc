// Cluster bus runtime (see bus.h). Behaviour as Valkey 8's cluster_legacy.c.
#include "cluster/bus.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/log.h"
#include "base/time.h"
#include "cluster/changes.h"
#include "cluster/epochs.h"
#include "cluster/failure.h"
#include "cluster/settings.h"
#include "cluster/slot_claims.h"
#include "ds/hashtable.h"
#include "net/event_loop.h"
#include "net/socket.h"
#include "server/config.h"
#include "server/server.h"

namespace cluster {
namespace {

using server::cfg;
using server::g;

constexpr size_t kMaxWritePerEvent = 64 * 1024;

uint64_t RandomIndex(size_t n) { return n ? ds::RandomU64() % n : 0; }

std::string IpOf(const std::string& addr) {
  size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

constexpr size_t kNewsFanout = 8;     // peers told at the tick after news
constexpr size_t kFormingFanout = 2;  // peers told each tick for a while after it
constexpr int64_t kFormingMs = 2000;
// News pings name up to this many nodes in gossip (others name a tenth of the cluster): one of
// them tells a node that missed someone about everyone it knows. Peers take any count.
constexpr size_t kNewsGossip = 64;

}  // namespace

struct Bus::Core {
  State& st;
  net::EventLoop& loop;
  BusHooks hooks;
  Bus* bus;

  std::vector<int> listen_fds;
  std::vector<Link*> links;     // every open link, inbound and outbound
  std::vector<Link*> to_flush;  // links with output queued since the last FlushOutput
  std::vector<Link*> flushing;  // FlushOutput's list
  int bus_port = 0;
  // A node became known here (handshake done, or heard of in gossip): tell some peers at the
  // next cron tick instead of waiting for the once-a-second random ping. A cluster being formed
  // (every node MEETs one) otherwise needs about a second per gossip hop to agree.
  bool news = false;
  int64_t forming_until_ms = 0;  // news came lately: keep telling a few peers each tick
  int iteration = 0;             // cron ticks

  Core(State& s, net::EventLoop& l, BusHooks h, Bus* b)
      : st(s), loop(l), hooks(std::move(h)), bus(b) {}
  ~Core() {
    while (!links.empty()) FreeLink(links.back());
    for (int fd : listen_fds) {
      loop.DelFile(fd, net::kReadable);
      close(fd);
    }
  }

  // Event-loop callbacks: the link (or, for the listener, the core) is their data.
  static Core& Of(Link* l) { return *l->bus->core_; }
  static void AcceptCb(int lfd, void* data, int) { static_cast<Core*>(data)->Accept(lfd); }
  static void ConnectedCb(int fd, void* data, int) {
    Link* l = static_cast<Link*>(data);
    Of(l).OnConnected(fd, l);
  }
  static void ReadableCb(int, void* data, int) {
    Link* l = static_cast<Link*>(data);
    Of(l).OnReadable(l);
  }
  static void WritableCb(int, void* data, int) {
    Link* l = static_cast<Link*>(data);
    Core& c = Of(l);
    if (c.HoldOutput()) return;  // BeforeSleep saves first; the event fires again after the poll
    c.WriteQueued(l);
  }

  // ---- sending ----

  void WantWrite(Link* l) {
    int fd = l->conn.fd;
    if (l->connecting || fd < 0) return;
    if (!(loop.FileMask(fd) & net::kWritable)) loop.AddFile(fd, net::kWritable, WritableCb, l);
  }

  // A message may carry what a pending fsync'd save has not yet put on disk: an epoch just
  // bumped, a new role. Until BeforeSleep has saved, output waits in the link's queue.
  bool HoldOutput() { return st.todo_fsync; }

  // Messages are queued and written by FlushOutput, after the loop's replies to clients and
  // its save: a broadcast (PONGs after SETSLOT NODE, PUBLISH to every node) does not delay the
  // reply of the command that made it, and messages of one loop pass to one node share a write.
  void Queue(Link* l, const std::vector<uint8_t>& bytes, uint16_t type) {
    if (!l || l->conn.fd < 0 || bytes.empty()) return;
    if (type < kTypeCount) st.stats.sent[type]++;
    l->conn.out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (l->connecting) return;  // sent with the PING that OnConnected queues
    if (!l->flush_queued) {
      l->flush_queued = true;
      to_flush.push_back(l);
    }
  }

  // The header of a message from myself.
  Header MyHeader(uint16_t type) {
    Node* me = st.myself;
    Node* primary = st.MyPrimary();
    Header h;
    h.type = type;
    h.port =
        static_cast<uint16_t>(cfg.cluster_announce_port ? cfg.cluster_announce_port : cfg.port);
    h.pport = static_cast<uint16_t>(cfg.cluster_announce_tls_port);
    h.cport = static_cast<uint16_t>(cfg.cluster_announce_bus_port ? cfg.cluster_announce_bus_port
                                                                  : bus_port);
    h.current_epoch = st.current_epoch;
    h.config_epoch = primary ? primary->config_epoch : me->config_epoch;
    h.offset = hooks.repl_offset ? hooks.repl_offset() : 0;
    NodeNameFromString(me->name, &h.sender);
    if (primary) h.myslots = AnnouncedSlots(st, primary);
    if (me->IsReplica() && me->primary) NodeNameFromString(me->primary->name, &h.replicaof);
    if (!cfg.cluster_announce_ip.empty()) IpFromString(cfg.cluster_announce_ip, &h.myip);
    // Bit 11: we take light-header PUBLISH (Valkey 8 peers then send us shard IDs and the other
    // extensions they keep from Redis 7.0 nodes).
    h.flags = static_cast<uint16_t>(me->flags | kNodeLightHdr);
    h.mflags[0] = kMsgFlagExtData;
    if (hooks.paused_here && hooks.paused_here()) h.mflags[0] |= kMsgFlagPaused;
    return h;
  }

  // Gossip about other nodes for a PING/PONG/MEET to `to` (as Valkey 8's clusterSendPing).
  void AddGossip(Message* m, const Node* to, size_t at_least) {
    size_t n = st.nodes.size();
    size_t wanted = std::max<size_t>({3, n / 10, at_least});
    wanted = n >= 2 ? std::min(wanted, n - 2) : 0;
    std::vector<const Node*> picked;
    auto entry = [&](const Node* node) {
      GossipEntry e;
      NodeNameFromString(node->name, &e.name);
      e.ping_sent = static_cast<uint32_t>(node->ping_sent_ms / 1000);
      e.pong_received = static_cast<uint32_t>(node->pong_received_ms / 1000);
      IpFromString(node->ip, &e.ip);
      e.port = static_cast<uint16_t>(node->tcp_port);
      e.pport = static_cast<uint16_t>(node->tls_port);
      e.cport = static_cast<uint16_t>(node->cport);
      e.flags = node->flags;
      m->ping.gossip.push_back(e);
    };
    for (size_t tries = 0; picked.size() < wanted && tries < wanted * 3; tries++) {
      const Node* c = st.nodes[RandomIndex(n)].get();
      if (c == st.myself || c == to) continue;
      if (c->flags & (kNodePfail | kNodeHandshake | kNodeNoAddr)) continue;
      if (!c->link && c->num_slots == 0) continue;
      if (std::find(picked.begin(), picked.end(), c) != picked.end()) continue;
      picked.push_back(c);
      entry(c);
    }
    // Every node I suspect, so that reports spread (this tail may describe the receiver).
    for (auto& c : st.nodes)
      if ((c->flags & kNodePfail) && !(c->flags & (kNodeHandshake | kNodeNoAddr))) entry(c.get());
  }

  // Extensions for a capable peer; only the hostname for peers without the light-header bit
  // (Redis 7.0 knows no other type).
  void AddExtensions(Message* m, const Node* to) {
    if (!to || !(to->flags & kNodeExtSupported)) return;
    bool full = to->flags & kNodeLightHdr;
    auto text = [&](uint16_t type, const std::string& v) {
      if (v.empty()) return;
      PingExt e;
      e.type = type;
      e.text = v;
      m->ping.extensions.push_back(e);
    };
    text(kExtHostname, cfg.cluster_announce_hostname);
    if (!full) return;
    text(kExtHumanNodename, cfg.cluster_announce_human_nodename);
    text(kExtClientIpv4, cfg.cluster_announce_client_ipv4);
    text(kExtClientIpv6, cfg.cluster_announce_client_ipv6);
    int64_t now = base::MsTime();
    for (auto& [name, until] : st.blacklist) {
      if (until <= now) continue;
      PingExt e;
      e.type = kExtForgottenNode;
      NodeNameFromString(name, &e.name);
      e.ttl = static_cast<uint64_t>((until - now) / 1000);
      m->ping.extensions.push_back(e);
    }
    PingExt sid;
    sid.type = kExtShardId;
    NodeNameFromString(st.myself->shard_id, &sid.name);
    m->ping.extensions.push_back(sid);
  }

  void SendPing(Link* l, uint16_t type, size_t gossip_at_least = 0) {
    if (!l) return;
    Message m;
    m.header = MyHeader(type);
    const Node* to = l->node;
    AddGossip(&m, to, gossip_at_least);
    // A PONG to an unknown sender carries no extensions; MEET carries none either.
    if (type != kTypeMeet) AddExtensions(&m, to);
    if (type == kTypePing && !l->inbound && l->node && !l->node->ping_sent_ms)
      l->node->ping_sent_ms = base::MsTime();
    Queue(l, Encode(m), type);
  }

  void SendUpdate(Link* l, const Node* owner) {
    if (!l) return;
    Message m;
    m.header = MyHeader(kTypeUpdate);
    m.update.config_epoch = owner->config_epoch;
    NodeNameFromString(owner->name, &m.update.name);
    m.update.slots = UpdateSlots(st, owner);  // not the slots it stopped claiming
    Queue(l, Encode(m), kTypeUpdate);
  }

  // ---- links ----

  Link* NewLink(int fd, bool inbound, Node* node) {
    Link* l = new Link;
    l->conn.fd = fd;
    l->bus = bus;
    l->inbound = inbound;
    l->node = node;
    l->ctime_ms = base::MsTime();
    links.push_back(l);
    return l;
  }

  void Accept(int lfd) {
    for (int i = 0; i < 100; i++) {
      sockaddr_storage sa;
      int fd = net::Accept(lfd, &sa);
      if (fd < 0) return;
      net::TuneTcp(fd, static_cast<int>(NodeTimeout() * 2 / 1000));
      Link* l = NewLink(fd, true, nullptr);
      loop.AddFile(fd, net::kReadable, ReadableCb, l);
      loop.SetQuiet(fd, true);
    }
  }

  void OnConnected(int fd, Link* l) {
    loop.DelFile(fd, net::kWritable);
    int err = net::ConnectError(fd);
    if (err) {
      LOG_VERBOSE("Connection with Node %.40s at %s:%d failed: %s", l->node->name.c_str(),
                  l->node->ip.c_str(), l->node->cport, strerror(err));
      // As for a connect that fails at once: without a pending ping, failure detection of a
      // node that refuses connections would never start.
      if (!l->node->ping_sent_ms) l->node->ping_sent_ms = base::MsTime();
      return FreeLink(l);
    }
    l->connecting = false;
    loop.AddFile(fd, net::kReadable, ReadableCb, l);
    loop.SetQuiet(fd, true);
    Node* n = l->node;
    // Keep an earlier pending ping: failure detection must not restart.
    int64_t old_ping = n->ping_sent_ms;
    SendPing(l, (n->flags & kNodeMeet) ? kTypeMeet : kTypePing);  // flushes what waited too
    if (old_ping) n->ping_sent_ms = old_ping;
  }

  void Connect(Node* n, int64_t now) {
    std::string err;
    int fd = net::ConnectTcp(n->ip, n->cport, &err, cfg.bind_source_addr);
    if (fd < 0) {
      if (!n->ping_sent_ms) n->ping_sent_ms = now;  // failure detection still runs
      return;
    }
    Link* l = NewLink(fd, false, n);
    l->connecting = true;
    n->link = l;
    loop.AddFile(fd, net::kWritable, ConnectedCb, l);
    loop.SetQuiet(fd, true);
  }

  void SetAddress(Node* n, const std::string& ip, int tcp, int tls, int cport) {
    n->ip = ip;
    n->tcp_port = tcp;
    n->tls_port = tls;
    n->cport = cport;
  }

  // ---- processing (as Valkey 8's clusterProcessPacket) ----

  // A known node speaks from another address than the one known (it moved; or it answered a
  // MEET sent to its new address): take the new one, drop the link to the old, and follow it if
  // it is my primary (Valkey 8's nodeUpdateAddressIfNeeded). True when the address changed.
  bool UpdateAddressIfNeeded(Node* n, const std::string& ip, const Header& h) {
    if (n->ip == ip && n->tcp_port == h.port && n->cport == h.cport) return false;
    if (n->link) FreeLink(n->link);
    SetAddress(n, ip, h.port, h.pport, h.cport);
    n->flags &= ~kNodeNoAddr;
    LOG_NOTICE("Address updated for node %.40s (%s), now %s:%d", n->name.c_str(),
               n->human_nodename.c_str(), n->ip.c_str(), n->tcp_port);
    if (st.myself->IsReplica() && st.myself->primary == n && hooks.primary_moved)
      hooks.primary_moved(n);
    st.MarkChanged(true, false);
    return true;
  }

  void ClearFailIfNeeded(Node* n, int64_t now) {
    FailClear v = ClearFailVerdict(n, now, NodeTimeout());
    if (v == FailClear::kKeep) return;
    n->flags &= ~kNodeFail;
    if (v == FailClear::kStale)
      LOG_NOTICE(
          "Clear FAIL state for node %.40s (%s): is reachable again and nobody is serving "
          "its slots after some time.",
          n->name.c_str(), n->human_nodename.c_str());
    else
      LOG_NOTICE("Clear FAIL state for node %.40s (%s): %s is reachable again.", n->name.c_str(),
                 n->human_nodename.c_str(),
                 v == FailClear::kReplica ? "replica" : "primary without slots");
    st.MarkChanged(true, false);
  }

  void MarkFailingIfNeeded(Node* n, int64_t now) {
    if (!FailQuorumReached(st, n, CountFailReports(n, now, NodeTimeout()))) return;
    LOG_NOTICE("Marking node %.40s (%s) as failing (quorum reached).", n->name.c_str(),
               n->human_nodename.c_str());
    n->flags = static_cast<uint16_t>((n->flags & ~kNodePfail) | kNodeFail);
    n->fail_time_ms = now;
    BroadcastFail(n);
    st.MarkLearned();
  }

  void ProcessGossip(const Message& m, Node* sender, int64_t now) {
    for (auto& e : m.ping.gossip)
      if (!NodeNameIsValid(e.name)) return;  // one bad ID voids the section (Valkey)
    for (auto& e : m.ping.gossip) {
      std::string name = NodeNameToString(e.name);
      if (name == st.myself->name) continue;
      Node* n = st.Find(name);
      if (n) {
        if (sender->IsVotingPrimary()) {
          // Each report that starts or ends is logged with both nodes' human names, as Valkey 8.
          if (e.flags & (kNodePfail | kNodeFail)) {
            if (AddFailReport(n, sender, now))
              LOG_NOTICE("Node %.40s (%s) reported node %.40s (%s) as not reachable.",
                         sender->name.c_str(), sender->human_nodename.c_str(), n->name.c_str(),
                         n->human_nodename.c_str());
            MarkFailingIfNeeded(n, now);
          } else if (DelFailReport(n, sender)) {
            LOG_NOTICE("Node %.40s (%s) reported node %.40s (%s) is back online.",
                       sender->name.c_str(), sender->human_nodename.c_str(), n->name.c_str(),
                       n->human_nodename.c_str());
          }
        }
        if (!(e.flags & (kNodePfail | kNodeFail)) && !n->ping_sent_ms && n->fail_reports.empty()) {
          int64_t pong = static_cast<int64_t>(e.pong_received) * 1000;
          if (pong <= now + 500 && pong > n->pong_received_ms) n->pong_received_ms = pong;
        }
        std::string ip = IpToString(e.ip);
        if ((n->flags & (kNodePfail | kNodeFail)) &&
            !(e.flags & (kNodeNoAddr | kNodePfail | kNodeFail)) &&
            (n->ip != ip || n->tcp_port != e.port || n->cport != e.cport)) {
          if (n->link) FreeLink(n->link);
          SetAddress(n, ip, e.port, e.pport, e.cport);
          n->flags &= ~kNodeNoAddr;
        }
      } else if (!(e.flags & kNodeNoAddr) && !st.IsBlacklisted(name, now)) {
        // Flags from the wire: only the role and what describes the node, never MYSELF/MEET.
        uint16_t keep = kNodePrimary | kNodeReplica | kNodeNoFailover | kNodeExtSupported;
        Node* added = st.Add(name, static_cast<uint16_t>(e.flags & keep), now);
        SetAddress(added, IpToString(e.ip), e.port, e.pport, e.cport);
        st.MarkChanged(true, false);
        if (added->cport) Connect(added, now);  // its first PING now, not at the next tick
        news = true;
      }
    }
  }

  void ProcessExtensions(const Message& m, Node* sender) {
    if (!(m.header.mflags[0] & kMsgFlagExtData)) return;
    std::string hostname, human, ipv4, ipv6, shard;
    for (auto& e : m.ping.extensions) {
      switch (e.type) {
        case kExtHostname:
          hostname = e.text;
          break;
        case kExtHumanNodename:
          human = e.text;
          break;
        case kExtClientIpv4:
          ipv4 = e.text;
          break;
        case kExtClientIpv6:
          ipv6 = e.text;
          break;
        case kExtShardId:
          if (NodeNameIsValid(e.name)) shard = NodeNameToString(e.name);
          break;
        case kExtForgottenNode: {
          if (!NodeNameIsValid(e.name)) break;
          std::string name = NodeNameToString(e.name);
          Node* n = st.Find(name);
          // Never the sender itself: the caller still uses it.
          if (n && n != st.myself && n != st.myself->primary && n != sender) {
            st.Blacklist(name, ForgetUntilMs(base::MsTime(), e.ttl));
            DeleteNode(n);
          }
          break;
        }
        default:
          break;  // unknown types are skipped quietly
      }
    }
    bool changed = sender->hostname != hostname || sender->human_nodename != human ||
                   sender->client_ipv4 != ipv4 || sender->client_ipv6 != ipv6;
    sender->hostname = hostname;
    sender->human_nodename = human;
    sender->client_ipv4 = ipv4;
    sender->client_ipv6 = ipv6;
    if (shard.empty() && sender->IsReplica() && sender->primary) shard = sender->primary->shard_id;
    // A shard has one ID: whichever member tells it, its primary and every replica take it.
    Node* top = sender->IsReplica() && sender->primary ? sender->primary : sender;
    if (!shard.empty() && (shard != sender->shard_id || shard != top->shard_id)) {
      top->shard_id = shard;
      for (Node* r : top->replicas) r->shard_id = shard;
      sender->shard_id = shard;
      if (st.myself->primary == top) st.myself->shard_id = shard;
      changed = true;
    }
    if (changed) st.MarkChanged(true, false);
  }

  // A primary claims `slots` at `epoch` (as Valkey 8's clusterUpdateSlotsConfigWith): the plan
  // of slot_claims.h, applied here with its log lines, dirty slots and change of role.
  void UpdateSlotsConfigWith(Node* sender, uint64_t epoch, const SlotBitmap& slots) {
    if (sender == st.myself) return;
    SlotClaimPlan plan = PlanSlotClaims(
        st, {.sender = sender,
             .epoch = epoch,
             .slots = &slots,
             .allow_replica_migration = server::cfg.cluster_allow_replica_migration});
    const char* sname = sender->name.c_str();
    const char* sshard = sender->shard_id.c_str();
    for (int s : plan.stopped_claiming) st.SetOwnerClaims(s, false);
    for (int s : plan.claims_again) st.SetOwnerClaims(s, true);
    for (int s : plan.migrating_retarget) {
      LOG_NOTICE(
          "Failover occurred in migration target. Slot %d is now being migrated to node "
          "%.40s in shard %.40s.",
          s, sname, sshard);
      st.migrating_to[s] = sender;
    }
    for (int s : plan.auto_claim) {
      LOG_NOTICE(
          "Slot %d is no longer being imported from node %.40s in shard %.40s; clear my "
          "importing source for the slot.",
          s, sname, sshard);
      st.importing_from[s] = nullptr;
      if (st.slot_owner[s] != st.myself) st.AssignSlot(s, st.myself);
    }
    if (!plan.auto_claim.empty()) BumpEpochWithoutConsensus(st);
    std::vector<int> dirty;
    for (int s : plan.lost_mine)
      if (hooks.slot_has_keys && hooks.slot_has_keys(s)) dirty.push_back(s);
    for (int s : plan.migrating_close) {
      LOG_NOTICE("Slot %d is no longer being migrated to node %.40s.", s,
                 st.migrating_to[s]->name.c_str());
      st.migrating_to[s] = nullptr;
    }
    for (int s : plan.importing_retarget) {
      LOG_NOTICE(
          "Failover occurred in migration source. Update importing source for slot %d to "
          "node %.40s in shard %.40s.",
          s, sname, sshard);
      st.importing_from[s] = sender;
    }
    for (int s : plan.importing_close) {
      LOG_NOTICE("Slot %d is no longer being imported from node %.40s.", s,
                 st.importing_from[s]->name.c_str());
      st.importing_from[s] = nullptr;
    }
    for (int s : plan.take) {
      Node* owner = st.slot_owner[s];
      if (owner && !st.Unclaimed(s) && owner->shard_id != sender->shard_id)
        LOG_NOTICE(
            "Slot %d is migrated from node %.40s in shard %.40s to node %.40s in shard %.40s.", s,
            owner->name.c_str(), owner->shard_id.c_str(), sname, sshard);
      st.AssignSlot(s, sender);
    }
    if (plan.Changed()) st.MarkLearned();
    switch (plan.role) {
      case SlotClaimPlan::Role::kKeep:
        for (int s : dirty) {
          LOG_NOTICE("Deleting keys in dirty slot %d", s);
          hooks.delete_keys_in_slot(s);
        }
        return;
      case SlotClaimPlan::Role::kFollow:
        // My shard lost every slot: follow. Another shard's history means a full sync, and my
        // open slots close.
        LOG_NOTICE("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                   plan.follow->name.c_str());
        if (hooks.become_replica_of) hooks.become_replica_of(plan.follow, plan.follow_same_shard);
        return;
      case SlotClaimPlan::Role::kEmptyPrimary:
        LOG_NOTICE(
            "My last slot was migrated to node %.40s in shard %.40s. I am now an empty "
            "primary.",
            sname, sshard);
        return;
      case SlotClaimPlan::Role::kKeepNoClean:
        return;
    }
  }

  // PUBLISH / PUBLISHSHARD to this node's subscribers.
  void DeliverPublish(const Message& m) {
    if (hooks.publish)
      hooks.publish(m.publish.channel, m.publish.message, m.header.type == kTypePublishShard);
  }

  // A light-header message (PUBLISH, PUBLISHSHARD; Valkey 8 sends them to nodes that set
  // kNodeLightHdr, as this one does). Its 16-byte header names no sender and carries no epoch,
  // offset, slots or flags, so none of the header logic applies: the sender is the link's node,
  // known (ProcessInput closes a link whose first message is light), as in Valkey 8's
  // clusterProcessLightPacket.
  void ProcessLightPacket(Link* l, const Message& m) {
    l->node->data_received_ms = base::MsTime();
    DeliverPublish(m);
  }

  // The sender of a full-header message: the link's node, else the node its header names;
  // nullptr while unknown or in handshake. An inbound link is bound to it here.
  Node* BindSender(Link* l, const std::string& sender_name) {
    Node* sender = (l->node && !(l->node->flags & kNodeHandshake)) ? l->node : st.Find(sender_name);
    if (!sender || (sender->flags & kNodeHandshake)) return nullptr;
    if (l->inbound && !l->node) {
      if (sender->inbound_link && sender->inbound_link != l) FreeLink(sender->inbound_link);
      sender->inbound_link = l;
      l->node = sender;
    }
    return sender;
  }

  // What every full header of a known sender says, whatever its type: its epochs and the
  // replication offset the failover logic reads.
  void AdoptHeader(Node* sender, const Header& h, int64_t now) {
    sender->data_received_ms = now;
    // A newer currentEpoch is only adopted; it is written with the next save (as Valkey does:
    // an fsync per ping that carries it would slow cluster creation for nothing).
    if (h.current_epoch > st.current_epoch) st.current_epoch = h.current_epoch;
    if (NodeNameIsNull(h.replicaof) && h.config_epoch > sender->config_epoch) {
      sender->config_epoch = h.config_epoch;
      st.MarkLearned();
    }
    sender->repl_offset = h.offset;
    if (hooks.saw_header) hooks.saw_header(sender, h);
  }

  // PING and MEET: learn my own IP from the link, start a handshake with an unknown node that
  // MEETs me, answer with a PONG. Returns that handshake node, if one was started.
  Node* AnswerPing(Link* l, Node* sender, const Header& h, const std::string& sender_ip,
                   int64_t now) {
    if (cfg.cluster_announce_ip.empty() && (h.type == kTypeMeet || st.myself->ip.empty())) {
      std::string mine = IpOf(net::LocalAddr(l->conn.fd));
      if (!mine.empty() && mine != st.myself->ip) {
        st.myself->ip = mine;
        LOG_NOTICE("IP address for this node updated to %s", mine.c_str());
        st.MarkChanged(true, false);
      }
    }
    Node* n = nullptr;
    if (!sender && h.type == kTypeMeet) {
      n = st.Add("", kNodeHandshake, now);
      SetAddress(n, sender_ip, h.port, h.pport, h.cport);
      if (h.mflags[0] & kMsgFlagExtData) n->flags |= kNodeExtSupported;
      st.MarkChanged(true, false);
      if (n->cport) Connect(n, now);  // the handshake's PING now, not at the next tick
    }
    SendPing(l, kTypePong);
    return n;
  }

  // A PING/PONG on one of my outbound links that names a node other than the one I connected
  // to: the end of a handshake, or a node that changed its ID. True when the packet is done with
  // (the link may be gone).
  bool CheckOutboundSender(Link* l, const Header& h, const std::string& sender_name,
                           const std::string& sender_ip, int64_t now) {
    Node* ln = l->node;
    if (ln->flags & kNodeHandshake) {
      if (Node* known = st.Find(sender_name); known && known != ln) {
        // Already known under its real ID: this handshake was a duplicate, to where it is now.
        UpdateAddressIfNeeded(known, sender_ip, h);
        DeleteNode(ln);
        return true;
      }
      st.Rename(ln, sender_name);
      ln->flags &= ~kNodeHandshake;
      ln->flags |= h.flags & (kNodePrimary | kNodeReplica);
      if (h.mflags[0] & kMsgFlagExtData) ln->flags |= kNodeExtSupported;
      // The PONG answers the MEET/PING: the node is alive and nothing is pending (else the cron
      // would wait forever for an answer that came, and never ping it again).
      if (h.type == kTypePong) {
        ln->pong_received_ms = now;
        ln->ping_sent_ms = 0;
      }
      LOG_VERBOSE("Handshake with node %.40s completed.", ln->name.c_str());
      st.MarkChanged(true, false);
      news = true;
      // This packet came from a nameless node, so its slots and epoch were not taken (as in
      // Valkey); ask again now rather than at the next scheduled ping, seconds away.
      SendPing(l, kTypePing);
      return true;
    }
    if (ln->name != sender_name) {
      LOG_NOTICE("PONG contains mismatching sender ID. About node %.40s: now unknown address",
                 ln->name.c_str());
      ln->flags |= kNodeNoAddr;
      SetAddress(ln, "", 0, 0, 0);
      FreeLink(l);
      st.MarkChanged(true, false);
      return true;
    }
    return false;
  }

  // The sender's role as its header states it.
  void AdoptRole(Node* sender, const Header& h) {
    if (NodeNameIsNull(h.replicaof)) {
      if (sender->IsReplica()) {
        st.SetPrimary(sender, nullptr);
        st.MarkChanged(true, false);
      }
      return;
    }
    Node* primary = st.Find(NodeNameToString(h.replicaof));
    // No node replicates itself, nor do we follow a chain back to the sender.
    int hops = 0;
    for (Node* p = primary; p && hops < 16; p = p->primary, hops++)
      if (p == sender) {
        primary = nullptr;
        break;
      }
    if (sender->IsPrimary()) {
      for (int s = 0; s < kSlots; s++)
        if (st.slot_owner[s] == sender) st.UnassignSlot(s);
      st.SetPrimary(sender, nullptr);
      sender->flags = static_cast<uint16_t>((sender->flags & ~kNodePrimary) | kNodeReplica);
      st.MarkLearned();
    }
    if (primary && sender->primary != primary) {
      st.SetPrimary(sender, primary);
      sender->shard_id = primary->shard_id;
      st.MarkChanged(true, false);
      // My primary became a replica (its last slot went to another node, or a failover in its
      // shard): I follow its primary rather than chain behind it, as Valkey 8 does.
      Node* mine = st.myself->primary;
      if (mine == sender && mine->primary && mine->primary != st.myself) {
        Node* top = mine->primary;
        LOG_NOTICE("I'm a sub-replica! Reconfiguring myself as a replica of %.40s from %.40s",
                   top->name.c_str(), mine->name.c_str());
        if (hooks.become_replica_of)
          hooks.become_replica_of(top, top->shard_id == st.myself->shard_id);
      }
    }
  }

  // The slots a primary's header claims; a stale claimer hears of the newer owner (one UPDATE).
  void AdoptSlotClaims(Node* sender, const Header& h) {
    // The same slots as known, all claimed: nothing changes, and each claimed slot is the
    // sender's own, so no UPDATE is due (Valkey 8's dirty_slots). Most pings end here, before
    // any per-slot work.
    if (sender->slots == h.myslots && st.not_claiming_count == 0) return;
    UpdateSlotsConfigWith(sender, h.config_epoch, h.myslots);
    if (const Node* owner =
            StaleClaimOwner(st, {.sender = sender, .epoch = h.config_epoch, .slots = &h.myslots}))
      SendUpdate(sender->link, owner);
  }

  void HandleEpochCollision(Node* sender) {
    if (!CollisionMovesMe({sender->IsPrimary(), st.myself->IsPrimary(), sender->config_epoch,
                           st.myself->config_epoch, sender->name, st.myself->name}))
      return;
    st.current_epoch++;
    st.myself->config_epoch = st.current_epoch;
    st.MarkChanged(true, true);
    LOG_VERBOSE("configEpoch collision with node %.40s. configEpoch set to %llu",
                sender->name.c_str(), static_cast<unsigned long long>(st.current_epoch));
  }

  // PING, PONG and MEET.
  void ProcessPingFamily(Link* l, Node* sender, const Message& m, const std::string& sender_name,
                         int64_t now) {
    const Header& h = m.header;
    if (l->peer_ip.empty()) {
      sockaddr_storage sa;
      socklen_t len = sizeof(sa);
      if (getpeername(l->conn.fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0)
        l->peer_ip = net::FormatIp(sa);
    }
    std::string hdr_ip = IpToString(h.myip);
    const std::string& sender_ip = hdr_ip.empty() ? l->peer_ip : hdr_ip;
    if (h.type == kTypePing || h.type == kTypeMeet) {
      // A MEET from an unknown node is trusted for its gossip too: the nodes it names are added
      // (as Valkey 8, whose clusterProcessGossipSection takes the new handshake node as sender).
      if (Node* met = AnswerPing(l, sender, h, sender_ip, now)) ProcessGossip(m, met, now);
    }
    if (!l->inbound && CheckOutboundSender(l, h, sender_name, sender_ip, now)) return;
    if (!sender) return;
    sender->flags = static_cast<uint16_t>((sender->flags & ~(kNodeNoFailover | kNodeLightHdr)) |
                                          (h.flags & (kNodeNoFailover | kNodeLightHdr)));
    sender->flags &= ~kNodeMeet;
    if (h.mflags[0] & kMsgFlagExtData) sender->flags |= kNodeExtSupported;
    if (h.type == kTypePing) {
      bool this_link = sender->link == l;  // a PING on our own outbound link: odd, but possible
      if (UpdateAddressIfNeeded(sender, sender_ip, h) && this_link) return;  // l is gone
    }
    if (!l->inbound && h.type == kTypePong) {
      sender->pong_received_ms = now;
      sender->ping_sent_ms = 0;
      if (sender->flags & kNodePfail) {
        sender->flags &= ~kNodePfail;
        st.MarkChanged(true, false);
      }
      ClearFailIfNeeded(sender, now);
    }
    AdoptRole(sender, h);
    if (NodeNameIsNull(h.replicaof)) AdoptSlotClaims(sender, h);
    HandleEpochCollision(sender);
    ProcessGossip(m, sender, now);
    ProcessExtensions(m, sender);
  }

  void ProcessFail(Node* sender, const Message& m, int64_t now) {
    Node* n = st.Find(NodeNameToString(m.fail.name));
    if (!n || n == st.myself || (n->flags & kNodeFail)) return;
    LOG_NOTICE("FAIL message received from %.40s (%s) about %.40s (%s)", sender->name.c_str(),
               sender->human_nodename.c_str(), n->name.c_str(), n->human_nodename.c_str());
    n->flags = static_cast<uint16_t>((n->flags | kNodeFail) & ~kNodePfail);
    n->fail_time_ms = now;
    st.MarkLearned();
  }

  void ProcessUpdate(const Message& m) {
    Node* n = st.Find(NodeNameToString(m.update.name));
    if (!n || n->config_epoch >= m.update.config_epoch) return;
    if (n->IsReplica()) st.SetPrimary(n, nullptr);
    n->config_epoch = m.update.config_epoch;
    UpdateSlotsConfigWith(n, m.update.config_epoch, m.update.slots);
    st.MarkLearned();
  }

  // A full-header message: its sender (if known) and header first, then its type's handler.
  void ProcessPacket(Link* l, const Message& m) {
    const Header& h = m.header;
    int64_t now = base::MsTime();
    std::string sender_name = NodeNameToString(h.sender);
    Node* sender = BindSender(l, sender_name);
    if (sender) AdoptHeader(sender, h, now);
    if (IsPingType(h.type)) return ProcessPingFamily(l, sender, m, sender_name, now);
    if (!sender) return;
    switch (h.type) {
      case kTypeFail:
        return ProcessFail(sender, m, now);
      case kTypePublish:
      case kTypePublishShard:
        return DeliverPublish(m);
      case kTypeUpdate:
        return ProcessUpdate(m);
      case kTypeFailoverAuthRequest:
        if (hooks.auth_request) hooks.auth_request(sender, h);
        return;
      case kTypeFailoverAuthAck:
        if (hooks.auth_ack) hooks.auth_ack(sender, h);
        return;
      case kTypeMfStart:
        if (hooks.mf_start) hooks.mf_start(sender, l);
        return;
      default:
        return;
    }
  }

  void OnReadable(Link* l) {
    // Read what is there (a few messages at most when idle) so the loop is not woken again for
    // the rest; bounded, so one busy link cannot hold the loop.
    constexpr size_t kChunk = 16 * 1024;
    for (int i = 0; i < 4; i++) {
      net::IoResult r = l->conn.Read(kChunk);
      if (r.status == net::IoResult::kAgain) break;
      if (r.Failed()) return FreeLink(l);
      if (r.bytes < kChunk) break;  // drained
    }
    ProcessInput(l);
  }

  bool ProcessInput(Link* l) {
    std::string& in = l->conn.in;
    size_t pos = 0;
    while (pos < in.size()) {
      auto* p = reinterpret_cast<const uint8_t*>(in.data()) + pos;
      Frame f = FrameNext(p, in.size() - pos);
      if (f.state == FrameState::kNeedMore) break;
      if (f.state == FrameState::kFatal) {
        st.stats.dropped++;
        LOG_VERBOSE("Closing a cluster bus link: %s", DecodeStatusName(f.error));
        return FreeLinkFalse(l);
      }
      Message m;
      DecodeStatus status = Decode(p, f.length, &m);
      pos += f.length;
      if (m.header.type < kTypeCount && status != DecodeStatus::kLightNotAllowed)
        st.stats.received[m.header.type]++;
      // DEBUG DROP-CLUSTER-PACKET-FILTER: a message of that type (light or not) is counted as
      // received, then ignored, as in Valkey 8's clusterIsValidPacket.
      if (server::g.cluster_drop_packet_filter == m.header.type &&
          status != DecodeStatus::kLightNotAllowed) {
        LOG_WARNING("Dropping packet that matches debug drop filter");
        if (!server::g.cluster_close_link_on_packet_drop) continue;
        LOG_WARNING("Closing link for matching packet type %d", m.header.type);
        return FreeLinkFalse(l);
      }
      switch (DispositionOf(status)) {
        case Disposition::kAccept: {
          if (m.header.light) {
            // Only from a known node: a light header names no sender.
            if (!l->node || (l->node->flags & kNodeHandshake)) return FreeLinkFalse(l);
            ProcessLightPacket(l, m);
            break;
          }
          // The packet may free this link (and a new one may then be made at the same
          // address): while it runs, FreeLink only closes it and leaves the delete to us.
          l->processing = true;
          ProcessPacket(l, m);
          l->processing = false;
          if (l->freed) {
            delete l;
            return false;
          }
          break;
        }
        case Disposition::kIgnore:
          LOG_VERBOSE("Ignoring a cluster bus message of unknown type %d", m.header.type);
          break;
        case Disposition::kDrop:
          st.stats.dropped++;
          break;
        case Disposition::kClose:
          st.stats.dropped++;
          return FreeLinkFalse(l);
      }
    }
    l->conn.in_pos = pos;
    l->conn.CompactIn();
    // An idle link holds no buffer (as Valkey 8 frees each packet's and its sent blocks), so
    // mem_cluster_links at rest is the same figure before and after any burst.
    if (in.empty())
      std::string().swap(in);
    else if (in.capacity() > 1024 * 1024 && in.size() < 1024)
      in.shrink_to_fit();
    return true;
  }

  bool FreeLinkFalse(Link* l) {
    FreeLink(l);
    return false;
  }

  // Writes what the link has queued; asks for writability while some is left (a link that
  // fails is freed).
  void WriteQueued(Link* l) {
    net::IoResult r = l->conn.Write(SIZE_MAX, kMaxWritePerEvent);
    if (r.Failed()) return FreeLink(l);
    int fd = l->conn.fd;
    if (!l->conn.Pending()) {
      if (loop.FileMask(fd) & net::kWritable) loop.DelFile(fd, net::kWritable);
      // Nothing queued, no buffer held (see ProcessInput).
      std::string().swap(l->conn.out);
      return;
    }
    if (l->conn.out_sent > 64 * 1024) l->conn.CompactOut();  // a long queue drops what was sent
    WantWrite(l);
  }

  void DeleteNode(Node* n) {
    if (n->link) FreeLink(n->link);
    if (n->inbound_link) FreeLink(n->inbound_link);
    st.Remove(n);
    st.MarkChanged(true, false);
  }

  bool Start(std::string* err) {
    int base = static_cast<int>(cfg.port);
    bus_port = cfg.cluster_port ? static_cast<int>(cfg.cluster_port) : base + 10000;
    if (bus_port > 65535) {
      *err = "Cluster bus port " + std::to_string(bus_port) + " is above 65535";
      return false;
    }
    for (auto b : cfg.bind) {
      bool optional = !b.empty() && b[0] == '-';
      if (optional) b = b.substr(1);
      bool unavailable;
      std::string e;
      int fd = net::ListenTcp(b, bus_port, 511, &unavailable, &e);
      if (fd < 0) {
        if (optional && unavailable) continue;
        *err = "Could not create the cluster bus listening socket " + b + ":" +
               std::to_string(bus_port) + ": " + e;
        return false;
      }
      listen_fds.push_back(fd);
      loop.AddFile(fd, net::kReadable, AcceptCb, this);
      loop.SetQuiet(fd, true);
    }
    if (listen_fds.empty()) {
      *err = "Failed listening on the cluster bus port " + std::to_string(bus_port);
      return false;
    }
    return true;
  }

  void FreeLink(Link* l) {
    if (l->freed) return;
    l->freed = true;
    links.erase(std::find(links.begin(), links.end(), l));
    if (l->flush_queued) to_flush.erase(std::find(to_flush.begin(), to_flush.end(), l));
    if (l->node) {
      if (l->node->link == l) l->node->link = nullptr;
      if (l->node->inbound_link == l) l->node->inbound_link = nullptr;
    }
    if (l->conn.fd >= 0) {
      loop.DelFile(l->conn.fd, net::kReadable | net::kWritable);
      close(l->conn.fd);
      l->conn.fd = -1;
    }
    if (!l->processing) delete l;  // else ProcessInput deletes it once the packet is done
  }

  void FlushOutput() {
    if (to_flush.empty()) return;
    if (HoldOutput()) {
      loop.SetMaxWaitMs(0);  // the next BeforeSleep saves, then this sends
      return;
    }
    // The replies of this pass first: with io_uring they wait in the loop's queue, and a
    // node's reply must not reach its peers after the message it caused (SETSLOT's PONG, an
    // import's new epoch after its handover reply).
    loop.SubmitQueued();
    flushing.clear();
    flushing.swap(to_flush);  // both keep their capacity
    for (Link* l : flushing) {
      l->flush_queued = false;
      // A link waiting for writability sends its queue, in order, when the socket takes it.
      if (!(loop.FileMask(l->conn.fd) & net::kWritable)) WriteQueued(l);
    }
  }

  void BroadcastPong() {
    for (auto& n : st.nodes)
      if (n->link && !n->link->connecting && !(n->flags & kNodeHandshake))
        SendPing(n->link, kTypePong);
  }

  void BroadcastPongToSiblings() {
    Node* p = st.myself->primary;
    if (!p) return;
    for (Node* r : p->replicas)
      if (r != st.myself && r->link && !r->link->connecting && !(r->flags & kNodeHandshake))
        SendPing(r->link, kTypePong);
  }

  void SendHeaderOnly(Link* l, uint16_t type, uint8_t mflags0) {
    if (!l) return;
    Message m;
    m.header = MyHeader(type);
    m.header.mflags[0] |= mflags0;
    Queue(l, Encode(m), type);
  }

  void BroadcastHeaderOnly(uint16_t type, uint8_t mflags0) {
    Message m;
    m.header = MyHeader(type);
    m.header.mflags[0] |= mflags0;
    std::vector<uint8_t> bytes = Encode(m);
    for (auto& n : st.nodes)
      if (n->link && !(n->flags & kNodeHandshake)) Queue(n->link, bytes, type);
  }

  void BroadcastFail(Node* failing) {
    Message m;
    m.header = MyHeader(kTypeFail);
    NodeNameFromString(failing->name, &m.fail.name);
    std::vector<uint8_t> bytes = Encode(m);
    for (auto& n : st.nodes)
      if (n->link && !(n->flags & kNodeHandshake)) Queue(n->link, bytes, kTypeFail);
  }

  void Publish(std::string_view channel, std::string_view message, bool shard) {
    Message m;
    m.header = MyHeader(shard ? kTypePublishShard : kTypePublish);
    m.publish.channel = std::string(channel);
    m.publish.message = std::string(message);
    std::vector<uint8_t> bytes = Encode(m);
    Node* my_primary = st.MyPrimary();
    for (auto& n : st.nodes) {
      if (n.get() == st.myself || !n->link || (n->flags & kNodeHandshake)) continue;
      if (shard) {
        Node* p = n->IsReplica() ? n->primary : n.get();
        if (!my_primary || p != my_primary) continue;
      }
      Queue(n->link, bytes, m.header.type);
    }
  }

  // News of a node that became known: a PING with a large random gossip section to up to
  // `fanout` connected peers. Quiet clusters never get here; a forming one does for a few
  // seconds. (Putting the newest nodes first in gossip was tried: with 60 nodes every message
  // then named the same few, and forming took twice as long.)
  void SpreadNews(size_t fanout) {
    std::vector<Link*> peers;
    for (auto& up : st.nodes) {
      Node* n = up.get();
      if (n == st.myself || (n->flags & (kNodeHandshake | kNodeNoAddr))) continue;
      if (n->link && !n->link->connecting) peers.push_back(n->link);
    }
    for (size_t i = 0; i < peers.size() && i < fanout; i++) {
      std::swap(peers[i], peers[i + RandomIndex(peers.size() - i)]);
      SendPing(peers[i], kTypePing, kNewsGossip);
    }
  }

  void Cron(int64_t now) {
    iteration++;
    int64_t nt = NodeTimeout();
    int64_t handshake_timeout = std::max<int64_t>(nt, 1000);
    // Handshakes that never completed.
    std::vector<Node*> expired;
    for (auto& n : st.nodes)
      if ((n->flags & kNodeHandshake) && now - n->ctime_ms > handshake_timeout)
        expired.push_back(n.get());
    for (Node* n : expired) DeleteNode(n);
    // Reconnect.
    for (auto& n : st.nodes) {
      if (n.get() == st.myself || (n->flags & kNodeNoAddr) || n->link) continue;
      if (n->ip.empty() || !n->cport) continue;
      Connect(n.get(), now);
    }
    // Every 10th tick: ping the node with the oldest pong among 5 random ones.
    if (iteration % 10 == 0 && st.nodes.size() > 1) {
      Node* best = nullptr;
      for (int i = 0; i < 5; i++) {
        Node* n = st.nodes[RandomIndex(st.nodes.size())].get();
        if (n == st.myself || !n->link || n->link->connecting || n->ping_sent_ms ||
            (n->flags & kNodeHandshake))
          continue;
        if (!best || n->pong_received_ms < best->pong_received_ms) best = n;
      }
      if (best) SendPing(best->link, kTypePing);
    }
    if (news) {
      news = false;
      forming_until_ms = now + kFormingMs;
      SpreadNews(kNewsFanout);
    } else if (now < forming_until_ms) {
      SpreadNews(kFormingFanout);
    }
    int64_t ping_interval = cfg.cluster_ping_interval ? cfg.cluster_ping_interval : nt / 2;
    for (auto& up : st.nodes) {
      Node* n = up.get();
      if (n == st.myself || (n->flags & (kNodeNoAddr | kNodeHandshake))) continue;
      Link* l = n->link;
      // A link whose ping waits too long while nothing arrives: reconnect.
      if (l && !l->connecting && now - l->ctime_ms > nt && n->ping_sent_ms &&
          now - n->ping_sent_ms > nt / 2 && now - n->data_received_ms > nt / 2) {
        FreeLink(l);
        l = nullptr;
      }
      if (l && !l->connecting && !n->ping_sent_ms && now - n->pong_received_ms > ping_interval) {
        SendPing(l, kTypePing);
        continue;
      }
      if (PfailDue(n, now, nt)) {
        LOG_NOTICE("NODE %.40s (%s) possibly failing.", n->name.c_str(), n->human_nodename.c_str());
        n->flags |= kNodePfail;
        st.MarkChanged(false, false);
        if (st.size == 1 && st.myself->IsVotingPrimary()) MarkFailingIfNeeded(n, now);
      }
    }
    // Send-buffer limit.
    if (cfg.cluster_link_sendbuf_limit > 0) {
      std::vector<Link*> over;
      for (Link* l : links)
        if (static_cast<int64_t>(l->conn.PendingBytes()) > cfg.cluster_link_sendbuf_limit)
          over.push_back(l);
      for (Link* l : over) {
        st.stats.links_buffer_limit_exceeded++;
        FreeLink(l);
      }
    }
  }
};

Bus::Bus(State& st, net::EventLoop& loop, BusHooks hooks)
    : core_(std::make_unique<Core>(st, loop, std::move(hooks), this)) {}
Bus::~Bus() = default;
bool Bus::Start(std::string* err) { return core_->Start(err); }
int Bus::Port() const { return core_->bus_port; }
void Bus::Cron(int64_t now_ms) { core_->Cron(now_ms); }
Link* Bus::AddLink(int fd, bool inbound, Node* node) { return core_->NewLink(fd, inbound, node); }
bool Bus::ProcessInput(Link* l) { return core_->ProcessInput(l); }
void Bus::FreeLink(Link* l) { core_->FreeLink(l); }
void Bus::FlushOutput() { core_->FlushOutput(); }
void Bus::BroadcastPong() { core_->BroadcastPong(); }
void Bus::BroadcastPongToSiblings() { core_->BroadcastPongToSiblings(); }
void Bus::SendPingOn(Link* l) { core_->SendPing(l, kTypePing); }
void Bus::SendHeaderOnly(Link* l, uint16_t type, uint8_t mflags0) {
  core_->SendHeaderOnly(l, type, mflags0);
}
void Bus::BroadcastHeaderOnly(uint16_t type, uint8_t mflags0) {
  core_->BroadcastHeaderOnly(type, mflags0);
}
void Bus::Publish(std::string_view channel, std::string_view message, bool shard) {
  core_->Publish(channel, message, shard);
}
void Bus::SendUpdateTo(Node* to, const Node* owner) { core_->SendUpdate(to->link, owner); }
void Bus::BroadcastFail(Node* n) { core_->BroadcastFail(n); }
void Bus::ForEachLink(const std::function<void(const Link& l)>& fn) const {
  for (const Link* l : core_->links) fn(*l);
}
void Bus::DeleteNode(Node* n) { core_->DeleteNode(n); }

}  // namespace cluster
