#include "cluster/changes.h"

#include <cstdlib>
#include <cstring>

#include "base/log.h"
#include "base/time.h"
#include "cluster/epochs.h"
#include "cluster/state.h"
#include "server/server.h"

namespace cluster {

namespace {

// Writes nodes.conf with everything pending; `sync` as PlanSave chose it. A failed save keeps
// the node's own changes pending (the loop's next save stops the node, SavePending); learned
// facts go with whatever save comes next.
bool SaveWith(NodesConfFile::Sync sync, std::string* err) {
  State& st = GetState();
  bool save = st.todo_save, fsync = st.todo_fsync;
  st.todo_save = st.todo_fsync = st.todo_learned = false;
  st.last_save_ms = base::MsTime();
  if (ConfFile().Save(FormatNodesConf(st), sync, err)) return true;
  st.todo_save = save;
  st.todo_fsync = fsync;
  return false;
}

// How durably a save made now goes (PlanSave's rule): fsynced at once for the node's own
// promises or when asked, later for learned facts.
NodesConfFile::Sync SyncForSaveNow(bool fsync) {
  State& st = GetState();
  return PlanSave(fsync || st.todo_fsync, true, st.todo_learned, base::MsTime(), st.last_save_ms,
                  kLearnedSaveMs)
      .sync;
}

[[noreturn]] void DieUnsaved(const std::string& err) {
  LOG_WARNING("Could not save the cluster config: %s", err.c_str());
  LOG_WARNING("Fatal: can't update cluster config file.");
  exit(1);
}

}  // namespace

NodesConfFile& ConfFile() {
  // Never destroyed: the helper thread may be making its next file while the process exits.
  static NodesConfFile& f = *new NodesConfFile;
  return f;
}

bool SaveConfig(bool fsync, std::string* err) { return SaveWith(SyncForSaveNow(fsync), err); }

void SaveConfigOrDie() {
  std::string err;
  if (!SaveConfig(true, &err)) DieUnsaved(err);
}

// The last save a reply waits to see on disk (SaveConfigLaterOrDie).
static uint64_t g_awaited_save = 0;

uint64_t SaveConfigLaterOrDie() {
  std::string err;
  if (!SaveWith(NodesConfFile::Sync::kLater, &err)) DieUnsaved(err);
  g_awaited_save = ConfFile().LastSave();
  return g_awaited_save;
}

bool ConfigDurable(uint64_t save) { return ConfFile().Durable(save); }

void SavePending() {
  State& st = GetState();
  bool own = st.todo_save || st.todo_fsync;  // SaveWith clears them
  std::string err;
  if (SaveWith(SyncForSaveNow(false), &err)) return;
  if (own) DieUnsaved(err);
  LOG_WARNING("Could not save the cluster config: %s", err.c_str());
}

void SaveDue() {
  State& st = GetState();
  // What was learned from others waits for the next save, at most kLearnedSaveMs: a reshard
  // changes an owner on every node for each slot it moves, and a node saves that at most ten
  // times a second instead of once per slot.
  SavePlan plan = PlanSave(st.todo_fsync, st.todo_save, st.todo_learned, base::MsTime(),
                           st.last_save_ms, kLearnedSaveMs);
  if (plan.save_now) {
    SavePending();
  } else if (plan.wait_ms >= 0) {
    server::g.loop->SetMaxWaitMs(static_cast<int>(plan.wait_ms));
  }
  if (int e = ConfFile().TakeSyncError()) {
    // A promise waits for it (a claim the source must not hear of before it is on disk): as
    // a failed synchronous save, the node stops rather than keep a promise it cannot keep.
    if (!ConfigDurable(g_awaited_save))
      DieUnsaved(std::string("can't fsync it: ") + strerror(e));
    LOG_WARNING("Could not fsync the cluster config in the background: %s", strerror(e));
  }
}

bool BumpEpochWithoutConsensus(State& st) {
  uint64_t max_config = 0;
  for (auto& n : st.nodes) max_config = std::max(max_config, n->config_epoch);
  uint64_t epoch = EpochWithoutConsensus(st.current_epoch, st.myself->config_epoch, max_config);
  if (!epoch) return false;
  st.current_epoch = epoch;
  st.myself->config_epoch = epoch;
  st.MarkChanged(true, true);
  return true;
}

}  // namespace cluster
