// Client-side caching (CLIENT TRACKING): the keys each tracking client has read, the prefixes of
// broadcasting clients, and the invalidation messages (RESP3 pushes, or Pub/Sub messages on
// __redis__:invalidate to a redirect client) when those keys change, expire, are evicted or
// the data set is flushed. Valkey 8's behaviour and texts.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace server {
struct Client;
struct CommandSpec;

// A tracking client's mode (Client::tracking; null while tracking is off).
struct TrackingState {
  bool bcast = false, optin = false, optout = false, noloop = false;
  bool caching = false;          // CLIENT CACHING yes (optin) / no (optout) for the next command
  bool broken_redirect = false;  // the redirect client went away
  uint64_t redirect = 0;         // client id, 0: this connection
  // BCAST, in byte order as Valkey 8 lists them; none overlaps another, but for the empty one
  // that BCAST without PREFIX adds (as Valkey 8 does, whatever the client had).
  std::set<std::string, std::less<>> prefixes;
  size_t prefix_bytes = 0;  // their memory, here and in the node's prefix table
};

// CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO.
void ClientTrackingCommand(Client* c);
void ClientCachingCommand(Client* c);
void ClientGetRedirCommand(Client* c);
void ClientTrackingInfoCommand(Client* c);

// After a command ran: remember the keys a read-only command read (default mode), and clear
// the one-command CLIENT CACHING flag.
void TrackingAfterCommand(Client* c, const CommandSpec* cmd, bool in_exec);
// A key changed: clients that read it are told (and forget it); broadcast prefixes collect it.
void TrackingInvalidateKey(std::string_view key);
// The data set was flushed: every tracking client gets a null invalidation.
void TrackingInvalidateAll();
// Some slots' keys (`slots`, indexed by slot) were flushed at once: the keys of those slots
// that clients read (the table only: broadcast prefixes hear of each key as it is freed,
// through TrackingInvalidateKey); a big table gets TrackingInvalidateAll instead.
void TrackingInvalidateSlots(const std::vector<bool>& slots);
// Before the loop sleeps: the broadcast messages of the keys collected since the last time.
void TrackingBeforeSleep();
// Keeps the table under tracking-table-max-keys, the readers of the keys it forgets told as
// if they changed: before each command that passes the gate (a burst of reads cannot grow it
// far past the limit between two cron ticks) and from the cron.
void TrackingLimitKeys();
// Cron: forgets the table once no client tracks, and keeps it under the limit.
void TrackingCron();
void TrackingClientFreed(Client* c);
void TrackingDisable(Client* c);  // CLIENT TRACKING off, RESET

struct TrackingStats {
  size_t clients, keys, items, prefixes;
};
TrackingStats GetTrackingStats();

}  // namespace server
