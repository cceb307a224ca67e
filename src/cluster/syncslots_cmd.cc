// Atomic slot migration, the target's side at run time (see syncslots_cmd.h). The source
// drives an import with CLUSTER SYNCSLOTS over an ordinary client connection:
//   ESTABLISH <name> <source-node-id> <start> <end> [<start> <end> ...]   -> +OK
//   RESTORE <name> <key> <expire-ms|-1> <payload> [<key> <expire> <payload> ...] -> +OK
//   APPLY <name> <command> [args...]                                      -> the command's reply
//   HANDOVER <name>                                                       -> +OK
//   ABORT <name>                                                          -> +OK
//   RESUME <name> <source-node-id>  (a new connection after a lost one)   -> :requests taken
//   RESERVE <name> <slot> <keys>    (a slot's walk begins: size its table) -> +OK
// Each one this primary accepts leaves, as itself, to its replicas and its AOF (an APPLY
// whose command asked to leave otherwise, e.g. SET EX as SET PXAT, leaves as an APPLY of
// that); its replicas and the AOF loader (our primary's link, flag kPrimary) apply them
// without the primary's checks, building the same staging db.
#include "cluster/syncslots_cmd.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/crc16.h"
#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/changes.h"
#include "cluster/cmd_args.h"
#include "cluster/runtime.h"
#include "cluster/settings.h"
#include "cluster/slot_import.h"
#include "cluster/slot_keys.h"
#include "cluster/value_pieces.h"
#include "persist/object_codec.h"
#include "persist/snapshot.h"
#include "persist/value_codec.h"
#include "server/client.h"
#include "server/command.h"
#include "server/command_keys.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/write_out.h"

namespace cluster {

using server::Client;
using server::CommandSpec;

ImportJobs& NodeImports() {
  static ImportJobs jobs;
  return jobs;
}

namespace {

bool FromPrimary(const Client* c) { return c->flags & server::kPrimary; }

// The staging db is written with the keyspace's side effects off: replica semantics for
// expiry (an expired staged key stays until the source's DEL: the source expires its keys
// itself and sends the DEL), no expired/new-key callbacks (they propagate DELs and notify), no
// routed-slot cache (it belongs to the outer command), and muted key events (WATCH, blocked
// clients, client-side caching, keyspace notifications: g.staging_writes).
class StagingScope {
 public:
  StagingScope() : env_(db::GetEnv()), saved_(env_), mute_(server::g.staging_writes) {
    env_.replica = true;        // expired keys are never deleted on access...
    env_.from_primary = true;   // ...and are found as they are (the source sends the DEL)
    env_.local_write = false;   // not a writable replica's own write (no local expire list)
    env_.keep_expired = false;  // irrelevant once replica: from_primary decides
    env_.on_expired = nullptr;  // would propagate an unwrapped DEL into db 0's stream
    env_.on_new = nullptr;      // would wake blocked clients and notify "new"
    env_.on_local_expire = nullptr;
    env_.routed = nullptr;  // the outer command's slot cache: every staged key is hashed
    server::g.staging_writes = true;
  }
  ~StagingScope() {
    env_.replica = saved_.replica;
    env_.from_primary = saved_.from_primary;
    env_.local_write = saved_.local_write;
    env_.keep_expired = saved_.keep_expired;
    env_.on_expired = saved_.on_expired;
    env_.on_new = saved_.on_new;
    env_.on_local_expire = saved_.on_local_expire;
    env_.routed = saved_.routed;
    server::g.staging_writes = mute_;
  }

 private:
  db::Env& env_;
  db::Env saved_;
  bool mute_;
};

std::vector<std::string> ApplyPrefix(const ImportJob& job) {
  return {"CLUSTER", "SYNCSLOTS", "APPLY", job.name};
}

// Ends a running job; `abort_down_stream`: an ABORT of it leaves to the replicas and the AOF
// (a job ended by this node itself, not by a command that leaves as itself).
void EndJob(ImportJob* job, ImportState state, std::string message, bool abort_down_stream) {
  std::string name = job->name;
  LOG_NOTICE("Slot import %s of slots %s from %.40s: %s%s%s", name.c_str(),
             FormatSlotRanges(job->ranges).c_str(), job->source_id.c_str(), ImportStateName(state),
             message.empty() ? "" : ": ", message.c_str());
  NodeImports().Finish(job, state, std::move(message), base::MsTime());
  if (abort_down_stream) server::WriteOut(0, {"CLUSTER", "SYNCSLOTS", "ABORT", name});
}

// The running job named by argv[3], or nullptr with the error replied.
ImportJob* JobArg(Client* c) {
  std::string_view name = c->argv[3];
  if (ImportJob* j = NodeImports().FindRunning(name)) return j;
  if (const ImportJob* done = NodeImports().Find(name))
    c->R().Error("Slot import job " + std::string(name) + " is not running (" +
                 ImportStateName(done->state) + ")");
  else
    c->R().Error("No slot import job named " + std::string(name));
  return nullptr;
}

bool SourceOwnsSlots(const State& st, const ImportJob& job) {
  const Node* src = st.Find(job.source_id);
  for (const SlotRange& r : job.ranges)
    for (int s = r.start; s <= r.end; s++)
      if (!src || st.slot_owner[s] != src) return false;
  return true;
}

bool Overlaps(const ImportJob& job, const std::vector<SlotRange>& ranges) {
  for (const SlotRange& r : ranges)
    for (int s = r.start; s <= r.end; s++)
      if (SlotTest(job.slots, s)) return true;
  return false;
}

// The source lost its connection (or thinks so: a partition may leave ours open) and comes
// back on a new one: the job goes on from the requests it took, which the answer tells; what
// the old connection still holds unread is dropped with it (the source sends it again).
void Resume(Client* c) {
  if (c->argv.size() != 5) return server::ReplyArity(c, c->cmd);
  if (FromPrimary(c)) return c->R().Ok();  // never propagated; nothing to follow
  ImportJob* job = JobArg(c);
  if (!job) return;
  if (job->source_id != c->argv[4])
    return c->R().Error("Slot import job " + job->name + " is not from node " +
                        std::string(c->argv[4]));
  if (job->client_id && job->client_id != c->id) {
    auto it = server::g.clients_by_id.find(job->client_id);
    if (it != server::g.clients_by_id.end()) server::CloseAsync(it->second);
  }
  job->client_id = c->id;
  job->detached_ms = 0;
  job->message.clear();
  job->last_update_ms = job->last_ack_ms = base::MsTime();
  c->flags |= server::kInputSliced;
  LOG_NOTICE("Slot import %s: the source resumed after %llu requests", job->name.c_str(),
             static_cast<unsigned long long>(job->applied));
  c->R().Int(static_cast<int64_t>(job->applied));
}

void Establish(Client* c) {
  auto& a = c->argv;
  if (a.size() < 7 || (a.size() - 5) % 2 != 0) return server::ReplyArity(c, c->cmd);
  State& st = GetState();
  std::span<const std::string_view> range_args(a.data() + 5, a.size() - 5);
  std::vector<SlotRange> ranges;
  std::string err;
  if (FromPrimary(c)) {
    // Our primary (or the AOF) decided: only the form is checked. A job of that name still
    // running (a stream applied twice cannot do it; an AOF of an earlier life may) is replaced.
    err = ParseRanges(range_args, &ranges);
    if (ImportJob* old = NodeImports().FindRunning(a[3]))
      EndJob(old, ImportState::kCancelled, "replaced by a new job of the same name", false);
  } else {
    // A job of these slots gives way to a new import of them when it cannot go on: its
    // source opens this one on another connection (a source runs one job per slot: the old
    // one is over, its connection merely not seen closed, as across a partition), its source
    // went away and did not resume yet, or no longer owns its slots. Only their owner may
    // open a new one.
    if (ParseRanges(range_args, &ranges).empty())
      for (ImportJob* old : NodeImports().RunningJobs())
        if (Overlaps(*old, ranges) &&
            ((old->source_id == a[4] && old->client_id != c->id) || old->detached_ms ||
             !SourceOwnsSlots(st, *old)))
          EndJob(old, ImportState::kCancelled, "replaced by a new import of its slots", true);
    ranges.clear();
    err = CheckEstablish(st, NodeImports(), a[3], a[4], range_args, &ranges);
    // What the rules of the job cannot see: a replica that would miss the staged keys (a
    // Valkey or Redis replica ignores CLUSTER SYNCSLOTS and would lack the slots after the
    // handover), and memory for them.
    std::string other = err.empty() ? server::Repl().replica_without_slot_import() : "";
    if (!other.empty())
      err = "Replica " + other + " of this node cannot stage slot imports (not a node of this kind)";
    if (err.empty() && server::cfg.maxmemory > 0 &&
        server::UsedMemory() >= static_cast<uint64_t>(server::cfg.maxmemory))
      err = "Not enough memory to import slots: used_memory is at maxmemory";
  }
  if (!err.empty()) return c->R().Error(err);
  auto job = std::make_unique<ImportJob>();
  job->name = std::string(a[3]);
  job->source_id = std::string(a[4]);
  job->target_id =
      st.myself->IsReplica() && st.myself->primary ? st.myself->primary->name : st.myself->name;
  job->ranges = ranges;
  for (const SlotRange& r : ranges)
    for (int s = r.start; s <= r.end; s++) SlotSet(&job->slots, s);
  job->create_ms = job->last_update_ms = job->last_ack_ms = base::MsTime();
  job->state = st.myself->IsReplica() ? ImportState::kOccurringOnPrimary : ImportState::kReceiving;
  job->client_id = FromPrimary(c) ? 0 : c->id;
  // Its pieces of big values are costly to insert (a random place in a big sorted set): they
  // run in bounded slices between the other clients' turns.
  if (!FromPrimary(c)) c->flags |= server::kInputSliced;
  job->staging = std::make_unique<db::Db>(kStagingDbId, /*per_slot=*/true);
  ImportJob* j = NodeImports().Add(std::move(job));
  LOG_NOTICE("Slot import %s of slots %s from %.40s: started", j->name.c_str(),
             FormatSlotRanges(j->ranges).c_str(), j->source_id.c_str());
  server::ForcePropagation();
  c->R().Ok();
}

// Several keys per command (the source batches small ones): all are checked and decoded
// before any is staged, so an error stages none.
void Restore(Client* c) {
  auto& a = c->argv;
  if (a.size() < 7 || (a.size() - 4) % 3 != 0) return server::ReplyArity(c, c->cmd);
  ImportJob* job = JobArg(c);
  if (!job) return;
  job->applied++;
  size_t n = (a.size() - 4) / 3;
  static std::vector<persist::Value> values;
  static std::vector<int64_t> whens;
  values.clear();
  values.resize(n);
  whens.assign(n, -1);
  for (size_t i = 0; i < n; i++) {
    std::string_view key = a[4 + 3 * i];
    int slot = base::KeySlot(key);
    if (!SlotTest(job->slots, slot))
      return c->R().Error("Key's hash slot " + std::to_string(slot) + " is not imported by job " +
                          job->name);
    job->staging->PrefetchKey(key);  // its bucket, loaded while the rest is checked
    if (!base::ParseInt64(a[5 + 3 * i], &whens[i]) || whens[i] < -1)
      return c->R().Error("Invalid expire time: a unix time in milliseconds or -1 expected");
    if (const char* e = persist::DumpStatusError(persist::DecodeDump(
            a[6 + 3 * i], &values[i], !server::g.skip_checksum_validation)))
      return c->R().Error(e);
  }
  {
    StagingScope scope;
    db::Db* d = job->staging.get();
    for (size_t i = 0; i < n; i++) {
      std::string_view key = a[4 + 3 * i];
      d->Delete(key);  // a staged value of that key is replaced
      d->Add(persist::FromValue(key, values[i], whens[i]));
    }
  }
  values.clear();
  job->last_update_ms = job->last_ack_ms = base::MsTime();
  server::g.dirty++;
  server::ForcePropagation();
  c->R().Ok();
}

const CommandSpec* InnerCommand(Client* c, const std::vector<std::string_view>& argv) {
  const CommandSpec* cmd = server::LookupCommandArgv(argv);
  if (!cmd && FromPrimary(c)) {  // our primary sends real names (rename-command)
    cmd = server::LookupRealCommand(argv[0]);
    if (cmd && !cmd->subcommands.empty()) {
      const CommandSpec* sub = nullptr;
      if (argv.size() >= 2)
        for (auto& s : cmd->subcommands)
          if (base::EqualsNoCase(argv[1], s.name)) sub = &s;
      cmd = sub;
    }
  }
  return cmd;
}

// Whether the inner command of APPLY may run against a staging db, else the error. Only a
// write command of keys that are all in the job's slots: one that reaches another database
// (MOVE, COPY ... DB, MIGRATE), waits (the blocking forms: the source sends what they did),
// or names no key (FLUSHALL, SWAPDB) would touch what is served.
std::string CheckInner(const ImportJob& job, const CommandSpec* cmd,
                       const std::vector<std::string_view>& argv) {
  std::string_view name = cmd->parent ? cmd->parent->name : cmd->name;
  if (!(cmd->flags & server::kCmdWrite) ||
      (cmd->flags & (server::kCmdBlocking | server::kCmdNoMulti)))
    return "SYNCSLOTS APPLY takes the write commands of keys only, not '" + std::string(name) + "'";
  if (name == "move" || name == "migrate")
    return "SYNCSLOTS APPLY cannot run '" + std::string(name) + "'";
  if (name == "copy")
    for (size_t i = 3; i < argv.size(); i++)
      if (base::EqualsNoCase(argv[i], "db")) return "SYNCSLOTS APPLY cannot run COPY ... DB";
  std::vector<server::KeyRef> keys;
  if (!server::FindKeys(cmd, argv, &keys) || keys.empty())
    return "SYNCSLOTS APPLY needs a command with keys";
  for (const server::KeyRef& k : keys) {
    int slot = base::KeySlot(argv[static_cast<size_t>(k.pos)]);
    if (!SlotTest(job.slots, slot))
      return "Key's hash slot " + std::to_string(slot) + " is not imported by job " + job.name;
  }
  return "";
}

// Runs the inner command of APPLY (argv[4..]) against the job's staging db, as if that were
// the client's selected database. The one place a command runs against a staging db; why
// each step is there:
void RunStaged(Client* c, ImportJob* job, const CommandSpec* cmd) {
  // 1. The handler reads its arguments from c->argv: the inner command's become the client's
  //    (views into the same query buffer), and the outer ones come back after.
  std::vector<std::string_view> outer = c->argv;
  c->argv.assign(outer.begin() + 4, outer.end());
  // 2. Every lookup and write of a handler goes through c->db: the staging db is selected.
  //    dbid names it for what is keyed by a db id, all of which StagingScope mutes.
  db::Db* prev_db = c->db;
  int prev_dbid = c->dbid;
  const CommandSpec* prev_cmd = c->cmd;
  c->db = job->staging.get();
  c->dbid = kStagingDbId;
  c->cmd = cmd;
  // 3. Propagation requests of the inner command must be its own: the outer one has made
  //    none yet (Call clears them before the handler), so what is there after is the inner's.
  {
    // 4. Replica expiry semantics, no callbacks, no key events (see StagingScope).
    StagingScope scope;
    cmd->proc(c);
  }
  c->cmd = prev_cmd;
  c->db = prev_db;
  c->dbid = prev_dbid;
  c->argv = std::move(outer);
  // 5. What leaves: the inner command never leaves as itself (it would land in db 0 of the
  //    replicas and the AOF). With no request of its own, the APPLY leaves as it came (Call
  //    propagates it when the inner command changed the staging db); a rewrite it asked for
  //    (SET EX -> SET PXAT, INCRBYFLOAT -> SET KEEPTTL) leaves wrapped in an APPLY.
  server::PropagationRequest p = server::TakePropagation();
  if (p.prevent) return server::PropagateAsMany(c, {});
  if (p.force) server::ForcePropagation();
  if (!p.has_override) return;
  auto wrapped = [&](std::vector<std::string>& inner) {
    std::vector<std::string> w = ApplyPrefix(*job);
    for (auto& s : inner) w.push_back(std::move(s));
    return w;
  };
  if (p.cmds.size() == 1) return server::PropagateAs(c, wrapped(p.cmds[0]));
  // Several (SPOP of many members): each as its own APPLY, without the MULTI/EXEC that
  // PropagateAsMany adds, as CLUSTER SYNCSLOTS may not run inside a transaction on the
  // replica; staged keys are invisible until HANDOVER, so nobody sees them apart.
  uint8_t targets = FromPrimary(c) ? server::kToAof : server::kToAll;
  for (auto& inner : p.cmds) {
    std::vector<std::string> w = wrapped(inner);
    server::WriteOut(c->dbid, std::vector<std::string_view>(w.begin(), w.end()), targets);
  }
  server::PropagateAsMany(c, {});  // the APPLY itself left as those
}

void Apply(Client* c) {
  auto& a = c->argv;
  if (a.size() < 5) return server::ReplyArity(c, c->cmd);
  ImportJob* job = JobArg(c);
  if (!job) return;
  job->applied++;
  std::vector<std::string_view> inner(a.begin() + 4, a.end());
  const CommandSpec* cmd = InnerCommand(c, inner);
  if (!cmd) return c->R().Error("SYNCSLOTS APPLY: unknown command '" + std::string(a[4]) + "'");
  int argc = static_cast<int>(inner.size());
  if ((cmd->arity > 0 && argc != cmd->arity) || (cmd->arity < 0 && argc < -cmd->arity))
    return c->R().Error("wrong number of arguments for '" + std::string(cmd->name) + "' command");
  std::string err = CheckInner(*job, cmd, inner);
  if (!err.empty()) return c->R().Error(err);
  job->last_update_ms = job->last_ack_ms = base::MsTime();
  RunStaged(c, job, cmd);
}

// A sizing hint (RESERVE, SIZEHINT) was taken: it leaves down the stream too, as the replicas
// stage the same keys and the same hint helps them.
void HintTaken(Client* c, ImportJob* job) {
  job->last_update_ms = job->last_ack_ms = base::MsTime();
  server::g.dirty++;
  server::ForcePropagation();
  c->R().Ok();
}

// The source begins a big slot's walk: its staged table is sized for its keys at once
// rather than grown (and every key rehashed) on the way. A hint: the count is capped.
void Reserve(Client* c) {
  auto& a = c->argv;
  if (a.size() != 6) return server::ReplyArity(c, c->cmd);
  ImportJob* job = JobArg(c);
  if (!job) return;
  job->applied++;
  int slot;
  int64_t keys;
  if (!SlotArg(c, a[4], &slot)) return;
  if (!base::ParseInt64(a[5], &keys) || keys < 0) return c->R().Error("Invalid key count");
  if (!SlotTest(job->slots, slot))
    return c->R().Error("Hash slot " + std::to_string(slot) + " is not imported by job " +
                        job->name);
  constexpr int64_t kMaxReserve = 1 << 24;
  job->staging->ReserveSlot(slot, static_cast<size_t>(std::min(keys, kMaxReserve)));
  HintTaken(c, job);
}

// A value the source sends in pieces has begun (its first piece made it here): its table is
// sized for all its elements at once (ZReserveMembers and the like). A hint: a key gone or of
// another type is left alone, the count is capped.
void SizeHint(Client* c) {
  auto& a = c->argv;
  if (a.size() != 6) return server::ReplyArity(c, c->cmd);
  ImportJob* job = JobArg(c);
  if (!job) return;
  job->applied++;
  int64_t n;
  if (!base::ParseInt64(a[5], &n) || n < 0) return c->R().Error("Invalid element count");
  int slot = base::KeySlot(a[4]);
  if (!SlotTest(job->slots, slot))
    return c->R().Error("Key's hash slot " + std::to_string(slot) + " is not imported by job " +
                        job->name);
  constexpr int64_t kMaxHint = 1 << 26;
  StagingScope scope;  // found as it is, expired or not: the source decides
  if (db::Obj* o = job->staging->Find(a[4]))
    ReserveTable(o, static_cast<size_t>(std::min(n, kMaxHint)));
  HintTaken(c, job);
}

// Jobs whose claim waits for its save's fsync (claim_save set, not completed): the per-write
// and per-pass checks below return at once while there are none.
int g_claims_waiting = 0;

// The job's slots leave our messages until their claim is on disk (on), then come back.
void SetUnannounced(ImportJob* job, bool on) {
  State& st = GetState();
  for (int s = 0; s < kSlots; s++) {
    if (!SlotTest(job->slots, s) || SlotTest(st.unannounced, s) == on) continue;
    if (on) {
      SlotSet(&st.unannounced, s);
      st.unannounced_count++;
    } else {
      SlotClear(&st.unannounced, s);
      st.unannounced_count--;
    }
  }
}

// HANDOVER's first run: the staged keys go into db 0 and, on a primary deciding it, the slots
// become ours with a new epoch, saved with the fsync left to the helper thread
// (job->claim_save). It leaves down the stream now: replicas and the AOF move the keys at the
// same point as here (a key of these slots that expires here meanwhile leaves as a DEL after
// it, not before, where it would miss the replica's still staged key).
void HandOverKeys(ImportJob* job, bool take_ownership) {
  State& st = GetState();
  db::Db* d0 = server::GetDb(0);
  for (int s = 0; s < kSlots; s++) {
    if (!SlotTest(job->slots, s)) continue;
    if (d0->CountInSlot(s) > 0) {
      // Not expected: the slot was the source's. Its keys here go first (down the stream too,
      // from a primary), or PutSlot would find the slot occupied.
      LOG_WARNING("Slot import %s: db 0 held %zu keys of slot %d before the handover: deleted",
                  job->name.c_str(), d0->CountInSlot(s), s);
      if (take_ownership)
        DeleteKeysInSlot(s);
      else
        d0->TakeSlot(s);  // freed as it goes out of scope
    }
    if (auto t = job->staging->TakeSlot(s)) {
      job->keys_moved += t->keys.Size();
      d0->PutSlot(s, std::move(t));
    }
  }
  if (take_ownership) {
    SetUnannounced(job, true);
    for (int s = 0; s < kSlots; s++)
      if (SlotTest(job->slots, s)) st.AssignSlot(s, st.myself);
    BumpEpochWithoutConsensus(st);
    job->claim_save = SaveConfigLaterOrDie();
    g_claims_waiting++;
  }
  job->handed_over = true;
  server::g.dirty++;
  server::ForcePropagation();
}

// Once the claim is on disk (at once without one): the others hear of it, the job ends.
void CompleteHandover(ImportJob* job, bool take_ownership) {
  SetUnannounced(job, false);
  if (job->claim_save) g_claims_waiting--;
  if (take_ownership) NodeBus().BroadcastPong();
  LOG_NOTICE("Slot import %s: %zu keys moved into db 0%s", job->name.c_str(), job->keys_moved,
             take_ownership ? ", slots taken with a new config epoch" : "");
  EndJob(job, ImportState::kSuccess, "", false);
}

void Handover(Client* c) {
  if (c->argv.size() != 4) return server::ReplyArity(c, c->cmd);
  ImportJob* job = JobArg(c);
  if (!job) return;
  State& st = GetState();
  // Our own decision (a primary serving the source's connection), or our primary's / the
  // AOF's, where ownership comes by the bus or nodes.conf and only the keys move.
  bool take_ownership = !FromPrimary(c) && st.myself->IsPrimary();
  // DEBUG SLOT-MIGRATION-HANDOVER-DELAY: a slow target, whose loop (and bus) keeps running:
  // the HANDOVER waits with the paused commands and runs again after the delay.
  // (Held clients are also run again whenever a pause is looked at: until the time comes,
  // the HANDOVER is held again.)
  if (take_ownership && server::g.slot_migration_handover_delay_ms > 0) {
    int64_t now = base::MsTime();
    if (!job->handover_due_ms) {
      job->handover_due_ms = now + server::g.slot_migration_handover_delay_ms;
      server::g.loop->AddOneShot(server::g.slot_migration_handover_delay_ms + 1,
                                 [] { server::ReleaseHeldClients(); });
    }
    if (now < job->handover_due_ms) return server::HoldClient(c);
  }
  if (!job->handed_over) HandOverKeys(job, take_ownership);
  // The claim's save is fsynced by the helper thread, not here: the loop serves the other
  // slots meanwhile (an fsync took 10-45 ms), writes to these slots are held
  // (ImportHoldsWrite), and this HANDOVER runs again once the save is on disk
  // (ImportsBeforeSleep): only then do the source (our reply) and the others (the PONG) hear
  // of the claim, as when the save was synchronous.
  if (take_ownership && !ConfigDurable(job->claim_save)) return server::HoldClient(c);
  CompleteHandover(job, take_ownership);
  c->R().Ok();
}

void Abort(Client* c) {
  if (c->argv.size() != 4) return server::ReplyArity(c, c->cmd);
  // The primary's stream may name a job this replica never saw (it ended before our full
  // sync's snapshot, or the primary ended it as that sync started).
  if (FromPrimary(c) && !NodeImports().FindRunning(c->argv[3])) return c->R().Ok();
  ImportJob* job = JobArg(c);
  if (!job) return;
  EndJob(job, ImportState::kCancelled, "aborted by the source", false);
  server::g.dirty++;
  server::ForcePropagation();
  c->R().Ok();
}

}  // namespace

void SyncSlotsCommand(Client* c) {
  if (!Enabled(c)) return;
  auto& a = c->argv;
  // A replica follows its primary's jobs only.
  if (GetState().myself->IsReplica() && !FromPrimary(c))
    return c->R().Error("Slots can only be imported by a primary");
  std::string_view op = a[2];
  if (a.size() < 4)
    return c->R().Error("unknown subcommand or wrong number of arguments for 'SYNCSLOTS'");
  if (base::EqualsNoCase(op, "establish")) return Establish(c);
  if (base::EqualsNoCase(op, "restore")) return Restore(c);
  if (base::EqualsNoCase(op, "apply")) return Apply(c);
  if (base::EqualsNoCase(op, "handover")) return Handover(c);
  if (base::EqualsNoCase(op, "abort")) return Abort(c);
  if (base::EqualsNoCase(op, "resume")) return Resume(c);
  if (base::EqualsNoCase(op, "reserve")) return Reserve(c);
  if (base::EqualsNoCase(op, "sizehint")) return SizeHint(c);
  c->R().Error("Unknown SYNCSLOTS operation '" + std::string(op) +
               "': ESTABLISH, RESTORE, APPLY, HANDOVER, ABORT, RESUME, RESERVE or SIZEHINT "
               "expected");
}

void GetSlotMigrationsCommand(Client* c) {
  if (!Enabled(c)) return;
  auto& jobs = NodeImports().all();
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(jobs.size()));
  for (auto& j : jobs) {
    auto fields = DescribeImport(*j);
    r.MapLen(static_cast<int64_t>(fields.size()));
    for (auto& [f, v] : fields) {
      r.Bulk(f);
      int64_t n;
      if (f.ends_with("_time") && base::ParseInt64(v, &n))
        r.Int(n);
      else
        r.Bulk(v);
    }
  }
}

void ImportClientFreed(Client* c) {
  if (c->flags & server::kPrimary) return;
  for (ImportJob* j : NodeImports().RunningJobs())
    if (j->client_id == c->id) {
      j->client_id = 0;
      j->detached_ms = base::MsTime();
      j->message = "the source's connection closed; waiting for it to resume";
      LOG_NOTICE("Slot import %s: the source's connection closed before the handover; waiting "
                 "%lld ms for it to resume",
                 j->name.c_str(), static_cast<long long>(ImportResumeWaitMs(NodeTimeout())));
    }
}

void AbortRunningImports(const char* why) {
  State& st = GetState();
  if (!st.myself || !st.myself->IsPrimary()) return;
  for (ImportJob* j : NodeImports().RunningJobs())
    if (!j->handed_over) EndJob(j, ImportState::kFailed, why, true);
}

bool ImportHoldsWrite(const server::Client* c, const server::CommandSpec*) {
  // Exactly the slots of the claims not on disk yet (on every write: no job walked).
  const State& st = GetState();
  return st.unannounced_count && SlotTest(st.unannounced, c->routed.slot());
}

void ImportsBeforeSleep() {
  if (!g_claims_waiting) return;
  bool release = false;
  for (ImportJob* j : NodeImports().RunningJobs()) {
    if (!j->handed_over) continue;
    if (!ConfigDurable(j->claim_save)) {
      server::g.loop->SetMaxWaitMs(1);  // the helper's fsync: looked at again soon
      continue;
    }
    SetUnannounced(j, false);
    // Its HANDOVER, held, completes it and replies; with the source's connection gone, the
    // job completes here (the source learns of the claim by the bus).
    if (j->client_id)
      release = true;
    else
      CompleteHandover(j, true);
  }
  if (release) server::ReleaseHeldClients();
}

void DropUnfinishedImports() {
  if (!GetState().myself) return;
  for (ImportJob* j : NodeImports().RunningJobs())
    EndJob(j, ImportState::kFailed, "unfinished when the AOF load ended", false);
}

bool ImportsRunning() { return GetState().myself && !NodeImports().RunningJobs().empty(); }

void ImportsCron() {
  State& st = GetState();
  int64_t now = base::MsTime();
  for (ImportJob* j : NodeImports().RunningJobs()) {
    if (j->handed_over) continue;  // its claim stands: it ends once on disk
    if (st.myself->IsPrimary() && j->state == ImportState::kOccurringOnPrimary) {
      EndJob(j, ImportState::kFailed, "this node became a primary", true);
    } else if (st.myself->IsReplica() && j->state == ImportState::kReceiving) {
      EndJob(j, ImportState::kFailed, "this node became a replica", false);
    } else if (j->detached_ms) {
      // A source that stays away, or whose slots another node took (its replica, after it
      // died): nothing will resume.
      if (!SourceOwnsSlots(st, *j))
        EndJob(j, ImportState::kFailed, "the source lost its slots while its connection was down",
               true);
      else if (now - j->detached_ms > ImportResumeWaitMs(NodeTimeout()))
        EndJob(j, ImportState::kFailed,
               "the source's connection closed before the handover and it did not resume", true);
    }
  }
}

void InitSlotImport() {
  // Never written (no snapshot carries staged keys): only its before_load matters, which
  // drops a replica's jobs when its primary's full sync replaces its data.
  persist::AuxHook hook;
  hook.write = [](std::string*) { return false; };
  hook.read = [](std::string_view) { return true; };
  hook.replication_only = true;
  hook.before_load = [] {
    for (ImportJob* j : NodeImports().RunningJobs())
      EndJob(j, ImportState::kFailed, "a full sync from the primary replaced the data", false);
  };
  persist::RegisterAuxField("slot-imports", std::move(hook));
}

}  // namespace cluster
