#include "cluster/failure.h"

#include <algorithm>

namespace cluster {

bool AddFailReport(Node* failing, Node* reporter, int64_t now_ms) {
  for (auto& r : failing->fail_reports)
    if (r.reporter == reporter) {
      r.time_ms = now_ms;
      return false;
    }
  failing->fail_reports.push_back({reporter, now_ms});
  return true;
}

bool DelFailReport(Node* failing, Node* reporter) {
  auto& v = failing->fail_reports;
  auto end = std::remove_if(v.begin(), v.end(),
                            [reporter](const FailReport& r) { return r.reporter == reporter; });
  bool had = end != v.end();
  v.erase(end, v.end());
  return had;
}

int CountFailReports(Node* n, int64_t now_ms, int64_t node_timeout_ms) {
  int64_t max_age = 2 * node_timeout_ms;
  auto& v = n->fail_reports;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const FailReport& r) { return now_ms - r.time_ms > max_age; }),
          v.end());
  return static_cast<int>(v.size());
}

bool PfailDue(const Node* n, int64_t now_ms, int64_t node_timeout_ms) {
  if (!n->ping_sent_ms || n->Has(kNodePfail | kNodeFail)) return false;
  int64_t silent = std::min(now_ms - n->ping_sent_ms, now_ms - n->data_received_ms);
  return silent > node_timeout_ms;
}

bool FailQuorumReached(const State& st, const Node* n, int valid_reports) {
  if (!n->Has(kNodePfail) || n->Has(kNodeFail)) return false;
  int count = valid_reports + (st.myself->IsVotingPrimary() ? 1 : 0);
  return count >= st.size / 2 + 1;
}

FailClear ClearFailVerdict(const Node* n, int64_t now_ms, int64_t node_timeout_ms) {
  if (!n->Has(kNodeFail)) return FailClear::kKeep;
  if (n->IsReplica()) return FailClear::kReplica;
  if (n->num_slots == 0) return FailClear::kNoSlots;
  if (now_ms - n->fail_time_ms > 2 * node_timeout_ms) return FailClear::kStale;
  return FailClear::kKeep;
}

}  // namespace cluster
