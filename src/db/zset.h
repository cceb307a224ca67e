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

#include "db/object.h"

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
};

Obj* NewZSet(std::string_view key, size_t size_hint, size_t max_member_len);
size_t ZLen(const Obj* o);
bool ZScore(Obj* o, std::string_view member, double* score);
// Inserts or updates; returns true when the member is new.
bool ZSetScore(Obj* o, std::string_view member, double score);
bool ZRemove(Obj* o, std::string_view member);
// 0-based rank in ascending order, -1 if absent.
int64_t ZRank(Obj* o, std::string_view member);
// Visits from rank `start` ascending (or descending when reverse, rank counted from the end);
// fn returns false to stop.
void ZWalk(Obj* o, size_t start, bool reverse,
           const std::function<bool(std::string_view, double)>& fn);
// Rank of the first element >= range start, and the count of elements in the range.
void ZScoreRangeRanks(Obj* o, const ScoreRange& r, size_t* first, size_t* count);
void ZLexRangeRanks(Obj* o, const LexRange& r, size_t* first, size_t* count);
// Deletes ranks [start, start+count).
void ZDeleteRanks(Obj* o, size_t start, size_t count);
// Random element.
void ZRandom(Obj* o, std::string* member, double* score);
uint64_t ZScan(Obj* o, uint64_t cursor, const std::function<void(std::string_view, double)>& fn);
// Converts to skiplist when entries or member sizes exceed the listpack limits, and back.
void ZMaybeConvert(Obj* o, size_t max_member_len);
void RegisterZSetType();
// Forbids/allows resizing the member tables while a forked child shares memory pages.
void ZSetSetResizeAllowed(bool allowed);

}  // namespace db
