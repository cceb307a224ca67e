// Number formatting and parsing helpers.
#include "base/util.h"

#include <cmath>
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
