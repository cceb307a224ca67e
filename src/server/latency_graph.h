// LATENCY GRAPH's text: Valkey 8's header lines and ASCII sparkline of an event's samples
// (4 rows of '_', 'o', '#' with '|' below, a blank row, then each sample's age read
// downwards: "12s", "3m", "2h", "1d"). Pure: the samples and the clock come in.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server {

struct LatencyPoint {
  int64_t time;     // unix seconds
  int64_t latency;  // ms
};

// `points` oldest first; `all_time_max` the event's highest ever; `now` unix seconds.
std::string LatencyGraph(std::string_view event, const std::vector<LatencyPoint>& points,
                         int64_t all_time_max, int64_t now);

}  // namespace server
