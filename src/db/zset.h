// Sorted set values: a listpack of (member, score) pairs ordered by score then member while
// small, else a skiplist whose nodes are also the entries of a seeded hash table keyed by
// member (one allocation per member). Every range operation goes through ranks, so both
// encodings answer the same questions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/object.h"

namespace ds {
struct HtStats;
}

namespace db {

struct ZSetLimits {
  size_t max_listpack_entries = 128;
  size_t max_listpack_value = 64;
};
ZSetLimits& GetZSetLimits();

struct ScoreRange {
  double min, max;
  bool minex = false, maxex = false;
  bool Contains(double s) const {
    return (minex ? s > min : s >= min) && (maxex ? s < max : s <= max);
  }
};
// Lex range: "-" / "+" are open ends; inclusive/exclusive bounds.
struct LexRange {
  std::string min, max;
  bool min_inf = false, max_inf = false;  // "-" and "+"
  bool minex = false, maxex = false;
  bool min_is_plus = false, max_is_minus = false;  // "+" as min or "-" as max: empty range
  bool GteMin(std::string_view s) const;
  bool LteMax(std::string_view s) const;
  // min above max, or equal with an exclusive end.
  bool AlwaysEmpty() const;
};

Obj* NewZSet(std::string_view key, size_t size_hint, size_t max_member_len);
size_t ZLen(const Obj* o);
bool ZScore(Obj* o, std::string_view member, double* score);
// Inserts or updates; returns true when the member is new.
bool ZSetScore(Obj* o, std::string_view member, double score);
// Fills a new, empty sorted set with a decoded value's members, which are distinct: a small
// one is sorted and packed in one pass instead of one search and insert per member.
void ZSetLoad(Obj* o, const std::vector<std::pair<std::string, double>>& elems);
// The same from views (a snapshot's listpack read in place). `text` is the score as the set
// writes it (ZScoreText) when the caller has it already, else empty.
struct ZLoadEntry {
  std::string_view member;
  double score;
  std::string_view text;
};
void ZSetLoad(Obj* o, const std::vector<ZLoadEntry>& elems);
// A score as a compact sorted set holds it (base::FormatDouble's text, "0" for -0) into buf
// (at least base::kDoubleBufSize bytes).
std::string_view ZScoreText(double score, char* buf);
// Whether text, read as a score, is what ZScoreText writes for it. False for some that are
// (those past 15 characters, or with an exponent): a caller then formats the score.
bool ZScoreTextIsCanonical(std::string_view text);
bool ZRemove(Obj* o, std::string_view member);
// 0-based rank in ascending order, -1 if absent.
int64_t ZRank(Obj* o, std::string_view member);
// Visits from rank `start` ascending (or descending when reverse, rank counted from the end);
// fn returns false to stop.
void ZWalk(Obj* o, size_t start, bool reverse,
           const std::function<bool(std::string_view, double)>& fn);
// How many elements come at or before (score, member) in the set's order: the rank of the first
// one after it, a cursor that inserts and removals elsewhere leave valid (slot migration sends
// a big sorted set in order from it).
size_t ZRankAfter(Obj* o, double score, std::string_view member);
// Rank of the first element >= range start, and the count of elements in the range.
void ZScoreRangeRanks(Obj* o, const ScoreRange& r, size_t* first, size_t* count);
// Lexicographic ranges are defined like Valkey's, which also answers when the members are not
// in lexicographic order (their scores differ): the range is empty unless the last element is
// >= min and the first <= max; forward, it starts at the first element >= min (empty if that
// one is not <= max) and goes on while elements are <= max; reverse, it starts at the last
// element <= max (empty if that one is not >= min) and goes down while elements are >= min.
// A listpack is walked element by element, as Valkey does; a skiplist is searched by descent
// (O(log N)), as Valkey does too, which finds the same start whenever members are ordered.
// Returns false for an empty range, else the ascending rank of the start.
bool ZLexStart(Obj* o, const LexRange& r, bool reverse, size_t* rank);
// ZLEXCOUNT: elements from the forward start while they are <= max.
size_t ZLexCount(Obj* o, const LexRange& r);
// Deletes ranks [start, start+count).
void ZDeleteRanks(Obj* o, size_t start, size_t count);
// Random element.
void ZRandom(Obj* o, std::string* member, double* score);
uint64_t ZScan(Obj* o, uint64_t cursor, const std::function<void(std::string_view, double)>& fn);
// Converts to skiplist when entries or member sizes exceed the listpack limits, and back.
void ZMaybeConvert(Obj* o, size_t max_member_len);
// Sizes the member table for `n` members at once (a value that will grow that big: no table
// doubling, no rehash on the way); converts a listpack that could not hold them.
void ZReserveMembers(Obj* o, size_t n);
void RegisterZSetType();
// As HashTableStats, for the member table of a skiplist-encoded sorted set.
bool ZSetTableStats(const Obj* o, int t, bool full, ds::HtStats* out);
// Forbids/allows resizing the member tables while a forked child shares memory pages.
void ZSetSetResizeAllowed(bool allowed);

}  // namespace db
