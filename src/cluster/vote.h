// Whether a primary grants its vote to a replica's FAILOVER_AUTH_REQUEST, as a pure function of
// the cluster state (as Valkey 8's clusterSendFailoverAuthIfNeeded decides it). failover.cc logs
// the verdict, and on kGrant records the vote, saves it and answers.
#pragma once
#include <cstdint>

#include "cluster/state.h"

namespace cluster {

enum class VoteVerdict {
  kGrant,
  kNotVoter,            // I am a replica, or a primary without slots: I do not vote
  kStaleRequestEpoch,   // the request's currentEpoch is below mine
  kAlreadyVoted,        // I voted in my currentEpoch already
  kRequesterIsPrimary,  // the requester is a primary as I see it
  kUnknownPrimary,      // I do not know the requester's primary
  kPrimaryUp,           // its primary is not FAIL and the request is not a manual failover
  kVotedRecently,       // I voted for a replica of that primary less than 2 x timeout ago
  kSlotNewerEpoch,      // a slot it claims has, as I see it, an owner with a newer epoch
};

struct VoteRequest {
  const Node* sender = nullptr;       // a known node
  uint64_t current_epoch = 0;         // of its header
  uint64_t config_epoch = 0;          // of its header (its primary's)
  const SlotBitmap* slots = nullptr;  // its header's claim (its primary's slots)
  bool force_ack = false;             // manual failover: its primary need not be FAIL
};

struct VoteDecision {
  VoteVerdict verdict = VoteVerdict::kGrant;
  int slot = -1;                // kSlotNewerEpoch: the first such slot
  uint64_t owner_epoch = 0;     // kSlotNewerEpoch: its owner's configEpoch
  const Node* owner = nullptr;  // kSlotNewerEpoch: that owner (the requester hears of it)
  int64_t wait_ms = 0;          // kVotedRecently: until the next vote about that primary
};

VoteDecision DecideVote(const State& st, const VoteRequest& r, int64_t now_ms,
                        int64_t node_timeout_ms);
const char* VoteVerdictName(VoteVerdict v);

}  // namespace cluster
