// Timers of the event loop: periodic, one-shot, deletion from inside callbacks.
#include "net/event_loop.h"

#include "check.h"

TEST_CASE(TimersOneShotPeriodicAndDeletion) {
  net::EventLoop loop(64);
  int periodic = 0, once = 0, deleted_ran = 0;
  int tick = loop.AddTimer(1, [&] { periodic++; });
  int doomed = loop.AddOneShot(50, [&] { deleted_ran++; });
  loop.AddOneShot(5, [&] {
    once++;
    loop.DelTimer(doomed);  // another timer, not yet due
    loop.DelTimer(12345);   // unknown ids are ignored
    // A timer added from a callback runs later, not in this pass.
    loop.AddOneShot(5, [&] {
      loop.DelTimer(tick);  // a periodic one, from inside a callback
      loop.AddOneShot(0, [&] { loop.Stop(); });
    });
  });
  loop.Run();
  CHECK_EQ(once, 1);
  CHECK_EQ(deleted_ran, 0);
  CHECK(periodic >= 2);
  int seen = periodic;
  // The periodic timer is gone: another run of the loop does not call it.
  bool second_run = false;
  loop.AddOneShot(5, [&] {
    second_run = true;
    loop.Stop();
  });
  loop.Run();
  CHECK(second_run);
  CHECK_EQ(periodic, seen);
}

TEST_CASE(TimerDeletesItself) {
  net::EventLoop loop(64);
  int runs = 0, id = 0;
  id = loop.AddTimer(1, [&] {
    runs++;
    loop.DelTimer(id);
  });
  loop.AddOneShot(20, [&] { loop.Stop(); });
  loop.Run();
  CHECK_EQ(runs, 1);
}
