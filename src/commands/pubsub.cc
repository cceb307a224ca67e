// Pub/Sub commands: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB.
#include "server/pubsub.h"

#include "base/util.h"
#include "commands/common.h"
#include "server/cluster_hooks.h"
#include "server/config.h"
#include "server/dispatch.h"

namespace cmd {
namespace {
using namespace server;

std::vector<std::string_view> Names(Client* c) {
  return std::vector<std::string_view>(c->argv.begin() + 1, c->argv.end());
}

void SubscribeCommand(Client* c) { PubsubSubscribe(c, PubsubKind::kChannel, Names(c)); }
void PSubscribeCommand(Client* c) { PubsubSubscribe(c, PubsubKind::kPattern, Names(c)); }
void SSubscribeCommand(Client* c) {
  // A transaction expects one reply per command (Valkey calls it a DENY BLOCKING client).
  if (g.in_exec) return c->R().Error("SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
  PubsubSubscribe(c, PubsubKind::kShard, Names(c));
}

void UnsubscribeCommand(Client* c) { PubsubUnsubscribe(c, PubsubKind::kChannel, Names(c)); }
void PUnsubscribeCommand(Client* c) { PubsubUnsubscribe(c, PubsubKind::kPattern, Names(c)); }
void SUnsubscribeCommand(Client* c) { PubsubUnsubscribe(c, PubsubKind::kShard, Names(c)); }

// Standalone: replicas get the message through the replication stream. (In cluster mode the
// cluster bus carries it instead.)
void PublishCommand(Client* c) {
  int64_t n = PubsubPublish(c->argv[1], c->argv[2]);
  if (!cfg.cluster_enabled)
    ForcePropagation();
  else
    Cluster().publish(c->argv[1], c->argv[2], false);
  c->R().Int(n);
}

void SPublishCommand(Client* c) {
  int64_t n = PubsubPublishShard(c->argv[1], c->argv[2]);
  if (!cfg.cluster_enabled)
    ForcePropagation();
  else
    Cluster().publish(c->argv[1], c->argv[2], true);
  c->R().Int(n);
}

void ReplySyntaxHelp(Client* c) {
  c->R().Error("unknown subcommand or wrong number of arguments for '" +
               std::string(c->argv[1].substr(0, 128)) + "'. Try PUBSUB HELP.");
}

void ChannelsGeneric(Client* c, bool shard) {
  if (c->argv.size() > 3) return ReplySyntaxHelp(c);
  bool all = c->argv.size() == 2;
  std::vector<std::string> names = PubsubChannels(shard, all ? "" : c->argv[2], all);
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(names.size()));
  for (auto& n : names) r.Bulk(n);
}
void PubsubChannelsCommand(Client* c) { ChannelsGeneric(c, false); }
void PubsubShardChannelsCommand(Client* c) { ChannelsGeneric(c, true); }

void NumSubGeneric(Client* c, bool shard) {
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 2) * 2);
  for (size_t i = 2; i < c->argv.size(); i++) {
    r.Bulk(c->argv[i]);
    r.Int(static_cast<int64_t>(PubsubNumSubscribers(shard, c->argv[i])));
  }
}
void PubsubNumSubCommand(Client* c) { NumSubGeneric(c, false); }
void PubsubShardNumSubCommand(Client* c) { NumSubGeneric(c, true); }

void PubsubNumPatCommand(Client* c) { c->R().Int(static_cast<int64_t>(PubsubNumPatterns())); }

void PubsubHelpCommand(Client* c) {
  ReplyHelp(c, "PUBSUB",
            {"CHANNELS [<pattern>]",
             "    Return the currently active channels matching a <pattern> (default: '*').",
             "NUMPAT", "    Return number of subscriptions to patterns.", "NUMSUB [<channel> ...]",
             "    Return the number of subscribers for the specified channels, excluding",
             "    pattern subscriptions(default: no channels).", "SHARDCHANNELS [<pattern>]",
             "    Return the currently active shard level channels matching a <pattern> (default: "
             "'*').",
             "SHARDNUMSUB [<shardchannel> ...]",
             "    Return the number of subscribers for the specified shard level channel(s)"});
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterPubsubCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "pubsub";
  const uint32_t kSub = kCmdPubsub | kCmdNoScript | kCmdLoading | kCmdStale;
  // may-replicate (hidden, as in Valkey 8): a message goes to replicas, so a CLIENT PAUSE WRITE
  // (a failover's too) holds it.
  const uint32_t kPub = kCmdPubsub | kCmdLoading | kCmdStale | kCmdFast | kCmdMayReplicate;
  const uint32_t kIntro = kCmdPubsub | kCmdLoading | kCmdStale;
  t->push_back(
      {"subscribe", -2, kSub, SubscribeCommand, g, "2.0.0", "Subscribes to channels.", "O(N)"});
  t->push_back(
      {"unsubscribe", -1, kSub, UnsubscribeCommand, g, "2.0.0", "Leaves channels.", "O(N)"});
  t->push_back({"psubscribe", -2, kSub, PSubscribeCommand, g, "2.0.0",
                "Listens for messages published to channels that match glob patterns.", "O(N)"});
  t->push_back({"punsubscribe", -1, kSub, PUnsubscribeCommand, g, "2.0.0",
                "Stops listening to messages published to channels that match glob patterns.",
                "O(N+M)"});
  t->push_back({"publish", 3, kPub, PublishCommand, g, "2.0.0",
                "Sends a message to the subscribers of a channel.", "O(N+M)"});
  t->push_back({"ssubscribe", -2, kSub, SSubscribeCommand, g, "7.0.0",
                "Subscribes to shard channels.", "O(N)"});
  t->push_back({"sunsubscribe", -1, kSub, SUnsubscribeCommand, g, "7.0.0", "Leaves shard channels.",
                "O(N)"});
  t->push_back({"spublish", 3, kPub, SPublishCommand, g, "7.0.0",
                "Posts a message to a shard channel.", "O(N)"});
  CommandSpec pubsub{"pubsub",
                     -2,
                     0,
                     nullptr,
                     g,
                     "2.8.0",
                     "Introspection of the publish/subscribe registry.",
                     "Depends on subcommand."};
  pubsub.subcommands = {
      {"channels", -2, kIntro, PubsubChannelsCommand, g, "2.8.0",
       "Lists channels that have subscribers.", "O(N)"},
      {"numpat", 2, kIntro, PubsubNumPatCommand, g, "2.8.0", "Counts pattern subscriptions.",
       "O(1)"},
      {"numsub", -2, kIntro, PubsubNumSubCommand, g, "2.8.0", "Counts the subscribers of channels.",
       "O(N)"},
      {"shardchannels", -2, kIntro, PubsubShardChannelsCommand, g, "7.0.0",
       "Lists shard channels that have subscribers.", "O(N)"},
      {"shardnumsub", -2, kIntro, PubsubShardNumSubCommand, g, "7.0.0",
       "Counts the subscribers of shard channels.", "O(N)"},
      {"help", 2, kCmdLoading | kCmdStale, PubsubHelpCommand, g, "6.2.0",
       "Lists the PUBSUB subcommands.", "O(1)"},
  };
  t->push_back(std::move(pubsub));
}
}  // namespace server
