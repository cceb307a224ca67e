// Publish/subscribe registry: channels, patterns and shard channels, and delivery of messages
// to subscribed clients (RESP2 subscriber mode and RESP3 push messages).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace server {
struct Client;

// What one client is subscribed to (Client::pubsub; null while subscribed to nothing).
struct PubsubState {
  std::unordered_set<std::string> channels, patterns, shard_channels;
  size_t Count() const { return channels.size() + patterns.size(); }  // (un)subscribe replies
  size_t Total() const { return Count() + shard_channels.size(); }
};

enum class PubsubKind { kChannel, kPattern, kShard };

// Subscribes c (replying the confirmation for each name); unsubscribes (no names: all of that
// kind; then one null-channel confirmation when there were none).
void PubsubSubscribe(Client* c, PubsubKind kind, const std::vector<std::string_view>& names);
void PubsubUnsubscribe(Client* c, PubsubKind kind, const std::vector<std::string_view>& names);
// Drops every subscription of c without replying (RESET, client freed).
void PubsubUnsubscribeAll(Client* c);

// Delivers message to subscribers of channel and of matching patterns; returns receivers.
int64_t PubsubPublish(std::string_view channel, std::string_view message);
// Delivers to subscribers of a shard channel; returns receivers.
int64_t PubsubPublishShard(std::string_view channel, std::string_view message);

// Unsubscribes every client from the shard channels whose slot is `slot`, each with a
// sunsubscribe push carrying the client's remaining shard-channel count (Valkey 8's
// pubsubShardUnsubscribeAllChannelsInSlot). Cluster mode calls it when the slot leaves this
// node's shard.
void PubsubShardUnsubscribeSlot(int slot);

// Delivers an already encoded message (a tracking invalidation) to rc, after the reply of the
// command rc is running, if any.
void PubsubDeliverRaw(Client* rc, std::string_view bytes);
// Messages for the client that is executing a command wait until its reply is complete.
// Dispatch calls this when the outermost command of c has returned.
void PubsubFlushPending(Client* c);

// Introspection (PUBSUB, INFO).
size_t PubsubNumChannels();
size_t PubsubNumPatterns();  // distinct patterns
size_t PubsubNumShardChannels();
size_t PubsubNumClients();  // clients subscribed to anything
// Names of active channels (shard: shard channels) matching pattern (empty: all).
std::vector<std::string> PubsubChannels(bool shard, std::string_view pattern, bool all);
size_t PubsubNumSubscribers(bool shard, std::string_view channel);
}  // namespace server
