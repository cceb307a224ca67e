// The one place a write leaves the node (see write_out.h).
#include "server/write_out.h"

#include "server/aof.h"
#include "server/cluster_hooks.h"
#include "server/repl_hooks.h"

namespace server {

void WriteOut(int dbid, const std::vector<std::string_view>& argv, uint8_t targets) {
  if (targets & kToAof) AofFeed(dbid, argv);
  if (targets & kToReplicas) Repl().propagate(dbid, argv);
  if (Cluster().write_out) Cluster().write_out(dbid, argv);
}

void WriteOutBegin(uint8_t targets) {
  if (targets & kToAof) AofBeginTransaction();
  if (targets & kToReplicas) Repl().begin_transaction();
}

void WriteOutEnd(uint8_t targets) {
  if (targets & kToAof) AofEndTransaction();
  if (targets & kToReplicas) Repl().end_transaction();
}

}  // namespace server
