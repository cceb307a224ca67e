#include "cluster/slot_claims.h"

#include <unordered_map>

namespace cluster {

SlotClaimPlan PlanSlotClaims(const State& st, const SlotClaim& c) {
  SlotClaimPlan plan;
  const Node* me = st.myself;
  const Node* sender = c.sender;
  const Node* cur_primary = st.MyPrimary();
  bool same_shard = sender->shard_id == me->shard_id;
  bool heard = false, heard_known = false;  // ShardHeardSinceStart, computed once if needed
  int sender_slots = 0, migrated_our_slots = 0;
  std::unordered_map<const Node*, int> taken_from;  // slots each old owner loses here
  for (int s = 0; s < kSlots; s++) {
    const Node* owner = st.slot_owner[s];
    if (!SlotTest(*c.slots, s)) {
      if (owner == sender && !SlotTest(st.owner_not_claiming, s))
        plan.stopped_claiming.push_back(s);
      // The new primary of a migration target's shard is the target now.
      const Node* to = st.migrating_to[s];
      if (to && to != sender && (to->config_epoch < c.epoch || to->IsReplica()) &&
          to->shard_id == sender->shard_id)
        plan.migrating_retarget.push_back(s);
      // The source let the slot go: the importing primary claims it (the target's primary may
      // have died between its replicas' SETSLOT NODE and the source's).
      if (me->IsPrimary() && st.importing_from[s] == sender) {
        if (!heard_known) heard = ShardHeardSinceStart(st), heard_known = true;
        if (heard) plan.auto_claim.push_back(s);
      }
      continue;
    }
    sender_slots++;
    if (owner == sender) {
      if (SlotTest(st.owner_not_claiming, s)) plan.claims_again.push_back(s);
      continue;
    }
    if (!st.Unclaimed(s) && owner->config_epoch >= c.epoch) continue;
    plan.take.push_back(s);
    if (owner) taken_from[owner]++;
    if (owner == me) plan.lost_mine.push_back(s);
    if (owner && owner == cur_primary) migrated_our_slots++;
    // Another shard took a slot I migrate: the operator moved it. Within my shard it is a
    // failover, and the migration goes on.
    if (st.migrating_to[s] && !same_shard) plan.migrating_close.push_back(s);
    if (const Node* from = st.importing_from[s]; from && from != sender) {
      if (from->shard_id == sender->shard_id)
        plan.importing_retarget.push_back(s);
      else
        plan.importing_close.push_back(s);
    }
  }
  // The slots each node holds once the plan is applied.
  auto slots_after = [&](const Node* n) {
    int k = n->num_slots;
    if (auto it = taken_from.find(n); it != taken_from.end()) k -= it->second;
    if (n == me) {
      for (int s : plan.auto_claim)
        if (st.slot_owner[s] != me) k++;
    }
    return k;
  };
  const Node* new_primary = migrated_our_slots > 0 ? sender : nullptr;
  // A node of my shard with a newer epoch and no slots: it took over (failover).
  uint64_t my_epoch = cur_primary ? cur_primary->config_epoch : 0;
  if (!new_primary && me->primary != sender && sender_slots == 0 && slots_after(me) == 0 &&
      my_epoch < c.epoch && same_shard)
    new_primary = sender;
  if (!new_primary || !cur_primary || slots_after(cur_primary) != 0) return plan;
  // My shard lost its last slot. A primary of my own shard with a newer epoch replaced me (I was
  // down while it was elected): follow it rather than whoever took my last slot, so that I
  // continue its history (partial sync) and my shard keeps its replica. Beyond Valkey, which
  // follows the last claimer and so depends on the order the claims arrive in.
  Node* follow = c.sender;
  bool follow_same = same_shard;
  if (!same_shard && me->IsPrimary())
    for (auto& up : st.nodes) {
      Node* n = up.get();
      if (n != me && n->IsPrimary() && slots_after(n) > 0 && n->shard_id == me->shard_id &&
          n->config_epoch > my_epoch) {
        follow = n;
        follow_same = true;
        break;
      }
    }
  if (c.allow_replica_migration || follow_same) {
    plan.role = SlotClaimPlan::Role::kFollow;
    plan.follow = follow;
    plan.follow_same_shard = follow_same;
  } else if (me->IsPrimary() && sender_slots >= migrated_our_slots && !same_shard) {
    plan.role = SlotClaimPlan::Role::kEmptyPrimary;
  } else {
    plan.role = SlotClaimPlan::Role::kKeepNoClean;
  }
  return plan;
}

bool ShardHeardSinceStart(const State& st) {
  for (auto& n : st.nodes)
    if (n.get() != st.myself && n->shard_id == st.myself->shard_id &&
        !(n->flags & kNodeHandshake) && n->data_received_ms < st.started_ms)
      return false;
  return true;
}

const Node* StaleClaimOwner(const State& st, const SlotClaim& c) {
  for (int s = 0; s < kSlots; s++) {
    if (!SlotTest(*c.slots, s) || st.Unclaimed(s) || SlotTest(st.unannounced, s)) continue;
    const Node* owner = st.slot_owner[s];
    if (owner != c.sender && owner->config_epoch > c.epoch) return owner;
  }
  return nullptr;
}

SlotBitmap AnnouncedSlots(const State& st, const Node* owner) {
  SlotBitmap b = owner->slots;
  if (owner == st.myself && st.unannounced_count)
    for (size_t i = 0; i < b.size(); i++) b[i] &= static_cast<uint8_t>(~st.unannounced[i]);
  return b;
}

SlotBitmap UpdateSlots(const State& st, const Node* owner) {
  SlotBitmap b = AnnouncedSlots(st, owner);
  if (st.not_claiming_count)
    for (size_t i = 0; i < b.size(); i++) b[i] &= static_cast<uint8_t>(~st.owner_not_claiming[i]);
  return b;
}

}  // namespace cluster
