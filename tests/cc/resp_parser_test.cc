// RESP request parser: every split point of a pipelined stream parses the same; errors.
#include "net/resp_parser.h"

#include <string>
#include <vector>

#include "check.h"

namespace {
using Cmds = std::vector<std::vector<std::string>>;

// Feeds `stream` in pieces cut at the given points, as a client buffer would grow, dropping
// consumed bytes like the server does. Returns the commands, or sets *err.
Cmds FeedSplit(const std::string& stream, const std::vector<size_t>& cuts, std::string* err) {
  net::RequestParser p;
  net::ParserLimits lim;
  std::string buf;
  size_t pos = 0, fed = 0;
  Cmds out;
  std::vector<size_t> points = cuts;
  points.push_back(stream.size());
  for (size_t cut : points) {
    buf.append(stream, fed, cut - fed);
    fed = cut;
    while (true) {
      auto st = p.Parse(buf.data(), buf.size(), &pos, lim);
      if (st == net::RequestParser::kNeedMore) break;
      if (st == net::RequestParser::kError) {
        *err = p.error();
        return out;
      }
      if (st == net::RequestParser::kCommand) {
        std::vector<std::string> c;
        for (auto a : p.args()) c.emplace_back(a);
        out.push_back(c);
      }
    }
    buf.erase(0, pos);
    p.Shift(pos);
    pos = 0;
  }
  return out;
}

std::string Parse1(const std::string& s, Cmds* out) {
  std::string err;
  *out = FeedSplit(s, {}, &err);
  return err;
}
}  // namespace

TEST_CASE(RespEverySplitPointParsesTheSame) {
  std::string stream =
      "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n"
      "PING\r\n"
      "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"
      "set \"a b\" 'c\\'d'\n"
      "\r\n"
      "*0\r\n"
      "*1\r\n$4\r\nPING\r\n";
  std::string err;
  Cmds whole = FeedSplit(stream, {}, &err);
  CHECK(err.empty());
  CHECK_EQ(whole.size(), 5u);
  CHECK_EQ(whole[0][2], std::string("va\r\nl"));
  CHECK_EQ(whole[2][1], std::string(""));
  CHECK_EQ(whole[3][1], std::string("a b"));
  CHECK_EQ(whole[3][2], std::string("c'd"));
  for (size_t i = 1; i < stream.size(); i++) {
    Cmds one = FeedSplit(stream, {i}, &err);
    CHECK(err.empty());
    CHECK(one == whole);
    for (size_t j = i + 1; j < stream.size(); j += 7) {
      Cmds two = FeedSplit(stream, {i, j}, &err);
      CHECK(err.empty());
      CHECK(two == whole);
    }
  }
  // Byte by byte.
  std::vector<size_t> all;
  for (size_t i = 1; i < stream.size(); i++) all.push_back(i);
  CHECK(FeedSplit(stream, all, &err) == whole);
}

TEST_CASE(RespProtocolErrors) {
  Cmds c;
  CHECK_EQ(Parse1("*x\r\n", &c), std::string("Protocol error: invalid multibulk length"));
  CHECK_EQ(Parse1("*1\r\n$x\r\n", &c), std::string("Protocol error: invalid bulk length"));
  CHECK_EQ(Parse1("*1\r\n$-1\r\n", &c), std::string("Protocol error: invalid bulk length"));
  CHECK_EQ(Parse1("*1\r\nfoo\r\n", &c), std::string("Protocol error: expected '$', got 'f'"));
  CHECK_EQ(Parse1("*1\r\n$999999999999\r\n", &c),
           std::string("Protocol error: invalid bulk length"));
  CHECK_EQ(Parse1("*3000000000\r\n", &c), std::string("Protocol error: invalid multibulk length"));
  CHECK_EQ(Parse1("set \"abc\n", &c), std::string("Protocol error: unbalanced quotes in request"));
  CHECK_EQ(Parse1("set \"a\"b\n", &c), std::string("Protocol error: unbalanced quotes in request"));
  CHECK_EQ(Parse1(std::string(70000, 'a'), &c),
           std::string("Protocol error: too big inline request"));
  CHECK_EQ(Parse1("*" + std::string(70000, '1'), &c),
           std::string("Protocol error: too big mbulk count string"));
  CHECK_EQ(Parse1("*1\r\n$" + std::string(70000, '1'), &c),
           std::string("Protocol error: too big bulk count string"));
}

// Length lines around the parser's fast path for "<digits>\r\n" (no leading zero, up to 18
// digits): each outcome recorded from Valkey 8.0.1 (raw bytes, its reply), and the same when
// the stream is cut anywhere.
TEST_CASE(RespLengthLinesAsValkeyReadsThem) {
  const std::string kMb = "Protocol error: invalid multibulk length";
  const std::string kBulk = "Protocol error: invalid bulk length";
  struct Row {
    std::string in, err;
    Cmds cmds;
  };
  const std::vector<Row> rows = {
      {"*1\r\n$4\r\nPING\r\n", "", {{"PING"}}},
      {"*01\r\n$4\r\nPING\r\n", kMb, {}},
      {"*1\r\n$04\r\nPING\r\n", kBulk, {}},
      {"*1\r\n$+4\r\nPING\r\n", kBulk, {}},
      {"*+1\r\n$4\r\nPING\r\n", kMb, {}},
      {"*1\r\n$4\rxPING\r\n", "", {{"PING"}}},        // the byte after '\r' is not looked at
      {"*1\r\n$100000000000000000\r\n", kBulk, {}},   // 18 digits
      {"*1\r\n$1000000000000000000\r\n", kBulk, {}},  // 19
      {"*1\r\n$999999999999999999\r\n", kBulk, {}},
      {"*100000000000000000\r\n", kMb, {}},
      {"*2\r\n$4\r\nECHO\r\n$-0\r\n", kBulk, {}},
      {"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "", {{"ECHO", ""}}},
      {"*2\r\n$4\r\nECHO\r\n$00\r\n\r\n", kBulk, {}},
      {"*0\r\n*1\r\n$4\r\nPING\r\n", "", {{"PING"}}},
      {"*-1\r\n*1\r\n$4\r\nPING\r\n", "", {{"PING"}}},
      {"*1\r\n$4 \r\nPING\r\n", kBulk, {}},
      {"*1 \r\n$4\r\nPING\r\n", kMb, {}},
      {"*1\r\n$4\r\r\nPING\r\n", "", {{"\nPIN"}}},
  };
  for (const Row& r : rows) {
    for (size_t cut = 0; cut < r.in.size(); cut++) {
      std::string err;
      Cmds got = FeedSplit(r.in, cut ? std::vector<size_t>{cut} : std::vector<size_t>{}, &err);
      if (err != r.err || got != r.cmds)
        fprintf(stderr, "  row %s, cut at %zu\n", r.in.c_str(), cut);
      CHECK_EQ(err, r.err);
      CHECK(got == r.cmds);
    }
  }
}

TEST_CASE(RespUnauthenticatedLimits) {
  net::RequestParser p;
  net::ParserLimits lim;
  lim.unauthenticated = true;
  std::string s = "*11\r\n";
  size_t pos = 0;
  CHECK(p.Parse(s.data(), s.size(), &pos, lim) == net::RequestParser::kError);
  CHECK_EQ(p.error(), std::string("Protocol error: unauthenticated multibulk length"));
  net::RequestParser q;
  s = "*1\r\n$20000\r\n";
  pos = 0;
  CHECK(q.Parse(s.data(), s.size(), &pos, lim) == net::RequestParser::kError);
  CHECK_EQ(q.error(), std::string("Protocol error: unauthenticated bulk length"));
}

TEST_CASE(RespInlineEscapes) {
  std::vector<std::string> out;
  CHECK(net::SplitArgs("set k \"\\x41\\n\\t\"", &out));
  CHECK_EQ(out.size(), 3u);
  CHECK_EQ(out[2], std::string("A\n\t"));
  CHECK(net::SplitArgs("   ", &out));
  CHECK(out.empty());
  CHECK(!net::SplitArgs("'abc", &out));
}

namespace {
std::string S(const char* p, size_t n) { return std::string(p, n); }
}  // namespace

// Valkey 8 finds the end of an inline line and of a multibulk length line with strchr, so a
// NUL byte before the newline (or '\r') hides it: the request never completes and waits for
// more input until the pending bytes pass 64 KB, then it is a "too big" protocol error.
TEST_CASE(RespNulByteHidesTheEndOfLine) {
  Cmds c;
  std::string err;
  // Inline: nothing is executed, not even what follows the line.
  c = FeedSplit(S("SET a b\0c\r\nPING\r\n", 17), {}, &err);
  CHECK(err.empty());
  CHECK(c.empty());
  c = FeedSplit(S("\0\r\n", 3), {}, &err);
  CHECK(err.empty());
  CHECK(c.empty());
  // A NUL after the newline belongs to the next request.
  c = FeedSplit(S("PING\r\n\0", 7), {}, &err);
  CHECK(err.empty());
  CHECK_EQ(c.size(), 1u);
  CHECK_EQ(c[0][0], std::string("PING"));
  // The stuck line turns into the inline size error once more than 64 KB are pending.
  std::string stuck = S("SET a b\0c\r\n", 11);
  CHECK_EQ(Parse1(stuck + std::string(65536 - stuck.size(), 'x'), &c), std::string());
  CHECK_EQ(Parse1(stuck + std::string(65537 - stuck.size(), 'x'), &c),
           std::string("Protocol error: too big inline request"));
  // Multibulk count and bulk length lines.
  c = FeedSplit(S("*1\0\r\n$4\r\nPING\r\n", 15), {}, &err);
  CHECK(err.empty());
  CHECK(c.empty());
  c = FeedSplit(S("*1\r\n$4\0\r\nPING\r\n", 15), {}, &err);
  CHECK(err.empty());
  CHECK(c.empty());
  CHECK_EQ(Parse1(S("*1\0\r\n", 5) + std::string(70000, 'x'), &c),
           std::string("Protocol error: too big mbulk count string"));
  CHECK_EQ(Parse1(S("*1\r\n$4\0\r\n", 9) + std::string(70000, 'x'), &c),
           std::string("Protocol error: too big bulk count string"));
  // Bulk payloads are binary safe.
  c = FeedSplit(S("*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\n", 23), {}, &err);
  CHECK(err.empty());
  CHECK_EQ(c.size(), 1u);
  CHECK_EQ(c[0][1], S("a\0b", 3));
}

// sdssplitargs reads a C string: a NUL ends the line, also inside quotes (then unterminated).
TEST_CASE(RespSplitArgsStopsAtNul) {
  std::vector<std::string> out;
  CHECK(net::SplitArgs(S("set a b\0c", 9), &out));
  CHECK(out == std::vector<std::string>({"set", "a", "b"}));
  CHECK(net::SplitArgs(S("set a \0 c", 9), &out));
  CHECK(out == std::vector<std::string>({"set", "a"}));
  CHECK(net::SplitArgs(S("\0set a", 6), &out));
  CHECK(out.empty());
  CHECK(!net::SplitArgs(S("set \"a\0b\"", 9), &out));
  CHECK(!net::SplitArgs(S("set 'a\0'", 8), &out));
  CHECK(!net::SplitArgs(S("set \"a\\\0\"", 9), &out));
  CHECK(net::SplitArgs(S("set \"ab\"\0zz", 11), &out));
  CHECK(out == std::vector<std::string>({"set", "ab"}));
}

TEST_CASE(RespPartialArgsBytes) {
  net::RequestParser p;
  net::ParserLimits lim;
  std::string s = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nva";
  size_t pos = 0;
  CHECK_EQ(p.PartialArgsBytes(), 0u);
  CHECK(p.Parse(s.data(), s.size(), &pos, lim) == net::RequestParser::kNeedMore);
  CHECK_EQ(p.PartialArgsBytes(), 4u);  // SET and k are complete, the value is not
  s += "lue\r\n";
  CHECK(p.Parse(s.data(), s.size(), &pos, lim) == net::RequestParser::kCommand);
  CHECK_EQ(p.PartialArgsBytes(), 0u);
}

TEST_CASE(RespTrimBetweenCommandsKeepsAnUnfinishedCommand) {
  net::RequestParser p;
  net::ParserLimits lim;
  std::string s = "*2001\r\n$4\r\nMSET\r\n";
  for (int i = 0; i < 1000; i++) s += "$1\r\nk\r\n$1\r\nv\r\n";
  size_t pos = 0;
  CHECK(p.Parse(s.data(), s.size(), &pos, lim) == net::RequestParser::kCommand);
  CHECK_EQ(p.args().size(), 2001u);
  // Between commands the arrays' room goes back.
  p.TrimBetweenCommands(1024);
  CHECK(p.args().empty());
  // Halfway through a command nothing moves: the rest parses as if no trim had come.
  std::string t = "*3\r\n$3\r\nSET\r\n$1\r\nk";
  size_t tpos = 0;
  CHECK(p.Parse(t.data(), t.size(), &tpos, lim) == net::RequestParser::kNeedMore);
  p.TrimBetweenCommands(0);
  t += "\r\n$3\r\nval\r\n";
  CHECK(p.Parse(t.data(), t.size(), &tpos, lim) == net::RequestParser::kCommand);
  CHECK(p.args() == std::vector<std::string_view>({"SET", "k", "val"}));
}

// PeekCommand (the pipeline's look-ahead) finds a whole command's second argument and its end
// exactly where the parser ends it, and says no to anything partial or unusual.
TEST_CASE(PeekCommandSeesWholeCommandsOnly) {
  const std::string get = "*2\r\n$3\r\nGET\r\n$5\r\nkey:1\r\n";
  const std::string set = "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$3\r\nabc\r\n";
  const std::string buf = get + set + "PING\r\n";
  std::string_view arg;
  size_t next = 0;
  CHECK(net::PeekCommand(buf.data(), buf.size(), 0, &arg, &next));
  CHECK(arg == "key:1");
  CHECK_EQ(next, get.size());
  CHECK(net::PeekCommand(buf.data(), buf.size(), next, &arg, &next));
  CHECK(arg.empty());  // SET's empty key
  CHECK_EQ(next, get.size() + set.size());
  CHECK(!net::PeekCommand(buf.data(), buf.size(), next, &arg, &next));  // inline
  // the parser ends each command where PeekCommand said
  net::RequestParser p;
  net::ParserLimits lim;
  size_t pos = 0;
  CHECK_EQ(p.Parse(buf.data(), buf.size(), &pos, lim), net::RequestParser::kCommand);
  CHECK_EQ(pos, get.size());
  // every prefix of a command is no command yet
  for (size_t n = 0; n < get.size(); n++)
    CHECK(!net::PeekCommand(get.data(), n, 0, &arg, &next));
  // one argument, more than 64, a negative or huge length, bad terminators
  for (const char* bad : {"*1\r\n$4\r\nPING\r\n", "*65\r\n", "*2\r\n$-1\r\n", "*-1\r\n",
                          "*2\r\n$3\r\nGET\n$1\r\nk\r\n", "*2\r\n$3\r\nGETxx$1\r\nk\r\n",
                          "*2\r\n$99999999999\r\nxx", "*2\r\n$3\r\nGET\r\n$1\r\nkk\r\n",
                          "*2\r\n$\r\n", "*\r\n", "$3\r\nGET\r\n"}) {
    std::string b = bad;
    if (net::PeekCommand(b.data(), b.size(), 0, &arg, &next)) {
      fprintf(stderr, "  accepted: %s\n", bad);
      CHECK(false);
    }
  }
}
