// Bug reports and stack traces in the log, as an operator of Valkey 8 finds them there.
// - A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) logs "=== VALKEY BUG REPORT
//   START ...", the signal, the instruction and the stack trace of the thread that got it, the
//   command being run, then dies of the same signal (a core dump where the system keeps one).
//   crash-log-enabled no leaves those signals to the system.
// - SIGALRM logs the stack trace of the main thread and goes on ("Received SIGALRM"); with
//   watchdog-period set, the cron re-arms a timer at each tick, so a loop pass stuck longer than
//   the period logs where it is ("--- WATCHDOG TIMER EXPIRED ---"). Helper threads block
//   SIGALRM (base/thread_signals.h), so that it comes to the main thread.
// - AssertFailed logs "=== ASSERTION FAILED ===" and the report, then aborts (DEBUG ASSERT).
#pragma once

#include <cstdint>
#include <string>

namespace server {

// At start, once the log is set up: SIGALRM always, the fatal signals when `fatal` (crash-log-
// enabled). `current_command` describes the command being run for the report (log lines, ""
// when none); it is called only while the node crashes.
void InstallCrashHandlers(bool fatal, std::string (*current_command)());
// crash-log-enabled changed (CONFIG SET).
void HandleFatalSignals(bool on);
// The watchdog timer armed for `period_ms` (at least two cron periods at `hz`), or stopped at
// 0: called at each cron tick and when watchdog-period changes.
void ArmWatchdog(int64_t period_ms, int64_t hz);
[[noreturn]] void AssertFailed(const char* expr, const char* file, int line);

}  // namespace server
