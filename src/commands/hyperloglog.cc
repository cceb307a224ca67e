// HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST. Values are plain strings
// in the "HYLL" format of db/hll.h, byte for byte what Valkey 8 stores, so they move to and
// from Valkey and Redis with GET/SET, DUMP/RESTORE and snapshots. Replies, errors, keyspace
// events (PFADD and PFMERGE signal "pfadd") and propagation as Valkey 8: PFCOUNT is a read
// command that, when it refreshes a stale cached cardinality inside the value, counts as a
// change (the key is signalled, and PFCOUNT goes to replicas and the AOF).
#include <cmath>
#include <cstring>

#include "base/util.h"
#include "commands/common.h"
#include "db/hll.h"
#include "ds/hashtable.h"
#include "server/config.h"
#include "server/notify.h"

namespace cmd {
namespace {

using server::Client;
using server::CommandSpec;
using namespace server;  // flags
namespace hll = db::hll;

constexpr const char* kErrNotHll = "-WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr const char* kErrCorrupt = "-INVALIDOBJ Corrupted HLL object detected";

size_t SparseMax() { return static_cast<size_t>(server::cfg.hll_sparse_max_bytes); }

// WRONGTYPE (another type, or a string that is no HLL) replied when false.
bool CheckHll(Client* c, const db::Obj* o) {
  if (!CheckType(c, o, db::kString)) return false;
  char buf[24];
  if (o->enc() == db::kEncInt || !hll::LooksValid(o->str(buf))) {
    c->R().Error(kErrNotHll);
    return false;
  }
  return true;
}

// The value of an HLL key for editing in place.
std::string* EditableHll(Client* c, db::Obj** o) {
  *o = MakeRaw(c, *o);
  return (*o)->raw();
}

void PfAddCommand(Client* c) {
  auto& a = c->argv;
  db::Obj* o = LookupWrite(c, a[1]);
  int64_t updated = 0;
  if (!o) {
    o = db::NewRaw(a[1], hll::NewSparse());
    c->db->Add(o);
    updated++;
  } else if (!CheckHll(c, o)) {
    return;
  }
  std::string* v = EditableHll(c, &o);
  for (size_t j = 2; j < a.size(); j++) {
    int r = hll::Add(v, a[j], SparseMax());
    if (r < 0) return c->R().Error(kErrCorrupt);
    updated += r;
  }
  if (updated) {
    hll::InvalidateCache(v);
    Modified(c, a[1], updated);
    server::Notify(server::kNotifyString, "pfadd", a[1], c->dbid);
  }
  c->R().Int(updated ? 1 : 0);
}

void PfCountCommand(Client* c) {
  auto& a = c->argv;
  if (a.size() > 2) {
    // The union of several keys, estimated from a merged copy; the keys stay as they are.
    uint8_t max[hll::kRegisters] = {};
    for (size_t j = 1; j < a.size(); j++) {
      db::Obj* o = LookupRead(c, a[j]);
      if (!o) continue;
      if (!CheckHll(c, o)) return;
      char buf[24];
      if (!hll::MergeInto(max, o->str(buf))) return c->R().Error(kErrCorrupt);
    }
    return c->R().Int(static_cast<int64_t>(hll::CountRaw(max)));
  }
  db::Obj* o = LookupRead(c, a[1]);
  if (!o) return c->R().Int(0);
  if (!CheckHll(c, o)) return;
  std::string* v = EditableHll(c, &o);
  uint64_t card;
  if (hll::CacheValid(*v)) {
    card = hll::CachedCardinality(*v);
  } else {
    bool invalid = false;
    card = hll::Count(*v, &invalid);
    if (invalid) return c->R().Error(kErrCorrupt);
    hll::SetCachedCardinality(v, card);
    Modified(c, a[1]);  // the value changed: watchers see it, replicas get this PFCOUNT
  }
  c->R().Int(static_cast<int64_t>(card));
}

void PfMergeCommand(Client* c) {
  auto& a = c->argv;
  uint8_t max[hll::kRegisters] = {};
  bool dense = false;  // a dense source makes the destination dense at once
  for (size_t j = 1; j < a.size(); j++) {
    db::Obj* o = LookupRead(c, a[j]);
    if (!o) continue;
    if (!CheckHll(c, o)) return;
    char buf[24];
    std::string_view v = o->str(buf);
    if (hll::Encoding(v) == hll::kDense) dense = true;
    if (!hll::MergeInto(max, v)) return c->R().Error(kErrCorrupt);
  }
  db::Obj* o = LookupWrite(c, a[1]);  // checked above as the first source
  if (!o) {
    o = db::NewRaw(a[1], hll::NewSparse());
    c->db->Add(o);
  }
  std::string* v = EditableHll(c, &o);
  if (dense && !hll::ToDense(v)) return c->R().Error(kErrCorrupt);
  if (hll::Encoding(*v) == hll::kDense) {
    // The destination was merged as the first source: its registers become the maxima.
    hll::DensePack(max, reinterpret_cast<uint8_t*>(v->data()) + hll::kHeaderSize);
  } else {
    // Register by register, in order: the sparse bytes (and any promotion) come out as
    // Valkey's.
    for (int j = 0; j < hll::kRegisters; j++)
      if (max[j]) hll::SetRegister(v, j, max[j], SparseMax());
  }
  hll::InvalidateCache(v);
  Modified(c, a[1]);
  server::Notify(server::kNotifyString, "pfadd", a[1], c->dbid);
  c->R().Ok();
}

void PfDebugCommand(Client* c) {
  auto& a = c->argv;
  std::string_view sub = a[1];
  db::Obj* o = LookupWrite(c, a[2]);
  if (!o) return c->R().Error("The specified key does not exist");
  if (!CheckHll(c, o)) return;
  std::string* v = EditableHll(c, &o);
  bool sparse = hll::Encoding(*v) == hll::kSparse;
  if (base::EqualsNoCase(sub, "getreg")) {
    if (sparse) {
      if (!hll::ToDense(v)) return c->R().Error(kErrCorrupt);
      server::g.dirty++;  // the encoding changed: replicas convert too
    }
    auto r = c->R();
    r.ArrayLen(hll::kRegisters);
    auto* regs = reinterpret_cast<const uint8_t*>(v->data()) + hll::kHeaderSize;
    for (int j = 0; j < hll::kRegisters; j++) r.Int(hll::DenseGet(regs, j));
  } else if (base::EqualsNoCase(sub, "decode")) {
    if (!sparse) return c->R().Error("HLL encoding is not sparse");
    c->R().Bulk(hll::DecodeSparse(*v));
  } else if (base::EqualsNoCase(sub, "encoding")) {
    c->R().Simple(sparse ? "sparse" : "dense");
  } else if (base::EqualsNoCase(sub, "todense")) {
    if (sparse) {
      if (!hll::ToDense(v)) return c->R().Error(kErrCorrupt);
      server::g.dirty++;
    }
    c->R().Int(sparse ? 1 : 0);
  } else {
    c->R().Error("Unknown PFDEBUG subcommand '" + std::string(sub) + "'");
  }
}

// The register packing, then the estimate's error at cardinalities 1, 10, 100, ... 10^7 with a
// dense and a sparse HLL fed the same elements (they must agree; the sparse one must still be
// sparse while small).
void PfSelfTestCommand(Client* c) {
  std::vector<uint8_t> regs(hll::kDenseSize - hll::kHeaderSize + 1);
  std::vector<uint8_t> expect(hll::kRegisters);
  for (int cycle = 0; cycle < 1000; cycle++) {
    for (int i = 0; i < hll::kRegisters; i++) {
      expect[i] = static_cast<uint8_t>(ds::RandomU64() & hll::kRegisterMax);
      hll::DenseSet(regs.data(), i, expect[i]);
    }
    for (int i = 0; i < hll::kRegisters; i++) {
      int got = hll::DenseGet(regs.data(), i);
      if (got != expect[i]) {
        return c->R().Error("TESTFAILED Register " + std::to_string(i) + " should be " +
                            std::to_string(expect[i]) + " but is " + std::to_string(got));
      }
    }
  }
  std::string dense = hll::NewSparse();
  hll::ToDense(&dense);
  std::string sparse = hll::NewSparse();
  const double relerr = 1.04 / std::sqrt(static_cast<double>(hll::kRegisters));
  const uint64_t seed = ds::RandomU64();
  int64_t checkpoint = 1;
  for (int64_t j = 1; j <= 10000000; j++) {
    uint64_t ele = static_cast<uint64_t>(j) ^ seed;
    char bytes[8];
    memcpy(bytes, &ele, 8);
    std::string_view e(bytes, 8);
    hll::Add(&dense, e, SparseMax());
    hll::Add(&sparse, e, SparseMax());
    if (j != checkpoint) continue;
    if (j < server::cfg.hll_sparse_max_bytes / 2 && hll::Encoding(sparse) != hll::kSparse)
      return c->R().Error("TESTFAILED sparse encoding not used");
    bool invalid = false;
    uint64_t card = hll::Count(dense, &invalid);
    if (card != hll::Count(sparse, &invalid))
      return c->R().Error("TESTFAILED dense/sparse disagree");
    int64_t abserr = std::abs(checkpoint - static_cast<int64_t>(card));
    int64_t maxerr = j == 10 ? 1 : static_cast<int64_t>(std::ceil(relerr * 6 * checkpoint));
    if (abserr > maxerr) {
      return c->R().Error("TESTFAILED Too big error. card:" + std::to_string(checkpoint) +
                          " abserr:" + std::to_string(abserr));
    }
    checkpoint *= 10;
  }
  c->R().Ok();
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterHyperLogLogCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "hyperloglog";
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  t->push_back({"pfadd", -2, kW | kCmdFast, PfAddCommand, g, "2.8.9",
                "Adds elements to a HyperLogLog, creating the key when missing.",
                "O(1) per element"});
  // may-replicate (hidden, as in Valkey 8): it may rewrite the key's cached cardinality, so a
  // CLIENT PAUSE WRITE holds it.
  t->push_back({"pfcount", -2, kCmdReadonly | kCmdMayReplicate, PfCountCommand, g, "2.8.9",
                "Estimates the number of distinct elements added to one HyperLogLog or to the "
                "union of several.",
                "O(1) for one key (cached); O(N) keys merged otherwise"});
  t->push_back({"pfmerge", -2, kW, PfMergeCommand, g, "2.8.9",
                "Stores the union of HyperLogLogs in the destination key.", "O(N) keys"});
  t->push_back({"pfdebug", 3, kW | kCmdAdmin, PfDebugCommand, g, "2.8.9",
                "Inspects or converts the encoding of a HyperLogLog (internal).", "N/A"});
  t->push_back({"pfselftest", 1, kCmdAdmin, PfSelfTestCommand, g, "2.8.9",
                "Runs the HyperLogLog self-test (internal).", "N/A"});
}
}  // namespace server
