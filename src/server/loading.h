// A load of the dataset in progress (the snapshot or AOF at start, DEBUG RELOAD) and what the
// node does meanwhile, as Valkey 8 does between the keys it loads: every
// loading-process-events-interval-bytes it serves the events ready (ServeWhileLoading in
// server.h: clients get -LOADING unless their command is flagged loading, the cluster bus is
// answered so that a long load does not make the node look dead), and key-load-delay slows
// each key down (tests). A replica's full sync loads in slices of the loop instead, beside the
// served data (repl/staged_load.h); with repl-diskless-load swapdb it marks an async load.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace server {


// Marks a load for its lifetime (nested ones keep the outer kind). async: the old data is
// served meanwhile (repl-diskless-load swapdb), and only commands flagged no-async-loading
// wait.
class LoadingScope {
 public:
  explicit LoadingScope(bool async);
  ~LoadingScope();
  LoadingScope(const LoadingScope&) = delete;
  LoadingScope& operator=(const LoadingScope&) = delete;

 private:
  int prev_;
};

namespace loading_detail {
enum Kind { kNone, kBlocking, kAsync };
inline int kind = kNone;  // LoadingScope's; read inline by the gate on every command
}  // namespace loading_detail
// A load whose data is not served yet runs.
inline bool Loading() { return loading_detail::kind == loading_detail::kBlocking; }
// A load beside the served data runs.
inline bool AsyncLoading() { return loading_detail::kind == loading_detail::kAsync; }

// INFO's loading_* fields (Valkey 8's), while a load that serves no data runs: when it
// started, the bytes it loads (the files' sizes) and has loaded (`base`: those of the files
// already loaded, for an AOF's several), and the snapshot's used-mem aux field. Reset when
// such a load starts.
struct LoadingProgressInfo {
  int64_t start_time = 0;  // seconds
  uint64_t total_bytes = 0, base = 0, loaded_bytes = 0;
  int64_t rdb_used_mem = 0;
};
LoadingProgressInfo& LoadingProgress();
// The fields, when Loading().
void AppendLoadingInfo(std::string* s);

// key-load-delay's sleep for one key: us microseconds (a negative -n: 1 us once in n keys on
// average, as Valkey's debugDelay).
void KeyLoadDelay(int64_t us);

// The after_key hook of a load (persist::LoadOptions): KeyLoadDelay(*key_delay_us) per key;
// each time the parsed bytes pass a multiple of *interval, serve(). Both are read at each key: CONFIG SET may change
// them meanwhile.
std::function<void(uint64_t parsed)> LoadProgressHook(const int64_t* key_delay_us,
                                                      const int64_t* interval,
                                                      std::function<void()> serve);

}  // namespace server
