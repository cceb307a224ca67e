#include "repl/staged_load.h"

#include <algorithm>
#include <cstring>

#include "base/time.h"
#include "ds/seed.h"
#include "server/config.h"
#include "server/lazyfree.h"
#include "server/server.h"

namespace repl {

namespace {
// One parse slice: the loop serves clients, the bus and the primary link between slices.
constexpr int64_t kSliceUs = 1000;
// Received bytes kept unparsed before the primary's link stops being read.
constexpr size_t kMaxPending = 16 << 20;
}  // namespace

StagedLoad::StagedLoad(bool async) {
  std::vector<db::Db*> ptrs;
  for (int i = 0; i < server::NumDbs(); i++) {
    staging_.push_back(std::make_unique<db::Db>(i, db::GetEnv().cluster && i == 0));
    ptrs.push_back(staging_.back().get());
  }
  persist::LoadOptions opts;
  opts.skip_expired = false;  // a replica keeps what its primary has; the primary expires
  opts.now_ms = base::MsTime();
  opts.num_dbs = server::NumDbs();
  opts.from_replication = true;
  if (server::g.skip_checksum_validation) opts.verify_checksum = false;
  opts.after_key = [](uint64_t) { server::KeyLoadDelay(server::cfg.key_load_delay); };
  if (async) loading_.emplace(true);
  loader_ = std::make_unique<persist::SnapshotLoader>(opts, std::move(ptrs), false);
}

StagedLoad::~StagedLoad() {
  if (committed_) return;
  loader_.reset();
  for (auto& d : staging_) server::EmptyDb(d.get(), true);  // frees without hashing
  staging_.clear();
}

StagedLoad::Outcome StagedLoad::Add(std::string_view bytes, bool at_end) {
  // Parsed bytes leave the front in one move once they are half of the buffer, not at every
  // slice (a memmove of megabytes each time).
  if (parsed_ > pending_.size() / 2) {
    pending_.erase(0, parsed_);
    parsed_ = 0;
  }
  pending_.append(bytes);
  at_end_ = at_end;
  return Continue();
}

bool StagedLoad::Behind() const {
  return pending_.size() - parsed_ >= std::max(kMaxPending, loader_->wants());
}

bool StagedLoad::Ready() const {
  size_t left = pending_.size() - parsed_;
  return (left > 0 || at_end_) && left >= loader_->wants();
}

StagedLoad::Outcome StagedLoad::Continue() {
  // The staging tables hash with the snapshot's seed (its aux field sets it), the served ones
  // with theirs: each slice runs under the snapshot's, the node between slices under its own.
  uint8_t served[16];
  memcpy(served, ds::HashSeed(), 16);
  if (new_seed_) ds::SetHashSeed(new_seed_->data());
  loader_->set_deadline_us(base::FastUs() + kSliceUs);
  size_t consumed = 0;
  auto st = loader_->Feed(reinterpret_cast<const uint8_t*>(pending_.data()) + parsed_,
                          pending_.size() - parsed_, at_end_, &consumed);
  parsed_ += consumed;
  if (memcmp(served, ds::HashSeed(), 16) != 0) {
    if (!new_seed_) new_seed_.emplace();
    memcpy(new_seed_->data(), ds::HashSeed(), 16);
    ds::SetHashSeed(served);
  }
  switch (st) {
    case persist::SnapshotParser::Status::kError:
      error_ = loader_->result().error + " (offset " +
               std::to_string(loader_->result().error_offset) + ")";
      return Outcome::kFailed;
    case persist::SnapshotParser::Status::kDone:
      if (parsed_ != pending_.size() || !at_end_) {
        error_ = "the payload goes on after the snapshot's end";
        return Outcome::kFailed;
      }
      return Outcome::kDone;
    default:
      return Outcome::kMore;
  }
}

void StagedLoad::Commit() {
  if (new_seed_) ds::SetHashSeed(new_seed_->data());
  for (int i = 0; i < server::NumDbs(); i++) {
    server::g.dbs[i]->Swap(*staging_[i]);
    server::EmptyDb(staging_[i].get(), server::cfg.replica_lazy_flush);  // the previous data
  }
  staging_.clear();
  committed_ = true;
  loading_.reset();
}

}  // namespace repl
