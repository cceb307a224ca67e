// Reverse-binary scan cursors, shared by the hash tables (ds/hashtable.h, ds/bucket_table.h).
//
// A cursor is a bucket index counted with its bits reversed: the buckets an index expands to in
// a bigger array (or folds into in a smaller one) are visited together, so every element
// present for a whole scan is returned at least once, whatever resizes happen between calls.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ds {

inline uint64_t ReverseBits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

// The cursor after v in an array of mask + 1 buckets.
inline uint64_t NextCursor(uint64_t v, uint64_t mask) {
  v |= ~mask;
  return ReverseBits(ReverseBits(v) + 1);
}

// One step of a scan from cursor v over one bucket array (size1 == 0) or the two of a rehash:
// visit(t, i) for bucket i of array t (0: the one of size0), every bucket of the larger array
// that expands from the smaller one's. Returns the next cursor (0: the scan is complete).
template <typename Visit>
uint64_t ScanStep(uint64_t v, size_t size0, size_t size1, Visit&& visit) {
  if (size1 == 0) {
    visit(0, v & (size0 - 1));
    return NextCursor(v, size0 - 1);
  }
  int small = size0 <= size1 ? 0 : 1;
  uint64_t m0 = (small == 0 ? size0 : size1) - 1, m1 = (small == 0 ? size1 : size0) - 1;
  visit(small, v & m0);
  do {
    visit(1 - small, v & m1);
    v = NextCursor(v, m1);
  } while (v & (m0 ^ m1));
  return v;
}

// The cursors of up to `max` steps from v in an array of mask + 1 buckets, into cur; returns
// their number and leaves the cursor after them in *after (for a batch of steps whose buckets
// are loaded ahead of their visits).
inline int CursorRun(uint64_t v, uint64_t mask, int max, uint64_t* cur, uint64_t* after) {
  int n = 0;
  do {
    cur[n++] = v;
    v = NextCursor(v, mask);
  } while (v != 0 && n < max);
  *after = v;
  return n;
}

}  // namespace ds
