#include "commands/debug_htstats.h"

#include <string>

#include "base/util.h"
#include "commands/common.h"
#include "db/hash.h"
#include "db/set.h"
#include "db/zset.h"
#include "ds/hashtable_stats.h"

namespace cmd {
namespace {

// As Valkey, a third argument other than "full" (and anything after it) is ignored.
bool FullArg(const Client* c) { return c->argv.size() >= 4 && base::EqualsNoCase(c->argv[3], "full"); }

// The main table's figures, then the rehashing target's while a rehash runs.
template <typename StatsFn>
std::string BothTables(bool full, StatsFn&& stats) {
  std::string out;
  ds::HtStats s;
  for (int t = 0; t < 2; t++)
    if (stats(t, &s)) out += ds::FormatHtStats(s, full);
  return out;
}

}  // namespace

void DebugHtStats(Client* c) {
  int64_t id;
  if (!server::ArgInt(c, c->argv[2], &id)) return;
  if (id < 0 || id >= static_cast<int64_t>(server::g.dbs.size()))
    return c->R().Error("Out of range database");
  bool full = FullArg(c);
  const db::Db* d = server::g.dbs[id].get();
  std::string out = "[Dictionary HT]\n";
  out += BothTables(full, [&](int t, ds::HtStats* s) { return d->TableStats(false, t, full, s); });
  out += "[Expires HT]\n";
  out += BothTables(full, [&](int t, ds::HtStats* s) { return d->TableStats(true, t, full, s); });
  c->R().Verbatim(out);
}

void DebugHtStatsKey(Client* c) {
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Error(server::kErrNoSuchKey);
  bool full = FullArg(c);
  bool (*stats)(const db::Obj*, int, bool, ds::HtStats*) = nullptr;
  if (o->type() == db::kHash) stats = db::HashTableStats;
  if (o->type() == db::kSet) stats = db::SetTableStats;
  if (o->type() == db::kZSet) stats = db::ZSetTableStats;
  ds::HtStats probe;
  if (!stats || !stats(o, 0, false, &probe))
    return c->R().Error(
        "The value stored at the specified key is not represented using an hash table");
  c->R().Verbatim(BothTables(full, [&](int t, ds::HtStats* s) { return stats(o, t, full, s); }));
}

}  // namespace cmd
