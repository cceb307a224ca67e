// Intrusive chained hash table: seeded hash, incremental rehash, reverse-binary scan cursors.
//
// Nodes carry their own `next` link (no separate entry allocation), so a table costs one
// bucket pointer per slot plus whatever the node type embeds. Traits must provide:
//   static Node** NextLink(Node*);  static std::string_view Key(const Node*);
// Keys are compared bytewise. The table never owns nodes: callers free what they unlink.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include "ds/hashtable_stats.h"
#include "ds/resize_policy.h"
#include "ds/scan_cursor.h"
#include "ds/seed.h"

namespace ds {

uint64_t RandomU64();  // fast non-crypto PRNG shared by tables (random sampling)

template <typename Node, typename Traits>
class HashTable : public ResizePolicy<HashTable<Node, Traits>> {
  using Policy = ResizePolicy<HashTable>;

 public:
  HashTable() = default;
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;
  HashTable(HashTable&& o) noexcept { MoveFrom(o); }
  HashTable& operator=(HashTable&& o) noexcept {
    if (this != &o) {
      FreeBuckets();
      MoveFrom(o);
    }
    return *this;
  }
  ~HashTable() { FreeBuckets(); }

  size_t Size() const { return t_[0].used + t_[1].used; }
  size_t Buckets() const { return t_[0].size + t_[1].size; }
  bool Rehashing() const { return rehash_idx_ >= 0; }
  // The buckets of the array a rehash empties (0 when none runs): memory held twice meanwhile.
  size_t RehashingFromBuckets() const { return Rehashing() ? t_[0].size : 0; }
  // Bytes used by the bucket arrays (for MEMORY USAGE-style accounting).
  size_t BucketBytes() const { return Buckets() * sizeof(Node*); }

  Node* Find(std::string_view key) {
    if (Size() == 0) return nullptr;
    Step();
    Node** link = FindLink(key, Hash(key));
    return link ? *link : nullptr;
  }

  // Inserts a node whose key is not present.
  void Insert(Node* n) {
    Step();
    GrowIfNeeded();
    uint64_t h = Hash(Traits::Key(n));
    Bucket& b = t_[Rehashing() ? 1 : 0];
    size_t idx = h & (b.size - 1);
    SetNext(n, b.slots[idx]);
    b.slots[idx] = n;
    if (idx < b.low) b.low = idx;
    b.used++;
  }

  // Removes the node with this key and returns it (nullptr if absent).
  Node* Unlink(std::string_view key) {
    if (Size() == 0) return nullptr;
    Step();
    int table = 0;
    Node** link = FindLink(key, Hash(key), &table);
    if (!link) return nullptr;
    Node* n = *link;
    *link = Next(n);
    SetNext(n, nullptr);
    t_[table].used--;
    ShrinkIfNeeded();
    return n;
  }

  // Puts `nw` in the place of `old` (same key): used when a node is reallocated.
  void Replace(Node* old, Node* nw) {
    Node** link = FindLink(Traits::Key(old), Hash(Traits::Key(old)));
    SetNext(nw, Next(old));
    *link = nw;
  }

  // A random node, uniform over the nodes; nullptr when empty. A random bucket and a random
  // place in it below the longest chain seen so far: a place past the chain's end draws again,
  // so a node of a long chain is as likely as one alone in its bucket (a random bucket and then
  // a node of its chain favoured short chains: SRANDMEMBER's negative counts, RANDOMKEY,
  // HRANDFIELD drew some members several times as often as others). The bound only grows, up
  // to the longest chain met, and starts again at 1 after a rehash.
  Node* Random() {
    if (Size() == 0) return nullptr;
    Step();
    for (;;) {
      Node* head;
      if (Rehashing()) {
        // Buckets below rehash_idx_ in table 0 are empty: skip them.
        size_t span = t_[0].size + t_[1].size - rehash_idx_;
        size_t i = rehash_idx_ + RandomU64() % span;
        head = i >= t_[0].size ? t_[1].slots[i - t_[0].size] : t_[0].slots[i];
      } else {
        head = t_[0].slots[RandomU64() & (t_[0].size - 1)];
      }
      size_t len = 0;
      for (Node* n = head; n; n = Next(n)) len++;
      if (len > random_bound_) random_bound_ = len;
      size_t pick = RandomU64() % random_bound_;
      if (pick >= len) continue;
      while (pick--) head = Next(head);
      return head;
    }
  }

  // One step of a scan. Calls fn(Node*) for every node of the buckets visited and returns the
  // next cursor (0 when the scan is complete). fn must not modify the table. Every node present
  // from the first call to the last is visited at least once, whatever resizes happen between
  // calls, because the cursor advances in reverse-binary order.
  template <typename Fn>
  uint64_t Scan(uint64_t v, Fn&& fn) {
    if (Size() == 0) return 0;
    return ScanStep(v, t_[0].size, Rehashing() ? t_[1].size : 0,
                    [&](int t, size_t i) { VisitChain(t_[t].slots[i], fn); });
  }

  // Up to `buckets` steps of a scan at once (as many calls of Scan, with the same cursors),
  // the buckets' heads loaded ahead of the visits: a walk of a big table waits on memory for
  // one bucket after another otherwise, its cursor order being as far from sequential as it
  // gets. During a rehash it takes one step (Scan).
  template <typename Fn>
  uint64_t ScanBatch(uint64_t v, int buckets, Fn&& fn) {
    if (Size() == 0) return 0;
    if (Rehashing() || buckets <= 1) return Scan(v, fn);
    constexpr int kMax = 64, kSlotsAhead = 8, kHeadsAhead = 4;
    Node** slots = t_[0].slots;
    uint64_t m = t_[0].size - 1;
    uint64_t cur[kMax];  // the cursors first (arithmetic only), then the visits, loads in flight
    int n = CursorRun(v, m, buckets < kMax ? buckets : kMax, cur, &v);
    for (int i = 0; i < n && i < kSlotsAhead; i++) __builtin_prefetch(&slots[cur[i] & m]);
    for (int i = 0; i < n; i++) {
      if (i + kSlotsAhead < n) __builtin_prefetch(&slots[cur[i + kSlotsAhead] & m]);
      if (i + kHeadsAhead < n)
        if (Node* head = slots[cur[i + kHeadsAhead] & m]) __builtin_prefetch(head);
      VisitChain(slots[cur[i] & m], fn);
    }
    return v;
  }

  // Loads the bucket that holds (or would hold) key ahead of a lookup or insert of it.
  void Prefetch(std::string_view key) const {
    if (t_[0].size == 0) return;
    uint64_t h = Hash(key);
    __builtin_prefetch(&t_[0].slots[h & (t_[0].size - 1)]);
    if (t_[1].size) __builtin_prefetch(&t_[1].slots[h & (t_[1].size - 1)]);
  }

  // Visits every node; fn must not modify the table.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int t = 0; t < 2; t++)
      for (size_t i = 0; i < t_[t].size; i++) {
        PrefetchAhead(t_[t], i);
        Node* n = t_[t].slots[i];
        while (n) {
          Node* next = Next(n);
          fn(n);
          n = next;
        }
      }
  }

  // As ForEach, until fn returns false. Starts at the first bucket that may hold a node, so
  // that taking the first keys again and again while deleting them (GETKEYSINSLOT + MIGRATE
  // over a big slot) costs the keys taken, not the empty buckets left behind each time.
  template <class Fn>
  void ForEachWhile(Fn&& fn) const {
    for (int t = 0; t < 2; t++)
      for (size_t i = t_[t].low; i < t_[t].size; i++) {
        PrefetchAhead(t_[t], i);
        Node* n = t_[t].slots[i];
        if (!n && i == t_[t].low) t_[t].low = i + 1;  // still a prefix of empty buckets
        while (n) {
          Node* next = Next(n);
          if (!fn(n)) return;
          n = next;
        }
      }
  }

  // Unlinks everything, handing each node to free_fn.
  template <typename Fn>
  void Clear(Fn&& free_fn) {
    for (int t = 0; t < 2; t++)
      for (size_t i = 0; i < t_[t].size; i++) {
        PrefetchAhead(t_[t], i);
        Node* n = t_[t].slots[i];
        while (n) {
          Node* next = Next(n);
          free_fn(n);
          n = next;
        }
      }
    FreeBuckets();
  }

  // Moves up to n buckets to the new table; returns true while more work remains.
  bool RehashSteps(int n) {
    if (!Rehashing()) return false;
    int empty_visits = n * 10;
    while (n-- && t_[0].used != 0) {
      while (t_[0].slots[rehash_idx_] == nullptr) {
        rehash_idx_++;
        if (--empty_visits == 0) return true;
      }
      Node* e = t_[0].slots[rehash_idx_];
      while (e) {
        Node* next = Next(e);
        size_t idx = Hash(Traits::Key(e)) & (t_[1].size - 1);
        SetNext(e, t_[1].slots[idx]);
        t_[1].slots[idx] = e;
        if (idx < t_[1].low) t_[1].low = idx;
        t_[0].used--;
        t_[1].used++;
        e = next;
      }
      t_[0].slots[rehash_idx_] = nullptr;
      rehash_idx_++;
    }
    if (t_[0].used == 0) {
      free(t_[0].slots);
      t_[0] = t_[1];
      t_[1] = Bucket{};
      rehash_idx_ = -1;
      random_bound_ = 1;  // the chains are new
      return false;
    }
    return true;
  }

  // Figures of bucket array t (0: main, 1: the rehashing target); false when t is 1 and no
  // rehash is running. Counting the chains (`full`) walks every bucket.
  bool Stats(int t, bool full, HtStats* out) const {
    if (t == 1 && !Rehashing()) return false;
    *out = HtStats{};
    out->table = t;
    out->size = t_[t].size;
    out->used = t_[t].used;
    if (!full) return true;
    for (size_t i = 0; i < t_[t].size; i++) {
      size_t len = 0;
      for (Node* n = t_[t].slots[i]; n; n = Next(n)) len++;
      out->AddChain(len);
    }
    return true;
  }

  // Pre-sizes for `n` elements (e.g. before loading a snapshot).
  void Reserve(size_t n) {
    if (Rehashing() || n <= t_[0].size) return;
    ResizeTo(n);
  }

 private:
  struct Bucket {
    Node** slots = nullptr;
    size_t size = 0;
    size_t used = 0;
    // slots[0, low) are all empty: a hint that only ForEachWhile raises and inserts lower.
    mutable size_t low = 0;
  };

  static Node* Next(Node* n) { return *Traits::NextLink(n); }
  static void SetNext(Node* n, Node* next) { *Traits::NextLink(n) = next; }
  template <typename Fn>
  static void VisitChain(Node* n, Fn& fn) {
    while (n) {
      Node* next = Next(n);
      fn(n);
      n = next;
    }
  }

  Node** FindLink(std::string_view key, uint64_t h, int* table = nullptr) {
    for (int t = 0; t < 2; t++) {
      if (t_[t].size == 0) continue;
      size_t idx = h & (t_[t].size - 1);
      if (t == 0 && Rehashing() && static_cast<int64_t>(idx) < rehash_idx_) continue;
      Node** link = &t_[t].slots[idx];
      while (*link) {
        std::string_view k = Traits::Key(*link);
        if (k.size() == key.size() && memcmp(k.data(), key.data(), key.size()) == 0) {
          if (table) *table = t;
          return link;
        }
        link = Traits::NextLink(*link);
      }
      if (!Rehashing()) break;
    }
    return nullptr;
  }

  // Each operation moves kStepsPerOp buckets of a running rehash. A rehash moves every bucket
  // once whatever the pace, so this costs no more work in all; it ends after an eighth of the
  // operations one step each took, so a table holds its two bucket arrays for an eighth of the
  // time (a set growing from 8,192 to 16,384 buckets held both until its 16,384th insert: at
  // 10,000 members they were 55% of its memory).
  static constexpr int kStepsPerOp = 8;
  void Step() {
    if (Rehashing()) RehashSteps(kStepsPerOp);
  }

  void GrowIfNeeded() {
    if (Rehashing()) return;
    if (t_[0].size == 0) {
      ResizeTo(4);
      return;
    }
    size_t used = t_[0].used;
    if (Policy::ShouldGrow(used, t_[0].size, [&] { return SizeFor(used + 1) * sizeof(Node*); }))
      ResizeTo(used + 1);
  }

  void ShrinkIfNeeded() {
    if (Rehashing() || t_[0].size <= 4) return;
    size_t used = t_[0].used;
    if (Policy::ShouldShrink(used, t_[0].size)) ResizeTo(used < 4 ? 4 : used);
  }

  static size_t SizeFor(size_t want) {
    size_t size = 4;
    while (size < want) size <<= 1;
    return size;
  }

  void ResizeTo(size_t want) {
    size_t size = SizeFor(want);
    if (size == t_[0].size) return;
    Node** slots = static_cast<Node**>(calloc(size, sizeof(Node*)));
    if (t_[0].size == 0) {
      t_[0] = Bucket{slots, size, 0};
      return;
    }
    t_[1] = Bucket{slots, size, 0};
    rehash_idx_ = 0;
    if (t_[0].used == 0) RehashSteps(1);
  }

  // A walk in bucket order reads the array in order (the hardware prefetches it) but each
  // chain's head is wherever it was allocated: a cache and TLB miss per node, which made a
  // snapshot of 1M small keys spend 3/4 of its time waiting on them. The head 16 buckets
  // ahead is loaded while this one is visited. (Inlined by force: GCC takes a function that
  // only loads and prefetches for pure, and drops the call whose result is unused.)
  [[gnu::always_inline]] static inline void PrefetchAhead(const Bucket& b, size_t i) {
    constexpr size_t kAhead = 16;
    if (i + kAhead < b.size)
      if (Node* head = b.slots[i + kAhead]) __builtin_prefetch(head);
  }

  void FreeBuckets() {
    free(t_[0].slots);
    free(t_[1].slots);
    t_[0] = t_[1] = Bucket{};
    rehash_idx_ = -1;
  }

  void MoveFrom(HashTable& o) {
    t_[0] = o.t_[0];
    t_[1] = o.t_[1];
    rehash_idx_ = o.rehash_idx_;
    random_bound_ = o.random_bound_;
    o.t_[0] = o.t_[1] = Bucket{};
    o.rehash_idx_ = -1;
  }

  Bucket t_[2];
  int64_t rehash_idx_ = -1;
  size_t random_bound_ = 1;  // Random()'s bound on chain length (the longest it met)
};

}  // namespace ds
