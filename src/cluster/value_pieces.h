// Atomic slot migration: a value too big to go as one DUMP goes as a run of write commands
// that rebuild it on the target piece by piece (HSET, SADD, ZADD, RPUSH; SET then APPEND for a
// string), so that neither node's loop stalls on it and neither side ever holds a second whole
// copy of it (the source queues a few pieces at a time; the target builds the value in place).
// Streams (consumer groups, pending entries) always go whole.
//
// While a value is half sent, the target holds part of it. A write the source forwards then is
// right there only if it names the elements it changes (RightOnPart): an element not sent yet
// comes later in its newest state, one sent already changes as here. Any other write to the key
// (RPOP, SET, APPEND, ZPOPMIN...) is held by the source until the value is complete, or, if it
// runs anyway, makes the source send the value again from the start.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"

namespace cluster {

// Values with more elements than this (strings: more bytes than kPiecesStringBytes) go in
// pieces.
inline constexpr size_t kPiecesElements = 1024;
inline constexpr size_t kPiecesStringBytes = 1 << 20;
bool SentInPieces(const db::Obj* o);
// Elements of a value kept in a hash table (hash, set, sorted set), 0 for other types: what the
// target sizes that table for when the value begins to come in pieces (SYNCSLOTS SIZEHINT).
size_t TableElements(const db::Obj* o);
// The target's side: o's table sized for n elements at once (a compact encoding converted);
// other types are left alone.
void ReserveTable(db::Obj* o, size_t n);

struct PieceCursor {
  uint64_t pos = 0;    // scan cursor (hash, set), next index (list), next byte (string)
  bool begun = false;  // a piece went
  bool done = false;   // the scan came back to cursor 0
  // A sorted set goes in its order (the target appends each piece at its end, where a random
  // order cost a cache miss per level of its skiplist): the last element sent.
  double score = 0;
  std::string member;
};

// The next piece of o's value as one command of o's key (without the key's expire), with at
// most max_elements elements and about max_bytes bytes of them; false once all went (then argv
// is left empty). Hashes and sets are walked by their scan cursor, a sorted set in its order
// after the last element sent: an element there throughout is sent at least once; one added
// or moved behind the cursor meanwhile may not be (its write is forwarded, RightOnPart). A list
// is walked by index, a string by offset: the source holds their writes meanwhile.
bool NextPiece(db::Obj* o, PieceCursor* cur, size_t max_elements, size_t max_bytes,
               std::vector<std::string>* argv);

// The other way: removes up to max_elements elements of a big value that no db holds any more
// (a moved slot's), and describes the removal as one command of its key (ZREMRANGEBYRANK,
// LTRIM, HDEL, SREM) for the replicas and the AOF, which then free it in pieces too; false once
// o is empty or not of a kind removed in pieces (then argv is empty: free it whole).
bool RemovePiece(db::Obj* o, PieceCursor* cur, size_t max_elements,
                 std::vector<std::string>* argv);

// Whether a write (its arguments as it leaves the node; the name in any case) to a key of type
// t whose value the target holds only in part leaves that part right. A sorted set's relative
// and conditional updates (ZINCRBY, ZADD INCR or XX) are not: on an element not sent yet they
// would make something else there, and may move it behind the cursor, never to be sent.
bool RightOnPart(const std::vector<std::string_view>& argv, db::Type t);

}  // namespace cluster
