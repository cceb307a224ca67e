// The Linux OOM killer's preference for this process (oom-score-adj, oom-score-adj-values), as
// Valkey 8's setOOMScoreAdj: a primary, a replica and a forked child each get their value,
// added to the process's own value at the first adjustment (relative) or as it is (absolute),
// clamped to [-1000, 1000]; turning it off writes back that first value.
#pragma once

namespace server {

enum OomClass { kOomPrimary = 0, kOomReplica = 1, kOomBgChild = 2 };
// oom-score-adj's choices by index (no, yes, relative, absolute): the choice "relative" is
// kept as yes, its synonym.
enum OomScoreAdjMode {
  kOomScoreAdjNo = 0,
  kOomScoreAdjRelative = 1,
  kOomScoreAdjRelativeChoice = 2,
  kOomScoreAdjAbsolute = 3
};

// The two directives (config.h's `cfg.oom_score_adj`).
struct OomScoreAdj {
  int mode = kOomScoreAdjNo;
  int values[3] = {0, 200, 800};  // by OomClass
};

// Applies `conf` for oom_class (-1: the class of the node's role). False (logged) when
// /proc/self/oom_score_adj could not be read or written; nothing is written while the mode is
// no and was never applied.
bool SetOomScoreAdj(const OomScoreAdj& conf, int oom_class);

}  // namespace server
