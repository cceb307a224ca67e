// Helpers every command family uses: typed lookups with stats, writes with signalling.
#pragma once
#include <string_view>

#include "db/db.h"
#include "server/client.h"
#include "server/command.h"
#include "server/server.h"

namespace cmd {
using server::Client;

// Read lookup: expiry honoured, keyspace hits/misses counted, LRU touched.
db::Obj* LookupRead(Client* c, std::string_view key);
// Write lookup: expiry honoured, no stats.
db::Obj* LookupWrite(Client* c, std::string_view key);
// Replies WRONGTYPE and returns false when o is not of type t (nullptr passes).
bool CheckType(Client* c, const db::Obj* o, db::Type t);
// Stores nw under its key: adds or replaces; keep_ttl carries the old expire over.
db::Obj* StoreKey(Client* c, db::Obj* old, db::Obj* nw);
// Marks a write: dirty counter and WATCH invalidation.
void Modified(Client* c, std::string_view key, int64_t dirty = 1);
// Parses a relative or absolute expire argument; replies "invalid expire time in '<cmd>'
// command" on error. unit_ms: 1000 for seconds. Returns absolute ms in *when.
bool ParseExpire(Client* c, std::string_view arg, int64_t unit_ms, bool absolute,
                 const char* cmdname, int64_t* when);
}  // namespace cmd
