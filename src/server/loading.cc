#include "server/loading.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace server {

using namespace loading_detail;

LoadingScope::LoadingScope(bool async) : prev_(kind) {
  if (kind != kNone) return;
  kind = async ? kAsync : kBlocking;
  if (!async) {
    LoadingProgress() = {};
    LoadingProgress().start_time = time(nullptr);
  }
}
LoadingScope::~LoadingScope() { kind = prev_; }

LoadingProgressInfo& LoadingProgress() {
  static LoadingProgressInfo p;
  return p;
}

void AppendLoadingInfo(std::string* s) {
  if (!Loading()) return;
  const LoadingProgressInfo& p = LoadingProgress();
  // Valkey 8's figures: the share of the files loaded (of the used-mem estimate when the size
  // is unknown, never past 99.99), and the time left at the pace so far.
  double perc = 0;
  int64_t remaining = 1;
  if (p.total_bytes) {
    perc = static_cast<double>(p.loaded_bytes) / static_cast<double>(p.total_bytes) * 100;
    remaining = static_cast<int64_t>(p.total_bytes) - static_cast<int64_t>(p.loaded_bytes);
  } else if (p.rdb_used_mem > 0) {
    perc = static_cast<double>(p.loaded_bytes) / static_cast<double>(p.rdb_used_mem) * 100;
    if (perc > 99.99) perc = 99.99;
    remaining = std::max<int64_t>(1, p.rdb_used_mem - static_cast<int64_t>(p.loaded_bytes));
  }
  int64_t elapsed = time(nullptr) - p.start_time;
  int64_t eta = elapsed == 0 ? 1 : elapsed * remaining / static_cast<int64_t>(p.loaded_bytes + 1);
  char buf[320];
  snprintf(buf, sizeof(buf),
           "loading_start_time:%lld\r\nloading_total_bytes:%llu\r\nloading_rdb_used_mem:%llu\r\n"
           "loading_loaded_bytes:%llu\r\nloading_loaded_perc:%.2f\r\nloading_eta_seconds:%lld\r\n",
           static_cast<long long>(p.start_time), static_cast<unsigned long long>(p.total_bytes),
           static_cast<unsigned long long>(std::max<int64_t>(p.rdb_used_mem, 0)),
           static_cast<unsigned long long>(p.loaded_bytes), perc, static_cast<long long>(eta));
  *s += buf;
}

void KeyLoadDelay(int64_t us) {
  if (us > 0) usleep(static_cast<useconds_t>(us));
  if (us < 0 && rand() % -us == 0) usleep(1);
}

std::function<void(uint64_t)> LoadProgressHook(const int64_t* key_delay_us, const int64_t* interval,
                                               std::function<void()> serve) {
  uint64_t served = 0;  // the parsed bytes at the last serve()
  return [=](uint64_t parsed) mutable {
    LoadingProgress().loaded_bytes = LoadingProgress().base + parsed;
    KeyLoadDelay(*key_delay_us);
    uint64_t every = *interval > 0 ? static_cast<uint64_t>(*interval) : 0;
    if (every == 0 || parsed / every == served / every) return;
    served = parsed;
    serve();
  };
}

}  // namespace server
