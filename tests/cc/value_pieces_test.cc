// Big values in pieces: the pieces of each type rebuild the value exactly, and which writes are
// right on a value the target holds only in part (one row per command and type).
#include "cluster/value_pieces.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/util.h"
#include "check.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/zset.h"

namespace {

using namespace cluster;

// Runs the pieces of `from` (each command checked for its key and name) into maps that say
// what the target would hold.
struct Rebuilt {
  std::string str;
  std::vector<std::string> list;
  std::map<std::string, std::string> hash;
  std::set<std::string> set;
  std::map<std::string, double> zset;
  size_t pieces = 0, max_elements = 0;
  bool in_order = true;  // sorted set pieces came in (score, member) order
};

Rebuilt Rebuild(db::Obj* from, size_t max_elements, size_t max_bytes) {
  Rebuilt r;
  PieceCursor cur;
  std::vector<std::string> argv;
  double last_score = 0;
  std::string last_member;
  while (NextPiece(from, &cur, max_elements, max_bytes, &argv)) {
    r.pieces++;
    if (argv.size() < 3 || argv[1] != from->key()) return r;
    const std::string& cmd = argv[0];
    size_t n = 0;
    if (cmd == "SET") r.str = argv[2];
    if (cmd == "APPEND") r.str += argv[2];
    for (size_t i = 2; i < argv.size(); i++, n++) {
      if (cmd == "RPUSH") r.list.push_back(argv[i]);
      if (cmd == "SADD") r.set.insert(argv[i]);
      if (cmd == "HSET") r.hash[argv[i]] = argv[i + 1], i++;
      if (cmd == "ZADD") {
        double s;
        base::ParseDouble(argv[i], &s);
        if (!r.zset.empty() && (s < last_score || (s == last_score && argv[i + 1] <= last_member)))
          r.in_order = false;
        last_score = s;
        last_member = argv[i + 1];
        r.zset[argv[i + 1]] = s;
        i++;
      }
    }
    r.max_elements = std::max(r.max_elements, n);
  }
  return r;
}

// One big value of each container type: members m0..m<n-1> (the list in that order, hash
// values v<i>, scores Score(i)), freed at the end.
double Score(size_t i) { return i % 3 == 0 ? 1.0 / 3 + i : (i % 3 == 1 ? -1e300 * i : 1e-7); }
struct BigValues {
  db::Obj *h, *s, *z, *l;
  explicit BigValues(size_t n)
      : h(db::NewHash("h")), s(db::NewSet("s", "m0", n)), z(db::NewZSet("z", n, 8)),
        l(db::NewList("l")) {
    for (size_t i = 0; i < n; i++) {
      std::string k = "m" + std::to_string(i);
      db::HashSet(h, k, "v" + std::to_string(i));
      db::SetAdd(s, k);
      db::ZSetScore(z, k, Score(i));
      db::ListPush(l, k, false);
    }
  }
  ~BigValues() {
    for (db::Obj* o : all()) db::FreeObj(o);
  }
  std::vector<db::Obj*> all() const { return {h, s, z, l}; }
};

TEST_CASE(ValuePiecesRebuildEachType) {
  const size_t kN = 5000;
  BigValues v(kN);
  std::map<std::string, std::string> hash;
  std::set<std::string> set;
  std::map<std::string, double> zset;
  std::vector<std::string> list;
  for (size_t i = 0; i < kN; i++) {
    std::string k = "m" + std::to_string(i);
    hash[k] = "v" + std::to_string(i);
    set.insert(k);
    zset[k] = Score(i);
    list.push_back(k);
  }
  for (db::Obj* o : v.all()) CHECK(SentInPieces(o));
  Rebuilt rh = Rebuild(v.h, 100, 1 << 20), rs = Rebuild(v.s, 100, 1 << 20),
          rz = Rebuild(v.z, 100, 1 << 20), rl = Rebuild(v.l, 100, 1 << 20);
  CHECK(rh.hash == hash);
  CHECK(rs.set == set);
  CHECK(rz.zset == zset);  // scores exactly, through their text
  CHECK(rz.in_order);      // in the set's order, each piece after the last
  CHECK(rl.list == list);  // in order
  // Bounded pieces (a scan step is a bucket: a few elements over the bound at most).
  CHECK(rh.pieces >= kN / 110 && rh.max_elements <= 2 * 100 + 16);
  CHECK(rz.max_elements <= 100 + 16);
  CHECK_EQ(rl.max_elements, size_t{100});
  CHECK_EQ(rl.pieces, kN / 100);
  // By bytes too: 1 KB pieces of a list of 2-5 byte elements.
  Rebuilt small = Rebuild(v.l, 100000, 1024);
  CHECK(small.list == list);
  CHECK(small.max_elements < 600);
}

TEST_CASE(ValuePiecesSortedSetCursorSurvivesChanges) {
  // Between pieces, an element already sent goes and one is added behind the cursor (their
  // writes are forwarded): every element there throughout is still sent.
  BigValues v(3000);
  PieceCursor cur;
  std::vector<std::string> argv;
  std::set<std::string> sent, removed;
  size_t added = 0;
  while (NextPiece(v.z, &cur, 100, 1 << 20, &argv)) {
    for (size_t i = 3; i < argv.size(); i += 2) sent.insert(argv[i]);
    removed.insert(argv[3]);
    db::ZRemove(v.z, argv[3]);
    db::ZSetScore(v.z, "new" + std::to_string(added++), -1e308);
  }
  CHECK(added >= 30);
  for (size_t i = 0; i < 3000; i++) CHECK(sent.count("m" + std::to_string(i)));
  CHECK(!sent.count("new0"));  // behind the cursor: its own forwarded ZADD brings it
}

TEST_CASE(ValuePiecesString) {
  std::string big(kPiecesStringBytes + 12345, 'x');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + i % 26);
  db::Obj* o = db::NewString("k", big);
  CHECK(SentInPieces(o));
  Rebuilt r = Rebuild(o, 1000, 256 * 1024);
  CHECK(r.str == big);
  CHECK_EQ(r.pieces, size_t{5});  // SET, then APPEND x4 (the last one short)
  db::FreeObj(o);
  db::Obj* small = db::NewString("k", std::string(kPiecesStringBytes, 'y'));
  CHECK(!SentInPieces(small));
  db::FreeObj(small);
}

TEST_CASE(ValuePiecesNotForSmallValues) {
  db::Obj* h = db::NewHash("h");
  for (size_t i = 0; i < kPiecesElements; i++) db::HashSet(h, std::to_string(i), "v");
  CHECK(!SentInPieces(h));
  db::HashSet(h, "one-more", "v");
  CHECK(SentInPieces(h));
  db::FreeObj(h);
}

TEST_CASE(ValuePiecesRemovedInPieces) {
  // Each removal is the command that does the same to a replica's copy; the pieces end with an
  // empty value.
  const size_t kN = 3000;
  BigValues v(kN);
  std::vector<std::string> argv;
  for (db::Obj* o : v.all()) {
    PieceCursor cur;
    std::set<std::string> removed;
    size_t pieces = 0;
    while (RemovePiece(o, &cur, 500, &argv)) {
      pieces++;
      CHECK(argv.size() >= 3 && argv[1] == o->key());
      if (argv[0] == "HDEL" || argv[0] == "SREM") {
        CHECK(argv.size() <= 2 + 500 + 16);
        for (size_t i = 2; i < argv.size(); i++) removed.insert(argv[i]);
      } else if (argv[0] == "ZREMRANGEBYRANK") {
        CHECK_EQ(argv[2], std::string("0"));
        CHECK_EQ(argv[3], std::string("499"));
      } else {
        CHECK_EQ(argv[0], std::string("LTRIM"));
        CHECK_EQ(argv[2], std::string("500"));
        CHECK_EQ(argv[3], std::string("-1"));
      }
    }
    CHECK(argv.empty());
    CHECK(pieces >= kN / 516);
    if (o == v.h || o == v.s) CHECK_EQ(removed.size(), kN);
  }
  CHECK_EQ(db::HashLen(v.h), size_t{0});
  CHECK_EQ(db::SetLen(v.s), size_t{0});
  CHECK_EQ(db::ZLen(v.z), size_t{0});
  CHECK_EQ(db::ListLen(v.l), size_t{0});
  db::Obj* str = db::NewString("k", "v");
  PieceCursor cur;
  CHECK(!RemovePiece(str, &cur, 10, &argv));  // freed whole
  db::FreeObj(str);
}

struct PartRow {
  const char* command;  // its arguments after the key, space-separated
  db::Type type;
  bool right;
};

TEST_CASE(ValuePiecesRightOnPartRows) {
  const PartRow rows[] = {
      // the whole key or its expire: any type
      {"DEL", db::kList, true},
      {"unlink", db::kString, true},
      {"PEXPIREAT 100", db::kZSet, true},
      {"persist", db::kHash, true},
      // named elements
      {"HSET f v", db::kHash, true},
      {"hincrbyfloat f 1.5", db::kHash, true},
      {"HINCRBY f 1", db::kHash, true},  // a hash goes by scan cursor: a field sent later is
                                         // sent with its value of then
      {"HDEL f", db::kHash, true},
      {"SADD m", db::kSet, true},
      {"SREM m", db::kSet, true},
      {"ZADD 1 m", db::kZSet, true},
      {"ZADD NX CH 1 m", db::kZSet, true},
      {"zadd gt 1 m", db::kZSet, true},
      {"ZREM m", db::kZSet, true},
      {"ZREMRANGEBYSCORE 1 2", db::kZSet, true},
      {"ZREMRANGEBYLEX [a [b", db::kZSet, true},
      // a sorted set goes in its order: relative or conditional updates are wrong on a part
      {"ZINCRBY 2 m", db::kZSet, false},
      {"ZADD INCR 2 m", db::kZSet, false},
      {"ZADD XX 2 m", db::kZSet, false},
      {"zadd gt xx ch 2 m", db::kZSet, false},
      {"ZADD 1 xx", db::kZSet, true},  // a member named xx, not the option
      // by position or rank, or the whole value: wrong on a part
      {"ZPOPMIN", db::kZSet, false},
      {"ZREMRANGEBYRANK 0 1", db::kZSet, false},
      {"SPOP", db::kSet, false},
      {"RPUSH e", db::kList, false},
      {"LPOP", db::kList, false},
      {"LSET 0 e", db::kList, false},
      {"APPEND s", db::kString, false},
      {"SETRANGE 0 s", db::kString, false},
      {"SET v", db::kString, false},
      {"SET v", db::kHash, false},
      {"RESTORE 0 payload", db::kZSet, false},
      // an element command of another type (the key was replaced)
      {"HSET f v", db::kZSet, false},
      {"SADD m", db::kHash, false},
  };
  for (const PartRow& r : rows) {
    std::vector<std::string> words;
    std::string c = r.command;
    for (size_t i = 0; i <= c.size();) {
      size_t j = c.find(' ', i);
      if (j == std::string::npos) j = c.size();
      words.push_back(c.substr(i, j - i));
      i = j + 1;
    }
    words.insert(words.begin() + 1, "key");
    std::vector<std::string_view> argv(words.begin(), words.end());
    if (RightOnPart(argv, r.type) != r.right)
      fprintf(stderr, "  row %s type %d\n", r.command, static_cast<int>(r.type));
    CHECK_EQ(RightOnPart(argv, r.type), r.right);
  }
}

}  // namespace

TEST_CASE(ValuePiecesSizeHintSizesTheTableAtOnce) {
  // The first piece made a small value; the hint of its full size converts it and sizes its
  // table for all of it: no doubling (and no rehash) while the rest comes.
  BigValues big(3000);
  CHECK_EQ(TableElements(big.h), size_t{3000});
  CHECK_EQ(TableElements(big.s), size_t{3000});
  CHECK_EQ(TableElements(big.z), size_t{3000});
  CHECK_EQ(TableElements(big.l), size_t{0});  // a list has no table
  BigValues v(3);
  db::HashReserveFields(v.h, 3000);
  db::SetReserveMembers(v.s, 3000);
  db::ZReserveMembers(v.z, 3000);
  CHECK(v.h->enc() == db::kEncHashtable && v.s->enc() == db::kEncHashtable &&
        v.z->enc() == db::kEncSkiplist);
  for (size_t i = 3; i < 3000; i++) {
    std::string k = "m" + std::to_string(i);
    db::HashSet(v.h, k, "v");
    db::SetAdd(v.s, k);
    db::ZSetScore(v.z, k, 1);
  }
  ds::HtStats hs, ss, zs, rehashing;
  CHECK(db::HashTableStats(v.h, 0, false, &hs) && db::SetTableStats(v.s, 0, false, &ss) &&
        db::ZSetTableStats(v.z, 0, false, &zs));
  CHECK_EQ(hs.size, size_t{4096});
  CHECK_EQ(ss.size, size_t{4096});
  CHECK_EQ(zs.size, size_t{4096});
  CHECK_EQ(hs.used + ss.used + zs.used, size_t{9000});
  CHECK(!db::ZSetTableStats(v.z, 1, false, &rehashing));  // never rehashed
  // A hint a compact encoding holds changes nothing.
  BigValues w(3);
  db::ZReserveMembers(w.z, 10);
  db::HashReserveFields(w.h, 10);
  CHECK(w.z->enc() == db::kEncListpack && w.h->enc() == db::kEncListpack);
}
