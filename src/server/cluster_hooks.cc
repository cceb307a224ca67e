// Standalone answers of the cluster hooks (see cluster_hooks.h).
#include "server/cluster_hooks.h"

namespace server {

ClusterHooks& Cluster() {
  static ClusterHooks h = {
      .route = [](Client*, const CommandSpec*, db::RoutedKeys*, std::string*) { return true; },
      .publish = [](std::string_view, std::string_view, bool) {},
      .register_commands = [](std::vector<CommandSpec>*) {},
      .init = [](std::string*) { return true; },
      .data_loaded = [] {},
      .before_sleep = [] {},
      .after_replies = [] {},
      .cron = [] {},
      .shutdown = [] {},
      .in_child = [] {},
      .before_snapshot = [] {},
      .announce_changed = [] {},
      .client_freed = [](Client*) {},
      .full_sync_starting = [] {},
      .aof_rewrite_starting = [] {},
      .aof_loaded = [] {},
      .imports_running = [] { return false; },
      .write_out = nullptr,
      .write_held = nullptr,
      .debug = [](Client*) { return false; },
      .while_loading = [] {},
      .links_memory = []() -> uint64_t { return 0; },
      .connections = []() -> uint64_t { return 0; },
  };
  return h;
}

}  // namespace server
