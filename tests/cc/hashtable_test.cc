// Hash tables (the chained ds::HashTable and the keyspace's ds::BucketTable): basic operations,
// incremental rehash, and the scan guarantee across resizes. The tests they share are templates
// run on both.
#include "ds/hashtable.h"

#include "ds/bucket_table.h"

#include <cstring>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "check.h"

namespace {
struct Node {
  Node* next = nullptr;
  std::string key;
};
struct Traits {
  static Node** NextLink(Node* n) { return &n->next; }
  static std::string_view Key(const Node* n) { return n->key; }
};
using ChainTable = ds::HashTable<Node, Traits>;
using BTable = ds::BucketTable<Node, Traits>;

Node* Make(int i) {
  Node* n = new Node;
  n->key = "k" + std::to_string(i);
  return n;
}
template <class Table>
void FreeAll(Table& t) {
  t.Clear([](Node* n) { delete n; });
}
}  // namespace

template <class Table>
void InsertFindRemove() {
  Table t;
  for (int i = 0; i < 5000; i++) t.Insert(Make(i));
  CHECK_EQ(t.Size(), 5000u);
  for (int i = 0; i < 5000; i++) CHECK(t.Find("k" + std::to_string(i)) != nullptr);
  CHECK(t.Find("nope") == nullptr);
  for (int i = 0; i < 5000; i += 2) delete t.Unlink("k" + std::to_string(i));
  CHECK_EQ(t.Size(), 2500u);
  for (int i = 0; i < 5000; i++) CHECK_EQ(t.Find("k" + std::to_string(i)) != nullptr, i % 2 == 1);
  FreeAll(t);
  CHECK_EQ(t.Size(), 0u);
}

template <class Table>
void ShrinksAfterDeletes() {
  Table t;
  for (int i = 0; i < 10000; i++) t.Insert(Make(i));
  size_t big = t.Buckets();
  for (int i = 0; i < 9990; i++) delete t.Unlink("k" + std::to_string(i));
  while (t.RehashSteps(100)) {
  }
  CHECK(t.Buckets() < big / 64);
  for (int i = 9990; i < 10000; i++) CHECK(t.Find("k" + std::to_string(i)) != nullptr);
  FreeAll(t);
}

template <class Table>
void KeepsItsSizeWhileANoShrinkScopeLives() {
  // A value freed element by element: no shrink (and no rehash into a new array) on the way.
  Table t;
  for (int i = 0; i < 10000; i++) t.Insert(Make(i));
  while (t.RehashSteps(100)) {
  }
  size_t big = t.Buckets();
  {
    ds::NoShrinkScope no_shrink;
    for (int i = 0; i < 9990; i++) delete t.Unlink("k" + std::to_string(i));
    CHECK(!t.Rehashing());
    CHECK_EQ(t.Buckets(), big);
  }
  for (int i = 9990; i < 10000; i++) CHECK(t.Find("k" + std::to_string(i)) != nullptr);
  // Outside it, the next delete shrinks as usual.
  delete t.Unlink("k9990");
  while (t.RehashSteps(100)) {
  }
  CHECK(t.Buckets() < big / 64);
  FreeAll(t);
}

template <class Table>
void ReplaceKeepsPosition() {
  Table t;
  for (int i = 0; i < 100; i++) t.Insert(Make(i));
  Node* old = t.Find("k42");
  Node* nw = new Node;
  nw->key = "k42";
  t.Replace(old, nw);
  delete old;
  CHECK(t.Find("k42") == nw);
  CHECK_EQ(t.Size(), 100u);
  FreeAll(t);
}

template <class Table>
void RandomCoversElements() {
  Table t;
  for (int i = 0; i < 64; i++) t.Insert(Make(i));
  std::set<std::string> seen;
  for (int i = 0; i < 20000; i++) seen.insert(t.Random()->key);
  CHECK_EQ(seen.size(), 64u);
  FreeAll(t);
}

// Random() is uniform over the elements, chains of every length included: with resizing held
// back (a snapshot child is running) chains grow to about 4 elements, unevenly; a node alone in
// its bucket must not come up more often than one in a long chain. Chi-square per degree of
// freedom is about 1 for a uniform draw; picking a bucket and then a node of its chain gave
// several times that.
template <class Table>
void RandomIsUniform() {
  Table t;
  Table::SetResizeAllowed(false);
  for (int i = 0; i < 64; i++) t.Insert(Make(i));  // grows to 64 buckets
  for (int i = 64; i < 256; i++) t.Insert(Make(i));  // 4 per bucket on average, unevenly
  Table::SetResizeAllowed(true);
  std::map<std::string, int> count;
  const int kDraws = 256 * 400;
  for (int i = 0; i < kDraws; i++) count[t.Random()->key]++;
  CHECK_EQ(count.size(), 256u);
  double expected = kDraws / 256.0, chi = 0;
  for (auto& [k, n] : count) chi += (n - expected) * (n - expected) / expected;
  double per_dof = chi / 255;
  if (per_dof > 1.6) fprintf(stderr, "  chi-square per degree of freedom %.2f\n", per_dof);
  CHECK(per_dof < 1.6);
  FreeAll(t);
}

// The scan guarantee: every element present from the first call to the last is returned,
// while the table grows and shrinks (and rehashes incrementally) between calls.
template <class Table>
void ScanSurvivesGrowthAndShrink() {
  for (int mode = 0; mode < 3; mode++) {
    Table t;
    // Elements 0..999 are present for the whole scan.
    for (int i = 0; i < 1000; i++) t.Insert(Make(i));
    std::set<std::string> seen;
    uint64_t cursor = 0;
    int step = 0, extra = 1000000;
    do {
      cursor = t.Scan(cursor, [&](Node* n) { seen.insert(n->key); });
      step++;
      bool grow = (mode == 0 && step < 60) || (mode == 2 && step < 40);
      if (mode == 1 && step == 1) {
        // Start big so the shrink mode has something to remove.
        for (int j = 0; j < 20000; j++) t.Insert(Make(extra++));
      } else if (grow) {
        // Grow: add many transient elements between calls.
        for (int j = 0; j < 500; j++) t.Insert(Make(extra++));
      } else {
        // Shrink: remove transient elements (never the stable ones).
        for (int j = 0; j < 500 && extra > 1000000; j++)
          delete t.Unlink("k" + std::to_string(--extra));
      }
      t.RehashSteps(step % 3);  // leave the table mid-rehash at times
    } while (cursor != 0);
    for (int i = 0; i < 1000; i++) {
      if (!seen.count("k" + std::to_string(i))) {
        fprintf(stderr, "  mode %d: k%d missed\n", mode, i);
        CHECK(false);
      }
    }
    FreeAll(t);
  }
}

template <class Table>
void ScanOfShrinkingTable() {
  Table t;
  for (int i = 0; i < 20000; i++) t.Insert(Make(i));
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int next_del = 100;  // k0..k99 stay
  do {
    cursor = t.Scan(cursor, [&](Node* n) { seen.insert(n->key); });
    for (int j = 0; j < 300 && next_del < 20000; j++)
      delete t.Unlink("k" + std::to_string(next_del++));
  } while (cursor != 0);
  for (int i = 0; i < 100; i++) CHECK(seen.count("k" + std::to_string(i)) == 1);
  FreeAll(t);
}

TEST_CASE(HashSeedChangesBucketOrder) {
  uint8_t s1[16] = {1}, s2[16] = {2};
  ds::SetHashSeed(s1);
  uint64_t a = ds::Hash("hello");
  ds::SetHashSeed(s2);
  uint64_t b = ds::Hash("hello");
  CHECK(a != b);
  ds::SetHashSeed(s1);
  CHECK_EQ(ds::Hash("hello"), a);
}

template <class Table>
void ForEachWhileStopsWhenAsked() {
  Table t;
  for (int i = 0; i < 1000; i++) t.Insert(Make(i));
  int seen = 0;
  t.ForEachWhile([&](Node*) { return ++seen < 10; });
  CHECK_EQ(seen, 10);
  std::set<std::string> all;
  t.ForEachWhile([&](Node* n) {
    all.insert(n->key);
    return true;
  });
  CHECK_EQ(all.size(), 1000u);
  FreeAll(t);
}

// GETKEYSINSLOT + MIGRATE: take the first keys, delete them, again. ForEachWhile skips the
// empty buckets this leaves at the front, and still gives exactly the first keys in bucket
// order (those a scan from bucket 0 gives), whatever was inserted meanwhile.
template <class Table>
void ForEachWhileGivesTheFirstKeysWhileTheFrontEmpties() {
  Table t;
  int next = 0;
  for (; next < 3000; next++) t.Insert(Make(next));
  auto first = [&](bool all_buckets, size_t n) {
    std::vector<std::string> keys;
    auto take = [&](Node* x) {
      if (keys.size() < n) keys.push_back(x->key);
      return keys.size() < n;
    };
    if (all_buckets)
      t.ForEach([&](Node* x) { take(x); });
    else
      t.ForEachWhile(take);
    return keys;
  };
  int rounds = 0;
  while (t.Size() > 0) {
    std::vector<std::string> keys = first(false, 10);
    CHECK(keys == first(true, 10));
    for (auto& k : keys) delete t.Unlink(k);
    // New keys now and then, some of which land in the emptied front buckets.
    if (++rounds % 7 == 0 && next < 4000)
      for (int j = 0; j < 5; j++) t.Insert(Make(next++));
  }
  CHECK(first(false, 10).empty());
  t.Insert(Make(next));  // into an empty table whose hint went past every bucket
  CHECK(first(false, 10) == std::vector<std::string>{"k" + std::to_string(next)});
  FreeAll(t);
}

// ScanBatch(v, k) is k steps of Scan: the same nodes in the same order and the same cursor
// back, for every batch size, with the table still and while it rehashes (one step then).
template <class Table>
void ScanBatchIsStepsOfScan() {
  for (int rehashing = 0; rehashing < 2; rehashing++) {
    Table t;
    for (int i = 0; i < 3000; i++) t.Insert(Make(i));
    while (t.Rehashing()) t.Find("x");  // each lookup takes a rehash step
    if (rehashing) {
      t.Reserve(t.Size() * 4);  // starts a rehash to a bigger table
      CHECK(t.Rehashing());
    }
    for (int k : {1, 2, 7, 16, 64}) {
      std::vector<std::string> by_scan, by_batch;
      uint64_t a = 0, b = 0;
      size_t calls = 0;
      do {
        uint64_t before = b;
        b = t.ScanBatch(b, k, [&](Node* n) { by_batch.push_back(n->key); });
        // the same as k single steps (fewer when the scan ends; one while rehashing)
        int steps = rehashing ? 1 : k;
        uint64_t c = before;
        for (int i = 0; i < steps; i++) {
          c = t.Scan(c, [&](Node* n) { by_scan.push_back(n->key); });
          if (c == 0) break;
        }
        CHECK_EQ(b, c);
        a = c;
        calls++;
      } while (b != 0 && calls < 100000);
      CHECK_EQ(a, 0u);
      CHECK(by_batch == by_scan);
      CHECK_EQ(std::set<std::string>(by_batch.begin(), by_batch.end()).size(), 3000u);
    }
    FreeAll(t);
  }
}

// A rehash started by growth ends within an eighth of the operations it took at one bucket
// each: a table of 8,192 buckets grown on its 8,193rd insert holds one bucket array again
// before its 9,300th (with one bucket per operation it held both until its 16,384th).
TEST_CASE(HashTableGrowthRehashEndsWithinAnEighth) {
  ChainTable t;
  int i = 0;
  while (t.Buckets() < 8192 || t.Rehashing()) t.Insert(Make(i++));
  CHECK_EQ(t.Buckets(), 8192u);
  while (!t.Rehashing()) t.Insert(Make(i++));
  CHECK_EQ(i, 8193);
  while (t.Rehashing() && i < 20000) t.Insert(Make(i++));
  CHECK(i < 9300);
  CHECK_EQ(t.Buckets(), 16384u);
  FreeAll(t);
}

TEST_CASE(HashTableInsertFindRemove) { InsertFindRemove<ChainTable>(); }
TEST_CASE(BucketTableInsertFindRemove) { InsertFindRemove<BTable>(); }
TEST_CASE(HashTableShrinksAfterDeletes) { ShrinksAfterDeletes<ChainTable>(); }
TEST_CASE(BucketTableShrinksAfterDeletes) { ShrinksAfterDeletes<BTable>(); }
TEST_CASE(HashTableKeepsItsSizeWhileANoShrinkScopeLives) { KeepsItsSizeWhileANoShrinkScopeLives<ChainTable>(); }
TEST_CASE(BucketTableKeepsItsSizeWhileANoShrinkScopeLives) { KeepsItsSizeWhileANoShrinkScopeLives<BTable>(); }
TEST_CASE(HashTableReplaceKeepsPosition) { ReplaceKeepsPosition<ChainTable>(); }
TEST_CASE(BucketTableReplaceKeepsPosition) { ReplaceKeepsPosition<BTable>(); }
TEST_CASE(HashTableRandomCoversElements) { RandomCoversElements<ChainTable>(); }
TEST_CASE(BucketTableRandomCoversElements) { RandomCoversElements<BTable>(); }
TEST_CASE(HashTableRandomIsUniform) { RandomIsUniform<ChainTable>(); }
TEST_CASE(BucketTableRandomIsUniform) { RandomIsUniform<BTable>(); }
TEST_CASE(HashTableScanSurvivesGrowthAndShrink) { ScanSurvivesGrowthAndShrink<ChainTable>(); }
TEST_CASE(BucketTableScanSurvivesGrowthAndShrink) { ScanSurvivesGrowthAndShrink<BTable>(); }
TEST_CASE(HashTableScanOfShrinkingTable) { ScanOfShrinkingTable<ChainTable>(); }
TEST_CASE(BucketTableScanOfShrinkingTable) { ScanOfShrinkingTable<BTable>(); }
TEST_CASE(HashTableForEachWhileStopsWhenAsked) { ForEachWhileStopsWhenAsked<ChainTable>(); }
TEST_CASE(BucketTableForEachWhileStopsWhenAsked) { ForEachWhileStopsWhenAsked<BTable>(); }
TEST_CASE(HashTableForEachWhileGivesTheFirstKeysWhileTheFrontEmpties) { ForEachWhileGivesTheFirstKeysWhileTheFrontEmpties<ChainTable>(); }
TEST_CASE(BucketTableForEachWhileGivesTheFirstKeysWhileTheFrontEmpties) { ForEachWhileGivesTheFirstKeysWhileTheFrontEmpties<BTable>(); }
TEST_CASE(HashTableScanBatchIsStepsOfScan) { ScanBatchIsStepsOfScan<ChainTable>(); }
TEST_CASE(BucketTableScanBatchIsStepsOfScan) { ScanBatchIsStepsOfScan<BTable>(); }

// BucketTable alone: its sizes, and its chains against a model.

// A bucket array fills to kMaxLoad elements a bucket before it doubles: 1,024 buckets grow on
// the insert past 1,024 x kMaxLoad; the rehash, one bucket an operation, then ends within the
// next 1,024 operations and a few (a tenth of what filled the table).
TEST_CASE(BucketTableGrowsAtItsMaxLoadAndRehashesWithinATenth) {
  BTable t;
  int i = 0;
  const int full = 1024 * static_cast<int>(BTable::kMaxLoad);
  while (t.Buckets() < 1024 || t.Rehashing()) t.Insert(Make(i++));
  CHECK_EQ(t.Buckets(), 1024u);
  while (!t.Rehashing()) t.Insert(Make(i++));
  CHECK_EQ(i, full + 1);
  while (t.Rehashing() && i < 2 * full) t.Insert(Make(i++));
  CHECK(i <= full + 1024 + 8);
  CHECK_EQ(t.Buckets(), 2048u);
  FreeAll(t);
}

// 1M elements take 2^17 buckets: the keyspace's memory per key rests on it (about 12 bytes a
// key with the children). Reserve sizes the same way.
TEST_CASE(BucketTableHoldsAMillionInTwoToThe17Buckets) {
  BTable t;
  t.Reserve(1000000);
  CHECK_EQ(t.Buckets(), size_t{1} << 17);
  for (int i = 0; i < 1000000; i++) t.Insert(Make(i));
  CHECK_EQ(t.Buckets(), size_t{1} << 17);
  CHECK(!t.Rehashing());
  double per_key = static_cast<double>(t.BucketBytes()) / t.Size();
  if (per_key >= 13.5) fprintf(stderr, "  %.2f bytes a key\n", per_key);
  CHECK(per_key < 13.5);
  for (int i = 0; i < 1000000; i += 997) CHECK(t.Find("k" + std::to_string(i)) != nullptr);
  FreeAll(t);
}

// Random inserts and deletes against a model, with resizing forbidden (long chains of children)
// and allowed: every key found or not as the model says, scans see each element exactly once
// when nothing changes, the bytes count the children left, and all children go when the
// table empties.
TEST_CASE(BucketTableChainsFollowAModel) {
  for (int forbid = 1; forbid >= 0; forbid--) {
    BTable t;
    t.Insert(Make(-1));
    delete t.Unlink("k-1");
    BTable::SetResizeForbidden(forbid);
    std::set<int> model;
    uint64_t x = 12345;
    auto rnd = [&] {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      return x;
    };
    for (int op = 0; op < 60000; op++) {
      int k = static_cast<int>(rnd() % 3000);
      std::string key = "k" + std::to_string(k);
      if (model.count(k)) {
        Node* n = t.Unlink(key);
        CHECK(n != nullptr && n->key == key);
        delete n;
        model.erase(k);
      } else {
        CHECK(t.Find(key) == nullptr);
        t.Insert(Make(k));
        model.insert(k);
      }
      CHECK_EQ(t.Size(), model.size());
      if (op % 5000 == 0) {
        std::map<std::string, int> seen;
        uint64_t c = 0;
        do c = t.Scan(c, [&](Node* n) { seen[n->key]++; });
        while (c != 0);
        if (!t.Rehashing()) {
          CHECK_EQ(seen.size(), model.size());
          for (auto& [key2, times] : seen) CHECK_EQ(times, 1);
        }
        for (int m : model) CHECK(t.Find("k" + std::to_string(m)) != nullptr);
      }
    }
    BTable::SetResizeForbidden(false);
    if (forbid) CHECK(t.BucketBytes() > t.Buckets() * 64);  // children exist
    for (int m : model) delete t.Unlink("k" + std::to_string(m));
    while (t.RehashSteps(100)) {
    }
    CHECK_EQ(t.Size(), 0u);
    CHECK_EQ(t.BucketBytes(), t.Buckets() * 64);  // no child left behind
    FreeAll(t);
  }
}

// Scan's callback may delete the element it is given (a delete refills its hole from the
// chain's end): nothing else is skipped or seen twice.
TEST_CASE(BucketTableScanCallbackMayDeleteItsNode) {
  BTable t;
  BTable::SetResizeForbidden(true);
  t.Insert(Make(0));
  for (int i = 1; i < 400; i++) t.Insert(Make(i));  // one bucket: a chain of 400
  BTable::SetResizeForbidden(false);
  std::map<std::string, int> seen;
  uint64_t c = 0;
  do c = t.Scan(c, [&](Node* n) {
    seen[n->key]++;
    int id = std::stoi(n->key.substr(1));
    if (id % 2 == 0) delete t.Unlink(n->key);
  });
  while (c != 0);
  CHECK_EQ(seen.size(), 400u);
  for (auto& [key, times] : seen) CHECK_EQ(times, 1);
  CHECK_EQ(t.Size(), 200u);
  FreeAll(t);
}
