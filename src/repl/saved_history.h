// The replication history a disk snapshot records (aux fields repl-id and repl-offset, as
// Valkey 8 writes them), and a replica's restart from it: a replica restarted from dump.rdb
// holds its primary's history up to that offset, so it announces that offset (it is not
// "loading" for CLUSTER SLOTS/SHARDS) and asks PSYNC to continue from it.
#pragma once

namespace repl {

// Registers the aux fields; from Init.
void RegisterSavedHistoryFields();
// After the snapshot loaded at start: a replica (cluster nodes.conf or replicaof) takes the
// history that snapshot recorded; a primary ignores it.
void AdoptSavedHistory();

}  // namespace repl
