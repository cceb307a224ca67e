// A load's state and its between-keys hook (server/loading.h): when the node serves, and what
// kind of load the gate sees.
#include "server/loading.h"

#include <vector>

#include "check.h"

TEST_CASE(LoadProgressServesOnceEachIntervalCrossed) {
  int64_t delay = 0, interval = 100;
  int served = 0;
  auto hook = server::LoadProgressHook(&delay, &interval, [&] { served++; });
  struct Step {
    uint64_t parsed;
    int served_after;
  } steps[] = {
      {10, 0},   // within the first interval
      {99, 0},   //
      {100, 1},  // crossed 100
      {150, 1},  // same interval
      {450, 2},  // several crossed at once: one serve
      {499, 2},  //
      {500, 3},  //
  };
  for (const Step& s : steps) {
    hook(s.parsed);
    CHECK_EQ(served, s.served_after);
  }
  interval = 1000;  // CONFIG SET during the load takes effect at the next key
  hook(900);
  CHECK_EQ(served, 3);
  hook(1000);
  CHECK_EQ(served, 4);
}

TEST_CASE(LoadingScopeKinds) {
  CHECK(!server::Loading() && !server::AsyncLoading());
  {
    server::LoadingScope async(true);
    CHECK(server::AsyncLoading() && !server::Loading());
    {
      server::LoadingScope inner(false);  // nested: the outer kind stays
      CHECK(server::AsyncLoading());
    }
    CHECK(server::AsyncLoading());
  }
  CHECK(!server::Loading() && !server::AsyncLoading());
  {
    server::LoadingScope blocking(false);
    CHECK(server::Loading() && !server::AsyncLoading());
  }
  CHECK(!server::Loading());
}
