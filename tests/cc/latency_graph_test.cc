// LATENCY GRAPH's renderer: scaling, the rows, the ages, and blocks of 80 samples.
#include "server/latency_graph.h"

#include "check.h"

using server::LatencyGraph;
using server::LatencyPoint;

TEST_CASE(LatencyGraphTwoSamples) {
  std::string g = LatencyGraph("command", {{100, 51}, {101, 121}}, 300, 101);
  CHECK(g == "command - high 121 ms, low 51 ms (all time high 300 ms)\n" + std::string(80, '-') +
                 "\n #\n |\n |\n_|\n  \n10\nss\n");
}

TEST_CASE(LatencyGraphLevelsAndAges) {
  // Steps of a third of a row between the lowest (0) and the highest (11 of 12) sample.
  std::vector<LatencyPoint> pts;
  for (int v = 0; v <= 12; v++) pts.push_back({1000, 10 + v});
  std::string g = LatencyGraph("e", pts, 22, 1000 + 90061);  // 1 day, 1 hour, 1 min, 1 s ago
  size_t body = g.find('\n', g.find('\n') + 1) + 1;
  CHECK(g.substr(body) ==
        "         _o##\n"
        "      _o#||||\n"
        "   _o#|||||||\n"
        "_o#||||||||||\n"
        "             \n"
        "1111111111111\n"
        "ddddddddddddd\n");
  CHECK(LatencyGraph("e", {{0, 5}}, 5, 59).find("\n_\n \n5\n9\ns\n") != std::string::npos);
  CHECK(LatencyGraph("e", {{0, 5}}, 5, 60).find("\n_\n \n1\nm\n") != std::string::npos);
  CHECK(LatencyGraph("e", {{0, 5}}, 5, 7200).find("\n_\n \n2\nh\n") != std::string::npos);
}

TEST_CASE(LatencyGraphWrapsAt80Samples) {
  std::vector<LatencyPoint> pts;
  for (int i = 0; i < 81; i++) pts.push_back({50, 7});
  std::string g = LatencyGraph("e", pts, 7, 50);
  size_t body = g.find('\n', g.find('\n') + 1) + 1;
  std::string want;
  for (int r = 0; r < 3; r++) want += std::string(80, ' ') + "\n";
  want += std::string(80, '_') + "\n" + std::string(80, ' ') + "\n" + std::string(80, '0') + "\n" +
          std::string(80, 's') + "\n\n";
  want += " \n \n \n_\n \n0\ns\n";
  CHECK(g.substr(body) == want);
}
