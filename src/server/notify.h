// Keyspace notifications (notify-keyspace-events): every command that changes a key reports
// the change here with its event class and name.
#pragma once
#include <string>
#include <string_view>

namespace server {

enum NotifyClass : int {
  kNotifyKeyspace = 1 << 0,  // K
  kNotifyKeyevent = 1 << 1,  // E
  kNotifyGeneric = 1 << 2,   // g
  kNotifyString = 1 << 3,    // $
  kNotifyList = 1 << 4,      // l
  kNotifySet = 1 << 5,       // s
  kNotifyHash = 1 << 6,      // h
  kNotifyZset = 1 << 7,      // z
  kNotifyExpired = 1 << 8,   // x
  kNotifyEvicted = 1 << 9,   // e
  kNotifyStream = 1 << 10,   // t
  kNotifyKeyMiss = 1 << 11,  // m (not part of A)
  kNotifyLoaded = 1 << 12,   // loaded by modules only
  kNotifyModule = 1 << 13,   // d
  kNotifyNew = 1 << 14,      // n (not part of A)
};

// Publishes the event on __keyspace@<db>__:<key> and/or __keyevent@<db>__:<event> when the
// configured flags select it.
void Notify(int type, const char* event, std::string_view key, int dbid);

// notify-keyspace-events text <-> flags ("" = off). Parse returns -1 on an invalid char.
int ParseNotifyFlags(std::string_view s);
std::string FormatNotifyFlags(int flags);
extern int g_notify_flags;

}  // namespace server
