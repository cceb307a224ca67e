#include "server/loading.h"

#include <unistd.h>

#include <cstdlib>

namespace server {

namespace {
enum Kind { kNone, kBlocking, kAsync };
int g_kind = kNone;
}  // namespace

LoadingScope::LoadingScope(bool async) : prev_(g_kind) {
  if (g_kind == kNone) g_kind = async ? kAsync : kBlocking;
}
LoadingScope::~LoadingScope() { g_kind = prev_; }

bool Loading() { return g_kind == kBlocking; }
bool AsyncLoading() { return g_kind == kAsync; }
void LoadingServesNoData() {
  if (g_kind == kAsync) g_kind = kBlocking;
}

std::function<void(uint64_t)> LoadProgressHook(const int64_t* key_delay_us, const int64_t* interval,
                                               std::function<void()> serve) {
  uint64_t served = 0;  // the parsed bytes at the last serve()
  return [=](uint64_t parsed) mutable {
    int64_t delay = *key_delay_us;
    if (delay > 0) usleep(static_cast<useconds_t>(delay));
    if (delay < 0 && rand() % -delay == 0) usleep(1);
    uint64_t every = *interval > 0 ? static_cast<uint64_t>(*interval) : 0;
    if (every == 0 || parsed / every == served / every) return;
    served = parsed;
    serve();
  };
}

}  // namespace server
