// Dispatch: every command from every client (and later the primary link) takes this path.
#include "server/dispatch.h"

#include <algorithm>
#include <cstdlib>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "server/acl.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/cluster_hooks.h"
#include "server/config.h"
#include "server/evict.h"
#include "server/loading.h"
#include "server/observe.h"
#include "server/persistence.h"
#include "server/pubsub.h"
#include "server/repl_hooks.h"
#include "server/server.h"
#include "server/slot_stats.h"
#include "server/tracking.h"
#include "server/transactions.h"
#include "server/write_out.h"

namespace server {

namespace {
// What the running command asked to propagate instead of its argv.
struct PropagationOverride {
  std::vector<std::string> prop_override;
  bool has_override = false;
  // Several commands instead (SPOP of more than 1024 members): wrapped in MULTI/EXEC.
  std::vector<std::vector<std::string>> many;
  bool force_prop = false;  // propagate although nothing changed (PUBLISH)
  uint8_t targets = kToAll;  // where a forced one goes (ForcePropagation)
  bool prevent = false;     // nothing leaves although data changed (PropagateAsMany of none)
};
PropagationOverride override_;
// Nothing asked: the next command leaves as its own argv, to every target (keeps the buffers).
void ClearOverride() {
  override_.prop_override.clear();
  override_.many.clear();
  override_.has_override = override_.force_prop = override_.prevent = false;
  override_.targets = kToAll;
}
// Error replies already charged to a command's failed_calls: EXEC's own count leaves out those
// of the commands it ran (Valkey 8 charges each error to the command that replied it).
uint64_t errors_charged_ = 0;
// CallClockChain: whether one lives, and the last instant read while it does (0: none).
bool chain_on_ = false;
int64_t chain_us_ = 0;
// Now, for a command about to run: the chain's instant when there is one (not inside EXEC,
// whose commands run at its instant but are timed one by one).
int64_t CommandNow(bool nested) {
  if (!chain_on_ || nested) return base::FastUs();
  if (!chain_us_) chain_us_ = base::FastUs();
  return chain_us_;
}

std::string UnknownCommandText(const Client* c) {
  std::string args;
  for (size_t i = 1; i < c->argv.size() && args.size() < 128; i++) {
    int room = 128 - static_cast<int>(args.size());
    args += "'" + std::string(c->argv[i].substr(0, room)) + "' ";
  }
  return "unknown command '" + std::string(c->argv[0].substr(0, 128)) +
         "', with args beginning with: " + args;
}

const CommandSpec* TopLevel(const CommandSpec* cmd) { return cmd->parent ? cmd->parent : cmd; }

bool IsTxControl(const CommandSpec* cmd) {
  std::string_view n = cmd->name;
  return n == "exec" || n == "discard" || n == "multi" || n == "watch" || n == "quit" ||
         n == "reset";
}

// RESP2 clients with subscriptions may only run these.
bool AllowedInSubscriberMode(const CommandSpec* cmd) {
  std::string_view n = cmd->name;
  return n == "ping" || n == "subscribe" || n == "ssubscribe" || n == "psubscribe" ||
         n == "unsubscribe" || n == "sunsubscribe" || n == "punsubscribe" || n == "quit" ||
         n == "reset";
}

// Refuses a command before execution. A refused EXEC aborts the whole transaction.
void Reject(Client* c, const CommandSpec* cmd, std::string_view err) {
  if (cmd) cmd->stats.rejected++;
  if (cmd && std::string_view(cmd->name) == "exec") {
    if (!err.empty() && err[0] == '-') err.remove_prefix(1);
    c->R().Error("-EXECABORT Transaction discarded because of: " + std::string(err));
    DiscardTransaction(c);
    FeedMonitorsExecAbort(c);  // MONITOR saw MULTI: it sees the end too, as from Valkey
    return;
  }
  c->R().Error(err);
  if (c->InMulti()) c->flags |= kDirtyExec;
}
}  // namespace

void PropagateAs(Client* c, std::vector<std::string> argv) {
  (void)c;
  override_.prop_override = std::move(argv);
  override_.has_override = true;
}

void PropagateAsMany(Client* c, std::vector<std::vector<std::string>> cmds) {
  if (cmds.empty()) {
    override_.prevent = true;
    return;
  }
  override_.prevent = false;
  if (cmds.size() == 1) return PropagateAs(c, std::move(cmds[0]));
  override_.many = std::move(cmds);
  override_.has_override = true;
}

void ForcePropagation(uint8_t targets) {
  override_.force_prop = true;
  override_.targets = targets;
}

PropagationRequest TakePropagation() {
  PropagationRequest r;
  r.has_override = override_.has_override;
  if (override_.has_override) {
    if (override_.many.empty())
      r.cmds.push_back(std::move(override_.prop_override));
    else
      r.cmds = std::move(override_.many);
  }
  r.force = override_.force_prop;
  r.prevent = override_.prevent;
  ClearOverride();
  return r;
}

void Call(Client* c, const CommandSpec* cmd) {
  if (c->flags & kReplySkipNext) {
    c->flags &= ~kReplySkipNext;
    c->flags |= kReplySkip;
  }
  int64_t dirty_before = g.dirty;
  uint64_t errors_before = g.stats.error_seq, charged_before = errors_charged_;
  ClearOverride();
  Client* prev = g.current_client;
  g.current_client = c;
  c->flags |= kProtected;
  c->cmd = cmd;
  // CLUSTER SLOT-STATS, when enabled (read once: CONFIG SET of it may run now).
  const bool nested = g.in_exec, slot_stats = slot_stats::On();
  if (slot_stats) slot_stats::CallStarted(c, nested);
  bool prev_from_primary = db::GetEnv().from_primary;
  db::GetEnv().from_primary = c->flags & kPrimary;
  // A writable replica's own write command (the AOF loader counts as the primary: it replays
  // what the primary sent).
  bool prev_local_write = db::GetEnv().local_write;
  db::GetEnv().local_write =
      db::GetEnv().replica && !(c->flags & kPrimary) && (cmd->flags & kCmdWrite);
  // One cheap clock read gives both the command's wall time (expiry decisions: the wake-up's
  // wall clock plus the time since) and the start of its duration; a transaction runs at one
  // instant.
  int64_t start = CommandNow(nested);
  if (!g.in_exec) db::GetEnv().now_ms = g.WallMsAt(start);
  // Its own keys take the slot routing found (a command run inside another, as a held one
  // released by CLIENT UNPAUSE in EXEC, brings its own).
  const db::RoutedKeys* prev_routed = db::GetEnv().routed;
  db::GetEnv().routed = &c->routed;
  cmd->proc(c);
  db::GetEnv().routed = prev_routed;
  db::GetEnv().from_primary = prev_from_primary;
  db::GetEnv().local_write = prev_local_write;
  int64_t end = base::FastUs();
  int64_t dur = std::max<int64_t>(0, end - start);
  if (chain_on_ && !nested) chain_us_ = end;
  if (!nested) g.stats.el_cmd_sum += static_cast<uint64_t>(dur);
  c->flags &= ~kProtected;
  g.current_client = prev;
  if (c->tracking) TrackingAfterCommand(c, cmd, g.in_exec);  // the keys it read
  // SLOWLOG and MONITOR: a command that blocked shows on MONITOR now, in SLOWLOG when it runs
  // again; a re-run does not show on MONITOR twice.
  CommandObserved(c, cmd, dur, !(c->flags & kReprocessing), !(c->flags & kBlocked));
  // A command that blocked counts when it completes (served, timed out or unblocked), with the
  // time of all its runs.
  if (!(c->flags & kReprocessing) && !nested) c->blocked_runs_us = 0;
  if (c->flags & kBlocked) {
    if (!nested) c->blocked_runs_us += dur;
  } else {
    int64_t total = dur + (nested ? 0 : c->blocked_runs_us);
    if (!nested) c->blocked_runs_us = 0;
    uint64_t own_errors = (g.stats.error_seq - errors_before) - (errors_charged_ - charged_before);
    errors_charged_ += own_errors;
    cmd->stats.Completed(static_cast<uint64_t>(total), own_errors > 0, cfg.latency_tracking);
    g.stats.total_commands_processed++;
    c->commands_processed++;
  }
  // A replica applies its primary's stream: those bytes are passed on verbatim elsewhere.
  // EXEC itself never leaves: its commands did, wrapped by the transaction hooks.
  bool is_exec = std::string_view(cmd->name) == "exec";
  // Only a command that added changes leaves: one that reset the counter (DEBUG LOADAOF after
  // its reload, SAVE) did not write, as Valkey's call() clamps a negative change to none. A
  // DEBUG LOADAOF written to the AOF reloaded itself on the next DEBUG LOADAOF, forever.
  if ((g.dirty > dirty_before || override_.force_prop) && !is_exec && !override_.prevent) {
    // What leaves: the override, or the command under its real name (replicas and the AOF
    // need not share the renames).
    std::vector<std::string_view> renamed;
    const std::vector<std::string_view>* out = &c->argv;
    if (override_.has_override) {
      renamed.assign(override_.prop_override.begin(), override_.prop_override.end());
      out = &renamed;
    } else if (CommandsRenamed() && !base::EqualsNoCase(c->argv[0], TopLevel(cmd)->name)) {
      renamed.assign(c->argv.begin(), c->argv.end());
      renamed[0] = TopLevel(cmd)->name;
      out = &renamed;
    }
    // A replica's AOF records its primary's stream as it applies it; only our own writes go
    // down the replication stream.
    uint8_t targets = ((c->flags & kPrimary) ? kToAof : kToAll) & override_.targets;
    if (override_.many.empty()) {
      WriteOut(c->dbid, *out, targets);
    } else {
      // Several commands leave as one transaction (unless already inside EXEC's).
      bool wrap = !g.in_exec;
      if (wrap) WriteOutBegin(targets);
      for (auto& m : override_.many)
        WriteOut(c->dbid, std::vector<std::string_view>(m.begin(), m.end()), targets);
      if (wrap) WriteOutEnd(targets);
    }
    if (AofActive()) c->aof_woff = AofStreamOffset();
    if (!(c->flags & kPrimary)) {
      c->woff = Repl().offset();  // what WAIT waits for
      if (c->flags & kBlocked) SetPendingBlockOffset(c, c->woff);
    }
  }
  ClearOverride();
  if (slot_stats) slot_stats::CallEnded(c, dur, nested);  // after its replication bytes
  if (c->flags & kReplySkip) {
    c->flags &= ~kReplySkip;
    c->discard.clear();
  }
  if (c->flags & kReplyOff) c->discard.clear();
  if (!prev) PubsubFlushPending(c);  // messages to c follow its complete reply
}

CallClockChain::CallClockChain() : prev_on_(chain_on_) {
  chain_on_ = true;
  chain_us_ = 0;
}
// A chain inside another (input served while a command loads) took time: the outer one's next
// command reads the clock.
CallClockChain::~CallClockChain() {
  chain_on_ = prev_on_;
  chain_us_ = 0;
}
void CallClockChain::Break() { chain_us_ = 0; }

uint32_t JudgedFlags(const Client* c, const CommandSpec* cmd) {
  uint32_t flags = cmd->flags;
  if (c->InMulti() && std::string_view(cmd->name) == "exec")
    for (auto& q : c->mstate)
      flags |= q.cmd->flags & (kCmdWrite | kCmdReadonly | kCmdDenyOom | kCmdMayReplicate);
  return flags;
}

// The execution gate: the checks every command passes before it runs, whatever brought it here
// (a request, EXEC, a blocked client woken up, a paused client released). On failure the error
// is replied (EXEC's as EXECABORT) and false returned.
bool PassesGate(Client* c, const CommandSpec* cmd) {
  // EXEC is judged by what it queued (Valkey's rule): a write inside makes it a write, a
  // command that may not run on stale data makes it one too.
  uint32_t flags = JudgedFlags(c, cmd);
  bool deny_stale = !(cmd->flags & kCmdStale);
  if (c->InMulti() && std::string_view(cmd->name) == "exec")
    for (auto& q : c->mstate) deny_stale |= !(q.cmd->flags & kCmdStale);
  auto reject = [&](std::string_view err) {
    Reject(c, cmd, err);
    return false;
  };
  if (!c->authenticated && !(cmd->flags & kCmdNoAuth))
    return reject("-NOAUTH Authentication required.");
  if (cmd->flags & kCmdPubsub) {
    std::string_view n = cmd->name;
    if (!c->pubsub && (n == "unsubscribe" || n == "punsubscribe" || n == "sunsubscribe"))
      return reject("-NOSUB '" + cmd->fullname + "' command executed not in subscribed mode");
  }
  if (c->pubsub && c->resp == 2 && !AllowedInSubscriberMode(cmd))
    return reject("Can't execute '" + cmd->fullname +
                  "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                  "allowed in this context");
  if (c->InMulti() && (cmd->flags & kCmdNoMulti))  // e.g. MULTI or WATCH inside MULTI
    return reject("Command not allowed inside a transaction");
  // ACL: the command, its keys and channels (replies -NOPERM and logs when denied). AUTH and
  // HELLO (no_auth commands) are never refused by it, as in Valkey.
  if (c->user && !c->user->unrestricted && !(cmd->flags & kCmdNoAuth)) {
    std::string err;
    if (!acl::CheckCommand(c, cmd, c->argv, "toplevel", &err)) return reject(err);
  }
  // Cluster routing: after the checks above, before the ones below (Valkey's order). What it
  // found is for this run only: a re-run (woken, replicated) routes again.
  c->routed.Clear();
  if (cfg.cluster_enabled && !(c->flags & kPrimary)) {
    // Routing judges expiry as of now, not as of the previous command's start: a key of a
    // migrating slot that expired meanwhile is missing (-ASK), as in Valkey 8's
    // getNodeByQuery. In a pipeline, now is where the previous command ended (CallClockChain),
    // and Call starts at the same instant.
    if (!g.in_exec) db::GetEnv().now_ms = g.WallMsAt(CommandNow(false));
    std::string err;
    if (!Cluster().route(c, cmd, &c->routed, &err)) {
      if (c->InMulti() && std::string_view(cmd->name) == "exec") {
        // EXEC replies with the redirect itself and drops the transaction.
        cmd->stats.rejected++;
        c->R().Error(err);
        DiscardTransaction(c);
        return false;
      }
      return reject(err);
    }
  }
  // CLIENT CAPA redirect (Valkey 8): a standalone replica sends such a client's writes, and
  // its reads unless it said READONLY, to the primary: -REDIRECT host:port.
  if ((c->flags & kCapaRedirect) && !cfg.cluster_enabled && !(c->flags & kPrimary) &&
      ((flags & kCmdWrite) || ((flags & kCmdReadonly) && !(c->flags & kReadonly)))) {
    if (std::string to = Repl().primary_address(); !to.empty()) {
      // Until the target took over, both nodes may be replicas: a -REDIRECT could send the
      // client back and forth. Held, it runs (and is redirected) once the failover ends, as
      // Valkey 8 postpones it.
      if (Repl().failover_handing_over()) {
        HoldClient(c);
        return false;
      }
      if (c->InMulti() && std::string_view(cmd->name) == "exec") {
        cmd->stats.rejected++;
        c->R().Error("-REDIRECT " + to);
        DiscardTransaction(c);
        return false;
      }
      return reject("-REDIRECT " + to);
    }
  }
  // maxmemory: evict first; a command that may use memory (EXEC: one that queued such a
  // command) fails when nothing more can be evicted. Queueing it inside MULTI fails the same
  // way, so EXEC then aborts.
  if (cfg.maxmemory && PerformEvictions() == EvictResult::kFail && (flags & kCmdDenyOom))
    return reject("-OOM command not allowed when used memory > 'maxmemory'.");
  TrackingLimitKeys();
  if (!(c->flags & kPrimary) && ((flags & kCmdWrite) || std::string_view(cmd->name) == "ping")) {
    if (WritesDeniedByDiskError()) return reject(ErrMisconf());
    std::string aof_err;
    if (AofWritesDenied(&aof_err)) return reject(aof_err);
  }
  if (!(c->flags & kPrimary)) {
    bool write = flags & kCmdWrite;
    if (write && Repl().refuse_writes())
      return reject("-READONLY You can't write against a read only replica.");
    if (deny_stale && Repl().stale_data_refused())
      return reject(
          "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
          "'no'.");
    if (write && !Repl().is_replica() && Repl().not_enough_replicas())
      return reject("-NOREPLICAS Not enough good replicas to write.");
  }
  // A load in progress (loading.h), last as in Valkey 8's processCommand: only commands flagged
  // loading run meanwhile; beside served data (swapdb), all but those flagged no-async-loading.
  if (Loading() && !(cmd->flags & kCmdLoading)) return reject(ErrLoading());
  if ((cmd->flags & kCmdNoAsyncLoading) && AsyncLoading()) return reject(ErrLoading());
  // A replica link may not touch the keyspace (it is exempt from CLIENT PAUSE), as Valkey 8.
  if ((c->flags & kReplica) && (flags & (kCmdWrite | kCmdReadonly | kCmdMayReplicate)))
    return reject("Replica can't interact with the keyspace");
  return true;
}

void ReportLinkError(const Client* c, bool aof) {
  bool from_primary = c->flags & kPrimary;
  const char* from = aof ? "server" : from_primary ? "replica" : "primary";
  const char* to = aof ? "AOF-loading-client" : from_primary ? "primary" : "replica";
  const char* cmd = c->last_cmd ? c->last_cmd->fullname.c_str() : "<unknown>";
  LOG_WARNING("== CRITICAL == This %s is sending an error to its %s: '%s' after processing the "
              "command '%s'",
              from, to, g.stats.last_error_text.c_str(), cmd);
  g.stats.unexpected_error_replies++;
  int b = cfg.propagation_error_behavior;
  bool panic = aof ? b == kPropagationErrorPanic
                   : from_primary && cfg.replica_read_only && b != kPropagationErrorIgnore;
  if (!panic) return;
  LOG_WARNING("This %s panicked sending an error to its %s after processing the command '%s'",
              from, to, cmd);
  abort();
}

namespace {
void Dispatch(Client* c);
}  // namespace

void ProcessCommand(Client* c) {
  uint64_t errors_before = g.stats.error_seq;
  Dispatch(c);
  if ((c->flags & (kPrimary | kReplica)) && g.stats.error_seq != errors_before)
    ReportLinkError(c, false);
  // A command a replica sent over its link replied (Client::R set the reply aside): its peer
  // does not speak the protocol, so it goes, as Valkey 8 drops it.
  if ((c->flags & kReplica) && !c->discard.empty()) {
    c->discard.clear();
    LOG_WARNING("Replica generated a reply to command '%s', disconnecting it: %s",
                c->last_cmd ? c->last_cmd->fullname.c_str() : "<unknown>",
                ClientInfoForLog(c).c_str());
    CloseAsync(c);
  }
}

namespace {
void Dispatch(Client* c) {
  const CommandSpec* cmd = LookupCommand(c->argv[0]);
  // The primary link may speak real names of commands renamed here (our primaries propagate
  // them so).
  if (!cmd && (c->flags & kPrimary)) cmd = LookupRealCommand(c->argv[0]);
  c->last_cmd = cmd;
  if (!cmd) return Reject(c, nullptr, UnknownCommandText(c));
  // A container runs a subcommand; alone it is an arity error, unless it has a handler of its
  // own (COMMAND).
  if (!cmd->subcommands.empty() && (c->argv.size() >= 2 || !cmd->proc)) {
    if (c->argv.size() < 2) return Reject(c, cmd, ArityText(cmd));
    const CommandSpec* sub = nullptr;
    for (auto& s : cmd->subcommands)
      if (base::EqualsNoCase(c->argv[1], s.name)) sub = &s;
    c->last_cmd = sub;
    if (!sub) return Reject(c, cmd, UnknownSubcommandText(c->argv[1], cmd->name));
    cmd = sub;
  }
  int argc = static_cast<int>(c->argv.size());
  if ((cmd->arity > 0 && argc != cmd->arity) || (cmd->arity < 0 && argc < -cmd->arity))
    return Reject(c, cmd, ArityText(cmd));
  if (!PassesGate(c, cmd)) return;
  if (c->InMulti() && !IsTxControl(cmd)) return QueueCommand(c, cmd);
  // Hold the command until the pause (or the slot's hold) ends; an EXEC that queued a write
  // is a write (a transaction run during a failover's pause would be lost with the old
  // primary).
  uint32_t flags = JudgedFlags(c, cmd);
  if (PausedFor(flags) || SlotHeldFor(c, cmd, flags)) return HoldClient(c);
  Call(c, cmd);
  HandleReadyKeys();
}
}  // namespace

bool PausedFor(uint32_t flags) {
  if (!g.pause_end_ms && !g.failover_pause_end_ms && !g.shutdown_pause_end_ms) return false;
  int64_t now = base::MsTime();
  bool write = flags & (kCmdWrite | kCmdMayReplicate);
  if (now < g.pause_end_ms && (g.pause_all || write)) return true;
  return (now < g.failover_pause_end_ms || now < g.shutdown_pause_end_ms) && write;
}

void HoldClient(Client* c) {
  c->held_argv.assign(c->argv.begin(), c->argv.end());
  c->flags |= kPaused;
  g.paused_clients.push_back(c);
}

bool SlotHeldFor(const Client* c, const CommandSpec* cmd, uint32_t flags) {
  if (!Cluster().write_held || c->routed.slot() < 0 || (c->flags & kPrimary)) return false;
  return (flags & (kCmdWrite | kCmdMayReplicate)) && Cluster().write_held(c, cmd);
}

bool WritesPaused() {
  int64_t now = base::MsTime();
  return now < g.pause_end_ms || now < g.failover_pause_end_ms || now < g.shutdown_pause_end_ms;
}

namespace {
void SetWritePause(int64_t* slot, int64_t end_ms) {
  *slot = end_ms;
  db::GetEnv().keep_expired = WritesPaused();
  if (!end_ms) UnpauseClientsIfDue();
}
}  // namespace

void SetFailoverPause(int64_t end_ms) { SetWritePause(&g.failover_pause_end_ms, end_ms); }
void SetShutdownPause(int64_t end_ms) { SetWritePause(&g.shutdown_pause_end_ms, end_ms); }

int64_t NextPauseEndIn() {
  int64_t now = base::MsTime(), next = -1;
  for (int64_t end : {g.pause_end_ms, g.failover_pause_end_ms, g.shutdown_pause_end_ms})
    if (end && (next < 0 || end - now < next)) next = std::max<int64_t>(0, end - now);
  return next;
}

void UnpauseClientsIfDue() {
  // Held clients are released when any pause ends; those the other pause still holds are held
  // again by ProcessCommand.
  int64_t now = base::MsTime();
  bool ended = false;
  for (int64_t* end : {&g.pause_end_ms, &g.failover_pause_end_ms, &g.shutdown_pause_end_ms})
    if (*end && now >= *end) {
      *end = 0;
      ended = true;
    }
  if (!g.pause_end_ms) g.pause_all = false;  // an ended CLIENT PAUSE leaves no mode behind
  if (!ended && (g.pause_end_ms || g.failover_pause_end_ms || g.shutdown_pause_end_ms)) return;
  ReleaseHeldClients();
}

void ReleaseHeldClients() {
  db::GetEnv().keep_expired = WritesPaused();
  std::vector<Client*> held;
  held.swap(g.paused_clients);
  for (Client* c : held) {
    c->flags &= ~kPaused;
    std::vector<std::string> argv = std::move(c->held_argv);
    c->held_argv.clear();
    c->argv.assign(argv.begin(), argv.end());
    ProcessCommand(c);
    c->argv.clear();
    if ((c->flags & kPrimary) && !(c->flags & kPaused)) {
      Repl().primary_stream_applied(c, c->held_stream);
      std::string().swap(c->held_stream);
    }
    if (!(c->flags & (kBlocked | kPaused))) {
      c->argv_len_sum = 0;
      if (slot_stats::On()) slot_stats::RequestDone(c);
    }
    if (!(c->flags & kPendingWrite)) {
      c->flags |= kPendingWrite;
      g.pending_writes.push_back(c);
    }
    g.unblocked.push_back(c);
  }
}

}  // namespace server
