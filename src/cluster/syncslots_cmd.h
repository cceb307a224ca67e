// Atomic slot migration, the target's side at run time: CLUSTER SYNCSLOTS (the internal
// protocol a source drives over a client connection), CLUSTER GETSLOTMIGRATIONS (the import
// jobs), and what ends jobs on their own (the source's connection closed, a full sync or AOF
// rewrite starting, an AOF load that left them unfinished). The jobs and their rules are in
// slot_import.h.
#pragma once

namespace server {
struct Client;
struct CommandSpec;
}

namespace cluster {

class ImportJobs;

// CLUSTER SYNCSLOTS ESTABLISH|RESTORE|APPLY|HANDOVER|ABORT <name> ...
void SyncSlotsCommand(server::Client* c);
// CLUSTER GETSLOTMIGRATIONS: one map per job (finished ones: the last 32).
void GetSlotMigrationsCommand(server::Client* c);

// The running node's jobs.
ImportJobs& NodeImports();

// Hooks (cluster.cc fills server::ClusterHooks with them).
void ImportClientFreed(server::Client* c);
// Running imports of this primary end (failed, with `why`), each with an ABORT down the stream.
void AbortRunningImports(const char* why);
// Writes to the slots of a job whose claim waits for its save's fsync are held until then.
bool ImportHoldsWrite(const server::Client* c, const server::CommandSpec* cmd);
// Completes the handovers whose claims are now on disk (their held HANDOVER runs again).
void ImportsBeforeSleep();
// After an AOF load: the jobs it left running are dropped.
void DropUnfinishedImports();
// Whether an import job runs here (an AOF rewrite waits for none to run).
bool ImportsRunning();
// Cluster cron: a job followed from a primary on a node that became a primary itself has no
// source any more: it ends.
void ImportsCron();
// Registers what a replica's full sync does to its jobs (they go: the primary's snapshot
// carries none). Once, at start.
void InitSlotImport();

}  // namespace cluster
