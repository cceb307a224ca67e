// The tips of COMMAND INFO (Valkey 8's command table facts): how a cluster-aware client routes a
// command that no key routes ("request_policy:all_shards"), merges the replies
// ("response_policy:agg_sum"), or whether its output is deterministic. Clients that read them
// (rather than a built-in table) send DBSIZE, KEYS, FLUSHALL, SCAN... to every shard.
#pragma once
#include <string_view>
#include <vector>

namespace server {

// The tips of a command by fullname ("config|set"), in Valkey's order; empty when none.
std::vector<std::string_view> CommandTips(std::string_view fullname);

// Every fullname that has tips (the unit test checks each names a command of the table).
std::vector<std::string_view> CommandsWithTips();

}  // namespace server
