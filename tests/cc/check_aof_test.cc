// valkey-check-aof's verdict on a file's commands (tools::ScanAof), as a table of named cases:
// where the valid part ends, its line, and why the rest is not valid.
#include "tools/check_aof.h"

#include <string>
#include <vector>

#include "check.h"

namespace {

using tools::AofScan;

std::string Cmd(std::vector<std::string> argv) {
  std::string s = "*" + std::to_string(argv.size()) + "\r\n";
  for (auto& a : argv) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

const std::string kSet = Cmd({"set", "foo", "hello"});  // 33 bytes, 7 lines
const std::string kMulti = Cmd({"multi"});              // 15 bytes, 3 lines
const std::string kExec = Cmd({"exec"});                // 14 bytes, 3 lines

struct Case {
  const char* name;
  std::string text;
  size_t start;
  int64_t to_timestamp;
  AofScan::Verdict verdict;
  uint64_t ok_up_to;
  uint64_t line;
  std::string error;  // kInvalid only
  uint64_t error_at;
  bool format_error;
};

}  // namespace

TEST_CASE(CheckAofScanTable) {
  const size_t S = kSet.size(), M = kMulti.size(), E = kExec.size();
  std::string cut = kSet.substr(0, 20);
  std::string ts = "#TS:1628217471\r\n";  // 16 bytes
  std::vector<Case> cases = {
      {"empty tail", "", 0, 0, AofScan::kValid, 0, 1, "", 0, false},
      {"one command", kSet, 0, 0, AofScan::kValid, S, 8, "", 0, false},
      {"a transaction", kSet + kMulti + kSet + kExec, 0, 0, AofScan::kValid, 2 * S + M + E, 21, "",
       0, false},
      {"annotations count as lines", ts + kSet + ts, 0, 0, AofScan::kValid, 2 * 16 + S, 10, "", 0,
       false},
      {"a tail after a preamble of 5 bytes", "REDIS" + kSet, 5, 0, AofScan::kValid, 5 + S, 8, "", 0,
       false},
      {"last command cut short", kSet + cut, 0, 0, AofScan::kInvalid, S, 8,
       "Unexpected end of file inside a command", S, false},
      {"cut inside its first line", kSet + "*3\r", 0, 0, AofScan::kInvalid, S, 8,
       "Unexpected end of file inside a command", S, false},
      {"garbage after a command", kSet + "!!!", 0, 0, AofScan::kInvalid, S, 8,
       "Neither a command nor an annotation", S, true},
      {"a bad bulk header", kSet + "*1\r\n+x\r\n", 0, 0, AofScan::kInvalid, S, 8,
       "Expected a bulk string ($<length>, the bytes)", S + 4, false},
      {"a transaction never executed", kSet + kMulti + kSet, 0, 0, AofScan::kInvalid, S, 8,
       "Reached EOF before reading EXEC for MULTI", 2 * S + M, false},
      {"a transaction cut short", kSet + kMulti + cut, 0, 0, AofScan::kInvalid, S, 8,
       "Unexpected end of file inside a command", S + M, false},
      {"MULTI inside MULTI", kMulti + kMulti + kExec, 0, 0, AofScan::kInvalid, 0, 1,
       "Unexpected MULTI", M, false},
      {"EXEC without MULTI", kSet + kExec, 0, 0, AofScan::kInvalid, S, 8, "Unexpected EXEC", S,
       false},
      {"timestamps not looked at without a time", "#TS:oops\r\n" + kSet, 0, 0, AofScan::kValid,
       10 + S, 9, "", 0, false},
      {"cut at the first later timestamp", ts + kSet + "#TS:1628217472\r\n" + kSet, 0, 1628217471,
       AofScan::kTimestampCut, 16 + S, 9, "", 0, false},
      {"no later timestamp", ts + kSet, 0, 1628217471, AofScan::kValid, 16 + S, 9, "", 0, false},
      {"a later timestamp first", ts + kSet, 0, 1628217470, AofScan::kTimestampCut, 0, 1, "", 0,
       false},
      {"a later timestamp inside a transaction cuts before it",
       kSet + kMulti + "#TS:1628217472\r\n" + kExec, 0, 1628217471, AofScan::kTimestampCut, S, 8,
       "", 0, false},
      {"a timestamp that is not a number", "#TS:12x\r\n" + kSet, 0, 5, AofScan::kBadTimestamp, 0, 1,
       "", 0, false},
  };
  for (const Case& c : cases) {
    AofScan s = tools::ScanAof(reinterpret_cast<const uint8_t*>(c.text.data()), c.text.size(),
                               c.start, c.to_timestamp);
    bool same =
        s.verdict == c.verdict && s.ok_up_to == c.ok_up_to && s.line == c.line &&
        (c.verdict != AofScan::kInvalid ||
         (s.error == c.error && s.error_at == c.error_at && s.format_error == c.format_error));
    if (!same) {
      fprintf(stderr,
              "  case '%s': verdict %d ok_up_to %llu line %llu error '%s' at %llu format %d\n",
              c.name, static_cast<int>(s.verdict), static_cast<unsigned long long>(s.ok_up_to),
              static_cast<unsigned long long>(s.line), s.error.c_str(),
              static_cast<unsigned long long>(s.error_at), s.format_error ? 1 : 0);
    }
    CHECK(same);
  }
}
