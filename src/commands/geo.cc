// Geo commands: geo sets are sorted sets whose scores are 52-bit geohash cells (base/geohash.h),
// so every sorted set command works on them and they round-trip through DUMP/RESTORE with
// Valkey and Redis.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/geohash.h"
#include "base/util.h"
#include "commands/common.h"
#include "db/zset.h"
#include "server/blocking.h"
#include "server/dispatch.h"
#include "server/notify.h"

namespace cmd {
namespace {
using namespace server;
namespace geo = base::geo;

// Reply texts (Valkey 8's).
constexpr const char* kErrUnit = "unsupported unit provided. please use M, KM, FT, MI";
constexpr const char* kErrMember = "could not decode requested zset member";

// A unit name's size in metres, or a negative value after replying the error.
double ParseUnit(Client* c, std::string_view u) {
  if (base::EqualsNoCase(u, "m")) return 1;
  if (base::EqualsNoCase(u, "km")) return 1000;
  if (base::EqualsNoCase(u, "ft")) return 0.3048;
  if (base::EqualsNoCase(u, "mi")) return 1609.34;
  c->R().Error(kErrUnit);
  return -1;
}

bool ParseDoubleOr(Client* c, std::string_view s, double* out, const char* msg) {
  if (base::ParseDouble(s, out)) return true;
  c->R().Error(msg);
  return false;
}

// Two arguments from argv[i]: longitude and latitude, within the Mercator limits.
bool ParseLonLat(Client* c, size_t i, double xy[2]) {
  for (int k = 0; k < 2; k++)
    if (!ParseDoubleOr(c, c->argv[i + k], &xy[k], kErrNotFloat)) return false;
  if (xy[0] < geo::kLonMin || xy[0] > geo::kLonMax || xy[1] < geo::kLatMin ||
      xy[1] > geo::kLatMax) {
    char buf[160];
    snprintf(buf, sizeof(buf), "-ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
    c->R().Error(buf);
    return false;
  }
  return true;
}

// radius unit
bool ParseRadius(Client* c, size_t i, geo::Shape* s) {
  double d;
  if (!ParseDoubleOr(c, c->argv[i], &d, "need numeric radius")) return false;
  if (d < 0) {
    c->R().Error("radius cannot be negative");
    return false;
  }
  s->radius = d;
  double conv = ParseUnit(c, c->argv[i + 1]);
  if (conv < 0) return false;
  s->conversion = conv;
  return true;
}

// width height unit
bool ParseBox(Client* c, size_t i, geo::Shape* s) {
  double w, h;
  if (!ParseDoubleOr(c, c->argv[i], &w, "need numeric width") ||
      !ParseDoubleOr(c, c->argv[i + 1], &h, "need numeric height"))
    return false;
  if (h < 0 || w < 0) {
    c->R().Error("height or width cannot be negative");
    return false;
  }
  s->width = w;
  s->height = h;
  double conv = ParseUnit(c, c->argv[i + 2]);
  if (conv < 0) return false;
  s->conversion = conv;
  return true;
}

bool MemberLonLat(db::Obj* o, std::string_view m, double xy[2]) {
  double score;
  if (!db::ZScore(o, m, &score)) return false;
  geo::DecodeScore(score, xy);
  return true;
}

// Coordinates are printed with 17 decimals, trailing zeros dropped: a bulk string in RESP2, a
// double in RESP3.
void ReplyCoord(net::Reply& r, double v) {
  std::string s = base::FormatLongDouble(v);
  if (r.resp() >= 3) {
    r.Raw(",");
    r.Raw(s);
    r.Raw("\r\n");
  } else {
    r.Bulk(s);
  }
}

db::Obj* LookupGeoRead(Client* c, std::string_view key, bool* err) {
  db::Obj* o = LookupRead(c, key);
  *err = o && !CheckType(c, o, db::kZSet);
  return *err ? nullptr : o;
}

// ---- GEOADD ----
// Valkey runs GEOADD as the ZADD of the encoded scores, and that ZADD is what replicas and the
// AOF receive.
void GeoAddCommand(Client* c) {
  auto& a = c->argv;
  bool nx = false, xx = false, ch = false;
  size_t first = 2;
  for (; first < a.size(); first++) {
    if (base::EqualsNoCase(a[first], "nx"))
      nx = true;
    else if (base::EqualsNoCase(a[first], "xx"))
      xx = true;
    else if (base::EqualsNoCase(a[first], "ch"))
      ch = true;
    else
      break;
  }
  size_t rest = a.size() - first;
  // No triple at all is ZADD's syntax error too.
  if (rest % 3 || rest == 0 || (xx && nx)) return c->R().Error(kErrSyntax);
  size_t n = rest / 3;
  std::vector<double> scores(n);
  std::vector<std::string> zadd;
  zadd.reserve(first + 2 * n);
  zadd.emplace_back("zadd");
  for (size_t i = 1; i < first; i++) zadd.emplace_back(a[i]);
  size_t maxlen = 0;
  for (size_t i = 0; i < n; i++) {
    double xy[2];
    if (!ParseLonLat(c, first + 3 * i, xy)) return;
    geo::Cell cell;
    geo::EncodeWGS84(xy[0], xy[1], geo::kStepMax, &cell);
    uint64_t bits = geo::Align52(cell);
    scores[i] = static_cast<double>(bits);
    zadd.push_back(base::Int64ToString(static_cast<int64_t>(bits)));
    zadd.emplace_back(a[first + 3 * i + 2]);
    maxlen = std::max(maxlen, a[first + 3 * i + 2].size());
  }
  bool err;
  db::Obj* o = LookupWriteTyped(c, a[1], db::kZSet, &err);
  if (err) return;
  if (!o) {
    if (xx) return c->R().Int(0);
    o = db::NewZSet(a[1], n, maxlen);
    c->db->Add(o);
  }
  int64_t added = 0, changed = 0;
  for (size_t i = 0; i < n; i++) {
    std::string_view m = a[first + 3 * i + 2];
    double cur;
    if (db::ZScore(o, m, &cur)) {
      if (nx) continue;
      if (cur != scores[i]) {
        db::ZSetScore(o, m, scores[i]);
        changed++;
      }
    } else {
      if (xx) continue;
      db::ZSetScore(o, m, scores[i]);
      added++;
    }
  }
  if (db::ZLen(o) == 0) c->db->Delete(a[1]);
  if (added || changed) {
    Modified(c, a[1], added + changed);
    Notify(kNotifyZset, "zadd", a[1], c->dbid);
    KeyReady(c->dbid, a[1]);
    PropagateAs(c, std::move(zadd));
  }
  c->R().Int(ch ? added + changed : added);
}

// ---- GEODIST / GEOHASH / GEOPOS ----
void GeoDistCommand(Client* c) {
  auto& a = c->argv;
  double to_m = 1;
  if (a.size() == 5) {
    to_m = ParseUnit(c, a[4]);
    if (to_m < 0) return;
  } else if (a.size() > 5) {
    return c->R().Error(kErrSyntax);
  }
  bool err;
  db::Obj* o = LookupGeoRead(c, a[1], &err);
  if (err) return;
  double p1[2], p2[2];
  if (!o || !MemberLonLat(o, a[2], p1) || !MemberLonLat(o, a[3], p2)) return c->R().Null();
  c->R().Bulk(geo::FormatDistance(geo::Distance(p1[0], p1[1], p2[0], p2[1]) / to_m));
}

void GeoHashCommand(Client* c) {
  auto& a = c->argv;
  bool err;
  db::Obj* o = LookupGeoRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(a.size() - 2));
  for (size_t i = 2; i < a.size(); i++) {
    double score;
    if (o && db::ZScore(o, a[i], &score))
      r.Bulk(geo::GeohashString(score));
    else
      r.Null();
  }
}

void GeoPosCommand(Client* c) {
  auto& a = c->argv;
  bool err;
  db::Obj* o = LookupGeoRead(c, a[1], &err);
  if (err) return;
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(a.size() - 2));
  for (size_t i = 2; i < a.size(); i++) {
    double xy[2];
    if (!o || !MemberLonLat(o, a[i], xy)) {
      r.NullArray();
      continue;
    }
    r.ArrayLen(2);
    ReplyCoord(r, xy[0]);
    ReplyCoord(r, xy[1]);
  }
}

// ---- GEORADIUS / GEORADIUSBYMEMBER / GEOSEARCH and their _RO / STORE forms ----
enum SearchFlags : int {
  kFromCoords = 1 << 0,  // GEORADIUS: argv[2..5] lon lat radius unit
  kFromMember = 1 << 1,  // GEORADIUSBYMEMBER: argv[2..4] member radius unit
  kNoStore = 1 << 2,     // the _RO forms
  kSearch = 1 << 3,      // GEOSEARCH: FROMMEMBER|FROMLONLAT and BYRADIUS|BYBOX options
  kSearchStore = 1 << 4  // GEOSEARCHSTORE: argv[1] is the destination
};

struct Point {
  double lon, lat, dist, score;
  std::string member;
};

// Appends the members of [min, max) that lie in the shape, stopping at `limit` results in all
// (0: no limit).
void PointsInRange(db::Obj* o, uint64_t min, uint64_t max, const geo::Shape& shape, size_t limit,
                   std::vector<Point>* out) {
  db::ScoreRange range{static_cast<double>(min), static_cast<double>(max), false, true};
  size_t first, count;
  db::ZScoreRangeRanks(o, range, &first, &count);
  if (count == 0) return;
  size_t seen = 0;
  db::ZWalk(o, first, false, [&](std::string_view m, double score) {
    double xy[2], dist = 0;
    if (geo::WithinShape(shape, score, xy, &dist))
      out->push_back({xy[0], xy[1], dist, score, std::string(m)});
    if (!out->empty() && limit && out->size() >= limit) return false;
    return ++seen < count;
  });
}

// Searches the nine cells around the shape's centre, as Valkey does: a cell identical to the
// last one searched (huge radii) is skipped.
void PointsInShape(db::Obj* o, const geo::Shape& shape, size_t limit, std::vector<Point>* out) {
  geo::SearchCells sc = geo::CellsForShape(shape);
  int last = 0;
  for (int i = 0; i < 9; i++) {
    const geo::Cell& cell = sc.cells[i];
    if (cell.IsZero()) continue;
    if (last && cell.bits == sc.cells[last].bits && cell.step == sc.cells[last].step) continue;
    if (!out->empty() && limit && out->size() >= limit) break;
    uint64_t min, max;
    geo::ScoreRangeOf(cell, &min, &max);
    PointsInRange(o, min, max, shape, limit, out);
    last = i;
  }
}

// Valkey's partial sort (COUNT below the number found): Bentley and McIlroy's quicksort that
// only descends into the parts overlapping ranks [lo, hi]. Reproduced step for step so that
// equal distances come out in the same order as Valkey's.
template <typename Cmp>
void PartialSort(Point* base, size_t a, size_t n, const Cmp& cmp, size_t lo, size_t hi) {
  auto med3 = [&](size_t a, size_t b, size_t c) {
    return cmp(base[a], base[b]) < 0
               ? (cmp(base[b], base[c]) < 0 ? b : (cmp(base[a], base[c]) < 0 ? c : a))
               : (cmp(base[b], base[c]) > 0 ? b : (cmp(base[a], base[c]) < 0 ? a : c));
  };
  auto sw = [&](size_t a, size_t b) { std::swap(base[a], base[b]); };
  auto vecswap = [&](size_t a, size_t b, size_t k) {
    for (size_t i = 0; i < k; i++) sw(a + i, b + i);
  };
  // Whether ranks [lo, hi] meet the part [first, first + len).
  auto overlaps = [&](size_t first, size_t len) {
    return !((lo < first && hi < first) || (lo >= first + len && hi >= first + len));
  };
  for (;;) {
    if (n < 7) {
      for (size_t m = a + 1; m < a + n; m++)
        for (size_t l = m; l > a && cmp(base[l - 1], base[l]) > 0; l--) sw(l, l - 1);
      return;
    }
    size_t pm = a + n / 2;
    if (n > 7) {
      size_t pl = a, pn = a + n - 1;
      if (n > 40) {
        size_t d = n / 8;
        pl = med3(pl, pl + d, pl + 2 * d);
        pm = med3(pm - d, pm, pm + d);
        pn = med3(pn - 2 * d, pn - d, pn);
      }
      pm = med3(pl, pm, pn);
    }
    sw(a, pm);
    // Indices kept signed: pc may step below pb by one.
    ptrdiff_t pa = static_cast<ptrdiff_t>(a) + 1, pb = pa;
    ptrdiff_t pc = static_cast<ptrdiff_t>(a + n - 1), pd = pc;
    for (;;) {
      int r;
      while (pb <= pc && (r = cmp(base[pb], base[a])) <= 0) {
        if (r == 0) sw(pa++, pb);
        pb++;
      }
      while (pb <= pc && (r = cmp(base[pc], base[a])) >= 0) {
        if (r == 0) sw(pc, pd--);
        pc--;
      }
      if (pb > pc) break;
      sw(pb++, pc--);
    }
    ptrdiff_t pn = static_cast<ptrdiff_t>(a + n);
    ptrdiff_t r = std::min(pa - static_cast<ptrdiff_t>(a), pb - pa);
    vecswap(a, pb - r, r);
    r = std::min(pd - pc, pn - pd - 1);
    vecswap(pb, pn - r, r);
    if ((r = pb - pa) > 1 && overlaps(a, r)) PartialSort(base, a, r, cmp, lo, hi);
    if ((r = pd - pc) > 1) {
      a = pn - r;
      n = r;
      if (overlaps(a, n)) continue;
    }
    return;
  }
}

void GeoSearchGeneric(Client* c, size_t src_idx, int flags) {
  auto& a = c->argv;
  std::string_view storekey;
  bool has_store = false, storedist = false;
  bool err;
  db::Obj* o = LookupGeoRead(c, a[src_idx], &err);
  if (err) return;

  geo::Shape shape;
  size_t base_args;
  if (flags & kFromCoords) {
    base_args = 6;
    shape.type = geo::Shape::kCircle;
    if (!ParseLonLat(c, 2, shape.xy) || !ParseRadius(c, 4, &shape)) return;
  } else if (flags & kFromMember) {
    base_args = 5;
    // Without the key the arguments are still checked, to know which empty reply to give.
    if (o) {
      shape.type = geo::Shape::kCircle;
      if (!MemberLonLat(o, a[2], shape.xy)) return c->R().Error(kErrMember);
      if (!ParseRadius(c, 3, &shape)) return;
    }
  } else {
    base_args = 2;
    if (flags & kSearchStore) {
      base_args = 3;
      storekey = a[1];
      has_store = true;
    }
  }

  bool withdist = false, withhash = false, withcoord = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false, any = false;
  enum { kNone, kAsc, kDesc } sort = kNone;
  int64_t count = 0;
  size_t remaining = a.size() > base_args ? a.size() - base_args : 0;
  for (size_t i = 0; i < remaining; i++) {
    std::string_view arg = a[base_args + i];
    bool search = flags & kSearch;
    bool can_store = !(flags & kNoStore) && !search;
    if (base::EqualsNoCase(arg, "withdist")) {
      withdist = true;
    } else if (base::EqualsNoCase(arg, "withhash")) {
      withhash = true;
    } else if (base::EqualsNoCase(arg, "withcoord")) {
      withcoord = true;
    } else if (base::EqualsNoCase(arg, "any")) {
      any = true;
    } else if (base::EqualsNoCase(arg, "asc")) {
      sort = kAsc;
    } else if (base::EqualsNoCase(arg, "desc")) {
      sort = kDesc;
    } else if (base::EqualsNoCase(arg, "count") && i + 1 < remaining) {
      if (!ArgInt(c, a[base_args + i + 1], &count)) return;
      if (count <= 0) return c->R().Error("COUNT must be > 0");
      i++;
    } else if (base::EqualsNoCase(arg, "store") && i + 1 < remaining && can_store) {
      storekey = a[base_args + i + 1];
      has_store = true;
      storedist = false;
      i++;
    } else if (base::EqualsNoCase(arg, "storedist") && i + 1 < remaining && can_store) {
      storekey = a[base_args + i + 1];
      has_store = true;
      storedist = true;
      i++;
    } else if (base::EqualsNoCase(arg, "storedist") && search && (flags & kSearchStore)) {
      storedist = true;
    } else if (base::EqualsNoCase(arg, "frommember") && i + 1 < remaining && search && !fromloc) {
      if (o && !MemberLonLat(o, a[base_args + i + 1], shape.xy)) return c->R().Error(kErrMember);
      frommember = true;
      i++;
    } else if (base::EqualsNoCase(arg, "fromlonlat") && i + 2 < remaining && search &&
               !frommember) {
      if (!ParseLonLat(c, base_args + i + 1, shape.xy)) return;
      fromloc = true;
      i += 2;
    } else if (base::EqualsNoCase(arg, "byradius") && i + 2 < remaining && search && !bybox) {
      if (!ParseRadius(c, base_args + i + 1, &shape)) return;
      shape.type = geo::Shape::kCircle;
      byradius = true;
      i += 2;
    } else if (base::EqualsNoCase(arg, "bybox") && i + 3 < remaining && search && !byradius) {
      if (!ParseBox(c, base_args + i + 1, &shape)) return;
      shape.type = geo::Shape::kBox;
      bybox = true;
      i += 3;
    } else {
      return c->R().Error(kErrSyntax);
    }
  }

  if (has_store && (withdist || withhash || withcoord)) {
    return c->R().Error(
        std::string(flags & kSearchStore ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
        " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  if ((flags & kSearch) && !(frommember || fromloc)) {
    return c->R().Error("exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                        std::string(a[0]));
  }
  if ((flags & kSearch) && !(byradius || bybox)) {
    return c->R().Error("exactly one of BYRADIUS and BYBOX can be specified for " +
                        std::string(a[0]));
  }
  if (any && !count) return c->R().Error("the ANY argument requires COUNT argument");

  if (!o) {
    if (!has_store) return c->R().ArrayLen(0);
    std::string dst(storekey);
    if (LookupWrite(c, dst)) {
      c->db->Delete(dst);
      Modified(c, dst);
      Notify(kNotifyGeneric, "del", dst, c->dbid);
    }
    return c->R().Int(0);
  }

  // COUNT returns the nearest ones unless ANY asked for the first found.
  if (count != 0 && sort == kNone && !any) sort = kAsc;

  std::vector<Point> points;
  PointsInShape(o, shape, any ? static_cast<size_t>(count) : 0, &points);
  if (points.empty() && !has_store) return c->R().ArrayLen(0);

  size_t returned = points.size();
  if (count != 0 && static_cast<uint64_t>(count) < returned) returned = static_cast<size_t>(count);
  if (sort != kNone) {
    auto cmp = [desc = sort == kDesc](const Point& x, const Point& y) {
      int r = x.dist > y.dist ? 1 : (x.dist == y.dist ? 0 : -1);
      return desc ? -r : r;
    };
    if (returned == points.size()) {
      // Valkey sorts with the C library's qsort, a stable merge sort in glibc: equal distances
      // keep the order they were found in.
      std::stable_sort(points.begin(), points.end(),
                       [&](const Point& x, const Point& y) { return cmp(x, y) < 0; });
    } else {
      PartialSort(points.data(), 0, points.size(), cmp, 0, returned - 1);
    }
  }

  if (!has_store) {
    int options = withdist + withhash + withcoord;
    auto r = c->R();
    r.ArrayLen(static_cast<int64_t>(returned));
    for (size_t i = 0; i < returned; i++) {
      Point& p = points[i];
      if (options) r.ArrayLen(options + 1);
      r.Bulk(p.member);
      if (withdist) r.Bulk(geo::FormatDistance(p.dist / shape.conversion));
      if (withhash) r.Int(static_cast<int64_t>(p.score));
      if (withcoord) {
        r.ArrayLen(2);
        ReplyCoord(r, p.lon);
        ReplyCoord(r, p.lat);
      }
    }
    return;
  }

  std::string dst(storekey);
  if (returned) {
    size_t maxlen = 0;
    for (size_t i = 0; i < returned; i++) maxlen = std::max(maxlen, points[i].member.size());
    db::Obj* z = db::NewZSet(dst, returned, maxlen);
    for (size_t i = 0; i < returned; i++) {
      Point& p = points[i];
      db::ZSetScore(z, p.member, storedist ? p.dist / shape.conversion : p.score);
    }
    StoreResult(c, dst, z, kNotifyZset, (flags & kSearch) ? "geosearchstore" : "georadiusstore");
    g.dirty += static_cast<int64_t>(returned) - 1;  // Valkey counts one change per member
  } else {
    StoreResult(c, dst, nullptr, kNotifyGeneric, "del");
  }
  c->R().Int(static_cast<int64_t>(returned));
}

void GeoRadiusCommand(Client* c) { GeoSearchGeneric(c, 1, kFromCoords); }
void GeoRadiusRoCommand(Client* c) { GeoSearchGeneric(c, 1, kFromCoords | kNoStore); }
void GeoRadiusByMemberCommand(Client* c) { GeoSearchGeneric(c, 1, kFromMember); }
void GeoRadiusByMemberRoCommand(Client* c) { GeoSearchGeneric(c, 1, kFromMember | kNoStore); }
void GeoSearchCommand(Client* c) { GeoSearchGeneric(c, 1, kSearch); }
void GeoSearchStoreCommand(Client* c) { GeoSearchGeneric(c, 2, kSearch | kSearchStore); }

}  // namespace
}  // namespace cmd

namespace server {
void RegisterGeoCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "geo";
  const uint32_t kR = kCmdReadonly;
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  t->push_back({"geoadd", -5, kW, GeoAddCommand, g, "3.2.0", "Adds or moves members of a geo set.",
                "O(log(N)) per member"});
  t->push_back(
      {"geodist", -4, kR, GeoDistCommand, g, "3.2.0", "The distance between two members.", "O(1)"});
  t->push_back({"geohash", -2, kR, GeoHashCommand, g, "3.2.0", "The geohash strings of members.",
                "O(1) per member"});
  t->push_back({"geopos", -2, kR, GeoPosCommand, g, "3.2.0",
                "The longitude and latitude of members.", "O(1) per member"});
  t->push_back({"georadius", -6, kW, GeoRadiusCommand, g, "3.2.0",
                "Members within a radius of a point; STORE keeps them.", "O(N+log(M))"});
  t->push_back({"georadius_ro", -6, kR, GeoRadiusRoCommand, g, "3.2.10",
                "Members within a radius of a point.", "O(N+log(M))"});
  t->push_back({"georadiusbymember", -5, kW, GeoRadiusByMemberCommand, g, "3.2.0",
                "Members within a radius of a member; STORE keeps them.", "O(N+log(M))"});
  t->push_back({"georadiusbymember_ro", -5, kR, GeoRadiusByMemberRoCommand, g, "3.2.10",
                "Members within a radius of a member.", "O(N+log(M))"});
  t->push_back({"geosearch", -7, kR, GeoSearchCommand, g, "6.2.0",
                "Members within a circle or a box.", "O(N+log(M))"});
  t->push_back({"geosearchstore", -8, kW, GeoSearchStoreCommand, g, "6.2.0",
                "Stores the members within a circle or a box.", "O(N+log(M))"});
}
}  // namespace server
