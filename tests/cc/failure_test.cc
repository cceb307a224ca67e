// Failure detection rules of cluster/failure.h, one named row per rule.
#include "cluster/failure.h"

#include <cstdio>
#include <functional>
#include <string>

#include "check.h"

namespace {

using namespace cluster;

constexpr int64_t kNow = 1'000'000, kTimeout = 1000;

// Five primaries with slots (size 5, quorum 3): me, P (the suspect), and R1..R3 (reporters).
struct Fixture {
  State st;
  Node *me, *p, *r[3];
  Fixture() {
    me = st.Add(std::string(40, 'a'), kNodeMyself | kNodePrimary, 0);
    st.myself = me;
    p = st.Add(std::string(40, 'b'), kNodePrimary | kNodePfail, 0);
    for (int i = 0; i < 3; i++) r[i] = st.Add(std::string(40, 'c' + i), kNodePrimary, 0);
    int slot = 0;
    for (auto& n : st.nodes) st.AssignSlot(slot++, n.get());
    st.size = 5;
  }
};

TEST_CASE(FailReportsAreRefreshedAndExpire) {
  Fixture f;
  AddFailReport(f.p, f.r[0], kNow - 2 * kTimeout - 1);  // too old by the time it is counted
  AddFailReport(f.p, f.r[1], kNow - 2 * kTimeout);
  CHECK_EQ(CountFailReports(f.p, kNow, kTimeout), 1);
  CHECK_EQ(f.p->fail_reports.size(), size_t{1});  // the old one was purged
  CHECK(AddFailReport(f.p, f.r[0], kNow));        // new (the old one was purged)
  CHECK(!AddFailReport(f.p, f.r[0], kNow));       // one report per reporter, refreshed
  CHECK_EQ(CountFailReports(f.p, kNow, kTimeout), 2);
  CHECK(DelFailReport(f.p, f.r[1]));
  CHECK(!DelFailReport(f.p, f.r[1]));
  CHECK_EQ(CountFailReports(f.p, kNow, kTimeout), 1);
  CHECK(f.p->fail_reports[0].reporter == f.r[0]);
}

struct QuorumRow {
  const char* name;
  std::function<void(Fixture&)> setup;
  int reports;
  bool want;
};

TEST_CASE(FailQuorumRows) {
  const QuorumRow rows[] = {
      {"two reports and my own view make a majority of 5", [](Fixture&) {}, 2, true},
      {"one report and mine are not", [](Fixture&) {}, 1, false},
      {"a replica's view does not count",
       [](Fixture& f) {
         f.st.UnassignSlot(0);
         f.st.SetPrimary(f.me, f.r[0]);
       },
       2, false},
      {"a replica needs the majority from reports",
       [](Fixture& f) {
         f.st.UnassignSlot(0);
         f.st.SetPrimary(f.me, f.r[0]);
       },
       3, true},
      {"a node that is not PFAIL is not marked", [](Fixture& f) { f.p->flags &= ~kNodePfail; }, 3,
       false},
      {"a node already FAIL is not marked again",
       [](Fixture& f) { f.p->flags = kNodePrimary | kNodeFail; }, 3, false},
      {"in a cluster of one primary, my own view suffices", [](Fixture& f) { f.st.size = 1; }, 0,
       true},
  };
  for (const QuorumRow& row : rows) {
    Fixture f;
    row.setup(f);
    if (FailQuorumReached(f.st, f.p, row.reports) != row.want) {
      fprintf(stderr, "  row '%s': want %d\n", row.name, row.want);
      check::failures++;
    }
  }
}

TEST_CASE(PfailRows) {
  Fixture f;
  Node* n = f.p;
  n->flags = kNodePrimary;
  n->ping_sent_ms = 0;
  CHECK(!PfailDue(n, kNow, kTimeout));  // no ping pending: nothing is late
  n->ping_sent_ms = kNow - kTimeout - 1;
  n->data_received_ms = kNow - kTimeout - 1;
  CHECK(PfailDue(n, kNow, kTimeout));
  n->data_received_ms = kNow - 10;  // data arrived meanwhile (a busy link still lives)
  CHECK(!PfailDue(n, kNow, kTimeout));
  n->data_received_ms = kNow - kTimeout - 1;
  n->ping_sent_ms = kNow - kTimeout;  // exactly the timeout: not yet
  CHECK(!PfailDue(n, kNow, kTimeout));
  n->ping_sent_ms = kNow - 5 * kTimeout;
  n->flags |= kNodeFail;  // already failed: no PFAIL again
  CHECK(!PfailDue(n, kNow, kTimeout));
}

struct ClearRow {
  const char* name;
  std::function<void(Fixture&)> setup;
  FailClear want;
};

TEST_CASE(ClearFailRows) {
  const ClearRow rows[] = {
      {"a primary with slots failed just now stays FAIL",
       [](Fixture& f) { f.p->fail_time_ms = kNow - 10; }, FailClear::kKeep},
      {"a primary with slots failed 2 x timeout ago stays FAIL",
       [](Fixture& f) { f.p->fail_time_ms = kNow - 2 * kTimeout; }, FailClear::kKeep},
      {"a primary with slots nobody took over within 2 x timeout is cleared",
       [](Fixture& f) { f.p->fail_time_ms = kNow - 2 * kTimeout - 1; }, FailClear::kStale},
      {"a primary without slots is cleared at once",
       [](Fixture& f) {
         f.st.UnassignSlot(1);
         f.p->fail_time_ms = kNow;
       },
       FailClear::kNoSlots},
      {"a replica is cleared at once",
       [](Fixture& f) {
         f.st.UnassignSlot(1);
         f.st.SetPrimary(f.p, f.r[0]);
         f.p->flags |= kNodeFail;
         f.p->fail_time_ms = kNow;
       },
       FailClear::kReplica},
      {"a node that is not FAIL has nothing to clear",
       [](Fixture& f) { f.p->flags = kNodePrimary | kNodePfail; }, FailClear::kKeep},
  };
  for (const ClearRow& row : rows) {
    Fixture f;
    f.p->flags = kNodePrimary | kNodeFail;
    row.setup(f);
    if (ClearFailVerdict(f.p, kNow, kTimeout) != row.want) {
      fprintf(stderr, "  row '%s': want %d, got %d\n", row.name, static_cast<int>(row.want),
              static_cast<int>(ClearFailVerdict(f.p, kNow, kTimeout)));
      check::failures++;
    }
  }
}

}  // namespace
