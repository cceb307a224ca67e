// Encodes propagated commands as RESP, emitting SELECT when the db changes, and hands the bytes
// to the replication stream (backlog and replicas). Nothing is encoded while nobody consumes.
#include "repl/propagate.h"

#include "net/reply.h"
#include "repl/repl.h"
#include "server/slot_stats.h"

namespace repl {
namespace {
// What the propagation point keeps between commands.
struct Stream {
  int stream_db = -1;
  bool in_tx = false;
  bool tx_open = false;  // MULTI sent
  // The first write of a transaction waits: alone it goes without MULTI/EXEC, as from Valkey.
  int pending_db = -1;
  std::string pending;
  int64_t bytes = 0;
  std::string buf;
  size_t select_bytes = 0;  // of buf: CLUSTER SLOT-STATS charges no slot for SELECT
};
Stream stream_;

void Append(const std::vector<std::string_view>& argv) { net::AppendCommand(&stream_.buf, argv); }

void SelectIfNeeded(int dbid) {
  if (dbid == stream_.stream_db) return;
  std::string id = std::to_string(dbid);
  size_t before = stream_.buf.size();
  Append({"SELECT", id});
  stream_.select_bytes += stream_.buf.size() - before;
  stream_.stream_db = dbid;
}

void EmitPending() {
  SelectIfNeeded(stream_.pending_db);
  stream_.buf += stream_.pending;
  stream_.pending.clear();
  stream_.pending_db = -1;
}

void Flush() {
  if (server::slot_stats::On())
    server::slot_stats::ReplicationFed(stream_.buf.size() - stream_.select_bytes,
                                       ConnectedReplicas());
  stream_.select_bytes = 0;
  stream_.bytes += static_cast<int64_t>(stream_.buf.size());
  if (!stream_.buf.empty()) FeedStream(stream_.buf);
  stream_.buf.clear();
}
}  // namespace

void ResetStreamDb() { stream_.stream_db = -1; }

void Propagate(int dbid, const std::vector<std::string_view>& argv) {
  // A replica passes on its primary's stream only: its own writes (replica-read-only no)
  // stay local and do not move its offset.
  if (!HasConsumers() || IsReplica()) {
    stream_.stream_db = -1;  // whoever attaches later starts with a SELECT
    return;
  }
  if (stream_.in_tx && !stream_.tx_open) {
    if (stream_.pending_db < 0) {
      stream_.pending_db = dbid;
      net::AppendCommand(&stream_.pending, argv);
      return;
    }
    // A second write: the transaction goes as one (MULTI first, then SELECT, as Valkey does).
    Append({"MULTI"});
    stream_.tx_open = true;
    EmitPending();
  }
  SelectIfNeeded(dbid);
  Append(argv);
  if (!stream_.in_tx) Flush();
}

void BeginTransaction() {
  stream_.in_tx = true;
  stream_.tx_open = false;
  stream_.pending.clear();
  stream_.pending_db = -1;
}

void EndTransaction() {
  if (stream_.tx_open)
    Append({"EXEC"});
  else if (stream_.pending_db >= 0)
    EmitPending();
  stream_.in_tx = stream_.tx_open = false;
  Flush();
}

int64_t StreamBytes() { return stream_.bytes; }
}  // namespace repl
