// Stream values: entries kept in listpack nodes laid out as Redis 7 / Valkey 8 keep them (a
// master entry with the node's first field names, then each entry as ID deltas from the
// node's master ID, its fields or only its values when they repeat the master's names, and a
// backwards element count), indexed by master ID; consumer groups with their pending entries.
//
// Node layout (every element a listpack entry):
//   master: count (live entries) | deleted | num-fields | field... | 0
//   entry:  flags | ms-delta | seq-delta | [num-fields | field value ...] or [value ...]
//           | lp-count (the entry's elements before it: values+3, or 2*fields+4)
// flags: 1 deleted, 2 same fields as the master. The nodes are the snapshot's bytes as-is.
#pragma once
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"

namespace db {

struct StreamID {
  uint64_t ms = 0, seq = 0;
  auto operator<=>(const StreamID&) const = default;
  bool IsZero() const { return ms == 0 && seq == 0; }
  bool Incr();  // false when already the largest ID
  bool Decr();  // false when already 0-0
  std::string ToString() const;
  // 16 bytes big endian (the key of a node in the snapshot format).
  void Encode(uint8_t out[16]) const;
  static StreamID Decode(const uint8_t in[16]);
};
inline constexpr StreamID kStreamMaxID{UINT64_MAX, UINT64_MAX};

struct StreamConsumer;
// A pending entry: delivered to a consumer, not yet acknowledged.
struct StreamNack {
  int64_t delivery_time = 0;
  uint64_t delivery_count = 1;
  StreamConsumer* consumer = nullptr;
};
struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;     // last interaction
  int64_t active_time = -1;  // last successful interaction (-1: never)
  std::map<StreamID, StreamNack*> pel;
};
inline constexpr int64_t kEntriesReadInvalid = -1;
struct StreamCG {
  StreamID last_id;
  int64_t entries_read = kEntriesReadInvalid;
  std::map<StreamID, StreamNack> pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>> consumers;
};

struct StreamLimits {
  int64_t node_max_bytes = 4096;  // stream-node-max-bytes (0: no limit but the format's)
  int64_t node_max_entries = 100;
};
StreamLimits& GetStreamLimits();

struct Stream {
  std::map<StreamID, uint8_t*> nodes;  // master ID -> listpack
  uint64_t length = 0;
  StreamID last_id, first_id, max_deleted_entry_id;
  uint64_t entries_added = 0;
  std::map<std::string, std::unique_ptr<StreamCG>> groups;
  Stream() = default;
  Stream(const Stream& o);
  Stream(Stream&& o) noexcept;
  ~Stream();
};

Obj* NewStream(std::string_view key);
inline Stream* GetStream(const Obj* o) { return static_cast<Stream*>(o->ptr()); }

// Adds an entry (fields: name, value, name, value...). use_id: the explicit ID (with
// seq_given false: "ms-*"); nullptr: the next ID from now_ms.
enum class AppendStatus { kOk, kIdTooSmall, kTooLarge };
AppendStatus StreamAppend(Stream* s, const std::vector<std::string_view>& fields, int64_t now_ms,
                          const StreamID* use_id, bool seq_given, StreamID* added);

struct StreamTrimArgs {
  enum Strategy { kNone, kMaxLen, kMinId } strategy = kNone;
  bool approx = false;
  int64_t maxlen = 0;
  StreamID minid;
  int64_t limit = 0;  // 0: no limit
};
// Removes entries from the start; returns how many.
int64_t StreamTrim(Stream* s, const StreamTrimArgs& a);
// Deletes one entry; false when there is no such (live) entry.
bool StreamDeleteID(Stream* s, StreamID id);
// The first (or last) live entry's ID; {max} (first) or {0} (last) when empty.
StreamID StreamEdgeID(Stream* s, bool first);
// The first ID stored, deleted entries included ({max} when empty): what an approximate
// MINID trim propagates.
StreamID StreamFirstStoredID(Stream* s);
// Whether a live entry has this ID.
bool StreamHasID(Stream* s, StreamID id);

// Walks entries in [start, end] in either direction.
class StreamIterator {
 public:
  StreamIterator(Stream* s, StreamID start, StreamID end, bool rev);
  // Moves to the next live entry in range; false at the end.
  bool Next(StreamID* id, int64_t* numfields);
  // The next field of the current entry (call numfields times). Views live until the next
  // call of Field or Next.
  void Field(std::string_view* f, std::string_view* v);

 private:
  bool EnterNode();
  Stream* s_;
  StreamID start_, end_;
  bool rev_;
  std::map<StreamID, uint8_t*>::iterator node_;
  bool started_ = false, done_ = false;
  uint8_t* lp_ = nullptr;
  StreamID master_id_;
  int64_t master_fields_ = 0;
  uint8_t* master_field_start_ = nullptr;
  uint8_t* first_entry_ = nullptr;
  uint8_t* p_ = nullptr;  // flags of the next entry to look at (nullptr: node done)
  uint8_t* fcur_ = nullptr;
  uint8_t* mfcur_ = nullptr;
  bool same_fields_ = false;
  char fbuf_[24], vbuf_[24];
};

// Consumer groups.
StreamCG* StreamLookupCG(Stream* s, std::string_view name);
StreamCG* StreamCreateCG(Stream* s, std::string_view name, StreamID id, int64_t entries_read);
StreamConsumer* StreamLookupConsumer(StreamCG* cg, std::string_view name);
StreamConsumer* StreamCreateConsumer(StreamCG* cg, std::string_view name, int64_t now_ms);
// Deletes a consumer and its pending entries; returns how many were pending.
size_t StreamDeleteConsumer(StreamCG* cg, std::string_view name);

// Lag and read counters, as Valkey 8 computes them.
bool StreamRangeHasTombstones(const Stream* s, const StreamID* start, const StreamID* end);
int64_t StreamEstimateDistanceFromFirstEverEntry(const Stream* s, StreamID id);
// The group's lag; false when it cannot be known.
bool StreamGroupLag(const Stream* s, const StreamCG* cg, int64_t* lag);

// XINFO: the count of nodes of the radix tree Valkey would keep for these master IDs.
size_t StreamRadixTreeNodes(const Stream* s);
size_t StreamBytes(const Stream* s);

// Checks a node received from outside (snapshot, DUMP): every element, the counts and the IDs
// in order; *valid and *last get its live entry count and its last ID (deleted included).
// prev: the last ID of the previous node (IDs must grow).
bool StreamValidateNode(const uint8_t* lp, size_t size, StreamID master, const StreamID* prev,
                        uint64_t* valid, StreamID* last, StreamID* first_valid);

void RegisterStreamType();

}  // namespace db
