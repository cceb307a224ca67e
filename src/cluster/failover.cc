// Failover (see failover.h). Behaviour as Valkey 8's cluster_legacy.c, log lines as Valkey 8
// writes them (operators grep for them); open slots are kept as they are (the promoted replica
// learned them through replication).
#include "cluster/failover.h"

#include <algorithm>

#include "base/log.h"
#include "base/time.h"
#include "cluster/changes.h"
#include "cluster/election.h"
#include "cluster/settings.h"
#include "cluster/vote.h"
#include "ds/hashtable.h"
#include "server/config.h"

namespace cluster {
namespace {

using server::cfg;

constexpr int64_t kMfTimeoutMs = 5000;            // a manual failover gives up after this
constexpr int64_t kMfPauseMs = 2 * kMfTimeoutMs;  // the primary's write pause
constexpr int64_t kMigrationDelayMs = 5000;       // orphaned this long before a replica moves
constexpr int64_t kCantFailoverRelogMs = 10000;

enum CantFailover { kCanFailover, kDataAge, kWaitingDelay, kExpired, kWaitingVotes };

// The failover state of this node: an election it runs (as a replica) and a manual failover
// in progress (on either side).
struct FailoverState {
  int64_t auth_time_ms = 0;  // when the election starts (or started); 0: never
  int auth_count = 0;        // votes received
  bool auth_sent = false;    // AUTH_REQUEST broadcast for auth_epoch
  int rank = 0;
  uint64_t auth_epoch = 0;
  CantFailover cant_reason = kCanFailover;
  int64_t cant_logged_ms = 0;
  // Manual failover. mf_end_ms 0: none.
  int64_t mf_end_ms = 0;
  std::string mf_replica;          // primary side: the replica that asked (by name)
  int64_t mf_primary_offset = -1;  // replica side: the paused primary's offset
  bool mf_can_start = false;       // replica side: caught up (or FORCE)
  bool todo_handle = false;        // run the election step before sleeping
};

}  // namespace

struct Failover::Core {
  State& st;
  Bus& bus;
  FailoverHooks hooks;
  FailoverState fo_;

  Core(State& s, Bus& b, FailoverHooks h) : st(s), bus(b), hooks(std::move(h)) {}

  void PauseWrites(int64_t until_ms) {
    if (hooks.pause_writes) hooks.pause_writes(until_ms);
  }

  int64_t MyOffset() { return hooks.data_offset ? hooks.data_offset() : 0; }

  // My rank among the replicas of my primary (ReplicaRank, cluster/election.h).
  int Rank() {
    Node* p = st.myself->primary;
    if (!p) return 0;
    std::vector<Sibling> sibs;
    for (Node* r : p->replicas)
      if (r != st.myself) sibs.push_back({r->repl_offset, r->name, r->Has(kNodeNoFailover)});
    return ReplicaRank(static_cast<uint64_t>(MyOffset()), st.myself->name, sibs);
  }

  // Says why no failover starts, once per reason (again after 10 s).
  void LogCantFailover(CantFailover reason, int64_t now) {
    if (reason == fo_.cant_reason && now - fo_.cant_logged_ms < kCantFailoverRelogMs) return;
    fo_.cant_reason = reason;
    fo_.cant_logged_ms = now;
    const char* msg = "Unknown reason code.";
    switch (reason) {
      case kDataAge:
        msg =
            "Disconnected from primary for longer than allowed. Please check the "
            "'cluster-replica-validity-factor' configuration option.";
        break;
      case kWaitingDelay:
        msg = "Waiting the delay before I can start a new failover.";
        break;
      case kExpired:
        msg = "Failover attempt expired.";
        break;
      case kWaitingVotes:
        msg = "Waiting for votes, but majority still not reached.";
        break;
      default:
        break;
    }
    LOG_NOTICE("Currently unable to failover: %s", msg);
    if (reason == kWaitingVotes || reason == kExpired)
      LOG_NOTICE("Needed quorum: %d. Number of votes received so far: %d", st.size / 2 + 1,
                 fo_.auth_count);
  }

  // The end of every failover: I take my primary's slots and tell everyone (as Valkey 8's
  // clusterFailoverReplaceYourPrimary).
  void ReplaceMyPrimary() {
    Node* me = st.myself;
    Node* old = me->primary;
    if (me->IsPrimary() || !old) return;
    st.SetPrimary(me, nullptr);
    if (hooks.become_primary) hooks.become_primary();
    for (int s = 0; s < kSlots; s++)
      if (st.slot_owner[s] == old) st.AssignSlot(s, me);
    // Open slots stay as replication taught them. cluster_state is re-evaluated before the loop
    // sleeps (cluster.cc), before the PONG below leaves.
    st.MarkChanged(false, false);
    if (hooks.save_or_die) hooks.save_or_die();
    bus.BroadcastPong();
    ResetManualFailover();
  }

  // A replica's side of an election (as Valkey 8's clusterHandleReplicaFailover), every tick and
  // after each vote.
  void HandleReplicaFailover(int64_t now) {
    Node* me = st.myself;
    Node* p = me->primary;
    bool manual = fo_.mf_end_ms && fo_.mf_can_start;
    int64_t nt = NodeTimeout();
    int64_t auth_timeout = std::max<int64_t>(2 * nt, 2000);
    int64_t auth_retry = 2 * auth_timeout;
    if (me->IsPrimary() || !p || (!p->Has(kNodeFail) && !manual) ||
        (cfg.cluster_replica_no_failover && !manual)) {
      fo_.cant_reason = kCanFailover;
      return;
    }
    // How stale my data may be: the time since the primary last spoke, less the node timeout
    // it takes to notice it is gone.
    int64_t last = hooks.primary_last_contact_ms ? hooks.primary_last_contact_ms() : 0;
    int64_t data_age = last ? now - last : now;
    if (data_age > nt) data_age -= nt;
    if (cfg.cluster_replica_validity_factor && !manual &&
        data_age > cfg.repl_ping_replica_period * 1000 + nt * cfg.cluster_replica_validity_factor) {
      LogCantFailover(kDataAge, now);
      return;
    }
    if (now - fo_.auth_time_ms > auth_retry) {
      // Schedule: a random delay so that replicas do not start together, plus a second per
      // replica with more data than mine; a manual failover starts now.
      fo_.auth_time_ms = now + 500 + static_cast<int64_t>(ds::RandomU64() % 500);
      fo_.auth_count = 0;
      fo_.auth_sent = false;
      fo_.rank = Rank();
      fo_.auth_time_ms += fo_.rank * 1000;
      if (fo_.mf_end_ms) {
        fo_.auth_time_ms = now;
        fo_.rank = 0;
        fo_.todo_handle = true;
      }
      LOG_NOTICE("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                 static_cast<long long>(fo_.auth_time_ms - now), fo_.rank,
                 static_cast<long long>(MyOffset()));
      bus.BroadcastPongToSiblings();
      return;
    }
    if (!fo_.auth_sent && !fo_.mf_end_ms) {
      int rank = Rank();
      if (rank != fo_.rank) {
        int64_t added = RankDelayChangeMs(fo_.rank, rank);
        fo_.auth_time_ms += added;
        fo_.rank = rank;
        LOG_NOTICE("Replica rank updated to #%d, added %lld milliseconds of delay.", rank,
                   static_cast<long long>(added));
      }
    }
    if (now < fo_.auth_time_ms) return LogCantFailover(kWaitingDelay, now);
    if (now - fo_.auth_time_ms > auth_timeout) return LogCantFailover(kExpired, now);
    if (!fo_.auth_sent) {
      st.current_epoch++;
      fo_.auth_epoch = st.current_epoch;
      LOG_NOTICE("Starting a failover election for epoch %llu.",
                 static_cast<unsigned long long>(st.current_epoch));
      st.MarkChanged(true, true);  // the request leaves once the epoch is on disk
      bus.BroadcastHeaderOnly(kTypeFailoverAuthRequest, fo_.mf_end_ms ? kMsgFlagForceAck : 0);
      fo_.auth_sent = true;
      return;
    }
    int quorum = st.size / 2 + 1;
    if (fo_.auth_count < quorum) return LogCantFailover(kWaitingVotes, now);
    LOG_NOTICE("Failover election won: I'm the new primary.");
    if (me->config_epoch < fo_.auth_epoch) {
      me->config_epoch = fo_.auth_epoch;
      LOG_NOTICE("configEpoch set to %llu after successful failover",
                 static_cast<unsigned long long>(fo_.auth_epoch));
    }
    ReplaceMyPrimary();
  }

  // Replica side of a manual failover: once my offset reaches the paused primary's, the
  // election may start (at once, rank 0, FORCEACK).
  void HandleManualFailover() {
    if (!fo_.mf_end_ms || fo_.mf_can_start || fo_.mf_primary_offset < 0) return;
    if (fo_.mf_primary_offset != MyOffset()) return;
    fo_.mf_can_start = true;
    fo_.todo_handle = true;
    LOG_NOTICE("All primary replication stream processed, manual failover can start.");
  }

  int GoodReplicas(const Node* primary) {
    int n = 0;
    for (const Node* r : primary->replicas)
      if (!r->Has(kNodeFail)) n++;
    return n;
  }

  // Replica migration (as Valkey 8's clusterHandleReplicaMigration): a replica of a primary with
  // the most replicas moves to an orphaned primary.
  void HandleReplicaMigration(int64_t now) {
    Node* me = st.myself;
    if (!me->IsReplica()) return;
    int orphaned = 0, max_replicas = 0, mine = 0;
    for (auto& up : st.nodes) {
      Node* n = up.get();
      if (n == me || n->Has(kNodeNoAddr | kNodeHandshake)) continue;
      if (!n->IsPrimary() || n->Has(kNodeFail)) continue;
      int ok = GoodReplicas(n);
      if (ok == 0 && n->num_slots > 0 && n->Has(kNodeMigrateTo)) orphaned++;
      max_replicas = std::max(max_replicas, ok);
      if (me->primary == n) mine = ok;
    }
    if (!orphaned || max_replicas < 2 || mine != max_replicas ||
        !cfg.cluster_allow_replica_migration || !st.ok)
      return;
    Node* my_primary = me->primary;
    if (!my_primary) return;
    int ok_siblings = 0;  // my primary keeps more than the barrier
    for (Node* r : my_primary->replicas)
      if (!r->Has(kNodeFail | kNodePfail)) ok_siblings++;
    if (ok_siblings <= cfg.cluster_migration_barrier) return;
    Node* target = nullptr;
    Node* candidate = me;  // the smallest ID among replicas of the best-served primaries
    for (auto& up : st.nodes) {
      Node* n = up.get();
      bool is_orphaned = !n->IsReplica() && !n->Has(kNodeFail) && n->Has(kNodeMigrateTo);
      int ok = n->IsPrimary() ? GoodReplicas(n) : 0;
      if (ok > 0) is_orphaned = false;
      if (is_orphaned) {
        if (!target && n->num_slots > 0) target = n;
        if (!n->orphaned_time_ms) n->orphaned_time_ms = now;
      } else {
        n->orphaned_time_ms = 0;
      }
      if (ok == max_replicas)
        for (Node* r : n->replicas)
          if (r->name < candidate->name) candidate = r;
    }
    if (!target || candidate != me || now - target->orphaned_time_ms <= kMigrationDelayMs) return;
    LOG_NOTICE("Migrating to orphaned primary %.40s (%s) in shard %.40s", target->name.c_str(),
               target->human_nodename.c_str(), target->shard_id.c_str());
    BecomeReplicaOf(target, /*same_shard=*/false);
  }

  void FailoverSawHeader(Node* sender, const Header& h) {
    Node* me = st.myself;
    if (fo_.mf_end_ms && me->IsReplica() && me->primary == sender &&
        (h.mflags[0] & kMsgFlagPaused) && fo_.mf_primary_offset < 0) {
      fo_.mf_primary_offset = static_cast<int64_t>(h.offset);
      LOG_NOTICE("Received replication offset for paused primary manual failover: %lld",
                 static_cast<long long>(fo_.mf_primary_offset));
      HandleManualFailover();
    }
  }

  void FailoverAuthRequest(Node* sender, const Header& h) {
    int64_t now = base::MsTime();
    VoteRequest req{.sender = sender,
                    .current_epoch = h.current_epoch,
                    .config_epoch = h.config_epoch,
                    .slots = &h.myslots,
                    .force_ack = (h.mflags[0] & kMsgFlagForceAck) != 0};
    VoteDecision d = DecideVote(st, req, now, NodeTimeout());
    const char* who = sender->name.c_str();
    const char* human = sender->human_nodename.c_str();
    auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    switch (d.verdict) {
      case VoteVerdict::kGrant:
        break;
      case VoteVerdict::kNotVoter:
        return;  // replicas and primaries without slots stay silent
      case VoteVerdict::kStaleRequestEpoch:
        LOG_WARNING("Failover auth denied to %.40s (%s): reqEpoch (%llu) < curEpoch(%llu)", who,
                    human, ull(h.current_epoch), ull(st.current_epoch));
        return;
      case VoteVerdict::kAlreadyVoted:
        LOG_WARNING("Failover auth denied to %.40s (%s): already voted for epoch %llu", who, human,
                    ull(st.current_epoch));
        return;
      case VoteVerdict::kRequesterIsPrimary:
      case VoteVerdict::kUnknownPrimary:
      case VoteVerdict::kPrimaryUp:
        LOG_WARNING("Failover auth denied to %.40s (%s) for epoch %llu: %s", who, human,
                    ull(h.current_epoch), VoteVerdictName(d.verdict));
        return;
      case VoteVerdict::kVotedRecently:
        LOG_WARNING(
            "Failover auth denied to %.40s %s: can't vote about this primary before %lld "
            "milliseconds",
            who, human, static_cast<long long>(d.wait_ms));
        return;
      case VoteVerdict::kSlotNewerEpoch:
        LOG_WARNING("Failover auth denied to %.40s (%s): slot %d epoch (%llu) > reqEpoch (%llu)",
                    who, human, d.slot, ull(d.owner_epoch), ull(h.config_epoch));
        // Beyond Valkey: the requester hears of that owner (an UPDATE, as a stale primary would
        // from its pings). A replica that missed its primary's last epoch bump before the
        // primary died asks with the old epoch and, in Valkey 8, is refused by every voter that
        // knows the new one, forever; told, it asks with the right epoch at its next attempt.
        bus.SendUpdateTo(sender, d.owner);
        return;
    }
    st.last_vote_epoch = st.current_epoch;
    sender->primary->voted_time_ms = now;
    // The vote is on disk before it is given: a restarted voter must not vote twice.
    if (hooks.save_or_die) hooks.save_or_die();
    bus.SendHeaderOnly(sender->link, kTypeFailoverAuthAck, 0);
    LOG_NOTICE("Failover auth granted to %.40s (%s) for epoch %llu", who, human,
               ull(st.current_epoch));
  }

  void FailoverAuthAck(Node* sender, const Header& h) {
    // Votes count from primaries with slots that saw my election's epoch.
    if (sender->IsVotingPrimary() && h.current_epoch >= fo_.auth_epoch && fo_.auth_sent) {
      fo_.auth_count++;
      fo_.todo_handle = true;
    }
  }

  void FailoverMfStart(Node* sender, Link* l) {
    if (sender->primary != st.myself) return;  // only from my own replica
    ResetManualFailover();
    int64_t now = base::MsTime();
    fo_.mf_end_ms = now + kMfTimeoutMs;
    fo_.mf_replica = sender->name;
    PauseWrites(now + kMfPauseMs);
    LOG_NOTICE("Manual failover requested by replica %.40s (%s).", sender->name.c_str(),
               sender->human_nodename.c_str());
    // The PING carries PAUSED and the offset at which writes stopped.
    bus.SendPingOn(l);
  }

  bool ManualFailoverPausedHere() {
    return fo_.mf_end_ms && !fo_.mf_replica.empty() && st.myself->IsPrimary();
  }

  void ResetManualFailover() {
    // A primary that paused for its replica resumes (held writes are answered after this,
    // with MOVED if the replica took over).
    if (!fo_.mf_replica.empty()) PauseWrites(base::MsTime());
    fo_.mf_end_ms = 0;
    fo_.mf_can_start = false;
    fo_.mf_replica.clear();
    fo_.mf_primary_offset = -1;
  }

  void FailoverCron(int64_t now) {
    if (fo_.mf_end_ms && fo_.mf_end_ms < now) {
      LOG_WARNING("Manual failover timed out.");
      ResetManualFailover();
    }
    if (st.myself->IsPrimary()) {
      // The replica of a manual failover hears my offset every tick.
      if (fo_.mf_end_ms && !fo_.mf_replica.empty())
        if (Node* r = st.Find(fo_.mf_replica); r && r->link) bus.SendPingOn(r->link);
      return;
    }
    HandleManualFailover();
    HandleReplicaFailover(now);
    HandleReplicaMigration(now);
  }

  void FailoverBeforeSleep() {
    if (!st.myself || st.myself->IsPrimary()) return;
    HandleManualFailover();
    if (!fo_.todo_handle) return;
    fo_.todo_handle = false;
    HandleReplicaFailover(base::MsTime());
  }

  void CloseOpenSlotsUnlessContinued(bool same_shard) {
    if (same_shard && hooks.stream_offset && hooks.stream_offset() > 0) return;
    for (int s = 0; s < kSlots; s++) st.migrating_to[s] = st.importing_from[s] = nullptr;
  }

  void BecomeReplicaOf(Node* primary, bool same_shard) {
    CloseOpenSlotsUnlessContinued(same_shard);
    st.SetPrimary(st.myself, primary);
    st.myself->shard_id = primary->shard_id;
    if (hooks.become_replica) hooks.become_replica(primary->ip, primary->tcp_port, !same_shard);
    // The shard channels of slots my new primary does not serve are no longer mine to serve:
    // their subscribers are told (Valkey 8's clusterSetPrimary does the same).
    for (int s = 0; s < kSlots; s++)
      if (st.slot_owner[s] != primary && hooks.slot_left) hooks.slot_left(s);
    ResetManualFailover();  // a paused old primary answers its held writes with MOVED
    st.MarkChanged(true, true);
    // Tell everyone now rather than with the next pings: voters must not take me for a primary
    // when my siblings ask for votes (beyond Valkey, which waits for the pings).
    bus.BroadcastPong();
  }

  std::string Request(Mode mode, const std::string& who) {
    Node* me = st.myself;
    if (me->IsPrimary()) return "You should send CLUSTER FAILOVER to a replica";
    Node* p = me->primary;
    if (!p) return "I'm a replica but my master is unknown to me";
    bool force = mode != Mode::kDefault;
    if (!force && (p->Has(kNodeFail) || !p->link))
      return "Master is down or failed, please use CLUSTER FAILOVER FORCE";
    ResetManualFailover();
    fo_.mf_end_ms = base::MsTime() + kMfTimeoutMs;
    if (mode == Mode::kTakeover) {
      // No vote: a new epoch of my own, and the slots.
      LOG_NOTICE("Taking over the primary (user request from '%s').", who.c_str());
      BumpEpochWithoutConsensus(st);
      ReplaceMyPrimary();
    } else if (force) {
      LOG_NOTICE("Forced failover user request accepted (user request from '%s').", who.c_str());
      fo_.mf_can_start = true;
      fo_.todo_handle = true;
    } else {
      LOG_NOTICE("Manual failover user request accepted (user request from '%s').", who.c_str());
      bus.SendHeaderOnly(p->link, kTypeMfStart, 0);
    }
    return "";
  }
};

Failover::Failover(State& st, Bus& bus, FailoverHooks hooks)
    : core_(std::make_unique<Core>(st, bus, std::move(hooks))) {}
Failover::~Failover() = default;
void Failover::SawHeader(Node* sender, const Header& h) { core_->FailoverSawHeader(sender, h); }
void Failover::AuthRequest(Node* sender, const Header& h) { core_->FailoverAuthRequest(sender, h); }
void Failover::AuthAck(Node* sender, const Header& h) { core_->FailoverAuthAck(sender, h); }
void Failover::MfStart(Node* sender, Link* l) { core_->FailoverMfStart(sender, l); }
void Failover::Cron(int64_t now_ms) { core_->FailoverCron(now_ms); }
void Failover::BeforeSleep() { core_->FailoverBeforeSleep(); }
bool Failover::ManualPausedHere() const { return core_->ManualFailoverPausedHere(); }
void Failover::ResetManual() { core_->ResetManualFailover(); }
void Failover::BecomeReplicaOf(Node* primary, bool same_shard) {
  core_->BecomeReplicaOf(primary, same_shard);
}
void Failover::CloseOpenSlotsUnlessContinued(bool same_shard) {
  core_->CloseOpenSlotsUnlessContinued(same_shard);
}
std::string Failover::Request(Mode mode, const std::string& who) {
  return core_->Request(mode, who);
}

}  // namespace cluster
