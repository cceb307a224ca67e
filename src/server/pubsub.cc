// Publish/subscribe registry and message delivery.
//
// Three registries (channels, patterns, shard channels) map a name to the set of clients
// subscribed to it; each client keeps the names it holds (Client::pubsub), so subscribing,
// unsubscribing and publishing cost O(1) per subscriber, plus one glob match per distinct
// pattern on PUBLISH. Messages are appended to the receivers' output buffers and the receivers
// are queued for writing. A message for the client that is running a command waits until that
// command's reply is complete (as Valkey does), so it never lands inside a reply.
// Shard channels are also indexed by slot, so that a slot leaving this node's shard drops its
// channels without a walk over all of them.
#include "server/pubsub.h"

#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <unordered_map>

#include "base/crc16.h"
#include "base/glob.h"
#include "base/siphash.h"
#include "base/util.h"
#include "net/reply.h"
#include "server/client.h"
#include "server/server.h"
#include "server/slot_stats.h"

namespace server {
namespace {

// Channel names come from clients: hash them with a private random key.
const uint8_t* HashKey() {
  static uint8_t key[16] = {};
  static bool init = [] {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, key, sizeof(key)) != sizeof(key)) {
      uint64_t t = reinterpret_cast<uintptr_t>(&key) ^ static_cast<uint64_t>(getpid());
      for (int i = 0; i < 16; i++) key[i] = static_cast<uint8_t>(t >> ((i % 8) * 8)) ^ i;
    }
    if (fd >= 0) close(fd);
    return true;
  }();
  (void)init;
  return key;
}

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return static_cast<size_t>(base::SipHash13(s.data(), s.size(), HashKey()));
  }
};

using Subscribers = std::unordered_set<Client*>;
using Registry = std::unordered_map<std::string, Subscribers, NameHash, std::equal_to<>>;

Registry g_channels, g_patterns, g_shard;
// slot -> the names of its shard channels (views of g_shard's keys, which stay put: the map's
// nodes do not move); a slot without channels has no entry.
std::unordered_map<int, std::unordered_set<std::string_view>> g_shard_by_slot;
size_t g_clients = 0;  // clients subscribed to anything

// Pushes for the executing client, appended once its reply is complete.
std::string g_pending;
Client* g_pending_client = nullptr;

Registry& RegistryOf(PubsubKind k) {
  return k == PubsubKind::kChannel ? g_channels : k == PubsubKind::kPattern ? g_patterns : g_shard;
}

std::unordered_set<std::string>& NamesOf(PubsubState* s, PubsubKind k) {
  return k == PubsubKind::kChannel   ? s->channels
         : k == PubsubKind::kPattern ? s->patterns
                                     : s->shard_channels;
}

const char* SubscribeWord(PubsubKind k) {
  return k == PubsubKind::kChannel   ? "subscribe"
         : k == PubsubKind::kPattern ? "psubscribe"
                                     : "ssubscribe";
}
const char* UnsubscribeWord(PubsubKind k) {
  return k == PubsubKind::kChannel   ? "unsubscribe"
         : k == PubsubKind::kPattern ? "punsubscribe"
                                     : "sunsubscribe";
}

int64_t CountFor(const PubsubState* s, PubsubKind k) {
  if (!s) return 0;
  return static_cast<int64_t>(k == PubsubKind::kShard ? s->shard_channels.size() : s->Count());
}

// Subscription confirmations are the command's reply, and like Valkey's they are sent even
// under CLIENT REPLY OFF/SKIP.
void ReplySubscription(Client* c, const char* word, const std::string_view* name, int64_t n) {
  net::Reply r(&c->conn.out, c->resp);
  r.PushLen(3);
  r.Bulk(word);
  if (name)
    r.Bulk(*name);
  else
    r.Null();
  r.Int(n);
}

void FreeStateIfEmpty(Client* c) {
  if (c->pubsub && c->pubsub->Total() == 0) {
    delete c->pubsub;
    c->pubsub = nullptr;
    g_clients--;
  }
}

// The last subscriber of a shard channel left: it leaves the slot index before the registry.
void UnindexShard(std::string_view name) {
  auto it = g_shard_by_slot.find(base::KeySlot(name));
  if (it == g_shard_by_slot.end()) return;
  it->second.erase(name);
  if (it->second.empty()) g_shard_by_slot.erase(it);
}

void RemoveFromRegistry(Registry& reg, const std::string& name, Client* c) {
  auto it = reg.find(name);
  if (it == reg.end()) return;
  it->second.erase(c);
  if (!it->second.empty()) return;
  if (&reg == &g_shard) UnindexShard(it->first);
  reg.erase(it);
}

// One message to one receiver: "message"/"smessage" (3 parts) or "pmessage" (4 parts).
void Deliver(Client* rc, const char* kind, const std::string_view* pattern,
             std::string_view channel, std::string_view message) {
  if (rc->flags & (kCloseAsap | kCloseAfterReply)) return;
  bool deferred = rc == g.current_client;
  if (deferred) {
    if (g_pending_client && g_pending_client != rc) PubsubFlushPending(g_pending_client);
    g_pending_client = rc;
  }
  net::Reply r(deferred ? &g_pending : &rc->conn.out, rc->resp);
  r.PushLen(pattern ? 4 : 3);
  r.Bulk(kind);
  if (pattern) r.Bulk(*pattern);
  r.Bulk(channel);
  r.Bulk(message);
  if (deferred) return;
  SealOutputIfLarge(rc);
  QueueWrite(rc);
  CheckOutputLimits(rc);
}

}  // namespace

void PubsubSubscribe(Client* c, PubsubKind kind, const std::vector<std::string_view>& names) {
  if (!c->pubsub) {
    c->pubsub = new PubsubState();
    g_clients++;
  }
  Registry& reg = RegistryOf(kind);
  auto& mine = NamesOf(c->pubsub, kind);
  for (std::string_view name : names) {
    if (mine.emplace(name).second) {
      auto it = reg.find(name);
      if (it == reg.end()) {
        it = reg.emplace(std::string(name), Subscribers()).first;
        if (kind == PubsubKind::kShard)
          g_shard_by_slot[base::KeySlot(it->first)].insert(std::string_view(it->first));
      }
      it->second.insert(c);
    }
    ReplySubscription(c, SubscribeWord(kind), &name, CountFor(c->pubsub, kind));
  }
}

void PubsubUnsubscribe(Client* c, PubsubKind kind, const std::vector<std::string_view>& names) {
  const char* word = UnsubscribeWord(kind);
  Registry& reg = RegistryOf(kind);
  std::vector<std::string> all;
  std::vector<std::string_view> list = names;
  if (names.empty()) {
    if (c->pubsub) {
      auto& mine = NamesOf(c->pubsub, kind);
      all.assign(mine.begin(), mine.end());
      list.assign(all.begin(), all.end());
    }
    if (list.empty()) {
      ReplySubscription(c, word, nullptr, CountFor(c->pubsub, kind));
      return;
    }
  }
  for (std::string_view name : list) {
    if (c->pubsub) {
      auto& mine = NamesOf(c->pubsub, kind);
      auto it = mine.find(std::string(name));
      if (it != mine.end()) {
        RemoveFromRegistry(reg, *it, c);
        mine.erase(it);
      }
    }
    ReplySubscription(c, word, &name, CountFor(c->pubsub, kind));
  }
  FreeStateIfEmpty(c);
}

void PubsubUnsubscribeAll(Client* c) {
  if (g_pending_client == c) {
    g_pending.clear();
    g_pending_client = nullptr;
  }
  if (!c->pubsub) return;
  for (auto& n : c->pubsub->channels) RemoveFromRegistry(g_channels, n, c);
  for (auto& n : c->pubsub->patterns) RemoveFromRegistry(g_patterns, n, c);
  for (auto& n : c->pubsub->shard_channels) RemoveFromRegistry(g_shard, n, c);
  delete c->pubsub;
  c->pubsub = nullptr;
  g_clients--;
}

int64_t PubsubPublish(std::string_view channel, std::string_view message) {
  int64_t n = 0;
  if (auto it = g_channels.find(channel); it != g_channels.end()) {
    for (Client* rc : it->second) {
      Deliver(rc, "message", nullptr, channel, message);
      n++;
    }
  }
  for (auto& [pat, subs] : g_patterns) {
    if (!base::GlobMatch(pat, channel)) continue;
    std::string_view p = pat;
    for (Client* rc : subs) {
      Deliver(rc, "pmessage", &p, channel, message);
      n++;
    }
  }
  return n;
}

int64_t PubsubPublishShard(std::string_view channel, std::string_view message) {
  int64_t n = 0;
  if (auto it = g_shard.find(channel); it != g_shard.end()) {
    for (Client* rc : it->second) {
      // CLUSTER SLOT-STATS: each delivery is the channel's slot's output (not to a closing
      // client, which Deliver skips).
      if (slot_stats::On() && !(rc->flags & (kCloseAsap | kCloseAfterReply)))
        slot_stats::ShardMessageDelivered(channel, message);
      Deliver(rc, "smessage", nullptr, channel, message);
      n++;
    }
  }
  return n;
}

void PubsubShardUnsubscribeSlot(int slot) {
  auto sit = g_shard_by_slot.find(slot);
  if (sit == g_shard_by_slot.end()) return;
  std::vector<std::string> names(sit->second.begin(), sit->second.end());
  g_shard_by_slot.erase(sit);
  std::string push;
  for (const std::string& name : names) {
    auto it = g_shard.find(name);
    if (it == g_shard.end()) continue;
    Subscribers subs = std::move(it->second);
    g_shard.erase(it);
    for (Client* c : subs) {
      c->pubsub->shard_channels.erase(name);
      // A push, not a reply: the running client gets it after its reply (PubsubDeliverRaw).
      push.clear();
      net::Reply r(&push, c->resp);
      r.PushLen(3);
      r.Bulk("sunsubscribe");
      r.Bulk(name);
      r.Int(CountFor(c->pubsub, PubsubKind::kShard));
      PubsubDeliverRaw(c, push);
      FreeStateIfEmpty(c);  // a RESP2 client with nothing left leaves subscriber mode
    }
  }
}

void PubsubDeliverRaw(Client* rc, std::string_view bytes) {
  if (rc->flags & (kCloseAsap | kCloseAfterReply)) return;
  if (rc == g.current_client) {
    if (g_pending_client && g_pending_client != rc) PubsubFlushPending(g_pending_client);
    g_pending_client = rc;
    g_pending.append(bytes);
    return;
  }
  rc->conn.out.append(bytes);
  SealOutputIfLarge(rc);
  QueueWrite(rc);
  CheckOutputLimits(rc);
}

void PubsubFlushPending(Client* c) {
  if (g_pending_client != c || g_pending.empty()) return;
  Client* rc = g_pending_client;
  g_pending_client = nullptr;
  rc->conn.out.append(g_pending);
  g_pending.clear();
  SealOutputIfLarge(rc);
  QueueWrite(rc);
  CheckOutputLimits(rc);
}

size_t PubsubNumChannels() { return g_channels.size(); }
size_t PubsubNumPatterns() { return g_patterns.size(); }
size_t PubsubNumShardChannels() { return g_shard.size(); }
size_t PubsubNumClients() { return g_clients; }

std::vector<std::string> PubsubChannels(bool shard, std::string_view pattern, bool all) {
  std::vector<std::string> out;
  for (auto& [name, subs] : shard ? g_shard : g_channels)
    if (all || base::GlobMatch(pattern, name)) out.push_back(name);
  return out;
}

size_t PubsubNumSubscribers(bool shard, std::string_view channel) {
  const Registry& reg = shard ? g_shard : g_channels;
  auto it = reg.find(channel);
  return it == reg.end() ? 0 : it->second.size();
}

}  // namespace server
