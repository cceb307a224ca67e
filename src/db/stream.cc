// Stream values: listpack nodes in the snapshot layout, consumer groups, lag counters.
#include "db/stream.h"

#include <algorithm>
#include <array>

#include "base/util.h"
#include "ds/listpack.h"

namespace db {
namespace {
namespace lp = ds::lp;

constexpr int64_t kFlagDeleted = 1;
constexpr int64_t kFlagSameFields = 2;
constexpr size_t kListpackMaxSize = size_t{1} << 30;
constexpr size_t kListpackPrealloc = 4096;

StreamLimits limits_;

int64_t LpInt(const uint8_t* p) {
  lp::Entry e = lp::Get(p);
  if (e.is_int) return e.ival;
  int64_t v = 0;
  base::ParseInt64(std::string_view(reinterpret_cast<const char*>(e.sval), e.slen), &v);
  return v;
}

uint8_t* LpSetInt(uint8_t* l, uint8_t** p, int64_t v) {
  char buf[24];
  int n = base::FormatInt64(v, buf);
  return lp::Replace(l, p, std::string_view(buf, n));
}

// The master entry of a node.
struct NodeHead {
  int64_t count = 0, deleted = 0, nfields = 0;
  uint8_t* fields = nullptr;       // the first master field
  uint8_t* first_entry = nullptr;  // flags of the first entry (nullptr: none)
};

NodeHead ParseHead(uint8_t* l) {
  NodeHead h;
  uint8_t* p = lp::First(l);
  h.count = LpInt(p);
  p = lp::Next(l, p);
  h.deleted = LpInt(p);
  p = lp::Next(l, p);
  h.nfields = LpInt(p);
  p = lp::Next(l, p);
  h.fields = p;
  for (int64_t i = 0; i < h.nfields; i++) p = lp::Next(l, p);
  h.first_entry = lp::Next(l, p);  // past the 0 terminator
  return h;
}

// Reads the entry whose flags are at p: its flags and ID; returns its lp-count element.
uint8_t* ReadEntry(uint8_t* l, uint8_t* p, StreamID master, int64_t master_fields, int64_t* flags,
                   StreamID* id) {
  *flags = LpInt(p);
  p = lp::Next(l, p);
  id->ms = master.ms + static_cast<uint64_t>(LpInt(p));
  p = lp::Next(l, p);
  id->seq = master.seq + static_cast<uint64_t>(LpInt(p));
  p = lp::Next(l, p);
  int64_t n;
  if (*flags & kFlagSameFields) {
    n = master_fields;
  } else {
    n = LpInt(p) * 2;
    p = lp::Next(l, p);
  }
  for (int64_t i = 0; i < n; i++) p = lp::Next(l, p);
  return p;
}

// The last ID stored in a node, deleted entries included.
StreamID LastIdInNode(uint8_t* l, StreamID master, int64_t master_fields) {
  uint8_t* p = lp::Last(l);
  int64_t back = LpInt(p);
  for (int64_t i = 0; i < back; i++) p = lp::Prev(l, p);
  int64_t flags;
  StreamID id;
  ReadEntry(l, p, master, master_fields, &flags, &id);
  return id;
}

void FreeStream(void* p, Enc) { delete static_cast<Stream*>(p); }
void* DupStream(const void* p, Enc) { return new Stream(*static_cast<const Stream*>(p)); }
size_t StreamBytesOp(const void* p, Enc) { return StreamBytes(static_cast<const Stream*>(p)); }

size_t CountRax(const std::vector<std::array<uint8_t, 16>>& keys, size_t lo, size_t hi,
                size_t depth) {
  if (depth == 16) return 1;
  size_t m = depth;
  while (m < 16 && keys[lo][m] == keys[hi - 1][m]) m++;
  if (m > depth) return 1 + CountRax(keys, lo, hi, m);
  size_t n = 1;
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && keys[j][depth] == keys[i][depth]) j++;
    n += CountRax(keys, i, j, depth + 1);
    i = j;
  }
  return n;
}
}  // namespace

StreamLimits& GetStreamLimits() { return limits_; }

bool StreamID::Incr() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ms++;
    seq = 0;
  } else {
    seq++;
  }
  return true;
}

bool StreamID::Decr() {
  if (seq == 0) {
    if (ms == 0) return false;
    ms--;
    seq = UINT64_MAX;
  } else {
    seq--;
  }
  return true;
}

std::string StreamID::ToString() const { return std::to_string(ms) + "-" + std::to_string(seq); }

void StreamID::Encode(uint8_t out[16]) const {
  for (int i = 0; i < 8; i++) {
    out[i] = static_cast<uint8_t>(ms >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
  }
}

StreamID StreamID::Decode(const uint8_t in[16]) {
  StreamID id;
  for (int i = 0; i < 8; i++) {
    id.ms = (id.ms << 8) | in[i];
    id.seq = (id.seq << 8) | in[8 + i];
  }
  return id;
}

Stream::Stream(const Stream& o)
    : length(o.length),
      last_id(o.last_id),
      first_id(o.first_id),
      max_deleted_entry_id(o.max_deleted_entry_id),
      entries_added(o.entries_added) {
  for (auto& [id, l] : o.nodes) nodes.emplace_hint(nodes.end(), id, lp::Dup(l));
  for (auto& [name, cg] : o.groups) {
    auto ncg = std::make_unique<StreamCG>();
    ncg->last_id = cg->last_id;
    ncg->entries_read = cg->entries_read;
    ncg->pel = cg->pel;
    for (auto& [cname, c] : cg->consumers) {
      auto nc = std::make_unique<StreamConsumer>();
      nc->name = c->name;
      nc->seen_time = c->seen_time;
      nc->active_time = c->active_time;
      for (auto& [id, nack] : c->pel) {
        StreamNack* n = &ncg->pel.at(id);
        n->consumer = nc.get();
        nc->pel.emplace_hint(nc->pel.end(), id, n);
      }
      ncg->consumers.emplace(cname, std::move(nc));
    }
    groups.emplace(name, std::move(ncg));
  }
}

Stream::Stream(Stream&& o) noexcept
    : length(o.length),
      last_id(o.last_id),
      first_id(o.first_id),
      max_deleted_entry_id(o.max_deleted_entry_id),
      entries_added(o.entries_added) {
  nodes.swap(o.nodes);
  groups.swap(o.groups);  // consumers and pending entries keep their addresses
  o.length = 0;
}

Stream::~Stream() {
  for (auto& [id, l] : nodes) lp::Free(l);
}

Obj* NewStream(std::string_view key) { return NewContainer(key, kStream, kEncStream, new Stream); }

AppendStatus StreamAppend(Stream* s, const std::vector<std::string_view>& fields, int64_t now_ms,
                          const StreamID* use_id, bool seq_given, StreamID* added) {
  StreamID id;
  if (use_id) {
    if (seq_given) {
      id = *use_id;
    } else if (s->last_id.ms == use_id->ms) {
      if (s->last_id.seq == UINT64_MAX) return AppendStatus::kIdTooSmall;
      id = s->last_id;
      id.seq++;
    } else {
      id = *use_id;
    }
  } else {
    uint64_t ms = static_cast<uint64_t>(now_ms);
    if (ms > s->last_id.ms) {
      id = {ms, 0};
    } else {
      id = s->last_id;
      id.Incr();
    }
  }
  if (id <= s->last_id) return AppendStatus::kIdTooSmall;
  size_t totelelen = 0;
  for (auto f : fields) totelelen += f.size();
  if (totelelen > kListpackMaxSize) return AppendStatus::kTooLarge;
  int64_t numfields = static_cast<int64_t>(fields.size() / 2);

  uint8_t* l = nullptr;
  StreamID master;
  auto last = s->nodes.end();
  if (!s->nodes.empty()) {
    last = std::prev(s->nodes.end());
    l = last->second;
    master = last->first;
    size_t max_bytes = static_cast<size_t>(limits_.node_max_bytes);
    if (max_bytes == 0 || max_bytes > kListpackMaxSize) max_bytes = kListpackMaxSize;
    if (lp::Bytes(l) + totelelen >= max_bytes) {
      l = nullptr;
    } else if (limits_.node_max_entries) {
      uint8_t* p = lp::First(l);
      int64_t count = LpInt(p) + LpInt(lp::Next(l, p));
      if (count >= limits_.node_max_entries) l = nullptr;
    }
  }
  int64_t flags = 0;
  if (!l) {
    size_t prealloc = kListpackPrealloc;
    if (limits_.node_max_bytes > 0 && static_cast<size_t>(limits_.node_max_bytes) < prealloc)
      prealloc = static_cast<size_t>(limits_.node_max_bytes);
    (void)prealloc;  // grown as needed: the allocator's size classes keep appends cheap
    l = lp::New();
    l = lp::AppendInt(l, 1);
    l = lp::AppendInt(l, 0);
    l = lp::AppendInt(l, numfields);
    for (int64_t i = 0; i < numfields; i++) l = lp::Append(l, fields[2 * i]);
    l = lp::AppendInt(l, 0);
    master = id;
    last = s->nodes.emplace_hint(s->nodes.end(), id, l);
    flags |= kFlagSameFields;
  } else {
    uint8_t* p = lp::First(l);
    l = LpSetInt(l, &p, LpInt(p) + 1);
    p = lp::Next(l, p);
    p = lp::Next(l, p);  // num-fields of the master entry
    if (LpInt(p) == numfields) {
      bool same = true;
      for (int64_t i = 0; i < numfields && same; i++) {
        p = lp::Next(l, p);
        same = lp::Get(p).Equals(fields[2 * i]);
      }
      if (same) flags |= kFlagSameFields;
    }
  }
  l = lp::AppendInt(l, flags);
  l = lp::AppendInt(l, static_cast<int64_t>(id.ms - master.ms));
  l = lp::AppendInt(l, static_cast<int64_t>(id.seq - master.seq));
  if (!(flags & kFlagSameFields)) l = lp::AppendInt(l, numfields);
  for (int64_t i = 0; i < numfields; i++) {
    if (!(flags & kFlagSameFields)) l = lp::Append(l, fields[2 * i]);
    l = lp::Append(l, fields[2 * i + 1]);
  }
  int64_t lp_count = numfields + 3;
  if (!(flags & kFlagSameFields)) lp_count += numfields + 1;
  l = lp::AppendInt(l, lp_count);
  last->second = l;
  s->length++;
  s->entries_added++;
  s->last_id = id;
  if (s->length == 1) s->first_id = id;
  *added = id;
  return AppendStatus::kOk;
}

int64_t StreamTrim(Stream* s, const StreamTrimArgs& a) {
  if (a.strategy == StreamTrimArgs::kNone) return 0;
  bool by_len = a.strategy == StreamTrimArgs::kMaxLen;
  uint64_t maxlen = static_cast<uint64_t>(a.maxlen);
  int64_t deleted = 0;
  auto it = s->nodes.begin();
  while (it != s->nodes.end()) {
    if (by_len && s->length <= maxlen) break;
    uint8_t* l = it->second;
    NodeHead h = ParseHead(l);
    int64_t entries = h.count;
    if (a.limit && deleted + entries > a.limit) break;
    bool remove_node;
    if (by_len) {
      remove_node = s->length - static_cast<uint64_t>(entries) >= maxlen;
    } else {
      remove_node = LastIdInNode(l, it->first, h.nfields) < a.minid;
    }
    if (remove_node) {
      lp::Free(l);
      it = s->nodes.erase(it);
      s->length -= static_cast<uint64_t>(entries);
      deleted += entries;
      continue;
    }
    if (a.approx) break;
    // Mark entries deleted inside this node until the condition holds.
    int64_t deleted_here = 0;
    uint8_t* p = h.first_entry;
    while (p) {
      int64_t flags;
      StreamID id;
      uint8_t* end = ReadEntry(l, p, it->first, h.nfields, &flags, &id);
      if (by_len ? s->length <= maxlen : id >= a.minid) break;
      uint8_t* next = lp::Next(l, end);
      if (!(flags & kFlagDeleted)) {
        size_t next_off = next ? static_cast<size_t>(next - l) : 0;
        l = LpSetInt(l, &p, flags | kFlagDeleted);  // same size: nothing moves
        next = next ? l + next_off : nullptr;
        deleted_here++;
        s->length--;
      }
      p = next;
    }
    deleted += deleted_here;
    uint8_t* q = lp::First(l);
    l = LpSetInt(l, &q, entries - deleted_here);
    q = lp::Next(l, q);
    l = LpSetInt(l, &q, h.deleted + deleted_here);
    it->second = l;
    break;
  }
  s->first_id = s->length == 0 ? StreamID{} : StreamEdgeID(s, true);
  return deleted;
}

bool StreamDeleteID(Stream* s, StreamID id) {
  auto it = s->nodes.upper_bound(id);
  if (it == s->nodes.begin()) return false;
  --it;
  uint8_t* l = it->second;
  NodeHead h = ParseHead(l);
  for (uint8_t* p = h.first_entry; p;) {
    int64_t flags;
    StreamID cur;
    uint8_t* end = ReadEntry(l, p, it->first, h.nfields, &flags, &cur);
    if (cur > id) return false;
    if (cur == id) {
      if (flags & kFlagDeleted) return false;
      if (h.count == 1) {
        lp::Free(l);
        s->nodes.erase(it);
      } else {
        l = LpSetInt(l, &p, flags | kFlagDeleted);
        uint8_t* q = lp::First(l);
        l = LpSetInt(l, &q, h.count - 1);
        q = lp::Next(l, q);
        l = LpSetInt(l, &q, h.deleted + 1);
        it->second = l;
      }
      s->length--;
      return true;
    }
    p = lp::Next(l, end);
  }
  return false;
}

StreamID StreamEdgeID(Stream* s, bool first) {
  StreamIterator si(s, StreamID{}, kStreamMaxID, !first);
  StreamID id;
  int64_t n;
  if (!si.Next(&id, &n)) return first ? kStreamMaxID : StreamID{};
  return id;
}

StreamID StreamFirstStoredID(Stream* s) {
  if (s->nodes.empty()) return kStreamMaxID;
  auto it = s->nodes.begin();
  NodeHead h = ParseHead(it->second);
  if (!h.first_entry) return kStreamMaxID;
  int64_t flags;
  StreamID id;
  ReadEntry(it->second, h.first_entry, it->first, h.nfields, &flags, &id);
  return id;
}

bool StreamHasID(Stream* s, StreamID id) {
  StreamIterator si(s, id, id, false);
  StreamID got;
  int64_t n;
  return si.Next(&got, &n);
}

StreamIterator::StreamIterator(Stream* s, StreamID start, StreamID end, bool rev)
    : s_(s), start_(start), end_(end), rev_(rev) {
  if (start > end || s->nodes.empty()) {
    done_ = true;
    return;
  }
  // The node holding the first ID to visit: the last master ID <= start (or <= end).
  node_ = s->nodes.upper_bound(rev ? end : start);
  if (node_ == s->nodes.begin()) {
    if (rev) {
      done_ = true;
      return;
    }
  } else {
    --node_;
  }
}

bool StreamIterator::EnterNode() {
  if (done_) return false;
  if (started_) {
    if (rev_) {
      if (node_ == s_->nodes.begin()) return done_ = true, false;
      --node_;
    } else {
      if (++node_ == s_->nodes.end()) return done_ = true, false;
    }
  }
  started_ = true;
  if (!rev_ && node_->first > end_) return done_ = true, false;
  lp_ = node_->second;
  master_id_ = node_->first;
  NodeHead h = ParseHead(lp_);
  master_fields_ = h.nfields;
  master_field_start_ = h.fields;
  first_entry_ = h.first_entry;
  if (!rev_ || !first_entry_) {
    p_ = first_entry_;
  } else {
    uint8_t* p = lp::Last(lp_);
    int64_t back = LpInt(p);
    for (int64_t i = 0; i < back; i++) p = lp::Prev(lp_, p);
    p_ = p;
  }
  return true;
}

bool StreamIterator::Next(StreamID* id, int64_t* numfields) {
  while (true) {
    if (!lp_ || !p_) {
      lp_ = nullptr;
      if (!EnterNode()) return false;
      continue;
    }
    uint8_t* flags_p = p_;
    int64_t flags = LpInt(flags_p);
    uint8_t* p = lp::Next(lp_, flags_p);
    id->ms = master_id_.ms + static_cast<uint64_t>(LpInt(p));
    p = lp::Next(lp_, p);
    id->seq = master_id_.seq + static_cast<uint64_t>(LpInt(p));
    p = lp::Next(lp_, p);
    same_fields_ = flags & kFlagSameFields;
    int64_t n;
    if (same_fields_) {
      n = master_fields_;
    } else {
      n = LpInt(p);
      p = lp::Next(lp_, p);
    }
    fcur_ = p;
    mfcur_ = master_field_start_;
    // Where the walk goes next.
    if (!rev_) {
      uint8_t* q = p;
      for (int64_t i = 0, k = same_fields_ ? n : 2 * n; i < k; i++) q = lp::Next(lp_, q);
      p_ = lp::Next(lp_, q);  // past lp-count
    } else if (flags_p == first_entry_) {
      p_ = nullptr;
    } else {
      uint8_t* q = lp::Prev(lp_, flags_p);
      int64_t back = LpInt(q);
      for (int64_t i = 0; i < back; i++) q = lp::Prev(lp_, q);
      p_ = q;
    }
    if (flags & kFlagDeleted) continue;
    if (!rev_) {
      if (*id < start_) continue;
      if (*id > end_) return done_ = true, false;
    } else {
      if (*id > end_) continue;
      if (*id < start_) return done_ = true, false;
    }
    *numfields = n;
    return true;
  }
}

void StreamIterator::Field(std::string_view* f, std::string_view* v) {
  if (same_fields_) {
    *f = lp::Get(mfcur_).View(fbuf_);
    mfcur_ = lp::Next(lp_, mfcur_);
  } else {
    *f = lp::Get(fcur_).View(fbuf_);
    fcur_ = lp::Next(lp_, fcur_);
  }
  *v = lp::Get(fcur_).View(vbuf_);
  fcur_ = lp::Next(lp_, fcur_);
}

StreamCG* StreamLookupCG(Stream* s, std::string_view name) {
  auto it = s->groups.find(std::string(name));
  return it == s->groups.end() ? nullptr : it->second.get();
}

StreamCG* StreamCreateCG(Stream* s, std::string_view name, StreamID id, int64_t entries_read) {
  auto [it, fresh] = s->groups.emplace(std::string(name), nullptr);
  if (!fresh) return nullptr;
  it->second = std::make_unique<StreamCG>();
  it->second->last_id = id;
  it->second->entries_read = entries_read;
  return it->second.get();
}

StreamConsumer* StreamLookupConsumer(StreamCG* cg, std::string_view name) {
  auto it = cg->consumers.find(std::string(name));
  return it == cg->consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamCreateConsumer(StreamCG* cg, std::string_view name, int64_t now_ms) {
  auto [it, fresh] = cg->consumers.emplace(std::string(name), nullptr);
  if (!fresh) return nullptr;
  it->second = std::make_unique<StreamConsumer>();
  it->second->name = std::string(name);
  it->second->seen_time = now_ms;
  it->second->active_time = -1;
  return it->second.get();
}

size_t StreamDeleteConsumer(StreamCG* cg, std::string_view name) {
  auto it = cg->consumers.find(std::string(name));
  if (it == cg->consumers.end()) return 0;
  size_t n = it->second->pel.size();
  for (auto& [id, nack] : it->second->pel) cg->pel.erase(id);
  cg->consumers.erase(it);
  return n;
}

bool StreamRangeHasTombstones(const Stream* s, const StreamID* start, const StreamID* end) {
  if (!s->length || s->max_deleted_entry_id.IsZero()) return false;
  if (s->first_id > s->max_deleted_entry_id) return false;
  StreamID a = start ? *start : StreamID{};
  StreamID b = end ? *end : kStreamMaxID;
  return a <= s->max_deleted_entry_id && s->max_deleted_entry_id <= b;
}

int64_t StreamEstimateDistanceFromFirstEverEntry(const Stream* s, StreamID id) {
  if (!s->entries_added) return 0;
  if (!s->length && id <= s->last_id) return static_cast<int64_t>(s->entries_added);
  if (id == s->last_id) return static_cast<int64_t>(s->entries_added);
  if (id > s->last_id) return kEntriesReadInvalid;
  if (s->max_deleted_entry_id.IsZero() || s->max_deleted_entry_id < s->first_id) {
    if (id < s->first_id) return static_cast<int64_t>(s->entries_added - s->length);
    if (id == s->first_id) return static_cast<int64_t>(s->entries_added - s->length + 1);
  }
  return kEntriesReadInvalid;
}

bool StreamGroupLag(const Stream* s, const StreamCG* cg, int64_t* lag) {
  if (!s->entries_added) {
    *lag = 0;
    return true;
  }
  if (cg->entries_read != kEntriesReadInvalid &&
      !StreamRangeHasTombstones(s, &cg->last_id, nullptr)) {
    *lag = static_cast<int64_t>(s->entries_added) - cg->entries_read;
    return true;
  }
  int64_t read = StreamEstimateDistanceFromFirstEverEntry(s, cg->last_id);
  if (read == kEntriesReadInvalid) return false;
  *lag = static_cast<int64_t>(s->entries_added) - read;
  return true;
}

size_t StreamRadixTreeNodes(const Stream* s) {
  if (s->nodes.empty()) return 1;
  std::vector<std::array<uint8_t, 16>> keys;
  keys.reserve(s->nodes.size());
  for (auto& [id, l] : s->nodes) {
    keys.emplace_back();
    id.Encode(keys.back().data());
  }
  return CountRax(keys, 0, keys.size(), 0);
}

size_t StreamBytes(const Stream* s) {
  size_t n = sizeof(Stream);
  for (auto& [id, l] : s->nodes) n += lp::Bytes(l) + 64;
  for (auto& [name, cg] : s->groups) {
    n += sizeof(StreamCG) + name.size() + 64 + cg->pel.size() * 80;
    for (auto& [cname, c] : cg->consumers) n += sizeof(StreamConsumer) + cname.size() + 64;
  }
  return n;
}

bool StreamValidateNode(const uint8_t* data, size_t size, StreamID master, const StreamID* prev,
                        uint64_t* valid, StreamID* last, StreamID* first_valid) {
  if (!lp::Validate(data, size, true)) return false;
  auto* l = const_cast<uint8_t*>(data);
  auto is_int = [](const uint8_t* p, int64_t* v) {
    if (!p) return false;
    lp::Entry e = lp::Get(p);
    if (e.is_int) {
      *v = e.ival;
      return true;
    }
    return base::ParseInt64(std::string_view(reinterpret_cast<const char*>(e.sval), e.slen), v);
  };
  int64_t count, deleted, nfields, v;
  uint8_t* p = lp::First(l);
  if (!is_int(p, &count) || count < 0) return false;
  p = lp::Next(l, p);
  if (!is_int(p, &deleted) || deleted < 0) return false;
  p = lp::Next(l, p);
  if (!is_int(p, &nfields) || nfields < 0) return false;
  for (int64_t i = 0; i < nfields; i++) {
    p = lp::Next(l, p);
    if (!p) return false;
  }
  p = lp::Next(l, p);
  if (!is_int(p, &v) || v != 0) return false;
  p = lp::Next(l, p);
  if (!p) return false;  // a node holds at least one entry
  int64_t seen_valid = 0, seen_deleted = 0;
  bool have_prev = prev != nullptr;
  StreamID prev_id = prev ? *prev : StreamID{};
  bool have_first = false;
  while (p) {
    int64_t flags, msd, seqd, n;
    if (!is_int(p, &flags) || (flags & ~(kFlagDeleted | kFlagSameFields))) return false;
    p = lp::Next(l, p);
    if (!is_int(p, &msd)) return false;
    p = lp::Next(l, p);
    if (!is_int(p, &seqd)) return false;
    StreamID id{master.ms + static_cast<uint64_t>(msd), master.seq + static_cast<uint64_t>(seqd)};
    if (id < master || (have_prev && id <= prev_id)) return false;
    have_prev = true;
    prev_id = id;
    p = lp::Next(l, p);
    int64_t elems;
    if (flags & kFlagSameFields) {
      n = nfields;
      elems = n;
    } else {
      if (!is_int(p, &n) || n < 0 || n > static_cast<int64_t>(size)) return false;
      p = lp::Next(l, p);
      elems = 2 * n;
    }
    for (int64_t i = 0; i < elems; i++) {
      if (!p) return false;
      p = lp::Next(l, p);
    }
    int64_t lp_count;
    if (!is_int(p, &lp_count)) return false;
    int64_t want = (flags & kFlagSameFields) ? n + 3 : 2 * n + 4;
    if (lp_count != want) return false;
    p = lp::Next(l, p);
    if (flags & kFlagDeleted) {
      seen_deleted++;
    } else {
      seen_valid++;
      if (!have_first) *first_valid = id;
      have_first = true;
    }
  }
  if (seen_valid != count || seen_deleted != deleted) return false;
  *valid = static_cast<uint64_t>(count);
  *last = prev_id;
  return true;
}

void RegisterStreamType() { RegisterTypeOps(kStream, {FreeStream, DupStream, StreamBytesOp}); }

}  // namespace db
