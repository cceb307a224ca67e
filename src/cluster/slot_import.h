// Atomic slot migration, the target's side: the import jobs and the decisions about them,
// pure of sockets and of the running node (tests/cc/slot_import_test.cc builds a State and a
// set of jobs in-process). The commands that drive them (CLUSTER SYNCSLOTS, sent by the
// source over a client connection, and CLUSTER GETSLOTMIGRATIONS) are in syncslots_cmd.cc.
//
// A job stages the keys the source sends into a db of its own (`staging`), which is none of
// the served databases: no command of a client sees it, nothing expires or evicts its keys,
// no snapshot or AOF rewrite carries it. HANDOVER moves its slots whole into db 0
// (db::Db::TakeSlot/PutSlot) and the node takes the slots.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/slot_ranges.h"
#include "cluster/state.h"
#include "db/db.h"

namespace cluster {

// The id of every staging db: none of a client's databases (SELECT takes 0..databases-1) and
// not -1, which means "every db" to server::DbModified. Nothing keyed by a db id is reached
// with it: the staging writes are muted (server::g.staging_writes) and never leave unwrapped.
inline constexpr int kStagingDbId = -2;

enum class ImportState {
  kReceiving,           // a primary receiving the source's snapshot and writes
  kOccurringOnPrimary,  // a replica (or an AOF load) following its primary's job
  kSuccess,
  kCancelled,
  kFailed,
};
// As CLUSTER GETSLOTMIGRATIONS shows it ("receiving-snapshot", "success", ...).
const char* ImportStateName(ImportState s);

struct ImportJob {
  std::string name;       // 40 hex chars, made by the source
  std::string source_id;  // the source node
  std::string target_id;  // this node when the job began (CLUSTER GETSLOTMIGRATIONS)
  std::vector<SlotRange> ranges;
  SlotBitmap slots{};
  int64_t create_ms = 0, last_update_ms = 0, last_ack_ms = 0;
  ImportState state = ImportState::kReceiving;
  std::string message;  // why it ended, if not by HANDOVER
  // The source's connection (0: none, on a replica or in an AOF load, or lost).
  uint64_t client_id = 0;
  // The source's requests this job took (RESTORE, APPLY), whatever their reply: after a lost
  // connection the source sends again what came after them (SYNCSLOTS RESUME answers this).
  uint64_t applied = 0;
  // When the source's connection closed before the handover (0: it did not): the job waits
  // ImportResumeWaitMs for the source to come back with RESUME.
  int64_t detached_ms = 0;
  std::unique_ptr<db::Db> staging;  // null once the job ended
  int64_t handover_due_ms = 0;      // DEBUG SLOT-MIGRATION-HANDOVER-DELAY: not before then
  // HANDOVER ran: the keys are in db 0 (keys_moved of them) and, on a primary, the slots are
  // ours; the job ends once save number claim_save of nodes.conf is on disk (0: none to wait
  // for). Nothing ends it otherwise: the claim stands.
  bool handed_over = false;
  uint64_t claim_save = 0;
  size_t keys_moved = 0;

  bool Running() const {
    return state == ImportState::kReceiving || state == ImportState::kOccurringOnPrimary;
  }
};

// The jobs of this node: running ones, and finished ones until the owner forgets them
// (cluster-slot-migration-log-max-len, counted with the exports: TrimMigrationLog).
class ImportJobs {
 public:
  // A running job of that name, or nullptr.
  ImportJob* FindRunning(std::string_view name);
  // Any job of that name, running or kept finished.
  const ImportJob* Find(std::string_view name) const;
  // The running job importing `slot`, or nullptr.
  const ImportJob* ImportingSlot(int slot) const;
  // A new running job (a finished one of that name is forgotten).
  ImportJob* Add(std::unique_ptr<ImportJob> job);
  // Ends a running job: its staged keys are freed, it is kept for reporting.
  void Finish(ImportJob* job, ImportState state, std::string message, int64_t now_ms);
  // Oldest first.
  const std::deque<std::unique_ptr<ImportJob>>& all() const { return jobs_; }
  std::vector<ImportJob*> RunningJobs();
  // The finish times of the finished jobs, and forgetting them: those finished at or before
  // upto_ms, oldest first, at most *budget (counted down).
  std::vector<int64_t> FinishedTimes() const;
  void DropFinished(int64_t upto_ms, size_t* budget);

 private:
  std::deque<std::unique_ptr<ImportJob>> jobs_;
};

// CLUSTER SYNCSLOTS ESTABLISH <name> <source-node-id> <start> <end> [<start> <end> ...] on a
// primary: "" when a job may begin (*ranges then holds the parsed ranges), else the error
// reply's text (the code ERR is the reply's). The rules, each one error:
//   I am a primary; the name is not in use by a running job; the source is known and a
//   primary; each range is two slots 0..16383 with start <= end; every slot is owned by the
//   source in my view and not by me, is not open (CLUSTER SETSLOT MIGRATING/IMPORTING) and is
//   not in a running import.
// `range_args` holds the <start> <end> pairs (an even count, at least one pair: arity is the
// caller's).
std::string CheckEstablish(const State& st, const ImportJobs& jobs, std::string_view name,
                           std::string_view source_id, std::span<const std::string_view> range_args,
                           std::vector<SlotRange>* ranges);

// Parses the <start> <end> pairs without the ownership rules (a replica or an AOF load takes
// what its primary decided). "" or the error.
std::string ParseRanges(std::span<const std::string_view> range_args,
                        std::vector<SlotRange>* ranges);

// A connection lost before the handover is not the end of a job: the source reconnects and
// resumes for ExportResumeWindowMs from the moment it sees the loss; the target keeps what it
// staged for ImportResumeWaitMs from the moment it sees the close (later or earlier: a
// partition shows first at either end), then drops it. A job ended on purpose sends ABORT.
inline int64_t ExportResumeWindowMs(int64_t node_timeout_ms) {
  return node_timeout_ms > 1000 ? node_timeout_ms : 1000;
}
inline int64_t ImportResumeWaitMs(int64_t node_timeout_ms) {
  return 2 * ExportResumeWindowMs(node_timeout_ms) + 1000;
}

// One job as CLUSTER GETSLOTMIGRATIONS shows it: (field, value) pairs in Valkey 9's order.
std::vector<std::pair<std::string, std::string>> DescribeImport(const ImportJob& job);

}  // namespace cluster
