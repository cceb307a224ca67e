// Standalone answers of the cluster hooks (see cluster_hooks.h).
#include "server/cluster_hooks.h"

namespace server {

ClusterHooks& Cluster() {
  static ClusterHooks h = {
      [](Client*, const CommandSpec*, db::RoutedKeys*, std::string*) { return true; },
      [](std::string_view, std::string_view, bool) {},
      [](std::vector<CommandSpec>*) {},
      [](std::string*) { return true; },
      [] {},  // data_loaded
      [] {},  // before_sleep
      [] {},  // after_replies
      [] {},  // cron
      [] {},  // shutdown
      [] {},  // in_child
      [] {},  // before_snapshot
      [] {},  // announce_changed
      [](Client*) {},  // client_freed
      [] {},           // full_sync_starting
      [] {},           // aof_rewrite_starting
      [] {},           // aof_loaded
      [] { return false; },  // imports_running
  };
  return h;
}

}  // namespace server
