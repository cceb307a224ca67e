// The one place where writes leave the node (replication stream; later the backlog).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace repl {
// A command that changed the dataset, in the db it ran against.
void Propagate(int dbid, const std::vector<std::string_view>& argv);
// Writes inside EXEC are wrapped in MULTI ... EXEC in the stream.
void BeginTransaction();
void EndTransaction();
// The next propagated command starts with a SELECT (new replicas, new backlog).
void ResetStreamDb();
// Bytes produced so far (the replication offset once a backlog exists).
int64_t StreamBytes();
}  // namespace repl
