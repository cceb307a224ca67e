// Helpers every command family uses: typed lookups with stats, writes with signalling.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "db/db.h"
#include "server/client.h"
#include "server/command.h"
#include "server/server.h"

namespace cmd {
using server::Client;

// Read lookup: expiry honoured, keyspace hits/misses counted, LRU touched.
// A read lookup: counts a keyspace hit or miss (a miss also fires `keymiss`) and marks the key
// accessed, unless touch is false (TTL, TYPE, EXISTS, as Valkey 8's LOOKUP_NOTOUCH) or the
// client is in CLIENT NO-TOUCH mode (its TOUCH still touches).
db::Obj* LookupRead(Client* c, std::string_view key, bool touch = true);
// Write lookup: expiry honoured, no stats; the key is accessed (TouchForWrite).
db::Obj* LookupWrite(Client* c, std::string_view key);
// The access a write lookup counts, for a key found already (nullptr: nothing): a command that
// reads a key and then writes it (GETSET) accesses it twice, as Valkey 8's GET then setKey.
void TouchForWrite(Client* c, db::Obj* o);
// Replies WRONGTYPE and returns false when o is not of type t (nullptr passes).
bool CheckType(Client* c, const db::Obj* o, db::Type t);
// Stores nw under its key: adds or replaces; keep_ttl carries the old expire over.
db::Obj* StoreKey(Client* c, db::Obj* old, db::Obj* nw);
// Makes a string object raw, so that a command can edit it in place (SETRANGE, APPEND,
// SETBIT, BITFIELD); returns the (possibly new) object.
db::Obj* MakeRaw(Client* c, db::Obj* o);
// Marks a write: dirty counter and WATCH invalidation.
void Modified(Client* c, std::string_view key, int64_t dirty = 1);
// Parses a relative or absolute expire argument; replies "invalid expire time in '<cmd>'
// command" on error. unit_ms: 1000 for seconds. Returns absolute ms in *when.
bool ParseExpire(Client* c, std::string_view arg, int64_t unit_ms, bool absolute,
                 const char* cmdname, int64_t* when);
// Looks a key up for a write command of type t. Returns nullptr with *err set when the key
// holds another type (WRONGTYPE already replied).
db::Obj* LookupWriteTyped(Client* c, std::string_view key, db::Type t, bool* err);
// Deletes the key when its container became empty (Valkey never keeps empty containers).
void DeleteIfEmpty(Client* c, std::string_view key, size_t len);
// Parses an integer in [lo, hi]. As in Valkey, `msg` (when given) is the reply for both a
// non-integer and an out-of-range value; otherwise the generic texts are used.
bool ArgRange(Client* c, std::string_view s, int64_t lo, int64_t hi, int64_t* out,
              const char* msg = nullptr);
// ArgRange over [0, INT64_MAX] with "value is out of range, must be positive" by default.
bool ArgPositive(Client* c, std::string_view s, int64_t* out, const char* msg = nullptr);

// The *STORE commands: puts `nw` (a non-empty result) at dst replacing whatever was there, or
// with nw == nullptr (empty result) deletes dst. Signals the change and the event.
void StoreResult(Client* c, const std::string& dst, db::Obj* nw, int notify_class,
                 const char* event);

// LMPOP / ZMPOP style arguments from argv[first]: numkeys key... <where> [COUNT n].
// `where` lists the two accepted words (index 0 or 1 goes to *which). Replies on error.
struct MPopArgs {
  std::vector<std::string_view> keys;
  int which = 0;
  int64_t count = 1;
};
bool ParseMPopArgs(Client* c, size_t first, const char* where0, const char* where1, MPopArgs* out);

// HRANDFIELD / SRANDMEMBER / ZRANDMEMBER with a negative count answer |count| picks, which a
// client could make absurd (-9223372036854775807): beyond this many the request is refused
// instead of building a reply that cannot fit in memory.
inline constexpr int64_t kMaxRandomPicks = int64_t{1} << 28;
bool CheckRandomPicks(Client* c, int64_t count);

// Distinct picks for a positive count. Under a third of the collection's size, random draws
// until that many distinct elements are in hand, as Valkey 8 does: the cost is the draws, not
// the collection (a copy of a set of 1M members took 88 ms for 5), and each draw moves a
// running rehash on. A bigger count shuffles a copy, then within three times the reply's size.
inline bool DrawsDistinct(uint64_t count, uint64_t size) { return count <= size / 3; }
// `draw(&item)` draws one element; `name(item)` tells two draws of one element apart.
template <typename Item, typename Draw, typename Name>
std::vector<Item> DrawDistinct(uint64_t count, Draw&& draw, Name&& name) {
  std::vector<Item> picks;
  std::unordered_set<std::string> seen;
  Item item;
  while (picks.size() < count) {
    draw(&item);
    if (seen.insert(std::string(name(item))).second) picks.push_back(item);
  }
  return picks;
}

// HSCAN / SSCAN / ZSCAN: `step` walks one step from a cursor, calling emit(element, value)
// (value empty for sets) and returning the next cursor; compact encodings return everything
// at once with cursor 0.
using ScanEmit = std::function<void(std::string_view, std::string_view)>;
using ScanStepFn = std::function<uint64_t(uint64_t, const ScanEmit&)>;
void ScanElements(Client* c, db::Obj* o, const ScanStepFn& step, bool pairs);

// Scan cursors (SCAN, HSCAN, SSCAN, ZSCAN) are portable across the nodes of a shard, which
// share one hash seed by design, and say which seed issued them:
//   bit 63: 0 (a cursor stays a valid signed 64-bit number for every client)
//   bits 48-62: the seed's fingerprint (never 0)
//   bits 0-47: the position (a table's reverse-binary bucket cursor; SCAN in cluster mode:
//              bucket << 14 | slot)
// 0 starts and ends a scan. A cursor with another fingerprint (another shard, a seed that
// changed since, a server without fingerprints) is refused with kErrForeignCursor.
inline constexpr const char* kErrForeignCursor =
    "invalid cursor: it was issued by a node with another hash seed (another shard, or this "
    "node before its seed changed); start the scan again with cursor 0";
// Parses a cursor argument into its position; replies "invalid cursor" (not a number) or
// kErrForeignCursor and returns false.
bool ParseScanCursor(Client* c, std::string_view s, uint64_t* position);
// The cursor to reply for a position (0 stays 0).
uint64_t ScanCursorFor(uint64_t position);
}  // namespace cmd
