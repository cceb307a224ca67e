// Server log in Valkey's line format: "pid:R dd Mon yyyy hh:mm:ss.mmm * message".
#pragma once
#include <string>

namespace base {
enum LogLevel { kLogDebug = 0, kLogVerbose = 1, kLogNotice = 2, kLogWarning = 3, kLogNothing = 4 };
void SetLogLevel(int level);
int GetLogLevel();
// "" means stdout. Returns false if the file cannot be opened.
bool SetLogFile(const std::string& path);
void SetLogRoleChar(char c);  // 'M' primary, 'S' replica, 'C' child
void Log(int level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// From a signal handler: only async-signal-safe calls (open, write, close), no formatting
// beyond the pid; the line reads "<pid>:signal-handler (<unix time>) <msg>", as Valkey's.
void LogFromSignalHandler(const char* msg);
// The log's descriptor for raw writes from a signal handler (open(2) of the file, or stdout);
// -1 if the file cannot be opened. Give it back to CloseLogFd.
int OpenLogFd();
void CloseLogFd(int fd);
// Raw line without the prefix (the start-up banner).
void LogRaw(int level, const std::string& text);
}  // namespace base

#define LOG_DEBUG(...) ::base::Log(::base::kLogDebug, __VA_ARGS__)
#define LOG_VERBOSE(...) ::base::Log(::base::kLogVerbose, __VA_ARGS__)
#define LOG_NOTICE(...) ::base::Log(::base::kLogNotice, __VA_ARGS__)
#define LOG_WARNING(...) ::base::Log(::base::kLogWarning, __VA_ARGS__)
