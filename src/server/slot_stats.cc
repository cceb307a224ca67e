// CLUSTER SLOT-STATS counters: what each command is charged (see slot_stats.h for the rules).
#include "server/slot_stats.h"

#include <string>
#include <vector>

#include "base/crc16.h"
#include "server/client.h"
#include "server/command.h"
#include "server/command_keys.h"

namespace server::slot_stats {
namespace {
constexpr int kSlots = 16384;
// EXEC is charged the bytes of the MULTI that began it (MULTI itself has no slot).
constexpr uint64_t kMultiRequestBytes = 15;  // *1\r\n$5\r\nmulti\r\n

Counters g_slots[kSlots];
// The slot of the top-level command running: where the replication bytes it makes go.
int g_current = -1;

bool Counted(int slot) { return cfg.cluster_enabled && slot >= 0 && slot < kSlots; }

bool IsExec(const CommandSpec* cmd) { return cmd && std::string_view(cmd->name) == "exec"; }

int FirstKeySlot(const CommandSpec* cmd, const std::vector<std::string_view>& argv) {
  static std::vector<KeyRef> refs;
  refs.clear();
  if (!FindKeys(cmd, argv, &refs) || refs.empty()) return -1;
  return base::KeySlot(argv[refs[0].pos]);
}

// Our primary's commands are not routed; Valkey charges them to the slot of the keys they
// touch (an EXEC: its commands' keys), which one slot holds on a sound stream.
int PrimaryCommandSlot(const Client* c) {
  if (!IsExec(c->cmd) || !c->InMulti()) return FirstKeySlot(c->cmd, c->argv);
  for (const QueuedCommand& q : c->mstate) {
    int slot = FirstKeySlot(q.cmd, std::vector<std::string_view>(q.argv.begin(), q.argv.end()));
    if (slot >= 0) return slot;
  }
  return -1;
}

uint64_t BulkBytes(size_t n) { return 1 + std::to_string(n).size() + 2 + n + 2; }
}  // namespace

const Counters& Of(int slot) { return g_slots[slot]; }
void Reset(int slot) { g_slots[slot] = Counters{}; }
void ResetAll() {
  for (Counters& s : g_slots) s = Counters{};
}

uint64_t RequestBytes(std::string_view raw) {
  if (raw.empty() || raw[0] == '*') return raw.size();
  // Inline: Valkey counts the line and two bytes for its end, whether it ended in \r\n or \n.
  size_t n = raw.size();
  if (n && raw[n - 1] == '\n') n--;
  if (n && raw[n - 1] == '\r') n--;
  return n + 2;
}

void RequestParsed(Client* c, std::string_view raw) {
  c->slot_stats_in = RequestBytes(raw);
  // A command refused before routing (unknown, arity) has no slot, not the previous one's.
  c->routed.Clear();
}

void RequestDone(Client* c) {
  uint64_t in = c->slot_stats_in;
  c->slot_stats_in = 0;
  int slot = c->routed.slot();
  if (!in || !Counted(slot)) return;
  if (IsExec(c->last_cmd)) in += kMultiRequestBytes;
  g_slots[slot].network_bytes_in += in;
}

void CallStarted(Client* c, bool nested) {
  if (nested) return;  // EXEC's commands: charged as the EXEC
  c->slot_stats_out_mark = c->conn.out.size();
  if (!(c->flags & kReprocessing)) c->slot_stats_cpu_us = 0;
  // The primary's link (not the AOF loader's client, which has no socket).
  if ((c->flags & kPrimary) && c->conn.fd >= 0 && cfg.cluster_enabled)
    c->routed.Set(PrimaryCommandSlot(c), {});
  // A command woken from a block runs inside the waking one's execution unit in Valkey, whose
  // stream goes out after the woken client's slot was reset: its replication is not charged.
  g_current = (c->flags & kReprocessing) ? -1 : c->routed.slot();
}

void CallEnded(Client* c, int64_t duration_us, bool nested) {
  if (!nested) g_current = -1;
  int slot = c->routed.slot();
  if (!Counted(slot)) return;
  Counters& s = g_slots[slot];
  // Everything since the top-level command began, at the end of each of its Calls.
  size_t out = c->conn.out.size();
  if (out > c->slot_stats_out_mark) s.network_bytes_out += out - c->slot_stats_out_mark;
  if (nested) return;
  c->slot_stats_cpu_us += duration_us;
  if (c->flags & kBlocked) return;  // charged when it completes
  s.cpu_usec += static_cast<uint64_t>(c->slot_stats_cpu_us);
  c->slot_stats_cpu_us = 0;
}

void BlockEnded(Client* c) {
  c->slot_stats_in = 0;  // a timed-out request's bytes are not counted
  int slot = c->routed.slot();
  if (Counted(slot)) g_slots[slot].cpu_usec += static_cast<uint64_t>(c->slot_stats_cpu_us);
  c->slot_stats_cpu_us = 0;
}

void ShardMessageDelivered(std::string_view channel, std::string_view message) {
  if (!cfg.cluster_enabled) return;
  // *3 (or >3) and three bulks: "smessage", the channel, the message.
  uint64_t bytes = 4 + BulkBytes(8) + BulkBytes(channel.size()) + BulkBytes(message.size());
  g_slots[base::KeySlot(channel)].network_bytes_out += bytes;
}

void ReplicationFed(size_t bytes, int replicas) {
  if (Counted(g_current))
    g_slots[g_current].network_bytes_out += static_cast<uint64_t>(bytes) * replicas;
}

}  // namespace server::slot_stats
