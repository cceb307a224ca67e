// Cluster state: the nodes this node knows (myself included), slot ownership, open slots,
// epochs, failure reports and the forget blacklist. Plain data owned by the main thread; the
// bus (bus.cc) and the CLUSTER command change it, the formatters (nodes_format.h) and
// nodes.conf (nodes_conf.h) read it. Node pointers stay valid until the node is deleted.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/bus_codec.h"

namespace cluster {

struct Link;  // a bus connection (bus.cc)
struct Node;

struct FailReport {
  Node* reporter;
  int64_t time_ms;  // when the report was last refreshed
};

struct Node {
  uint32_t index = 0;    // position in State::nodes (the routing handle)
  std::string name;      // 40 lower-case hex chars (random while in handshake)
  std::string shard_id;  // 40 hex chars
  uint16_t flags = 0;    // kNode* of bus_codec.h
  int64_t ctime_ms = 0;  // creation (handshake timeout)
  uint64_t config_epoch = 0;
  SlotBitmap slots{};  // the slots this node claims (primaries)
  int num_slots = 0;
  Node* primary = nullptr;       // for a replica
  std::vector<Node*> replicas;   // for a primary, sorted by name
  int64_t ping_sent_ms = 0;      // pending ping, 0 if none
  int64_t pong_received_ms = 0;  // last PONG (or gossip news of one)
  int64_t data_received_ms = 0;  // last bytes of any message from it
  int64_t fail_time_ms = 0;      // when it was marked FAIL
  int64_t voted_time_ms = 0;     // last vote given to one of its replicas
  int64_t orphaned_time_ms = 0;  // replica migration
  uint64_t repl_offset = 0;      // last header offset
  std::string ip;                // bus IP (also the client IP unless announced)
  int tcp_port = 0, tls_port = 0, cport = 0;
  std::string hostname, human_nodename, client_ipv4, client_ipv6;
  Link* link = nullptr;          // outbound connection
  Link* inbound_link = nullptr;  // accepted connection bound to this node
  std::vector<FailReport> fail_reports;

  bool IsPrimary() const { return flags & kNodePrimary; }
  bool IsReplica() const { return flags & kNodeReplica; }
  // A primary owning slots: it counts for the cluster size, FAIL quorums and votes.
  bool IsVotingPrimary() const { return IsPrimary() && num_slots > 0; }
  bool Has(uint16_t f) const { return flags & f; }
};

// Counters of CLUSTER INFO.
struct BusStats {
  std::array<uint64_t, kTypeCount> sent{}, received{};
  uint64_t links_buffer_limit_exceeded = 0;
  uint64_t dropped = 0;  // malformed packets dropped or links closed for bad input
};

struct State {
  Node* myself = nullptr;
  uint64_t current_epoch = 0;
  uint64_t last_vote_epoch = 0;
  bool ok = false;  // cluster_state
  int size = 0;     // primaries owning at least one slot
  // Nodes in insertion order (CLUSTER NODES and nodes.conf order); owners of the Node objects.
  std::vector<std::unique_ptr<Node>> nodes;
  std::array<Node*, kSlots> slot_owner{};
  std::array<Node*, kSlots> migrating_to{};  // open slots (slot migration issue)
  std::array<Node*, kSlots> importing_from{};
  // Slots whose owner stopped claiming them (Valkey 8's owner_not_claiming_slot): they stay
  // bound to it, so clients get redirects rather than errors until a new owner claims them, but
  // any claim takes them, no UPDATE names them, and they do not refuse a vote.
  SlotBitmap owner_not_claiming{};
  int not_claiming_count = 0;
  // Slots this node took by a slot import's handover whose claim is not on disk yet: it owns
  // and serves them, but no message of ours says so (our header, UPDATE) until the claim would
  // survive a crash; a source that heard of it would drop keys we might lose.
  SlotBitmap unannounced{};
  int unannounced_count = 0;
  std::map<std::string, int64_t> blacklist;  // forgotten node -> until (ms)
  BusStats stats;
  int64_t state_changed_ms = 0;  // cluster state transitions (UpdateState's delays)
  int64_t among_minority_ms = 0;
  int64_t first_eval_ms = 0;
  int64_t started_ms = 0;  // when this process loaded its cluster state
  // Started without a nodes.conf: a new identity that no other node can know anything newer
  // about, so its cluster_state needs no start-up hold.
  bool fresh_identity = false;
  int64_t state_due_ms = 0;  // cluster_state held back until then (UpdateState's delays); 0: none
  // Deferred work, done before the loop sleeps.
  bool todo_save = false, todo_fsync = false, todo_update_state = false;
  bool todo_learned = false;  // a change learned from others, not saved yet (MarkLearned)
  int64_t last_save_ms = 0;

  // Something changed: re-evaluate cluster_state before sleeping, and save nodes.conf (with
  // fsync) if asked. Facts about this node that it promises to others (its epoch, its vote,
  // its role) go with fsync, before the messages that carry them (changes.h saves them).
  void MarkChanged(bool save, bool fsync) {
    todo_update_state = true;
    todo_save |= save;
    todo_fsync |= fsync;
  }
  // A change learned from other nodes (their slots, epochs, roles, failures): saved with the
  // next save, at most changes.h's kLearnedSaveMs after the last one.
  void MarkLearned() { todo_update_state = todo_learned = true; }

  // By name, through an index (every gossip entry and header looks a node up).
  Node* Find(std::string_view name) const;
  // A new node; `name` empty makes a random one. Takes ownership.
  Node* Add(std::string name, uint16_t flags, int64_t now_ms);
  // A node's name changes only here (a handshake learns the real one; RESET HARD makes one).
  void Rename(Node* n, std::string name);
  // Removes a node: its slots are unassigned, references to it (replica lists, reports, open
  // slots, the links) dropped. The caller closes its links first.
  void Remove(Node* n);
  // Slot ownership. Every change of a slot's owner goes through UnassignSlot (AssignSlot to
  // another node and Remove call it), which calls slot_unassigned first, as Valkey 8's
  // clusterDelSlot drops the slot's shard channels.
  void AssignSlot(int slot, Node* n);  // owner bookkeeping and the owner's bitmap
  void UnassignSlot(int slot);
  // Filled by the layer above (cluster.cc: the shard channels' subscribers, the slot's
  // CLUSTER SLOT-STATS counters); null in tests.
  void (*slot_unassigned)(int slot) = nullptr;
  // Unowned, or owned by a node that stopped claiming it.
  bool Unclaimed(int slot) const { return !slot_owner[slot] || SlotTest(owner_not_claiming, slot); }
  void SetOwnerClaims(int slot, bool claims);  // an owner's claim of the slot heard (or missed)
  // The forget blacklist (CLUSTER FORGET, FORGOTTEN_NODE): expired entries go as it is read.
  bool IsBlacklisted(const std::string& name, int64_t now_ms);
  void Blacklist(const std::string& name, int64_t until_ms) { blacklist[name] = until_ms; }
  // Roles.
  void SetPrimary(Node* replica, Node* primary);  // primary nullptr: make it a primary
  // The primary of my shard: myself, or my primary (nullptr if unknown).
  Node* MyPrimary() const { return myself->IsReplica() ? myself->primary : myself; }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // name -> node; the first added when two share a name (as a scan in `nodes` order finds).
  std::unordered_map<std::string, Node*, NameHash, std::equal_to<>> by_name_;
  static bool NameLess(const Node* a, const Node* b);
  void Index(Node* n);    // n's name now points to n unless an earlier node holds it
  void Unindex(Node* n);  // drops n's name; another node of that name takes it over
};

State& GetState();
// Until when a node forgotten for ttl_s seconds (CLUSTER FORGET, or a FORGOTTEN_NODE ping
// extension whose 64-bit TTL comes from the wire) stays blacklisted: saturates, never wraps.
int64_t ForgetUntilMs(int64_t now_ms, uint64_t ttl_s);
// 40 random lower-case hex chars (node and shard IDs).
std::string RandomName();

}  // namespace cluster
