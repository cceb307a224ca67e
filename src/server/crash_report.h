// Bug reports and stack traces in the log, as an operator of Valkey 8 finds them there.
// - A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) logs "=== VALKEY BUG REPORT
//   START ...", the signal, the instruction and the stack trace of the thread that got it, the
//   command being run, then dies of the same signal (a core dump where the system keeps one).
//   crash-log-enabled no leaves those signals to the system.
// - SIGALRM logs the stack trace of the main thread and goes on ("Received SIGALRM"); with
//   watchdog-period set, the cron re-arms a timer at each tick, so a loop pass stuck longer than
//   the period logs where it is ("--- WATCHDOG TIMER EXPIRED ---").
// - AssertFailed logs "=== ASSERTION FAILED ===" and the report, then aborts (DEBUG ASSERT).
#pragma once

namespace server {

// At start, once the log is set up: SIGALRM always, the fatal signals per crash-log-enabled.
void InstallCrashHandlers();
// crash-log-enabled changed (CONFIG SET).
bool ApplyCrashLog();
// Each cron tick: the watchdog timer re-armed for watchdog-period (or stopped at 0).
void WatchdogCron();
[[noreturn]] void AssertFailed(const char* expr, const char* file, int line);
// Helper threads call it first: a timer's SIGALRM then comes to the main thread, whose stack
// is the one the watchdog is for.
void BlockAlarmInThisThread();

}  // namespace server
