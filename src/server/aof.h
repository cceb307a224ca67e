// The append-only file (multi-part, as Redis 7 / Valkey 8): every write the node propagates is
// appended to the current incremental file and synced per appendfsync; BGREWRITEAOF forks a
// child that writes a new base file while the writes go on into a new incremental file; at
// start the files named by the manifest are loaded instead of the snapshot.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"

namespace server {

// appendonly yes and the file is being written (also while the first rewrite runs).
bool AofActive();
// What the AOF's write buffer holds allocated (INFO mem_aof_buffer).
uint64_t AofBufferBytes();
// Bytes fed to the AOF so far (written or buffered): a client's writes are on disk once
// AofFsyncedOffset() reaches the value after them (WAITAOF's local count).
uint64_t AofStreamOffset();
uint64_t AofFsyncedOffset();
bool AofLocalSynced(uint64_t offset);
// A replica: the primary's replication offset its AOF holds on disk (REPLCONF ACK's FACK).
int64_t AofFsyncedReplOffset();
// A sync is queued or due (the loop should not sleep long while WAITAOF waits on it).
bool AofFsyncPending();
// A write to the AOF (the one feed, next to the replication stream's): `argv` ran in `dbid`.
void AofFeed(int dbid, const std::vector<std::string_view>& argv);
// Writes inside EXEC are wrapped in MULTI ... EXEC.
void AofBeginTransaction();
void AofEndTransaction();
// Before replies are written: the buffered commands reach the file and, with appendfsync
// always, the disk (so no client hears of a write before it is durable).
void AofFlushBeforeReplies();
// Every cron: everysec syncs, retries of failed writes, the rewrite child, auto rewrite.
void AofCron();

// Loads the AOF at start (appendonly yes): false (logged) stops the start.
bool AofLoadAtStartup();
// After the load: opens (creating what is missing) the files to append to. False stops the
// start.
bool AofOpenAtStartup();

// BGREWRITEAOF: false with the error reply text when it cannot start now.
bool AofStartRewrite(std::string* err);
// A rewrite is scheduled for when the snapshot child ends (BGREWRITEAOF during BGSAVE).
void AofScheduleRewrite();
bool AofRewriteInProgress();
// CONFIG SET appendonly yes|no at run time.
bool AofTurnOn(std::string* err);
void AofTurnOff();
// A replica's full sync replaced the data: the files held the old data and the stream after
// the sync would be appended to them, so a restart would load neither the snapshot nor a
// consistent data set. As Valkey 8's restartAOFAfterSYNC: the AOF starts again from a rewrite
// of the new data (retried from cron until it starts).
void AofRestartAfterSync();
// SHUTDOWN: kills a rewrite, writes and syncs what is buffered. False (logged) while the first
// rewrite of an AOF just turned on runs, unless force: exiting then leaves no AOF of the data.
bool AofShutdown(bool force);
// The AOF is being loaded (start-up or DEBUG LOADAOF): its commands are running.
bool AofLoading();
// DEBUG LOADAOF: flush and sync, empty the data set, load the AOF again.
bool AofDebugReload();

// -MISCONF when the last write to the AOF failed (writes are refused until one succeeds).
bool AofWritesDenied(std::string* err);
// INFO persistence: the aof_ fields.
void AppendAofInfo(std::string* s);
void ResetAofStats();

}  // namespace server
