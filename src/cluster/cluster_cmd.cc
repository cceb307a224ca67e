// The CLUSTER command (every subcommand but SETSLOT, in open_slots.cc, and FAILOVER, in
// failover.cc) and ASKING. Replies and errors as Valkey 8 (its clusterCommand and
// clusterCommandSpecial).
#include "cluster/cluster_cmd.h"

#include <algorithm>

#include "base/crc16.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/changes.h"
#include "cluster/cmd_args.h"
#include "cluster/failure.h"
#include "cluster/nodes_format.h"
#include "cluster/open_slots.h"
#include "cluster/runtime.h"
#include "cluster/settings.h"
#include "cluster/slot_export.h"
#include "cluster/slot_import.h"
#include "cluster/slot_keys.h"
#include "cluster/syncslots_cmd.h"
#include "net/socket.h"
#include "server/client.h"
#include "server/command.h"
#include "server/config.h"
#include "server/lazyfree.h"
#include "server/persistence.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/slot_stats.h"
#include "server/transactions.h"

namespace cluster {

using server::cfg;
using server::Client;
using server::CommandSpec;

namespace {

FormatOptions Options(const Client* c) {
  FormatOptions o;
  o.ipv6 = c->OnIpv6();
  o.endpoint = static_cast<EndpointType>(cfg.cluster_preferred_endpoint_type);
  return o;
}

Node* NodeArg(Client* c, std::string_view id) {
  Node* n = GetState().Find(id);
  if (!n) c->R().Error("Unknown node " + std::string(id));
  return n;
}

void Help(Client* c) {
  if (!Enabled(c)) return;
  server::ReplyHelp(
      c, "CLUSTER",
      {"COUNTKEYSINSLOT <slot>",
       "    The number of keys of <slot> on this node.",
       "GETKEYSINSLOT <slot> <count>",
       "    Up to <count> key names of <slot> on this node.",
       "INFO",
       "    The cluster state and counters.",
       "KEYSLOT <key>",
       "    The hash slot of <key>.",
       "MYID",
       "    This node's ID.",
       "MYSHARDID",
       "    This node's shard ID.",
       "NODES",
       "    The cluster as this node sees it, a node per line.",
       "REPLICAS <node-id>",
       "    The replicas of <node-id>.",
       "SLOTS",
       "    Slot ranges with their primary and replicas.",
       "SHARDS",
       "    Shards with their slots and nodes.",
       "ADDSLOTS <slot> [<slot> ...]",
       "    Serve these slots here.",
       "ADDSLOTSRANGE <start slot> <end slot> [...]",
       "    Serve these slot ranges here.",
       "BUMPEPOCH",
       "    Raise this node's config epoch.",
       "COUNT-FAILURE-REPORTS <node-id>",
       "    Failure reports about <node-id>.",
       "DELSLOTS <slot> [<slot> ...]",
       "    Stop serving these slots.",
       "DELSLOTSRANGE <start slot> <end slot> [...]",
       "    Stop serving these slot ranges.",
       "FAILOVER [FORCE|TAKEOVER]",
       "    Make this replica the primary of its shard (FORCE: without the primary's",
       "    agreement; TAKEOVER: without a vote either).",
       "FORGET <node-id>",
       "    Remove a node from this node's view.",
       "FLUSHSLOT <slot> [ASYNC|SYNC]",
       "    Delete every key of <slot> on this node and its replicas.",
       "FLUSHSLOTS",
       "    Stop serving every slot of this node.",
       "MEET <ip> <port> [<bus-port>]",
       "    Join the node at that address.",
       "REPLICATE <node-id>",
       "    Become a replica of <node-id>.",
       "RESET [HARD|SOFT]",
       "    Forget the cluster (HARD: also a new ID and epochs 0).",
       "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>) [TIMEOUT "
       "<ms>]",
       "    Open, close or assign a slot; replicated to the replicas before it applies here.",
       "SLOT-STATS (SLOTSRANGE <start slot> <end slot>|ORDERBY <metric> [LIMIT <n>] [ASC|DESC])",
       "    Per-slot key-count, and cpu-usec, network-bytes-in and network-bytes-out while",
       "    cluster-slot-stats-enabled is yes, for the slots of this shard.",
       "SET-CONFIG-EPOCH <epoch>",
       "    Set the config epoch of a new node.",
       "SAVECONFIG",
       "    Write nodes.conf now.",
       "LINKS",
       "    The bus links of this node."});
}

void Nodes(Client* c) {
  if (Enabled(c)) c->R().Verbatim(FormatClusterNodes(GetState(), Options(c)));
}

void Info(Client* c) {
  if (Enabled(c)) c->R().Verbatim(ClusterInfoText(GetState()));
}

void MyId(Client* c) {
  if (Enabled(c)) c->R().Bulk(GetState().myself->name);
}

void MyShardId(Client* c) {
  if (Enabled(c)) c->R().Bulk(GetState().myself->shard_id);
}

// My own replication offset as the formatters show it (0 while a full sync is pending).
uint64_t MyDataOffset() { return static_cast<uint64_t>(server::Repl().data_offset()); }

void Slots(Client* c) {
  if (!Enabled(c)) return;
  auto r = c->R();
  WriteReply(ClusterSlotsReply(GetState(), Options(c), MyDataOffset()), &r);
}

void Shards(Client* c) {
  if (!Enabled(c)) return;
  auto r = c->R();
  WriteReply(ClusterShardsReply(GetState(), Options(c), MyDataOffset()), &r);
}

void Links(Client* c) {
  if (!Enabled(c)) return;
  std::vector<LinkInfo> links;
  NodeBus().ForEachLink([&links](const Link& l) {
    if (!l.node) return;
    LinkInfo i;
    i.node = l.node;
    i.inbound = l.inbound;
    i.create_time_ms = l.ctime_ms;
    i.reading = !l.connecting;
    i.writing = l.conn.Pending();
    i.send_buffer_allocated = static_cast<int64_t>(l.conn.out.capacity());
    i.send_buffer_used = static_cast<int64_t>(l.conn.PendingBytes());
    links.push_back(i);
  });
  auto r = c->R();
  WriteReply(ClusterLinksReply(GetState(), links), &r);
}

void KeySlot(Client* c) {
  if (Enabled(c)) c->R().Int(base::KeySlot(c->argv[2]));
}

void CountKeysInSlot(Client* c) {
  if (!Enabled(c)) return;
  int64_t slot;
  if (!server::ArgInt(c, c->argv[2], &slot)) return;
  if (slot < 0 || slot >= kSlots) return c->R().Error("Invalid slot");
  c->R().Int(static_cast<int64_t>(server::GetDb(0)->CountInSlot(static_cast<int>(slot))));
}

// CLUSTER FLUSHSLOT <slot> [ASYNC|SYNC] (Valkey 9's): the slot's keys leave at once; SYNC
// frees them before the reply, ASYNC on the lazy-free thread (DropSlotsLater); without either,
// as lazyfree-lazy-user-flush says, as FLUSHALL. It leaves as itself: replicas and the AOF drop
// the slot in one command, as this node does after an atomic migration moved it away.
void FlushSlot(Client* c) {
  if (!Enabled(c)) return;
  auto& a = c->argv;
  int slot;
  if (!SlotArg(c, a[2], &slot)) return;
  bool lazy;
  if (a.size() > 4 || !server::FlushModeLazy(a.size() == 4 ? &a[3] : nullptr,
                                                cfg.lazyfree_lazy_user_flush, &lazy))
    return c->R().Error(server::kErrSyntax);
  server::g.dirty += static_cast<int64_t>(server::GetDb(0)->CountInSlot(slot)) + 1;
  if (lazy)
    DropSlotsLater({slot}, false);
  else
    DropSlotsNow({slot});
  c->R().Ok();
}

void GetKeysInSlot(Client* c) {
  if (!Enabled(c)) return;
  int64_t slot, count;
  if (!server::ArgInt(c, c->argv[2], &slot) || !server::ArgInt(c, c->argv[3], &count)) return;
  if (slot < 0 || slot >= kSlots || count < 0)
    return c->R().Error("Invalid slot or number of keys");
  std::vector<std::string_view> keys;
  server::GetDb(0)->KeysInSlot(static_cast<int>(slot), static_cast<size_t>(count), &keys);
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(keys.size()));
  for (auto k : keys) r.Bulk(k);
}

void Replicas(Client* c) {
  if (!Enabled(c)) return;
  Node* n = NodeArg(c, c->argv[2]);
  if (!n) return;
  if (n->IsReplica()) return c->R().Error("The specified node is not a master");
  std::vector<std::string> lines = FormatReplicasLines(GetState(), *n, Options(c));
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(lines.size()));
  for (auto& l : lines) r.Bulk(l);
}

void Meet(Client* c) {
  if (!Enabled(c)) return;
  int64_t port, cport;
  if (!base::ParseInt64(c->argv[3], &port))
    return c->R().Error("Invalid base port specified: " + std::string(c->argv[3]));
  if (c->argv.size() == 5) {
    if (!base::ParseInt64(c->argv[4], &cport))
      return c->R().Error("Invalid bus port specified: " + std::string(c->argv[4]));
  } else {
    cport = port + 10000;
  }
  std::string ip(c->argv[2]);
  sockaddr_storage sa;
  bool valid_ip = net::ParseIp(ip, &sa);
  if (!valid_ip || port <= 0 || port > 65535 || cport <= 0 || cport > 65535)
    return c->R().Error("Invalid node address specified: " + ip + ":" + std::string(c->argv[3]));
  ip = net::FormatIp(sa);  // normalized, as the bus will see it
  State& st = GetState();
  // A handshake already in progress with that address: nothing more to do.
  for (auto& n : st.nodes)
    if ((n->flags & kNodeHandshake) && n->ip == ip && n->tcp_port == port && n->cport == cport)
      return c->R().Ok();
  Node* n = st.Add("", kNodeHandshake | kNodeMeet, base::MsTime());
  n->ip = ip;
  n->tcp_port = static_cast<int>(port);
  n->cport = static_cast<int>(cport);
  c->R().Ok();
}

// ADDSLOTS / DELSLOTS and their RANGE forms: every argument is checked before any change.
void ChangeSlots(Client* c, bool del, bool ranges) {
  if (!Enabled(c)) return;
  auto& a = c->argv;
  if (ranges && a.size() % 2 == 1) return server::ReplyArity(c, c->cmd);
  State& st = GetState();
  std::vector<uint8_t> chosen(kSlots, 0);
  std::vector<std::pair<int, int>> spans;
  for (size_t i = 2; i < a.size(); i += ranges ? 2 : 1) {
    int start, end;
    if (!SlotArg(c, a[i], &start)) return;
    if (ranges && !SlotArg(c, a[i + 1], &end)) return;
    if (!ranges) end = start;
    if (start > end)
      return c->R().Error("start slot number " + std::to_string(start) +
                          " is greater than end slot number " + std::to_string(end));
    spans.push_back({start, end});
  }
  for (auto [start, end] : spans)
    for (int s = start; s <= end; s++) {
      if (del && !st.slot_owner[s])
        return c->R().Error("Slot " + std::to_string(s) + " is already unassigned");
      if (!del && st.slot_owner[s])
        return c->R().Error("Slot " + std::to_string(s) + " is already busy");
      if (chosen[s]++)
        return c->R().Error("Slot " + std::to_string(s) + " specified multiple times");
    }
  for (int s = 0; s < kSlots; s++) {
    if (!chosen[s]) continue;
    if (del) {
      st.UnassignSlot(s);
    } else {
      // An importing slot taken by hand is imported: the open state ends.
      st.importing_from[s] = nullptr;
      st.AssignSlot(s, st.myself);
    }
  }
  st.MarkChanged(true, false);
  c->R().Ok();
}
void AddSlots(Client* c) { ChangeSlots(c, false, false); }
void DelSlots(Client* c) { ChangeSlots(c, true, false); }
void AddSlotsRange(Client* c) { ChangeSlots(c, false, true); }
void DelSlotsRange(Client* c) { ChangeSlots(c, true, true); }

void FlushSlots(Client* c) {
  if (!Enabled(c)) return;
  if (server::GetDb(0)->Size() != 0)
    return c->R().Error("DB must be empty to perform CLUSTER FLUSHSLOTS.");
  State& st = GetState();
  for (int s = 0; s < kSlots; s++)
    if (st.slot_owner[s] == st.myself) st.UnassignSlot(s);
  st.MarkChanged(true, false);
  c->R().Ok();
}

void BumpEpoch(Client* c) {
  if (!Enabled(c)) return;
  bool bumped = BumpEpochWithoutConsensus(GetState());
  c->R().Simple(std::string(bumped ? "BUMPED " : "STILL ") +
                std::to_string(GetState().myself->config_epoch));
}

void SetConfigEpoch(Client* c) {
  if (!Enabled(c)) return;
  int64_t epoch;
  if (!server::ArgInt(c, c->argv[2], &epoch)) return;
  State& st = GetState();
  if (epoch < 0) return c->R().Error("Invalid config epoch specified: " + std::to_string(epoch));
  if (st.nodes.size() > 1)
    return c->R().Error(
        "The user can assign a config epoch only when the node does not know any other node.");
  if (st.myself->config_epoch != 0) return c->R().Error("Node config epoch is already non-zero");
  st.myself->config_epoch = static_cast<uint64_t>(epoch);
  if (st.current_epoch < static_cast<uint64_t>(epoch))
    st.current_epoch = static_cast<uint64_t>(epoch);
  st.MarkChanged(true, false);
  c->R().Ok();
}

void SaveConfigCmd(Client* c) {
  if (!Enabled(c)) return;
  std::string err;
  if (!SaveConfig(true, &err)) return c->R().Error("error saving the cluster node config: " + err);
  c->R().Ok();
}

void Forget(Client* c) {
  if (!Enabled(c)) return;
  State& st = GetState();
  std::string id(c->argv[2]);
  Node* n = st.Find(id);
  int64_t now = base::MsTime();
  if (!n) {
    if (st.IsBlacklisted(id, now)) return c->R().Ok();
    return c->R().Error("Unknown node " + id);
  }
  if (n == st.myself) return c->R().Error("I tried hard but I can't forget myself...");
  if (st.myself->IsReplica() && st.myself->primary == n)
    return c->R().Error("Can't forget my master!");
  st.Blacklist(id, ForgetUntilMs(now, static_cast<uint64_t>(cfg.cluster_blacklist_ttl)));
  NodeBus().DeleteNode(n);
  c->R().Ok();
}

void Replicate(Client* c) {
  if (!Enabled(c)) return;
  State& st = GetState();
  Node* n = NodeArg(c, c->argv[2]);
  if (!n) return;
  if (n == st.myself) return c->R().Error("Can't replicate myself");
  if (n->IsReplica()) return c->R().Error("I can only replicate a master, not a replica.");
  if (st.myself->IsPrimary() && (st.myself->num_slots != 0 || server::GetDb(0)->Size() != 0))
    return c->R().Error("To set a master the node must be empty and without assigned slots.");
  if (st.myself->primary == n) return c->R().Ok();
  for (int s = 0; s < kSlots; s++) {
    if (st.slot_owner[s] == st.myself) st.UnassignSlot(s);
    st.migrating_to[s] = st.importing_from[s] = nullptr;
  }
  NodeFailover().BecomeReplicaOf(n, n->shard_id == st.myself->shard_id);
  c->R().Ok();
}

// CLUSTER FAILOVER [FORCE|TAKEOVER]: the arguments here, the rest in failover.cc.
void FailoverCmd(Client* c) {
  auto& a = c->argv;
  Failover::Mode mode = Failover::Mode::kDefault;
  if (a.size() == 3) {
    if (base::EqualsNoCase(a[2], "force"))
      mode = Failover::Mode::kForce;
    else if (base::EqualsNoCase(a[2], "takeover"))
      mode = Failover::Mode::kTakeover;
    else
      return c->R().Error(server::kErrSyntax);
  } else if (a.size() > 3) {
    return c->R().Error("unknown subcommand or wrong number of arguments for '" +
                        std::string(a[1]) + "'. Try CLUSTER HELP.");
  }
  std::string err = NodeFailover().Request(mode, server::ClientInfoForLog(c));
  if (!err.empty()) return c->R().Error(err);
  c->R().Ok();
}

// CLUSTER MIGRATESLOTS SLOTSRANGE <start> <end> [...] NODE <id> [SLOTSRANGE ... NODE ...]:
// every job checked first (slot_export_plan.h), then all start (slot_export.h).
void MigrateSlots(Client* c) {
  if (!Enabled(c)) return;
  std::vector<std::string_view> args(c->argv.begin() + 2, c->argv.end());
  MigrateSlotsPlan plan = PlanMigrateSlots(GetState(), args, SlotExporting);
  if (!plan.error.empty()) return c->R().Error(plan.error);
  StartExports(std::move(plan.jobs), server::ClientInfoForLog(c));
  c->R().Ok();
}

void CancelSlotMigrations(Client* c) {
  if (!Enabled(c)) return;
  if (!CancelExports(server::ClientInfoForLog(c))) return c->R().Error("No migrations ongoing");
  c->R().Ok();
}

// One map per job (RESP2: a flat array of field, value).
void GetSlotMigrations(Client* c) {
  if (!Enabled(c)) return;
  std::vector<std::vector<MigrationField>> all;
  ListExports(&all);
  for (auto& j : NodeImports().all()) {
    std::vector<MigrationField> fields;
    for (auto& [name, value] : DescribeImport(*j)) {
      int64_t n;
      if (name.ends_with("_time") && base::ParseInt64(value, &n))
        fields.push_back({name, "", n, true});
      else
        fields.push_back({name, value, 0, false});
    }
    fields.push_back({"cow_size", "", 0, true});  // as the export entries: no fork here
    all.push_back(std::move(fields));
  }
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(all.size()));
  for (auto& fields : all) {
    r.MapLen(static_cast<int64_t>(fields.size()));
    for (auto& f : fields) {
      r.Bulk(f.name);
      if (f.is_number)
        r.Int(f.number);
      else
        r.Bulk(f.text);
    }
  }
}

void CountFailureReports(Client* c) {
  if (!Enabled(c)) return;
  Node* n = NodeArg(c, c->argv[2]);
  if (n) c->R().Int(CountFailReports(n, base::MsTime(), NodeTimeout()));
}

void Reset(Client* c) {
  if (!Enabled(c)) return;
  bool hard = false;
  if (c->argv.size() == 3) {
    if (base::EqualsNoCase(c->argv[2], "hard"))
      hard = true;
    else if (!base::EqualsNoCase(c->argv[2], "soft"))
      return c->R().Error(server::kErrSyntax);
  }
  State& st = GetState();
  if (st.myself->IsPrimary() && server::GetDb(0)->Size() != 0)
    return c->R().Error("CLUSTER RESET can't be called with master nodes containing keys");
  if (st.myself->IsReplica()) {
    st.SetPrimary(st.myself, nullptr);
    server::Repl().become_primary();
    server::DbModified(-1);
    for (int i = 0; i < server::NumDbs(); i++) server::GetDb(i)->Clear();
    server::AfterFlushAll();
  }
  for (int s = 0; s < kSlots; s++) {
    st.UnassignSlot(s);
    st.migrating_to[s] = st.importing_from[s] = nullptr;
  }
  std::vector<Node*> others;
  for (auto& n : st.nodes)
    if (n.get() != st.myself) others.push_back(n.get());
  for (Node* n : others) NodeBus().DeleteNode(n);
  st.blacklist.clear();
  NodeFailover().ResetManual();  // a paused primary resumes now (Valkey 8's clusterReset)
  if (hard) {
    st.current_epoch = st.last_vote_epoch = 0;
    st.myself->config_epoch = 0;
    st.Rename(st.myself, RandomName());
    st.myself->shard_id = RandomName();
  }
  st.MarkChanged(true, true);
  c->R().Ok();
}

// CLUSTER SLOT-STATS SLOTSRANGE <start> <end> | ORDERBY <metric> [LIMIT <n>] [ASC|DESC]: the
// slots of my shard with their key count and, while cluster-slot-stats-enabled is yes, the
// counters of server/slot_stats.h; the metrics other than key-count are unknown to ORDERBY
// while it is no, as on Valkey 8.
void SlotStats(Client* c) {
  if (!Enabled(c)) return;
  auto& a = c->argv;
  State& st = GetState();
  Node* shard = st.MyPrimary();
  db::Db* d = server::GetDb(0);
  const bool counters = server::slot_stats::On();
  auto mine = [&](int s) { return shard && st.slot_owner[s] == shard; };
  auto reply = [&](const std::vector<int>& slots) {
    auto r = c->R();
    r.ArrayLen(static_cast<int64_t>(slots.size()));
    for (int s : slots) {
      r.ArrayLen(2);
      r.Int(s);
      r.MapLen(counters ? 4 : 1);
      r.Bulk("key-count");
      r.Int(static_cast<int64_t>(d->CountInSlot(s)));
      if (!counters) continue;
      const auto& m = server::slot_stats::Of(s);
      r.Bulk("cpu-usec");
      r.Int(static_cast<int64_t>(m.cpu_usec));
      r.Bulk("network-bytes-in");
      r.Int(static_cast<int64_t>(m.network_bytes_in));
      r.Bulk("network-bytes-out");
      r.Int(static_cast<int64_t>(m.network_bytes_out));
    }
  };
  if (a.size() == 5 && base::EqualsNoCase(a[2], "slotsrange")) {
    int start, end;
    if (!SlotArg(c, a[3], &start) || !SlotArg(c, a[4], &end)) return;
    if (start > end)
      return c->R().Error("Start slot number " + std::to_string(start) +
                          " is greater than end slot number " + std::to_string(end));
    std::vector<int> slots;
    for (int s = start; s <= end; s++)
      if (mine(s)) slots.push_back(s);
    return reply(slots);
  }
  if (a.size() >= 4 && base::EqualsNoCase(a[2], "orderby")) {
    // The metric's value of a slot; the counters are metrics only while they are kept.
    uint64_t (*metric)(db::Db*, int) = nullptr;
    if (base::EqualsNoCase(a[3], "key-count"))
      metric = [](db::Db* db, int s) { return static_cast<uint64_t>(db->CountInSlot(s)); };
    else if (counters && base::EqualsNoCase(a[3], "cpu-usec"))
      metric = [](db::Db*, int s) { return server::slot_stats::Of(s).cpu_usec; };
    else if (counters && base::EqualsNoCase(a[3], "network-bytes-in"))
      metric = [](db::Db*, int s) { return server::slot_stats::Of(s).network_bytes_in; };
    else if (counters && base::EqualsNoCase(a[3], "network-bytes-out"))
      metric = [](db::Db*, int s) { return server::slot_stats::Of(s).network_bytes_out; };
    else
      return c->R().Error("Unrecognized sort metric for ORDERBY.");
    int64_t limit = kSlots;
    bool desc = true;
    int limits = 0, orders = 0;
    for (size_t i = 4; i < a.size(); i++) {
      if (base::EqualsNoCase(a[i], "limit") && i + 1 < a.size()) {
        if (!base::ParseInt64(a[i + 1], &limit) || limit < 1 || limit > kSlots)
          return c->R().Error("Limit has to lie in between 1 and 16384 (maximum number of slots).");
        i++;
        limits++;
      } else if (base::EqualsNoCase(a[i], "asc") || base::EqualsNoCase(a[i], "desc")) {
        desc = base::EqualsNoCase(a[i], "desc");
        orders++;
      } else {
        return c->R().Error(server::kErrSyntax);
      }
      if (limits > 1 || orders > 1)
        return c->R().Error("Multiple filters of the same type are disallowed.");
    }
    std::vector<std::pair<uint64_t, int>> by;  // (metric, slot)
    for (int s = 0; s < kSlots; s++)
      if (mine(s)) by.push_back({metric(d, s), s});
    // Ties in slot order, whichever the direction.
    std::stable_sort(by.begin(), by.end(), [desc](const auto& x, const auto& y) {
      return desc ? x.first > y.first : x.first < y.first;
    });
    std::vector<int> slots;
    for (size_t i = 0; i < by.size() && static_cast<int64_t>(i) < limit; i++)
      slots.push_back(by[i].second);
    return reply(slots);
  }
  c->R().Error("unknown subcommand or wrong number of arguments for '" + std::string(a[1]) +
               "'. Try CLUSTER HELP.");
}

void Asking(Client* c) {
  if (!Enabled(c)) return;
  c->flags |= server::kAsking;
  c->R().Ok();
}

}  // namespace

bool DebugCommand(Client* c) {
  const auto& a = c->argv;
  if (a.size() != 5 || !base::EqualsNoCase(a[1], "clusterlink") ||
      !base::EqualsNoCase(a[2], "kill"))
    return false;
  if (!GetState().myself) {
    c->R().Error("Debug option only available for cluster mode enabled setup!");
    return true;
  }
  Node* n = NodeArg(c, a[4]);
  if (!n) return true;
  if (n == GetState().myself) {
    c->R().Error("Cannot free cluster link(s) to myself");
    return true;
  }
  bool to = base::EqualsNoCase(a[3], "to"), from = base::EqualsNoCase(a[3], "from");
  if (base::EqualsNoCase(a[3], "all")) to = from = true;
  if (!to && !from) {
    c->R().Error("Unknown direction " + std::string(a[3]));
    return true;
  }
  Bus& bus = NodeBus();
  if (to && n->link) bus.FreeLink(n->link);
  if (from && n->inbound_link) bus.FreeLink(n->inbound_link);
  c->R().Ok();
  return true;
}

void RegisterCommands(std::vector<CommandSpec>* t) {
  using namespace server;
  const char* g = "cluster";
  const uint32_t kAdm = kCmdAdmin | kCmdStale;
  const uint32_t kAdmAl = kAdm | kCmdNoAsyncLoading;  // those that change the cluster
  const uint32_t kLs = kCmdLoading | kCmdStale;
  auto sub = [](const char* name, int arity, uint32_t flags, Handler h, const char* summary) {
    return CommandSpec{name, arity, flags, h, nullptr, nullptr, summary, "O(N)"};
  };
  CommandSpec cluster{"cluster",
                      -2,
                      0,
                      nullptr,
                      g,
                      "3.0.0",
                      "A container for cluster commands.",
                      "Depends on subcommand."};
  cluster.subcommands = {
      sub("addslots", -3, kAdmAl, AddSlots, "Serves slots here."),
      sub("addslotsrange", -4, kAdmAl, AddSlotsRange, "Serves slot ranges here."),
      sub("bumpepoch", 2, kAdmAl, BumpEpoch, "Raises this node's config epoch."),
      sub("count-failure-reports", 3, kAdm, CountFailureReports, "Counts failure reports."),
      sub("countkeysinslot", 3, kCmdStale, CountKeysInSlot, "Counts the keys of a slot."),
      sub("delslots", -3, kAdmAl, DelSlots, "Stops serving slots."),
      sub("delslotsrange", -4, kAdmAl, DelSlotsRange, "Stops serving slot ranges."),
      sub("failover", -2, kAdmAl, FailoverCmd, "Promotes this replica."),
      sub("migrateslots", -4, kAdmAl, MigrateSlots, "Moves slots to another node atomically."),
      sub("cancelslotmigrations", 2, kAdmAl, CancelSlotMigrations,
          "Cancels the slot migrations this node runs."),
      sub("getslotmigrations", 2, kCmdStale, GetSlotMigrations,
          "Lists the slot migrations of this node."),
      sub("flushslot", -3, kCmdWrite | kCmdAdmin | kCmdNoAsyncLoading, FlushSlot, "Deletes every key of a slot."),
      sub("flushslots", 2, kAdmAl, FlushSlots, "Stops serving every slot."),
      sub("forget", 3, kAdmAl, Forget, "Removes a node from this node's view."),
      sub("getkeysinslot", 4, kCmdStale, GetKeysInSlot, "Key names of a slot."),
      sub("help", 2, kLs, Help, "Shows the subcommands."),
      sub("info", 2, kLs, Info, "The cluster state."),
      sub("keyslot", 3, kCmdStale, KeySlot, "The hash slot of a key."),
      sub("links", 2, kCmdStale, Links, "The bus links."),
      sub("meet", -4, kAdmAl, Meet, "Joins the node at an address."),
      sub("myid", 2, kLs, MyId, "This node's ID."),
      sub("myshardid", 2, kLs, MyShardId, "This node's shard ID."),
      sub("nodes", 2, kLs, Nodes, "The cluster as this node sees it."),
      sub("replicas", 3, kAdm, Replicas, "The replicas of a node."),
      sub("replicate", 3, kAdmAl, Replicate, "Becomes a replica of a node."),
      sub("reset", -2, kAdm | kCmdNoScript, Reset, "Forgets the cluster."),
      sub("saveconfig", 2, kAdmAl, SaveConfigCmd, "Writes nodes.conf now."),
      sub("setslot", -4, kAdmAl, SetSlotCommand, "Binds a hash slot to a node."),
      sub("set-config-epoch", 3, kAdmAl, SetConfigEpoch, "Sets the config epoch of a new node."),
      sub("shards", 2, kLs, Shards, "Shards with their slots and nodes."),
      sub("slaves", 3, kAdm, Replicas, "The replicas of a node."),
      sub("slot-stats", -4, kLs, SlotStats, "Usage statistics of the slots of this shard."),
      sub("slots", 2, kLs, Slots, "Slot ranges with their nodes."),
      // Internal: what the source of an atomic slot migration sends the target.
      sub("syncslots", -4, kAdmAl | kCmdNoMulti | kCmdNoScript | kCmdMayReplicate, SyncSlotsCommand,
          "Atomic slot migration, the target's side (internal)."),
  };
  t->push_back(std::move(cluster));
  t->push_back({"asking", 1, kCmdFast, Asking, g, "3.0.0",
                "Lets the next command reach a slot being imported.", "O(1)"});
}

}  // namespace cluster
