// Hash table of pointers in cache-line buckets, for the keyspace: no link inside the nodes.
//
// A bucket is 64 bytes: one byte of flags, a one-byte tag of each entry's hash and 7 pointers.
// A bucket that overflows takes a child bucket in its last pointer (its first 6 entries stay),
// so an element always lives in the chain of its home bucket `hash & (buckets - 1)`: the
// reverse-binary scan cursors of ds::HashTable keep their meaning, and with them every
// guarantee a SCAN gives across resizes (and across the nodes of a shard, which share the
// seed). A lookup reads the bucket, compares tags and reads only the nodes whose tag matches.
//
// Tables fill to kMaxLoad (8) elements per bucket on average before they double, so about half
// of the buckets of a full table have a child: 1M keys take 2^17 buckets and some 65k children,
// about 12 bytes a key (a chained table's bucket pointer took 8.4, and its link 8 more in each
// node). Sizes, growth, incremental rehash, scan and random draws follow ds::HashTable, whose
// interface this repeats (minus the link), so db::KeyTable can be either.
//
// Invariants of a chain: every bucket but the last is full (6 entries and the child), and a
// child holds at least 2 entries (one left alone folds back into its parent's last slot).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "ds/hashtable.h"
#include "ds/hashtable_stats.h"
#include "ds/resize_policy.h"
#include "ds/scan_cursor.h"
#include "ds/seed.h"

namespace ds {

template <typename Node, typename Traits>
class BucketTable : public ResizePolicy<BucketTable<Node, Traits>> {
  using Policy = ResizePolicy<BucketTable>;

 public:
  static constexpr int kPerBucket = 7;
  static constexpr size_t kMaxLoad = 10;  // elements per bucket (average) before doubling

  BucketTable() = default;
  BucketTable(const BucketTable&) = delete;
  BucketTable& operator=(const BucketTable&) = delete;
  BucketTable(BucketTable&& o) noexcept { MoveFrom(o); }
  BucketTable& operator=(BucketTable&& o) noexcept {
    if (this != &o) {
      FreeAll();
      MoveFrom(o);
    }
    return *this;
  }
  ~BucketTable() { FreeAll(); }

  size_t Size() const { return t0_.used + T(1).used; }
  size_t Buckets() const { return size_t{t0_.size} + T(1).size; }  // top-level buckets
  bool Rehashing() const { return rh_ != nullptr; }
  // Bytes of the bucket arrays a rehash empties (0 when none runs): memory held twice meanwhile.
  size_t RehashingFromBytes() const {
    return Rehashing() ? (size_t{t0_.size} + t0_.children) * sizeof(Bucket) : 0;
  }
  // Bytes of every bucket, children included.
  size_t BucketBytes() const {
    return (Buckets() + t0_.children + T(1).children) * sizeof(Bucket);
  }

  Node* Find(std::string_view key) {
    if (Size() == 0) return nullptr;
    Step();
    Pos p;
    return Locate(key, Hash(key), nullptr, &p) ? p.node() : nullptr;
  }

  // Inserts a node whose key is not present.
  void Insert(Node* n) {
    Step();
    GrowIfNeeded();
    Place(Rehashing() ? rh_->to : t0_, Hash(Traits::Key(n)), n);
  }

  // Removes the node with this key and returns it (nullptr if absent).
  Node* Unlink(std::string_view key) {
    if (Size() == 0) return nullptr;
    Step();
    Pos p;
    if (!Locate(key, Hash(key), nullptr, &p)) return nullptr;
    Node* n = p.node();
    Remove(p);
    ShrinkIfNeeded();
    return n;
  }

  // Puts `nw` in the place of `old` (same key): used when a node is reallocated.
  void Replace(Node* old, Node* nw) {
    std::string_view key = Traits::Key(old);
    Pos p;
    if (Locate(key, Hash(key), old, &p)) p.b->e[p.i] = nw;
  }

  // A random node, uniform over the nodes; nullptr when empty. A random bucket and a random
  // place in its chain below the most elements a chain was seen to hold: a place past the
  // chain's end draws again, so a node of a full chain is as likely as one alone in its bucket.
  Node* Random() {
    if (Size() == 0) return nullptr;
    Step();
    for (;;) {
      Bucket* head;
      if (Rehashing()) {
        // Buckets below rh_->idx in table 0 are empty: skip them.
        size_t span = t0_.size + rh_->to.size - rh_->idx;
        size_t i = rh_->idx + RandomU64() % span;
        head = i >= t0_.size ? &rh_->to.b[i - t0_.size] : &t0_.b[i];
      } else {
        head = &t0_.b[RandomU64() & (t0_.size - 1)];
      }
      size_t len = ChainCount(head);
      if (len > random_bound_) random_bound_ = static_cast<uint32_t>(len);
      size_t pick = RandomU64() % random_bound_;
      if (pick >= len) continue;
      for (Bucket* b = head;; b = b->child()) {
        for (uint32_t m = b->present(); m; m &= m - 1)
          if (pick-- == 0) return static_cast<Node*>(b->e[__builtin_ctz(m)]);
      }
    }
  }

  // One step of a scan, as ds::HashTable::Scan: fn(Node*) for every node of the buckets
  // visited, the next cursor returned (0 when complete). A bucket's nodes are collected before
  // fn runs, so fn may delete the node it is given.
  template <typename Fn>
  uint64_t Scan(uint64_t v, Fn&& fn) {
    if (Size() == 0) return 0;
    return ScanStep(v, t0_.size, Rehashing() ? rh_->to.size : 0,
                    [&](int t, size_t i) { VisitChain(&T(t).b[i], fn); });
  }

  // Up to `buckets` steps of a scan at once (as many calls of Scan, with the same cursors), the
  // buckets and their first nodes loaded ahead of the visits. During a rehash: one step.
  template <typename Fn>
  uint64_t ScanBatch(uint64_t v, int buckets, Fn&& fn) {
    if (Size() == 0) return 0;
    if (Rehashing() || buckets <= 1) return Scan(v, fn);
    constexpr int kMax = 64, kBucketsAhead = 8, kNodesAhead = 2;
    Bucket* arr = t0_.b;
    uint64_t m = t0_.size - 1;
    uint64_t cur[kMax];  // the cursors first (arithmetic only), then the visits, loads in flight
    int n = CursorRun(v, m, buckets < kMax ? buckets : kMax, cur, &v);
    for (int i = 0; i < n && i < kBucketsAhead; i++) __builtin_prefetch(&arr[cur[i] & m]);
    for (int i = 0; i < n; i++) {
      if (i + kBucketsAhead < n) __builtin_prefetch(&arr[cur[i + kBucketsAhead] & m]);
      if (i + kNodesAhead < n) PrefetchNodes(&arr[cur[i + kNodesAhead] & m]);
      VisitChain(&arr[cur[i] & m], fn);
    }
    return v;
  }

  // Loads the bucket that holds (or would hold) key ahead of a lookup or insert of it.
  void Prefetch(std::string_view key) const {
    if (t0_.size == 0) return;
    uint64_t h = Hash(key);
    __builtin_prefetch(&t0_.b[h & (t0_.size - 1)]);
    if (rh_) __builtin_prefetch(&rh_->to.b[h & (rh_->to.size - 1)]);
  }

  // Loads the nodes whose tag matches key's, in the bucket Prefetch loaded earlier: with both,
  // a lookup a little later finds bucket and node in the cache.
  void PrefetchNodes(std::string_view key) const {
    if (t0_.size == 0) return;
    uint64_t h = Hash(key);
    uint8_t tag = Tag(h);
    for (int t = 0; t < 2; t++) {
      const Table& tb = T(t);
      if (tb.size == 0) continue;
      const Bucket* b = &tb.b[h & (tb.size - 1)];
      for (uint32_t m = b->present(); m; m &= m - 1)
        if (b->tags[__builtin_ctz(m)] == tag) __builtin_prefetch(b->e[__builtin_ctz(m)]);
    }
  }

  // Visits every node; fn must not modify the table.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int t = 0; t < 2; t++) {
      const Table& tb = T(t);
      for (size_t i = 0; i < tb.size; i++) {
        if (i + kAhead < tb.size) PrefetchNodes(&tb.b[i + kAhead]);
        for (Bucket* b = &tb.b[i]; b; b = b->next())
          for (uint32_t m = b->present(); m; m &= m - 1)
            fn(static_cast<Node*>(b->e[__builtin_ctz(m)]));
      }
    }
  }

  // As ForEach, until fn returns false. Starts at the first bucket that may hold a node, so
  // that taking the first keys again and again while deleting them (GETKEYSINSLOT + MIGRATE
  // over a big slot) costs the keys taken, not the empty buckets left behind each time.
  template <class Fn>
  void ForEachWhile(Fn&& fn) const {
    for (int t = 0; t < 2; t++) {
      const Table& tb = T(t);
      for (size_t i = tb.low; i < tb.size; i++) {
        if (i + kAhead < tb.size) PrefetchNodes(&tb.b[i + kAhead]);
        Bucket* head = &tb.b[i];
        if (head->empty() && i == tb.low) tb.low = static_cast<uint32_t>(i + 1);  // empties
        for (Bucket* b = head; b; b = b->next())
          for (uint32_t m = b->present(); m; m &= m - 1)
            if (!fn(static_cast<Node*>(b->e[__builtin_ctz(m)]))) return;
      }
    }
  }

  // Empties the table, handing each node to free_fn.
  template <typename Fn>
  void Clear(Fn&& free_fn) {
    ForEach(free_fn);
    FreeAll();
  }

  // Moves up to n buckets (with their children) to the new array; true while more remains.
  bool RehashSteps(int n) {
    if (!Rehashing()) return false;
    int empty_visits = n * 10;
    while (n-- && t0_.used != 0) {
      while (t0_.b[rh_->idx].empty()) {
        rh_->idx++;
        if (--empty_visits == 0) return true;
      }
      Bucket* head = &t0_.b[rh_->idx];
      for (Bucket* b = head; b;) {
        for (uint32_t m = b->present(); m; m &= m - 1) {
          Node* e = static_cast<Node*>(b->e[__builtin_ctz(m)]);
          Place(rh_->to, Hash(Traits::Key(e)), e);
          t0_.used--;
        }
        Bucket* child = b->next();
        if (b != head) {
          free(b);
          t0_.children--;
        }
        b = child;
      }
      head->bits = 0;
      rh_->idx++;
    }
    if (t0_.used == 0) {
      FreeArray(t0_);
      t0_ = rh_->to;
      delete rh_;
      rh_ = nullptr;
      random_bound_ = kPerBucket;  // the chains are new
      return false;
    }
    return true;
  }

  // Figures of bucket array t (0: main, 1: the rehashing target); false when t is 1 and no
  // rehash runs. Size is its buckets, a "chain" the elements of one, children included.
  bool Stats(int t, bool full, HtStats* out) const {
    if (t == 1 && !Rehashing()) return false;
    const Table& tb = T(t);
    *out = HtStats{};
    out->table = t;
    out->size = tb.size;
    out->used = tb.used;
    if (!full) return true;
    for (size_t i = 0; i < tb.size; i++) out->AddChain(ChainCount(&tb.b[i]));
    return true;
  }

  // Pre-sizes for `n` elements (e.g. before loading a snapshot).
  void Reserve(size_t n) {
    if (Rehashing() || n <= size_t{t0_.size} * kMaxLoad) return;
    ResizeTo(n);
  }

 private:
  struct Bucket {
    // bit i < 7: entry i holds a node; kChained: entry 6 holds the child bucket instead
    uint8_t bits;
    uint8_t tags[kPerBucket];  // the hash's top byte of each node
    void* e[kPerBucket];
    static constexpr uint8_t kChained = 0x80;
    bool chained() const { return bits & kChained; }
    Bucket* child() const { return static_cast<Bucket*>(e[kPerBucket - 1]); }
    Bucket* next() const { return chained() ? child() : nullptr; }
    uint32_t present() const { return bits & 0x7f; }
    bool empty() const { return bits == 0; }
  };
  static_assert(sizeof(Bucket) == 64);

  struct Table {
    Bucket* b = nullptr;
    size_t used = 0;
    uint32_t size = 0;      // buckets, a power of 2 (or 0)
    uint32_t children = 0;  // child buckets allocated
    mutable uint32_t low = 0;  // b[0, low) are all empty: raised by ForEachWhile only
  };

  // Where a node is: bucket, entry, and the chain's head and table.
  struct Pos {
    Bucket* head;
    Bucket* b;
    int i;
    int table;
    Node* node() const { return static_cast<Node*>(b->e[i]); }
  };

  static constexpr size_t kAhead = 2;  // buckets ahead whose nodes a walk prefetches

  static uint64_t Hash(std::string_view key) { return ds::Hash(key); }
  static uint8_t Tag(uint64_t h) { return static_cast<uint8_t>(h >> 56); }
  static size_t ChainCount(const Bucket* b) {
    size_t n = 0;
    for (; b; b = b->next()) n += __builtin_popcount(b->present());
    return n;
  }

  [[gnu::always_inline]] static inline void PrefetchNodes(const Bucket* b) {
    for (uint32_t m = b->present(); m; m &= m - 1) __builtin_prefetch(b->e[__builtin_ctz(m)]);
  }

  // fn on each node of a chain, collected first: fn may then delete the node it is given (a
  // delete moves an entry of the chain's last bucket into the hole).
  template <typename Fn>
  static void VisitChain(Bucket* head, Fn& fn) {
    constexpr size_t kInline = 32;
    Node* inline_nodes[kInline];
    Node** nodes = inline_nodes;
    size_t count = ChainCount(head), n = 0;
    if (count == 0) return;
    if (count > kInline) nodes = static_cast<Node**>(malloc(count * sizeof(Node*)));
    for (Bucket* b = head; b; b = b->next())
      for (uint32_t m = b->present(); m; m &= m - 1)
        nodes[n++] = static_cast<Node*>(b->e[__builtin_ctz(m)]);
    for (size_t i = 0; i < n; i++) fn(nodes[i]);
    if (nodes != inline_nodes) free(nodes);
  }

  // Finds key (and, with `want`, that very node) in either array.
  bool Locate(std::string_view key, uint64_t h, const Node* want, Pos* out) const {
    uint8_t tag = Tag(h);
    for (int t = 0; t < 2; t++) {
      const Table& tb = T(t);
      if (tb.size == 0) continue;
      size_t idx = h & (tb.size - 1);
      if (t == 0 && Rehashing() && idx < rh_->idx) continue;
      Bucket* head = &tb.b[idx];
      for (Bucket* b = head; b; b = b->next())
        for (uint32_t m = b->present(); m; m &= m - 1) {
          int i = __builtin_ctz(m);
          if (b->tags[i] != tag) continue;
          const Node* n = static_cast<const Node*>(b->e[i]);
          if (want ? n != want : Traits::Key(n) != key) continue;
          *out = Pos{head, b, i, t};
          return true;
        }
      if (!Rehashing()) break;
    }
    return false;
  }

  // Adds n to its chain's last bucket; a full one takes a child, its last entry moved into it.
  static void Place(Table& tb, uint64_t h, Node* n) {
    size_t idx = h & (tb.size - 1);
    Bucket* b = &tb.b[idx];
    while (b->chained()) b = b->child();
    uint32_t free_slots = ~b->bits & 0x7f;
    int i;
    if (free_slots) {
      i = __builtin_ctz(free_slots);
    } else {
      Bucket* c = static_cast<Bucket*>(malloc(sizeof(Bucket)));
      c->bits = 1;
      c->tags[0] = b->tags[kPerBucket - 1];
      c->e[0] = b->e[kPerBucket - 1];
      b->e[kPerBucket - 1] = c;
      b->bits = (b->bits & 0x3f) | Bucket::kChained;
      tb.children++;
      b = c;
      i = 1;
    }
    b->e[i] = n;
    b->tags[i] = Tag(h);
    b->bits |= uint8_t(1u << i);
    if (idx < tb.low) tb.low = static_cast<uint32_t>(idx);
    tb.used++;
  }

  // Takes the entry at p out; the chain's last bucket fills the hole, and a last bucket left
  // with one entry or none folds back into its parent.
  void Remove(const Pos& p) {
    Table& tb = T(p.table);
    Bucket* parent = nullptr;
    Bucket* last = p.head;
    while (last->chained()) {
      parent = last;
      last = last->child();
    }
    p.b->bits &= uint8_t(~(1u << p.i));
    if (last != p.b) {
      int j = __builtin_ctz(last->present());  // a child is never empty
      p.b->e[p.i] = last->e[j];
      p.b->tags[p.i] = last->tags[j];
      p.b->bits |= uint8_t(1u << p.i);
      last->bits &= uint8_t(~(1u << j));
    }
    if (parent && __builtin_popcount(last->present()) <= 1) {
      uint8_t bits = parent->bits & 0x3f;
      if (uint32_t m = last->present()) {
        int j = __builtin_ctz(m);
        parent->e[kPerBucket - 1] = last->e[j];
        parent->tags[kPerBucket - 1] = last->tags[j];
        bits |= 0x40;
      } else {
        parent->e[kPerBucket - 1] = nullptr;
      }
      parent->bits = bits;
      free(last);
      tb.children--;
    }
    tb.used--;
  }

  // Each operation moves one bucket (about 10 elements, each hashed again) of a running rehash:
  // it ends within a tenth of the operations that filled the table, as ds::HashTable's 8
  // chained buckets an operation end it within an eighth. 8 of these buckets an operation put
  // 80 moves in one SET: its p99 at -P1 went from 0.9 to 1.5 ms while tables grew.
  static constexpr int kStepsPerOp = 1;
  void Step() {
    if (Rehashing()) RehashSteps(kStepsPerOp);
  }

  void GrowIfNeeded() {
    if (Rehashing()) return;
    if (t0_.size == 0) {
      ResizeTo(1);
      return;
    }
    size_t used = t0_.used, cap = size_t{t0_.size} * kMaxLoad;
    if (Policy::ShouldGrow(used, cap, [&] { return SizeFor(used + 1) * sizeof(Bucket); }))
      ResizeTo(used + 1);
  }

  void ShrinkIfNeeded() {
    if (Rehashing() || t0_.size <= 1) return;
    if (Policy::ShouldShrink(t0_.used, size_t{t0_.size} * kMaxLoad)) ResizeTo(t0_.used);
  }

  // Buckets for `want` elements at most kMaxLoad a bucket: a power of 2, at least 1.
  static size_t SizeFor(size_t want) {
    size_t size = 1;
    while (size * kMaxLoad < want) size <<= 1;
    return size;
  }

  void ResizeTo(size_t want) {
    size_t size = SizeFor(want);
    if (size == t0_.size || size > (size_t{1} << 31)) return;
    // calloc: a big array's fresh pages are zero without being touched. jemalloc places a
    // multiple of 64 bytes at a multiple of 64, so a bucket is one cache line (another
    // allocator's placement costs speed, not correctness).
    Bucket* arr = static_cast<Bucket*>(calloc(size, sizeof(Bucket)));
    Table nt;
    nt.b = arr;
    nt.size = static_cast<uint32_t>(size);
    if (t0_.size == 0) {
      t0_ = nt;
      return;
    }
    rh_ = new Rehash{nt, 0};
    if (t0_.used == 0) RehashSteps(1);
  }

  void FreeArray(Table& tb) {
    if (tb.children)
      for (size_t i = 0; i < tb.size; i++)
        for (Bucket* b = tb.b[i].next(); b;) {
          Bucket* next = b->next();
          free(b);
          b = next;
        }
    free(tb.b);
    tb = Table{};
  }

  void FreeAll() {
    FreeArray(t0_);
    if (rh_) FreeArray(rh_->to);
    delete rh_;
    rh_ = nullptr;
    random_bound_ = kPerBucket;
  }

  void MoveFrom(BucketTable& o) {
    t0_ = o.t0_;
    rh_ = o.rh_;
    random_bound_ = o.random_bound_;
    o.t0_ = Table{};
    o.rh_ = nullptr;
  }

  // The array a rehash fills and how far it got: allocated only while one runs, so that a
  // table is 48 bytes (cluster mode keeps one per slot).
  struct Rehash {
    Table to;
    size_t idx;  // table 0's buckets below it are empty
  };
  const Table& T(int t) const { return t == 0 ? t0_ : rh_ ? rh_->to : kNone; }
  Table& T(int t) { return t == 0 ? t0_ : rh_->to; }

  Table t0_;
  Rehash* rh_ = nullptr;
  uint32_t random_bound_ = kPerBucket;  // Random()'s bound on a chain's elements
  static inline const Table kNone{};
};

}  // namespace ds
