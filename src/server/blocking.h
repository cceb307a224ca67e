// Clients blocked on keys (BLPOP and friends): registry in arrival order, wake-up when a key
// becomes ready, timeouts, CLIENT UNBLOCK. Each block records its keys and db so that cluster
// mode can re-check and redirect blocked clients when a slot moves (spec §2.7).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"
#include "server/client.h"

namespace server {

struct BlockState {
  std::vector<std::string> keys;
  int dbid = 0;
  int64_t deadline_ms = 0;            // 0: forever
  db::Type type = db::kList;          // the type whose arrival wakes the client
  bool null_array_on_timeout = true;  // reply inside MULTI: BLPOP-style *-1, BLMOVE-style $-1
};

// Parses a timeout in seconds (float allowed); replies the error and returns false if invalid.
bool ParseBlockTimeout(Client* c, std::string_view arg, int64_t* deadline_ms);
// Blocks c on keys until one is ready, the deadline passes, or CLIENT UNBLOCK. The command's
// argv is kept and re-executed through the dispatch path when a key is ready. Inside
// MULTI/EXEC nothing blocks: the timeout reply is sent at once.
void BlockForKeys(Client* c, const std::vector<std::string_view>& keys, int64_t deadline_ms,
                  db::Type type, bool null_array_on_timeout);
// A key received data (push, add...): blocked clients are served after the command.
void KeyReady(int dbid, std::string_view key);
// Serves blocked clients of keys signalled ready (called after each top-level command).
void HandleReadyKeys();
// Times out expired blocks; returns ms until the next deadline (-1: none).
int64_t HandleBlockedTimeouts();
// Removes c from the registry (disconnect, unblock). Sends nothing.
void Unblock(Client* c);
// CLIENT UNBLOCK: false when c is not blocked.
bool UnblockByRequest(Client* c, bool with_error);
size_t BlockedClientCount();
size_t BlockingKeyCount();

}  // namespace server
