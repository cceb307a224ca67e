// LOLWUT [VERSION v [args...]]: a drawing and the version line, in Valkey 8.0.1's reply shape.
// VERSION 5 [cols [squares-per-row [squares-per-col]]] draws our own rendering of Georg Nees's
// "Schotter" (a grid of squares, more disordered row after row) in Braille dots; every other
// version, and no VERSION, is the version line alone (Valkey 8 draws for 5 and 6 only; its
// version-6 picture is an image we do not reproduce, so 6 gets the line alone too).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/util.h"
#include "server/command.h"
#include "server/version.h"

namespace cmd {
namespace {

using server::Client;

// Valkey 8.0.1 still says "Redis ver." here; the number is the valkey_version we report.
std::string VersionLine() { return std::string("Redis ver. ") + server::kValkeyVersion + "\n"; }

// A 1-bit canvas printed 2x4 pixels per Braille character (U+2800 plus one bit per dot).
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h) {}
  void Set(int x, int y) {
    if (x >= 0 && y >= 0 && x < w_ && y < h_) px_[static_cast<size_t>(y) * w_ + x] = 1;
  }
  void Line(int x0, int y0, int x1, int y1) {  // Bresenham
    int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
    while (true) {
      Set(x0, y0);
      if (x0 == x1 && y0 == y1) return;
      int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  std::string Render() const {
    // Dot bits of a Braille cell, by (column, row) inside the 2x4 cell.
    static const int kBit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    std::string out;
    for (int cy = 0; cy < h_; cy += 4) {
      for (int cx = 0; cx < w_; cx += 2) {
        int code = 0;
        for (int dx = 0; dx < 2; dx++)
          for (int dy = 0; dy < 4; dy++)
            if (Get(cx + dx, cy + dy)) code |= kBit[dx][dy];
        int cp = 0x2800 + code;  // three UTF-8 bytes
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      out.push_back('\n');
    }
    return out;
  }

 private:
  bool Get(int x, int y) const {
    return x < w_ && y < h_ && px_[static_cast<size_t>(y) * w_ + x];
  }
  int w_, h_;
  std::vector<uint8_t> px_;
};

std::string Schotter(int cols, int per_row, int per_col) {
  int width = cols * 2;
  int side = width / per_row;
  int height = side * per_col;
  Canvas canvas(width, height);
  int pad = (width - side * per_row) / 2;
  std::mt19937 rng(1968);  // the same picture every time
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int r = 0; r < per_col; r++) {
    double disorder = per_col > 1 ? static_cast<double>(r) / (per_col - 1) : 0;
    for (int c = 0; c < per_row; c++) {
      double angle = unit(rng) * disorder * M_PI / 4;
      double cx = pad + c * side + side / 2.0 + unit(rng) * disorder * side / 4;
      double cy = r * side + side / 2.0 + unit(rng) * disorder * side / 4;
      double half = side / 2.0;
      int x[4], y[4];
      for (int k = 0; k < 4; k++) {  // the corners, turned by angle around the centre
        double a = angle + M_PI / 4 + k * M_PI / 2;
        x[k] = static_cast<int>(std::lround(cx + half * M_SQRT2 * std::cos(a)));
        y[k] = static_cast<int>(std::lround(cy + half * M_SQRT2 * std::sin(a)));
      }
      for (int k = 0; k < 4; k++) canvas.Line(x[k], y[k], x[(k + 1) % 4], y[(k + 1) % 4]);
    }
  }
  return canvas.Render();
}

// Valkey's limits on the drawing's arguments.
bool ArgClamped(Client* c, size_t j, int64_t lo, int64_t hi, int64_t* v) {
  if (c->argv.size() <= j) return true;
  if (!server::ArgInt(c, c->argv[j], v)) return false;
  *v = *v < lo ? lo : *v > hi ? hi : *v;
  return true;
}

void LolwutCommand(Client* c) {
  auto& a = c->argv;
  int64_t version = 8;
  if (a.size() >= 3 && base::EqualsNoCase(a[1], "version") && !server::ArgInt(c, a[2], &version))
    return;
  if (version != 5 || a.size() < 3) return c->R().Verbatim(VersionLine());
  int64_t cols = 66, per_row = 8, per_col = 12;
  if (!ArgClamped(c, 3, 1, 1000, &cols) || !ArgClamped(c, 4, 1, 200, &per_row) ||
      !ArgClamped(c, 5, 1, 200, &per_col))
    return;
  std::string out = Schotter(static_cast<int>(cols), static_cast<int>(per_row),
                             static_cast<int>(per_col));
  out += "\nGeorg Nees - schotter, plotter on paper, 1968. " + VersionLine();
  c->R().Verbatim(out);
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterLolwutCommands(std::vector<CommandSpec>* t) {
  t->push_back({"lolwut", -1, kCmdReadonly | kCmdFast, cmd::LolwutCommand, "server", "5.0.0",
                "Displays computer art and the server version", nullptr});
}
}  // namespace server
