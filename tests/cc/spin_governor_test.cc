// The spin governor: polling stops when this thread competes for its CPU or polls longer per
// event found than a sleep costs, and probes again with exponential back-off.
#include "net/spin_governor.h"

#include "check.h"

using net::SpinGovernor;
constexpr int64_t W = SpinGovernor::kWindowUs;
// Polls that found events as soon as they began: every microsecond of polling paid.
constexpr int64_t kFoundAll = W;

TEST_CASE(SpinGovernorKeepsPollingWithoutContention) {
  SpinGovernor g;
  int64_t now = 0;
  for (int i = 0; i < 100; i++) {
    now += W;
    g.EndWindow(now, W, W / 50, W / 4, kFoundAll);  // 2% run delay: the noise of a quiet host
    CHECK(g.enabled());
  }
}

TEST_CASE(SpinGovernorStopsOnContentionAndBacksOff) {
  SpinGovernor g;
  int64_t now = W;
  // waited 20% of the window for a CPU while polling
  g.EndWindow(now, W, W / 5, W / 4, kFoundAll);
  CHECK(!g.enabled());
  // Still paused just before the first back-off (1 s) ends, probing right after it.
  g.EndWindow(now + SpinGovernor::kMinBackoffUs - 1, W, 0, 0, 0);
  CHECK(!g.enabled());
  now += SpinGovernor::kMinBackoffUs;
  g.EndWindow(now, W, 0, 0, 0);
  CHECK(g.enabled());
  // Contention again: the pause doubles.
  now += W;
  g.EndWindow(now, W, W / 5, W / 4, kFoundAll);
  CHECK(!g.enabled());
  g.EndWindow(now + 2 * SpinGovernor::kMinBackoffUs - 1, W, 0, 0, 0);
  CHECK(!g.enabled());
  g.EndWindow(now + 2 * SpinGovernor::kMinBackoffUs, W, 0, 0, 0);
  CHECK(g.enabled());
}

TEST_CASE(SpinGovernorBackoffIsCappedAndForgotten) {
  SpinGovernor g;
  int64_t now = 0;
  int64_t pause = 0;
  for (int i = 0; i < 10; i++) {  // contention on every probe
    now += W;
    g.EndWindow(now, W, W / 2, W / 4, kFoundAll);
    CHECK(!g.enabled());
    int64_t start = now;
    while (!g.enabled()) {
      now += W;
      g.EndWindow(now, W, 0, 0, 0);
    }
    pause = now - start;
  }
  CHECK(pause <= SpinGovernor::kMaxBackoffUs + W);
  CHECK(pause >= SpinGovernor::kMaxBackoffUs);
  // A long clean stretch while polling resets the back-off to its minimum.
  for (int i = 0; i < 50; i++) {
    now += W;
    g.EndWindow(now, W, 0, W / 4, kFoundAll);
  }
  now += W;
  g.EndWindow(now, W, W / 2, W / 4, kFoundAll);
  CHECK(!g.enabled());
  g.EndWindow(now + SpinGovernor::kMinBackoffUs, W, 0, 0, 0);
  CHECK(g.enabled());
}

TEST_CASE(SpinGovernorIgnoresDelayWhenNotPolling) {
  // Run delay while not polling is not caused by us (e.g. a busy host): no reason to pause.
  SpinGovernor g;
  g.EndWindow(W, W, W / 2, 0, 0);
  CHECK(g.enabled());
}

TEST_CASE(SpinGovernorStopsWhenPollingWaitsLongPerEventFound) {
  SpinGovernor g;
  int64_t now = W;
  // 25 ms of polling in a window that found events 3,000 times: 8 us each, the client-bound
  // redis-benchmark -P1 case. No CPU contention, yet polling does not pay.
  g.EndWindow(now, W, 0, W / 4, 3000);
  CHECK(!g.enabled());
  now += SpinGovernor::kMinBackoffUs;
  g.EndWindow(now, W, 0, 0, 0);
  CHECK(g.enabled());
  // A server that is the bottleneck finds events at once: 1 us per event found.
  for (int i = 0; i < 10; i++) {
    now += W;
    g.EndWindow(now, W, 0, 5000, 5000);
    CHECK(g.enabled());
  }
  // At the limit it goes on; past it, it stops.
  now += W;
  g.EndWindow(now, W, 0, 3 * 2000, 2000);
  CHECK(g.enabled());
  now += W;
  g.EndWindow(now, W, 0, 3 * 2000 + 1, 2000);
  CHECK(!g.enabled());
}

TEST_CASE(SpinGovernorStopsWhenPollsFindNothing) {
  SpinGovernor g;
  g.EndWindow(W, W, 0, 2000, 0);  // ten 200 us polls that all ended empty
  CHECK(!g.enabled());
}
