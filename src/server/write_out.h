// The one place a write leaves the node: the AOF and the replication stream receive the same
// commands in the same order, whoever made them (a command's Call, expiry, eviction, the
// cluster's cleanup of a lost slot, SETSLOT's resend to replicas).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace server {

enum WriteTarget : uint8_t {
  kToAof = 1,
  kToReplicas = 2,  // our own writes; a replica's AOF records its primary's stream instead
  kToAll = kToAof | kToReplicas,
};

// `argv` ran in database `dbid`.
void WriteOut(int dbid, const std::vector<std::string_view>& argv, uint8_t targets = kToAll);
// Several writes that must apply as one (MULTI ... EXEC around them).
void WriteOutBegin(uint8_t targets = kToAll);
void WriteOutEnd(uint8_t targets = kToAll);

}  // namespace server
