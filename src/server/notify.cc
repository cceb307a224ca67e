// Keyspace notifications.
#include "server/notify.h"

#include "server/pubsub.h"
#include "server/server.h"

namespace server {

int g_notify_flags = 0;

namespace {
constexpr int kAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
                     kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule;
}

int ParseNotifyFlags(std::string_view s) {
  int f = 0;
  for (char c : s) {
    switch (c) {
      case 'A':
        f |= kAll;
        break;
      case 'g':
        f |= kNotifyGeneric;
        break;
      case '$':
        f |= kNotifyString;
        break;
      case 'l':
        f |= kNotifyList;
        break;
      case 's':
        f |= kNotifySet;
        break;
      case 'h':
        f |= kNotifyHash;
        break;
      case 'z':
        f |= kNotifyZset;
        break;
      case 'x':
        f |= kNotifyExpired;
        break;
      case 'e':
        f |= kNotifyEvicted;
        break;
      case 'K':
        f |= kNotifyKeyspace;
        break;
      case 'E':
        f |= kNotifyKeyevent;
        break;
      case 't':
        f |= kNotifyStream;
        break;
      case 'm':
        f |= kNotifyKeyMiss;
        break;
      case 'd':
        f |= kNotifyModule;
        break;
      case 'n':
        f |= kNotifyNew;
        break;
      default:
        return -1;
    }
  }
  return f;
}

std::string FormatNotifyFlags(int f) {
  std::string s;
  if ((f & kAll) == kAll) {
    s += 'A';
  } else {
    if (f & kNotifyGeneric) s += 'g';
    if (f & kNotifyString) s += '$';
    if (f & kNotifyList) s += 'l';
    if (f & kNotifySet) s += 's';
    if (f & kNotifyHash) s += 'h';
    if (f & kNotifyZset) s += 'z';
    if (f & kNotifyExpired) s += 'x';
    if (f & kNotifyEvicted) s += 'e';
    if (f & kNotifyStream) s += 't';
    if (f & kNotifyModule) s += 'd';
    if (f & kNotifyNew) s += 'n';  // as in Valkey, "A" hides 'n' (the flag stays set)
  }
  if (f & kNotifyKeyspace) s += 'K';
  if (f & kNotifyKeyevent) s += 'E';
  if (f & kNotifyKeyMiss) s += 'm';
  return s;
}

void Notify(int type, const char* event, std::string_view key, int dbid) {
  int f = g_notify_flags;
  if (!(f & type) || g.staging_writes) return;  // a staging db's keys are nobody's yet
  std::string db = std::to_string(dbid);
  if (f & kNotifyKeyspace) {
    std::string ch = "__keyspace@" + db + "__:";
    ch.append(key);
    PubsubPublish(ch, event);
  }
  if (f & kNotifyKeyevent) {
    std::string ch = "__keyevent@" + db + "__:" + event;
    PubsubPublish(ch, key);
  }
}

}  // namespace server
