// Whether a slot that moved away leaves the replicas as one CLUSTER FLUSHSLOT or as a DEL per
// key, one row per case.
#include "cluster/slot_keys.h"

#include <cstdio>

#include "check.h"

namespace {

struct Row {
  const char* name;
  int known;       // replicas of this node in the cluster's view
  int capable;     // attached, announced `capa slot-import`
  bool incapable;  // one attached that did not
  bool by_command;
};

TEST_CASE(FlushSlotByCommandRows) {
  const Row rows[] = {
      {"no replica (the AOF only)", 0, 0, false, true},
      {"every replica attached and ours", 2, 2, false, true},
      {"one of two replicas away (may be a Valkey 8 node)", 2, 1, false, false},
      {"a replica that did not announce it (Valkey 8, Redis 7, a stream reader)", 1, 1, true,
       false},
      {"a stream reader beside our replica, none known", 0, 0, true, false},
      {"an extra reader of ours beside the known replica", 1, 2, false, true},
  };
  for (const Row& r : rows) {
    bool got = cluster::FlushSlotByCommand(r.known, r.capable, r.incapable);
    if (got != r.by_command) fprintf(stderr, "  row: %s\n", r.name);
    CHECK(got == r.by_command);
  }
}

}  // namespace
