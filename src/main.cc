// Entry point of valkey-server: the composition root. Lower layers expose hooks; the modules
// that sit above them (replication, cluster mode) plug in here, before the server starts.
#include "cluster/cluster.h"
#include "repl/repl.h"

namespace server {
int Main(int argc, char** argv);
}

int main(int argc, char** argv) {
  repl::Install();
  cluster::Install();
  return server::Main(argc, argv);
}
