// server::CliToLines: the command line's "--name value" arguments as config lines, as Valkey 8
// reads them (a value may start with "--" when it follows a bare name; a bare --save is save "").
#include <string>
#include <vector>

#include "check.h"
#include "server/config.h"

namespace {
struct Row {
  const char* name;
  std::vector<std::string> cli;
  std::vector<std::string> lines;
};
}  // namespace

TEST_CASE(CliToLinesRows) {
  const Row rows[] = {
      {"name and value", {"--port", "6380"}, {"port \"6380\""}},
      {"several values", {"--save", "900", "1", "--port", "7"}, {"save \"900\" \"1\"", "port \"7\""}},
      {"name and value in one argument", {"--port 6380", "--loglevel", "debug"},
       {"port 6380", "loglevel \"debug\""}},
      {"a bare name takes the next argument, dashes and all", {"--port", "--loglevel", "verbose"},
       {"port \"--loglevel\" \"verbose\""}},
      {"then a dashed argument names the next directive", {"--port", "--bla", "--loglevel", "verbose"},
       {"port \"--bla\"", "loglevel \"verbose\""}},
      {"a value of dashes", {"--logfile", "--my--log--file", "--loglevel", "--bla"},
       {"logfile \"--my--log--file\"", "loglevel \"--bla\""}},
      {"a bare name last stays bare", {"--port", "6380", "--loglevel"}, {"port \"6380\"", "loglevel"}},
      {"--save before another name is save \"\"", {"--save", "--port", "6380"},
       {"save \"\"", "port \"6380\""}},
      {"--save last is save \"\"", {"--port", "6380", "--save"}, {"port \"6380\"", "save \"\""}},
      {"quotes and newlines are escaped", {"--requirepass", "a\"b\\c\nd"},
       {"requirepass \"a\\\"b\\\\c\\nd\""}},
      {"arguments before any name are ignored", {"6380", "--port", "1"}, {"port \"1\""}},
  };
  for (const Row& r : rows) {
    std::vector<std::string> got = server::CliToLines(r.cli);
    if (got != r.lines) {
      std::string g;
      for (auto& l : got) g += "[" + l + "] ";
      fprintf(stderr, "  row '%s': got %s\n", r.name, g.c_str());
    }
    CHECK(got == r.lines);
  }
}
