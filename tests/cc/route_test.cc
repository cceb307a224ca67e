// cluster::Route and RouteBlocked as tables of cases: the decision tables for a primary and for
// a replica, MULTI/EXEC, the precedence of the rules (route.h lists them), the cases verified on
// Valkey 8, blocked clients, and the reply texts.
#include "cluster/route.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "base/crc16.h"
#include "check.h"

namespace {

using cluster::BlockedInput;
using cluster::CommandTraits;
using cluster::FormatRedirect;
using cluster::kNoNode;
using cluster::NodeHandle;
using cluster::NodeView;
using cluster::Route;
using cluster::RouteBlocked;
using cluster::RouteDecision;
using cluster::RouteInput;
using cluster::RouteKind;
using cluster::SlotState;

// The reference setup: primaries A and B with replicas A' and B'; C is a third primary
// (another shard). The slot under test is 609, the slot of `aga` (and of every `{aga}...`).
constexpr NodeHandle kA = 1, kB = 2, kC = 3, kA1 = 11, kB1 = 12;
constexpr int kSlot = 609;
constexpr int kOtherSlot = 12182;  // slot of `foo`, owned by C in every row

const char* KindName(RouteKind k) {
  switch (k) {
    case RouteKind::kServe:
      return "Serve";
    case RouteKind::kMoved:
      return "Moved";
    case RouteKind::kAsk:
      return "Ask";
    case RouteKind::kTryAgain:
      return "TryAgain";
    case RouteKind::kCrossSlot:
      return "CrossSlot";
    case RouteKind::kDownUnbound:
      return "DownUnbound";
    case RouteKind::kDownState:
      return "DownState";
    case RouteKind::kDownReadOnly:
      return "DownReadOnly";
  }
  return "?";
}

// Which way(s) to run a row: the tables' "r/w" means the answer is the same for both.
enum Rw { kRead, kWrite, kBoth };

struct Row {
  const char* name;
  // This node: a primary (A by default) or a replica of my_primary.
  bool primary = true;
  NodeHandle me = kA;
  NodeHandle my_primary = kA;
  SlotState slot;  // state of slot 609 as this node sees it
  bool readonly = false, asking = false;
  Rw rw = kRead;
  CommandTraits cmd;  // `write` is set from rw
  std::vector<std::string_view> keys;
  std::vector<std::string_view> present;  // keys that exist in db 0
  bool cluster_ok = true, reads_when_down = false, pubsub_when_down = true;
  RouteKind want = RouteKind::kServe;
  NodeHandle want_target = kNoNode;
};

// Runs one row (once per write-ness it covers); reports every failing row by name.
void RunRow(const Row& r) {
  auto slot_state = [&](int s) {
    if (s == kSlot) return r.slot;
    if (s == kOtherSlot) return SlotState{.owner = kC};
    return SlotState{};
  };
  auto key_exists = [&](std::string_view k) {
    for (auto p : r.present)
      if (p == k) return true;
    return false;
  };
  for (int w = 0; w < 2; w++) {
    if ((w == 0 && r.rw == kWrite) || (w == 1 && r.rw != kWrite && r.rw != kBoth)) continue;
    CommandTraits cmd = r.cmd;
    cmd.write = w == 1;
    RouteInput in{.node = {.is_primary = r.primary,
                           .myself = r.me,
                           .my_primary = r.my_primary,
                           .cluster_ok = r.cluster_ok,
                           .allow_reads_when_down = r.reads_when_down,
                           .allow_pubsubshard_when_down = r.pubsub_when_down},
                  .slot_state = slot_state,
                  .key_exists = key_exists,
                  .client = {.readonly = r.readonly, .asking = r.asking},
                  .cmd = cmd,
                  .keys = r.keys};
    RouteDecision d = Route(in);
    if (d.kind != r.want || d.target != r.want_target ||
        (r.want != RouteKind::kServe && !r.keys.empty() && d.slot != base::KeySlot(r.keys[0]))) {
      fprintf(stderr, "  row \"%s\" (%s): got %s target %u slot %d, want %s target %u\n", r.name,
              w ? "write" : "read", KindName(d.kind), d.target, d.slot, KindName(r.want),
              r.want_target);
      check::failures++;
    }
  }
}

// FunctionRef binds only to lvalues (a temporary lambda would dangle) and copies trivially.
using ExistsRef = cluster::FunctionRef<bool(std::string_view)>;
auto kSomeLambda = [](std::string_view) { return true; };
static_assert(std::is_constructible_v<ExistsRef, decltype(kSomeLambda)&>);
static_assert(!std::is_constructible_v<ExistsRef, decltype(kSomeLambda)&&>);
static_assert(std::is_trivially_copyable_v<ExistsRef>);

// Keys of slot 609.
constexpr std::string_view k1 = "{aga}1", k2 = "{aga}2", aga = "aga";

TEST_CASE(route_key_slots_of_the_fixture) {
  CHECK_EQ(base::KeySlot("aga"), kSlot);
  CHECK_EQ(base::KeySlot(k1), kSlot);
  CHECK_EQ(base::KeySlot(k2), kSlot);
  CHECK_EQ(base::KeySlot("foo"), kOtherSlot);
}

// Slots recorded from Valkey 8.0.1's CLUSTER KEYSLOT: lengths around the eight-byte steps of
// the CRC, hashtags (an empty one does not count).
TEST_CASE(key_slots_match_valkey) {
  const struct {
    std::string_view key;
    int slot;
  } cases[] = {{"", 0},
               {"a", 15495},
               {"foo", 12182},
               {"bar", 5061},
               {"123456789", 12739},
               {"{user1000}.following", 3443},
               {"key:__rand_int__", 13782},
               {"0123456789abcdef", 10405},
               {"0123456789abcdefg", 1383},
               {"a much longer key of forty-one characters", 10947},
               {"{}", 15257},
               {"{}x", 10595},
               {"x{}y{z}", 15453}};
  for (const auto& c : cases) {
    if (base::KeySlot(c.key) != c.slot) fprintf(stderr, "  key '%s'\n", std::string(c.key).c_str());
    CHECK_EQ(base::KeySlot(c.key), c.slot);
  }
  CHECK_EQ(base::Crc16("123456789", 9), 0x31C3);  // CRC-16/XMODEM's check value
}

// The eight-bytes-at-a-time CRC equals the bit-by-bit definition at every length and
// alignment (pseudo-random bytes, all 256 values).
TEST_CASE(crc16_matches_its_bitwise_definition) {
  auto bitwise = [](const unsigned char* p, size_t n) {
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
      crc ^= static_cast<uint16_t>(p[i] << 8);
      for (int b = 0; b < 8; b++) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : (crc << 1);
    }
    return crc;
  };
  unsigned char buf[200];
  uint32_t x = 12345;
  for (auto& b : buf) {
    x = x * 1103515245 + 12345;
    b = static_cast<unsigned char>(x >> 16);
  }
  for (size_t off = 0; off < 8; off++)
    for (size_t n = 0; n + off <= sizeof(buf); n++)
      CHECK_EQ(base::Crc16(reinterpret_cast<const char*>(buf + off), n), bitwise(buf + off, n));
}

// The decision table for a primary: this node is primary A. READONLY makes no difference on a
// primary: every row also runs with it set (route_primary_table_readonly).
const std::vector<Row>& PrimaryRows() {
  static const std::vector<Row> rows = {
      {.name = "owned by me, stable: serve",
       .slot = {.owner = kA},
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k1}},
      {.name = "owned by other node O: MOVED O",
       .slot = {.owner = kC},
       .rw = kBoth,
       .keys = {k1},
       .want = RouteKind::kMoved,
       .want_target = kC},
      {.name = "owned by other node O, open there (we see it stable): MOVED O",
       .slot = {.owner = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .want = RouteKind::kMoved,
       .want_target = kB},
      {.name = "migrating -> T, all present: serve",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k1, k2}},
      {.name = "migrating -> T, single key present: serve",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1},
       .present = {k1}},
      {.name = "migrating -> T, all missing: ASK T",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "migrating -> T, all missing (MGET of two): ASK T",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "migrating -> T, multi-key some present some missing: TRYAGAIN",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k2},
       .want = RouteKind::kTryAgain},
      {.name = "migrating -> T, MIGRATE: serve",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1}},
      {.name = "migrating -> T, shard pubsub: serve",
       .slot = {.owner = kA, .migrating_to = kB},
       .cmd = {.pubsub = true},
       .keys = {k1}},
      {.name = "importing <- S, no ASKING: MOVED S",
       .slot = {.owner = kC, .importing_from = kC},
       .rw = kBoth,
       .keys = {k1},
       .present = {k1},
       .want = RouteKind::kMoved,
       .want_target = kC},
      {.name = "importing <- S, ASKING, single key missing: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1}},
      {.name = "importing <- S, ASKING, single key present: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1},
       .present = {k1}},
      {.name = "importing <- S, ASKING, same key repeated, missing: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1, k1, k1}},
      {.name = "importing <- S, ASKING, 2 distinct keys all present: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k1, k2}},
      {.name = "importing <- S, ASKING, 2 distinct keys one missing: TRYAGAIN",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k1},
       .want = RouteKind::kTryAgain},
      {.name = "importing <- S, ASKING, 2 distinct keys all missing: TRYAGAIN",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kBoth,
       .keys = {k1, k2},
       .want = RouteKind::kTryAgain},
      {.name = "importing <- S, RESTORE-ASKING without ASKING: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .rw = kWrite,
       .cmd = {.asking = true},
       .keys = {k1}},
      {.name = "unassigned first key: CLUSTERDOWN Hash slot not served",
       .slot = {},
       .rw = kBoth,
       .keys = {k1},
       .want = RouteKind::kDownUnbound},
      {.name = "keys in 2 slots: CROSSSLOT",
       .slot = {.owner = kA},
       .rw = kBoth,
       .keys = {k1, "foo"},
       .want = RouteKind::kCrossSlot},
      {.name = "cluster fail, reads-when-down no: CLUSTERDOWN The cluster is down",
       .slot = {.owner = kA},
       .rw = kBoth,
       .keys = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "cluster fail, reads-when-down yes, write: CLUSTERDOWN ... only accepts reads",
       .slot = {.owner = kA},
       .rw = kWrite,
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true,
       .want = RouteKind::kDownReadOnly},
      {.name = "cluster fail, reads-when-down yes, read of my slot: serve",
       .slot = {.owner = kA},
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true},
      {.name = "cluster fail, reads-when-down yes, read of another's slot: MOVED",
       .slot = {.owner = kB},
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true,
       .want = RouteKind::kMoved,
       .want_target = kB},
      {.name = "cluster fail, reads-when-down yes, read of migrating slot, missing: ASK",
       .slot = {.owner = kA, .migrating_to = kB},
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true,
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "keyless: serve, always (even down, even with nothing bound)",
       .slot = {},
       .rw = kBoth,
       .keys = {},
       .cluster_ok = false},
  };
  return rows;
}

TEST_CASE(route_primary_table) {
  for (const Row& r : PrimaryRows()) RunRow(r);
}

TEST_CASE(route_primary_table_readonly) {
  for (Row r : PrimaryRows()) {
    r.readonly = true;
    RunRow(r);
  }
}

// The decision table for a replica: this node is A', a replica of A (P = A). T = B, O and S = C.
TEST_CASE(route_replica_table) {
  const Row base{.primary = false, .me = kA1, .my_primary = kA};
  auto row = [&](Row r) {
    r.primary = base.primary;
    r.me = base.me;
    r.my_primary = base.my_primary;
    return r;
  };
  const std::vector<Row> rows = {
      row({.name = "stable, owned by P, no READONLY: MOVED P",
           .slot = {.owner = kA},
           .rw = kBoth,
           .keys = {k1},
           .present = {k1},
           .want = RouteKind::kMoved,
           .want_target = kA}),
      row({.name = "stable, owned by P, READONLY, read: serve",
           .slot = {.owner = kA},
           .readonly = true,
           .keys = {k1, k2}}),
      row({.name = "stable, owned by P, READONLY, write: MOVED P",
           .slot = {.owner = kA},
           .readonly = true,
           .rw = kWrite,
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kA}),
      row({.name = "owned by another shard O, no READONLY: MOVED O",
           .slot = {.owner = kC},
           .rw = kBoth,
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "owned by another shard O, READONLY: MOVED O",
           .slot = {.owner = kC},
           .readonly = true,
           .rw = kBoth,
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "migrating -> T, no READONLY: MOVED P",
           .slot = {.owner = kA, .migrating_to = kB},
           .rw = kBoth,
           .keys = {k1, k2},
           .present = {k2},
           .want = RouteKind::kMoved,
           .want_target = kA}),
      row({.name = "migrating -> T, READONLY, read, all present: serve",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .keys = {k1, k2},
           .present = {k1, k2}}),
      row({.name = "migrating -> T, READONLY, r/w, all missing: ASK T",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .rw = kBoth,
           .keys = {k1, k2},
           .want = RouteKind::kAsk,
           .want_target = kB}),
      row({.name = "migrating -> T, READONLY, r/w multi-key, some missing: TRYAGAIN",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .rw = kBoth,
           .keys = {k1, k2},
           .present = {k1},
           .want = RouteKind::kTryAgain}),
      row({.name = "migrating -> T, READONLY, write, all present: MOVED P",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .rw = kWrite,
           .keys = {k1, k2},
           .present = {k1, k2},
           .want = RouteKind::kMoved,
           .want_target = kA}),
      row({.name = "migrating -> T, READONLY, MIGRATE of a missing key: ASK T (no exception)",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .rw = kWrite,
           .cmd = {.migrate = true},
           .keys = {k1},
           .want = RouteKind::kAsk,
           .want_target = kB}),
      row({.name = "migrating -> T, READONLY, MIGRATE of a present key: MOVED P",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .rw = kWrite,
           .cmd = {.migrate = true},
           .keys = {k1},
           .present = {k1},
           .want = RouteKind::kMoved,
           .want_target = kA}),
      row({.name = "P importing <- S, no READONLY, no ASKING: MOVED S",
           .slot = {.owner = kC, .importing_from = kC},
           .rw = kBoth,
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "P importing <- S, no READONLY, ASKING: MOVED S",
           .slot = {.owner = kC, .importing_from = kC},
           .asking = true,
           .rw = kBoth,
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "importing <- S, READONLY, no ASKING: MOVED S",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .rw = kBoth,
           .keys = {k1},
           .present = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "importing <- S, READONLY, ASKING, read single key missing: serve",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .asking = true,
           .keys = {k1}}),
      row({.name = "importing <- S, READONLY, ASKING, read single key present: serve",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .asking = true,
           .keys = {k1},
           .present = {k1}}),
      row({.name = "importing <- S, READONLY, ASKING, read same key repeated, missing: serve",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .asking = true,
           .keys = {k1, k1}}),
      row({.name = "importing <- S, READONLY, ASKING, read 2 distinct keys, 1 missing: TRYAGAIN",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .asking = true,
           .keys = {k1, k2},
           .present = {k2},
           .want = RouteKind::kTryAgain}),
      row({.name = "importing <- S, READONLY, ASKING, write: serve (READONLY error comes later)",
           .slot = {.owner = kC, .importing_from = kC},
           .readonly = true,
           .asking = true,
           .rw = kWrite,
           .keys = {k1}}),
      row({.name = "stable, shard pubsub for P's slot, no READONLY: serve",
           .slot = {.owner = kA},
           .cmd = {.pubsub = true},
           .keys = {k1}}),
      row({.name = "migrating -> T, shard pubsub for P's slot, no READONLY: serve",
           .slot = {.owner = kA, .migrating_to = kB},
           .cmd = {.pubsub = true},
           .keys = {k1}}),
      row({.name = "migrating -> T, shard pubsub for P's slot, READONLY: serve",
           .slot = {.owner = kA, .migrating_to = kB},
           .readonly = true,
           .cmd = {.pubsub = true},
           .keys = {k1}}),
      row({.name = "shard pubsub for another shard's slot: MOVED O",
           .slot = {.owner = kC},
           .cmd = {.pubsub = true},
           .keys = {k1},
           .want = RouteKind::kMoved,
           .want_target = kC}),
      row({.name = "keyless: serve", .slot = {}, .rw = kBoth, .keys = {}}),
      // "CROSSSLOT, slot not served and the cluster-down rules apply exactly as to a primary".
      row({.name = "replica: keys in 2 slots: CROSSSLOT",
           .slot = {.owner = kA},
           .readonly = true,
           .keys = {k1, "foo"},
           .want = RouteKind::kCrossSlot}),
      row({.name = "replica: unassigned first key: CLUSTERDOWN Hash slot not served",
           .slot = {},
           .readonly = true,
           .keys = {k1},
           .want = RouteKind::kDownUnbound}),
      row({.name = "replica: cluster fail: CLUSTERDOWN The cluster is down",
           .slot = {.owner = kA},
           .readonly = true,
           .keys = {k1},
           .cluster_ok = false,
           .want = RouteKind::kDownState}),
      row({.name = "replica: cluster fail, reads-when-down, write: CLUSTERDOWN read-only",
           .slot = {.owner = kA},
           .readonly = true,
           .rw = kWrite,
           .keys = {k1},
           .cluster_ok = false,
           .reads_when_down = true,
           .want = RouteKind::kDownReadOnly}),
      row({.name = "replica: cluster fail, reads-when-down, READONLY read: serve",
           .slot = {.owner = kA},
           .readonly = true,
           .keys = {k1},
           .cluster_ok = false,
           .reads_when_down = true}),
  };
  for (const Row& r : rows) RunRow(r);
}

// MULTI/EXEC: at EXEC the queued commands' keys are one request; `write`/`pubsub` are unions.
TEST_CASE(route_multi_exec) {
  const std::vector<Row> rows = {
      {.name = "EXEC without MULTI: serve (EXEC itself errors)",
       .slot = {},
       .cmd = {.exec_without_multi = true},
       .keys = {k1, "foo"},
       .cluster_ok = false},
      {.name = "EXEC, queued commands in two slots: CROSSSLOT",
       .slot = {.owner = kA},
       .rw = kBoth,
       .keys = {k1, k2, "foo"},
       .want = RouteKind::kCrossSlot},
      {.name = "EXEC after a failover moved the slot: MOVED",
       .slot = {.owner = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .want = RouteKind::kMoved,
       .want_target = kB},
      {.name = "EXEC of reads on a READONLY replica: serve",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA},
       .readonly = true,
       .keys = {k1, k2, k1}},
      {.name = "EXEC containing a write on a READONLY replica: MOVED P",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA},
       .readonly = true,
       .rw = kWrite,
       .keys = {k1, k2},
       .want = RouteKind::kMoved,
       .want_target = kA},
      {.name = "ASKING; MULTI; GET k1; GET k2; EXEC on the importing node, one missing: TRYAGAIN",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .keys = {k1, k2},
       .present = {k1},
       .want = RouteKind::kTryAgain},
      {.name = "ASKING; MULTI; SET k1; GET k1; EXEC on the importing node: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .rw = kWrite,
       .keys = {k1, k1}},
      {.name = "EXEC of writes on the source, keys all moved: ASK",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .keys = {k1, k2},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "EXEC with a write after the cluster went down, reads-when-down: read-only error",
       .slot = {.owner = kA},
       .rw = kWrite,
       .keys = {k1, k2},
       .cluster_ok = false,
       .reads_when_down = true,
       .want = RouteKind::kDownReadOnly},
  };
  for (const Row& r : rows) RunRow(r);
}

// Which rule wins when several apply (the order of the rules in route.h).
TEST_CASE(route_precedence) {
  const std::vector<Row> rows = {
      {.name = "slot not served for the first key beats CROSSSLOT",
       .slot = {},
       .keys = {k1, "foo"},
       .want = RouteKind::kDownUnbound},
      {.name = "a later key in an unbound slot is CROSSSLOT, not unbound",
       .slot = {.owner = kA},
       .keys = {"foo", k1},
       .want = RouteKind::kCrossSlot},
      {.name = "slot not served beats cluster down",
       .slot = {},
       .keys = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownUnbound},
      {.name = "CROSSSLOT beats cluster down",
       .slot = {.owner = kA},
       .keys = {k1, "foo"},
       .cluster_ok = false,
       .want = RouteKind::kCrossSlot},
      {.name = "cluster down beats ASK",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "cluster down beats TRYAGAIN",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kBoth,
       .keys = {k1, k2},
       .present = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "cluster down beats MOVED",
       .slot = {.owner = kB},
       .rw = kBoth,
       .keys = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "cluster down (read-only) beats ASK for a write",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true,
       .want = RouteKind::kDownReadOnly},
      {.name = "MIGRATE exception beats ASK on a primary",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1, k2}},
      {.name = "MIGRATE exception beats TRYAGAIN on a primary",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1, k2},
       .present = {k2}},
      {.name = "MIGRATE exception on an importing primary, without ASKING",
       .slot = {.owner = kC, .importing_from = kC},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1}},
      {.name = "MIGRATE exception does not hold on a READONLY replica: ASK",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA, .migrating_to = kB},
       .readonly = true,
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "MIGRATE exception does not beat cluster down",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {k1},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "ASK beats the importing rule (migrating wins when both are set)",
       .slot = {.owner = kA, .migrating_to = kB, .importing_from = kC},
       .asking = true,
       .keys = {k1},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "shard pubsub while down, allow-pubsubshard-when-down yes: serve",
       .slot = {.owner = kA},
       .cmd = {.pubsub = true},
       .keys = {k1},
       .cluster_ok = false},
      {.name = "shard pubsub while down, allow-pubsubshard-when-down no: down",
       .slot = {.owner = kA},
       .cmd = {.pubsub = true},
       .keys = {k1},
       .cluster_ok = false,
       .reads_when_down = true,
       .pubsub_when_down = false,
       .want = RouteKind::kDownState},
      {.name = "shard pubsub + ASKING on the importing node never counts channels: serve",
       .slot = {.owner = kC, .importing_from = kC},
       .asking = true,
       .cmd = {.pubsub = true},
       .keys = {k1, k2},
       .want = RouteKind::kServe},
  };
  for (const Row& r : rows) RunRow(r);
}

// Cases verified on Valkey 8. Slot 609 migrates A -> B; `{aga}2` exists on A.
TEST_CASE(route_verified_on_reference) {
  const std::vector<Row> rows = {
      {.name = "A'+READONLY SET aga: ASK 609 B",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA, .migrating_to = kB},
       .readonly = true,
       .rw = kWrite,
       .keys = {aga},
       .present = {k2},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "B'+READONLY+ASKING SET aga: serve (then -READONLY)",
       .primary = false,
       .me = kB1,
       .my_primary = kB,
       .slot = {.owner = kA, .importing_from = kA},
       .readonly = true,
       .asking = true,
       .rw = kWrite,
       .keys = {aga}},
      {.name = "B'+ASKING without READONLY GET aga: MOVED 609 A",
       .primary = false,
       .me = kB1,
       .my_primary = kB,
       .slot = {.owner = kA, .importing_from = kA},
       .asking = true,
       .rw = kBoth,
       .keys = {aga},
       .want = RouteKind::kMoved,
       .want_target = kA},
      {.name = "B: ASKING; PING; GET aga (flag consumed by PING): MOVED 609 A",
       .me = kB,
       .my_primary = kB,
       .slot = {.owner = kA, .importing_from = kA},
       .asking = false,
       .keys = {aga},
       .want = RouteKind::kMoved,
       .want_target = kA},
      {.name = "fresh node with no slots, GET foo: CLUSTERDOWN Hash slot not served",
       .me = kC,
       .my_primary = kC,
       .slot = {},
       .keys = {"aga"},
       .want = RouteKind::kDownUnbound},
      {.name = "A: MIGRATE of a missing key is served (it answers +NOKEY)",
       .slot = {.owner = kA, .migrating_to = kB},
       .rw = kWrite,
       .cmd = {.migrate = true},
       .keys = {aga},
       .present = {k2}},
      {.name = "A: GET aga (moved away) while {aga}2 stays: ASK 609 B",
       .slot = {.owner = kA, .migrating_to = kB},
       .keys = {aga},
       .present = {k2},
       .want = RouteKind::kAsk,
       .want_target = kB},
      {.name = "A: MGET aga {aga}2: TRYAGAIN",
       .slot = {.owner = kA, .migrating_to = kB},
       .keys = {aga, k2},
       .present = {k2},
       .want = RouteKind::kTryAgain},
      {.name = "B: ASKING MGET aga {aga}2, both missing: TRYAGAIN",
       .me = kB,
       .my_primary = kB,
       .slot = {.owner = kA, .importing_from = kA},
       .asking = true,
       .keys = {aga, k2},
       .want = RouteKind::kTryAgain},
  };
  for (const Row& r : rows) RunRow(r);
}

// Key existence is looked up only for open slots, and never for shard channels.
TEST_CASE(route_key_existence_only_when_open) {
  int calls = 0;
  auto key_exists = [&](std::string_view) {
    calls++;
    return false;
  };
  SlotState st{.owner = kA};
  auto slot_state = [&](int) { return st; };
  const std::string_view keys[] = {k1, k2};
  RouteInput in{.node = {.is_primary = true, .myself = kA, .my_primary = kA},
                .slot_state = slot_state,
                .key_exists = key_exists,
                .keys = keys};
  CHECK(Route(in).kind == RouteKind::kServe);
  CHECK_EQ(calls, 0);
  st.migrating_to = kB;
  CHECK(Route(in).kind == RouteKind::kAsk);
  CHECK_EQ(calls, 2);
  in.cmd.pubsub = true;
  CHECK(Route(in).kind == RouteKind::kServe);
  CHECK_EQ(calls, 2);
  RouteInput copy = in;  // copies the callable references, not a reference to `in`
  copy.cmd.pubsub = false;
  CHECK(Route(copy).kind == RouteKind::kAsk);
  CHECK_EQ(calls, 4);
}

// Blocked clients (RouteBlocked). Slot 609; A owns it unless the row says otherwise.
struct BlockedRow {
  const char* name;
  bool primary = true;
  NodeHandle me = kA, my_primary = kA;
  SlotState slot;
  bool readonly = false, last_cmd_write = false;
  bool cluster_ok = true;
  RouteKind want = RouteKind::kServe;
  NodeHandle want_target = kNoNode;
};

TEST_CASE(route_blocked_clients) {
  const std::vector<BlockedRow> rows = {
      {.name = "cluster down: CLUSTERDOWN The cluster is down",
       .slot = {.owner = kA},
       .cluster_ok = false,
       .want = RouteKind::kDownState},
      {.name = "primary owns the slot: stays blocked", .slot = {.owner = kA}},
      {.name = "primary owns the slot, migrating: stays blocked",
       .slot = {.owner = kA, .migrating_to = kB}},
      {.name = "slot moved to B: MOVED B",
       .slot = {.owner = kB},
       .want = RouteKind::kMoved,
       .want_target = kB},
      {.name = "slot unbound: CLUSTERDOWN Hash slot not served",
       .slot = {},
       .want = RouteKind::kDownUnbound},
      {.name = "slot owned by S but imported here: stays blocked",
       .slot = {.owner = kC, .importing_from = kC}},
      {.name = "unbound but imported here: stays blocked", .slot = {.importing_from = kC}},
      {.name = "became a replica of the owner, no READONLY: MOVED P",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA},
       .want = RouteKind::kMoved,
       .want_target = kA},
      {.name = "replica, READONLY, blocked by a read (XREAD): stays blocked",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA},
       .readonly = true},
      {.name = "replica, READONLY, blocked by a write (BLPOP): MOVED P",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kA},
       .readonly = true,
       .last_cmd_write = true,
       .want = RouteKind::kMoved,
       .want_target = kA},
      {.name = "replica, READONLY read, slot of another shard: MOVED O",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {.owner = kC},
       .readonly = true,
       .want = RouteKind::kMoved,
       .want_target = kC},
      {.name = "replica, READONLY read, slot unbound: CLUSTERDOWN Hash slot not served",
       .primary = false,
       .me = kA1,
       .my_primary = kA,
       .slot = {},
       .readonly = true,
       .want = RouteKind::kDownUnbound},
  };
  for (const BlockedRow& r : rows) {
    auto slot_state = [&](int s) { return s == kSlot ? r.slot : SlotState{.owner = kC}; };
    BlockedInput in{.node = {.is_primary = r.primary,
                             .myself = r.me,
                             .my_primary = r.my_primary,
                             .cluster_ok = r.cluster_ok,
                             .allow_reads_when_down = true},
                    .slot_state = slot_state,
                    .readonly = r.readonly,
                    .last_cmd_write = r.last_cmd_write,
                    .first_key = k1};
    RouteDecision d = RouteBlocked(in);
    if (d.kind != r.want || d.target != r.want_target ||
        (r.want == RouteKind::kMoved && d.slot != kSlot)) {
      fprintf(stderr, "  blocked row \"%s\": got %s target %u, want %s target %u\n", r.name,
              KindName(d.kind), d.target, KindName(r.want), r.want_target);
      check::failures++;
    }
  }
}

// The error line bodies, byte for byte.
TEST_CASE(route_reply_texts) {
  RouteDecision moved{RouteKind::kMoved, 12182, kB};
  CHECK_EQ(FormatRedirect(moved, "127.0.0.1", 30002), std::string("MOVED 12182 127.0.0.1:30002"));
  CHECK_EQ(FormatRedirect(moved, "node-b.example", 30002),
           std::string("MOVED 12182 node-b.example:30002"));
  CHECK_EQ(FormatRedirect(moved, "?", 30002), std::string("MOVED 12182 ?:30002"));
  CHECK_EQ(FormatRedirect(moved, "", 30002), std::string("MOVED 12182 :30002"));
  CHECK_EQ(FormatRedirect(moved, "::1", 6379), std::string("MOVED 12182 ::1:6379"));
  RouteDecision ask{RouteKind::kAsk, 0, kB};
  CHECK_EQ(FormatRedirect(ask, "127.0.0.1", 30002), std::string("ASK 0 127.0.0.1:30002"));
  ask.slot = 16383;
  CHECK_EQ(FormatRedirect(ask, "10.0.0.7", 65535), std::string("ASK 16383 10.0.0.7:65535"));
  auto text = [](RouteKind k) { return FormatRedirect({k, 5, kNoNode}, "x", 1); };
  CHECK_EQ(text(RouteKind::kTryAgain),
           std::string("TRYAGAIN Multiple keys request during rehashing of slot"));
  CHECK_EQ(text(RouteKind::kCrossSlot),
           std::string("CROSSSLOT Keys in request don't hash to the same slot"));
  CHECK_EQ(text(RouteKind::kDownState), std::string("CLUSTERDOWN The cluster is down"));
  CHECK_EQ(text(RouteKind::kDownReadOnly),
           std::string("CLUSTERDOWN The cluster is down and only accepts read commands"));
  CHECK_EQ(text(RouteKind::kDownUnbound), std::string("CLUSTERDOWN Hash slot not served"));
  CHECK_EQ(text(RouteKind::kServe), std::string(""));
  CHECK(cluster::RouteErrorText(RouteKind::kMoved).empty());
}

// The common path (one key, a stable slot I own) allocates nothing.
TEST_CASE(route_common_path_does_not_allocate) {
  auto slot_state = [](int) { return SlotState{.owner = kA}; };
  auto key_exists = [](std::string_view) { return true; };
  const std::string_view keys[] = {"some-key-of-a-reasonable-length:12345"};
  RouteInput in{.node = {.is_primary = true, .myself = kA, .my_primary = kA},
                .slot_state = slot_state,
                .key_exists = key_exists,
                .keys = keys};
#ifdef USE_JEMALLOC
  uint64_t* allocated = nullptr;
  size_t sz = sizeof(allocated);
  if (mallctl("thread.allocatedp", &allocated, &sz, nullptr, 0) != 0 || !allocated) return;
  const uint64_t before = *allocated;
  int served = 0;
  for (int i = 0; i < 1000; i++) served += Route(in).kind == RouteKind::kServe;
  const uint64_t after = *allocated;
  CHECK_EQ(served, 1000);
  CHECK_EQ(after - before, uint64_t{0});
#else
  CHECK(Route(in).kind == RouteKind::kServe);
#endif
}

}  // namespace
