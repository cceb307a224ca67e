// The one dispatch path: lookup -> arity -> auth -> (cluster routing) -> queue or execute.
#pragma once
#include "server/client.h"
#include "server/command.h"
#include "server/write_out.h"

namespace server {
void ProcessCommand(Client* c);
// An error was replied on a replication link (to our primary's stream, or on a replica's
// link) or to the AOF load: the two sides' data may differ. Logged as Valkey 8's
// afterErrorReply logs it, counted in unexpected_error_replies, and the node stops when
// propagation-error-behavior says so. `aof`: the AOF load's client.
void ReportLinkError(const Client* c, bool aof);
// The checks of the dispatch path after lookup and arity (auth, subscriber context, MULTI,
// MISCONF, READONLY, MASTERDOWN, NOREPLICAS; cluster routing next): every command passes them
// before it runs, including a woken blocked command. EXEC is judged by what it queued. On
// failure the error is already replied.
bool PassesGate(Client* c, const CommandSpec* cmd);
// Executes one command with stats, timing and propagation (also used by EXEC).
void Call(Client* c, const CommandSpec* cmd);
// While one lives, the commands of a client's input run back to back (ProcessInput) share
// clock reads: each starts at the instant the one before it ended, one read a command instead
// of two (three in cluster mode). A read costs about 30 ns where the kernel keeps time with a
// paravirtual clock (base::FastUs then falls back to clock_gettime): 6% of GET -P16. The time
// between two commands (the next one's parsing and gate) counts in the second's duration.
class CallClockChain {
 public:
  CallClockChain();
  ~CallClockChain();
  CallClockChain(const CallClockChain&) = delete;
  CallClockChain& operator=(const CallClockChain&) = delete;
  // Work between two commands that may take long (an eviction) breaks the chain: the next
  // command reads the clock again, so neither its time nor its duration is stale.
  static void Break();

 private:
  bool prev_on_;
};
// Replace what is propagated for the running command (e.g. SET EX -> SET PXAT).
void PropagateAs(Client* c, std::vector<std::string> argv);
// Several commands instead of the command (MULTI/EXEC around them in the stream and the AOF);
// none: nothing leaves for this command.
void PropagateAsMany(Client* c, std::vector<std::vector<std::string>> cmds);
// Propagate the running command although it changed no data (PUBLISH), to `targets`
// (write_out.h) only: CLUSTER SETSLOT goes to replicas alone, never to the AOF.
void ForcePropagation(uint8_t targets = kToAll);
// What the running command asked to leave instead of its argv so far (PropagateAs,
// PropagateAsMany, ForcePropagation), taken out: the command then leaves as its own argv
// again. For a command that runs another one inside it and must wrap what that one asked
// (CLUSTER SYNCSLOTS APPLY, cluster/syncslots_cmd.cc).
struct PropagationRequest {
  bool has_override = false;                // `cmds` replace the command
  std::vector<std::vector<std::string>> cmds;  // one or more (MULTI/EXEC around several)
  bool force = false;                       // leaves although no data changed
  bool prevent = false;                     // nothing leaves although data changed
};
PropagationRequest TakePropagation();
// Resumes held clients once a pause is over (they pass the whole dispatch path again, so a
// write held across a failover is answered with MOVED).
void UnpauseClientsIfDue();
// The flags a command is judged by: EXEC's include those of the commands it queued (a write
// inside makes it a write, as in Valkey).
uint32_t JudgedFlags(const Client* c, const CommandSpec* cmd);
// Whether a command of these (judged) flags would be held now by CLIENT PAUSE or a failover
// pause.
bool PausedFor(uint32_t flags);
// Whether an atomic slot migration holds this write (its slot is changing hands, or its key's
// big value is half sent).
bool SlotHeldFor(const Client* c, const CommandSpec* cmd, uint32_t flags);
// Runs the held commands again (a pause or a slot's hold ended); those still held wait again.
void ReleaseHeldClients();
// Holds the client's current command with the paused ones (it runs again, through the whole
// dispatch path, at the next ReleaseHeldClients).
void HoldClient(Client* c);
// Writes are paused (either pause): keys do not expire, nothing is added to the stream, so the
// replication offset holds still.
bool WritesPaused();
// The write pause of a manual failover (until end_ms; 0 ends it now).
void SetFailoverPause(int64_t end_ms);
// The write pause of a shutdown waiting for its replicas (0 ends it).
void SetShutdownPause(int64_t end_ms);
// Milliseconds until the next pause ends, -1 if none is active.
int64_t NextPauseEndIn();
}  // namespace server
