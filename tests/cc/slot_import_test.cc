// The ESTABLISH rules of cluster/slot_import.h, one named row per rule, on a state built
// in-process: me (a primary owning 0-99), source S (a primary owning 100-199, with replica R),
// O another primary owning 200-299; slot 150 migrating here, 151 importing here; job J
// importing 160-169 from S.
#include "cluster/slot_import.h"

#include <string>
#include <vector>

#include "check.h"

namespace {

using namespace cluster;

const std::string kMe(40, 'a'), kS(40, 'b'), kR(40, 'c'), kO(40, 'd'), kUnknown(40, 'e');
const std::string kJob(40, '1'), kNew(40, '2');

struct Fixture {
  State st;
  ImportJobs jobs;
  Node *me, *s, *r, *o;
  Fixture() {
    me = st.Add(kMe, kNodeMyself | kNodePrimary, 0);
    st.myself = me;
    s = st.Add(kS, kNodePrimary, 0);
    r = st.Add(kR, kNodeReplica, 0);
    o = st.Add(kO, kNodePrimary, 0);
    st.SetPrimary(r, s);
    for (int i = 0; i < 100; i++) st.AssignSlot(i, me);
    for (int i = 100; i < 200; i++) st.AssignSlot(i, s);
    for (int i = 200; i < 300; i++) st.AssignSlot(i, o);
    st.migrating_to[150] = o;
    st.importing_from[151] = s;
    auto j = std::make_unique<ImportJob>();
    j->name = kJob;
    j->source_id = kS;
    j->ranges = {{160, 169}};
    for (int i = 160; i <= 169; i++) SlotSet(&j->slots, i);
    jobs.Add(std::move(j));
  }
  std::string Check(std::string_view name, std::string_view source,
                    std::vector<std::string_view> args) {
    std::vector<SlotRange> ranges;
    return CheckEstablish(st, jobs, name, source, args, &ranges);
  }
};

struct Row {
  const char* rule;
  std::function<void(Fixture&)> setup;
  std::string name, source;
  std::vector<std::string_view> ranges;
  std::string want;  // "" : accepted
};

TEST_CASE(SlotImportEstablishRules) {
  std::vector<Row> rows = {
      {"accepted", nullptr, kNew, kS, {"100", "109", "120", "120"}, ""},
      {"i_am_a_replica", [](Fixture& f) { f.st.SetPrimary(f.me, f.o); }, kNew, kS,
       {"100", "109"}, "Slots can only be imported by a primary"},
      {"name_in_use", nullptr, kJob, kS, {"100", "109"},
       "Slot migration job " + kJob + " already exists"},
      {"source_unknown", nullptr, kNew, kUnknown, {"100", "109"},
       "Unknown source node " + kUnknown},
      {"source_is_a_replica", nullptr, kNew, kR, {"100", "109"},
       "Source node " + kR + " is not a primary"},
      {"slot_not_a_number", nullptr, kNew, kS, {"x", "109"}, "Invalid or out of range slot"},
      {"slot_out_of_range", nullptr, kNew, kS, {"100", "16384"}, "Invalid or out of range slot"},
      {"start_after_end", nullptr, kNew, kS, {"109", "100"},
       "start slot number 109 is greater than end slot number 100"},
      {"slot_not_owned_by_source", nullptr, kNew, kS, {"195", "205"},
       "Hash slot 200 is not owned by the source node " + kS},
      {"slot_owned_by_me", nullptr, kNew, kS, {"99", "100"},
       "I'm already the owner of hash slot 99"},
      {"slot_migrating", nullptr, kNew, kS, {"150", "150"},
       "Hash slot 150 is migrating or importing (CLUSTER SETSLOT) on this node"},
      {"slot_importing", nullptr, kNew, kS, {"151", "151"},
       "Hash slot 151 is migrating or importing (CLUSTER SETSLOT) on this node"},
      {"slot_in_an_import_job", nullptr, kNew, kS, {"165", "170"},
       "Hash slot 165 is already being imported by job " + kJob},
      {"finished_job_frees_its_name_and_slots",
       [](Fixture& f) {
         f.jobs.Finish(f.jobs.FindRunning(kJob), ImportState::kSuccess, "", 0);
       },
       kJob, kS, {"165", "170"}, ""},
  };
  for (auto& row : rows) {
    Fixture f;
    if (row.setup) row.setup(f);
    std::string got = f.Check(row.name, row.source, row.ranges);
    if (got != row.want) {
      fprintf(stderr, "  row %s: got '%s', want '%s'\n", row.rule, got.c_str(), row.want.c_str());
      check::failures++;
    }
  }
}

TEST_CASE(SlotImportRangesAndReport) {
  std::vector<SlotRange> ranges;
  std::vector<std::string_view> args = {"0", "10", "20", "29", "5", "5"};
  CHECK_EQ(ParseRanges(args, &ranges), std::string());
  CHECK_EQ(FormatSlotRanges(ranges), std::string("0-10 20-29 5-5"));
  ImportJob j;
  j.name = kJob;
  j.ranges = ranges;
  j.state = ImportState::kOccurringOnPrimary;
  auto d = DescribeImport(j);
  CHECK_EQ(d.size(), size_t{10});
  CHECK_EQ(d[0].first, std::string("name"));
  CHECK_EQ(d[1].second, std::string("IMPORT"));
  CHECK_EQ(d[2].second, std::string("0-10 20-29 5-5"));
  CHECK_EQ(d[8].second, std::string("occurring-on-primary"));
}

// Finished jobs stay listed until their owner forgets them, oldest first within a budget
// (cluster-slot-migration-log-max-len, counted with the exports); running ones always stay.
TEST_CASE(SlotImportForgetsOldestFinishedJobs) {
  ImportJobs jobs;
  for (int i = 0; i < 40; i++) {
    auto j = std::make_unique<ImportJob>();
    j->name = std::to_string(i);
    j->staging = std::make_unique<db::Db>(kStagingDbId, true);
    ImportJob* p = jobs.Add(std::move(j));
    if (i != 3) jobs.Finish(p, ImportState::kCancelled, "", 1000 + 40 - i);  // newest first
  }
  CHECK_EQ(jobs.all().size(), size_t{40});
  CHECK_EQ(jobs.FinishedTimes().size(), size_t{39});
  // Up to time 1010 there are 10 finished (39..30 finished at 1001..1010); a budget of 7
  // takes the 7 oldest of them: 39..33.
  size_t budget = 7;
  jobs.DropFinished(1010, &budget);
  CHECK_EQ(budget, size_t{0});
  CHECK(jobs.Find("39") == nullptr);
  CHECK(jobs.Find("33") == nullptr);
  CHECK(jobs.Find("32") != nullptr);
  // A budget beyond what finished by then stops at the time.
  budget = 100;
  jobs.DropFinished(1010, &budget);
  CHECK_EQ(budget, size_t{97});
  CHECK(jobs.Find("30") == nullptr);
  CHECK(jobs.Find("29") != nullptr);
  // The running one is never dropped.
  budget = 100;
  jobs.DropFinished(INT64_MAX, &budget);
  CHECK_EQ(jobs.all().size(), size_t{1});
  CHECK(jobs.FindRunning("3") != nullptr);
}

}  // namespace
