#include "server/crash_report.h"

#include <execinfo.h>
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
#include "server/version.h"

namespace server {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 100;
// A stack of its own for the handlers, so that a stack overflow is reported too.
alignas(16) char g_alt_stack[64 * 1024];
bool g_watchdog_armed = false;
std::string (*g_current_command)() = nullptr;

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

// The command being run, if the crash came while one ran (server.cc says which).
void LogCurrentCommand() {
  if (!g_current_command) return;
  std::string lines = g_current_command();
  for (size_t at = 0; at < lines.size();) {
    size_t nl = std::min(lines.find('\n', at), lines.size());
    LOG_WARNING("%.*s", static_cast<int>(nl - at), lines.data() + at);
    at = nl + 1;
  }
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

void InstallCrashHandlers(bool fatal, std::string (*current_command)()) {
  g_current_command = current_command;
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
  SetFatalHandlers(fatal);
}

void HandleFatalSignals(bool on) { SetFatalHandlers(on); }

void ArmWatchdog(int64_t period_ms, int64_t hz) {
  if (period_ms <= 0 && !g_watchdog_armed) return;
  struct itimerval it = {};
  if (period_ms > 0) {
    // A timer the cron cannot re-arm in time would fire on every pass.
    int64_t ms = std::max<int64_t>(period_ms, 2 * 1000 / std::max<int64_t>(hz, 1));
    it.it_value.tv_sec = ms / 1000;
    it.it_value.tv_usec = (ms % 1000) * 1000;
  }
  setitimer(ITIMER_REAL, &it, nullptr);
  g_watchdog_armed = period_ms > 0;
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
