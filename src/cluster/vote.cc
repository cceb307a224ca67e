#include "cluster/vote.h"

namespace cluster {

VoteDecision DecideVote(const State& st, const VoteRequest& r, int64_t now_ms,
                        int64_t node_timeout_ms) {
  VoteDecision d;
  auto deny = [&d](VoteVerdict v) {
    d.verdict = v;
    return d;
  };
  if (!st.myself->IsVotingPrimary()) return deny(VoteVerdict::kNotVoter);
  // The header already raised my currentEpoch to the request's; a lower one is an old request.
  if (r.current_epoch < st.current_epoch) return deny(VoteVerdict::kStaleRequestEpoch);
  if (st.last_vote_epoch == st.current_epoch) return deny(VoteVerdict::kAlreadyVoted);
  const Node* p = r.sender->primary;
  if (r.sender->IsPrimary()) return deny(VoteVerdict::kRequesterIsPrimary);
  if (!p) return deny(VoteVerdict::kUnknownPrimary);
  if (!p->Has(kNodeFail) && !r.force_ack) return deny(VoteVerdict::kPrimaryUp);
  // One vote per primary's replicas per 2 x node timeout: two replicas of one primary that
  // run in the same window do not both win.
  int64_t window = 2 * node_timeout_ms;
  if (now_ms - p->voted_time_ms < window) {
    d.wait_ms = window - (now_ms - p->voted_time_ms);
    return deny(VoteVerdict::kVotedRecently);
  }
  // Every slot it claims must be unclaimed, or owned at an epoch no newer than its claim.
  for (int s = 0; s < kSlots; s++) {
    if (!SlotTest(*r.slots, s) || st.Unclaimed(s)) continue;
    uint64_t e = st.slot_owner[s]->config_epoch;
    if (e <= r.config_epoch) continue;
    d.slot = s;
    d.owner_epoch = e;
    d.owner = st.slot_owner[s];
    return deny(VoteVerdict::kSlotNewerEpoch);
  }
  return d;
}

const char* VoteVerdictName(VoteVerdict v) {
  switch (v) {
    case VoteVerdict::kGrant:
      return "grant";
    case VoteVerdict::kNotVoter:
      return "not a voter";
    case VoteVerdict::kStaleRequestEpoch:
      return "reqEpoch < curEpoch";
    case VoteVerdict::kAlreadyVoted:
      return "already voted for epoch";
    case VoteVerdict::kRequesterIsPrimary:
      return "it is a primary node";
    case VoteVerdict::kUnknownPrimary:
      return "I don't know its primary";
    case VoteVerdict::kPrimaryUp:
      return "its primary is up";
    case VoteVerdict::kVotedRecently:
      return "can't vote about this primary yet";
    case VoteVerdict::kSlotNewerEpoch:
      return "slot epoch > reqEpoch";
  }
  return "?";
}

}  // namespace cluster
