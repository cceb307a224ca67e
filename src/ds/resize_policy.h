// When a hash table resizes: the rules ds::HashTable and ds::BucketTable share, and the
// switches the server sets per kind of table.
#pragma once
#include <cstddef>

#include "ds/hashtable_stats.h"

namespace ds {

// Whether a table may take `more_bytes` for a bigger bucket array (the server's maxmemory
// check, installed on the keyspace's tables).
using ExpandAllowedFn = bool (*)(size_t more_bytes);

// While one lives, no table shrinks: a value being freed element by element (a moved slot's
// big value) would otherwise shrink its table again and again, each time rehashing what is
// left into a new bucket array whose pages fault in one by one, only to free it all.
inline int g_no_shrink_scopes = 0;
struct NoShrinkScope {
  NoShrinkScope() { g_no_shrink_scopes++; }
  ~NoShrinkScope() { g_no_shrink_scopes--; }
  NoShrinkScope(const NoShrinkScope&) = delete;
  NoShrinkScope& operator=(const NoShrinkScope&) = delete;
};

// A table holding `used` elements where `cap` fill it to its normal load. `Table` gives each
// kind of table its own switches (the key tables have the maxmemory check, values do not).
template <typename Table>
class ResizePolicy {
 public:
  // Forbids resizing while a forked child shares memory pages (ratio limits still apply).
  static void SetResizeAllowed(bool allowed) { resize_allowed_ = allowed; }
  // Forbids every growth and shrink, ratio limits included (DEBUG DICT-RESIZING 0); a new
  // table still gets its first buckets and Reserve still pre-sizes.
  static void SetResizeForbidden(bool forbidden) { resize_forbidden_ = forbidden; }
  // The maxmemory check of growth, for this kind of table; none by default.
  static void SetExpandAllowed(ExpandAllowedFn fn) { expand_allowed_ = fn; }

 protected:
  // Full: it grows, unless resizing is held back (then only past 5 times its load), or below a
  // load of 1.618 its bigger array (`more_bytes()`) would take the node past maxmemory: keys
  // would be evicted to hold buckets (Valkey 8's dictExpandAllowed, on its keyspace dicts).
  template <typename MoreBytes>
  static bool ShouldGrow(size_t used, size_t cap, MoreBytes&& more_bytes) {
    if (resize_forbidden_) return false;
    if (used < cap || !(resize_allowed_ || used / cap > 4)) return false;
    return !(expand_allowed_ && used * 1000 <= cap * 1618 && !expand_allowed_(more_bytes()));
  }
  // An eighth full (a 32nd while resizing is held back), and no NoShrinkScope alive.
  static bool ShouldShrink(size_t used, size_t cap) {
    if (resize_forbidden_ || g_no_shrink_scopes) return false;
    return used * 8 <= cap && (resize_allowed_ || used * 32 <= cap);
  }

 private:
  static inline bool resize_allowed_ = true;
  static inline bool resize_forbidden_ = false;
  static inline ExpandAllowedFn expand_allowed_ = nullptr;
};

}  // namespace ds
