// Standalone answers of the replication hooks (see repl_hooks.h).
#include "server/repl_hooks.h"

namespace server {

ReplHooks& Repl() {
  static ReplHooks h = {
      .propagate = [](int, const std::vector<std::string_view>&) {},
      .begin_transaction = [] {},
      .end_transaction = [] {},
      .offset = []() -> int64_t { return 0; },
      .data_offset = []() -> int64_t { return 0; },
      .is_replica = [] { return false; },
      .primary_address = []() -> std::string { return ""; },
      .failover_handing_over = [] { return false; },
      .refuse_writes = [] { return false; },
      .stale_data_refused = [] { return false; },
      .not_enough_replicas = [] { return false; },
      .replica_without_slot_import = []() -> std::string { return ""; },
      .replicas_with_slot_import = [] { return 0; },
      .replica_write = [](Client*) { return true; },
      .replica_has_pending = [](Client*) { return false; },
      .replica_held_output = [](const Client*, size_t* blocks) -> size_t {
        *blocks = 0;
        return 0;
      },
      .client_freed = [](Client*) {},
      .replica_newline = [](Client*) {},
      .primary_stream_applied = [](Client*, std::string_view) {},
      .cron = [] {},
      .before_sleep = [] {},
      .append_info = [](std::string*) {},
      .resize_backlog = [] {},
      .repl_buffer_bytes = []() -> uint64_t { return 0; },
      .lagging_replicas =
          [](bool, int* total) {
            *total = 0;
            return 0;
          },
      .request_acks = [] {},
      .become_replica = [](const std::string&, int, bool) {},
      .become_primary = [] {},
      .primary_last_contact_ms = []() -> int64_t { return 0; },
      .new_replication_id = [] {},
      .register_commands = [](std::vector<CommandSpec>*) {},
      .init = [] {},
      .snapshot_loaded_at_start = [] {},
  };
  return h;
}

}  // namespace server
