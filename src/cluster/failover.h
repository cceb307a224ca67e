// Failover: replica elections and votes, manual failover with the MFSTART handshake, replica
// migration, and CLUSTER FAILOVER, as Valkey 8 does them. The bus (bus.cc) hands it the
// failover messages and every header from a known node; the cron drives the rest.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster/bus.h"
#include "cluster/bus_codec.h"
#include "cluster/state.h"

namespace cluster {

// What failover needs from the server layer (replication, the write pause, shard channels,
// nodes.conf), filled by name by the composition root (cluster.cc) or by a test. Empty ones
// are skipped (offsets read 0).
struct FailoverHooks {
  // The offset of my primary's history my data holds (0 until a first full sync loaded).
  std::function<int64_t()> data_offset;
  std::function<int64_t()> stream_offset;  // replication offset after the last write
  // Replica: the last bytes from the primary, or when the link went down (0: never up).
  std::function<int64_t()> primary_last_contact_ms;
  std::function<void(const std::string& ip, int port, bool full_sync)> become_replica;
  std::function<void()> become_primary;
  std::function<void(int64_t until_ms)> pause_writes;  // a manual failover's primary side
  std::function<void(int slot)> slot_left;  // my shard no longer serves it: its channels close
  // nodes.conf with fsync now (a vote, a new role); a node that cannot save stops.
  std::function<void()> save_or_die;
};

// One node's failover logic over a cluster state and bus it is given (the running node's,
// cluster.cc, or a test's).
class Failover {
 public:
  Failover(State& st, Bus& bus, FailoverHooks hooks);
  ~Failover();
  Failover(const Failover&) = delete;
  Failover& operator=(const Failover&) = delete;

  // Every header from a known sender: a replica in a manual failover learns the paused
  // primary's offset from it.
  void SawHeader(Node* sender, const Header& h);
  // FAILOVER_AUTH_REQUEST: vote (primaries owning slots).
  void AuthRequest(Node* sender, const Header& h);
  // FAILOVER_AUTH_ACK: count the vote.
  void AuthAck(Node* sender, const Header& h);
  // MFSTART from one of my replicas (on link l): pause writes and tell it my offset.
  void MfStart(Node* sender, Link* l);

  // Per bus tick (100 ms) and before the loop sleeps.
  void Cron(int64_t now_ms);
  void BeforeSleep();

  // A primary in a manual failover marks its messages PAUSED.
  bool ManualPausedHere() const;
  // Ends a manual failover (either side); a paused primary resumes writes.
  void ResetManual();

  // I become a replica of `primary` (every path: slot claims, replica migration, a lost last
  // slot, CLUSTER REPLICATE). Another shard's history means a full sync (offset 0 until it is
  // loaded), and my open slots close: a replica's open slots are its primary's, which the sync
  // brings. A manual failover in progress ends.
  void BecomeReplicaOf(Node* primary, bool same_shard);

  // A replica's open slots are its primary's: a full sync brings them (cluster-slot-states,
  // open_slots.cc), the replicated SETSLOTs keep them. Those this node holds on becoming a
  // replica are kept only if its replication may continue a stream that carries them: a
  // primary of another shard, or no replication history of its own (offset 0: a node just
  // restarted, since no replication id survives a restart) means a full sync, and until it
  // loads they would be this node's own, stale ones: a slot its primary closed while it was
  // down still open here, shown to redis-cli (whose SETSLOT a replica refuses) and routed by.
  void CloseOpenSlotsUnlessContinued(bool same_shard);

  // CLUSTER FAILOVER [FORCE|TAKEOVER], asked by `who` (for the log): "" when accepted, else
  // the error reply.
  enum class Mode { kDefault, kForce, kTakeover };
  std::string Request(Mode mode, const std::string& who);

 private:
  struct Core;  // failover.cc
  std::unique_ptr<Core> core_;
};

}  // namespace cluster
