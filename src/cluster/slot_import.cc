// Atomic slot migration, the target's side: the import jobs and the rules of ESTABLISH (see
// slot_import.h).
#include "cluster/slot_import.h"

#include <algorithm>
#include <unordered_set>

#include "base/util.h"

namespace cluster {

const char* ImportStateName(ImportState s) {
  switch (s) {
    case ImportState::kReceiving:
      return "receiving-snapshot";
    case ImportState::kOccurringOnPrimary:
      return "occurring-on-primary";
    case ImportState::kSuccess:
      return "success";
    case ImportState::kCancelled:
      return "cancelled";
    case ImportState::kFailed:
      return "failed";
  }
  return "failed";
}

ImportJob* ImportJobs::FindRunning(std::string_view name) {
  for (auto& j : jobs_)
    if (j->Running() && j->name == name) return j.get();
  return nullptr;
}

const ImportJob* ImportJobs::Find(std::string_view name) const {
  // The newest of that name (a finished one may share it with a later job).
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it)
    if ((*it)->name == name) return it->get();
  return nullptr;
}

const ImportJob* ImportJobs::ImportingSlot(int slot) const {
  for (auto& j : jobs_)
    if (j->Running() && SlotTest(j->slots, slot)) return j.get();
  return nullptr;
}

ImportJob* ImportJobs::Add(std::unique_ptr<ImportJob> job) {
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [&](const auto& j) { return !j->Running() && j->name == job->name; }),
              jobs_.end());
  jobs_.push_back(std::move(job));
  return jobs_.back().get();
}

void ImportJobs::Finish(ImportJob* job, ImportState state, std::string message, int64_t now_ms) {
  job->state = state;
  job->message = std::move(message);
  job->last_update_ms = now_ms;
  job->client_id = 0;
  job->staging.reset();  // frees what is still staged (nothing after a HANDOVER)
}

std::vector<ImportJob*> ImportJobs::RunningJobs() {
  std::vector<ImportJob*> out;
  for (auto& j : jobs_)
    if (j->Running()) out.push_back(j.get());
  return out;
}

std::vector<int64_t> ImportJobs::FinishedTimes() const {
  std::vector<int64_t> out;
  for (auto& j : jobs_)
    if (!j->Running()) out.push_back(j->last_update_ms);
  return out;
}

void ImportJobs::DropFinished(int64_t upto_ms, size_t* budget) {
  // Oldest first: one sort of the candidates, one pass to erase the chosen.
  std::vector<std::pair<int64_t, const ImportJob*>> c;
  for (auto& j : jobs_)
    if (!j->Running() && j->last_update_ms <= upto_ms) c.emplace_back(j->last_update_ms, j.get());
  std::sort(c.begin(), c.end());
  c.resize(std::min(c.size(), *budget));
  *budget -= c.size();
  std::unordered_set<const ImportJob*> chosen;
  for (auto& [when, j] : c) chosen.insert(j);
  std::erase_if(jobs_, [&](const std::unique_ptr<ImportJob>& j) { return chosen.count(j.get()) > 0; });
}

std::string ParseRanges(std::span<const std::string_view> range_args,
                        std::vector<SlotRange>* ranges) {
  ranges->clear();
  for (size_t i = 0; i + 1 < range_args.size(); i += 2) {
    int64_t start, end;
    if (!base::ParseInt64(range_args[i], &start) || start < 0 || start >= kSlots ||
        !base::ParseInt64(range_args[i + 1], &end) || end < 0 || end >= kSlots)
      return "Invalid or out of range slot";
    if (start > end)
      return "start slot number " + std::to_string(start) + " is greater than end slot number " +
             std::to_string(end);
    ranges->push_back({static_cast<int>(start), static_cast<int>(end)});
  }
  return "";
}

std::string CheckEstablish(const State& st, const ImportJobs& jobs, std::string_view name,
                           std::string_view source_id, std::span<const std::string_view> range_args,
                           std::vector<SlotRange>* ranges) {
  if (!st.myself->IsPrimary()) return "Slots can only be imported by a primary";
  for (auto& j : jobs.all())
    if (j->Running() && j->name == name)
      return "Slot migration job " + std::string(name) + " already exists";
  const Node* src = st.Find(source_id);
  if (!src) return "Unknown source node " + std::string(source_id);
  if (!src->IsPrimary()) return "Source node " + std::string(source_id) + " is not a primary";
  std::string err = ParseRanges(range_args, ranges);
  if (!err.empty()) return err;
  for (const SlotRange& r : *ranges)
    for (int s = r.start; s <= r.end; s++) {
      if (st.slot_owner[s] == st.myself)
        return "I'm already the owner of hash slot " + std::to_string(s);
      if (st.slot_owner[s] != src)
        return "Hash slot " + std::to_string(s) + " is not owned by the source node " +
               std::string(source_id);
      if (st.migrating_to[s] || st.importing_from[s])
        return "Hash slot " + std::to_string(s) +
               " is migrating or importing (CLUSTER SETSLOT) on this node";
      if (const ImportJob* j = jobs.ImportingSlot(s))
        return "Hash slot " + std::to_string(s) + " is already being imported by job " + j->name;
    }
  return "";
}

std::vector<std::pair<std::string, std::string>> DescribeImport(const ImportJob& job) {
  return {
      {"name", job.name},
      {"operation", "IMPORT"},
      {"slot_ranges", FormatSlotRanges(job.ranges)},
      {"target_node", job.target_id},
      {"source_node", job.source_id},
      {"create_time", std::to_string(job.create_ms / 1000)},
      {"last_update_time", std::to_string(job.last_update_ms / 1000)},
      {"last_ack_time", std::to_string(job.last_ack_ms / 1000)},
      {"state", ImportStateName(job.state)},
      {"message", job.message},
  };
}

}  // namespace cluster
