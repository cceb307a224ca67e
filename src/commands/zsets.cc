// Sorted set commands.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <vector>

#include "base/util.h"
#include "commands/common.h"
#include "db/set.h"
#include "db/zset.h"
#include "server/blocking.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;
using Pair = std::pair<std::string, double>;

db::Obj* LookupZRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kZSet);
  return *err ? nullptr : o;
}

// Member/score pairs: RESP3 nests each pair, RESP2 flattens with scores as bulk strings.
void ReplyPairs(net::Reply& r, const std::vector<Pair>& v, bool withscores) {
  if (!withscores) {
    r.ArrayLen(static_cast<int64_t>(v.size()));
    for (auto& p : v) r.Bulk(p.first);
    return;
  }
  if (r.resp() >= 3) {
    r.ArrayLen(static_cast<int64_t>(v.size()));
    for (auto& p : v) {
      r.ArrayLen(2);
      r.Bulk(p.first);
      r.Double(p.second);
    }
  } else {
    r.ArrayLen(static_cast<int64_t>(v.size() * 2));
    for (auto& p : v) {
      r.Bulk(p.first);
      r.Double(p.second);
    }
  }
}

// A sorted set holding `pairs` (nullptr when empty), in the encoding its size calls for.
db::Obj* BuildZSet(std::string_view key, const std::vector<Pair>& pairs) {
  if (pairs.empty()) return nullptr;
  size_t maxlen = 0;
  for (auto& p : pairs) maxlen = std::max(maxlen, p.first.size());
  db::Obj* z = db::NewZSet(key, pairs.size(), maxlen);
  for (auto& p : pairs) db::ZSetScore(z, p.first, p.second);
  return z;
}

bool ParseScoreBound(std::string_view s, double* v, bool* ex) {
  *ex = false;
  if (!s.empty() && s[0] == '(') {
    *ex = true;
    s.remove_prefix(1);
  }
  // Like Valkey, a bound is whatever strtod reads up to the end of the C string: overflowing
  // values are infinities (ZADD scores are refused), and "" or "(" are 0 (Redis does the same).
  std::string tmp(s);
  char* end;
  *v = strtod(tmp.c_str(), &end);
  return *end == '\0' && !std::isnan(*v);
}

bool ParseScoreRange(Client* c, std::string_view min, std::string_view max, db::ScoreRange* r) {
  if (!ParseScoreBound(min, &r->min, &r->minex) || !ParseScoreBound(max, &r->max, &r->maxex)) {
    c->R().Error("min or max is not a float");
    return false;
  }
  return true;
}

bool ParseLexBound(std::string_view s, std::string* v, bool* ex, bool* is_minus, bool* is_plus) {
  *is_minus = *is_plus = false;
  if (s == "-") {
    *is_minus = true;
    return true;
  }
  if (s == "+") {
    *is_plus = true;
    return true;
  }
  if (s.empty() || (s[0] != '(' && s[0] != '[')) return false;
  *ex = s[0] == '(';
  v->assign(s.substr(1));
  return true;
}

bool ParseLexRange(Client* c, std::string_view min, std::string_view max, db::LexRange* r) {
  bool minus, plus;
  bool ok = ParseLexBound(min, &r->min, &r->minex, &minus, &plus);
  r->min_inf = minus;
  r->min_is_plus = plus;
  if (ok) {
    ok = ParseLexBound(max, &r->max, &r->maxex, &minus, &plus);
    r->max_inf = plus;
    r->max_is_minus = minus;
  }
  if (!ok) c->R().Error("min or max not valid string range item");
  return ok;
}

// ---- ZADD / ZINCRBY ----
void ZAddGeneric(Client* c, bool incr_cmd) {
  auto& a = c->argv;
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = incr_cmd;
  size_t i = 2;
  if (!incr_cmd) {
    for (; i < a.size(); i++) {
      if (base::EqualsNoCase(a[i], "nx"))
        nx = true;
      else if (base::EqualsNoCase(a[i], "xx"))
        xx = true;
      else if (base::EqualsNoCase(a[i], "gt"))
        gt = true;
      else if (base::EqualsNoCase(a[i], "lt"))
        lt = true;
      else if (base::EqualsNoCase(a[i], "ch"))
        ch = true;
      else if (base::EqualsNoCase(a[i], "incr"))
        incr = true;
      else
        break;
    }
  }
  size_t pairs_left = a.size() - i;
  if (pairs_left == 0 || pairs_left % 2 != 0) return c->R().Error(kErrSyntax);
  if (nx && xx) return c->R().Error("XX and NX options at the same time are not compatible");
  if ((gt && nx) || (lt && nx) || (gt && lt))
    return c->R().Error("GT, LT, and/or NX options at the same time are not compatible");
  if (incr && pairs_left > 2)
    return c->R().Error("INCR option supports a single increment-element pair");
  std::vector<double> scores;
  size_t maxlen = 0;
  for (size_t j = i; j < a.size(); j += 2) {
    double d;
    if (!base::ParseDouble(a[j], &d)) return c->R().Error(kErrNotFloat);
    scores.push_back(d);
    maxlen = std::max(maxlen, a[j + 1].size());
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kZSet, &err);
  if (err) return;
  bool created = false;
  if (!o) {
    if (xx) return incr ? c->R().Null() : c->R().Int(0);
    o = db::NewZSet(a[1], pairs_left / 2, maxlen);
    c->db->Add(o);
    created = true;
  }
  int64_t added = 0, changed = 0, processed = 0;
  double result = 0;
  bool skipped = false;
  for (size_t j = i, k = 0; j < a.size(); j += 2, k++) {
    std::string_view m = a[j + 1];
    double score = scores[k], cur;
    bool exists = db::ZScore(o, m, &cur);
    if (exists) {
      if (nx) {
        skipped = true;
        continue;
      }
      if (incr) {
        score += cur;
        if (std::isnan(score)) {
          if (created && db::ZLen(o) == 0) c->db->Delete(a[1]);
          return c->R().Error("resulting score is not a number (NaN)");
        }
      }
      if ((gt && score <= cur) || (lt && score >= cur)) {
        skipped = true;
        continue;
      }
      result = score;
      if (score != cur) {
        db::ZSetScore(o, m, score);
        changed++;
      }
      processed++;
    } else {
      if (xx) {
        skipped = true;
        continue;
      }
      db::ZSetScore(o, m, score);
      added++;
      processed++;
      result = score;
    }
  }
  if (created && db::ZLen(o) == 0) c->db->Delete(a[1]);
  if (added || changed) {
    Modified(c, a[1], added + changed);
    Notify(kNotifyZset, incr ? "zincr" : "zadd", a[1], c->dbid);
    KeyReady(c->dbid, a[1]);
  }
  if (incr) {
    if (skipped && processed == 0) return c->R().Null();
    return c->R().Double(result);
  }
  c->R().Int(ch ? added + changed : added);
}
void ZAddCommand(Client* c) { ZAddGeneric(c, false); }
void ZIncrByCommand(Client* c) { ZAddGeneric(c, true); }

void ZRemCommand(Client* c) {
  bool err;
  db::Obj* o = LookupWriteTyped(c, c->argv[1], db::kZSet, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  int64_t n = 0;
  for (size_t i = 2; i < c->argv.size(); i++) {
    n += db::ZRemove(o, c->argv[i]);
    if (db::ZLen(o) == 0) break;
  }
  if (n) {
    Modified(c, c->argv[1], n);
    Notify(kNotifyZset, "zrem", c->argv[1], c->dbid);
    DeleteIfEmpty(c, c->argv[1], db::ZLen(o));
  }
  c->R().Int(n);
}

void ZCardCommand(Client* c) {
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::ZLen(o)) : 0);
}

void ZScoreCommand(Client* c) {
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  double s;
  if (!o || !db::ZScore(o, c->argv[2], &s)) return c->R().Null();
  c->R().Double(s);
}

void ZMScoreCommand(Client* c) {
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 2));
  for (size_t i = 2; i < c->argv.size(); i++) {
    double s;
    if (o && db::ZScore(o, c->argv[i], &s))
      r.Double(s);
    else
      r.Null();
  }
}

void ZCountCommand(Client* c) {
  db::ScoreRange range;
  if (!ParseScoreRange(c, c->argv[2], c->argv[3], &range)) return;
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  size_t first = 0, count = 0;
  if (o) db::ZScoreRangeRanks(o, range, &first, &count);
  c->R().Int(static_cast<int64_t>(count));
}

void ZLexCountCommand(Client* c) {
  db::LexRange range;
  if (!ParseLexRange(c, c->argv[2], c->argv[3], &range)) return;
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  c->R().Int(o ? static_cast<int64_t>(db::ZLexCount(o, range)) : 0);
}

void ZRankGeneric(Client* c, bool reverse) {
  auto& a = c->argv;
  if (a.size() > 4) return ReplyArity(c, c->cmd);
  bool withscore = false;
  if (a.size() == 4) {
    if (!base::EqualsNoCase(a[3], "withscore")) return c->R().Error(kErrSyntax);
    withscore = true;
  }
  bool err;
  db::Obj* o = LookupZRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  int64_t rank = o ? db::ZRank(o, a[2]) : -1;
  if (rank < 0) return withscore ? r.NullArray() : r.Null();
  if (reverse) rank = static_cast<int64_t>(db::ZLen(o)) - 1 - rank;
  if (!withscore) return r.Int(rank);
  double s = 0;
  db::ZScore(o, a[2], &s);
  r.ArrayLen(2);
  r.Int(rank);
  r.Double(s);
}
void ZRankCommand(Client* c) { ZRankGeneric(c, false); }
void ZRevRankCommand(Client* c) { ZRankGeneric(c, true); }

enum RangeType { kByRank, kByScore, kByLex };

// The parsed range of a ZRANGE-family request.
struct RangeSpec {
  RangeType type;
  bool rev;
  int64_t start = 0, end = 0;  // by rank
  db::ScoreRange score;
  db::LexRange lex;
};

// Parses min/max as Valkey does before it looks the key up (reverse forms name max first).
bool ParseRangeSpec(Client* c, std::string_view min_arg, std::string_view max_arg,
                    RangeSpec* spec) {
  if (spec->type == kByRank) {
    return ArgInt(c, min_arg, &spec->start) && ArgInt(c, max_arg, &spec->end);
  }
  if (spec->rev) std::swap(min_arg, max_arg);
  if (spec->type == kByScore) return ParseScoreRange(c, min_arg, max_arg, &spec->score);
  return ParseLexRange(c, min_arg, max_arg, &spec->lex);
}

// Collects the elements selected by a ZRANGE-family request.
void CollectRange(db::Obj* o, const RangeSpec& spec, int64_t offset, int64_t limit,
                  std::vector<Pair>* out) {
  if (!o) return;
  bool rev = spec.rev;
  int64_t len = static_cast<int64_t>(db::ZLen(o));
  if (spec.type == kByRank) {
    int64_t start = spec.start, end = spec.end;
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (start > end || start >= len) return;
    if (end >= len) end = len - 1;
    out->reserve(end - start + 1);
    db::ZWalk(o, static_cast<size_t>(start), rev, [&](std::string_view m, double s) {
      out->emplace_back(m, s);
      return static_cast<int64_t>(out->size()) < end - start + 1;
    });
    return;
  }
  if (limit == 0) return;
  if (offset < 0) {
    // Valkey 8 walks a listpack from the range's start, skipping while offset-- is non-zero: a
    // negative offset skips past the end. A skiplist is searched by rank instead, where a
    // negative offset counts from the far end of the range (-1: its last element in the
    // order of the walk), and the walk goes on from there.
    if (o->enc() != db::kEncSkiplist) return;
    size_t lo, hi;  // ascending ranks of the range's first and last elements
    if (spec.type == kByLex) {
      if (!db::ZLexStart(o, spec.lex, false, &lo) || !db::ZLexStart(o, spec.lex, true, &hi) ||
          hi < lo)
        return;
    } else {
      size_t count;
      db::ZScoreRangeRanks(o, spec.score, &lo, &count);
      if (count == 0) return;
      hi = lo + count - 1;
    }
    int64_t in_range = static_cast<int64_t>(hi - lo + 1);
    int64_t skip = in_range + offset;
    if (skip < 0) return;
    int64_t take = in_range - skip;
    if (limit > 0 && limit < take) take = limit;
    size_t from = (rev ? static_cast<size_t>(len) - 1 - hi : lo) + static_cast<size_t>(skip);
    db::ZWalk(o, from, rev, [&](std::string_view m, double s) {
      out->emplace_back(m, s);
      return static_cast<int64_t>(out->size()) < take;
    });
    return;
  }
  if (spec.type == kByLex) {
    // Like Valkey: skip `offset` elements from the start without testing them, then take
    // elements while they are within the far end of the range.
    size_t start;
    if (!db::ZLexStart(o, spec.lex, rev, &start)) return;
    size_t from_end = rev ? static_cast<size_t>(len) - 1 - start : start;
    if (static_cast<uint64_t>(offset) >= static_cast<uint64_t>(len) - from_end) return;
    db::ZWalk(o, from_end + static_cast<size_t>(offset), rev, [&](std::string_view m, double s) {
      if (rev ? !spec.lex.GteMin(m) : !spec.lex.LteMax(m)) return false;
      out->emplace_back(m, s);
      return limit < 0 || static_cast<int64_t>(out->size()) < limit;
    });
    return;
  }
  size_t first, count;
  db::ZScoreRangeRanks(o, spec.score, &first, &count);
  if (count == 0 || static_cast<size_t>(offset) >= count) return;
  size_t take = count - static_cast<size_t>(offset);
  if (limit >= 0 && static_cast<size_t>(limit) < take) take = static_cast<size_t>(limit);
  size_t start = rev ? (static_cast<size_t>(len) - (first + count)) + offset : first + offset;
  db::ZWalk(o, start, rev, [&](std::string_view m, double s) {
    out->emplace_back(m, s);
    return out->size() < take;
  });
}

// ZRANGE, ZRANGESTORE and the older forms. argv layout is normalised by the callers.
void ZRangeGeneric(Client* c, size_t src_idx, RangeType type, bool rev, bool store,
                   bool allow_options) {
  auto& a = c->argv;
  bool withscores = false;
  int64_t offset = 0, limit = -1;
  RangeType t = type;
  bool reverse = rev;
  bool type_set = false, rev_set = false;
  for (size_t j = src_idx + 3; j < a.size(); j++) {
    size_t left = a.size() - j - 1;
    if (!store && base::EqualsNoCase(a[j], "withscores")) {
      withscores = true;
    } else if (base::EqualsNoCase(a[j], "limit") && left >= 2) {
      if (!ArgInt(c, a[j + 1], &offset) || !ArgInt(c, a[j + 2], &limit)) return;
      j += 2;
    } else if (allow_options && !rev_set && base::EqualsNoCase(a[j], "rev")) {
      reverse = rev_set = true;
    } else if (allow_options && !type_set && base::EqualsNoCase(a[j], "bylex")) {
      t = kByLex;
      type_set = true;
    } else if (allow_options && !type_set && base::EqualsNoCase(a[j], "byscore")) {
      t = kByScore;
      type_set = true;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  if (limit != -1 && t == kByRank)
    return c->R().Error(
        "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  if (withscores && t == kByLex)
    return c->R().Error("syntax error, WITHSCORES not supported in combination with BYLEX");
  // The range is parsed before the key is looked up: a bad range beats WRONGTYPE.
  RangeSpec spec{t, reverse};
  if (!ParseRangeSpec(c, a[src_idx + 1], a[src_idx + 2], &spec)) return;
  bool err;
  db::Obj* o = LookupZRead(c, a[src_idx], &err);
  if (err) return;
  std::vector<Pair> out;
  CollectRange(o, spec, offset, limit, &out);
  if (!store) {
    auto r = c->R();
    return ReplyPairs(r, out, withscores);
  }
  StoreResult(c, std::string(a[1]), BuildZSet(a[1], out), kNotifyZset, "zrangestore");
  c->R().Int(static_cast<int64_t>(out.size()));
}
void ZRangeCommand(Client* c) { ZRangeGeneric(c, 1, kByRank, false, false, true); }
void ZRangeStoreCommand(Client* c) { ZRangeGeneric(c, 2, kByRank, false, true, true); }
void ZRevRangeCommand(Client* c) { ZRangeGeneric(c, 1, kByRank, true, false, false); }
void ZRangeByScoreCommand(Client* c) { ZRangeGeneric(c, 1, kByScore, false, false, false); }
void ZRevRangeByScoreCommand(Client* c) { ZRangeGeneric(c, 1, kByScore, true, false, false); }
void ZRangeByLexCommand(Client* c) { ZRangeGeneric(c, 1, kByLex, false, false, false); }
void ZRevRangeByLexCommand(Client* c) { ZRangeGeneric(c, 1, kByLex, true, false, false); }

void ZRemRangeGeneric(Client* c, RangeType type) {
  auto& a = c->argv;
  db::ScoreRange sr;
  db::LexRange lr;
  int64_t start = 0, end = 0;
  if (type == kByRank) {
    if (!ArgInt(c, a[2], &start) || !ArgInt(c, a[3], &end)) return;
  } else if (type == kByScore) {
    if (!ParseScoreRange(c, a[2], a[3], &sr)) return;
  } else if (!ParseLexRange(c, a[2], a[3], &lr)) {
    return;
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kZSet, &err);
  if (err) return;
  if (!o) return c->R().Int(0);
  size_t first = 0, count = 0;
  if (type == kByRank) {
    int64_t len = static_cast<int64_t>(db::ZLen(o));
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (!(start > end || start >= len)) {
      if (end >= len) end = len - 1;
      first = static_cast<size_t>(start);
      count = static_cast<size_t>(end - start + 1);
    }
  } else if (type == kByScore) {
    db::ZScoreRangeRanks(o, sr, &first, &count);
  } else if (db::ZLexStart(o, lr, false, &first)) {
    // Valkey deletes from the start of the range while elements are <= max.
    db::ZWalk(o, first, false, [&](std::string_view m, double) {
      if (!lr.LteMax(m)) return false;
      count++;
      return true;
    });
  }
  if (count) {
    db::ZDeleteRanks(o, first, count);
    static const char* kEvents[] = {"zremrangebyrank", "zremrangebyscore", "zremrangebylex"};
    Modified(c, a[1], static_cast<int64_t>(count));
    Notify(kNotifyZset, kEvents[type], a[1], c->dbid);
    DeleteIfEmpty(c, a[1], db::ZLen(o));
  }
  c->R().Int(static_cast<int64_t>(count));
}
void ZRemRangeByRankCommand(Client* c) { ZRemRangeGeneric(c, kByRank); }
void ZRemRangeByScoreCommand(Client* c) { ZRemRangeGeneric(c, kByScore); }
void ZRemRangeByLexCommand(Client* c) { ZRemRangeGeneric(c, kByLex); }

// Pops up to count from the min (or max) end; returns what was popped.
std::vector<Pair> PopFrom(Client* c, db::Obj* o, std::string_view key, bool max, int64_t count) {
  std::vector<Pair> out;
  size_t n = std::min<uint64_t>(count, db::ZLen(o));
  db::ZWalk(o, 0, max, [&](std::string_view m, double s) {
    out.emplace_back(m, s);
    return out.size() < n;
  });
  size_t len = db::ZLen(o);
  db::ZDeleteRanks(o, max ? len - n : 0, n);
  if (n) {
    Modified(c, key, static_cast<int64_t>(n));
    Notify(kNotifyZset, max ? "zpopmax" : "zpopmin", key, c->dbid);
    DeleteIfEmpty(c, key, db::ZLen(o));
  }
  return out;
}

void ZPopGeneric(Client* c, bool max) {
  auto& a = c->argv;
  if (a.size() > 3) return c->R().Error(kErrSyntax);
  int64_t count = 1;
  bool has_count = a.size() == 3;
  if (has_count && !ArgPositive(c, a[2], &count)) return;
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kZSet, &err);
  if (err) return;
  auto r = c->R();
  if (!o || count == 0) return r.ArrayLen(0);
  std::vector<Pair> out = PopFrom(c, o, a[1], max, count);
  if (!has_count) {  // flat [member, score] in every protocol
    r.ArrayLen(2);
    r.Bulk(out[0].first);
    return r.Double(out[0].second);
  }
  ReplyPairs(r, out, true);
}
void ZPopMinCommand(Client* c) { ZPopGeneric(c, false); }
void ZPopMaxCommand(Client* c) { ZPopGeneric(c, true); }

void BZPopGeneric(Client* c, bool max) {
  auto& a = c->argv;
  int64_t deadline;
  if (!ParseBlockTimeout(c, a.back(), &deadline)) return;
  std::vector<std::string_view> keys(a.begin() + 1, a.end() - 1);
  for (auto k : keys) {
    bool err;
    db::Obj* o = LookupWriteTyped(c, k, db::kZSet, &err);
    if (err) return;
    if (!o) continue;
    std::vector<Pair> out = PopFrom(c, o, k, max, 1);
    auto r = c->R();
    r.ArrayLen(3);
    r.Bulk(k);
    r.Bulk(out[0].first);
    r.Double(out[0].second);
    PropagateAs(c, {max ? "ZPOPMAX" : "ZPOPMIN", std::string(k)});
    return;
  }
  BlockForKeys(c, keys, deadline, db::kZSet, true);
}
void BZPopMinCommand(Client* c) { BZPopGeneric(c, false); }
void BZPopMaxCommand(Client* c) { BZPopGeneric(c, true); }

void ZMPopGeneric(Client* c, size_t first, bool block, int64_t deadline) {
  MPopArgs m;
  if (!ParseMPopArgs(c, first, "min", "max", &m)) return;
  bool max = m.which == 1;
  int64_t count = m.count;
  auto& keys = m.keys;
  for (auto k : keys) {
    bool err;
    db::Obj* o = LookupWriteTyped(c, k, db::kZSet, &err);
    if (err) return;
    if (!o) continue;
    std::vector<Pair> out = PopFrom(c, o, k, max, count);
    auto r = c->R();
    r.ArrayLen(2);
    r.Bulk(k);
    r.ArrayLen(static_cast<int64_t>(out.size()));
    for (auto& p : out) {
      r.ArrayLen(2);
      r.Bulk(p.first);
      r.Double(p.second);
    }
    // With the count popped, as Valkey 8 propagates it (not the count asked).
    PropagateAs(c, {max ? "ZPOPMAX" : "ZPOPMIN", std::string(k),
                    base::Int64ToString(static_cast<int64_t>(out.size()))});
    return;
  }
  if (block) return BlockForKeys(c, keys, deadline, db::kZSet, true);
  c->R().NullArray();
}
void ZMPopCommand(Client* c) { ZMPopGeneric(c, 1, false, 0); }
void BZMPopCommand(Client* c) {
  int64_t deadline;
  if (!ParseBlockTimeout(c, c->argv[1], &deadline)) return;
  ZMPopGeneric(c, 2, true, deadline);
}

void ZRandMemberCommand(Client* c) {
  auto& a = c->argv;
  bool err;
  if (a.size() == 2) {
    db::Obj* o = LookupZRead(c, a[1], &err);
    if (err) return;
    if (!o) return c->R().Null();
    std::string m;
    double s;
    db::ZRandom(o, &m, &s);
    return c->R().Bulk(m);
  }
  int64_t l;
  if (!ArgRange(c, a[2], -INT64_MAX, INT64_MAX, &l) || !CheckRandomPicks(c, l)) return;
  bool withscores = false;
  if (a.size() > 4 || (a.size() == 4 && !base::EqualsNoCase(a[3], "withscores")))
    return c->R().Error(kErrSyntax);
  if (a.size() == 4) {
    withscores = true;
    if (l < -INT64_MAX / 2 || l > INT64_MAX / 2) return c->R().Error("value is out of range");
  }
  db::Obj* o = LookupZRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  if (!o || l == 0) return r.ArrayLen(0);
  std::vector<Pair> out;
  if (l < 0) {
    for (int64_t i = 0; i < -l; i++) {
      Pair p;
      db::ZRandom(o, &p.first, &p.second);
      out.push_back(std::move(p));
    }
  } else if (DrawsDistinct(l, db::ZLen(o))) {
    out = DrawDistinct<Pair>(
        l, [&](Pair* p) { db::ZRandom(o, &p->first, &p->second); },
        [](const Pair& p) -> std::string_view { return p.first; });
  } else {
    db::ZWalk(o, 0, false, [&](std::string_view m, double s) {
      out.emplace_back(m, s);
      return true;
    });
    size_t n = std::min<uint64_t>(l, out.size());
    for (size_t i = 0; i < n && n < out.size(); i++)
      std::swap(out[i], out[i + ds::RandomU64() % (out.size() - i)]);
    out.resize(n);
  }
  ReplyPairs(r, out, withscores);
}

// ---- ZUNION / ZINTER / ZDIFF ----
enum SetOpType { kUnion, kInter, kDiff };
enum Aggregate { kSum, kMin, kMax };

struct Source {
  db::Obj* obj;
  double weight;
  size_t Len() const {
    if (!obj) return 0;
    return obj->type() == db::kZSet ? db::ZLen(obj) : db::SetLen(obj);
  }
  void ForEach(const std::function<void(std::string_view, double)>& fn) const {
    if (!obj) return;
    if (obj->type() == db::kZSet) {
      db::ZWalk(obj, 0, false, [&](std::string_view m, double s) {
        fn(m, s);
        return true;
      });
    } else {
      db::SetForEach(obj, [&](std::string_view m) { fn(m, 1.0); });
    }
  }
  bool Score(std::string_view m, double* s) const {
    if (!obj) return false;
    if (obj->type() == db::kZSet) return db::ZScore(obj, m, s);
    *s = 1.0;
    return db::SetContains(obj, m);
  }
};

double Combine(double acc, double v, Aggregate ag) {
  switch (ag) {
    case kSum: {
      double r = acc + v;
      return std::isnan(r) ? 0.0 : r;  // inf + -inf is defined as 0
    }
    case kMin:
      return std::min(acc, v);
    default:
      return std::max(acc, v);
  }
}

double Weighted(double s, double w) {
  double r = s * w;
  return std::isnan(r) ? 0.0 : r;
}

void ZSetOpGeneric(Client* c, size_t numkeys_idx, SetOpType op, bool store, bool card_only) {
  auto& a = c->argv;
  int64_t setnum;
  if (!ArgInt(c, a[numkeys_idx], &setnum)) return;
  if (setnum < 1) {
    return c->R().Error("at least 1 input key is needed for '" + c->cmd->fullname + "' command");
  }
  if (setnum > static_cast<int64_t>(a.size() - numkeys_idx - 1)) return c->R().Error(kErrSyntax);
  std::vector<Source> src;
  size_t j = numkeys_idx + 1;
  for (int64_t i = 0; i < setnum; i++, j++) {
    db::Obj* o = store ? LookupWrite(c, a[j]) : LookupRead(c, a[j]);
    if (o && o->type() != db::kZSet && o->type() != db::kSet) return c->R().Error(kErrWrongType);
    src.push_back({o, 1.0});
  }
  Aggregate ag = kSum;
  bool withscores = false;
  int64_t limit = 0;
  while (j < a.size()) {
    size_t remaining = a.size() - j;
    if (op != kDiff && !card_only && remaining >= src.size() + 1 &&
        base::EqualsNoCase(a[j], "weights")) {
      j++;
      for (auto& s : src) {
        if (!base::ParseDouble(a[j], &s.weight)) return c->R().Error("weight value is not a float");
        j++;
      }
    } else if (op != kDiff && !card_only && remaining >= 2 &&
               base::EqualsNoCase(a[j], "aggregate")) {
      std::string_view v = a[j + 1];
      if (base::EqualsNoCase(v, "sum"))
        ag = kSum;
      else if (base::EqualsNoCase(v, "min"))
        ag = kMin;
      else if (base::EqualsNoCase(v, "max"))
        ag = kMax;
      else
        return c->R().Error(kErrSyntax);
      j += 2;
    } else if (!store && !card_only && base::EqualsNoCase(a[j], "withscores")) {
      withscores = true;
      j++;
    } else if (card_only && remaining >= 2 && base::EqualsNoCase(a[j], "limit")) {
      if (!ArgPositive(c, a[j + 1], &limit, "LIMIT can't be negative")) return;
      j += 2;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  // Like Valkey, union and intersection visit the inputs from the smallest to the largest:
  // the order matters for a SUM's rounding and for where a NaN is turned into 0.
  if (op != kDiff)
    std::stable_sort(src.begin(), src.end(),
                     [](const Source& x, const Source& y) { return x.Len() < y.Len(); });
  std::vector<Pair> result;
  if (op == kUnion) {
    std::unordered_map<std::string, double> acc;
    for (auto& s : src)
      s.ForEach([&](std::string_view m, double sc) {
        double v = Weighted(sc, s.weight);
        auto it = acc.find(std::string(m));
        if (it == acc.end())
          acc.emplace(std::string(m), v);
        else
          it->second = Combine(it->second, v, ag);
      });
    for (auto& [m, v] : acc) result.emplace_back(m, v);
  } else if (op == kInter) {
    if (src[0].Len() > 0) {
      const Source& first = src[0];
      first.ForEach([&](std::string_view m, double sc) {
        if (card_only && limit && static_cast<int64_t>(result.size()) >= limit) return;
        // Only the smallest input's product is cleared of NaN (0 * inf); a NaN product of
        // another input goes into the aggregate: SUM turns it into 0, MIN and MAX ignore it.
        double v = Weighted(sc, first.weight);
        for (size_t k = 1; k < src.size(); k++) {
          double other;
          if (!src[k].Score(m, &other)) return;
          v = Combine(v, other * src[k].weight, ag);
        }
        result.emplace_back(m, v);
      });
    }
  } else {
    src[0].ForEach([&](std::string_view m, double sc) {
      double dummy;
      for (size_t k = 1; k < src.size(); k++)
        if (src[k].Score(m, &dummy)) return;
      result.emplace_back(m, sc);
    });
  }
  if (card_only) return c->R().Int(static_cast<int64_t>(result.size()));
  std::sort(result.begin(), result.end(), [](const Pair& x, const Pair& y) {
    return x.second < y.second || (x.second == y.second && x.first < y.first);
  });
  if (!store) {
    auto r = c->R();
    return ReplyPairs(r, result, withscores);
  }
  static const char* kEvents[] = {"zunionstore", "zinterstore", "zdiffstore"};
  StoreResult(c, std::string(a[1]), BuildZSet(a[1], result), kNotifyZset, kEvents[op]);
  c->R().Int(static_cast<int64_t>(result.size()));
}
void ZUnionCommand(Client* c) { ZSetOpGeneric(c, 1, kUnion, false, false); }
void ZInterCommand(Client* c) { ZSetOpGeneric(c, 1, kInter, false, false); }
void ZDiffCommand(Client* c) { ZSetOpGeneric(c, 1, kDiff, false, false); }
void ZUnionStoreCommand(Client* c) { ZSetOpGeneric(c, 2, kUnion, true, false); }
void ZInterStoreCommand(Client* c) { ZSetOpGeneric(c, 2, kInter, true, false); }
void ZDiffStoreCommand(Client* c) { ZSetOpGeneric(c, 2, kDiff, true, false); }
void ZInterCardCommand(Client* c) { ZSetOpGeneric(c, 1, kInter, false, true); }

void ZScanCommand(Client* c) {
  uint64_t cursor;
  if (!ParseScanCursor(c, c->argv[2], &cursor)) return;
  bool err;
  db::Obj* o = LookupZRead(c, c->argv[1], &err);
  if (err) return;
  ScanElements(
      c, o,
      [&](uint64_t cur, const ScanEmit& emit) {
        // Valkey prints skiplist scores here with 17 significant digits, listpack ones short.
        bool long_form = o->enc() == db::kEncSkiplist;
        return db::ZScan(o, cur, [&](std::string_view m, double s) {
          if (!long_form || std::isinf(s)) return emit(m, base::FormatDouble(s));
          char buf[64];
          emit(m, std::string_view(buf, snprintf(buf, sizeof(buf), "%.17g", s)));
        });
      },
      true);
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterZSetCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "sorted_set";
  const uint32_t kR = kCmdReadonly;
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  t->push_back({"zadd", -4, kW | kCmdFast, ZAddCommand, g, "1.2.0",
                "Adds members with scores, or updates scores.", "O(log(N))"});
  t->push_back({"zincrby", 4, kW | kCmdFast, ZIncrByCommand, g, "1.2.0",
                "Adds to a member's score.", "O(log(N))"});
  t->push_back({"zrem", -3, kCmdWrite | kCmdFast, ZRemCommand, g, "1.2.0", "Removes members.",
                "O(M*log(N))"});
  t->push_back(
      {"zcard", 2, kR | kCmdFast, ZCardCommand, g, "1.2.0", "Counts the members.", "O(1)"});
  t->push_back(
      {"zscore", 3, kR | kCmdFast, ZScoreCommand, g, "1.2.0", "The score of a member.", "O(1)"});
  t->push_back({"zmscore", -3, kR | kCmdFast, ZMScoreCommand, g, "6.2.0",
                "The scores of several members.", "O(N)"});
  t->push_back({"zcount", 4, kR | kCmdFast, ZCountCommand, g, "2.0.0",
                "Counts members within a score range.", "O(log(N))"});
  t->push_back({"zlexcount", 4, kR | kCmdFast, ZLexCountCommand, g, "2.8.9",
                "Counts members within a lexical range.", "O(log(N))"});
  t->push_back({"zrank", -3, kR | kCmdFast, ZRankCommand, g, "2.0.0",
                "The ascending rank of a member.", "O(log(N))"});
  t->push_back({"zrevrank", -3, kR | kCmdFast, ZRevRankCommand, g, "2.0.0",
                "The descending rank of a member.", "O(log(N))"});
  t->push_back({"zrange", -4, kR, ZRangeCommand, g, "1.2.0",
                "Members in a range of ranks, scores or names.", "O(log(N)+M)"});
  t->push_back({"zrangestore", -5, kW, ZRangeStoreCommand, g, "6.2.0", "Stores a ZRANGE result.",
                "O(log(N)+M)"});
  t->push_back({"zrevrange", -4, kR, ZRevRangeCommand, g, "1.2.0",
                "Members in a range of ranks, highest first.", "O(log(N)+M)"});
  t->push_back({"zrangebyscore", -4, kR, ZRangeByScoreCommand, g, "1.0.5",
                "Members within a score range.", "O(log(N)+M)"});
  t->push_back({"zrevrangebyscore", -4, kR, ZRevRangeByScoreCommand, g, "2.2.0",
                "Members within a score range, highest first.", "O(log(N)+M)"});
  t->push_back({"zrangebylex", -4, kR, ZRangeByLexCommand, g, "2.8.9",
                "Members within a lexical range.", "O(log(N)+M)"});
  t->push_back({"zrevrangebylex", -4, kR, ZRevRangeByLexCommand, g, "2.8.9",
                "Members within a lexical range, reversed.", "O(log(N)+M)"});
  t->push_back({"zremrangebyrank", 4, kCmdWrite, ZRemRangeByRankCommand, g, "2.0.0",
                "Removes members within a rank range.", "O(log(N)+M)"});
  t->push_back({"zremrangebyscore", 4, kCmdWrite, ZRemRangeByScoreCommand, g, "1.2.0",
                "Removes members within a score range.", "O(log(N)+M)"});
  t->push_back({"zremrangebylex", 4, kCmdWrite, ZRemRangeByLexCommand, g, "2.8.9",
                "Removes members within a lexical range.", "O(log(N)+M)"});
  t->push_back({"zpopmin", -2, kCmdWrite | kCmdFast, ZPopMinCommand, g, "5.0.0",
                "Removes and returns the lowest members.", "O(log(N)*M)"});
  t->push_back({"zpopmax", -2, kCmdWrite | kCmdFast, ZPopMaxCommand, g, "5.0.0",
                "Removes and returns the highest members.", "O(log(N)*M)"});
  t->push_back({"bzpopmin", -3, kCmdWrite | kCmdBlocking | kCmdFast, BZPopMinCommand, g, "5.0.0",
                "ZPOPMIN, waiting for data.", "O(log(N))"});
  t->push_back({"bzpopmax", -3, kCmdWrite | kCmdBlocking | kCmdFast, BZPopMaxCommand, g, "5.0.0",
                "ZPOPMAX, waiting for data.", "O(log(N))"});
  t->push_back({"zmpop", -4, kCmdWrite, ZMPopCommand, g, "7.0.0",
                "Pops from the first non-empty sorted set.", "O(K)+O(M*log(N))"});
  t->push_back({"bzmpop", -5, kCmdWrite | kCmdBlocking, BZMPopCommand, g, "7.0.0",
                "ZMPOP, waiting for data.", "O(K)+O(M*log(N))"});
  t->push_back({"zrandmember", -2, kR, ZRandMemberCommand, g, "6.2.0", "Random members.", "O(N)"});
  t->push_back(
      {"zunion", -3, kR, ZUnionCommand, g, "6.2.0", "Union of sorted sets.", "O(N)+O(M*log(M))"});
  t->push_back({"zinter", -3, kR, ZInterCommand, g, "6.2.0", "Intersection of sorted sets.",
                "O(N*K)+O(M*log(M))"});
  t->push_back({"zdiff", -3, kR, ZDiffCommand, g, "6.2.0", "Difference of sorted sets.",
                "O(L + (N-K)log(N))"});
  t->push_back({"zunionstore", -4, kW, ZUnionStoreCommand, g, "2.0.0",
                "Stores a union of sorted sets.", "O(N)+O(M log(M))"});
  t->push_back({"zinterstore", -4, kW, ZInterStoreCommand, g, "2.0.0",
                "Stores an intersection of sorted sets.", "O(N*K)+O(M*log(M))"});
  t->push_back({"zdiffstore", -4, kW, ZDiffStoreCommand, g, "6.2.0",
                "Stores a difference of sorted sets.", "O(L + (N-K)log(N))"});
  t->push_back({"zintercard", -3, kR, ZInterCardCommand, g, "7.0.0",
                "Counts the intersection of sorted sets.", "O(N*K)"});
  t->push_back({"zscan", -3, kR, ZScanCommand, g, "2.8.0", "Walks a sorted set with a cursor.",
                "O(1) per call"});
}
}  // namespace server
