#include "server/crash_report.h"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/log.h"
#include "server/client.h"
#include "server/config.h"
#include "server/server.h"
#include "server/version.h"

namespace server {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 100;
// A stack of its own for the handlers, so that a stack overflow is reported too.
alignas(16) char g_alt_stack[64 * 1024];
bool g_watchdog_armed = false;

void Put(int fd, const char* s) {
  ssize_t r = write(fd, s, strlen(s));
  (void)r;
}

// The instruction the thread was running when the signal came (the crash site).
void* InstructionOf(void* secret) {
  if (!secret) return nullptr;
  auto* uc = static_cast<ucontext_t*>(secret);
#if defined(__x86_64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
  return nullptr;
#endif
}

// Valkey 8's section: the instruction, then the thread (id and name) and its frames, with
// symbol names (the binary exports them) and offsets for addr2line. Signal-safe: write(2) and
// backtrace(3), preloaded at install (its first call may allocate).
void LogStackTrace(void* eip) {
  int fd = base::OpenLogFd();
  if (fd < 0) return;
  Put(fd, "\n------ STACK TRACE ------\n");
  if (eip) {
    Put(fd, "EIP:\n");
    backtrace_symbols_fd(&eip, 1, fd);
  }
  char name[32] = "";
  prctl(PR_GET_NAME, name, 0, 0, 0);
  char head[96];
  snprintf(head, sizeof(head), "\n%ld %s\n", static_cast<long>(syscall(SYS_gettid)), name);
  Put(fd, head);
  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  backtrace_symbols_fd(frames, n, fd);
  Put(fd, "\n------ STACK TRACE DONE ------\n");
  base::CloseLogFd(fd);
}

// The command being run, if the crash came while one ran: its name only (its arguments may be
// user data, as hide-user-data-from-log keeps out of the log).
void LogCurrentCommand() {
  Client* c = g.current_client;
  if (!c) return;
  LOG_WARNING("------ CURRENT CLIENT INFO ------");
  LOG_WARNING("%s", ClientInfoForLog(c).c_str());
  LOG_WARNING("argc: '%zu'", c->argv.size());
  if (!c->argv.empty())
    LOG_WARNING("argv[0]: '%.*s'", static_cast<int>(std::min<size_t>(c->argv[0].size(), 64)),
                c->argv[0].data());
}

void ReportEnd() {
  LOG_WARNING(
      "=== VALKEY BUG REPORT END. Make sure to include from START to END. ===\n\n"
      "       Please report the crash with this report, the server's version and its "
      "configuration.\n");
}

void RestoreDefault(int sig) {
  struct sigaction act = {};
  act.sa_handler = SIG_DFL;
  sigemptyset(&act.sa_mask);
  sigaction(sig, &act, nullptr);
}

void OnFatalSignal(int sig, siginfo_t* info, void* secret) {
  LOG_WARNING("\n\n=== VALKEY BUG REPORT START: Cut & paste starting from here ===");
  LOG_WARNING("Valkey %s crashed by signal: %d, si_code: %d", kValkeyVersion, sig, info->si_code);
  if (sig == SIGSEGV || sig == SIGBUS) LOG_WARNING("Accessing address: %p", info->si_addr);
  if (info->si_code == SI_USER && info->si_pid != -1)
    LOG_WARNING("Killed by PID: %ld, UID: %d", static_cast<long>(info->si_pid),
                static_cast<int>(info->si_uid));
  void* eip = InstructionOf(secret);
  if (eip) LOG_WARNING("Crashed running the instruction at: %p", eip);
  LogStackTrace(eip);
  LogCurrentCommand();
  ReportEnd();
  // Die of the signal itself: its exit status, and a core dump where the system keeps one.
  RestoreDefault(sig);
  kill(getpid(), sig);
}

// Not fatal: where the main thread is, now (kill -ALRM) or once the watchdog's period passed
// without a cron tick re-arming it (si_pid 0: the timer).
void OnAlarm(int, siginfo_t* info, void* secret) {
  base::LogFromSignalHandler(info->si_pid == 0 ? "--- WATCHDOG TIMER EXPIRED ---"
                                               : "Received SIGALRM");
  LogStackTrace(InstructionOf(secret));
  base::LogFromSignalHandler("--------");
}

void SetFatalHandlers(bool on) {
#if defined(__SANITIZE_ADDRESS__)
  on = false;  // AddressSanitizer reports faults itself, with more than a stack trace
#endif
  for (int sig : kFatalSignals) {
    if (!on) {
      RestoreDefault(sig);
      continue;
    }
    struct sigaction act = {};
    sigemptyset(&act.sa_mask);
    // Reset at entry: a second fault inside the report ends it instead of looping.
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND | SA_ONSTACK;
    act.sa_sigaction = OnFatalSignal;
    sigaction(sig, &act, nullptr);
  }
}

}  // namespace

void InstallCrashHandlers() {
  void* warm[1];
  backtrace(warm, 1);  // loads what backtrace needs now, not inside a handler
  stack_t ss = {};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof(g_alt_stack);
  sigaltstack(&ss, nullptr);
  struct sigaction act = {};
  sigemptyset(&act.sa_mask);
  act.sa_flags = SA_SIGINFO | SA_RESTART;  // interrupted reads and writes resume
  act.sa_sigaction = OnAlarm;
  sigaction(SIGALRM, &act, nullptr);
  SetFatalHandlers(cfg.crash_log_enabled);
}

bool ApplyCrashLog() {
  SetFatalHandlers(cfg.crash_log_enabled);
  return true;
}

void WatchdogCron() {
  if (cfg.watchdog_period <= 0 && !g_watchdog_armed) return;
  struct itimerval it = {};
  if (cfg.watchdog_period > 0) {
    // At least two cron periods: a timer the cron cannot re-arm in time fires on every pass.
    int64_t ms = std::max<int64_t>(cfg.watchdog_period, 2 * 1000 / std::max<int64_t>(cfg.hz, 1));
    it.it_value.tv_sec = ms / 1000;
    it.it_value.tv_usec = (ms % 1000) * 1000;
  }
  setitimer(ITIMER_REAL, &it, nullptr);
  g_watchdog_armed = cfg.watchdog_period > 0;
}

void BlockAlarmInThisThread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void AssertFailed(const char* expr, const char* file, int line) {
  LOG_WARNING("=== ASSERTION FAILED ===");
  LOG_WARNING("==> %s:%d '%s' is not true", file, line, expr);
  LOG_WARNING("\n\n=== VALKEY BUG REPORT START: Cut & paste starting from here ===");
  LogStackTrace(nullptr);
  LogCurrentCommand();
  ReportEnd();
  SetFatalHandlers(false);  // the abort below is not a second crash
  abort();
}

}  // namespace server
