// A primary's snapshot loaded while it arrives (a replica's full sync): its bytes are parsed
// into staging databases in slices of the event loop, as they come, and swapped in whole at
// the end. The full sync then takes about as long as the longer of the primary's snapshot and
// the replica's parse, not their sum, and the served data is untouched until the swap.
//
// Meanwhile the node serves its old data, also when the snapshot brings another hash seed (a
// first sync from this primary): the parse slices run under the new seed, the node between
// them under the old one, and the swap takes the new one. repl-diskless-load swapdb marks the
// whole transfer as an async load (INFO async_loading:1; commands flagged no-async-loading
// wait), as Valkey 8 does; the other modes serve as during any transfer. No -LOADING at all.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "persist/snapshot.h"
#include "server/loading.h"

namespace repl {

class StagedLoad {
 public:
  enum class Outcome { kMore, kDone, kFailed };
  explicit StagedLoad(bool async);
  // An unfinished load leaves the node as it found it: staging freed (on the lazy-free
  // thread), the old hash seed back.
  ~StagedLoad();
  StagedLoad(const StagedLoad&) = delete;
  StagedLoad& operator=(const StagedLoad&) = delete;

  // Payload bytes received; at_end: the payload ended with them. Parses for at most one
  // slice; kMore with the payload ended means a slice ran out (call Continue).
  Outcome Add(std::string_view bytes, bool at_end);
  // One more slice of what is buffered.
  Outcome Continue();
  // More is buffered than the parser will take before its next slice: stop reading the
  // primary until Continue has caught up, so that the payload never waits in memory whole.
  bool Behind() const;
  // Bytes are buffered that the parser can read now (a slice ran out before them).
  bool Ready() const;
  // Swaps the staging databases in (after kDone); the old data is freed as replica-lazy-flush
  // says.
  void Commit();
  const persist::LoadResult& result() const { return loader_->result(); }
  const std::string& error() const { return error_; }  // after kFailed

 private:
  std::vector<std::unique_ptr<db::Db>> staging_;
  std::unique_ptr<persist::SnapshotLoader> loader_;
  std::string pending_;  // bytes received, parsed up to parsed_
  size_t parsed_ = 0;
  bool at_end_ = false;
  bool committed_ = false;
  std::string error_;
  std::optional<std::array<uint8_t, 16>> new_seed_;  // the snapshot's, when it brings another
  std::optional<server::LoadingScope> loading_;
};

}  // namespace repl
