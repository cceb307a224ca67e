// The cluster bus at run time: the listener, one outbound link per known node and the accepted
// inbound links, message building and processing (MEET handshake, PING/PONG with gossip and
// extensions, failure detection, FAIL, UPDATE, PUBLISH), and the 100 ms bus cron.
// Wire bytes come from bus_codec.h; the state lives in state.h.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "cluster/state.h"
#include "net/buffered_conn.h"

namespace cluster {

struct Link {
  net::BufferedConn conn;  // the socket, received bytes not yet processed, bytes to send
  Node* node = nullptr;    // outbound: the node; inbound: bound once a packet names a sender
  bool inbound = false;
  bool connecting = false;
  bool flush_queued = false;  // in the list FlushBusOutput writes
  // A packet of this link is being processed: FreeLink closes it and sets `freed`, and
  // OnReadable deletes it after the packet, so no pointer to it dangles meanwhile.
  bool processing = false;
  bool freed = false;
  int64_t ctime_ms = 0;
  std::string peer_ip;  // the other end's IP (learned once: PING/MEET carry it per packet)
};

// Opens the bus listener on the client bind addresses (bus port = cluster-port, else port +
// 10000). False with *err when it cannot.
bool StartBus(std::string* err);
int BusPort();
// The 100 ms bus cron: reconnects, pings, failure detection, handshake timeouts.
void BusCron(int64_t now_ms);
// Closes a link and detaches it from its node.
void FreeLink(Link* l);
// Writes the messages queued in this loop pass (at the end of BeforeSleep, after the replies
// to clients and the nodes.conf save; while a save with fsync is pending they wait for it).
void FlushBusOutput();
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
void BusPublish(std::string_view channel, std::string_view message, bool shard);
// UPDATE about `owner` (its epoch and the slots it claims) to node `to`.
void SendUpdateTo(Node* to, const Node* owner);
// FAIL broadcast about n.
void BroadcastFail(Node* n);
// Counts of links for CLUSTER LINKS and INFO.
void ForEachLink(void (*fn)(const Link& l, void* arg), void* arg);
// Closes the node's links and removes it from the state.
void DeleteNode(Node* n);
// What the bus needs from the layers above it (failover.cc, the server), filled by name by
// cluster.cc: the bus hands them messages and asks them questions, and does not include them.
struct BusHooks {
  void (*publish)(std::string_view channel, std::string_view message, bool shard) = nullptr;
  uint64_t (*repl_offset)() = nullptr;
  // Failover: every header of a known sender, the failover messages, and whether my messages
  // carry PAUSED (a primary in a manual failover).
  void (*saw_header)(Node* sender, const Header& h) = nullptr;
  void (*auth_request)(Node* sender, const Header& h) = nullptr;
  void (*auth_ack)(Node* sender, const Header& h) = nullptr;
  void (*mf_start)(Node* sender, Link* l) = nullptr;
  bool (*paused_here)() = nullptr;
  // A claim or a role the bus learned makes me a replica of `primary`.
  void (*become_replica_of)(Node* primary, bool same_shard) = nullptr;
};
BusHooks& GetBusHooks();

}  // namespace cluster
