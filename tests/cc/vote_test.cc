// The vote decision of cluster/vote.h, one named row per rule, on a state built in-process.
#include "cluster/vote.h"

#include <cstdio>
#include <functional>
#include <string>

#include "check.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kP(40, 'b'), kR(40, 'c'), kQ(40, 'd');
constexpr int64_t kNow = 1'000'000, kTimeout = 1000;

// Me: a primary owning slots 0-99 at epoch 1. P: a primary owning 100-199 at epoch 2, FAIL,
// with replica R. Q: another primary owning 200-299 at epoch 7. currentEpoch 8; R asks for
// votes in epoch 8 with P's slots and epoch 2.
struct Fixture {
  State st;
  Node *me, *p, *r, *q;
  SlotBitmap claim{};
  VoteRequest req;
  Fixture() {
    me = st.Add(kMe, kNodeMyself | kNodePrimary, 0);
    st.myself = me;
    p = st.Add(kP, kNodePrimary | kNodeFail, 0);
    r = st.Add(kR, kNodeReplica, 0);
    q = st.Add(kQ, kNodePrimary, 0);
    st.SetPrimary(r, p);
    me->config_epoch = 1;
    p->config_epoch = 2;
    q->config_epoch = 7;
    for (int s = 0; s < 100; s++) st.AssignSlot(s, me);
    for (int s = 100; s < 200; s++) st.AssignSlot(s, p);
    for (int s = 200; s < 300; s++) st.AssignSlot(s, q);
    st.current_epoch = 8;
    st.last_vote_epoch = 5;
    claim = p->slots;
    req = {.sender = r, .current_epoch = 8, .config_epoch = 2, .slots = &claim, .force_ack = false};
  }
};

struct Row {
  const char* name;
  std::function<void(Fixture&)> setup;
  VoteVerdict want;
};

TEST_CASE(VoteRows) {
  const Row rows[] = {
      {"a replica of a failed primary: granted", [](Fixture&) {}, VoteVerdict::kGrant},
      {"a replica does not vote",
       [](Fixture& f) {
         for (int s = 0; s < 100; s++) f.st.UnassignSlot(s);
         f.st.SetPrimary(f.me, f.q);
       },
       VoteVerdict::kNotVoter},
      {"a primary without slots does not vote",
       [](Fixture& f) {
         for (int s = 0; s < 100; s++) f.st.UnassignSlot(s);
       },
       VoteVerdict::kNotVoter},
      {"a request from an older epoch", [](Fixture& f) { f.req.current_epoch = 7; },
       VoteVerdict::kStaleRequestEpoch},
      {"one vote per epoch", [](Fixture& f) { f.st.last_vote_epoch = 8; },
       VoteVerdict::kAlreadyVoted},
      {"the requester is a primary as I see it", [](Fixture& f) { f.req.sender = f.q; },
       VoteVerdict::kRequesterIsPrimary},
      {"its primary is unknown to me",
       [](Fixture& f) {
         f.st.SetPrimary(f.r, nullptr);
         f.r->flags = kNodeReplica;
       },
       VoteVerdict::kUnknownPrimary},
      {"its primary is up", [](Fixture& f) { f.p->flags &= ~kNodeFail; }, VoteVerdict::kPrimaryUp},
      {"its primary is up but the failover is manual (FORCEACK)",
       [](Fixture& f) {
         f.p->flags &= ~kNodeFail;
         f.req.force_ack = true;
       },
       VoteVerdict::kGrant},
      {"a vote about the same primary within 2 x timeout",
       [](Fixture& f) { f.p->voted_time_ms = kNow - 2 * kTimeout + 1; },
       VoteVerdict::kVotedRecently},
      {"a vote about the same primary 2 x timeout ago",
       [](Fixture& f) { f.p->voted_time_ms = kNow - 2 * kTimeout; }, VoteVerdict::kGrant},
      {"a claimed slot owned at a newer epoch", [](Fixture& f) { SlotSet(&f.claim, 250); },
       VoteVerdict::kSlotNewerEpoch},
      {"a claimed slot owned at the same epoch",
       [](Fixture& f) {
         SlotSet(&f.claim, 250);
         f.q->config_epoch = 2;
       },
       VoteVerdict::kGrant},
      {"a claimed slot whose newer owner stopped claiming it",
       [](Fixture& f) {
         SlotSet(&f.claim, 250);
         f.st.SetOwnerClaims(250, false);
       },
       VoteVerdict::kGrant},
      {"a claimed slot that nobody owns", [](Fixture& f) { SlotSet(&f.claim, 5000); },
       VoteVerdict::kGrant},
  };
  for (const Row& row : rows) {
    Fixture f;
    row.setup(f);
    VoteDecision d = DecideVote(f.st, f.req, kNow, kTimeout);
    if (d.verdict != row.want) {
      fprintf(stderr, "  row '%s': got %s, want %s\n", row.name, VoteVerdictName(d.verdict),
              VoteVerdictName(row.want));
      check::failures++;
    }
  }
}

TEST_CASE(VoteDenialDetails) {
  Fixture f;
  f.p->voted_time_ms = kNow - 300;
  CHECK_EQ(DecideVote(f.st, f.req, kNow, kTimeout).wait_ms, int64_t{1700});
  Fixture g;
  SlotSet(&g.claim, 250);
  SlotSet(&g.claim, 260);
  VoteDecision d = DecideVote(g.st, g.req, kNow, kTimeout);
  CHECK_EQ(d.slot, 250);
  CHECK_EQ(d.owner_epoch, uint64_t{7});
  CHECK(d.owner == g.q);
}

TEST_CASE(StateOwnerClaimsFollowAssignment) {
  Fixture f;
  f.st.SetOwnerClaims(250, false);
  CHECK(f.st.Unclaimed(250));
  CHECK_EQ(f.st.not_claiming_count, 1);
  f.st.SetOwnerClaims(250, false);  // idempotent
  CHECK_EQ(f.st.not_claiming_count, 1);
  f.st.AssignSlot(250, f.me);  // a new owner claims it
  CHECK(!f.st.Unclaimed(250));
  CHECK_EQ(f.st.not_claiming_count, 0);
  f.st.SetOwnerClaims(251, false);
  f.st.UnassignSlot(251);
  CHECK(f.st.Unclaimed(251));  // unowned now
  CHECK(!SlotTest(f.st.owner_not_claiming, 251));
  CHECK_EQ(f.st.not_claiming_count, 0);
}

}  // namespace
