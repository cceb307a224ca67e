// The cluster bus at run time: the listener, one outbound link per known node and the accepted
// inbound links, message building and processing (MEET handshake, PING/PONG with gossip and
// extensions, failure detection, FAIL, UPDATE, PUBLISH), and the 100 ms bus cron.
// Wire bytes come from bus_codec.h; the state lives in state.h.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cluster/state.h"
#include "net/buffered_conn.h"

namespace net {
class EventLoop;
}

namespace cluster {

class Bus;

struct Link {
  net::BufferedConn conn;  // the socket, received bytes not yet processed, bytes to send
  Node* node = nullptr;    // outbound: the node; inbound: bound once a packet names a sender
  Bus* bus = nullptr;      // the bus it belongs to (event callbacks reach it through here)
  bool inbound = false;
  bool connecting = false;
  bool flush_queued = false;  // in the list FlushOutput writes
  // A packet of this link is being processed: FreeLink closes it and sets `freed`, and
  // ProcessInput deletes it after the packet, so no pointer to it dangles meanwhile.
  bool processing = false;
  bool freed = false;
  int64_t ctime_ms = 0;
  std::string peer_ip;  // the other end's IP (learned once: PING/MEET carry it per packet)
};

// What the bus needs from the layers above it (failover, the server), filled by name by the
// composition root (cluster.cc), or by a test: the bus hands them messages and asks them
// questions, and does not include them. Empty ones are skipped.
struct BusHooks {
  std::function<void(std::string_view channel, std::string_view message, bool shard)> publish;
  std::function<uint64_t()> repl_offset;
  // Failover: every header of a known sender, the failover messages, and whether my messages
  // carry PAUSED (a primary in a manual failover).
  std::function<void(Node* sender, const Header& h)> saw_header;
  std::function<void(Node* sender, const Header& h)> auth_request;
  std::function<void(Node* sender, const Header& h)> auth_ack;
  std::function<void(Node* sender, Link* l)> mf_start;
  std::function<bool()> paused_here;
  // A claim or a role the bus learned makes me a replica of `primary`.
  std::function<void(Node* primary, bool same_shard)> become_replica_of;
  // My primary moved to a new address: replication follows it.
  std::function<void(Node* primary)> primary_moved;
  // The keys of a slot this node lost (a dirty slot): counted, then deleted.
  std::function<bool(int slot)> slot_has_keys;
  std::function<void(int slot)> delete_keys_in_slot;
};

// One node's bus over a cluster state it is given: the running node's (cluster.cc) or a
// test's, which feeds it packets on links of its own (AddLink, ProcessInput) and reads what
// it queued (each link's conn.out).
class Bus {
 public:
  Bus(State& st, net::EventLoop& loop, BusHooks hooks);
  ~Bus();
  Bus(const Bus&) = delete;
  Bus& operator=(const Bus&) = delete;

  // Opens the listener on the client bind addresses (bus port = cluster-port, else port +
  // 10000). False with *err when it cannot.
  bool Start(std::string* err);
  int Port() const;
  // The 100 ms bus cron: reconnects, pings, failure detection, handshake timeouts.
  void Cron(int64_t now_ms);
  // A link over a connected fd (accepted, or made by a test) and the processing of the
  // complete messages its conn.in holds. ProcessInput returns false when the link was closed
  // (then `l` is gone).
  Link* AddLink(int fd, bool inbound, Node* node);
  bool ProcessInput(Link* l);
  // Closes a link and detaches it from its node.
  void FreeLink(Link* l);
  // Writes the messages queued in this loop pass (at the end of BeforeSleep, after the
  // replies to clients and the nodes.conf save; while a save with fsync is pending they wait).
  void FlushOutput();
  // Sends to every node with an outbound link (PONG broadcast of a configuration change).
  void BroadcastPong();
  // PONG to the other replicas of my primary (they learn my offset before an election).
  void BroadcastPongToSiblings();
  // A PING on one link (failover: the primary tells the replica its paused offset).
  void SendPingOn(Link* l);
  // Header-only messages (FAILOVER_AUTH_REQUEST/ACK, MFSTART) to one link or to every node.
  void SendHeaderOnly(Link* l, uint16_t type, uint8_t mflags0);
  void BroadcastHeaderOnly(uint16_t type, uint8_t mflags0);
  // PUBLISH / SPUBLISH reaching other nodes (SPUBLISH: my shard only).
  void Publish(std::string_view channel, std::string_view message, bool shard);
  // UPDATE about `owner` (its epoch and the slots it claims) to node `to`.
  void SendUpdateTo(Node* to, const Node* owner);
  // FAIL broadcast about n.
  void BroadcastFail(Node* n);
  // Every open link (CLUSTER LINKS).
  void ForEachLink(const std::function<void(const Link& l)>& fn) const;
  // Closes the node's links and removes it from the state.
  void DeleteNode(Node* n);

 private:
  struct Core;  // bus.cc
  std::unique_ptr<Core> core_;
};

}  // namespace cluster
