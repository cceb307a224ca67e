// Failure detection rules, as pure functions of the state and the clock (as Valkey 8's
// failure reports, markNodeAsFailingIfNeeded and clearNodeFailureIfNeeded): when a silent node
// becomes PFAIL, when reports make it FAIL, and when a FAIL node that answers is cleared.
// bus.cc applies them; tests/cc/failure_test.cc holds their table.
#pragma once
#include <cstdint>

#include "cluster/state.h"

namespace cluster {

// A voting primary says (in gossip) that `failing` is PFAIL or FAIL: its report is refreshed.
// True if it is a new report.
bool AddFailReport(Node* failing, Node* reporter, int64_t now_ms);
// It says the node is fine: its report goes. True if there was one.
bool DelFailReport(Node* failing, Node* reporter);
// Reports still valid: those older than 2 x node timeout are purged first.
int CountFailReports(Node* n, int64_t now_ms, int64_t node_timeout_ms);

// A node I ping becomes PFAIL when neither a pong nor any data came for a node timeout since
// the ping left.
bool PfailDue(const Node* n, int64_t now_ms, int64_t node_timeout_ms);

// A PFAIL node becomes FAIL when a majority of the voting primaries report it (me included when
// I am one): `valid_reports` from CountFailReports.
bool FailQuorumReached(const State& st, const Node* n, int valid_reports);

// A FAIL node that is reachable again.
enum class FailClear {
  kKeep,     // a primary with slots, failed less than 2 x node timeout ago: its replicas may
             // still be electing one
  kReplica,  // a replica: cleared at once
  kNoSlots,  // a primary without slots: cleared at once
  kStale,    // a primary with slots whose failover did not happen in 2 x node timeout
};
FailClear ClearFailVerdict(const Node* n, int64_t now_ms, int64_t node_timeout_ms);

}  // namespace cluster
