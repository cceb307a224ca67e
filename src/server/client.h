// A connected client: socket, query buffer and parser, output buffer, per-client state.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "net/buffered_conn.h"
#include "net/reply.h"
#include "net/resp_parser.h"

namespace server {

struct CommandSpec;
}  // namespace server
namespace repl {
struct ReplicaLink;
}
namespace server::acl {
struct User;
}
namespace server {
struct PubsubState;
struct TrackingState;

struct QueuedCommand {
  const CommandSpec* cmd;
  std::vector<std::string> argv;
};

enum ClientFlag : uint64_t {
  kCloseAfterReply = 1 << 0,
  kCloseAsap = 1 << 1,
  kPendingWrite = 1 << 2,
  kMulti = 1 << 3,
  kDirtyCas = 1 << 4,   // a WATCHed key changed
  kDirtyExec = 1 << 5,  // an error while queueing
  kReplyOff = 1 << 6,
  kReplySkip = 1 << 7,  // skip the reply of this command
  kReplySkipNext = 1 << 8,
  kPaused = 1 << 9,  // waiting for CLIENT UNPAUSE
  kUnixSocket = 1 << 10,
  kReadonly = 1 << 11,  // READONLY (cluster)
  kAsking = 1 << 12,
  kNoEvict = 1 << 13,
  kProtected = 1 << 14,        // freeing is deferred (executing)
  kBlocked = 1 << 15,          // waiting on keys (BLPOP...) or replicas (WAIT)
  kPrimary = 1 << 16,          // the link to our primary: its commands are applied, not answered
  kReplica = 1 << 17,          // a replica of ours (after SYNC/PSYNC)
  kReplicationDone = 1 << 18,  // re-run of a command its replicas already applied (SETSLOT)
  kMonitor = 1 << 19,          // MONITOR: receives every command run
  kReprocessing = 1 << 20,     // a blocked command running again (MONITOR showed it already)
  kCapaRedirect = 1 << 21,     // CLIENT CAPA redirect: a replica answers -REDIRECT (dispatch.cc)
  // The source's connection of an atomic slot import: its input runs in slices bounded in
  // time (ProcessInput), the rest in the next loop pass, so that the big values it rebuilds
  // never stall this node's other clients.
  kInputSliced = 1 << 22,
  kInputResume = 1 << 23,  // in g.resume_input: buffered input waits for the next pass
  kNoTouch = 1 << 24,      // CLIENT NO-TOUCH on: its reads leave keys' access times alone
};

struct Client {
  uint64_t id = 0;
  uint64_t aof_woff = 0;  // AofStreamOffset() after this client's last write (WAITAOF)
  // The socket with its query buffer (conn.in, parsed up to conn.in_pos) and output buffer
  // (conn.out, written up to conn.out_sent).
  net::BufferedConn conn;
  std::string addr, laddr, name, lib_name, lib_ver;
  // Connected over IPv6 ("ip:port" has one colon for IPv4): it is told announced IPv6 addresses.
  bool OnIpv6() const { return laddr.find(':') != laddr.rfind(':'); }
  int resp = 2;
  int dbid = 0;
  db::Db* db = nullptr;
  uint64_t flags = 0;
  bool authenticated = true;
  // The ACL user (acl.h); nullptr for the node's own clients (the primary link, the AOF
  // loader), which no ACL restricts.
  acl::User* user = nullptr;
  int64_t ctime_ms = 0, last_interaction_ms = 0;
  const CommandSpec* last_cmd = nullptr;  // CLIENT LIST cmd=: the last command looked up
  const CommandSpec* cmd = nullptr;       // the command running (or blocked) now
  db::RoutedKeys routed;                  // its keys and their slot, as routing found them
  // CLIENT LIST tot-net-in / tot-net-out / tot-cmds: bytes read from and written to the socket,
  // commands executed (as Valkey counts them: not those refused before execution, each command
  // of an EXEC, a blocking command once when it completes).
  uint64_t net_input_bytes = 0, net_output_bytes = 0, commands_processed = 0;
  // CLIENT LIST argv-mem: bytes of the arguments of the command being executed or held
  // (blocked, paused); 0 between commands.
  size_t argv_len_sum = 0;
  // CLIENT LIST multi-mem: queued commands' argument bytes plus a pointer per argument.
  size_t multi_argv_mem = 0;
  // CLUSTER SLOT-STATS (slot_stats.cc): the request's bytes until charged, the size of `out`
  // when the command began, the CPU time of a command that blocked until it completes.
  uint64_t slot_stats_in = 0;
  size_t slot_stats_out_mark = 0;
  int64_t slot_stats_cpu_us = 0;
  // The runs of its current command that ended blocked: INFO commandstats charges them with
  // the run that completes it (or with its timeout), as Valkey 8 does.
  int64_t blocked_runs_us = 0;

  // input
  net::RequestParser parser;
  std::vector<std::string_view> argv;  // current command (views; valid during execution)
  size_t qbuf_peak = 0;
  std::vector<std::string> held_argv;  // a command held by CLIENT PAUSE
  std::string held_stream;  // our primary's: the held command's bytes, counted once it runs
  // io_uring streams: input that arrived while it could not join the query buffer (a running
  // command's arguments point into it, a sliced input is at its limit, or the client took its
  // share of the pass); the socket is paused meanwhile and this joins it from
  // ResumeSlicedInput, a pass later.
  std::string in_stash;
  size_t in_stash_pos = 0;   // what of in_stash joined already
  bool StashPending() const { return in_stash.size() > in_stash_pos; }
  uint64_t in_pass = 0;      // the loop pass of in_pass_bytes (io_uring's per-pass input budget)
  size_t in_pass_bytes = 0;  // input taken in that pass
  int64_t reprocess_deadline_ms = -1;  // a woken blocked command: the deadline it had

  // output
  std::string discard;  // replies of CLIENT REPLY OFF/SKIP go here
  int64_t obuf_soft_since_ms = 0;
  int64_t woff = 0;  // replication offset just after this client's last propagated write

  // transactions
  std::vector<QueuedCommand> mstate;
  std::vector<std::pair<int, std::string>> watched;

  // pub/sub subscriptions (server/pubsub.cc); non-null while subscribed to anything
  PubsubState* pubsub = nullptr;
  // client-side caching (server/tracking.cc); non-null while CLIENT TRACKING is on
  TrackingState* tracking = nullptr;

  // replication: per-replica state when this client is a replica of ours
  repl::ReplicaLink* repl = nullptr;

  // A replica's link carries our stream only: a reply to it goes aside, and ProcessCommand
  // drops the replica that caused one.
  net::Reply R() {
    return net::Reply((flags & (kReplyOff | kReplySkip | kReplica)) ? &discard : &conn.out, resp);
  }
  size_t PendingOutput() const { return conn.PendingBytes(); }
  bool InMulti() const { return flags & kMulti; }
};

// Networking (client.cc).
bool ListenAll(std::string* err);
// Replaces the TCP listeners by ones for the current bind/port (CONFIG SET).
bool RebindTcp(std::string* err);
// A unix socket or loopback peer (enable-protected-configs / enable-debug-command local).
bool IsLocalClient(const Client* c);
void FreeClient(Client* c);
// Takes c out of every registry that holds client pointers (WATCH, pub/sub, tracking, MONITOR,
// blocked clients, replication, the write/pause/unblock/close queues), as freeing it does;
// the socket is left alone. The AOF loader's client, which lives on the stack, leaves so.
void ReleaseClientState(Client* c);
void CloseAsync(Client* c);
// Wraps an already connected socket (our link to a primary) as a client.
Client* AdoptConnection(int fd, const std::string& addr);
// Schedules the client's output for writing before the loop sleeps.
void QueueWrite(Client* c);
// Between commands: a large unwritten output moves into sealed blocks (BufferedConn::Seal),
// so that a slow reader holds (and used_memory counts) its bytes, not a doubled capacity.
void SealOutputIfLarge(Client* c);
// Writes what c has buffered now instead of before the loop sleeps (what is left waits for
// the socket as usual).
void WriteNow(Client* c);
// Runs what clients unblocked since the last call pipelined behind their blocking command
// (called before the loop sleeps). True when there were any.
bool ProcessUnblockedClients();
// Runs the next slice of the kInputSliced clients' buffered input; false when none waited.
bool ResumeSlicedInput();
// Writes pending replies (called before the loop sleeps), closes queued clients.
void HandleClientsBeforeSleep();
// The same between the keys of a load (ServeWhileLoading), sparing the client whose command
// runs the load (kProtected: it is on the stack).
void HandleClientsWhileLoading();
void ProcessInput(Client* c);
// Formats "id=... addr=..." as CLIENT LIST / CLIENT INFO print it. hide_user_data prints
// name= and user= as *redacted* (Valkey's form for the log).
std::string ClientInfoLine(const Client* c, bool hide_user_data = false);
// The memory a client holds (CLIENT LIST tot-mem; what maxmemory-clients counts): its buffers,
// the arguments of its command and of its queued transaction, and the client itself.
size_t ClientMemory(const Client* c);
// ClientInfoLine for a log line: redacted when hide-user-data-from-log is yes.
std::string ClientInfoForLog(const Client* c);
void SelectDb(Client* c, int id);
// Checks output limits after a reply was appended; may schedule the client's close.
bool CheckOutputLimits(Client* c);
void ClientsCron();

}  // namespace server
