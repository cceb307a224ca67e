// What the server layer asks of cluster mode. cluster/ depends on server/, never the reverse:
// cluster::Install (from main) fills these hooks in; until then a standalone node's answers.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace db {
class RoutedKeys;
}

namespace server {

struct Client;
struct CommandSpec;

struct ClusterHooks {
  // Routing of a command that passed the earlier gate checks: true to run it here (*routed: its
  // keys and their one slot), false with *err set to the reply (MOVED, ASK, TRYAGAIN,
  // CROSSSLOT, CLUSTERDOWN ...).
  bool (*route)(Client* c, const CommandSpec* cmd, db::RoutedKeys* routed, std::string* err);
  // PUBLISH (shard: SPUBLISH) reaching the other nodes after the local subscribers.
  void (*publish)(std::string_view channel, std::string_view message, bool shard);
  void (*register_commands)(std::vector<CommandSpec>* t);
  // Once the config is loaded and the event loop exists; false stops the start (*err says why).
  bool (*init)(std::string* err);
  // Once the data is loaded at start (after init): what depends on the replication history
  // the data came with (a restarted replica's open slots).
  void (*data_loaded)();
  void (*before_sleep)();
  // Last in BeforeSleep, after the replies to clients: the bus writes its queued messages.
  void (*after_replies)();
  void (*cron)();  // from the server cron, at most every 100 ms
  // The node is about to exit (SHUTDOWN, SIGTERM): nodes.conf saved with all it knows.
  void (*shutdown)();
  // In a forked child (snapshot, diskless sync): drop what only the node itself may hold (the
  // nodes.conf lock, which a child outliving its node would keep from the node's restart).
  void (*in_child)();
  // A disk snapshot is about to fork: nodes.conf gets what it has not saved yet, so that the
  // snapshot's replication offset is never ahead of the open slots nodes.conf holds.
  void (*before_snapshot)();
  // CONFIG SET of an announced address, port or name: myself shows it at once (in CLUSTER
  // NODES/SLOTS/SHARDS of this node), as Valkey 8 applies it, not at the next cluster cron.
  void (*announce_changed)();
  // Atomic slot migration's import jobs (cluster/syncslots_cmd.cc), whose staged keys live
  // outside the served databases, so no snapshot or rewritten AOF carries them:
  // a client is being freed (the source's connection of a running import ends it);
  void (*client_freed)(Client* c);
  // a primary is about to take the snapshot of a full sync (its running imports end first:
  // the replica could never receive what they staged);
  void (*full_sync_starting)();
  // an AOF rewrite is about to start (likewise for the rewritten AOF);
  void (*aof_rewrite_starting)();
  // an AOF load (at start, DEBUG LOADAOF) ended: imports it left unfinished are dropped;
  void (*aof_loaded)();
  // whether an import runs: an AOF rewrite waits for it to end, as for another child (a
  // replica's rewrite would leave its ESTABLISH and staged keys out of the new base, and a
  // restart from that AOF would replay the HANDOVER of a job it never saw).
  bool (*imports_running)();
  // Atomic slot migration. Every write leaving the node (WriteOut, to its replicas or not): the
  // jobs exporting its slot forward it to their target. A write command whose slot a handover
  // holds waits with the paused clients (ProcessCommand) until ReleaseHeldClients, as does
  // a write to a big value being sent in pieces that its part on the target could not follow.
  void (*write_out)(int dbid, const std::vector<std::string_view>& argv);
  bool (*write_held)(const Client* c, const CommandSpec* cmd);
  // DEBUG subcommands cluster mode owns (CLUSTERLINK KILL): true when it replied.
  bool (*debug)(Client* c);
  // Between the keys of a load (ServeWhileLoading): the bus sends what it queued.
  void (*while_loading)();
  // INFO mem_cluster_links: what the bus links hold (the links and their buffers).
  uint64_t (*links_memory)();
  // INFO cluster_connections: as Valkey 8 counts them, two per other known node.
  uint64_t (*connections)();
};

ClusterHooks& Cluster();

}  // namespace server
