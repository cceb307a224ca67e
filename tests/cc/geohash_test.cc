// Geohash math: scores, decoding, neighbours, steps, distances and the texts the geo commands
// print (expected values recorded from Valkey 8.0.1).
#include "base/geohash.h"

#include <cstdint>
#include <string>

#include "base/util.h"
#include "check.h"

namespace geo = base::geo;

namespace {
uint64_t Score(double lon, double lat) {
  geo::Cell c;
  if (!geo::EncodeWGS84(lon, lat, geo::kStepMax, &c)) return UINT64_MAX;
  return geo::Align52(c);
}
}  // namespace

TEST_CASE(GeohashScoresMatchValkey) {
  CHECK_EQ(Score(13.361389, 38.115556), 3479099956230698ULL);
  CHECK_EQ(Score(15.087269, 37.502669), 3479447370796909ULL);
  CHECK_EQ(Score(0, 0), 3377699720527872ULL);
  CHECK_EQ(Score(-180, -85.05112878), 0ULL);
  // The upper limits are inside: their cell number overflows into bit 52, as in Valkey.
  CHECK(Score(180, 85.05112878) >= (1ULL << 52));
  CHECK_EQ(Score(180.0001, 0), UINT64_MAX);
  CHECK_EQ(Score(0, 85.06), UINT64_MAX);
}

TEST_CASE(GeohashDecodesToTheCellCentre) {
  double xy[2];
  geo::DecodeScore(3479099956230698.0, xy);
  CHECK_EQ(base::FormatLongDouble(xy[0]), std::string("13.36138933897018433"));
  CHECK_EQ(base::FormatLongDouble(xy[1]), std::string("38.11555639549629859"));
  // Beyond the limits the centre is clamped; negative scores convert as on x86-64.
  geo::DecodeScore(4503599627370496.0, xy);
  CHECK_EQ(base::FormatLongDouble(xy[0]), std::string("-179.99999731779098511"));
  CHECK_EQ(base::FormatLongDouble(xy[1]), std::string("85.0511287799999991"));
  geo::DecodeScore(-5, xy);
  CHECK_EQ(xy[0], 180.0);
  CHECK_EQ(xy[1], geo::kLatMax);
}

TEST_CASE(GeohashStringsMatchValkey) {
  CHECK_EQ(geo::GeohashString(3479099956230698.0), std::string("sqc8b49rny0"));
  CHECK_EQ(geo::GeohashString(3479447370796909.0), std::string("sqdtr74hyu0"));
  CHECK_EQ(geo::GeohashString(3377699720527872.0), std::string("s0000000000"));
  CHECK_EQ(geo::GeohashString(-5), std::string("bp05b5048p0"));
}

TEST_CASE(GeohashDistances) {
  double p[2], q[2];
  geo::DecodeScore(3479099956230698.0, p);
  geo::DecodeScore(3479447370796909.0, q);
  CHECK_EQ(geo::FormatDistance(geo::Distance(p[0], p[1], q[0], q[1])), std::string("166274.1516"));
  CHECK_EQ(geo::FormatDistance(geo::Distance(p[0], p[1], q[0], q[1]) / 1000),
           std::string("166.2742"));
  // Same meridian: the latitude difference alone.
  CHECK_EQ(geo::Distance(10, 1, 10, 2), geo::LatDistance(1, 2));
  CHECK_EQ(geo::FormatDistance(0), std::string("0.0000"));
  CHECK_EQ(geo::FormatDistance(0.00004), std::string("0.0000"));
  CHECK_EQ(geo::FormatDistance(0.00006), std::string("0.0001"));
  CHECK_EQ(geo::FormatDistance(12.5), std::string("12.5000"));
  // Rounded from the scaled value, half to even.
  CHECK_EQ(geo::FormatDistance(0.00125), std::string("0.0012"));
}

TEST_CASE(GeohashNeighboursWrapAround) {
  geo::Cell c{0, 2};  // south-west corner at step 2
  geo::Neighbors n;
  geo::GetNeighbors(c, &n);
  // Longitude sits in the odd bits, latitude in the even ones.
  CHECK_EQ(n.east.bits, 0b10ULL);
  CHECK_EQ(n.north.bits, 0b01ULL);
  CHECK_EQ(n.north_east.bits, 0b11ULL);
  CHECK_EQ(n.west.bits, 0b1010ULL);   // wrapped to the last column
  CHECK_EQ(n.south.bits, 0b0101ULL);  // wrapped to the last row
  CHECK_EQ(n.south_west.bits, 0b1111ULL);
  CHECK(n.east.step == 2);
}

TEST_CASE(GeohashStepsAndSearchCells) {
  CHECK_EQ(geo::EstimateStepsByRadius(0, 0), 26);
  CHECK_EQ(geo::EstimateStepsByRadius(1, 0), 24);
  CHECK_EQ(geo::EstimateStepsByRadius(1000, 0), 14);
  CHECK_EQ(geo::EstimateStepsByRadius(1000, 70), 13);
  CHECK_EQ(geo::EstimateStepsByRadius(1000, -81), 12);
  CHECK_EQ(geo::EstimateStepsByRadius(5e7, 0), 1);
  geo::Shape s;
  s.type = geo::Shape::kCircle;
  s.xy[0] = 15;
  s.xy[1] = 37;
  s.radius = 200;
  s.conversion = 1000;
  geo::SearchCells sc = geo::CellsForShape(s);
  uint64_t min, max;
  geo::ScoreRangeOf(sc.cells[0], &min, &max);
  CHECK(min <= Score(15, 37) && Score(15, 37) < max);
  // Every cell searched has the centre's step; the centre lies in the centre cell.
  for (auto& c : sc.cells) CHECK(c.IsZero() || c.step == sc.cells[0].step);
  CHECK(sc.area.lon.min <= 15 && 15 <= sc.area.lon.max);
  double xy[2], dist;
  CHECK(geo::WithinShape(s, 3479447370796909.0, xy, &dist));  // Catania, 56 km away
  CHECK_EQ(geo::FormatDistance(dist / 1000), std::string("56.4413"));
  s.radius = 50;
  CHECK(!geo::WithinShape(s, 3479447370796909.0, xy, &dist));
  s.type = geo::Shape::kBox;
  s.width = s.height = 200;  // 100 km each way
  CHECK(geo::WithinShape(s, 3479447370796909.0, xy, &dist));
  s.height = 100;  // Catania is 56 km north: outside a 50 km half height
  CHECK(!geo::WithinShape(s, 3479447370796909.0, xy, &dist));
}
