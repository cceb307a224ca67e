// The spin governor: polling stops when this thread competes for its CPU, and probes again
// with exponential back-off.
#include "net/spin_governor.h"

#include "check.h"

using net::SpinGovernor;
constexpr int64_t W = SpinGovernor::kWindowUs;

TEST_CASE(SpinGovernorKeepsPollingWithoutContention) {
  SpinGovernor g;
  int64_t now = 0;
  for (int i = 0; i < 100; i++) {
    now += W;
    g.EndWindow(now, W, W / 50, W / 4);  // 2% run delay: the noise of a quiet host
    CHECK(g.enabled());
  }
}

TEST_CASE(SpinGovernorStopsOnContentionAndBacksOff) {
  SpinGovernor g;
  int64_t now = W;
  g.EndWindow(now, W, W / 5, W / 4);  // waited 20% of the window for a CPU while polling
  CHECK(!g.enabled());
  // Still paused just before the first back-off (1 s) ends, probing right after it.
  g.EndWindow(now + SpinGovernor::kMinBackoffUs - 1, W, 0, 0);
  CHECK(!g.enabled());
  now += SpinGovernor::kMinBackoffUs;
  g.EndWindow(now, W, 0, 0);
  CHECK(g.enabled());
  // Contention again: the pause doubles.
  now += W;
  g.EndWindow(now, W, W / 5, W / 4);
  CHECK(!g.enabled());
  g.EndWindow(now + 2 * SpinGovernor::kMinBackoffUs - 1, W, 0, 0);
  CHECK(!g.enabled());
  g.EndWindow(now + 2 * SpinGovernor::kMinBackoffUs, W, 0, 0);
  CHECK(g.enabled());
}

TEST_CASE(SpinGovernorBackoffIsCappedAndForgotten) {
  SpinGovernor g;
  int64_t now = 0;
  int64_t pause = 0;
  for (int i = 0; i < 10; i++) {  // contention on every probe
    now += W;
    g.EndWindow(now, W, W / 2, W / 4);
    CHECK(!g.enabled());
    int64_t start = now;
    while (!g.enabled()) {
      now += W;
      g.EndWindow(now, W, 0, 0);
    }
    pause = now - start;
  }
  CHECK(pause <= SpinGovernor::kMaxBackoffUs + W);
  CHECK(pause >= SpinGovernor::kMaxBackoffUs);
  // A long clean stretch while polling resets the back-off to its minimum.
  for (int i = 0; i < 50; i++) {
    now += W;
    g.EndWindow(now, W, 0, W / 4);
  }
  now += W;
  g.EndWindow(now, W, W / 2, W / 4);
  CHECK(!g.enabled());
  g.EndWindow(now + SpinGovernor::kMinBackoffUs, W, 0, 0);
  CHECK(g.enabled());
}

TEST_CASE(SpinGovernorIgnoresDelayWhenNotPolling) {
  // Run delay while not polling is not caused by us (e.g. a busy host): no reason to pause.
  SpinGovernor g;
  g.EndWindow(W, W, W / 2, 0);
  CHECK(g.enabled());
}
