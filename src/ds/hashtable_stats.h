// Figures of one bucket array of a ds::HashTable (DEBUG HTSTATS, HTSTATS-KEY), printed in
// Valkey 8's format. Our table is chained like Valkey's dict, so every field has its meaning:
// size is the bucket count, "different slots" the buckets holding at least one node, a chain
// the nodes of one bucket.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ds {

struct HtStats {
  static constexpr size_t kChainSlots = 50;  // chains of 49 nodes and more share the last
  int table = 0;                             // 0: main table, 1: the rehashing target
  size_t size = 0, used = 0;                 // buckets and nodes
  // With `full` only:
  size_t slots_used = 0, max_chain = 0, total_chain = 0;
  size_t chains[kChainSlots] = {};  // buckets by chain length (0 = empty bucket)

  void AddChain(size_t len) {
    chains[len < kChainSlots ? len : kChainSlots - 1]++;
    if (len == 0) return;
    slots_used++;
    total_chain += len;
    if (len > max_chain) max_chain = len;
  }
  // Sums another table's figures into these (a database's per-slot tables print as one).
  void Combine(const HtStats& o);
};

// "Hash table 0 stats (main hash table):" and its lines; `full` adds the chain figures.
std::string FormatHtStats(const HtStats& s, bool full);

}  // namespace ds
