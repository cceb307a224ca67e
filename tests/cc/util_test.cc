// Number formatting and parsing helpers.
#include "base/util.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <charconv>
#include <string>

#include "base/time.h"
#include "check.h"

TEST_CASE(DoubleFormattingMatchesValkey) {
  struct {
    double v;
    const char* want;
  } cases[] = {{1e20, "1e+20"},
               {1e18, "1000000000000000000"},
               {1e19, "1e+19"},
               {1e-5, "0.00001"},
               {1.5e-10, "1.5e-10"},
               {12345678901234567890123.0, "12345678901234568000000"},
               {123456789012345680.0, "123456789012345680"},
               {3.0, "3"},
               {0.1, "0.1"},
               {1e-7, "1e-7"},
               {5e-324, "5e-324"},
               {2.5e300, "2.5e+300"},
               {1.2e-6, "1.2e-6"},
               {1e-6, "0.000001"},
               {1.234e-5, "1.234e-5"},
               {1234.567125, "1234.567125"},
               {-1e-7, "-1e-7"},
               {-1e20, "-1e+20"},
               {-1.5, "-1.5"},
               {1e100, "1e+100"},
               {1.7976931348623157e308, "1.7976931348623157e+308"},
               {-0.0, "-0"}};
  for (auto& c : cases) CHECK_EQ(base::FormatDouble(c.v), std::string(c.want));
}

namespace {
// FormatDouble as it was written before it kept to one buffer: the reference for its layout.
std::string FormatDoubleBefore(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // Integral values in a safe range print as integers.
  constexpr double kIntLimit = static_cast<double>(INT64_MAX / 2);
  if (v >= -kIntLimit && v <= kIntLimit && v == std::trunc(v))
    return base::Int64ToString(static_cast<int64_t>(v));
  // Shortest round-trip digits, laid out like Valkey 8: plain integers and short decimals
  // without an exponent, otherwise "d.ddde[+-]x" with no zero-padding of the exponent.
  char sci[64];
  auto r = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  std::string_view t(sci, r.ptr - sci);
  bool neg = t[0] == '-';
  if (neg) t.remove_prefix(1);
  size_t epos = t.find('e');
  std::string digits;
  for (char c : t.substr(0, epos))
    if (c != '.') digits.push_back(c);
  int e10 = std::atoi(std::string(t.substr(epos + 1)).c_str());
  int n = static_cast<int>(digits.size());
  int k = e10 - (n - 1);  // value = digits * 10^k
  int exp = std::abs(k + n - 1);
  std::string out = neg ? "-" : "";
  if (k >= 0 && exp < n + 7) {
    out += digits + std::string(k, '0');
  } else if (k < 0 && (k > -7 || exp < 4)) {
    int offset = n + k;
    if (offset <= 0)
      out += "0." + std::string(-offset, '0') + digits;
    else
      out += digits.substr(0, offset) + "." + digits.substr(offset);
  } else {
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    out += (k + n - 1 < 0) ? "e-" : "e+";
    out += std::to_string(exp);
  }
  return out;
}
}  // namespace

TEST_CASE(DoubleFormattingMatchesItsReference) {
  uint64_t x = 88172645463325252ULL;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int i = 0; i < 300000; i++) {
    double v;
    switch (i % 4) {
      case 0: {  // any bit pattern: every exponent, denormals
        uint64_t bits = next();
        std::memcpy(&v, &bits, sizeof(v));
        break;
      }
      case 1: v = static_cast<double>(static_cast<int64_t>(next() % 2000001) - 1000000) / 64; break;
      case 2: v = (static_cast<double>(next() % 1000000) + 0.5) * std::pow(10.0, static_cast<int>(next() % 40) - 20); break;
      default: v = static_cast<double>(next() % 100000) / 1000; break;
    }
    if (std::isnan(v)) continue;
    CHECK_EQ(base::FormatDouble(v), FormatDoubleBefore(v));
  }
}

TEST_CASE(FloatParsingTakesTheWholeString) {
  using namespace std::string_literals;
  double d = 0;
  long double ld = 0;
  CHECK(base::ParseDouble("1.5", &d));
  CHECK_EQ(d, 1.5);
  CHECK(base::ParseLongDouble("1.5", &ld));
  CHECK(ld == 1.5L);
  // An embedded NUL is not the end of the number (SETRANGE can put one in a string).
  CHECK(!base::ParseDouble("1\0x"s, &d));
  CHECK(!base::ParseDouble("\0\0v11"s, &d));
  CHECK(!base::ParseLongDouble("1\0x"s, &ld));
  CHECK(!base::ParseLongDouble("\0\0v11"s, &ld));
  CHECK(!base::ParseLongDouble("", &ld));
  CHECK(!base::ParseLongDouble(" 1", &ld));
  // Overflow is refused, a denormal result is a number.
  CHECK(!base::ParseLongDouble("1e99999", &ld));
  CHECK(base::ParseDouble("5e-324", &d));
  CHECK(!base::ParseDouble("1e-400", &d));
  // What strtod takes and from_chars does not, or takes differently, keeps strtod's answer.
  CHECK(base::ParseDouble("+1", &d));
  CHECK_EQ(d, 1.0);
  CHECK(base::ParseDouble("0x10", &d));
  CHECK_EQ(d, 16.0);
  CHECK(base::ParseDouble("-inf", &d));
  CHECK(std::isinf(d) && d < 0);
  CHECK(!base::ParseDouble("nan", &d));
  CHECK(!base::ParseDouble("1.5 ", &d));
  CHECK(base::ParseDouble("0.1", &d));
  CHECK_EQ(d, 0.1);
}

TEST_CASE(FastClockKeepsPaceWithTheMonotonicClock) {
  base::InitFastClock();  // TSC where the CPU and kernel allow it, else CLOCK_MONOTONIC
  int64_t f0 = base::FastUs(), m0 = base::MonotonicUs();
  struct timespec t = {0, 30 * 1000 * 1000};
  nanosleep(&t, nullptr);
  int64_t f1 = base::FastUs(), m1 = base::MonotonicUs();
  int64_t fast = f1 - f0, mono = m1 - m0;
  CHECK(mono >= 30000);
  // Within 2% (calibration error) plus a little scheduling noise between the two reads.
  CHECK(fast > mono * 98 / 100 - 200);
  CHECK(fast < mono * 102 / 100 + 200);
  CHECK(base::FastUs() >= f1);
}
