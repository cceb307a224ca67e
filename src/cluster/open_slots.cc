// Open slots (slot migration): CLUSTER SETSLOT and how its state reaches the replicas
// (as in Valkey 8). A primary replicates SETSLOT before applying it; a replica applies
// it from its primary's stream at its point in the stream, and learns the open slots of a
// primary it attaches to from the full-sync aux field `cluster-slot-states`.
#include "cluster/open_slots.h"

#include <cstdint>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/changes.h"
#include "cluster/cmd_args.h"
#include "cluster/nodes_conf.h"
#include "cluster/runtime.h"
#include "cluster/slot_export.h"
#include "cluster/slot_import.h"
#include "cluster/slot_keys.h"
#include "cluster/syncslots_cmd.h"
#include "persist/snapshot.h"
#include "repl/repl.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/slot_stats.h"
#include "server/write_out.h"

namespace cluster {
namespace {

using server::Client;

constexpr int64_t kDefaultSetSlotTimeoutMs = 2000;

enum class Action { kMigrating, kImporting, kStable, kNode };

struct SetSlotArgs {
  int slot = -1;
  Action action = Action::kStable;
  Node* node = nullptr;
  int64_t deadline_ms = 0;  // 0: wait forever
};

// A node named by the primary's stream that this replica has not heard of yet: a placeholder
// that gossip fills in, so that the replica's open slots still equal its primary's.
Node* FindOrPlaceholder(std::string_view id) {
  State& st = GetState();
  if (Node* n = st.Find(id)) return n;
  if (!IsNodeId(id)) return nullptr;
  return st.Add(std::string(id), 0, base::MsTime());
}

// Parses and validates; replies the error and returns false if the command must not run.
// The ownership checks are a primary's; a replica takes what its primary decided.
bool ParseSetSlot(Client* c, SetSlotArgs* out) {
  State& st = GetState();
  auto& a = c->argv;
  bool replica = st.myself->IsReplica();
  if (replica && !(c->flags & server::kPrimary)) {
    c->R().Error("Please use SETSLOT only with masters.");
    return false;
  }
  if (!SlotArg(c, a[2], &out->slot)) return false;
  int slot = out->slot;
  std::string action = base::ToLower(a[3]);
  size_t optarg = 0;
  auto lookup = [&](const char* unknown) {
    out->node = replica ? FindOrPlaceholder(a[4]) : st.Find(a[4]);
    if (!out->node) {
      c->R().Error(std::string(unknown) + std::string(a[4]));
      return false;
    }
    if (!replica && out->node->IsReplica()) {
      c->R().Error("Target node is not a master");
      return false;
    }
    return true;
  };
  // A slot moving atomically (CLUSTER MIGRATESLOTS here, an import of it there) takes no
  // legacy migration state: the job ends first (CANCELSLOTMIGRATIONS on its source).
  if ((action == "migrating" || action == "importing") && !replica &&
      (SlotExporting(slot) || NodeImports().ImportingSlot(slot))) {
    c->R().Error("Slot " + std::to_string(slot) +
                 " is in an atomic slot migration (CLUSTER GETSLOTMIGRATIONS); cancel it first");
    return false;
  }
  if (action == "migrating" && a.size() >= 5) {
    out->action = Action::kMigrating;
    if (!replica && st.slot_owner[slot] != st.myself) {
      c->R().Error("I'm not the owner of hash slot " + std::to_string(slot));
      return false;
    }
    if (!lookup("I don't know about node ")) return false;
    optarg = 5;
  } else if (action == "importing" && a.size() >= 5) {
    out->action = Action::kImporting;
    if (st.slot_owner[slot] == st.myself) {
      c->R().Error("I'm already the owner of hash slot " + std::to_string(slot));
      return false;
    }
    if (!lookup("I don't know about node ")) return false;
    optarg = 5;
  } else if (action == "stable" && a.size() >= 4) {
    out->action = Action::kStable;
    optarg = 4;
  } else if (action == "node" && a.size() >= 5) {
    out->action = Action::kNode;
    if (!lookup("Unknown node ")) return false;
    if (st.slot_owner[slot] == st.myself && out->node != st.myself && SlotHasKeys(slot)) {
      c->R().Error("Can't assign hashslot " + std::to_string(slot) +
                   " to a different node while I still hold keys for this hash slot.");
      return false;
    }
    optarg = 5;
  } else {
    c->R().Error("Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
    return false;
  }
  // Options after the action; unknown words are ignored, as in Valkey.
  out->deadline_ms = base::MsTime() + kDefaultSetSlotTimeoutMs;
  for (size_t i = optarg; i < a.size(); i++) {
    if (!base::EqualsNoCase(a[i], "timeout")) continue;
    if (i + 1 >= a.size()) {
      c->R().Error("Missing timeout value");
      return false;
    }
    int64_t ms;
    if (!base::ParseInt64(a[i + 1], &ms)) {
      c->R().Error("timeout is not an integer or out of range");
      return false;
    }
    if (ms < 0) {
      c->R().Error("timeout is negative");
      return false;
    }
    int64_t now = base::MsTime();
    if (ms > INT64_MAX - now) {  // the deadline would overflow
      c->R().Error("timeout is out of range");
      return false;
    }
    out->deadline_ms = ms == 0 ? 0 : now + ms;
  }
  return true;
}

// NODE: the slot now belongs to n (the last step of a migration).
void AssignFinal(int slot, Node* n) {
  State& st = GetState();
  if (!SlotHasKeys(slot)) st.migrating_to[slot] = nullptr;
  Node* my_primary = st.MyPrimary();
  bool slot_was_mine = my_primary && st.slot_owner[slot] == my_primary;
  st.UnassignSlot(slot);
  st.AssignSlot(slot, n);
  bool shard_empty = my_primary && my_primary->num_slots == 0;
  if (slot_was_mine && shard_empty && n != my_primary) {
    if (server::cfg.cluster_allow_replica_migration) {
      // My shard gave away its last slot: follow its new owner (a full sync; the open slots
      // close, as on CLUSTER REPLICATE).
      LOG_NOTICE(
          "Lost my last slot during slot migration. Reconfiguring myself as a replica "
          "of %.40s in shard %.40s",
          n->name.c_str(), n->shard_id.c_str());
      NodeFailover().BecomeReplicaOf(n, /*same_shard=*/false);
    } else if (st.myself->IsPrimary()) {
      LOG_NOTICE(
          "My last slot was migrated to node %.40s in shard %.40s. I am now an empty "
          "primary.",
          n->name.c_str(), n->shard_id.c_str());
    }
  }
  if ((n == st.myself || (st.myself->IsReplica() && n == st.myself->primary)) &&
      st.importing_from[slot]) {
    st.importing_from[slot] = nullptr;
    if (n == st.myself) {
      // Claimed by hand: a new epoch makes the claim win everywhere, and everyone hears now.
      if (BumpEpochWithoutConsensus(st))
        LOG_NOTICE("ConfigEpoch updated after importing slot %d", slot);
      NodeBus().BroadcastPong();
    }
  }
}

// Whether applying the command changes anything here. One that does not needs no round trip
// to the replicas: what it could change on them came through the stream already, and
// ownership reaches them by gossip. redis-cli's reshard sends SETSLOT NODE to the source and to
// every other primary after the target already told them by gossip: those are such no-ops.
bool Changes(const SetSlotArgs& a) {
  State& st = GetState();
  switch (a.action) {
    case Action::kMigrating:
      return st.migrating_to[a.slot] != a.node;
    case Action::kImporting:
      return st.importing_from[a.slot] != a.node;
    case Action::kStable:
      return st.migrating_to[a.slot] || st.importing_from[a.slot];
    case Action::kNode:
      return st.slot_owner[a.slot] != a.node || st.migrating_to[a.slot] ||
             st.importing_from[a.slot];
  }
  return true;
}

void Apply(const SetSlotArgs& a) {
  State& st = GetState();
  switch (a.action) {
    case Action::kMigrating:
      LOG_NOTICE("Migrating slot %d to node %.40s", a.slot, a.node->name.c_str());
      st.migrating_to[a.slot] = a.node;
      break;
    case Action::kImporting:
      LOG_NOTICE("Importing slot %d from node %.40s", a.slot, a.node->name.c_str());
      st.importing_from[a.slot] = a.node;
      break;
    case Action::kStable:
      LOG_NOTICE("Marking slot %d stable", a.slot);
      st.migrating_to[a.slot] = st.importing_from[a.slot] = nullptr;
      break;
    case Action::kNode:
      LOG_NOTICE("Assigning slot %d to node %.40s in shard %.40s", a.slot, a.node->name.c_str(),
                 a.node->shard_id.c_str());
      AssignFinal(a.slot, a.node);
      break;
  }
  // A replica applies its primary's state, which the primary holds and a full sync carries
  // again: saved like what is learned from others, with the next save (at most 100 ms later,
  // before a disk snapshot forks, at shutdown). Its acknowledgement never waited for the file;
  // a reshard sends it two SETSLOTs per slot moved.
  if (st.myself->IsReplica())
    st.MarkLearned();
  else
    st.MarkChanged(true, false);
}

// Beyond Valkey: a SETSLOT that some replicas applied but this primary did not (timeout,
// CLIENT UNBLOCK, the client left) would leave them with open slots the primary does not have.
// The stream brings them back: the slot made stable, then opened again as it is here.
void Abandoned(const std::vector<std::string>& argv) {
  int64_t slot;
  if (argv.size() < 3 || !base::ParseInt64(argv[2], &slot) || slot < 0 || slot >= kSlots) return;
  State& st = GetState();
  // No longer feeding a stream of our own, or no replica left that takes SETSLOT.
  if (st.myself->IsReplica() || !repl::SlotStateReplicaLinks()) return;
  std::string s = std::to_string(slot);
  // Replicas only: SETSLOT never goes to the AOF (Valkey 8 propagates it to replicas alone).
  auto send = [](std::vector<std::string_view> v) { server::WriteOut(0, v, server::kToReplicas); };
  send({"CLUSTER", "SETSLOT", s, "STABLE"});
  if (Node* to = st.migrating_to[slot]) send({"CLUSTER", "SETSLOT", s, "MIGRATING", to->name});
  if (Node* from = st.importing_from[slot])
    send({"CLUSTER", "SETSLOT", s, "IMPORTING", from->name});
  LOG_NOTICE("SETSLOT %s was not applied here: its replicas are told the slot's state again",
             s.c_str());
}

// cluster-slot-states: "<slot><dir><id>," per open slot, importing ('<') first then
// migrating ('>'), each in ascending slot order; omitted when no slot is open.
bool WriteSlotStates(std::string* v) {
  State& st = GetState();
  v->clear();
  for (int pass = 0; pass < 2; pass++)
    for (int s = 0; s < kSlots; s++) {
      Node* n = pass == 0 ? st.importing_from[s] : st.migrating_to[s];
      if (!n) continue;
      *v += std::to_string(s);
      *v += pass == 0 ? '<' : '>';
      *v += n->name;
      *v += ',';
    }
  return !v->empty();
}

bool ReadSlotStates(std::string_view v) {
  State& st = GetState();
  struct Entry {
    int slot;
    bool importing;
    std::string_view id;
  };
  std::vector<Entry> entries;
  while (!v.empty()) {
    size_t dir = v.find_first_of("<>");
    if (dir == std::string_view::npos || v.size() < dir + 1 + kNodeNameLen + 1 ||
        v[dir + 1 + kNodeNameLen] != ',')
      return false;
    int64_t slot;
    if (!base::ParseInt64(v.substr(0, dir), &slot) || slot < 0 || slot >= kSlots) return false;
    std::string_view id = v.substr(dir + 1, kNodeNameLen);
    if (!IsNodeId(id)) return false;
    entries.push_back({static_cast<int>(slot), v[dir] == '<', id});
    v.remove_prefix(dir + 1 + kNodeNameLen + 1);
  }
  // Only a well-formed value changes anything.
  for (auto& e : entries) {
    Node* n = FindOrPlaceholder(e.id);
    (e.importing ? st.importing_from : st.migrating_to)[e.slot] = n;
  }
  st.MarkChanged(true, false);
  return true;
}

// A full sync starts from no open slots: what the primary's snapshot says, nothing older.
void ClearOpenSlots() {
  State& st = GetState();
  bool any = false;
  for (int s = 0; s < kSlots; s++) {
    any |= st.migrating_to[s] || st.importing_from[s];
    st.migrating_to[s] = st.importing_from[s] = nullptr;
  }
  if (any) st.MarkChanged(true, false);
}

}  // namespace

void SetSlotCommand(Client* c) {
  if (!Enabled(c)) return;
  SetSlotArgs a;
  if (!ParseSetSlot(c, &a)) {
    // Its replicas applied it, yet it cannot be applied here any more: undo it there.
    if (c->flags & server::kReplicationDone)
      Abandoned(std::vector<std::string>(c->argv.begin(), c->argv.end()));
    return;
  }
  State& st = GetState();
  bool changes = Changes(a);
  if (st.myself->IsPrimary() && !(c->flags & server::kReplicationDone) &&
      repl::SlotStateReplicaLinks()) {
    // Replicated before applied: the stream carries it first, and the replicas that
    // apply it must have done so before it is applied here. Replicas too old to take it
    // (Redis 7.0 refuses it and logs a critical error) never see it when alone, as in
    // Valkey; one still syncing gets it through the stream it receives after its snapshot.
    // One that changes nothing here is still streamed (a replica may lag behind a change
    // made here alone, e.g. CLUSTER FORGET) but not waited for.
    // Replicas only, as Valkey 8's PROPAGATE_REPL: slot ownership lives in nodes.conf, and an
    // AOF replaying old SETSLOTs at start took back slots moved away since (aof.cc).
    server::ForcePropagation(server::kToReplicas);
    int eligible = repl::SlotStateReplicas();
    bool can_block = !server::g.in_exec && !c->InMulti() && changes;
    if (eligible > 0 && can_block) {
      server::BlockUntilReplicated(c, eligible, a.deadline_ms, repl::SlotStateReplicasAckedAtLeast,
                                   "-NOREPLICAS Not enough good replicas to write.", Abandoned);
      repl::RequestAcks();
      return;
    }
  }
  // A no-op leaves nodes.conf as it is (no rewrite, no log line). Valkey 8 deletes and adds
  // the slot again even then, which zeroes its CLUSTER SLOT-STATS counters: so do we.
  if (changes)
    Apply(a);
  else if (a.action == Action::kNode)
    server::slot_stats::Reset(a.slot);
  c->R().Ok();
}

void InitOpenSlots() {
  persist::AuxHook hook;
  hook.write = WriteSlotStates;
  hook.read = ReadSlotStates;
  hook.replication_only = true;
  hook.before_load = ClearOpenSlots;
  persist::RegisterAuxField("cluster-slot-states", std::move(hook));
}

}  // namespace cluster
