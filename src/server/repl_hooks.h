// What the server layer asks of replication. repl/ depends on server/, never the reverse: the
// replication module fills these hooks in (repl::Install, from main) and until then every hook
// gives a standalone node's answer, so server/ builds and runs on its own.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server {

struct Client;
struct CommandSpec;

struct ReplHooks {
  // The one propagation point: a command that changed the dataset, in the db it ran against.
  void (*propagate)(int dbid, const std::vector<std::string_view>& argv);
  // Writes inside EXEC are wrapped in MULTI ... EXEC in the stream.
  void (*begin_transaction)();
  void (*end_transaction)();
  int64_t (*offset)();  // replication offset after the last write (what WAIT waits for)
  // The offset of the primary's history that this node's data holds, as the cluster bus
  // announces it and elections rank it: a replica waiting for a full sync holds none of its
  // primary's history yet, so 0 (Valkey 8's replicationGetReplicaOffset).
  int64_t (*data_offset)();
  // Checks of the execution gate.
  bool (*is_replica)();
  std::string (*primary_address)();  // "host:port" of my primary (a replica), else ""
  // FAILOVER's last step: this demoted primary waits for its target to take over.
  bool (*failover_handing_over)();
  bool (*refuse_writes)();        // replica-read-only
  bool (*stale_data_refused)();   // replica-serve-stale-data no with the link down
  bool (*not_enough_replicas)();  // min-replicas-to-write not met
  // The address of a replica of mine that cannot stage slot imports (not one of ours), or "".
  std::string (*replica_without_slot_import)();
  int (*replicas_with_slot_import)();  // attached replicas that announced it
  // Client I/O of replica links and of our primary's link.
  bool (*replica_write)(Client* c);        // a replica link's write step; false: closing
  bool (*replica_has_pending)(Client* c);  // a replica link has something to send
  // The replication buffer a replica link holds, and how many of its blocks (its omem/oll).
  size_t (*replica_held_output)(const Client* c, size_t* blocks);
  void (*client_freed)(Client* c);
  // A replica sent an empty line: it is alive (one loading a long snapshot says so), which
  // counts as an acknowledgement for repl-timeout, as in Valkey 8.
  void (*replica_newline)(Client* c);
  void (*primary_stream_applied)(Client* c, std::string_view raw);
  // The server loop, INFO, config and start-up.
  void (*cron)();
  void (*before_sleep)();
  void (*append_info)(std::string* s);  // INFO replication
  void (*resize_backlog)();             // CONFIG SET repl-backlog-size
  uint64_t (*repl_buffer_bytes)();      // the replication buffer's blocks, 0 without one
  // Shutdown: replicas not acknowledging our offset (each logged if `log`), of *total; and a
  // REPLCONF GETACK to all before the loop sleeps.
  int (*lagging_replicas)(bool log, int* total);
  void (*request_acks)();
  // full_sync_required: a primary of another history (cluster: another shard).
  void (*become_replica)(const std::string& host, int port, bool full_sync_required);
  void (*become_primary)();
  // Replica: the last bytes from the primary, or when the link went down (0: never up).
  int64_t (*primary_last_contact_ms)();
  void (*new_replication_id)();  // DEBUG CHANGE-REPL-ID
  void (*register_commands)(std::vector<CommandSpec>* t);
  void (*init)();  // once the config is loaded, before data is loaded
  // After the snapshot (not an AOF) loaded at start: a replica continues the replication
  // history it recorded (repl/saved_history.h).
  void (*snapshot_loaded_at_start)();
};

ReplHooks& Repl();

}  // namespace server
