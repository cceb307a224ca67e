// Blocked clients, one registry for every kind of wait: on keys (BLPOP and friends) and on
// replica acknowledgements (WAIT). Wake-up, timeouts, CLIENT UNBLOCK and the forced unblock of
// a role change all go through here. Each block records its keys and db so that cluster mode
// can re-check and redirect blocked clients when a slot moves (cluster::RouteBlocked).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"
#include "server/client.h"

namespace server {

// Counts the replicas that acknowledged at least `offset` (supplied by the replication
// module, so this registry needs nothing of it).
using AckCounter = int64_t (*)(int64_t offset);

struct BlockState {
  enum Kind : uint8_t { kKeys, kReplicas, kShutdown } kind = kKeys;
  int64_t deadline_ms = 0;  // 0: forever
  // kKeys
  std::vector<std::string> keys;
  int dbid = 0;
  db::Type type = db::kList;          // the type whose arrival wakes the client
  bool null_array_on_timeout = true;  // reply inside MULTI: BLPOP-style *-1, BLMOVE-style $-1
  // XREADGROUP: a key that is gone (or of another type) when signalled runs the command again
  // (it answers NOGROUP or WRONGTYPE) instead of waiting on.
  bool unblock_on_nokey = false;
  // kReplicas (WAIT): numreplicas must have acknowledged offset (-1: where the stream stands
  // once the blocking command is propagated, set at the end of Call)
  int64_t offset = 0, numreplicas = 0;
  AckCounter acked = nullptr;
  // kReplicas for a command replicated before it is applied (CLUSTER SETSLOT): once acked it
  // runs again with kReplicationDone; a block that ends otherwise (timeout, CLIENT UNBLOCK,
  // disconnection) replies `error` and calls `abandoned` with the command's arguments.
  bool run_when_acked = false;
  // WAITAOF: also numlocal (0 or 1) local syncs up to local_offset; replies [local, replicas].
  bool waitaof = false;
  int64_t numlocal = 0;
  uint64_t local_offset = 0;
  bool (*local_done)(uint64_t offset) = nullptr;
  std::string error;
  void (*abandoned)(const std::vector<std::string>& argv) = nullptr;
};

// Parses a timeout in seconds (float allowed); replies the error and returns false if invalid.
bool ParseBlockTimeout(Client* c, std::string_view arg, int64_t* deadline_ms);
// Blocks c on keys until one is ready, the deadline passes, or CLIENT UNBLOCK. The command's
// argv is kept and re-executed through the dispatch path when a key is ready. Inside
// MULTI/EXEC nothing blocks: the timeout reply is sent at once.
void BlockForKeys(Client* c, const std::vector<std::string_view>& keys, int64_t deadline_ms,
                  db::Type type, bool null_array_on_timeout);
// The block of c (just made by BlockForKeys) ends with an error if its key disappears.
void SetBlockUnblockOnNoKey(Client* c);
// WAIT: blocks c until `acked(offset) >= numreplicas` or the deadline; the reply is the count.
void BlockForReplicas(Client* c, int64_t offset, int64_t numreplicas, int64_t deadline_ms,
                      AckCounter acked);
// WAITAOF: blocks c until `local_done(local_offset)` (when numlocal is 1) and
// `acked(offset) >= numreplicas`, or the deadline; the reply is [local, replicas].
void BlockForAof(Client* c, uint64_t local_offset, int64_t numlocal, int64_t offset,
                 int64_t numreplicas, int64_t deadline_ms, AckCounter acked,
                 bool (*local_done)(uint64_t offset));
// A command replicated before it is applied: blocks c until `acked` counts numreplicas at the
// offset that follows this command in the stream, then runs the command again (see
// BlockState::run_when_acked). The caller forces its propagation.
void BlockUntilReplicated(Client* c, int64_t numreplicas, int64_t deadline_ms, AckCounter acked,
                          std::string error,
                          void (*abandoned)(const std::vector<std::string>& argv));
// SHUTDOWN waiting for replicas: c gets no reply unless the shutdown fails or is aborted
// (ShutdownBlocksFail); no timeout, and CLIENT UNBLOCK does not end it (as Valkey 8).
void BlockForShutdown(Client* c);
void ShutdownBlocksFail(std::string_view err);
// End of Call: a block waiting for "the offset after this command" learns it.
void SetPendingBlockOffset(Client* c, int64_t offset);
// A WAITAOF client waits for the local fsync (the loop then polls the sync thread).
bool WaitingForLocalSync();
// Replicas acknowledged: answers the WAIT clients now satisfied.
void HandleReplicaAcks();
// The node became a replica: every blocked client gets Valkey's -UNBLOCKED error and is
// closed after it (their commands no longer make sense here). Paused clients stay.
void DisconnectAllBlockedClients();
// A key received data (push, add...): blocked clients are served after the command.
void KeyReady(int dbid, std::string_view key);
// Every key of db that clients wait on may now hold data (SWAPDB): each is looked at again.
void KeysOfDbReady(int dbid);
// Serves blocked clients of keys signalled ready (called after each top-level command). A
// woken command passes the execution gate again before it runs.
void HandleReadyKeys();
// Times out expired blocks; returns ms until the next deadline (-1: none).
int64_t HandleBlockedTimeouts();
// Removes c from the registry. Sends nothing.
void Unblock(Client* c);
// The client goes away: its block ends (a command replicated before being applied is
// abandoned: see BlockState::abandoned).
void UnblockFreed(Client* c);
// CLIENT UNBLOCK: false when c is not blocked.
bool UnblockByRequest(Client* c, bool with_error);
// Clients blocked on keys, for the periodic cluster re-check (its slot may have moved).
void ForEachKeyBlocked(void (*fn)(Client* c, const BlockState& st, void* arg), void* arg);
// Ends a block with an error reply (a redirect): the command counts as completed.
void UnblockWithError(Client* c, std::string_view err);
size_t BlockedClientCount();
size_t BlockingKeyCount();
// Keys one of whose blocked clients ends when the key goes (XREADGROUP): INFO
// total_blocking_keys_on_nokey.
size_t BlockingKeyOnNoKeyCount();

}  // namespace server
