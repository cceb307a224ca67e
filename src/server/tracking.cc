// Client-side caching: the tracking table (key -> ids of the clients that read it), the
// broadcast prefixes, and the invalidation messages.
#include "server/tracking.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "base/crc16.h"
#include "base/util.h"
#include "net/reply.h"
#include "server/client.h"
#include "server/command.h"
#include "server/config.h"
#include "server/pubsub.h"
#include "server/server.h"

namespace server {
void InvalidateKey(std::string_view key, bool bcast);  // bcast: also the broadcast prefixes
namespace {

constexpr std::string_view kChannel = "__redis__:invalidate";

// Keys read by clients in the default mode. Ids, not pointers: a client that went away is
// simply skipped when the key changes (as Valkey does).
std::unordered_map<std::string, std::unordered_set<uint64_t>> g_table;
size_t g_items = 0;

struct Prefix {
  std::unordered_set<uint64_t> clients;
  std::vector<std::pair<std::string, uint64_t>> keys;  // changed keys and who changed them
};
std::map<std::string, Prefix, std::less<>> g_prefixes;
size_t g_tracking_clients = 0;

Client* ById(uint64_t id) {
  auto it = g.clients_by_id.find(id);
  return it == g.clients_by_id.end() ? nullptr : it->second;
}

// Sends an invalidation of `keys` (nullptr: the whole data set) to tracking client c, or to
// its redirect client. RESP2 connections can only receive it as a Pub/Sub message.
void Send(Client* c, const std::vector<std::string_view>* keys) {
  Client* to = c;
  bool redirected = false;
  if (c->tracking->redirect) {
    to = ById(c->tracking->redirect);
    if (!to) {
      if (!c->tracking->broken_redirect) {
        c->tracking->broken_redirect = true;
        if (c->resp > 2) {
          std::string msg;
          net::Reply r(&msg, c->resp);
          r.PushLen(2);
          r.Bulk("tracking-redir-broken");
          r.Int(static_cast<int64_t>(c->tracking->redirect));
          PubsubDeliverRaw(c, msg);
        }
      }
      return;
    }
    redirected = true;
  }
  std::string msg;
  net::Reply r(&msg, to->resp);
  if (to->resp > 2) {
    r.PushLen(2);
    r.Bulk("invalidate");
  } else if (redirected && to->pubsub) {
    r.ArrayLen(3);
    r.Bulk("message");
    r.Bulk(kChannel);
  } else {
    return;  // a RESP2 connection without a Pub/Sub redirect cannot be told
  }
  if (!keys) {
    r.Null();
  } else {
    r.ArrayLen(static_cast<int64_t>(keys->size()));
    for (auto k : *keys) r.Bulk(k);
  }
  PubsubDeliverRaw(to, msg);
}

void Forget(std::unordered_map<std::string, std::unordered_set<uint64_t>>::iterator it) {
  g_items -= it->second.size();
  g_table.erase(it);
}

bool Overlaps(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

void EnableBcastPrefix(Client* c, const std::string& p) {
  auto& st = *c->tracking;
  if (!st.prefixes.insert(p).second) return;
  // A tree node here and one in the node's prefix table, and the id in its client set.
  st.prefix_bytes +=
      2 * (4 * sizeof(void*) + sizeof(std::string) + p.capacity()) + 3 * sizeof(void*);
  g_prefixes[p].clients.insert(c->id);
}

// The first of a client's prefixes, in byte order (Valkey 8 walks them in that order), that
// overlaps p, or null: two lookups instead of a walk, for a client adding prefixes one command
// at a time. None overlaps another but "", which overlaps all and comes first; so the prefix
// just below p is the only one that can be a prefix of p, and the one at or after it the first
// that can extend p.
const std::string* ExistingOverlap(const std::set<std::string, std::less<>>& have,
                                   std::string_view p) {
  if (have.empty()) return nullptr;
  if (have.begin()->empty()) return &*have.begin();
  auto after = have.lower_bound(p);
  if (after != have.end() && *after == p) return &*after;
  if (after != have.begin() && p.starts_with(*std::prev(after))) return &*std::prev(after);
  if (after != have.end() && after->starts_with(p)) return &*after;
  return nullptr;
}

}  // namespace

void TrackingDisable(Client* c) {
  if (!c->tracking) return;
  for (auto& p : c->tracking->prefixes) {
    auto it = g_prefixes.find(p);
    if (it == g_prefixes.end()) continue;
    it->second.clients.erase(c->id);
    if (it->second.clients.empty()) g_prefixes.erase(it);
  }
  delete c->tracking;
  c->tracking = nullptr;
  g_tracking_clients--;
}

void TrackingClientFreed(Client* c) { TrackingDisable(c); }

void ClientTrackingCommand(Client* c) {
  auto& a = c->argv;
  bool on;
  if (base::EqualsNoCase(a[2], "on"))
    on = true;
  else if (base::EqualsNoCase(a[2], "off"))
    on = false;
  else
    return c->R().Error(kErrSyntax);
  bool bcast = false, optin = false, optout = false, noloop = false;
  uint64_t redirect = 0;
  std::vector<std::string> prefixes;
  for (size_t j = 3; j < a.size(); j++) {
    bool more = j + 1 < a.size();
    if (base::EqualsNoCase(a[j], "redirect") && more) {
      j++;
      if (redirect) return c->R().Error("A client can only redirect to a single other client");
      int64_t id;
      if (!ArgInt(c, a[j], &id)) return;
      if (!ById(static_cast<uint64_t>(id)))
        return c->R().Error("The client ID you want redirect to does not exist");
      redirect = static_cast<uint64_t>(id);
    } else if (base::EqualsNoCase(a[j], "bcast")) {
      bcast = true;
    } else if (base::EqualsNoCase(a[j], "optin")) {
      optin = true;
    } else if (base::EqualsNoCase(a[j], "optout")) {
      optout = true;
    } else if (base::EqualsNoCase(a[j], "noloop")) {
      noloop = true;
    } else if (base::EqualsNoCase(a[j], "prefix") && more) {
      prefixes.emplace_back(a[++j]);
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  if (!on) {
    TrackingDisable(c);
    return c->R().Ok();
  }
  if (!bcast && !prefixes.empty())
    return c->R().Error("PREFIX option requires BCAST mode to be enabled");
  if (c->tracking && c->tracking->bcast != bcast)
    return c->R().Error(
        "You can't switch BCAST mode on/off before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
  if (optin && optout) return c->R().Error("You can't specify both OPTIN mode and OPTOUT mode");
  if ((optin && c->tracking && c->tracking->optout) ||
      (optout && c->tracking && c->tracking->optin))
    return c->R().Error(
        "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
        "re-enabling it with a different mode.");
  if (bcast && (optin || optout))
    return c->R().Error("OPTIN and OPTOUT are not compatible with BCAST");
  if (bcast) {
    // A prefix may not overlap another given now or one the client already has.
    for (size_t i = 0; i < prefixes.size(); i++) {
      const std::string* have =
          c->tracking ? ExistingOverlap(c->tracking->prefixes, prefixes[i]) : nullptr;
      if (have)
        return c->R().Error("Prefix '" + prefixes[i] + "' overlaps with an existing prefix '" +
                            *have + "'. Prefixes for a single client must not overlap.");
      for (size_t j = i + 1; j < prefixes.size(); j++)
        if (Overlaps(prefixes[i], prefixes[j]))
          return c->R().Error("Prefix '" + prefixes[i] + "' overlaps with another provided prefix '" +
                              prefixes[j] + "'. Prefixes for a single client must not overlap.");
    }
  }
  if (!c->tracking) {
    c->tracking = new TrackingState();
    g_tracking_clients++;
  }
  auto& st = *c->tracking;
  st.bcast = bcast;
  st.optin = optin;
  st.optout = optout;
  st.noloop = noloop;
  st.redirect = redirect;
  st.broken_redirect = false;
  if (bcast) {
    if (prefixes.empty()) prefixes.emplace_back("");
    for (auto& p : prefixes) EnableBcastPrefix(c, p);
  }
  c->R().Ok();
}

void ClientCachingCommand(Client* c) {
  if (!c->tracking || !(c->tracking->optin || c->tracking->optout))
    return c->R().Error(
        "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
  std::string_view v = c->argv[2];
  if (base::EqualsNoCase(v, "yes")) {
    if (!c->tracking->optin)
      return c->R().Error(
          "CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
  } else if (base::EqualsNoCase(v, "no")) {
    if (!c->tracking->optout)
      return c->R().Error(
          "CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
  } else {
    return c->R().Error(kErrSyntax);
  }
  c->tracking->caching = true;
  c->R().Ok();
}

void ClientGetRedirCommand(Client* c) {
  if (!c->tracking) return c->R().Int(-1);
  c->R().Int(static_cast<int64_t>(c->tracking->redirect));
}

void ClientTrackingInfoCommand(Client* c) {
  auto r = c->R();
  r.MapLen(3);
  r.Bulk("flags");
  std::vector<const char*> flags;
  const TrackingState* st = c->tracking;
  if (!st) {
    flags.push_back("off");
  } else {
    flags.push_back("on");
    if (st->bcast) flags.push_back("bcast");
    if (st->optin) flags.push_back("optin");
    if (st->optout) flags.push_back("optout");
    if (st->caching) flags.push_back(st->optin ? "caching-yes" : "caching-no");
    if (st->noloop) flags.push_back("noloop");
    if (st->broken_redirect) flags.push_back("broken_redirect");
  }
  r.SetLen(static_cast<int64_t>(flags.size()));
  for (auto* f : flags) r.Bulk(f);
  r.Bulk("redirect");
  r.Int(st ? static_cast<int64_t>(st->redirect) : -1);
  r.Bulk("prefixes");
  r.ArrayLen(st ? static_cast<int64_t>(st->prefixes.size()) : 0);
  if (st)
    for (auto& p : st->prefixes) r.Bulk(p);
}

void TrackingAfterCommand(Client* c, const CommandSpec* cmd, bool in_exec) {
  TrackingState* st = c->tracking;
  if (!st) return;
  if (!st->bcast && (cmd->flags & kCmdReadonly) && !((st->optin && !st->caching) ||
                                                     (st->optout && st->caching))) {
    std::vector<KeyRef> keys;
    if (FindKeys(cmd, c->argv, &keys))
      for (auto& k : keys) {
        auto& ids = g_table[std::string(c->argv[k.pos])];
        if (ids.insert(c->id).second) g_items++;
      }
  }
  // CLIENT CACHING applies to the next command (or to a whole transaction).
  if (!in_exec && !c->InMulti() && cmd->parent && std::string_view(cmd->parent->name) == "client")
    return;
  if (!in_exec && !c->InMulti()) st->caching = false;
}

void TrackingInvalidateKey(std::string_view key) { InvalidateKey(key, true); }

void InvalidateKey(std::string_view key, bool bcast) {
  if (!g_tracking_clients) return;
  if (bcast)
    for (auto& [p, pre] : g_prefixes)
      if (key.size() >= p.size() && key.compare(0, p.size(), p) == 0)
        pre.keys.emplace_back(std::string(key), g.current_client ? g.current_client->id : 0);
  if (g_table.empty()) return;
  auto it = g_table.find(std::string(key));
  if (it == g_table.end()) return;
  std::vector<std::string_view> one{key};
  for (uint64_t id : it->second) {
    Client* c = ById(id);
    if (!c || !c->tracking || c->tracking->bcast) continue;
    if (c->tracking->noloop && c == g.current_client) continue;
    Send(c, &one);
  }
  Forget(it);
}

void TrackingInvalidateSlots(const std::vector<bool>& slots) {
  if (!g_tracking_clients || g_table.empty()) return;
  // One pass over the table; past this size every client drops its cache instead, as at
  // FLUSHALL, rather than stall the loop.
  constexpr size_t kMaxScan = 65536;
  if (g_table.size() > kMaxScan) return TrackingInvalidateAll();
  std::vector<std::string> keys;
  for (auto& [k, ids] : g_table)
    if (slots[static_cast<size_t>(base::KeySlot(k))]) keys.push_back(k);
  for (const std::string& k : keys) InvalidateKey(k, false);
}

void TrackingInvalidateAll() {
  if (g_tracking_clients)
    for (Client* c : g.clients)
      if (c->tracking) Send(c, nullptr);
  g_table.clear();
  g_items = 0;
}

void TrackingBeforeSleep() {
  for (auto& [p, pre] : g_prefixes) {
    if (pre.keys.empty()) continue;
    for (uint64_t id : pre.clients) {
      Client* c = ById(id);
      if (!c || !c->tracking) continue;
      std::vector<std::string_view> keys;
      for (auto& [k, by] : pre.keys)
        if (!(c->tracking->noloop && by == c->id)) keys.push_back(k);
      if (!keys.empty()) Send(c, &keys);
    }
    pre.keys.clear();
  }
}

void TrackingLimitKeys() {
  static int misses = 0;  // calls in a row that could not get under the limit
  size_t max = static_cast<size_t>(cfg.tracking_table_max_keys);
  if (max == 0 || g_table.size() <= max) {
    misses = 0;
    return;
  }
  // Over the limit: forget (and invalidate) keys until under it, with more effort each time
  // one call was not enough, as Valkey 8's trackingLimitUsedSlots.
  for (int effort = 100 * (misses + 1); effort > 0; effort--) {
    std::string key = g_table.begin()->first;
    InvalidateKey(key, false);
    if (g_table.size() <= max) {
      misses = 0;
      return;
    }
  }
  misses++;
}

void TrackingCron() {
  if (!g_tracking_clients && !g_table.empty()) {  // nobody left to tell: forget them all
    g_table.clear();
    g_items = 0;
  }
  TrackingLimitKeys();
}

TrackingStats GetTrackingStats() {
  return {g_tracking_clients, g_table.size(), g_items, g_prefixes.size()};
}

}  // namespace server
