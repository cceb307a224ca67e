// The node's one helper thread: fsync and close of append-only files, and nodes.conf's file
// calls: the disk calls that may block for long, taken off the event loop. It never touches
// the keyspace and never allocates or frees (jobs live in a fixed ring), so the allocator's
// running totals of the serving thread stay the node's used_memory.
#pragma once
#include <cstddef>
#include <cstdint>

namespace server {

// Starts the thread (once; later calls do nothing).
void BioStart();
// fdatasync(fd); `offset` is how many bytes of the file's stream were written when asked: once
// done, BioFsyncedOffset() reaches it. A full queue runs the job in the caller.
void BioFsync(int fd, uint64_t offset);
// close(fd) after the jobs queued before it (a file replaced by a rewrite).
void BioClose(int fd);
// fn(arg) on the thread, after the jobs queued before it: for other slow file-system calls
// (nodes.conf's next inode). `fn` must not allocate and must leave server state alone.
void BioCall(void (*fn)(void*), void* arg);
// Fsync jobs queued or running (INFO aof_pending_bio_fsync).
size_t BioPendingFsyncs();
// The highest offset whose fsync completed.
uint64_t BioFsyncedOffset();
// errno of the last failed fsync, 0 when the last one succeeded.
int BioLastFsyncErrno();

}  // namespace server
