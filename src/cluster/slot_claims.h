// What a primary's claim of slots at a config epoch changes (a PING/PONG header, or an UPDATE
// about it), as a pure function of the cluster state: Valkey 8's clusterUpdateSlotsConfigWith
// split into a plan (here, table-tested in tests/cc/slot_claims_test.cc) and its application
// (bus.cc, which logs each change, deletes the keys of dirty slots and changes roles).
#pragma once
#include <cstdint>
#include <vector>

#include "cluster/state.h"

namespace cluster {

struct SlotClaim {
  Node* sender = nullptr;  // a known primary, not myself (mutable only for the plan's `follow`)
  uint64_t epoch = 0;      // its configEpoch
  const SlotBitmap* slots = nullptr;
  bool allow_replica_migration = true;  // cluster-allow-replica-migration
};

struct SlotClaimPlan {
  // Claimed slots that change owner to the sender: unowned, owned at an older epoch, or owned
  // by a node that stopped claiming them.
  std::vector<int> take;
  std::vector<int> lost_mine;  // of `take`, mine: dirty if they hold keys
  // Slots bound to the sender that it no longer claims (they stay bound), and claimed again.
  std::vector<int> stopped_claiming, claims_again;
  // Open slots: a migration target's shard failed over (migrating_to becomes the sender); the
  // sender, of another shard, took a slot I migrate (migrating_to closes); the source failed
  // over (importing_from becomes the sender) or another shard took the slot (closes).
  std::vector<int> migrating_retarget, migrating_close, importing_retarget, importing_close;
  // Importing slots whose source (the sender) gave them up: I, the target primary, claim
  // them with a new epoch (only once my shard has spoken since I started, ShardHeardSinceStart).
  std::vector<int> auto_claim;
  // Which role I take afterwards.
  enum class Role {
    kKeep,          // no change of role; dirty slots lose their keys
    kFollow,        // my shard lost every slot: I become a replica of `follow`
    kEmptyPrimary,  // I lost my last slot to another shard and stay an empty primary
    kKeepNoClean,   // I lost my shard's last slot but stay as I am (no migration allowed)
  } role = Role::kKeep;
  Node* follow = nullptr;
  bool follow_same_shard = false;

  bool Changed() const {
    return !take.empty() || !stopped_claiming.empty() || !claims_again.empty() ||
           !migrating_retarget.empty() || !migrating_close.empty() || !importing_retarget.empty() ||
           !importing_close.empty() || !auto_claim.empty();
  }
};

SlotClaimPlan PlanSlotClaims(const State& st, const SlotClaim& c);

// Whether every other node of my shard has spoken since this process started. A primary
// restarted from nodes.conf with an importing slot must first learn whether one of its replicas
// replaced it; else its auto-claim bumps its stale epoch over the new primary's and takes the
// whole shard back, data the new primary took included. Valkey calls that case rare and lets it
// happen; we wait (a shard member that never answers leaves the slot to redis-cli --cluster
// fix).
bool ShardHeardSinceStart(const State& st);

// The first claimed slot whose owner, as I see it, has a newer epoch than the claim: the
// claimer is stale and hears of that owner with an UPDATE. Unclaimed slots never count (no
// UPDATE spreads an ownership its owner gave up), nor slots we took whose claim is not on disk
// yet (State::unannounced). nullptr if none.
const Node* StaleClaimOwner(const State& st, const SlotClaim& c);

// The slots an UPDATE about `owner` carries: its slots but those it stopped claiming.
SlotBitmap UpdateSlots(const State& st, const Node* owner);
// The slots `owner` is said to own in our messages: its own, less those whose claim is not on
// disk yet when it is myself (State::unannounced).
SlotBitmap AnnouncedSlots(const State& st, const Node* owner);

}  // namespace cluster
