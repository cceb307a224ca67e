// Signals a helper thread leaves to the main thread.
#pragma once
#include <pthread.h>
#include <signal.h>

namespace base {

// Blocks `sig` in the calling thread: a signal sent to the process (a timer's SIGALRM) then
// goes to a thread that does not block it.
inline void BlockSignalInThisThread(int sig) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace base
