// Geohash math of the geo commands (see geohash.h).
#include "base/geohash.h"

#include <cmath>

namespace base::geo {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
// Half the Web Mercator world's width in metres: the radius above which one cell is the world.
constexpr double kMercatorMax = 20037726.37;

double DegRad(double deg) { return deg * kDegToRad; }
double RadDeg(double rad) { return rad / kDegToRad; }

// Spreads the 32 bits of v over the even bit positions of a 64-bit word.
uint64_t Spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// Gathers the even bits of x into 32 bits (Spread's inverse).
uint32_t Gather(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// Latitude in the even bits, longitude in the odd ones.
uint64_t Interleave(uint32_t lat, uint32_t lon) { return Spread(lat) | (Spread(lon) << 1); }

constexpr Range kLonRange{kLonMin, kLonMax};
constexpr Range kLatRange{kLatMin, kLatMax};

// Moves a cell one step east (d > 0) or west along the longitude bits, wrapping around.
void MoveLon(Cell* c, int d) {
  uint64_t lon = c->bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t lat = c->bits & 0x5555555555555555ULL;
  uint64_t fill = 0x5555555555555555ULL >> (64 - c->step * 2);
  if (d > 0) {
    lon += fill + 1;
  } else {
    lon |= fill;
    lon -= fill + 1;
  }
  lon &= 0xaaaaaaaaaaaaaaaaULL >> (64 - c->step * 2);
  c->bits = lon | lat;
}

// Moves a cell one step north (d > 0) or south along the latitude bits, wrapping around.
void MoveLat(Cell* c, int d) {
  uint64_t lon = c->bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t lat = c->bits & 0x5555555555555555ULL;
  uint64_t fill = 0xaaaaaaaaaaaaaaaaULL >> (64 - c->step * 2);
  if (d > 0) {
    lat += fill + 1;
  } else {
    lat |= fill;
    lat -= fill + 1;
  }
  lat &= 0x5555555555555555ULL >> (64 - c->step * 2);
  c->bits = lon | lat;
}

// The score as the unsigned 64-bit cell number (the conversion x86-64 does for any double, without
// the undefined behaviour of converting a negative value directly).
uint64_t ScoreBits(double score) {
  if (score >= 0 && score < 18446744073709551616.0) return static_cast<uint64_t>(score);
  if (score < 0 && score > -9223372036854775808.0)
    return static_cast<uint64_t>(static_cast<int64_t>(score));
  return score >= 18446744073709551616.0 ? 0 : 0x8000000000000000ULL;
}

}  // namespace

bool Encode(Range lon_r, Range lat_r, double lon, double lat, int step, Cell* out) {
  if (step > 32 || step == 0 || (lat_r.min == 0 && lat_r.max == 0) ||
      (lon_r.min == 0 && lon_r.max == 0))
    return false;
  if (lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin) return false;
  out->bits = 0;
  out->step = static_cast<uint8_t>(step);
  if (lat < lat_r.min || lat > lat_r.max || lon < lon_r.min || lon > lon_r.max) return false;
  double lat_off = (lat - lat_r.min) / (lat_r.max - lat_r.min);
  double lon_off = (lon - lon_r.min) / (lon_r.max - lon_r.min);
  lat_off *= static_cast<double>(1ULL << step);
  lon_off *= static_cast<double>(1ULL << step);
  out->bits = Interleave(static_cast<uint32_t>(lat_off), static_cast<uint32_t>(lon_off));
  return true;
}

bool EncodeWGS84(double lon, double lat, int step, Cell* out) {
  return Encode(kLonRange, kLatRange, lon, lat, step, out);
}

void Decode(Range lon_r, Range lat_r, Cell c, Area* out) {
  out->cell = c;
  uint32_t ilat = Gather(c.bits);
  uint32_t ilon = Gather(c.bits >> 1);
  double lat_scale = lat_r.max - lat_r.min;
  double lon_scale = lon_r.max - lon_r.min;
  double cells = static_cast<double>(1ULL << c.step);
  out->lat.min = lat_r.min + (ilat * 1.0 / cells) * lat_scale;
  out->lat.max = lat_r.min + ((ilat + 1) * 1.0 / cells) * lat_scale;
  out->lon.min = lon_r.min + (ilon * 1.0 / cells) * lon_scale;
  out->lon.max = lon_r.min + ((ilon + 1) * 1.0 / cells) * lon_scale;
}

void DecodeScore(double score, double xy[2]) {
  Area a;
  Decode(kLonRange, kLatRange, Cell{ScoreBits(score), kStepMax}, &a);
  xy[0] = (a.lon.min + a.lon.max) / 2;
  if (xy[0] > kLonMax) xy[0] = kLonMax;
  if (xy[0] < kLonMin) xy[0] = kLonMin;
  xy[1] = (a.lat.min + a.lat.max) / 2;
  if (xy[1] > kLatMax) xy[1] = kLatMax;
  if (xy[1] < kLatMin) xy[1] = kLatMin;
}

void GetNeighbors(Cell c, Neighbors* n) {
  n->east = n->west = n->north = n->south = c;
  n->north_east = n->north_west = n->south_east = n->south_west = c;
  MoveLon(&n->east, 1);
  MoveLon(&n->west, -1);
  MoveLat(&n->south, -1);
  MoveLat(&n->north, 1);
  MoveLon(&n->north_west, -1);
  MoveLat(&n->north_west, 1);
  MoveLon(&n->south_west, -1);
  MoveLat(&n->south_west, -1);
  MoveLon(&n->north_east, 1);
  MoveLat(&n->north_east, 1);
  MoveLon(&n->south_east, 1);
  MoveLat(&n->south_east, -1);
}

double LatDistance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(DegRad(lat2) - DegRad(lat1));
}

double Distance(double lon1, double lat1, double lon2, double lat2) {
  double lon1r = DegRad(lon1), lon2r = DegRad(lon2);
  double v = std::sin((lon2r - lon1r) / 2);
  // Same meridian: the latitude difference alone, without the trigonometry.
  if (v == 0.0) return LatDistance(lat1, lat2);
  double lat1r = DegRad(lat1), lat2r = DegRad(lat2);
  double u = std::sin((lat2r - lat1r) / 2);
  double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

int EstimateStepsByRadius(double range_m, double lat) {
  if (range_m == 0) return 26;
  int step = 1;
  while (range_m < kMercatorMax) {
    range_m *= 2;
    step++;
  }
  step -= 2;  // so that the range fits in most cases
  // Cells get narrower towards the poles: widen them there.
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return step;
}

void BoundingBox(const Shape& s, double bounds[4]) {
  double lon = s.xy[0], lat = s.xy[1];
  double height = s.conversion * (s.type == Shape::kCircle ? s.radius : s.height / 2);
  double width = s.conversion * (s.type == Shape::kCircle ? s.radius : s.width / 2);
  const double lat_delta = RadDeg(height / kEarthRadiusM);
  const double lon_delta_top = RadDeg(width / kEarthRadiusM / std::cos(DegRad(lat + lat_delta)));
  const double lon_delta_bottom = RadDeg(width / kEarthRadiusM / std::cos(DegRad(lat - lat_delta)));
  // The wider edge is the one nearer the equator.
  bool south = lat < 0;
  bounds[0] = south ? lon - lon_delta_bottom : lon - lon_delta_top;
  bounds[2] = south ? lon + lon_delta_bottom : lon + lon_delta_top;
  bounds[1] = lat - lat_delta;
  bounds[3] = lat + lat_delta;
}

SearchCells CellsForShape(const Shape& s) {
  double bounds[4];
  BoundingBox(s, bounds);
  double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];
  double lon = s.xy[0], lat = s.xy[1];
  // A box is covered by the circle through its corners.
  double radius_m =
      s.type == Shape::kCircle
          ? s.radius
          : std::sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2));
  radius_m *= s.conversion;
  int steps = EstimateStepsByRadius(radius_m, lat);

  Cell cell;
  Neighbors nb;
  Area area;
  EncodeWGS84(lon, lat, steps, &cell);
  GetNeighbors(cell, &nb);
  Decode(kLonRange, kLatRange, cell, &area);

  // Near a cell's edge the estimated step can leave part of the area outside the nine cells: one
  // step coarser then.
  bool decrease = false;
  {
    Area north, south, east, west;
    Decode(kLonRange, kLatRange, nb.north, &north);
    Decode(kLonRange, kLatRange, nb.south, &south);
    Decode(kLonRange, kLatRange, nb.east, &east);
    Decode(kLonRange, kLatRange, nb.west, &west);
    if (north.lat.max < max_lat) decrease = true;
    if (south.lat.min > min_lat) decrease = true;
    if (east.lon.max < max_lon) decrease = true;
    if (west.lon.min > min_lon) decrease = true;
  }
  if (steps > 1 && decrease) {
    steps--;
    EncodeWGS84(lon, lat, steps, &cell);
    GetNeighbors(cell, &nb);
    Decode(kLonRange, kLatRange, cell, &area);
  }

  // Neighbours beyond the bounding box are not searched.
  if (steps >= 2) {
    if (area.lat.min < min_lat) nb.south = nb.south_west = nb.south_east = Cell{};
    if (area.lat.max > max_lat) nb.north = nb.north_east = nb.north_west = Cell{};
    if (area.lon.min < min_lon) nb.west = nb.south_west = nb.north_west = Cell{};
    if (area.lon.max > max_lon) nb.east = nb.south_east = nb.north_east = Cell{};
  }
  SearchCells r;
  r.cells[0] = cell;
  r.cells[1] = nb.north;
  r.cells[2] = nb.south;
  r.cells[3] = nb.east;
  r.cells[4] = nb.west;
  r.cells[5] = nb.north_east;
  r.cells[6] = nb.north_west;
  r.cells[7] = nb.south_east;
  r.cells[8] = nb.south_west;
  r.area = area;
  return r;
}

void ScoreRangeOf(Cell c, uint64_t* min, uint64_t* max) {
  *min = Align52(c);
  c.bits++;
  *max = Align52(c);
}

bool WithinShape(const Shape& s, double score, double xy[2], double* dist) {
  DecodeScore(score, xy);
  if (s.type == Shape::kCircle) {
    *dist = Distance(s.xy[0], s.xy[1], xy[0], xy[1]);
    return *dist <= s.radius * s.conversion;
  }
  // Latitude first: it is the cheaper distance.
  double width = s.width * s.conversion, height = s.height * s.conversion;
  if (LatDistance(xy[1], s.xy[1]) > height / 2) return false;
  if (Distance(xy[0], xy[1], s.xy[0], xy[1]) > width / 2) return false;
  *dist = Distance(s.xy[0], s.xy[1], xy[0], xy[1]);
  return true;
}

std::string GeohashString(double score) {
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  double xy[2];
  DecodeScore(score, xy);
  Cell c;
  Encode(Range{-180, 180}, Range{-90, 90}, xy[0], xy[1], kStepMax, &c);
  std::string out(11, '0');
  // 52 bits make ten characters; the eleventh is always '0'.
  for (int i = 0; i < 10; i++) out[i] = kAlphabet[(c.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = kAlphabet[0];
  return out;
}

std::string FormatDistance(double d) {
  if (d == 0) return "0.0000";
  long long scaled = std::llrint(d * 10000);
  bool negative = scaled < 0;
  unsigned long long v = negative ? 0ULL - static_cast<unsigned long long>(scaled)
                                  : static_cast<unsigned long long>(scaled);
  std::string digits = std::to_string(v);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  std::string out = negative ? "-" : "";
  out.append(digits, 0, digits.size() - 4);
  out.push_back('.');
  out.append(digits, digits.size() - 4, 4);
  return out;
}

}  // namespace base::geo
