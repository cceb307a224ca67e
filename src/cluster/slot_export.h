// Atomic slot migration, the source side: the export jobs CLUSTER MIGRATESLOTS starts. Each
// job connects to its target's client port (authenticated as a replica would be), opens an
// import there (CLUSTER SYNCSLOTS ESTABLISH), walks its slots' keys from the event loop in
// slices bounded in time and in queued bytes (SYNCSLOTS RESTORE, no fork), forwards every write
// of one key that leaves the node to a slot whose walk has begun (SYNCSLOTS APPLY, in order, on
// the same connection; a slot not begun yet will be sent as it is then; a write of several keys
// sends their state instead), then hands the slots over: writes to them are held (only theirs), the
// target takes ownership (SYNCSLOTS HANDOVER: epoch bump saved before its reply), the slots
// become the target's here, their keys are deleted, and the held writes run again and get
// MOVED. Any failure closes the connection, which makes the target drop what it staged; the
// slots never left this node.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/slot_export_plan.h"

namespace server {
struct Client;
struct CommandSpec;
}  // namespace server

namespace cluster {

// Starts the jobs of a checked MIGRATESLOTS (`who`: the client, for the log).
void StartExports(std::vector<ExportRequest> jobs, const std::string& who);
// A running export covers the slot.
bool SlotExporting(int slot);
// CLUSTER CANCELSLOTMIGRATIONS: false when no export runs.
bool CancelExports(const std::string& who);
// Per loop pass, before the pass's replies are written: the jobs' connection steps, failures
// and endings, held writes released.
void ExportBeforeSleep();
// After them: the walk, big values' pieces, forwarded writes, the handover's start, and the drop
// of moved slots, within one time slice.
void ExportAfterReplies();
// Every write leaving the node (server::WriteOut): forwarded to the jobs whose slot it is in.
void ExportWriteOut(int dbid, const std::vector<std::string_view>& argv);
// Whether a write command waits (with the paused clients) before it runs: a handover holds
// every write to its slots; a big value going in pieces holds the writes of its key that its
// part on the target could not follow.
bool ExportHoldsWrite(const server::Client* c, const server::CommandSpec* cmd);

// One job as CLUSTER GETSLOTMIGRATIONS shows it: field names and values in Valkey 9's order
// (integers as numbers).
struct MigrationField {
  std::string name;
  std::string text;  // a string field
  int64_t number = 0;
  bool is_number = false;
};
void ListExports(std::vector<std::vector<MigrationField>>* out);
// The finish times of the finished exports that may be forgotten, and forgetting them: those
// finished at or before upto_ms, oldest first, at most *budget (counted down).
std::vector<int64_t> FinishedExportTimes();
void DropFinishedExports(int64_t upto_ms, size_t* budget);

}  // namespace cluster
