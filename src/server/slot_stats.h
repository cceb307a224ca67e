// Per-slot counters of CLUSTER SLOT-STATS (cpu-usec, network-bytes-in, network-bytes-out) and
// the rules of what each command is charged, as Valkey 8.0.1 charges it (checked on its binary).
//
// The dispatch path calls the hooks below only when cluster-slot-stats-enabled is yes (one
// branch when it is off); each hook checks cluster mode and the slot itself. The slot charged
// is the one routing found for the command (Client::routed), set also for -ASK/-TRYAGAIN/-MOVED
// answers; for our primary's link, which is not routed, the slot of the command's first key.
//   cpu-usec           the duration of a top-level command (EXEC: the whole transaction, its
//                      commands not again); a command that blocked: all its runs, charged when
//                      it completes, timeouts and CLIENT UNBLOCK included.
//   network-bytes-in   the request's bytes (inline: the line without its end, plus 2), once the
//                      command is processed: queued in MULTI, refused after routing, or run to
//                      completion (a blocked command when it is served; not on timeout); EXEC
//                      adds 15, the bytes of `*1\r\n$5\r\nmulti\r\n`.
//   network-bytes-out  what each Call appended to the client's output since the top-level
//                      command began (so EXEC counts the reply prefix of each of its commands
//                      again, as Valkey 8.0.1 does); the replication stream a command produced
//                      (SELECT excepted; not for a command woken from a block) times the
//                      number of replica links; each shard message
//                      delivered to a subscriber of this node, to the channel's slot.
// A slot's counters are zeroed when it changes owner (and by SETSLOT NODE to its owner), by
// CONFIG RESETSTAT; turning the setting off keeps them (nothing is added meanwhile).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/config.h"

namespace server {
struct Client;
}

namespace server::slot_stats {

struct Counters {
  uint64_t cpu_usec = 0, network_bytes_in = 0, network_bytes_out = 0;
};

// The one test of the hooks' callers.
inline bool On() { return cfg.cluster_slot_stats_enabled; }

const Counters& Of(int slot);
void Reset(int slot);
void ResetAll();

// The bytes Valkey counts for a request, from its raw bytes as parsed.
uint64_t RequestBytes(std::string_view raw);

// ProcessInput, before the command is processed: its request bytes.
void RequestParsed(Client* c, std::string_view raw);
// The request was processed and is not blocked or held: its network-bytes-in.
void RequestDone(Client* c);
// Around every Call; nested: inside EXEC. Ended runs after the command's propagation.
void CallStarted(Client* c, bool nested);
void CallEnded(Client* c, int64_t duration_us, bool nested);
// A block ended without its command running again (timeout, CLIENT UNBLOCK, forced unblock).
void BlockEnded(Client* c);
// A shard message delivered to one subscriber of this node (from a client or the bus).
void ShardMessageDelivered(std::string_view channel, std::string_view message);
// A primary fed its replication stream `bytes` (no SELECT) with `replicas` replica links.
void ReplicationFed(size_t bytes, int replicas);

}  // namespace server::slot_stats
