// oom-score-adj: writes /proc/self/oom_score_adj for the node's role and its children.
#include "server/oom_score.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/log.h"
#include "db/db.h"

namespace server {
namespace {
bool g_adjusted = false;  // the value was written by us: `g_base` is what to restore
int g_base = 0;
constexpr const char* kPath = "/proc/self/oom_score_adj";
}  // namespace

bool SetOomScoreAdj(const OomScoreAdj& conf, int oom_class) {
  int val;
  if (conf.mode != kOomScoreAdjNo) {
    if (!g_adjusted) {
      int fd = open(kPath, O_RDONLY);
      char buf[64] = {};
      if (fd < 0 || read(fd, buf, sizeof buf - 1) < 0) {
        LOG_WARNING("Unable to read oom_score_adj: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return false;
      }
      close(fd);
      g_base = atoi(buf);
      g_adjusted = true;
    }
    if (oom_class < 0) oom_class = db::GetEnv().replica ? kOomReplica : kOomPrimary;
    val = conf.values[oom_class];
    if (conf.mode == kOomScoreAdjRelative) val += g_base;
    if (val > 1000) val = 1000;
    if (val < -1000) val = -1000;
  } else if (g_adjusted) {
    g_adjusted = false;
    val = g_base;
  } else {
    return true;
  }
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d\n", val);
  int fd = open(kPath, O_WRONLY);
  if (fd < 0 || write(fd, buf, n) < 0) {
    LOG_WARNING("Unable to write oom_score_adj: %s", strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  close(fd);
  return true;
}

}  // namespace server
