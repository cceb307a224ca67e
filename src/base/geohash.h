// Geohash math of the geo commands, pure: the 52-bit interleaved cell of a coordinate (the score
// of a geo set member, bit-identical to Valkey's), its decoding, the neighbour cells, the cells a
// circle or a box search visits, the haversine distance, and the 11-character geohash string.
#pragma once
#include <cstdint>
#include <string>

namespace base::geo {

// Web Mercator's limits: what a geo set can hold.
inline constexpr double kLonMin = -180, kLonMax = 180;
inline constexpr double kLatMin = -85.05112878, kLatMax = 85.05112878;
inline constexpr int kStepMax = 26;  // bits per coordinate in a score
inline constexpr double kEarthRadiusM = 6372797.560856;

struct Range {
  double min, max;
};

// A cell: `step` bits of each coordinate interleaved (longitude in the odd bits, latitude in the
// even ones). A zero cell (bits 0, step 0) is an excluded neighbour.
struct Cell {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool IsZero() const { return bits == 0 && step == 0; }
};

struct Area {
  Cell cell;
  Range lon, lat;
};

struct Neighbors {
  Cell north, east, west, south, north_east, south_east, north_west, south_west;
};

// The cell of (lon, lat) at `step` within the given ranges; false outside them or outside the
// Mercator limits.
bool Encode(Range lon_r, Range lat_r, double lon, double lat, int step, Cell* out);
bool EncodeWGS84(double lon, double lat, int step, Cell* out);
// The cell's bits shifted to a 52-bit score.
inline uint64_t Align52(Cell c) { return c.bits << (52 - c.step * 2); }
// The bounds of a cell.
void Decode(Range lon_r, Range lat_r, Cell c, Area* out);
// The centre of a score's cell, clamped to the limits: xy[0] longitude, xy[1] latitude.
void DecodeScore(double score, double xy[2]);
void GetNeighbors(Cell c, Neighbors* out);

// Haversine distance in metres (same formula and operation order as Valkey, so that equal
// inputs give equal bits).
double Distance(double lon1, double lat1, double lon2, double lat2);
double LatDistance(double lat1, double lat2);

// A search area: a circle of `radius` or a box of width x height around xy, in units of
// `conversion` metres.
struct Shape {
  enum Type { kNone, kCircle, kBox } type = kNone;
  double xy[2] = {0, 0};
  double conversion = 1;
  double radius = 0;
  double width = 0, height = 0;
};

int EstimateStepsByRadius(double range_m, double lat);
// {min_lon, min_lat, max_lon, max_lat} of the shape.
void BoundingBox(const Shape& s, double bounds[4]);

// The cell holding the centre at the chosen step and its eight neighbours (the useless ones
// zeroed), in the order they are searched.
struct SearchCells {
  Cell cells[9];  // centre, N, S, E, W, NE, NW, SE, SW
  Area area;      // the centre cell
};
SearchCells CellsForShape(const Shape& s);
// The score range [*min, *max) of a cell.
void ScoreRangeOf(Cell c, uint64_t* min, uint64_t* max);
// Whether the point of `score` lies in the shape; *xy gets its decoded coordinates and *dist
// its distance in metres from the centre.
bool WithinShape(const Shape& s, double score, double xy[2], double* dist);

// The 11-character standard geohash (latitude range +-90) of a score, as GEOHASH prints it.
std::string GeohashString(double score);
// Distances as the geo commands print them: 4 decimals, rounded from the scaled value.
std::string FormatDistance(double d);

}  // namespace base::geo
