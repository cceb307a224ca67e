#include "server/command_tips.h"

#include <unordered_map>

namespace server {

namespace {

struct TipsLine {
  const char* fullname;
  const char* tips;  // separated by one space
};

// As Valkey 8.0's COMMAND INFO lists them.
const TipsLine kTips[] = {
    {"acl|deluser", "request_policy:all_nodes response_policy:all_succeeded"},
    {"acl|save", "request_policy:all_nodes response_policy:all_succeeded"},
    {"acl|setuser", "request_policy:all_nodes response_policy:all_succeeded"},
    {"client|info", "nondeterministic_output"},
    {"client|list", "nondeterministic_output"},
    {"client|setinfo", "request_policy:all_nodes response_policy:all_succeeded"},
    {"client|setname", "request_policy:all_nodes response_policy:all_succeeded"},
    {"cluster|bumpepoch", "nondeterministic_output"},
    {"cluster|count-failure-reports", "nondeterministic_output"},
    {"cluster|getkeysinslot", "nondeterministic_output"},
    {"cluster|info", "nondeterministic_output"},
    {"cluster|links", "nondeterministic_output"},
    {"cluster|myshardid", "nondeterministic_output"},
    {"cluster|nodes", "nondeterministic_output"},
    {"cluster|replicas", "nondeterministic_output"},
    {"cluster|shards", "nondeterministic_output"},
    {"cluster|slaves", "nondeterministic_output"},
    {"cluster|slot-stats", "nondeterministic_output request_policy:all_shards"},
    {"cluster|slots", "nondeterministic_output"},
    {"command", "nondeterministic_output_order"},
    {"command|docs", "nondeterministic_output_order"},
    {"command|info", "nondeterministic_output_order"},
    {"command|list", "nondeterministic_output_order"},
    {"config|resetstat", "request_policy:all_nodes response_policy:all_succeeded"},
    {"config|rewrite", "request_policy:all_nodes response_policy:all_succeeded"},
    {"config|set", "request_policy:all_nodes response_policy:all_succeeded"},
    {"dbsize", "request_policy:all_shards response_policy:agg_sum"},
    {"del", "request_policy:multi_shard response_policy:agg_sum"},
    {"dump", "nondeterministic_output"},
    {"exists", "request_policy:multi_shard response_policy:agg_sum"},
    {"flushall", "request_policy:all_shards response_policy:all_succeeded"},
    {"flushdb", "request_policy:all_shards response_policy:all_succeeded"},
    {"hgetall", "nondeterministic_output_order"},
    {"hkeys", "nondeterministic_output_order"},
    {"hrandfield", "nondeterministic_output"},
    {"hscan", "nondeterministic_output"},
    {"hvals", "nondeterministic_output_order"},
    {"info", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"keys", "request_policy:all_shards nondeterministic_output_order"},
    {"lastsave", "nondeterministic_output"},
    {"latency|doctor", "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|graph", "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|histogram",
     "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|history", "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|latest", "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|reset", "request_policy:all_nodes response_policy:agg_sum"},
    {"memory|doctor", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|malloc-stats",
     "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|purge", "request_policy:all_shards response_policy:all_succeeded"},
    {"memory|stats", "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"mget", "request_policy:multi_shard"},
    {"migrate", "nondeterministic_output"},
    {"mset", "request_policy:multi_shard response_policy:all_succeeded"},
    {"object|encoding", "nondeterministic_output"},
    {"object|freq", "nondeterministic_output"},
    {"object|idletime", "nondeterministic_output"},
    {"object|refcount", "nondeterministic_output"},
    {"ping", "request_policy:all_shards response_policy:all_succeeded"},
    {"pttl", "nondeterministic_output"},
    {"randomkey", "request_policy:all_shards response_policy:special nondeterministic_output"},
    {"scan", "nondeterministic_output request_policy:special response_policy:special"},
    {"sdiff", "nondeterministic_output_order"},
    {"sinter", "nondeterministic_output_order"},
    {"slowlog|get", "request_policy:all_nodes nondeterministic_output"},
    {"slowlog|len", "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {"slowlog|reset", "request_policy:all_nodes response_policy:all_succeeded"},
    {"smembers", "nondeterministic_output_order"},
    {"spop", "nondeterministic_output"},
    {"srandmember", "nondeterministic_output"},
    {"sscan", "nondeterministic_output"},
    {"sunion", "nondeterministic_output_order"},
    {"time", "nondeterministic_output"},
    {"touch", "request_policy:multi_shard response_policy:agg_sum"},
    {"ttl", "nondeterministic_output"},
    {"unlink", "request_policy:multi_shard response_policy:agg_sum"},
    {"wait", "request_policy:all_shards response_policy:agg_min"},
    {"waitaof", "request_policy:all_shards response_policy:agg_min"},
    {"xadd", "nondeterministic_output"},
    {"xautoclaim", "nondeterministic_output"},
    {"xclaim", "nondeterministic_output"},
    {"xinfo|consumers", "nondeterministic_output"},
    {"xpending", "nondeterministic_output"},
    {"xtrim", "nondeterministic_output"},
    {"zrandmember", "nondeterministic_output"},
    {"zscan", "nondeterministic_output"},
};

const std::unordered_map<std::string_view, std::string_view>& Table() {
  static const auto* t = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const TipsLine& l : kTips) m->emplace(l.fullname, l.tips);
    return m;
  }();
  return *t;
}

}  // namespace

std::vector<std::string_view> CommandTips(std::string_view fullname) {
  std::vector<std::string_view> out;
  auto it = Table().find(fullname);
  if (it == Table().end()) return out;
  std::string_view s = it->second;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    out.push_back(s.substr(0, sp));
    s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
  }
  return out;
}

std::vector<std::string_view> CommandsWithTips() {
  std::vector<std::string_view> out;
  for (const TipsLine& l : kTips) out.push_back(l.fullname);
  return out;
}

}  // namespace server
