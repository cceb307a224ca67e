#include "server/latency_graph.h"

#include <algorithm>
#include <cstdio>

namespace server {
namespace {

constexpr int kColumns = 80;  // samples per block of rows, and the dashes under the header
constexpr int kRows = 4;
constexpr char kLevels[] = "_o#";  // three heights per row
constexpr int kLevelCount = 3;

std::string Age(int64_t secs) {
  char buf[32];
  if (secs < 60)
    snprintf(buf, sizeof buf, "%llds", static_cast<long long>(secs));
  else if (secs < 3600)
    snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(secs / 60));
  else if (secs < 86400)
    snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(secs / 3600));
  else
    snprintf(buf, sizeof buf, "%lldd", static_cast<long long>(secs / 86400));
  return buf;
}

// One block of up to kColumns samples: kRows rows of bars, a blank row, the labels downwards.
void RenderBlock(std::string* out, const std::vector<int>& steps,
                 const std::vector<std::string>& labels, size_t from, size_t n) {
  for (int row = 0; row < kRows; row++) {
    int floor = (kRows - 1 - row) * kLevelCount;  // the lowest step drawn on this row
    for (size_t j = from; j < from + n; j++) {
      int level = steps[j] - floor;
      out->push_back(level < 0 ? ' ' : level < kLevelCount ? kLevels[level] : '|');
    }
    out->push_back('\n');
  }
  size_t longest = 0;
  for (size_t j = from; j < from + n; j++) longest = std::max(longest, labels[j].size());
  if (longest == 0) return;
  out->append(n, ' ');
  out->push_back('\n');
  for (size_t k = 0; k < longest; k++) {
    for (size_t j = from; j < from + n; j++) out->push_back(k < labels[j].size() ? labels[j][k] : ' ');
    out->push_back('\n');
  }
}

}  // namespace

std::string LatencyGraph(std::string_view event, const std::vector<LatencyPoint>& points,
                         int64_t all_time_max, int64_t now) {
  int64_t lo = 0, hi = 0;
  for (size_t j = 0; j < points.size(); j++) {
    lo = j ? std::min(lo, points[j].latency) : points[j].latency;
    hi = j ? std::max(hi, points[j].latency) : points[j].latency;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s - high %lld ms, low %lld ms (all time high %lld ms)\n",
           static_cast<int>(event.size()), event.data(), static_cast<long long>(hi),
           static_cast<long long>(lo), static_cast<long long>(all_time_max));
  std::string out = buf;
  out.append(kColumns, '-');
  out.push_back('\n');
  // Each sample's height in steps of a third of a row, scaled between the lowest and the
  // highest sample (truncated, as Valkey computes it).
  const int steps_total = kRows * kLevelCount;
  double range = hi - lo ? static_cast<double>(hi - lo) : 1;
  std::vector<int> steps;
  std::vector<std::string> labels;
  for (const auto& p : points) {
    int s = static_cast<int>(static_cast<int>(static_cast<double>(p.latency - lo) * steps_total) /
                             range);
    steps.push_back(std::clamp(s, 0, steps_total - 1));
    labels.push_back(Age(now - p.time));
  }
  for (size_t j = 0; j < points.size(); j += kColumns) {
    if (j) out.push_back('\n');
    RenderBlock(&out, steps, labels, j, std::min<size_t>(kColumns, points.size() - j));
  }
  return out;
}

}  // namespace server
