// Log sink: one line per call, written with a single write(2) so lines never interleave.
#include "base/log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace base {
namespace {
int g_level = kLogNotice;
std::string g_path;
char g_role = 'M';

void WriteLine(const char* buf, size_t len) {
  int fd = STDOUT_FILENO;
  bool close_it = false;
  if (!g_path.empty()) {
    fd = open(g_path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    close_it = true;
  }
  ssize_t r = write(fd, buf, len);
  (void)r;
  if (close_it) close(fd);
}
}  // namespace

void SetLogLevel(int level) { g_level = level; }
int GetLogLevel() { return g_level; }
bool SetLogFile(const std::string& path) {
  if (!path.empty()) {
    int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return false;
    close(fd);
  }
  g_path = path;
  return true;
}
void SetLogRoleChar(char c) { g_role = c; }

void Log(int level, const char* fmt, ...) {
  if (level < g_level) return;
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  static const char kMarks[] = ".-*#";
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  char ts[64];
  size_t off = strftime(ts, sizeof(ts), "%d %b %Y %H:%M:%S.", &tm);
  snprintf(ts + off, sizeof(ts) - off, "%03d", static_cast<int>(tv.tv_usec / 1000));
  char line[4300];
  int n = snprintf(line, sizeof(line), "%d:%c %s %c %s\n", static_cast<int>(getpid()), g_role, ts,
                   kMarks[level > 3 ? 3 : level], msg);
  if (n > static_cast<int>(sizeof(line))) n = sizeof(line);
  WriteLine(line, n);
}

namespace {
// Decimal digits of v at the end of buf; returns where they start.
char* Digits(char* end, long long v) {
  char* p = end;
  if (v <= 0) {
    *--p = '0';
    return p;
  }
  while (v > 0) {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return p;
}
}  // namespace

void LogFromSignalHandler(const char* msg) {
  char line[512];
  size_t n = 0;
  auto put = [&](const char* s, size_t len) {
    for (size_t i = 0; i < len && n < sizeof(line) - 1; i++) line[n++] = s[i];
  };
  char num[24];
  char* d = Digits(num + sizeof(num), getpid());
  put(d, static_cast<size_t>(num + sizeof(num) - d));
  put(":signal-handler (", 17);
  d = Digits(num + sizeof(num), time(nullptr));
  put(d, static_cast<size_t>(num + sizeof(num) - d));
  put(") ", 2);
  size_t len = 0;
  while (msg[len]) len++;
  put(msg, len);
  line[n++] = '\n';
  WriteLine(line, n);
}

int OpenLogFd() {
  if (g_path.empty()) return STDOUT_FILENO;
  return open(g_path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
}

void CloseLogFd(int fd) {
  if (fd >= 0 && fd != STDOUT_FILENO) close(fd);
}

void LogRaw(int level, const std::string& text) {
  if (level < g_level) return;
  WriteLine(text.data(), text.size());
}
}  // namespace base
