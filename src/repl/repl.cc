// Replication state shared by both sides, the stream entry point, INFO and the command table.
#include "repl/repl.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "ds/seed.h"
#include "persist/snapshot.h"
#include "repl/repl_buffer.h"
#include "repl/propagate.h"
#include "repl/repl_internal.h"
#include "repl/saved_history.h"
#include "server/command.h"
#include "server/config.h"
#include "server/loading.h"
#include "server/repl_hooks.h"
#include "server/server.h"

namespace repl {

using server::Client;
using server::g;

State& GetState() {
  static State s;
  return s;
}

std::string RandomId() { return base::RandomHex(40); }

namespace {
// The node's hash seed travels in snapshots, so that a replica (or the same node after a
// restart) hashes like its primary and SCAN cursors stay meaningful across the shard.
constexpr const char* kSeedAux = "hash-seed";

std::string SeedHex() {
  static const char* hex = "0123456789abcdef";
  std::string s;
  const uint8_t* seed = ds::HashSeed();
  for (int i = 0; i < 16; i++) {
    s.push_back(hex[seed[i] >> 4]);
    s.push_back(hex[seed[i] & 15]);
  }
  return s;
}

bool ParseSeedHex(std::string_view v, uint8_t out[16]) {
  if (v.size() != 32) return false;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (int i = 0; i < 16; i++) {
    int hi = nib(v[2 * i]), lo = nib(v[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}
}  // namespace

void Init() {
  persist::RegisterAuxField(kSeedAux, {[](std::string* v) {
                                         *v = SeedHex();
                                         return true;
                                       },
                                       [](std::string_view v) {
                                         uint8_t seed[16];
                                         if (!ParseSeedHex(v, seed)) return false;
                                         // The operator's hash-seed wins over a
                                         // snapshot's, a primary's included.
                                         if (!server::cfg.hash_seed.empty()) return true;
                                         if (memcmp(seed, ds::HashSeed(), 16) != 0)
                                           ds::SetHashSeed(seed);
                                         return true;
                                       }});
  // Which db the stream continues in after a snapshot (matters for chained replicas, whose
  // stream is their primary's, passed on verbatim).
  persist::RegisterAuxField("repl-stream-db", {[](std::string* v) {
                                                 int db = StreamDbToRecord();
                                                 if (db < 0) return false;
                                                 *v = std::to_string(db);
                                                 return true;
                                               },
                                               [](std::string_view v) {
                                                 int64_t db;
                                                 if (base::ParseInt64(v, &db))
                                                   SetStreamDbFromSnapshot(static_cast<int>(db));
                                                 return true;
                                               }});
  RegisterSavedHistoryFields();
  State& st = GetState();
  st.replid = RandomId();
  st.replid2 = std::string(40, '0');
  st.no_replicas_since_ms = base::MsTime();
  InitPrimary();
}

void Install() {
  server::ReplHooks& h = server::Repl();
  h.propagate = Propagate;
  h.begin_transaction = BeginTransaction;
  h.end_transaction = EndTransaction;
  h.offset = [] { return GetState().offset; };
  h.data_offset = [] { return FullSyncPending() ? int64_t{0} : GetState().offset; };
  h.is_replica = IsReplica;
  h.primary_address = []() -> std::string {
    if (!IsReplica()) return "";
    return GetState().primary_host + ":" + std::to_string(GetState().primary_port);
  };
  h.failover_handing_over = FailoverHandingOver;
  h.refuse_writes = RefuseWrites;
  h.stale_data_refused = StaleDataRefused;
  h.not_enough_replicas = NotEnoughReplicas;
  h.replica_without_slot_import = ReplicaWithoutSlotImport;
  h.replicas_with_slot_import = ReplicasWithSlotImport;
  h.replica_write = ReplicaWrite;
  h.replica_has_pending = ReplicaHasPending;
  h.replica_held_output = ReplicaHeldOutput;
  h.client_freed = ClientFreed;
  h.replica_newline = [](server::Client* c) {
    if (c->repl) c->repl->ack_time_ms = base::MsTime();
  };
  h.primary_stream_applied = PrimaryStreamApplied;
  h.cron = Cron;
  h.before_sleep = BeforeSleep;
  h.append_info = AppendInfo;
  h.resize_backlog = ResizeBacklog;
  h.repl_buffer_bytes = []() -> uint64_t {
    return GetState().backlog ? GetState().backlog->allocated() : 0;
  };
  h.lagging_replicas = LaggingReplicas;
  h.request_acks = RequestAcks;
  h.become_replica = BecomeReplica;
  h.become_primary = BecomePrimary;
  h.primary_last_contact_ms = PrimaryLastContactMs;
  h.new_replication_id = [] {
    GetState().replid = RandomId();
    GetState().replid2 = std::string(40, '0');
  };
  h.register_commands = RegisterCommands;
  h.init = Init;
  h.snapshot_loaded_at_start = AdoptSavedHistory;
}

bool HasConsumers() { return GetState().backlog != nullptr; }

void FeedStream(std::string_view bytes) {
  State& st = GetState();
  if (!st.backlog) return;
  st.offset += static_cast<int64_t>(bytes.size());
  FeedReplicas(st.backlog->Append(bytes));
  TrimBacklog(kTrimBytesPerFeed);
}

void ResizeBacklog() {
  State& st = GetState();
  if (!st.backlog) return;
  st.backlog->SetLimit(BacklogLimit());
  TrimBacklog(kTrimBytesPerFeed);
}

void ShiftReplicationId() {
  State& st = GetState();
  st.replid2 = st.replid;
  st.second_offset = st.offset + 1;
  st.replid = RandomId();
  LOG_NOTICE(
      "Setting secondary replication ID to %s, valid up to offset: %lld. New replication "
      "ID is %s",
      st.replid2.c_str(), static_cast<long long>(st.second_offset), st.replid.c_str());
}

void AdoptHistory(const std::string& id, int64_t offset) {
  State& st = GetState();
  st.replid = id;
  st.offset = offset;
  st.replid2 = std::string(40, '0');
  st.second_offset = -1;
  NewBacklog();
}

void Cron() {
  PrimaryCron();
  ReplicaCron();
  FailoverCron();
}

void BeforeSleep() { PrimaryBeforeSleep(); }

std::string ReplicaIp(const Client* c) {
  const ReplicaLink* l = c->repl;
  if (l && !l->announced_ip.empty()) return l->announced_ip;
  return c->addr.substr(0, c->addr.rfind(':'));
}

std::string ReplicaName(const Client* c) {
  const ReplicaLink* l = c->repl;
  return ReplicaIp(c) + ":" +
         (l && l->listening_port ? std::to_string(l->listening_port) : "<unknown-replica-port>");
}

// Valkey 8 names a replica wait_bgsave while the snapshot's child runs, including while a
// diskless child streams it (or ours sends the file as it is written); send_bulk is only the
// sending of a finished file.
const char* ReplicaStateName(const ReplicaLink* l) {
  if (l->state == ReplicaLink::kOnline) return "online";
  bool child_running = l->diskless || (l->tailing && !l->tail_end);
  return l->state == ReplicaLink::kSendRdb && !child_running ? "send_bulk" : "wait_bgsave";
}

void DisconnectReplicas() {
  std::vector<Client*> reps = Replicas();  // closing edits the list
  for (Client* c : reps) server::CloseAsync(c);
}

int LaggingReplicas(bool log, int* total) {
  const State& st = GetState();
  int64_t now = base::MsTime();
  int lagging = 0;
  *total = 0;
  for (Client* c : Replicas()) {
    (*total)++;
    const ReplicaLink* l = c->repl;
    if (l->ack_offset == st.offset) continue;
    lagging++;
    if (!log) continue;
    int64_t lag = l->state == ReplicaLink::kOnline ? (now - l->ack_time_ms) / 1000 : 0;
    LOG_NOTICE("Lagging replica %s:%d reported offset %lld behind master, lag=%lld, state=%s.",
               ReplicaIp(c).c_str(), l->listening_port,
               static_cast<long long>(st.offset - l->ack_offset), static_cast<long long>(lag),
               ReplicaStateName(l));
  }
  return lagging;
}

void AppendInfo(std::string* s) {
  State& st = GetState();
  auto line = [&](const std::string& l) { s->append(l).append("\r\n"); };
  line("# Replication");
  line(std::string("role:") + (IsReplica() ? "slave" : "master"));
  if (IsReplica()) {
    AppendReplicaInfo(s);
  }
  line("connected_slaves:" + std::to_string(Replicas().size()));
  int i = 0;
  int64_t now = base::MsTime();
  for (Client* c : Replicas()) {
    ReplicaLink* l = c->repl;
    line("slave" + std::to_string(i++) + ":ip=" + ReplicaIp(c) +
         ",port=" + std::to_string(l->listening_port) + ",state=" + ReplicaStateName(l) +
         ",offset=" + std::to_string(l->ack_offset) +
         ",lag=" + std::to_string((now - l->ack_time_ms) / 1000) +
         ",type=replica");  // as Valkey 8.0.1 names a replica on one connection
  }
  line("replicas_waiting_psync:0");
  line(std::string("master_failover_state:") + FailoverStateName());
  line("master_replid:" + st.replid);
  line("master_replid2:" + st.replid2);
  line("master_repl_offset:" + std::to_string(st.offset));
  line("second_repl_offset:" + std::to_string(st.second_offset));
  line(std::string("repl_backlog_active:") + (st.backlog ? "1" : "0"));
  line("repl_backlog_size:" + std::to_string(server::cfg.repl_backlog_size));
  line("repl_backlog_first_byte_offset:" +
       std::to_string(st.backlog ? st.backlog->first_offset() : 0));
  line("repl_backlog_histlen:" + std::to_string(st.backlog ? st.backlog->histlen() : 0));
}

void RoleCommand(Client* c) {
  auto r = c->R();
  State& st = GetState();
  if (IsReplica()) {
    r.ArrayLen(5);
    r.Bulk("slave");
    r.Bulk(st.primary_host);
    r.Int(st.primary_port);
    r.Bulk(ReplicaLinkStateName());
    r.Int(PrimaryLinkUp() ? st.offset : -1);
    return;
  }
  r.ArrayLen(3);
  r.Bulk("master");
  r.Int(st.offset);
  int64_t online = 0;
  for (Client* x : Replicas()) online += x->repl->state == ReplicaLink::kOnline;
  r.ArrayLen(online);
  for (Client* x : Replicas()) {
    if (x->repl->state != ReplicaLink::kOnline) continue;
    r.ArrayLen(3);
    r.Bulk(x->repl->announced_ip.empty() ? x->addr.substr(0, x->addr.rfind(':'))
                                         : x->repl->announced_ip);
    r.Bulk(std::to_string(x->repl->listening_port));
    r.Bulk(std::to_string(x->repl->ack_offset));
  }
}

void RegisterCommands(std::vector<server::CommandSpec>* t) {
  using namespace server;
  const char* g = "server";
  const uint32_t kAdm = kCmdAdmin | kCmdNoScript | kCmdStale;
  // REPLICAOF may run inside MULTI, as in Valkey 8 (its flags are Valkey 8's COMMAND INFO).
  t->push_back({"replicaof", 3, kAdm | kCmdNoAsyncLoading, ReplicaofCommand, g, "5.0.0",
                "Makes this node a replica of another, or a primary again.", "O(1)"});
  t->push_back({"slaveof", 3, kAdm | kCmdNoAsyncLoading, ReplicaofCommand, g, "1.0.0",
                "Old name of REPLICAOF.", "O(1)"});
  t->push_back({"role", 1, kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast, RoleCommand, g,
                "2.8.12", "Tells whether this node is a primary or a replica, with details.",
                "O(1)"});
  t->push_back({"replconf", -1, kAdm | kCmdLoading | kCmdAllowBusy, ReplconfCommand, g, "3.0.0",
                "Replication handshake and acknowledgements (internal).", "O(1)"});
  const uint32_t kSync = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading;
  t->push_back({"psync", -3, kSync, PsyncCommand, g, "2.8.0",
                "Starts or resumes replication from this node (internal).", nullptr});
  t->push_back({"sync", 1, kSync, SyncCommand, g, "1.0.0",
                "Starts replication from this node (internal, old form).", nullptr});
  t->push_back({"failover", -1, kAdm, FailoverCommand, g, "6.2.0",
                "Starts a coordinated failover from a server to one of its replicas.", "O(1)"});
  t->push_back({"wait", 3, kCmdBlocking, WaitCommand, "generic", "3.0.0",
                "Waits until replicas acknowledged the writes of this connection.", "O(1)"});
  t->push_back({"waitaof", 4, kCmdBlocking, WaitaofCommand, "generic", "7.2.0",
                "Blocks until all of the preceding write commands sent by the connection are "
                "written to the append-only file of the primary and/or replicas.",
                "O(1)"});
}

}  // namespace repl
