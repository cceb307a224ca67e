// A set of pointers, hashed by address: bucketized cuckoo hashing (each pointer lives in one of
// two buckets of up to 8 slots, chosen by its hash), with incremental resizing.
//
// It holds the keys that have an expire (db.h's `SlotTables::expires`): a chained entry there
// cost 24 bytes a key (a 16-byte node and its bucket), a slot here costs 8, and two-choice
// buckets of 8 hold up to 97% of their slots before the set must grow, so 1M pointers take
// 2^20 slots, 8.4 bytes each. A lookup reads two cache lines at most and never the pointed-to
// objects; an insert into two full buckets moves a pointer to its other bucket (a cuckoo
// walk), and one that finds no room after kMaxKicks starts a resize.
//
// The bucket count need not be a power of two (a bucket is picked by multiplying 32 bits of
// the hash by the count): a set of fewer than kDoublingCap pointers grows by a quarter, so
// cluster mode's per-slot sets (about 61 keys each at 1M keys) are not left half empty by a
// doubling; bigger ones double, which keeps the moves per insert low.
//
// A resize moves one source bucket per operation (and more from the cron, RehashSteps) into an
// array of the new size, allocated with the resize's state only while it runs (the set is 32
// bytes, so a slot's two tables fit jemalloc's 112-byte class); operations look in both arrays
// meanwhile. The set never owns what its pointers point to.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "ds/hashtable.h"
#include "ds/hashtable_stats.h"

namespace ds {

template <typename T>
class PtrSet {
 public:
  PtrSet() = default;
  PtrSet(const PtrSet&) = delete;
  PtrSet& operator=(const PtrSet&) = delete;
  ~PtrSet() { Clear(); }

  size_t Size() const { return main_.used + (resize_ ? resize_->to.used : 0); }
  // Slots of both arrays (the "table size" of DEBUG HTSTATS: one pointer per slot).
  size_t Buckets() const { return main_.Cap() + (resize_ ? resize_->to.Cap() : 0); }
  bool Rehashing() const { return resize_ != nullptr; }
  size_t RehashingFromBuckets() const { return Rehashing() ? main_.Cap() : 0; }

  // Adds p, which must not be present.
  void Insert(T* p) {
    Step();
    if (!main_.slots) main_ = NewArray(kMinCap);
    if (Rehashing()) {
      if (T* homeless = Place(resize_->to, p)) Rebuild(homeless);
      return;
    }
    // Past 97% it grows, unless that would take the node past maxmemory (as HashTable's
    // growth): then it fills on, and grows only when a walk finds no room.
    if (resize_allowed_ && !resize_forbidden_ && main_.used + 1 > main_.MaxFill() &&
        (!expand_allowed_ || expand_allowed_(CapFor(main_.used + 1) * sizeof(T*))))
      return GrowThenInsert(p);
    if (T* homeless = Place(main_, p)) GrowThenInsert(homeless);
  }

  // Removes p; false if absent.
  bool Remove(T* p) {
    if (Size() == 0) return false;
    Step();
    Array* a;
    T** slot = Find(p, &a);
    if (!slot) return false;
    *slot = nullptr;
    a->used--;
    ShrinkIfNeeded();
    return true;
  }

  bool Contains(const T* p) const {
    Array* a;
    return const_cast<PtrSet*>(this)->Find(p, &a) != nullptr;
  }

  // A pointer drawn uniformly (each is in one slot; empty slots draw again); nullptr if empty.
  T* Random() {
    if (Size() == 0) return nullptr;
    Step();
    size_t cap0 = main_.Cap(), span = Buckets();
    for (;;) {
      size_t i = RandomU64() % span;
      T* p = i < cap0 ? main_.slots[i] : resize_->to.slots[i - cap0];
      if (p) return p;
    }
  }

  // One step of a walk: calls fn(T*) for the pointers of one bucket and returns the next cursor
  // (0 when the walk is done). fn must not modify the set. A pointer present for the whole walk
  // is visited when no resize and no insert ran between the steps (an insert may move a
  // pointer to its other bucket, a resize to the other array): active expiry's walk, which
  // starts again when it ends, needs no more.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    size_t n0 = main_.buckets, n1 = resize_ ? resize_->to.buckets : 0;
    if (cursor >= n0 + n1) return 0;
    const Array& a = cursor < n0 ? main_ : resize_->to;
    size_t b = cursor < n0 ? cursor : cursor - n0;
    T** s = a.slots + b * a.width;
    for (size_t i = 0; i < a.width; i++)
      if (s[i]) fn(s[i]);
    return cursor + 1 < n0 + n1 ? cursor + 1 : 0;
  }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Array* a : {&main_, ResizeTarget()})
      for (size_t i = 0; a && i < a->Cap(); i++)
        if (a->slots[i]) fn(a->slots[i]);
  }

  void Clear() {
    free(main_.slots);
    main_ = Array{};
    if (resize_) free(resize_->to.slots);
    delete resize_;
    resize_ = nullptr;
  }

  // Moves up to n source buckets into the new array; true while more remain.
  bool RehashSteps(int n) {
    if (!Rehashing()) return false;
    while (n-- > 0 && resize_->next < main_.buckets) {
      T** s = main_.slots + size_t{resize_->next} * main_.width;
      for (size_t i = 0; i < main_.width; i++) {
        if (!s[i]) continue;
        T* p = s[i];
        s[i] = nullptr;
        main_.used--;
        if (T* homeless = Place(resize_->to, p)) return Rebuild(homeless), false;
      }
      resize_->next++;
    }
    if (resize_->next < main_.buckets) return true;
    free(main_.slots);
    main_ = resize_->to;
    delete resize_;
    resize_ = nullptr;
    return false;
  }

  // Figures of array t (0: main, 1: the resize target) in DEBUG HTSTATS' terms: a slot holds
  // at most one pointer, so every "chain" is 0 or 1 long.
  bool Stats(int t, bool full, HtStats* out) const {
    if (t == 1 && !Rehashing()) return false;
    const Array& a = t == 0 ? main_ : resize_->to;
    *out = HtStats{};
    out->table = t;
    out->size = a.Cap();
    out->used = a.used;
    if (full)
      for (size_t i = 0; i < a.Cap(); i++) out->AddChain(a.slots[i] ? 1 : 0);
    return true;
  }

  // Resizes wait while a forked child shares the pages, and DEBUG DICT-RESIZING 0 stops them,
  // as for HashTable; a set with no room left grows anyway (it cannot hold more than its slots).
  static void SetResizeAllowed(bool allowed) { resize_allowed_ = allowed; }
  static void SetResizeForbidden(bool forbidden) { resize_forbidden_ = forbidden; }
  static void SetExpandAllowed(ExpandAllowedFn fn) { expand_allowed_ = fn; }

  static constexpr size_t kMinCap = 4;
  static constexpr size_t kWidth = 8;  // slots per bucket: one cache line
  static constexpr size_t kDoublingCap = 1024;
  static constexpr int kMaxKicks = 128;

  // The slots a resize gives a set of n pointers: a quarter more than n, rounded up to a
  // multiple of kWidth while small, else to a power of two (so a set grown at 97% doubles).
  static size_t CapFor(size_t n) {
    size_t want = n + n / 4;
    if (want <= kMinCap) return kMinCap;
    if (n < kDoublingCap) return (want + kWidth - 1) / kWidth * kWidth;
    size_t cap = kDoublingCap;
    while (cap < want) cap <<= 1;
    return cap;
  }

 private:
  // Buckets of `width` slots (kWidth, or kMinCap for the one bucket of a new set); fewer than
  // 2^32 buckets, as a bucket is picked from 32 bits of the hash.
  struct Array {
    T** slots = nullptr;
    size_t used = 0;
    uint32_t buckets = 0;
    uint32_t width = 0;

    size_t Cap() const { return size_t{buckets} * width; }
    // Up to 97% of the slots (all of them while the set is a single bucket).
    size_t MaxFill() const { return buckets <= 1 ? Cap() : Cap() - Cap() / 32; }
    size_t Bucket1(uint64_t h) const { return ((h & 0xffffffffULL) * buckets) >> 32; }
    size_t Bucket2(uint64_t h) const { return ((h >> 32) * buckets) >> 32; }
  };
  struct Resize {
    Array to;
    uint32_t next = 0;  // the next bucket of main_ to move
  };

  const Array* ResizeTarget() const { return resize_ ? &resize_->to : nullptr; }

  // The slot holding p in either array (and the array, in *in), or nullptr.
  T** Find(const T* p, Array** in) {
    uint64_t h = Hash(p);
    for (Array* a : {&main_, resize_ ? &resize_->to : nullptr}) {
      if (!a || !a->slots) continue;
      for (size_t b : {a->Bucket1(h), a->Bucket2(h)}) {
        T** s = a->slots + b * a->width;
        for (size_t i = 0; i < a->width; i++)
          if (s[i] == p) {
            *in = a;
            return s + i;
          }
      }
    }
    return nullptr;
  }

  static uint64_t Hash(const T* p) {
    static const uint64_t seed = RandomU64();
    uint64_t h = reinterpret_cast<uintptr_t>(p) ^ seed;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }

  static Array NewArray(size_t cap) {
    Array a;
    a.width = static_cast<uint32_t>(cap < kWidth ? cap : kWidth);
    a.buckets = static_cast<uint32_t>(cap / a.width);
    a.slots = static_cast<T**>(calloc(cap, sizeof(T*)));
    return a;
  }

  static bool PutInBucket(Array& a, size_t b, T* p) {
    T** s = a.slots + b * a.width;
    for (size_t i = 0; i < a.width; i++)
      if (!s[i]) {
        s[i] = p;
        a.used++;
        return true;
      }
    return false;
  }

  // The other bucket of the pointer r found in bucket b (b itself when both are one).
  static size_t OtherBucket(const Array& a, const T* r, size_t b) {
    uint64_t h = Hash(r);
    return a.Bucket1(h) == b ? a.Bucket2(h) : a.Bucket1(h);
  }

  // Moves a pointer of full bucket b to a free slot of its other bucket and puts p in its
  // place; false when none of them can move.
  static bool MakeRoom(Array& a, size_t b, T* p) {
    T** s = a.slots + b * a.width;
    for (size_t i = 0; i < a.width; i++) {
      size_t alt = OtherBucket(a, s[i], b);
      if (alt != b && PutInBucket(a, alt, s[i])) {
        s[i] = p;
        return true;
      }
    }
    return false;
  }

  // Puts p into a, moving others along a cuckoo walk when both its buckets are full: at each
  // step a pointer of the full bucket that has room in its other bucket moves there, else a
  // random one is displaced and the walk goes on from its other bucket (without the look
  // ahead, a walk of 128 failed in 1 of 3,000 to 9,000 inserts at 97% of 4,096 slots; with it,
  // none in 1.4M up to 98.4%). Returns nullptr, or the pointer left without a slot after
  // kMaxKicks (p or one it displaced): the caller must place it elsewhere.
  static T* Place(Array& a, T* p) {
    uint64_t h = Hash(p);
    size_t b1 = a.Bucket1(h), b2 = a.Bucket2(h);
    if (PutInBucket(a, b1, p) || PutInBucket(a, b2, p)) return nullptr;
    if (MakeRoom(a, b1, p) || (b2 != b1 && MakeRoom(a, b2, p))) return nullptr;
    size_t b = RandomU64() & 1 ? b1 : b2;
    for (int kick = 0; kick < kMaxKicks; kick++) {
      T** slot = a.slots + b * a.width + RandomU64() % a.width;
      std::swap(*slot, p);  // p is now the displaced pointer
      size_t alt = OtherBucket(a, p, b);
      if (PutInBucket(a, alt, p) || MakeRoom(a, alt, p)) return nullptr;
      b = alt;
    }
    return p;
  }

  void Step() {
    if (Rehashing()) RehashSteps(1);
  }

  // Starts a resize to more slots and places p in the new array.
  void GrowThenInsert(T* p) {
    size_t cap = CapFor(main_.used + 1);
    StartResize(cap > main_.Cap() ? cap : main_.Cap() + kWidth);
    if (T* homeless = Place(resize_->to, p)) Rebuild(homeless);
  }

  void ShrinkIfNeeded() {
    if (Rehashing() || main_.Cap() <= kMinCap || !resize_allowed_ || resize_forbidden_ ||
        g_no_shrink_scopes)
      return;
    if (main_.used * 8 > main_.Cap()) return;
    StartResize(CapFor(main_.used * 2));
  }

  void StartResize(size_t cap) { resize_ = new Resize{NewArray(cap)}; }

  // The rare way out when a walk fails in the array being filled: every pointer, and `extra`,
  // at once into one new array with room for twice their number, bigger each time a walk
  // fails again.
  void Rebuild(T* extra) {
    size_t cap = CapFor(2 * (Size() + 1));
    for (;;) {
      Array n = NewArray(cap);
      bool ok = Place(n, extra) == nullptr;
      ForEach([&](T* p) { ok = ok && Place(n, p) == nullptr; });
      if (ok) {
        Clear();
        main_ = n;
        return;
      }
      free(n.slots);
      cap = CapFor(cap);
    }
  }

  Array main_;
  Resize* resize_ = nullptr;  // while a resize runs
  static inline bool resize_allowed_ = true;
  static inline bool resize_forbidden_ = false;
  static inline ExpandAllowedFn expand_allowed_ = nullptr;
};
static_assert(sizeof(PtrSet<int>) == 32);

}  // namespace ds
