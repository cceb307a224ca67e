#include "server/loading.h"

#include <unistd.h>

#include <cstdlib>

namespace server {

using namespace loading_detail;

LoadingScope::LoadingScope(bool async) : prev_(kind) {
  if (kind == kNone) kind = async ? kAsync : kBlocking;
}
LoadingScope::~LoadingScope() { kind = prev_; }

void KeyLoadDelay(int64_t us) {
  if (us > 0) usleep(static_cast<useconds_t>(us));
  if (us < 0 && rand() % -us == 0) usleep(1);
}

std::function<void(uint64_t)> LoadProgressHook(const int64_t* key_delay_us, const int64_t* interval,
                                               std::function<void()> serve) {
  uint64_t served = 0;  // the parsed bytes at the last serve()
  return [=](uint64_t parsed) mutable {
    KeyLoadDelay(*key_delay_us);
    uint64_t every = *interval > 0 ? static_cast<uint64_t>(*interval) : 0;
    if (every == 0 || parsed / every == served / every) return;
    served = parsed;
    serve();
  };
}

}  // namespace server
