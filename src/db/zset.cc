// Sorted sets: listpack and skiplist+hash encodings behind one rank-based interface.
#include "db/zset.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/util.h"
#include "db/hash.h"
#include "ds/hashtable.h"
#include "ds/pack.h"

namespace db {
namespace {

constexpr int kMaxLevel = 32;

struct ZNode {
  ZNode* hnext;  // hash table chain
  double score;
  ZNode* backward;
  uint32_t mlen;
  uint8_t level;
  struct Level {
    ZNode* forward;
    uint64_t span;
  } lv[];
  // The member bytes follow the level array.
  const char* mdata() const { return reinterpret_cast<const char*>(lv + level); }
  std::string_view member() const { return {mdata(), mlen}; }
};
struct ZNodeTraits {
  static ZNode** NextLink(ZNode* n) { return &n->hnext; }
  static std::string_view Key(const ZNode* n) { return n->member(); }
};

ZNode* NewNode(int level, double score, std::string_view m) {
  size_t sz = sizeof(ZNode) + level * sizeof(ZNode::Level) + m.size();
  auto* n = static_cast<ZNode*>(malloc(sz));
  n->hnext = nullptr;
  n->score = score;
  n->backward = nullptr;
  n->mlen = static_cast<uint32_t>(m.size());
  n->level = static_cast<uint8_t>(level);
  for (int i = 0; i < level; i++) n->lv[i] = {nullptr, 0};
  memcpy(const_cast<char*>(n->mdata()), m.data(), m.size());
  return n;
}

// (score, member) ordering.
bool Less(const ZNode* n, double score, std::string_view m) {
  return n->score < score || (n->score == score && n->member() < m);
}

int RandomLevel() {
  int level = 1;
  while ((ds::RandomU64() & 0xFFFF) < 0xFFFF / 4 && level < kMaxLevel) level++;
  return level;
}

struct Skiplist {
  ds::HashTable<ZNode, ZNodeTraits> dict;
  ZNode* header;
  ZNode* tail = nullptr;
  uint64_t length = 0;
  int level = 1;

  Skiplist() : header(NewNode(kMaxLevel, 0, "")) {}
  ~Skiplist() {
    // The dict's nodes are the skiplist's nodes: drop the table first (walking its chains
    // reads the nodes), then free each node once.
    dict.Clear([](ZNode*) {});
    ZNode* x = header->lv[0].forward;
    while (x) {
      ZNode* next = x->lv[0].forward;
      free(x);
      x = next;
    }
    free(header);
  }

  ZNode* Insert(double score, std::string_view m) { return Link(NewNode(RandomLevel(), score, m)); }

  // Links a node (not in the list) at the place its score and member give it.
  ZNode* Link(ZNode* node) {
    ZNode* update[kMaxLevel];
    uint64_t rank[kMaxLevel];
    ZNode* x = header;
    double score = node->score;
    std::string_view m = node->member();
    for (int i = level - 1; i >= 0; i--) {
      rank[i] = i == level - 1 ? 0 : rank[i + 1];
      while (x->lv[i].forward && Less(x->lv[i].forward, score, m)) {
        rank[i] += x->lv[i].span;
        x = x->lv[i].forward;
      }
      update[i] = x;
    }
    int lvl = node->level;
    if (lvl > level) {
      for (int i = level; i < lvl; i++) {
        rank[i] = 0;
        update[i] = header;
        update[i]->lv[i].span = length;
      }
      level = lvl;
    }
    x = node;
    for (int i = 0; i < lvl; i++) {
      x->lv[i].forward = update[i]->lv[i].forward;
      update[i]->lv[i].forward = x;
      x->lv[i].span = update[i]->lv[i].span - (rank[0] - rank[i]);
      update[i]->lv[i].span = (rank[0] - rank[i]) + 1;
    }
    for (int i = lvl; i < level; i++) update[i]->lv[i].span++;
    x->backward = update[0] == header ? nullptr : update[0];
    if (x->lv[0].forward)
      x->lv[0].forward->backward = x;
    else
      tail = x;
    length++;
    return x;
  }

  // Unlinks x (found by its score and member) from the levels; does not free it.
  void Unlink(ZNode* target) {
    ZNode* update[kMaxLevel];
    ZNode* x = header;
    for (int i = level - 1; i >= 0; i--) {
      while (x->lv[i].forward && Less(x->lv[i].forward, target->score, target->member()))
        x = x->lv[i].forward;
      update[i] = x;
    }
    for (int i = 0; i < level; i++) {
      if (update[i]->lv[i].forward == target) {
        update[i]->lv[i].span += target->lv[i].span - 1;
        update[i]->lv[i].forward = target->lv[i].forward;
      } else {
        update[i]->lv[i].span -= 1;
      }
    }
    if (target->lv[0].forward)
      target->lv[0].forward->backward = target->backward;
    else
      tail = target->backward;
    while (level > 1 && header->lv[level - 1].forward == nullptr) level--;
    length--;
  }

  // 1-based rank of node n.
  uint64_t Rank(const ZNode* n) const {
    uint64_t rank = 0;
    const ZNode* x = header;
    for (int i = level - 1; i >= 0; i--) {
      while (x->lv[i].forward &&
             (Less(x->lv[i].forward, n->score, n->member()) || x->lv[i].forward == n)) {
        rank += x->lv[i].span;
        x = x->lv[i].forward;
        if (x == n) return rank;
      }
    }
    return rank;
  }

  // Node at 1-based rank.
  ZNode* ByRank(uint64_t rank) const {
    uint64_t traversed = 0;
    ZNode* x = header;
    for (int i = level - 1; i >= 0; i--) {
      while (x->lv[i].forward && traversed + x->lv[i].span <= rank) {
        traversed += x->lv[i].span;
        x = x->lv[i].forward;
      }
      if (traversed == rank) return x;
    }
    return nullptr;
  }

  // Number of elements for which `before(node)` holds (a prefix of the order).
  template <typename Pred>
  uint64_t CountPrefix(Pred before) const {
    uint64_t traversed = 0;
    const ZNode* x = header;
    for (int i = level - 1; i >= 0; i--)
      while (x->lv[i].forward && before(x->lv[i].forward)) {
        traversed += x->lv[i].span;
        x = x->lv[i].forward;
      }
    return traversed;
  }
};

Skiplist* Sl(const Obj* o) { return static_cast<Skiplist*>(o->ptr()); }
// The listpack encoding holds a ds::pack of stride 2: member, score pairs in the set's order,
// members front-coded after members and scores (as text) after scores.
uint8_t* Pk(const Obj* o) { return static_cast<uint8_t*>(o->ptr()); }

// The score of the entry r is on: an integer as such, else the text FormatDouble wrote.
double Score(const ds::pack::Reader& r) {
  if (r.IsInt()) return static_cast<double>(r.Int());
  double d = 0;
  base::ParseDouble(r.Text(), &d);
  return d;
}

// Pairs of a pack zset as (member, score) in order; fn returns false to stop.
template <typename Fn>
void PkForEach(const uint8_t* pk, Fn fn) {
  ds::pack::Reader r(pk, 2);
  while (r.Next() && r.Next())
    if (!fn(r.Column(0), Score(r))) return;
}

// A pack of the (member, score) pairs that each(fn) gives in the set's order; fn may give the
// score's text too (or an empty one, formatted here).
template <typename Each>
uint8_t* PackInOrder(Each each) {
  ds::pack::Builder b(2);
  char buf[base::kDoubleBufSize];
  each([&](std::string_view m, double score, std::string_view text = {}) {
    b.Add(m);
    b.Add(text.empty() ? ZScoreText(score, buf) : text);
  });
  return b.Finish();
}

uint8_t* PkInsertSorted(uint8_t* pk, std::string_view m, double score) {
  char buf[base::kDoubleBufSize];
  std::string_view s = ZScoreText(score, buf);
  size_t at = 0;
  PkForEach(pk, [&](std::string_view cur_m, double cur) {
    if (cur > score || (cur == score && cur_m > m)) return false;
    at += 2;
    return true;
  });
  std::string_view pair[2] = {m, s};
  return ds::pack::Splice(pk, 2, at, 0, pair, 2);
}

// `reserve`: members the table is sized for, if more than it holds.
void ToSkiplist(Obj* o, size_t reserve = 0) {
  auto* sl = new Skiplist();
  uint8_t* pk = Pk(o);
  sl->dict.Reserve(std::max<size_t>(ds::pack::Length(pk) / 2, reserve));
  PkForEach(pk, [&](std::string_view m, double s) {
    sl->dict.Insert(sl->Insert(s, m));
    return true;
  });
  ds::pack::Free(pk);
  o->set_ptr(sl);
  SetObjEncoding(o, kEncSkiplist);
}

void ToListpack(Obj* o) {
  Skiplist* sl = Sl(o);
  uint8_t* pk = PackInOrder([&](auto add) {
    for (ZNode* x = sl->header->lv[0].forward; x; x = x->lv[0].forward) add(x->member(), x->score);
  });
  delete sl;
  o->set_ptr(pk);
  SetObjEncoding(o, kEncListpack);
}

void FreeZSet(void* ptr, Enc e) {
  if (e == kEncListpack)
    ds::pack::Free(static_cast<uint8_t*>(ptr));
  else
    delete static_cast<Skiplist*>(ptr);
}

void* DupZSet(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::pack::Dup(static_cast<const uint8_t*>(ptr));
  auto* src = static_cast<const Skiplist*>(ptr);
  auto* sl = new Skiplist();
  sl->dict.Reserve(src->length);
  for (ZNode* x = src->header->lv[0].forward; x; x = x->lv[0].forward)
    sl->dict.Insert(sl->Insert(x->score, x->member()));
  return sl;
}

size_t ZSetBytes(const void* ptr, Enc e) {
  if (e == kEncListpack) return ds::pack::Bytes(static_cast<const uint8_t*>(ptr));
  auto* sl = static_cast<const Skiplist*>(ptr);
  size_t total = sizeof(Skiplist) + sl->dict.BucketBytes();
  for (ZNode* x = sl->header->lv[0].forward; x; x = x->lv[0].forward)
    total += sizeof(ZNode) + x->level * sizeof(ZNode::Level) + x->mlen;
  return total;
}
}  // namespace

bool LexRange::GteMin(std::string_view s) const {
  if (min_is_plus) return false;
  if (min_inf) return true;
  return minex ? s > min : s >= min;
}
bool LexRange::LteMax(std::string_view s) const {
  if (max_is_minus) return false;
  if (max_inf) return true;
  return maxex ? s < max : s <= max;
}
bool LexRange::AlwaysEmpty() const {
  if (min_is_plus || max_is_minus) return true;
  if (min_inf || max_inf) return false;
  int cmp = min.compare(max);
  return cmp > 0 || (cmp == 0 && (minex || maxex));
}

ZSetLimits& GetZSetLimits() {
  static ZSetLimits l;
  return l;
}

Obj* NewZSet(std::string_view key, size_t size_hint, size_t max_member_len) {
  const ZSetLimits& lim = GetZSetLimits();
  if (size_hint <= lim.max_listpack_entries && max_member_len <= lim.max_listpack_value &&
      lim.max_listpack_entries > 0)
    return NewContainer(key, kZSet, kEncListpack, ds::pack::New());
  return NewContainer(key, kZSet, kEncSkiplist, new Skiplist());
}

size_t ZLen(const Obj* o) {
  return o->enc() == kEncListpack ? ds::pack::Length(Pk(o)) / 2 : Sl(o)->length;
}

bool ZScore(Obj* o, std::string_view m, double* score) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    if (!r.Find(m) || !r.Next()) return false;
    *score = Score(r);
    return true;
  }
  ZNode* n = Sl(o)->dict.Find(m);
  if (!n) return false;
  *score = n->score;
  return true;
}

void ZReserveMembers(Obj* o, size_t n) {
  if (o->enc() == kEncListpack) {
    if (n <= GetZSetLimits().max_listpack_entries) return;
    return ToSkiplist(o, n);
  }
  Sl(o)->dict.Reserve(n);
}

void ZMaybeConvert(Obj* o, size_t max_member_len) {
  const ZSetLimits& lim = GetZSetLimits();
  if (o->enc() == kEncListpack) {
    if (ZLen(o) > lim.max_listpack_entries || max_member_len > lim.max_listpack_value)
      ToSkiplist(o);
  } else if (ZLen(o) <= lim.max_listpack_entries && max_member_len <= lim.max_listpack_value) {
    ToListpack(o);
  }
}

bool ZSetScore(Obj* o, std::string_view m, double score) {
  if (o->enc() == kEncListpack) {
    const ZSetLimits& lim = GetZSetLimits();
    uint8_t* pk = Pk(o);
    ds::pack::Reader r(pk, 2);
    if (r.Find(m)) {
      r.Next();
      if (Score(r) == score) return false;
      pk = ds::pack::Splice(pk, 2, r.Index() - 1, 2, nullptr, 0);
      o->set_ptr(PkInsertSorted(pk, m, score));
      return false;
    }
    if (ZLen(o) + 1 > lim.max_listpack_entries || m.size() > lim.max_listpack_value ||
        !ds::pack::SafeToAdd(pk, m.size() + 64)) {
      ToSkiplist(o);
    } else {
      o->set_ptr(PkInsertSorted(pk, m, score));
      return true;
    }
  }
  Skiplist* sl = Sl(o);
  ZNode* n = sl->dict.Find(m);
  if (!n) {
    sl->dict.Insert(sl->Insert(score, m));
    return true;
  }
  if (n->score == score) return false;
  // Same place in the order: update in place; else move the member.
  bool stays = (!n->backward || n->backward->score < score) &&
               (!n->lv[0].forward || n->lv[0].forward->score > score);
  if (stays) {
    n->score = score;
    return false;
  }
  // Move the same node: it stays in the hash table, only its place in the order changes.
  sl->Unlink(n);
  n->score = score;
  sl->Link(n);
  return false;
}

// Scores are stored as text; a negative zero is stored as 0, as Valkey's listpacks do.
std::string_view ZScoreText(double score, char* buf) {
  if (score == 0) return "0";
  return {buf, static_cast<size_t>(base::FormatDouble(score, buf))};
}

// Decided without formatting the score: a decimal of at most 15 characters (so at most 14
// significant digits, which no shorter text reads back to), no exponent, no zero it could
// drop, and one base::FormatDouble writes without an exponent: at most 6 decimals, or a first
// significant digit within 3 places of the point.
bool ZScoreTextIsCanonical(std::string_view s) {
  if (s.empty() || s.size() > 15) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  size_t int_start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++;
  size_t int_len = i - int_start;
  bool int_zero = int_len == 1 && s[int_start] == '0';
  if (int_len == 0 || (int_len > 1 && s[int_start] == '0')) return false;
  if (i == s.size()) return !(int_zero && int_start == 1);  // "-0" is written "0"
  if (s[i] != '.') return false;
  size_t frac = s.size() - i - 1;
  if (frac == 0 || s.back() == '0') return false;
  size_t zeros = 0;  // after the point, before the first significant digit
  for (size_t k = i + 1; k < s.size(); k++) {
    if (s[k] < '0' || s[k] > '9') return false;
    if (int_zero && zeros == k - i - 1 && s[k] == '0') zeros++;
  }
  size_t lead = int_zero ? zeros + 1 : int_len - 1;  // the first digit's distance to 10^0
  return frac <= 6 || lead <= 3;
}

void ZSetLoad(Obj* o, const std::vector<ZLoadEntry>& elems) {
  const ZSetLimits& lim = GetZSetLimits();
  if (o->enc() == kEncListpack && ZLen(o) == 0 && !elems.empty() &&
      elems.size() <= lim.max_listpack_entries) {
    bool fits = true;
    size_t bytes = 0;
    auto before = [&](size_t a, size_t b) {
      const ZLoadEntry& x = elems[a];
      const ZLoadEntry& y = elems[b];
      return x.score < y.score || (x.score == y.score && x.member < y.member);
    };
    bool sorted = true;  // a snapshot's listpack is in the set's order already
    for (size_t i = 0; i < elems.size(); i++) {
      fits = fits && elems[i].member.size() <= lim.max_listpack_value;
      bytes += elems[i].member.size() + 64;
      sorted = sorted && (i == 0 || before(i - 1, i));
    }
    if (fits && bytes < ds::pack::kSafeSize) {
      std::vector<size_t> order;
      if (!sorted) {
        order.resize(elems.size());
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        std::sort(order.begin(), order.end(), before);
      }
      ds::pack::Free(Pk(o));
      o->set_ptr(PackInOrder([&](auto add) {
        for (size_t k = 0; k < elems.size(); k++) {
          const ZLoadEntry& e = elems[sorted ? k : order[k]];
          add(e.member, e.score, e.text);
        }
      }));
      return;
    }
  }
  for (const ZLoadEntry& e : elems) ZSetScore(o, e.member, e.score);
}

void ZSetLoad(Obj* o, const std::vector<std::pair<std::string, double>>& elems) {
  std::vector<ZLoadEntry> views;
  views.reserve(elems.size());
  for (const auto& [m, sc] : elems) views.push_back({m, sc, {}});
  ZSetLoad(o, views);
}

bool ZRemove(Obj* o, std::string_view m) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    if (!r.Find(m)) return false;
    o->set_ptr(ds::pack::Splice(Pk(o), 2, r.Index(), 2, nullptr, 0));
    return true;
  }
  Skiplist* sl = Sl(o);
  ZNode* n = sl->dict.Unlink(m);
  if (!n) return false;
  sl->Unlink(n);
  free(n);
  return true;
}

int64_t ZRank(Obj* o, std::string_view m) {
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    return r.Find(m) ? static_cast<int64_t>(r.Index() / 2) : -1;
  }
  ZNode* n = Sl(o)->dict.Find(m);
  if (!n) return -1;
  return static_cast<int64_t>(Sl(o)->Rank(n)) - 1;
}

void ZWalk(Obj* o, size_t start, bool reverse,
           const std::function<bool(std::string_view, double)>& fn) {
  size_t len = ZLen(o);
  if (start >= len) return;
  if (o->enc() == kEncListpack) {
    ds::pack::Reader r(Pk(o), 2);
    if (!reverse) {
      if (start > 0) r.SeekTo(2 * start - 1);
      while (r.Next() && r.Next())
        if (!fn(r.Column(0), Score(r))) return;
      return;
    }
    // A pack walks forward only: keep the pairs up to the start, then visit them backwards.
    size_t n = len - start;
    std::string arena;
    std::vector<std::pair<size_t, double>> at;  // member's end in the arena, score
    at.reserve(n);
    while (at.size() < n && r.Next() && r.Next()) {
      arena.append(r.Column(0));
      at.emplace_back(arena.size(), Score(r));
    }
    for (size_t i = at.size(); i-- > 0;) {
      size_t b = i ? at[i - 1].first : 0;
      if (!fn(std::string_view(arena).substr(b, at[i].first - b), at[i].second)) return;
    }
    return;
  }
  Skiplist* sl = Sl(o);
  ZNode* x = sl->ByRank(reverse ? len - start : start + 1);
  while (x) {
    if (!fn(x->member(), x->score)) return;
    x = reverse ? x->backward : x->lv[0].forward;
  }
}

size_t ZRankAfter(Obj* o, double score, std::string_view member) {
  auto at_or_before = [&](double s, std::string_view m) {
    return s < score || (s == score && m <= member);
  };
  if (o->enc() == kEncListpack) {
    size_t n = 0;
    PkForEach(Pk(o), [&](std::string_view m, double s) {
      if (!at_or_before(s, m)) return false;
      n++;
      return true;
    });
    return n;
  }
  return Sl(o)->CountPrefix([&](const ZNode* n) { return at_or_before(n->score, n->member()); });
}

void ZScoreRangeRanks(Obj* o, const ScoreRange& r, size_t* first, size_t* count) {
  auto below_min = [&](double s) { return r.minex ? s <= r.min : s < r.min; };
  auto within_max = [&](double s) { return r.maxex ? s < r.max : s <= r.max; };
  size_t a, b;
  if (o->enc() == kEncListpack) {
    a = b = 0;
    PkForEach(Pk(o), [&](std::string_view, double s) {
      if (below_min(s)) a++;
      if (within_max(s)) b++;
      return true;
    });
  } else {
    Skiplist* sl = Sl(o);
    a = sl->CountPrefix([&](const ZNode* n) { return below_min(n->score); });
    b = sl->CountPrefix([&](const ZNode* n) { return within_max(n->score); });
  }
  *first = a;
  *count = b > a ? b - a : 0;
}

namespace {
std::string MemberAt(Obj* o, size_t rank) {
  std::string m;
  ZWalk(o, rank, false, [&](std::string_view v, double) {
    m.assign(v);
    return false;
  });
  return m;
}
}  // namespace

bool ZLexStart(Obj* o, const LexRange& r, bool reverse, size_t* rank) {
  size_t len = ZLen(o);
  if (len == 0 || r.AlwaysEmpty()) return false;
  if (!r.GteMin(MemberAt(o, len - 1)) || !r.LteMax(MemberAt(o, 0))) return false;
  size_t k = 0;
  bool found = false;
  if (o->enc() == kEncListpack) {
    size_t i = 0;
    PkForEach(Pk(o), [&](std::string_view m, double) {
      if (reverse ? r.LteMax(m) : r.GteMin(m)) {
        k = i;
        found = true;
        if (!reverse) return false;
      }
      i++;
      return true;
    });
  } else {
    Skiplist* sl = Sl(o);
    if (reverse) {
      uint64_t n = sl->CountPrefix([&](const ZNode* x) { return r.LteMax(x->member()); });
      found = n > 0;
      k = n - 1;
    } else {
      k = sl->CountPrefix([&](const ZNode* x) { return !r.GteMin(x->member()); });
      found = k < len;
    }
  }
  if (!found) return false;
  std::string m = MemberAt(o, k);
  if (reverse ? !r.GteMin(m) : !r.LteMax(m)) return false;
  *rank = k;
  return true;
}

size_t ZLexCount(Obj* o, const LexRange& r) {
  size_t start;
  if (!ZLexStart(o, r, false, &start)) return 0;
  if (o->enc() == kEncSkiplist) {
    // Valkey counts a skiplist's range by the ranks of its two ends.
    size_t end;
    if (!ZLexStart(o, r, true, &end)) return ZLen(o) - start;
    return end >= start ? end - start + 1 : 0;
  }
  size_t n = 0;
  ZWalk(o, start, false, [&](std::string_view m, double) {
    if (!r.LteMax(m)) return false;
    n++;
    return true;
  });
  return n;
}

void ZDeleteRanks(Obj* o, size_t start, size_t count) {
  if (count == 0) return;
  if (o->enc() == kEncListpack) {
    count = std::min(count, ZLen(o) - std::min(start, ZLen(o)));
    o->set_ptr(ds::pack::Splice(Pk(o), 2, 2 * start, 2 * count, nullptr, 0));
    return;
  }
  Skiplist* sl = Sl(o);
  ZNode* x = sl->ByRank(start + 1);
  while (x && count--) {
    ZNode* next = x->lv[0].forward;
    sl->dict.Unlink(x->member());
    sl->Unlink(x);
    free(x);
    x = next;
  }
}

void ZRandom(Obj* o, std::string* member, double* score) {
  size_t len = ZLen(o);
  size_t pick = ds::RandomU64() % len;
  if (o->enc() == kEncListpack) {
    ZWalk(o, pick, false, [&](std::string_view m, double s) {
      member->assign(m);
      *score = s;
      return false;
    });
    return;
  }
  ZNode* n = Sl(o)->dict.Random();
  member->assign(n->member());
  *score = n->score;
}

uint64_t ZScan(Obj* o, uint64_t cursor, const std::function<void(std::string_view, double)>& fn) {
  if (o->enc() == kEncListpack) {
    PkForEach(Pk(o), [&](std::string_view m, double s) {
      fn(m, s);
      return true;
    });
    return 0;
  }
  return Sl(o)->dict.Scan(cursor, [&](ZNode* n) { fn(n->member(), n->score); });
}

void RegisterZSetType() { RegisterTypeOps(kZSet, {FreeZSet, DupZSet, ZSetBytes}); }

void ZSetSetResizeAllowed(bool allowed) {
  ds::HashTable<ZNode, ZNodeTraits>::SetResizeAllowed(allowed);
}

bool ZSetTableStats(const Obj* o, int t, bool full, ds::HtStats* out) {
  return o->enc() == kEncSkiplist && Sl(o)->dict.Stats(t, full, out);
}

}  // namespace db
