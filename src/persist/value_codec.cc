// Snapshot value encoding and decoding (every type up to format version 11) and DUMP payloads.
#include "persist/value_codec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>

#include "base/crc64.h"
#include "base/lzf.h"
#include "base/util.h"
#include "db/stream.h"
#include "ds/intset.h"
#include "ds/listpack.h"
#include "ds/seed.h"
#include "persist/ziplist_reader.h"
#include "persist/zipmap_reader.h"

namespace persist {

bool HasDuplicates(std::vector<std::string_view>& keys) {
  if (keys.size() < 2) return false;
  if (keys.size() <= 8) {
    for (size_t i = 0; i < keys.size(); i++)
      for (size_t j = i + 1; j < keys.size(); j++)
        if (keys[i] == keys[j]) return true;
    return false;
  }
  if (keys.size() >= UINT32_MAX) {
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
  }
  // Open addressing over indexes into keys, with a part of each key's (seeded) hash beside it:
  // one allocation of 8 bytes a slot, and a comparison only where those parts are equal.
  size_t cap = 16;
  while (cap < 2 * keys.size()) cap <<= 1;
  std::vector<std::pair<uint32_t, uint32_t>> slots(cap, {0, 0});  // (hash bits, index + 1)
  for (size_t i = 0; i < keys.size(); i++) {
    uint64_t h = ds::Hash(keys[i]);
    auto tag = static_cast<uint32_t>(h >> 32);
    for (size_t at = h & (cap - 1);; at = (at + 1) & (cap - 1)) {
      auto& [st, idx] = slots[at];
      if (idx == 0) {
        slots[at] = {tag, static_cast<uint32_t>(i + 1)};
        break;
      }
      if (st == tag && keys[idx - 1] == keys[i]) return true;
    }
  }
  return false;
}

namespace {

// Snapshot object types.
enum : uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZSet = 3,
  kTypeHash = 4,
  kTypeZSet2 = 5,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeStreamListpacks = 15,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeStreamListpacks2 = 19,
  kTypeSetListpack = 20,
  kTypeStreamListpacks3 = 21,
};

// Length encoding.
constexpr uint8_t kLen6 = 0;
constexpr uint8_t kLen14 = 1;
constexpr uint8_t kLen32 = 0x80;
constexpr uint8_t kLen64 = 0x81;
constexpr uint8_t kEncVal = 3;
// Special string encodings (after kEncVal).
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;

// Quicklist node containers (LIST_QUICKLIST_2).
constexpr uint64_t kContainerPlain = 1;
constexpr uint64_t kContainerPacked = 2;

// LZF output is at most 88 times its input (a 3-byte back reference copies 264 bytes).
constexpr uint64_t kLzfMaxRatio = 88;

constexpr size_t kMaxIntsetEntries = 512;
constexpr size_t kPlainNodeThreshold = size_t{1} << 30;

bool ElemsHaveDuplicates(const std::vector<std::string>& v) {
  std::vector<std::string_view> keys(v.begin(), v.end());
  return HasDuplicates(keys);
}

template <class T>
bool FirstHaveDuplicates(const std::vector<std::pair<std::string, T>>& v) {
  std::vector<std::string_view> keys;
  keys.reserve(v.size());
  for (auto& p : v) keys.push_back(p.first);
  return HasDuplicates(keys);
}

// A listpack blob: validated in depth, then each entry appended as text.
bool ListpackEntries(std::string& blob, std::vector<std::string>* out) {
  auto* lp = reinterpret_cast<uint8_t*>(blob.data());
  if (!ds::lp::Validate(lp, blob.size(), true)) return false;
  char buf[24];
  // Grown by doubling: a quicklist's nodes come one after another, and a reserve of exactly
  // each node's entries moved every element read so far once a node (RESTORE of a list of
  // 800,000 elements in 2,000 nodes took 16-34 s, and MIGRATE timed out).
  size_t need = out->size() + ds::lp::Length(lp);
  if (need > out->capacity()) out->reserve(std::max(need, 2 * out->capacity()));
  for (uint8_t* p = ds::lp::First(lp); p; p = ds::lp::Next(lp, p)) {
    out->emplace_back(ds::lp::Get(p).View(buf));
  }
  return true;
}

bool ZiplistEntries(const std::string& blob, std::vector<std::string>* out) {
  return ZiplistForEach(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(),
                        [&](std::string_view s) { out->emplace_back(s); });
}

bool ParseScore(std::string_view s, double* d) { return base::ParseDouble(s, d); }

bool FlatToPairs(std::vector<std::string>& flat, Value* out) {
  if (flat.size() % 2) return false;
  out->pairs.reserve(flat.size() / 2);
  for (size_t i = 0; i < flat.size(); i += 2) {
    out->pairs.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
  }
  return !FirstHaveDuplicates(out->pairs);
}

bool FlatToZSet(std::vector<std::string>& flat, Value* out) {
  if (flat.size() % 2) return false;
  out->zelems.reserve(flat.size() / 2);
  for (size_t i = 0; i < flat.size(); i += 2) {
    double d;
    if (!ParseScore(flat[i + 1], &d)) return false;
    out->zelems.emplace_back(std::move(flat[i]), d);
  }
  return !FirstHaveDuplicates(out->zelems);
}

// Score as a listpack entry: integers in the exact range as integers, others as the shortest
// text that reads back to the same double.
uint8_t* ListpackAppendScore(uint8_t* lp, double d) {
  constexpr double kExact = 4503599627370496.0;  // 2^52
  if (d > -kExact && d < kExact && d == std::floor(d) && !(d == 0 && std::signbit(d))) {
    return ds::lp::AppendInt(lp, static_cast<int64_t>(d));
  }
  return ds::lp::Append(lp, base::FormatDouble(d));
}

void WriteBlob(std::string* out, const uint8_t* p, size_t n, bool compress) {
  WriteString(out, std::string_view(reinterpret_cast<const char*>(p), n), compress);
}

void WriteList(std::string* out, const Value& v, bool compress) {
  // The nodes are built first: their count precedes them. A node holds what fits in 8 KB of
  // listpack, as list-max-listpack-size -2 (the default) fills Valkey's, so a list goes in
  // the nodes Valkey writes and each compresses as well (nodes of 128 entries wrote 600 small
  // integers as 5 nodes compressed apart: 2.8x Valkey's bytes). A huge element goes alone,
  // as a plain node.
  struct Node {
    uint8_t* lp;  // null: the plain node of element `plain`
    size_t plain;
  };
  std::vector<Node> nodes;
  uint8_t* lp = nullptr;
  for (size_t i = 0; i < v.elems.size(); i++) {
    if (v.elems[i].size() >= kPlainNodeThreshold) {
      if (lp) nodes.push_back({lp, 0});
      lp = nullptr;
      nodes.push_back({nullptr, i});
      continue;
    }
    if (!lp) lp = ds::lp::New();
    lp = ds::lp::Append(lp, v.elems[i]);
    if (ds::lp::Bytes(lp) > kListNodeBytes && ds::lp::Length(lp) > 1) {
      lp = ds::lp::DeleteRange(lp, -1, 1);  // it starts the next node
      nodes.push_back({lp, 0});
      lp = ds::lp::Append(ds::lp::New(), v.elems[i]);
    }
  }
  if (lp) nodes.push_back({lp, 0});
  out->push_back(static_cast<char>(kTypeListQuicklist2));
  WriteLen(out, nodes.size());
  for (const Node& n : nodes) {
    if (!n.lp) {
      WriteLen(out, kContainerPlain);
      WriteString(out, v.elems[n.plain], compress);
      continue;
    }
    WriteLen(out, kContainerPacked);
    WriteBlob(out, n.lp, ds::lp::Bytes(n.lp), compress);
    ds::lp::Free(n.lp);
  }
}

void WriteSet(std::string* out, const Value& v, bool compress) {
  if (!v.elems.empty() && v.elems.size() <= kMaxIntsetEntries) {
    std::vector<int64_t> ints;
    ints.reserve(v.elems.size());
    bool all_ints = true;
    for (auto& e : v.elems) {
      int64_t x;
      if (e.size() > 20 || !base::ParseInt64(e, &x)) {
        all_ints = false;
        break;
      }
      ints.push_back(x);
    }
    if (all_ints) {
      std::sort(ints.begin(), ints.end());
      ints.erase(std::unique(ints.begin(), ints.end()), ints.end());
      uint32_t width = 2;
      for (int64_t x : {ints.front(), ints.back()}) {
        if (x < INT32_MIN || x > INT32_MAX) {
          width = 8;
        } else if ((x < INT16_MIN || x > INT16_MAX) && width < 4) {
          width = 4;
        }
      }
      std::string blob;
      blob.reserve(8 + ints.size() * width);
      for (uint32_t h : {width, static_cast<uint32_t>(ints.size())}) {
        for (int k = 0; k < 4; k++) blob.push_back(static_cast<char>((h >> (8 * k)) & 0xff));
      }
      for (int64_t x : ints) {
        uint64_t u = static_cast<uint64_t>(x);
        for (uint32_t k = 0; k < width; k++)
          blob.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
      }
      out->push_back(static_cast<char>(kTypeSetIntset));
      WriteString(out, blob, compress);
      return;
    }
  }
  out->push_back(static_cast<char>(kTypeSet));
  WriteLen(out, v.elems.size());
  for (auto& e : v.elems) WriteString(out, e, compress);
}

void WriteZSet(std::string* out, const Value& v, bool compress) {
  bool small = !v.zelems.empty() && v.zelems.size() <= kMaxListpackEntries;
  for (size_t i = 0; small && i < v.zelems.size(); i++) {
    if (v.zelems[i].first.size() > kMaxListpackValue) small = false;
  }
  if (small) {
    // Listpack sorted sets are kept in (score, member) order.
    std::vector<const std::pair<std::string, double>*> order;
    order.reserve(v.zelems.size());
    for (auto& z : v.zelems) order.push_back(&z);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
      if (a->second != b->second) return a->second < b->second;
      return a->first < b->first;
    });
    uint8_t* lp = ds::lp::New(7 + v.zelems.size() * (kMaxListpackValue + 40));
    for (auto* z : order) {
      lp = ds::lp::Append(lp, z->first);
      lp = ListpackAppendScore(lp, z->second);
    }
    out->push_back(static_cast<char>(kTypeZSetListpack));
    WriteBlob(out, lp, ds::lp::Bytes(lp), compress);
    ds::lp::Free(lp);
    return;
  }
  out->push_back(static_cast<char>(kTypeZSet2));
  WriteLen(out, v.zelems.size());
  for (auto& z : v.zelems) {
    WriteString(out, z.first, compress);
    WriteBinaryDouble(out, z.second);
  }
}

void WriteHash(std::string* out, const Value& v, bool compress) {
  bool small = !v.pairs.empty() && v.pairs.size() <= kMaxListpackEntries;
  for (size_t i = 0; small && i < v.pairs.size(); i++) {
    if (v.pairs[i].first.size() > kMaxListpackValue || v.pairs[i].second.size() > kMaxListpackValue)
      small = false;
  }
  if (small) {
    uint8_t* lp = ds::lp::New(7 + v.pairs.size() * 2 * (kMaxListpackValue + 11));
    for (auto& [f, val] : v.pairs) {
      lp = ds::lp::Append(lp, f);
      lp = ds::lp::Append(lp, val);
    }
    out->push_back(static_cast<char>(kTypeHashListpack));
    WriteBlob(out, lp, ds::lp::Bytes(lp), compress);
    ds::lp::Free(lp);
    return;
  }
  out->push_back(static_cast<char>(kTypeHash));
  WriteLen(out, v.pairs.size());
  for (auto& [f, val] : v.pairs) {
    WriteString(out, f, compress);
    WriteString(out, val, compress);
  }
}

// Reads a collection count and checks that the input can hold that many items of at least
// min_item bytes each (so nothing is reserved that the input cannot justify). 0 reads: an
// empty collection (EmptyCollection).
bool ReadCount(Reader& r, size_t min_item, uint64_t* n) {
  if (!r.ReadLen(n, nullptr)) return false;
  return r.CountFits(*n, min_item);
}

bool ReadPlainList(Reader& r, Value* out) {
  uint64_t n;
  if (!ReadCount(r, 1, &n)) return false;
  out->elems.reserve(n);
  for (uint64_t i = 0; i < n; i++) {
    out->elems.emplace_back();
    if (!r.ReadString(&out->elems.back())) return false;
  }
  return true;
}

bool ReadPlainZSet(Reader& r, bool binary, Value* out) {
  uint64_t n;
  if (!ReadCount(r, binary ? 9 : 2, &n)) return false;
  out->zelems.reserve(n);
  for (uint64_t i = 0; i < n; i++) {
    std::string m;
    double d;
    if (!r.ReadString(&m)) return false;
    if (!(binary ? r.ReadBinaryDouble(&d) : r.ReadTextDouble(&d))) return false;
    if (std::isnan(d)) return false;
    out->zelems.emplace_back(std::move(m), d);
  }
  return !FirstHaveDuplicates(out->zelems);
}

bool ReadPlainHash(Reader& r, Value* out) {
  uint64_t n;
  if (!ReadCount(r, 2, &n)) return false;
  out->pairs.reserve(n);
  for (uint64_t i = 0; i < n; i++) {
    std::string f, v;
    if (!r.ReadString(&f) || !r.ReadString(&v)) return false;
    out->pairs.emplace_back(std::move(f), std::move(v));
  }
  return !FirstHaveDuplicates(out->pairs);
}

bool ReadIntset(Reader& r, Value* out) {
  std::string blob;
  if (!r.ReadString(&blob)) return false;
  auto* is = reinterpret_cast<const uint8_t*>(blob.data());
  if (!ds::intset::Validate(is, blob.size())) return false;
  uint32_t n = ds::intset::Length(is);
  if (n == 0) return false;  // no intset is empty: corrupt, not an empty key (as Valkey 8)
  out->elems.reserve(n);
  for (uint32_t i = 0; i < n; i++)
    out->elems.push_back(base::Int64ToString(ds::intset::Get(is, i)));
  return true;
}

// keep: a quicklist of listpacks only keeps its nodes (Value::list_nodes) until a node of
// another kind (a plain one) makes it expand them into elems.
bool ReadQuicklist(Reader& r, bool v2, Value* out, bool keep) {
  uint64_t nodes;
  if (!ReadCount(r, v2 ? 2 : 1, &nodes)) return false;
  std::string blob;
  bool keeping = keep && v2;
  for (uint64_t i = 0; i < nodes; i++) {
    uint64_t container = kContainerPacked;
    if (v2) {
      if (!r.ReadLen(&container, nullptr)) return false;
      if (container != kContainerPlain && container != kContainerPacked) return false;
    }
    if (!r.ReadString(&blob)) return false;
    if (blob.empty()) return false;  // no node of either kind is 0 bytes (Valkey 8 refuses it)
    if (keeping && container == kContainerPacked) {
      auto* lp = reinterpret_cast<const uint8_t*>(blob.data());
      if (!ds::lp::Validate(lp, blob.size(), true)) return false;
      if (ds::lp::Length(lp) > 0) out->list_nodes.push_back(std::move(blob));
      blob.clear();
      continue;
    }
    if (keeping) {  // a plain node: what was kept goes into elems first, in order
      keeping = false;
      for (std::string& kept : out->list_nodes)
        if (!ListpackEntries(kept, &out->elems)) return false;
      out->list_nodes.clear();
    }
    if (container == kContainerPlain) {
      out->elems.push_back(std::move(blob));
      blob.clear();
      continue;
    }
    // Empty nodes are skipped, as the reference loader does.
    if (!(v2 ? ListpackEntries(blob, &out->elems) : ZiplistEntries(blob, &out->elems))) {
      return false;
    }
  }
  return true;
}

void StoreLe64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// STREAM_LISTPACKS_2 (what Redis 7.0 reads and writes): the nodes (16-byte master ID, then
// the listpack), length, last ID, first ID, max deleted ID, entries added, then each group
// (name, last ID, entries read, its pending entries with delivery time and count, its
// consumers with seen time and their pending IDs).
void WriteStream(std::string* out, const db::Stream& s, bool compress) {
  out->push_back(static_cast<char>(kTypeStreamListpacks2));
  WriteLen(out, s.nodes.size());
  for (auto& [id, lp] : s.nodes) {
    uint8_t key[16];
    id.Encode(key);
    WriteString(out, std::string_view(reinterpret_cast<const char*>(key), 16), false);
    WriteBlob(out, lp, ds::lp::Bytes(lp), compress);
  }
  WriteLen(out, s.length);
  for (db::StreamID id : {s.last_id, s.first_id, s.max_deleted_entry_id}) {
    WriteLen(out, id.ms);
    WriteLen(out, id.seq);
  }
  WriteLen(out, s.entries_added);
  WriteLen(out, s.groups.size());
  for (auto& [name, cg] : s.groups) {
    WriteString(out, name, compress);
    WriteLen(out, cg->last_id.ms);
    WriteLen(out, cg->last_id.seq);
    WriteLen(out, static_cast<uint64_t>(cg->entries_read));
    WriteLen(out, cg->pel.size());
    for (auto& [id, nack] : cg->pel) {
      uint8_t key[16];
      id.Encode(key);
      out->append(reinterpret_cast<const char*>(key), 16);
      StoreLe64(out, static_cast<uint64_t>(nack.delivery_time));
      WriteLen(out, nack.delivery_count);
    }
    WriteLen(out, cg->consumers.size());
    for (auto& [cname, consumer] : cg->consumers) {
      WriteString(out, cname, compress);
      StoreLe64(out, static_cast<uint64_t>(consumer->seen_time));
      WriteLen(out, consumer->pel.size());
      for (auto& [id, nack] : consumer->pel) {
        uint8_t key[16];
        id.Encode(key);
        out->append(reinterpret_cast<const char*>(key), 16);
      }
    }
  }
}

bool ReadStreamID(Reader& r, db::StreamID* id) {
  return r.ReadLen(&id->ms, nullptr) && r.ReadLen(&id->seq, nullptr);
}

// Types 15, 19 and 21. Everything is checked: listpacks in depth, counts, ID order, pending
// entries and their owners, so that nothing malformed reaches the keyspace.
bool ReadStream(Reader& r, uint8_t type, Value* out) {
  auto s = std::make_shared<db::Stream>();
  uint64_t nodes;
  if (!r.ReadLen(&nodes, nullptr) || !r.CountFits(nodes, 2)) return false;
  uint64_t valid_total = 0;
  db::StreamID prev_last;
  bool have_prev = false;
  db::StreamID first_valid = db::kStreamMaxID;
  std::string key, blob;
  for (uint64_t i = 0; i < nodes; i++) {
    if (!r.ReadString(&key) || key.size() != 16) return false;
    if (!r.ReadString(&blob, ds::lp::kSafeSize)) return false;
    db::StreamID master = db::StreamID::Decode(reinterpret_cast<const uint8_t*>(key.data()));
    if (have_prev && master <= prev_last) return false;
    uint64_t valid;
    db::StreamID last, fv;
    if (!db::StreamValidateNode(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), master,
                                have_prev ? &prev_last : nullptr, &valid, &last, &fv))
      return false;
    if (valid && first_valid == db::kStreamMaxID) first_valid = fv;
    have_prev = true;
    prev_last = last;
    valid_total += valid;
    auto* lp = static_cast<uint8_t*>(malloc(blob.size()));
    if (!lp) abort();
    memcpy(lp, blob.data(), blob.size());
    s->nodes.emplace_hint(s->nodes.end(), master, lp);
  }
  if (!r.ReadLen(&s->length, nullptr) || s->length != valid_total) return false;
  if (!ReadStreamID(r, &s->last_id)) return false;
  if (have_prev && s->last_id < prev_last) return false;
  if (type >= kTypeStreamListpacks2) {
    if (!ReadStreamID(r, &s->first_id) || !ReadStreamID(r, &s->max_deleted_entry_id) ||
        !r.ReadLen(&s->entries_added, nullptr))
      return false;
  } else {
    s->first_id = s->length ? first_valid : db::StreamID{};
    s->entries_added = s->length;
  }
  uint64_t ngroups;
  if (!r.ReadLen(&ngroups, nullptr) || !r.CountFits(ngroups, 1)) return false;
  for (uint64_t gi = 0; gi < ngroups; gi++) {
    std::string name;
    db::StreamID last_id;
    if (!r.ReadString(&name) || !ReadStreamID(r, &last_id)) return false;
    int64_t entries_read;
    if (type >= kTypeStreamListpacks2) {
      uint64_t v;
      if (!r.ReadLen(&v, nullptr)) return false;
      entries_read = static_cast<int64_t>(v);
      if (entries_read < db::kEntriesReadInvalid) return false;
    } else {
      entries_read = db::StreamEstimateDistanceFromFirstEverEntry(s.get(), last_id);
    }
    db::StreamCG* cg = db::StreamCreateCG(s.get(), name, last_id, entries_read);
    if (!cg) return false;  // duplicated group name
    uint64_t pel;
    if (!r.ReadLen(&pel, nullptr) || !r.CountFits(pel, 25)) return false;
    for (uint64_t k = 0; k < pel; k++) {
      uint8_t raw[16], t[8];
      uint64_t count;
      if (!r.ReadBytes(raw, 16) || !r.ReadBytes(t, 8) || !r.ReadLen(&count, nullptr)) return false;
      auto [it, fresh] = cg->pel.try_emplace(db::StreamID::Decode(raw));
      if (!fresh) return false;
      it->second.delivery_time = static_cast<int64_t>(LoadLe64(t));
      it->second.delivery_count = count;
    }
    uint64_t nconsumers;
    if (!r.ReadLen(&nconsumers, nullptr) || !r.CountFits(nconsumers, 1)) return false;
    for (uint64_t ci = 0; ci < nconsumers; ci++) {
      std::string cname;
      uint8_t t[8];
      if (!r.ReadString(&cname) || !r.ReadBytes(t, 8)) return false;
      db::StreamConsumer* consumer = db::StreamCreateConsumer(cg, cname, 0);
      if (!consumer) return false;
      consumer->seen_time = static_cast<int64_t>(LoadLe64(t));
      consumer->active_time = consumer->seen_time;
      if (type >= kTypeStreamListpacks3) {
        if (!r.ReadBytes(t, 8)) return false;
        consumer->active_time = static_cast<int64_t>(LoadLe64(t));
      }
      uint64_t cpel;
      if (!r.ReadLen(&cpel, nullptr) || !r.CountFits(cpel, 16)) return false;
      for (uint64_t k = 0; k < cpel; k++) {
        uint8_t raw[16];
        if (!r.ReadBytes(raw, 16)) return false;
        db::StreamID id = db::StreamID::Decode(raw);
        auto it = cg->pel.find(id);
        if (it == cg->pel.end() || it->second.consumer) return false;
        it->second.consumer = consumer;
        consumer->pel.emplace_hint(consumer->pel.end(), id, &it->second);
      }
    }
    for (auto& [id, nack] : cg->pel)
      if (!nack.consumer) return false;  // a pending entry nobody owns
  }
  out->kind = Kind::kStream;
  out->stream = std::move(s);
  out->stream_owned = true;
  return true;
}

}  // namespace

bool Reader::ReadByte(uint8_t* b) {
  if (!Fits(1)) return false;
  *b = *p_++;
  return true;
}

bool Reader::ReadBytes(void* dst, size_t n) {
  if (!Fits(n)) return false;
  if (n) memcpy(dst, p_, n);
  p_ += n;
  return true;
}

bool Reader::ReadLen(uint64_t* len, bool* is_encoded) {
  uint8_t b;
  if (!ReadByte(&b)) return false;
  if (is_encoded) *is_encoded = false;
  switch (b >> 6) {
    case kLen6:
      *len = b & 0x3f;
      return true;
    case kLen14: {
      uint8_t b2;
      if (!ReadByte(&b2)) return false;
      *len = (static_cast<uint64_t>(b & 0x3f) << 8) | b2;
      return true;
    }
    case kEncVal:
      if (!is_encoded) return false;
      *is_encoded = true;
      *len = b & 0x3f;
      return true;
    default: {
      int bytes = b == kLen32 ? 4 : b == kLen64 ? 8 : 0;
      if (bytes == 0 || !Fits(static_cast<size_t>(bytes))) return false;
      uint64_t v = 0;
      for (int i = 0; i < bytes; i++) v = (v << 8) | *p_++;
      *len = v;
      return true;
    }
  }
}

bool Reader::ReadString(std::string* out, uint64_t max_len) {
  uint64_t len;
  bool encoded;
  if (!ReadLen(&len, &encoded)) return false;
  if (encoded) {
    uint8_t buf[4];
    int64_t v;
    switch (len) {
      case kEncInt8:
        if (!ReadBytes(buf, 1)) return false;
        v = static_cast<int8_t>(buf[0]);
        break;
      case kEncInt16:
        if (!ReadBytes(buf, 2)) return false;
        v = static_cast<int16_t>(buf[0] | buf[1] << 8);
        break;
      case kEncInt32:
        if (!ReadBytes(buf, 4)) return false;
        v = static_cast<int32_t>(
            static_cast<uint32_t>(buf[0]) | static_cast<uint32_t>(buf[1]) << 8 |
            static_cast<uint32_t>(buf[2]) << 16 | static_cast<uint32_t>(buf[3]) << 24);
        break;
      case kEncLzf: {
        uint64_t clen, ulen;
        if (!ReadLen(&clen, nullptr) || !ReadLen(&ulen, nullptr)) return false;
        if (clen == 0 || !Fits(clen)) return false;
        if (ulen == 0 || ulen > max_len || ulen > clen * kLzfMaxRatio) return false;
        out->resize(ulen);
        if (base::LzfDecompress(p_, clen, out->data(), ulen) != ulen) return false;
        p_ += clen;
        return true;
      }
      default:
        return false;
    }
    *out = base::Int64ToString(v);
    return true;
  }
  if (len > max_len || !Fits(len)) return false;
  out->assign(reinterpret_cast<const char*>(p_), len);
  p_ += len;
  return true;
}

bool Reader::ReadBinaryDouble(double* d) {
  uint8_t b[8];
  if (!ReadBytes(b, 8)) return false;
  uint64_t u = LoadLe64(b);
  memcpy(d, &u, 8);
  return true;
}

bool Reader::ReadTextDouble(double* d) {
  uint8_t len;
  if (!ReadByte(&len)) return false;
  switch (len) {
    case 253:
      *d = NAN;
      return true;
    case 254:
      *d = INFINITY;
      return true;
    case 255:
      *d = -INFINITY;
      return true;
  }
  char buf[256];
  if (!ReadBytes(buf, len)) return false;
  return base::ParseDouble(std::string_view(buf, len), d);
}

void WriteLen(std::string* out, uint64_t len) {
  if (len < 64) {
    out->push_back(static_cast<char>(len));
  } else if (len < 16384) {
    out->push_back(static_cast<char>(0x40 | (len >> 8)));
    out->push_back(static_cast<char>(len & 0xff));
  } else {
    int bytes = len <= UINT32_MAX ? 4 : 8;
    out->push_back(static_cast<char>(bytes == 4 ? kLen32 : kLen64));
    for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  }
}

void WriteString(std::string* out, std::string_view s, bool compress) {
  int64_t v;
  if (s.size() <= 11 && base::ParseInt64(s, &v) && v >= INT32_MIN && v <= INT32_MAX) {
    uint8_t enc = kEncInt32;
    int bytes = 4;
    if (v >= INT8_MIN && v <= INT8_MAX) {
      enc = kEncInt8;
      bytes = 1;
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
      enc = kEncInt16;
      bytes = 2;
    }
    out->push_back(static_cast<char>((kEncVal << 6) | enc));
    uint32_t u = static_cast<uint32_t>(static_cast<int32_t>(v));
    for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    return;
  }
  if (compress && s.size() > 20) {
    size_t cap = s.size() - 4;
    std::unique_ptr<uint8_t[]> buf(new uint8_t[cap]);
    size_t clen = base::LzfCompress(s.data(), s.size(), buf.get(), cap);
    if (clen > 0) {
      out->push_back(static_cast<char>((kEncVal << 6) | kEncLzf));
      WriteLen(out, clen);
      WriteLen(out, s.size());
      out->append(reinterpret_cast<const char*>(buf.get()), clen);
      return;
    }
  }
  WriteLen(out, s.size());
  out->append(s);
}

void WriteBinaryDouble(std::string* out, double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  StoreLe64(out, u);
}

void WriteHashListpack(std::string* out, std::string_view lp, bool compress) {
  out->push_back(static_cast<char>(kTypeHashListpack));
  WriteString(out, lp, compress);
}

void WriteZSetListpack(std::string* out, std::string_view lp, bool compress) {
  out->push_back(static_cast<char>(kTypeZSetListpack));
  WriteString(out, lp, compress);
}

void WriteListOneNode(std::string* out, std::string_view lp, bool compress) {
  out->push_back(static_cast<char>(kTypeListQuicklist2));
  WriteLen(out, 1);
  WriteLen(out, kContainerPacked);
  WriteString(out, lp, compress);
}

void WriteValue(std::string* out, const Value& v, bool compress) {
  switch (v.kind) {
    case Kind::kString:
      out->push_back(static_cast<char>(kTypeString));
      WriteString(out, v.str, compress);
      return;
    case Kind::kList:
      WriteList(out, v, compress);
      return;
    case Kind::kSet:
      WriteSet(out, v, compress);
      return;
    case Kind::kZSet:
      WriteZSet(out, v, compress);
      return;
    case Kind::kHash:
      WriteHash(out, v, compress);
      return;
    case Kind::kStream:
      WriteStream(out, *v.stream, compress);
      return;
  }
}

bool EmptyCollection(const Value& v) {
  if (!v.listpack.empty())
    return ds::lp::Length(reinterpret_cast<const uint8_t*>(v.listpack.data())) == 0;
  switch (v.kind) {
    case Kind::kList:
      return v.elems.empty() && v.list_nodes.empty();
    case Kind::kSet:
      return v.elems.empty();
    case Kind::kZSet:
      return v.zelems.empty();
    case Kind::kHash:
      return v.pairs.empty();
    case Kind::kString:
    case Kind::kStream:
      return false;
  }
  return false;
}

bool ReadValue(Reader& r, uint8_t type, Value* out, bool keep_listpack) {
  *out = Value{};
  switch (type) {
    case kTypeString:
      out->kind = Kind::kString;
      return r.ReadString(&out->str);
    case kTypeList:
      out->kind = Kind::kList;
      return ReadPlainList(r, out);
    case kTypeSet:
      out->kind = Kind::kSet;
      return ReadPlainList(r, out) && !ElemsHaveDuplicates(out->elems);
    case kTypeZSet:
    case kTypeZSet2:
      out->kind = Kind::kZSet;
      return ReadPlainZSet(r, type == kTypeZSet2, out);
    case kTypeHash:
      out->kind = Kind::kHash;
      return ReadPlainHash(r, out);
    case kTypeListZiplist: {
      out->kind = Kind::kList;
      std::string blob;
      return r.ReadString(&blob) && ZiplistEntries(blob, &out->elems);
    }
    case kTypeSetIntset:
      out->kind = Kind::kSet;
      return ReadIntset(r, out);
    case kTypeZSetZiplist:
    case kTypeHashZiplist:
    case kTypeZSetListpack:
    case kTypeHashListpack: {
      bool zset = type == kTypeZSetZiplist || type == kTypeZSetListpack;
      bool zl = type == kTypeZSetZiplist || type == kTypeHashZiplist;
      out->kind = zset ? Kind::kZSet : Kind::kHash;
      std::string blob;
      std::vector<std::string> flat;
      if (!r.ReadString(&blob)) return false;
      if (keep_listpack && !zl) {
        out->listpack = std::move(blob);
        return ds::lp::Validate(reinterpret_cast<const uint8_t*>(out->listpack.data()),
                                out->listpack.size(), true);
      }
      if (!(zl ? ZiplistEntries(blob, &flat) : ListpackEntries(blob, &flat))) return false;
      return zset ? FlatToZSet(flat, out) : FlatToPairs(flat, out);
    }
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      out->kind = Kind::kList;
      return ReadQuicklist(r, type == kTypeListQuicklist2, out, keep_listpack);
    case kTypeSetListpack: {
      out->kind = Kind::kSet;
      std::string blob;
      if (keep_listpack) {
        if (!r.ReadString(&out->listpack)) return false;
        return ds::lp::Validate(reinterpret_cast<const uint8_t*>(out->listpack.data()),
                                out->listpack.size(), true);
      }
      return r.ReadString(&blob) && ListpackEntries(blob, &out->elems) &&
             !ElemsHaveDuplicates(out->elems);
    }
    case kTypeStreamListpacks:
    case kTypeStreamListpacks2:
    case kTypeStreamListpacks3:
      return ReadStream(r, type, out);
    case kTypeHashZipmap: {
      out->kind = Kind::kHash;
      std::string blob;
      std::vector<std::string> flat;
      if (!r.ReadString(&blob)) return false;
      auto add = [&](std::string_view f, std::string_view v) {
        flat.emplace_back(f);
        flat.emplace_back(v);
      };
      if (!ZipmapForEach(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), add))
        return false;
      return FlatToPairs(flat, out);
    }
    default:
      return false;
  }
}

std::string EncodeDump(const Value& v) {
  std::string out;
  WriteValue(&out, v, true);
  out.push_back(static_cast<char>(kWriteVersion & 0xff));
  out.push_back(static_cast<char>((kWriteVersion >> 8) & 0xff));
  StoreLe64(&out, base::Crc64(0, out.data(), out.size()));
  return out;
}

const char* DumpStatusError(DumpStatus s) {
  switch (s) {
    case DumpStatus::kOk:
      return nullptr;
    case DumpStatus::kVersionOrChecksum:
      return "DUMP payload version or checksum are wrong";
    case DumpStatus::kBadFormat:
      return "Bad data format";
  }
  return "Bad data format";
}

namespace {
// By type byte: the name valkey-check-rdb gives it, and the encoding Valkey's "<name>
// integrity check failed" log lines name (none for a module value).
struct TypeNames {
  const char* rdb;
  const char* integrity;
};
constexpr TypeNames kTypeNames[] = {
    {"string", "String"},                // 0
    {"list-linked", "List"},             // 1
    {"set-hashtable", "Set"},            // 2
    {"zset-v1", "Zset"},                 // 3
    {"hash-hashtable", "Hash"},          // 4
    {"zset-v2", "Zset"},                 // 5
    {"module-pre-release", nullptr},     // 6
    {"module-value", nullptr},           // 7
    {nullptr, nullptr},                  // 8: never used
    {"hash-zipmap", "Zipmap"},           // 9
    {"list-ziplist", "Ziplist"},         // 10
    {"set-intset", "Intset"},            // 11
    {"zset-ziplist", "Zset ziplist"},    // 12
    {"hash-ziplist", "Hash ziplist"},    // 13
    {"quicklist", "Ziplist"},            // 14
    {"stream", "Stream listpack"},       // 15
    {"hash-listpack", "Hash listpack"},  // 16
    {"zset-listpack", "Zset listpack"},  // 17
    {"quicklist-v2", "Listpack"},        // 18
    {"stream-v2", "Stream listpack"},    // 19
    {"set-listpack", "Set listpack"},    // 20
    {"stream-v3", "Stream listpack"},    // 21
};
}  // namespace

const char* TypeName(uint8_t type) {
  return type < std::size(kTypeNames) ? kTypeNames[type].rdb : nullptr;
}

const char* IntegrityName(uint8_t type) {
  const char* n = type < std::size(kTypeNames) ? kTypeNames[type].integrity : nullptr;
  return n ? n : "Payload";
}

DumpStatus DecodeDump(std::string_view payload, Value* out, bool verify_checksum) {
  size_t n = payload.size();
  if (n < 10) return DumpStatus::kVersionOrChecksum;
  auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  int version = p[n - 10] | (p[n - 9] << 8);
  if (version > kMaxReadVersion) return DumpStatus::kVersionOrChecksum;
  if (verify_checksum && base::Crc64(0, p, n - 8) != LoadLe64(p + n - 8))
    return DumpStatus::kVersionOrChecksum;
  Reader r(p, n - 10);
  uint8_t type;
  if (!r.ReadByte(&type) || !ReadValue(r, type, out) || r.Remaining() != 0 ||
      EmptyCollection(*out)) {
    *out = Value{};
    return DumpStatus::kBadFormat;
  }
  return DumpStatus::kOk;
}

}  // namespace persist
