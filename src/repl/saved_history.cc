// See saved_history.h.
#include "repl/saved_history.h"

#include <string>

#include "base/log.h"
#include "base/util.h"
#include "persist/snapshot.h"
#include "repl/backlog.h"
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
  if (!replica || r.id.empty() || r.offset < 0) return;
  AdoptHistory(r.id, r.offset);
  State& st = GetState();
  LOG_NOTICE("Replication history from the snapshot: %s, offset %lld (PSYNC may continue it)",
             st.replid.c_str(), static_cast<long long>(st.offset));
}

}  // namespace repl
