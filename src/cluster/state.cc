// Cluster state bookkeeping: nodes, slot owners, roles.
#include "cluster/state.h"

#include <algorithm>
#include <limits>

#include "base/util.h"

namespace cluster {

State& GetState() {
  static State s;
  return s;
}

int64_t ForgetUntilMs(int64_t now_ms, uint64_t ttl_s) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (ttl_s > static_cast<uint64_t>((kMax - now_ms) / 1000)) return kMax;
  return now_ms + static_cast<int64_t>(ttl_s) * 1000;
}

std::string RandomName() { return base::RandomHex(static_cast<int>(kNodeNameLen)); }

Node* State::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void State::Index(Node* n) { by_name_.emplace(n->name, n); }

void State::Unindex(Node* n) {
  auto it = by_name_.find(n->name);
  if (it == by_name_.end() || it->second != n) return;
  by_name_.erase(it);
  for (auto& other : nodes)
    if (other.get() != n && other->name == n->name) return Index(other.get());
}

void State::Rename(Node* n, std::string name) {
  Unindex(n);
  n->name = std::move(name);
  Index(n);
  if (n->primary) {
    auto& v = n->primary->replicas;
    std::sort(v.begin(), v.end(), NameLess);
  }
}

Node* State::Add(std::string name, uint16_t flags, int64_t now_ms) {
  auto n = std::make_unique<Node>();
  n->name = name.empty() ? RandomName() : std::move(name);
  n->shard_id = RandomName();
  n->flags = flags;
  n->ctime_ms = now_ms;
  n->index = static_cast<uint32_t>(nodes.size());
  nodes.push_back(std::move(n));
  Index(nodes.back().get());
  return nodes.back().get();
}

void State::Remove(Node* n) {
  Unindex(n);
  for (int s = 0; s < kSlots; s++) {
    if (slot_owner[s] == n) UnassignSlot(s);
    if (migrating_to[s] == n) migrating_to[s] = nullptr;
    if (importing_from[s] == n) importing_from[s] = nullptr;
  }
  for (auto& other : nodes) {
    auto& r = other->fail_reports;
    r.erase(
        std::remove_if(r.begin(), r.end(), [n](const FailReport& f) { return f.reporter == n; }),
        r.end());
    if (other->primary == n) other->primary = nullptr;
  }
  if (n->primary) {
    auto& v = n->primary->replicas;
    v.erase(std::remove(v.begin(), v.end(), n), v.end());
  }
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                             [n](const std::unique_ptr<Node>& p) { return p.get() == n; }),
              nodes.end());
  for (size_t i = 0; i < nodes.size(); i++) nodes[i]->index = static_cast<uint32_t>(i);
}

void State::AssignSlot(int slot, Node* n) {
  SetOwnerClaims(slot, true);
  if (slot_owner[slot] == n) return;
  if (slot_owner[slot]) UnassignSlot(slot);
  slot_owner[slot] = n;
  SlotSet(&n->slots, slot);
  // A primary's first slot makes it a replica-migration target if replicas exist at all.
  if (++n->num_slots == 1 && std::any_of(nodes.begin(), nodes.end(), [](const auto& p) {
        return p->IsPrimary() && !p->replicas.empty();
      }))
    n->flags |= kNodeMigrateTo;
}

void State::UnassignSlot(int slot) {
  Node* o = slot_owner[slot];
  if (!o) return;
  if (slot_unassigned) slot_unassigned(slot);
  SetOwnerClaims(slot, true);
  SlotClear(&o->slots, slot);
  o->num_slots--;
  slot_owner[slot] = nullptr;
}

bool State::IsBlacklisted(const std::string& name, int64_t now_ms) {
  for (auto it = blacklist.begin(); it != blacklist.end();)
    it = it->second <= now_ms ? blacklist.erase(it) : std::next(it);
  return blacklist.count(name) > 0;
}

void State::SetOwnerClaims(int slot, bool claims) {
  if (SlotTest(owner_not_claiming, slot) != claims) return;
  if (claims) {
    SlotClear(&owner_not_claiming, slot);
    not_claiming_count--;
  } else {
    SlotSet(&owner_not_claiming, slot);
    not_claiming_count++;
  }
}

bool State::NameLess(const Node* a, const Node* b) { return a->name < b->name; }

void State::SetPrimary(Node* replica, Node* primary) {
  // MIGRATE_TO (for replica migration, failover.cc) marks primaries that had replicas, or took
  // over from one that had: an orphaned one of them attracts a migrating replica.
  if (Node* old = replica->primary) {
    auto& v = old->replicas;
    v.erase(std::remove(v.begin(), v.end(), replica), v.end());
    if (v.empty()) old->flags &= ~kNodeMigrateTo;
    if (!primary && replica != myself) replica->flags |= kNodeMigrateTo;
  }
  replica->primary = primary;
  if (primary) {
    replica->flags =
        static_cast<uint16_t>((replica->flags & ~(kNodePrimary | kNodeMigrateTo)) | kNodeReplica);
    // Sorted by name, as Valkey 8's clusterNodeAddReplica: CLUSTER SLOTS, SHARDS and REPLICAS
    // list them in that order, so every node answers the same bytes whatever order it learned
    // the replicas in.
    auto& v = primary->replicas;
    if (std::find(v.begin(), v.end(), replica) == v.end())
      v.insert(std::lower_bound(v.begin(), v.end(), replica, NameLess), replica);
    primary->flags |= kNodeMigrateTo;
  } else {
    replica->flags = static_cast<uint16_t>((replica->flags & ~kNodeReplica) | kNodePrimary);
  }
}

}  // namespace cluster
