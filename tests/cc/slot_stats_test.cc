// CLUSTER SLOT-STATS: the request bytes charged to a slot, as Valkey 8.0.1 counts them.
#include "server/slot_stats.h"

#include "check.h"

namespace {
using server::slot_stats::RequestBytes;

TEST_CASE(SlotStatsRequestBytes) {
  // multibulk: every byte of the request
  CHECK_EQ(RequestBytes("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), 20u);
  // inline: the line and two bytes for its end, whether it ends in \r\n or \n alone
  CHECK_EQ(RequestBytes("GET k\r\n"), 7u);
  CHECK_EQ(RequestBytes("GET k\n"), 7u);
  CHECK_EQ(RequestBytes(""), 0u);
}
}  // namespace
