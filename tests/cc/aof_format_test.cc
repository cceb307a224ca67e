// AOF formats: the manifest (round trip, every error Valkey names), the command reader's
// verdicts at every cut point, and the data set written as commands read back.
#include "persist/aof_format.h"

#include <string>
#include <vector>

#include "check.h"

namespace {

using persist::AofManifest;
using persist::AofReader;

std::string Cmd(std::vector<std::string> argv) {
  std::string s = "*" + std::to_string(argv.size()) + "\r\n";
  for (auto& a : argv) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

std::vector<std::vector<std::string>> ReadAll(const std::string& in, AofReader::Status* last,
                                              size_t* pos) {
  AofReader r(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  std::vector<std::vector<std::string>> out;
  while (true) {
    AofReader::Status s = r.Next();
    if (s != AofReader::kCommand) {
      *last = s;
      *pos = s == AofReader::kBadFormat ? r.error_offset() : r.pos();
      return out;
    }
    std::vector<std::string> c;
    for (auto a : r.argv()) c.emplace_back(a);
    out.push_back(c);
  }
}

}  // namespace

TEST_CASE(AofManifestRoundTrip) {
  std::string text =
      "file appendonly.aof.2.base.rdb seq 2 type b\n"
      "file appendonly.aof.1.base.rdb seq 1 type h\n"
      "file appendonly.aof.3.incr.aof seq 3 type i\n"
      "file appendonly.aof.4.incr.aof seq 4 type i\n";
  AofManifest m;
  std::string err;
  CHECK(persist::ParseAofManifest(text, &m, &err));
  CHECK(m.has_base);
  CHECK_EQ(m.base.name, std::string("appendonly.aof.2.base.rdb"));
  CHECK_EQ(m.base_seq, 2);
  CHECK_EQ(m.incr.size(), 2u);
  CHECK_EQ(m.incr_seq, 4);
  CHECK_EQ(m.history.size(), 1u);
  CHECK_EQ(persist::FormatAofManifest(m), text);
  // Comments and unknown pairs are skipped; quoted names are read and written back quoted.
  CHECK(persist::ParseAofManifest(
      "# a comment\nfile \"my file.aof\" seq 1 type i extra value\n", &m, &err));
  CHECK_EQ(m.incr[0].name, std::string("my file.aof"));
  CHECK_EQ(persist::FormatAofManifest(m), std::string("file \"my file.aof\" seq 1 type i\n"));
}

TEST_CASE(AofManifestErrors) {
  struct Case {
    const char* text;
    const char* err;
  } cases[] = {
      {"file a seq 1\n", "Invalid AOF manifest file format"},
      {"file a seq 1 type\n", "Invalid AOF manifest file format"},
      {"file a seq x type i\n", "Invalid AOF manifest file format"},
      {"file a seq 0 type i\n", "Invalid AOF manifest file format"},
      {"file ../a seq 1 type i\n", "File can't be a path, just a filename"},
      {"\n", "Invalid AOF manifest file format"},
      {"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
      {"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number"},
      {"file a seq 1 type z\n", "Unknown AOF file type"},
      {"", "Found an empty AOF manifest"},
      {"file a seq 1 type i", "The AOF manifest file contains too long line"},
  };
  for (auto& c : cases) {
    AofManifest m;
    std::string err;
    CHECK(!persist::ParseAofManifest(c.text, &m, &err));
    CHECK_EQ(err, std::string(c.err));
  }
  // Comments count as lines: a manifest of comments names no file and is not empty.
  AofManifest none;
  std::string e2;
  CHECK(persist::ParseAofManifest("# nothing\n", &none, &e2));
  CHECK(!none.has_base && none.incr.empty());
  // Keys in any case; seq read like atoll; the type's first character.
  CHECK(persist::ParseAofManifest("FILE a SEQ 7x TYPE incr\n", &none, &e2));
  CHECK_EQ(none.incr_seq, 7);
  persist::ManifestErrorAt where;
  CHECK(!persist::ParseAofManifest("# c\nfile a seq 1 type b\nfile b seq 2 type b\n", &none, &e2,
                                   &where));
  CHECK_EQ(where.line, 3);
  CHECK_EQ(where.text, std::string("file b seq 2 type b"));
  std::string long_line = "file " + std::string(1100, 'a') + " seq 1 type i\n";
  AofManifest m;
  std::string err;
  CHECK(!persist::ParseAofManifest(long_line, &m, &err));
  CHECK_EQ(err, std::string("The AOF manifest file contains too long line"));
}

TEST_CASE(AofReaderVerdictsAtEveryCut) {
  std::string stream = "#TS:1700000000\r\n" + Cmd({"SELECT", "0"}) + Cmd({"SET", "k", "v"}) +
                       Cmd({"RPUSH", "l", "", "a\r\nb"});
  AofReader::Status st;
  size_t pos;
  auto all = ReadAll(stream, &st, &pos);
  CHECK(st == AofReader::kEnd);
  CHECK_EQ(all.size(), 3u);
  CHECK(all[2] == (std::vector<std::string>{"RPUSH", "l", "", "a\r\nb"}));
  // Every proper prefix is a truncation at the end of the last whole command (or an end
  // exactly at a command boundary).
  std::vector<size_t> bounds = {0, 16};
  bounds.push_back(bounds.back() + Cmd({"SELECT", "0"}).size());
  bounds.push_back(bounds.back() + Cmd({"SET", "k", "v"}).size());
  for (size_t cut = 0; cut < stream.size(); cut++) {
    ReadAll(stream.substr(0, cut), &st, &pos);
    size_t want = 0;
    for (size_t b : bounds)
      if (b <= cut) want = b;
    bool boundary = false;
    for (size_t b : bounds) boundary |= b == cut;
    if (boundary) {
      CHECK(st == AofReader::kEnd);
    } else {
      CHECK(st == AofReader::kTruncated);
      CHECK_EQ(pos, want);
    }
  }
}

TEST_CASE(AofReaderBadFormat) {
  struct Case {
    std::string in;
    size_t offset;
  } cases[] = {
      {Cmd({"SET", "a", "1"}) + "GARBAGE\r\n", 27},
      {"*0\r\n", 0},
      {"*-1\r\n", 0},
      {"*x\r\n", 0},
      {"*1\r\n:5\r\n", 4},
      {"*1\r\n$-1\r\n", 4},
      {"*1\r\n$3\r\nabcXY", 11},
  };
  for (auto& c : cases) {
    AofReader::Status st;
    size_t pos;
    ReadAll(c.in, &st, &pos);
    CHECK(st == AofReader::kBadFormat);
    CHECK_EQ(pos, c.offset);
  }
}

TEST_CASE(AofKeyAsCommands) {
  persist::Value h;
  h.kind = persist::Kind::kHash;
  for (int i = 0; i < 70; i++) h.pairs.push_back({"f" + std::to_string(i), "v"});
  std::string out;
  persist::AppendKeyAsCommands(&out, "h", h, 1800000000000LL);
  AofReader::Status st;
  size_t pos;
  auto cmds = ReadAll(out, &st, &pos);
  CHECK(st == AofReader::kEnd);
  CHECK_EQ(cmds.size(), 3u);  // 64 + 6 fields, then the expire
  CHECK_EQ(cmds[0][0], std::string("HMSET"));
  CHECK_EQ(cmds[0].size(), 2u + 128u);
  CHECK_EQ(cmds[1].size(), 2u + 12u);
  CHECK(cmds[2] == (std::vector<std::string>{"PEXPIREAT", "h", "1800000000000"}));
  persist::Value z;
  z.kind = persist::Kind::kZSet;
  z.zelems = {{"a", 1.5}, {"b", -0.0}, {"c", 1e300}};
  out.clear();
  persist::AppendKeyAsCommands(&out, "z", z, -1);
  cmds = ReadAll(out, &st, &pos);
  CHECK_EQ(cmds.size(), 1u);
  CHECK(cmds[0] == (std::vector<std::string>{"ZADD", "z", "1.5", "a", "-0", "b", "1e+300", "c"}));
}
