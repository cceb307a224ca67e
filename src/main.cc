// Entry point of valkey-server: the composition root. Lower layers expose hooks; the modules
// that sit above them (replication, cluster mode) plug in here, before the server starts.
// Run as valkey-check-rdb or valkey-check-aof (Valkey's names, or Redis's), the binary is
// that tool instead, as Valkey 8's is.
#include <cstring>

#include "cluster/cluster.h"
#include "repl/repl.h"
#include "tools/check_aof.h"
#include "tools/check_rdb.h"

namespace server {
int Main(int argc, char** argv);
}

int main(int argc, char** argv) {
  const char* prog = argc > 0 && argv[0] ? argv[0] : "";  // execve may give no argv[0]
  const char* slash = strrchr(prog, '/');
  const char* name = slash ? slash + 1 : prog;
  if (strstr(name, "valkey-check-rdb") || strstr(name, "redis-check-rdb"))
    return tools::CheckRdbMain(argc, argv);
  if (strstr(name, "valkey-check-aof") || strstr(name, "redis-check-aof"))
    return tools::CheckAofMain(argc, argv);
  repl::Install();
  cluster::Install();
  return server::Main(argc, argv);
}
