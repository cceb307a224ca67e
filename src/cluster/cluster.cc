// Cluster mode: start-up, cron, cluster_state, routing glue, shared services (see cluster.h).
#include "cluster/cluster.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/changes.h"
#include "cluster/data_check.h"
#include "cluster/cluster_cmd.h"
#include "cluster/nodes_conf.h"
#include "cluster/open_slots.h"
#include "cluster/route.h"
#include "cluster/runtime.h"
#include "cluster/settings.h"
#include "cluster/slot_export.h"
#include "cluster/slot_keys.h"
#include "cluster/slot_import.h"
#include "cluster/syncslots_cmd.h"
#include "net/event_loop.h"
#include "server/bio.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/cluster_hooks.h"
#include "server/command.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/pubsub.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/slot_stats.h"
#include "server/write_out.h"

namespace cluster {

namespace {

void UpdateState(int64_t now_ms);  // below

using server::cfg;
using server::g;

// The node that answers for the slots of my shard: myself, or the top of my replication chain.
Node* TopPrimary() {
  State& st = GetState();
  Node* p = st.myself;
  for (int hops = 0; p && p->IsReplica() && p->primary && hops < 16; hops++) p = p->primary;
  return p;
}

NodeView MyView() {
  State& st = GetState();
  Node* top = TopPrimary();
  NodeView view;
  view.is_primary = st.myself->IsPrimary();
  view.myself = st.myself->index;
  view.my_primary = top ? top->index : st.myself->index;
  view.cluster_ok = st.ok;
  view.allow_reads_when_down = cfg.cluster_allow_reads_when_down;
  view.allow_pubsubshard_when_down = cfg.cluster_allow_pubsubshard_when_down;
  return view;
}

SlotState SlotStateOf(int slot) {
  State& st = GetState();
  SlotState s;
  if (Node* o = st.slot_owner[slot]) s.owner = o->index;
  if (Node* m = st.migrating_to[slot]) s.migrating_to = m->index;
  if (Node* i = st.importing_from[slot]) s.importing_from = i->index;
  return s;
}

// The reply of a routing decision that is not "serve": "-MOVED 3999 127.0.0.1:6381" ...
std::string RedirectReply(const RouteDecision& d, const server::Client* c) {
  State& st = GetState();
  Node* target =
      d.target != kNoNode && d.target < st.nodes.size() ? st.nodes[d.target].get() : nullptr;
  // A leading '-' keeps the reply's own error code (MOVED, ASK, CLUSTERDOWN ...).
  return "-" + (target ? FormatRedirect(d, NodeEndpoint(target, c->OnIpv6()), target->tcp_port)
                       : FormatRedirect(d, "", 0));
}

// Clients blocked on keys whose slot is no longer served here are redirected (RouteBlocked).
void RedirectBlockedClients() {
  struct Hit {
    server::Client* c;
    std::string err;
  };
  std::vector<Hit> hits;
  server::ForEachKeyBlocked(
      [](server::Client* c, const server::BlockState& bs, void* arg) {
        if (bs.keys.empty()) return;
        auto slot_state = [](int slot) { return SlotStateOf(slot); };
        BlockedInput in{MyView(), slot_state};
        in.readonly = c->flags & server::kReadonly;
        in.last_cmd_write = c->cmd && (c->cmd->flags & server::kCmdWrite);
        in.first_key = bs.keys.front();
        RouteDecision d = RouteBlocked(in);
        if (d.kind != RouteKind::kServe)
          static_cast<std::vector<Hit>*>(arg)->push_back({c, RedirectReply(d, c)});
      },
      &hits);
  for (auto& h : hits) server::UnblockWithError(h.c, h.err);
}

void SetMyAddressFromConfig() {
  State& st = GetState();
  Node* me = st.myself;
  me->tcp_port = static_cast<int>(cfg.cluster_announce_port ? cfg.cluster_announce_port : cfg.port);
  me->tls_port = static_cast<int>(cfg.cluster_announce_tls_port);
  me->cport = static_cast<int>(cfg.cluster_announce_bus_port ? cfg.cluster_announce_bus_port
                                                             : NodeBus().Port());
  if (!cfg.cluster_announce_ip.empty()) me->ip = cfg.cluster_announce_ip;
  me->hostname = cfg.cluster_announce_hostname;
  me->human_nodename = cfg.cluster_announce_human_nodename;
  me->client_ipv4 = cfg.cluster_announce_client_ipv4;
  me->client_ipv6 = cfg.cluster_announce_client_ipv6;
  if (cfg.cluster_replica_no_failover)
    me->flags |= kNodeNoFailover;
  else
    me->flags &= ~kNodeNoFailover;
}

// CLUSTER GETSLOTMIGRATIONS lists the finished jobs of both sides up to
// cluster-slot-migration-log-max-len (Valkey 9's one log): beyond it the oldest go.
void TrimMigrationLog() {
  size_t keep = static_cast<size_t>(cfg.cluster_slot_migration_log_max_len);
  std::vector<int64_t> times = FinishedExportTimes();
  std::vector<int64_t> imports = NodeImports().FinishedTimes();
  times.insert(times.end(), imports.begin(), imports.end());
  if (times.size() <= keep) return;
  size_t budget = times.size() - keep;
  std::nth_element(times.begin(), times.begin() + static_cast<long>(budget - 1), times.end());
  int64_t upto = times[budget - 1];
  // Oldest first on each side within one shared budget: ties at `upto` go export-side first.
  DropFinishedExports(upto, &budget);
  NodeImports().DropFinished(upto, &budget);
}

void Cron() {
  State& st = GetState();
  if (!st.myself) return;  // cluster mode off
  // CONFIG SET of the announced address, ports and names takes effect with the next ping.
  SetMyAddressFromConfig();
  int64_t now = base::MsTime();
  NodeBus().Cron(now);
  NodeFailover().Cron(now);
  if (!st.ok || st.todo_update_state) UpdateState(now);
  if (server::BlockedClientCount()) RedirectBlockedClients();
  ImportsCron();
  TrimMigrationLog();
}

void BeforeSleep() {
  State& st = GetState();
  if (!st.myself) return;
  NodeFailover().BeforeSleep();
  ExportBeforeSleep();
  ImportsBeforeSleep();
  if (st.todo_update_state) UpdateState(base::MsTime());
  // A held-back cluster_state change happens when due, not at the next cron tick.
  if (st.state_due_ms) {
    int64_t now = base::MsTime();
    if (now >= st.state_due_ms)
      UpdateState(now);
    else
      g.loop->SetMaxWaitMs(static_cast<int>(st.state_due_ms - now));
  }
  SaveDue();
}

// A slot leaves its owner: its shard channels go, and its CLUSTER SLOT-STATS counters start
// again (Valkey 8's clusterDelSlot).
void SlotUnassigned(int slot) {
  server::PubsubShardUnsubscribeSlot(slot);
  server::slot_stats::Reset(slot);
}

bool RouteCommand(server::Client* c, const server::CommandSpec* cmd, db::RoutedKeys* routed,
                  std::string* err) {
  routed->Clear();
  std::string_view name = cmd->name;
  bool in_multi = c->InMulti();
  bool exec = name == "exec";
  // Keyless commands (no specs, no movable keys) are served anywhere, EXEC excepted.
  if (!exec && cmd->key_specs.empty() && !cmd->keys_proc) return true;
  CommandTraits traits;
  static std::vector<std::string_view> keys;
  static std::vector<server::KeyRef> refs;
  keys.clear();
  if (exec && in_multi) {
    for (auto& q : c->mstate) {
      std::vector<std::string_view> argv(q.argv.begin(), q.argv.end());
      if (server::FindKeys(q.cmd, argv, &refs, true))
        for (auto& r : refs) keys.push_back(q.argv[r.pos]);
      traits.write |= (q.cmd->flags & server::kCmdWrite) != 0;
      traits.pubsub |= (q.cmd->flags & server::kCmdPubsub) != 0;
    }
  } else {
    traits.exec_without_multi = exec;
    if (!exec && server::FindKeys(cmd, c->argv, &refs, true))
      for (auto& r : refs) keys.push_back(c->argv[r.pos]);
    traits.write = cmd->flags & server::kCmdWrite;
    traits.pubsub = cmd->flags & server::kCmdPubsub;
    traits.asking = cmd->flags & server::kCmdAsking;
    traits.migrate = name == "migrate";
  }
  NodeView view = MyView();
  auto slot_state = [](int slot) { return SlotStateOf(slot); };
  auto key_exists = [](std::string_view key) {
    db::Db* d = server::GetDb(0);
    db::Obj* o = d->Find(key);
    return o && !d->IsExpired(o);
  };
  RouteInput in{view, slot_state, key_exists, {}, traits, keys};
  in.client.readonly = c->flags & server::kReadonly;
  in.client.asking = c->flags & server::kAsking;
  RouteDecision d = Route(in);
  if (d.kind == RouteKind::kServe) {
    routed->Set(d.slot, keys);
    return true;
  }
  // A redirect that named the slot keeps it for CLUSTER SLOT-STATS: Valkey charges the
  // request's bytes to it (no key is kept: the command does not run).
  if (d.kind == RouteKind::kAsk || d.kind == RouteKind::kTryAgain || d.kind == RouteKind::kMoved)
    routed->Set(d.slot, {});
  *err = RedirectReply(d, c);
  return false;
}

void PublishFromServer(std::string_view channel, std::string_view message, bool shard) {
  if (GetState().myself) NodeBus().Publish(channel, message, shard);
}

void PublishFromBus(std::string_view channel, std::string_view message, bool shard) {
  if (shard)
    server::PubsubPublishShard(channel, message);
  else
    server::PubsubPublish(channel, message);
}

// The bus's and failover's view of this node's server: replication, pub/sub, the keyspace,
// the write pause, nodes.conf.
BusHooks BusHooksOfNode() {
  return BusHooks{
      .publish = PublishFromBus,
      .repl_offset = [] { return static_cast<uint64_t>(server::Repl().data_offset()); },
      .saw_header = [](Node* s, const Header& h) { NodeFailover().SawHeader(s, h); },
      .auth_request = [](Node* s, const Header& h) { NodeFailover().AuthRequest(s, h); },
      .auth_ack = [](Node* s, const Header& h) { NodeFailover().AuthAck(s, h); },
      .mf_start = [](Node* s, Link* l) { NodeFailover().MfStart(s, l); },
      .paused_here = [] { return NodeFailover().ManualPausedHere(); },
      .become_replica_of = [](Node* p, bool same) { NodeFailover().BecomeReplicaOf(p, same); },
      .primary_moved =
          [](Node* p) {
            server::Repl().become_replica(p->ip, p->tcp_port, /*full_sync_required=*/false);
          },
      .slot_has_keys = SlotHasKeys,
      .delete_keys_in_slot = [](int slot) { DeleteKeysInSlot(slot); },
  };
}

FailoverHooks FailoverHooksOfNode() {
  return FailoverHooks{
      .data_offset = [] { return server::Repl().data_offset(); },
      .stream_offset = [] { return server::Repl().offset(); },
      .primary_last_contact_ms = [] { return server::Repl().primary_last_contact_ms(); },
      .become_replica = [](const std::string& ip, int port,
                           bool full) { server::Repl().become_replica(ip, port, full); },
      .become_primary = [] { server::Repl().become_primary(); },
      .pause_writes = server::SetFailoverPause,
      .slot_left = server::PubsubShardUnsubscribeSlot,
      .save_or_die = SaveConfigOrDie,
  };
}

// On the helper thread: DEBUG CONFIG-FSYNC-DELAY's wait (a slow disk).
void DelayForDebug(void*) {
  int64_t ms = server::g.config_fsync_delay_ms.load();
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// nodes.conf's jobs for the helper thread, after the debug wait when one is set.
void CallLaterMaybeDelayed(void (*fn)(void*), void* arg) {
  if (server::g.config_fsync_delay_ms.load() > 0) server::BioCall(DelayForDebug, nullptr);
  server::BioCall(fn, arg);
}

bool Init(std::string* err) {
  if (!cfg.cluster_enabled) return true;
  State& st = GetState();
  const std::string& path = cfg.cluster_config_file;
  // nodes.conf's next inode is made, and each replaced one freed, by the helper thread.
  server::BioStart();
  if (!ConfFile().Open(path, err, {server::BioClose, CallLaterMaybeDelayed})) return false;
  std::string text;
  base::ReadWholeFile(path, &text);
  int64_t now = base::MsTime();
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
    if (!ParseNodesConf(text, &st, now, /*tls_cluster=*/false, err)) {  // tls-cluster is refused
      *err = "Unrecoverable error: corrupted cluster config file \"" + path + "\": " + *err;
      return false;
    }
    LOG_NOTICE("Node configuration loaded, I'm %.40s", st.myself->name.c_str());
  } else {
    st.myself = st.Add("", kNodePrimary | kNodeMyself, now);
    st.fresh_identity = true;
    LOG_NOTICE("No cluster configuration found, I'm %.40s", st.myself->name.c_str());
  }
  // Whatever path takes a slot from its owner, the slot's shard channels go with it. (Set
  // after nodes.conf is loaded: the parsed state replaces the whole State.)
  st.slot_unassigned = SlotUnassigned;
  InitOpenSlots();
  InitSlotImport();
  MakeRuntime(*g.loop, BusHooksOfNode(), FailoverHooksOfNode());
  if (!NodeBus().Start(err)) return false;
  SetMyAddressFromConfig();
  // A replica in nodes.conf follows its primary again: by PSYNC from the history its snapshot
  // recorded, else with a full sync (its open slots are judged once the data is loaded).
  if (st.myself->IsReplica() && st.myself->primary && !st.myself->primary->ip.empty())
    server::Repl().become_replica(st.myself->primary->ip, st.myself->primary->tcp_port, false);
  st.first_eval_ms = 0;
  st.started_ms = now;
  UpdateState(now);
  if (!SaveConfig(true, err)) return false;
  return true;
}

}  // namespace

void Install() {
  server::ClusterHooks& h = server::Cluster();
  h.route = RouteCommand;
  h.publish = PublishFromServer;
  h.register_commands = RegisterCommands;
  h.init = Init;
  // A restarted replica keeps the open slots of nodes.conf only if its snapshot's history
  // lets the stream continue (SETSLOT after that point comes down the stream); else they wait
  // for the full sync, which carries its primary's.
  h.data_loaded = [] {
    State& st = GetState();
    if (!st.myself) return;
    // A primary's data must fit its slot map (data_check.h).
    if (!st.myself->IsReplica()) return CheckDataAgainstSlots(st);
    NodeFailover().CloseOpenSlotsUnlessContinued(true);
    st.MarkLearned();
  };
  h.before_sleep = BeforeSleep;
  h.write_out = [](int dbid, const std::vector<std::string_view>& argv) {
    if (GetState().myself) ExportWriteOut(dbid, argv);
  };
  h.write_held = [](const server::Client* c, const server::CommandSpec* cmd) {
    return ExportHoldsWrite(c, cmd) || ImportHoldsWrite(c, cmd);
  };
  h.after_replies = [] {
    if (!GetState().myself) return;
    NodeBus().FlushOutput();
    ExportAfterReplies();
  };
  h.cron = Cron;
  h.in_child = [] { ConfFile().CloseInChild(); };
  h.before_snapshot = [] {
    State& st = GetState();
    if (!st.myself || !st.todo_learned) return;
    SavePending();
  };
  h.client_freed = [](server::Client* c) {
    if (GetState().myself) ImportClientFreed(c);
  };
  h.full_sync_starting = [] { AbortRunningImports("a full sync to a replica started"); };
  h.aof_rewrite_starting = [] { AbortRunningImports("an AOF rewrite started"); };
  h.aof_loaded = DropUnfinishedImports;
  h.imports_running = ImportsRunning;
  h.debug = DebugCommand;
  h.while_loading = [] {
    if (GetState().myself) NodeBus().FlushOutput();
  };
  h.links_memory = []() -> uint64_t {
    uint64_t sum = 0;
    if (GetState().myself)
      NodeBus().ForEachLink([&](const Link& l) {
        sum += sizeof(Link) + l.conn.out.capacity() + l.conn.in.capacity();
      });
    return sum;
  };
  h.connections = []() -> uint64_t {
    size_t n = GetState().nodes.size();
    return GetState().myself && n > 0 ? (n - 1) * 2 : 0;
  };
  h.announce_changed = [] {
    if (!GetState().myself) return;  // not in cluster mode, or not started yet
    SetMyAddressFromConfig();
    GetState().MarkLearned();  // nodes.conf holds my hostname and names too
  };
  h.shutdown = [] {
    if (!GetState().myself) return;  // not in cluster mode
    // What was learned in the last 100 ms is not saved yet (MarkLearned).
    LOG_NOTICE("Saving the cluster configuration file before exiting.");
    std::string err;
    if (!SaveConfig(true, &err)) LOG_WARNING("Could not save the cluster config: %s", err.c_str());
    // The lock goes now: a large process takes a while to free its memory after exit, and the
    // node's restart must not find nodes.conf still locked.
    ConfFile().Unlock();
  };
}

namespace {

// cluster_state, as Valkey 8's clusterUpdateState.
void UpdateState(int64_t now) {
  State& st = GetState();
  st.todo_update_state = false;
  if (!st.first_eval_ms) st.first_eval_ms = now;
  st.state_due_ms = 0;
  // A primary restarted from nodes.conf keeps fail a little, so that it hears from the others
  // first (it may have been failed over while down). A new identity has nothing to hear.
  if (st.myself->IsPrimary() && !st.ok && !st.fresh_identity && now - st.first_eval_ms < 2000) {
    st.state_due_ms = st.first_eval_ms + 2000;  // looked at again then, not a cron tick later
    return;
  }
  bool ok = true;
  if (cfg.cluster_require_full_coverage) {
    // Every slot has an owner that is not failing. Counted over the nodes, not the 16384
    // slots: this runs for every change learned, and a reshard makes several per slot moved.
    int served = 0;
    for (auto& n : st.nodes)
      if (!(n->flags & kNodeFail)) served += n->num_slots;
    ok = served == kSlots;
  }
  int size = 0, reachable = 0;
  for (auto& n : st.nodes)
    if (n->IsVotingPrimary()) {
      size++;
      if (!(n->flags & (kNodePfail | kNodeFail))) reachable++;
    }
  st.size = size;
  // With no primary owning slots there is no cluster yet, hence no majority to be cut off
  // from: a node being set up must not pay the rejoin delay below for it.
  int quorum = size / 2 + 1;
  if (size > 0 && reachable < quorum) {
    ok = false;
    st.among_minority_ms = now;
  }
  if (size == 0) ok = false;
  if (ok == st.ok) return;
  int64_t rejoin = std::clamp<int64_t>(NodeTimeout(), 500, 5000);
  if (ok && st.myself->IsPrimary() && now - st.among_minority_ms < rejoin) {
    st.state_due_ms = st.among_minority_ms + rejoin;
    return;
  }
  st.ok = ok;
  st.state_changed_ms = now;
  LOG_NOTICE("Cluster state changed: %s", ok ? "ok" : "fail");
}

}  // namespace

}  // namespace cluster
