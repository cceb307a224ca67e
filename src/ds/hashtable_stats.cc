#include "ds/hashtable_stats.h"

#include <algorithm>
#include <cstdio>

namespace ds {

void HtStats::Combine(const HtStats& o) {
  size += o.size;
  used += o.used;
  slots_used += o.slots_used;
  total_chain += o.total_chain;
  max_chain = std::max(max_chain, o.max_chain);
  for (size_t i = 0; i < kChainSlots; i++) chains[i] += o.chains[i];
}

std::string FormatHtStats(const HtStats& s, bool full) {
  const char* which = s.table == 0 ? "main hash table" : "rehashing target";
  char buf[256];
  std::string out;
  if (s.used == 0) {
    snprintf(buf, sizeof buf, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n",
             s.table, which);
    return buf;
  }
  snprintf(buf, sizeof buf, "Hash table %d stats (%s):\n table size: %zu\n number of elements: %zu\n",
           s.table, which, s.size, s.used);
  out = buf;
  if (!full) return out;
  // Valkey divides in single precision; so do we, for the same rounding.
  float slots = static_cast<float>(s.slots_used);
  snprintf(buf, sizeof buf,
           " different slots: %zu\n max chain length: %zu\n avg chain length (counted): %.02f\n"
           " avg chain length (computed): %.02f\n Chain length distribution:\n",
           s.slots_used, s.max_chain, static_cast<float>(s.total_chain) / slots,
           static_cast<float>(s.used) / slots);
  out += buf;
  for (size_t i = 0; i < HtStats::kChainSlots; i++) {
    if (s.chains[i] == 0) continue;
    snprintf(buf, sizeof buf, "   %zu: %zu (%.02f%%)\n", i, s.chains[i],
             static_cast<float>(s.chains[i]) / static_cast<float>(s.size) * 100);
    out += buf;
  }
  return out;
}

}  // namespace ds
