// What a primary's slot claim changes (cluster/slot_claims.h), one named row per rule, on a
// state built in-process. Each plan is summarized as "field=slots ..." (non-empty fields only).
#include "cluster/slot_claims.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "check.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kA(40, 'b'), kA2(40, 'c'), kB(40, 'd'), kB2(40, 'e'), kN(40, 'f');
const std::string kShard1(40, '1'), kShard2(40, '2'), kShard3(40, '3');

// Me: a primary of shard 1 owning 0-99 at epoch 1. A (shard 2) owns 100-199 at epoch 2, with
// replica A2. B (shard 3) owns 200-299 at epoch 3, with replica B2. The claim is A's, as known.
struct Fixture {
  State st;
  Node *me, *a, *a2, *b, *b2;
  SlotClaim claim;
  SlotBitmap slots{};
  Node* Add(const std::string& name, uint16_t flags, const std::string& shard, uint64_t epoch) {
    Node* n = st.Add(name, flags, 0);
    n->shard_id = shard;
    n->config_epoch = epoch;
    n->data_received_ms = 100;
    return n;
  }
  Fixture() {
    me = Add(kMe, kNodeMyself | kNodePrimary, kShard1, 1);
    st.myself = me;
    st.started_ms = 50;
    a = Add(kA, kNodePrimary, kShard2, 2);
    a2 = Add(kA2, kNodeReplica, kShard2, 2);
    b = Add(kB, kNodePrimary, kShard3, 3);
    b2 = Add(kB2, kNodeReplica, kShard3, 3);
    st.SetPrimary(a2, a);
    st.SetPrimary(b2, b);
    Assign(0, 99, me);
    Assign(100, 199, a);
    Assign(200, 299, b);
    slots = a->slots;
    claim = {.sender = a, .epoch = 2, .slots = &slots, .allow_replica_migration = true};
  }
  void Assign(int from, int to, Node* n) {
    for (int s = from; s <= to; s++) st.AssignSlot(s, n);
  }
  void Claim(Node* sender, uint64_t epoch, std::vector<std::pair<int, int>> ranges) {
    slots = {};
    for (auto [from, to] : ranges)
      for (int s = from; s <= to; s++) SlotSet(&slots, s);
    claim.sender = sender;
    claim.epoch = epoch;
  }
};

std::string Ranges(const std::vector<int>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) j++;
    if (!out.empty()) out += ",";
    out += std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

std::string Summary(const Fixture& f, const SlotClaimPlan& p) {
  std::string out;
  auto field = [&out](const char* name, const std::vector<int>& v) {
    if (v.empty()) return;
    out += std::string(out.empty() ? "" : " ") + name + "=" + Ranges(v);
  };
  field("take", p.take);
  field("lost_mine", p.lost_mine);
  field("stopped", p.stopped_claiming);
  field("again", p.claims_again);
  field("mig_retarget", p.migrating_retarget);
  field("mig_close", p.migrating_close);
  field("imp_retarget", p.importing_retarget);
  field("imp_close", p.importing_close);
  field("auto_claim", p.auto_claim);
  const char* role[] = {"keep", "follow", "empty_primary", "keep_no_clean"};
  out += std::string(out.empty() ? "" : " ") + "role=" + role[static_cast<int>(p.role)];
  if (p.follow) {
    const char* who = p.follow == f.a ? "A" : p.follow == f.b ? "B" : p.follow->name.c_str();
    out += std::string(" follow=") + who + (p.follow_same_shard ? " same_shard" : " other_shard");
  }
  return out;
}

struct Row {
  const char* name;
  std::function<void(Fixture&)> setup;
  const char* want;
};

TEST_CASE(SlotClaimRows) {
  const Row rows[] = {
      {"the claim as known changes nothing", [](Fixture&) {}, "role=keep"},
      {"an older claim of my slot is ignored",
       [](Fixture& f) {
         f.Claim(f.a, 0, {{5, 5}, {100, 199}});
       },
       "role=keep"},
      {"an equal epoch does not take a slot",
       [](Fixture& f) {
         f.Claim(f.a, 1, {{5, 5}, {100, 199}});
       },
       "role=keep"},
      {"a newer claim takes my slot, whose keys go",
       [](Fixture& f) {
         f.Claim(f.a, 4, {{5, 5}, {100, 199}});
       },
       "take=5 lost_mine=5 role=keep"},
      {"an unowned slot goes to any claimer",
       [](Fixture& f) {
         f.Claim(f.a, 2, {{100, 199}, {500, 501}});
       },
       "take=500-501 role=keep"},
      {"the owner stops claiming a slot: it stays bound, marked",
       [](Fixture& f) {
         f.Claim(f.a, 2, {{100, 197}});
       },
       "stopped=198-199 role=keep"},
      {"a marked slot is not marked twice",
       [](Fixture& f) {
         f.st.SetOwnerClaims(199, false);
         f.Claim(f.a, 2, {{100, 198}});
       },
       "role=keep"},
      {"the owner claims a marked slot again", [](Fixture& f) { f.st.SetOwnerClaims(199, false); },
       "again=199 role=keep"},
      {"a slot its owner stopped claiming goes to an older epoch",
       [](Fixture& f) {
         f.st.SetOwnerClaims(250, false);
         f.Claim(f.a, 2, {{100, 199}, {250, 250}});
       },
       "take=250 role=keep"},
      {"my last slots to another shard: I follow the claimer",
       [](Fixture& f) {
         f.Claim(f.a, 4, {{0, 199}});
       },
       "take=0-99 lost_mine=0-99 role=follow follow=A other_shard"},
      {"my last slots to another shard, replica migration off: an empty primary",
       [](Fixture& f) {
         f.claim.allow_replica_migration = false;
         f.Claim(f.a, 4, {{0, 199}});
       },
       "take=0-99 lost_mine=0-99 role=empty_primary"},
      {"my last slots taken by my own shard's new primary: I follow it in-shard",
       [](Fixture& f) {
         f.a->shard_id = kShard1;
         f.a2->shard_id = kShard1;
         f.Claim(f.a, 4, {{0, 199}});
       },
       "take=0-99 lost_mine=0-99 role=follow follow=A same_shard"},
      {"my last slots to another shard while my shard's newer primary owns slots: follow it",
       [](Fixture& f) {
         f.b->shard_id = kShard1;  // B: elected in my shard while I was down
         f.b->config_epoch = 5;
         f.Claim(f.a, 6, {{0, 199}});
       },
       "take=0-99 lost_mine=0-99 role=follow follow=B same_shard"},
      {"a slotless primary of my shard with a newer epoch: I follow it",
       [](Fixture& f) {
         f.Assign(0, 99, f.b);
         f.a->shard_id = kShard1;
         f.a->config_epoch = 2;
         f.Assign(100, 199, f.b);
         f.Claim(f.a, 2, {});
       },
       "role=follow follow=A same_shard"},
      {"a migration target's shard failed over: the migration follows",
       [](Fixture& f) {
         f.st.migrating_to[5] = f.a2;  // A2 was the target's primary, now A's replica
       },
       "mig_retarget=5 role=keep"},
      {"another shard takes a slot I migrate: the migration closes",
       [](Fixture& f) {
         f.st.migrating_to[5] = f.b;
         f.Claim(f.a, 4, {{5, 5}, {100, 199}});
       },
       "take=5 lost_mine=5 mig_close=5 role=keep"},
      {"the migration source failed over: importing follows",
       [](Fixture& f) {
         f.st.importing_from[250] = f.b;
         f.Claim(f.b2, 9, {{200, 299}});
       },
       "take=200-299 imp_retarget=250 role=keep"},
      {"another shard takes a slot I import: importing closes",
       [](Fixture& f) {
         f.st.importing_from[250] = f.b;
         f.Claim(f.a, 9, {{100, 199}, {250, 250}});
       },
       "take=250 imp_close=250 role=keep"},
      {"the source gave up a slot I import: I claim it",
       [](Fixture& f) {
         f.st.importing_from[250] = f.b;
         f.Claim(f.b, 3, {{200, 249}, {251, 299}});
       },
       "stopped=250 auto_claim=250 role=keep"},
      {"... unless a member of my shard has not spoken since I started",
       [](Fixture& f) {
         f.st.importing_from[250] = f.b;
         f.a2->shard_id = kShard1;
         f.a2->data_received_ms = 10;
         f.Claim(f.b, 3, {{200, 249}, {251, 299}});
       },
       "stopped=250 role=keep"},
  };
  for (const Row& row : rows) {
    Fixture f;
    row.setup(f);
    std::string got = Summary(f, PlanSlotClaims(f.st, f.claim));
    if (got != row.want) {
      fprintf(stderr, "  row '%s':\n    got  %s\n    want %s\n", row.name, got.c_str(), row.want);
      check::failures++;
    }
  }
}

TEST_CASE(SlotClaimUpdateRules) {
  Fixture f;
  // A claims B's slot 250 at epoch 2 < 3: stale, it hears of B.
  f.Claim(f.a, 2, {{100, 199}, {250, 250}});
  CHECK(StaleClaimOwner(f.st, f.claim) == f.b);
  // B stopped claiming 250: no UPDATE spreads that ownership.
  f.st.SetOwnerClaims(250, false);
  CHECK(StaleClaimOwner(f.st, f.claim) == nullptr);
  // An UPDATE about B leaves 250 out; B's other slots are in.
  SlotBitmap u = UpdateSlots(f.st, f.b);
  CHECK(!SlotTest(u, 250));
  CHECK(SlotTest(u, 249));
  CHECK_EQ(SlotCount(u), 99);
  // Its own slots are never stale.
  f.Claim(f.a, 2, {{100, 199}});
  CHECK(StaleClaimOwner(f.st, f.claim) == nullptr);
}

TEST_CASE(SlotClaimUnannouncedSlotsStayOutOfOurMessages) {
  Fixture f;
  // I took A's slot 150 by a handover (epoch 4 > 2) whose claim is not on disk yet.
  f.me->config_epoch = 4;
  f.st.AssignSlot(150, f.me);
  SlotSet(&f.st.unannounced, 150);
  f.st.unannounced_count = 1;
  SlotBitmap mine = AnnouncedSlots(f.st, f.me);
  CHECK(!SlotTest(mine, 150));
  CHECK_EQ(SlotCount(mine), 100);  // 0-99 still
  CHECK(!SlotTest(UpdateSlots(f.st, f.me), 150));
  CHECK(SlotTest(AnnouncedSlots(f.st, f.b), 250));  // others' slots as they are
  // A, still claiming it at epoch 2, is not told of my claim by an UPDATE.
  f.Claim(f.a, 2, {{100, 199}});
  CHECK(StaleClaimOwner(f.st, f.claim) == nullptr);
  // Once on disk, the slot is in them.
  SlotClear(&f.st.unannounced, 150);
  f.st.unannounced_count = 0;
  CHECK(SlotTest(AnnouncedSlots(f.st, f.me), 150));
  CHECK(StaleClaimOwner(f.st, f.claim) == f.me);
}

}  // namespace
