// See saved_history.h.
#include "repl/saved_history.h"

#include <string>

#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "persist/snapshot.h"
#include "repl/repl_buffer.h"
#include "repl/repl_internal.h"
#include "server/config.h"

namespace repl {

namespace {

// What the last snapshot loaded recorded; cleared before each load, used once at start.
struct Recorded {
  std::string id;
  int64_t offset = -1;
};
Recorded g_recorded;

// A history another node can continue: a primary's stream (it has a backlog), or a replica's
// copy of its primary's, once its data holds some of it (a replica waiting for a full sync,
// or one that never synced, records nothing, as Valkey 8 writes no replication info then).
bool HistoryToRecord() {
  const State& st = GetState();
  if (!IsReplica()) return st.backlog != nullptr;
  return !FullSyncPending() && st.offset > 0;
}

}  // namespace

void RegisterSavedHistoryFields() {
  persist::RegisterAuxField("repl-id", {.write =
                                            [](std::string* v) {
                                              if (!HistoryToRecord()) return false;
                                              *v = GetState().replid;
                                              return true;
                                            },
                                        .read =
                                            [](std::string_view v) {
                                              if (v.size() == 40) g_recorded.id = v;
                                              return true;
                                            },
                                        .before_load = [] { g_recorded = Recorded{}; }});
  persist::RegisterAuxField("repl-offset", {.write =
                                                [](std::string* v) {
                                                  if (!HistoryToRecord()) return false;
                                                  *v = std::to_string(GetState().offset);
                                                  return true;
                                                },
                                            .read =
                                                [](std::string_view v) {
                                                  int64_t off;
                                                  if (base::ParseInt64(v, &off) && off >= 0)
                                                    g_recorded.offset = off;
                                                  return true;
                                                },
                                            .before_load = [] { g_recorded = Recorded{}; }});
}

void AdoptSavedHistory() {
  Recorded r = std::move(g_recorded);
  g_recorded = Recorded{};
  bool replica = IsReplica() || !server::cfg.replicaof.empty();
  State& st = GetState();
  if (!replica) {
    // A primary keeps a fresh replication ID and takes the recorded one as its secondary, valid
    // up to the snapshot's offset, with an empty backlog from there: its replicas, which hold
    // that history, continue by PSYNC (Valkey 8's loadDataFromDisk does the same). A snapshot
    // older than a replica's offset is refused by that bound, so the replica syncs in full.
    // Without a recorded history there is nothing to continue, and no backlog.
    if (r.id.empty() || r.offset < 0) return;
    st.replid2 = r.id;
    st.second_offset = r.offset + 1;
    st.offset = r.offset;
    NewBacklog();
    st.no_replicas_since_ms = base::MsTime();
    LOG_NOTICE("Replication history from the snapshot: %s, offset %lld, kept as the secondary ID",
               st.replid2.c_str(), static_cast<long long>(r.offset));
    return;
  }
  if (r.id.empty() || r.offset < 0) return;
  AdoptHistory(r.id, r.offset);
  LOG_NOTICE("Replication history from the snapshot: %s, offset %lld (PSYNC may continue it)",
             st.replid.c_str(), static_cast<long long>(st.offset));
}

}  // namespace repl
