// Conversions and matching shared by every layer.
#include "base/util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace base {

bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = c - '0';
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool neg = s[0] == '-';
  if (neg) s.remove_prefix(1);
  uint64_t v;
  if (!ParseUint64(s, &v)) return false;
  if (neg) {
    if (v == 0 || v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

int FormatInt64(int64_t v, char* buf) {
  auto r = std::to_chars(buf, buf + 21, v);
  return static_cast<int>(r.ptr - buf);
}

std::string Int64ToString(int64_t v) {
  char buf[24];
  return std::string(buf, FormatInt64(v, buf));
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() >= 5120) return false;
  if (isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string tmp(s);
  char* end;
  errno = 0;
  long double v = strtold(tmp.c_str(), &end);
  // The whole string must be the number (an embedded NUL ends strtold early); a result out
  // of range is refused only when it overflowed or underflowed to zero, as in Valkey.
  if (static_cast<size_t>(end - tmp.c_str()) != s.size() ||
      (errno == ERANGE && (std::isinf(v) || v == 0)) || std::isnan(v))
    return false;
  *out = v;
  return true;
}

std::string FormatLongDouble(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[5200];
  int len = snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (len < 0 || len >= static_cast<int>(sizeof(buf))) return "0";
  if (strchr(buf, '.')) {
    while (len > 0 && buf[len - 1] == '0') len--;
    if (len > 0 && buf[len - 1] == '.') len--;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') return "0";
  return std::string(buf, len);
}

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() >= 5120) return false;
  if (isspace(static_cast<unsigned char>(s[0]))) return false;
  // Most numbers (scores, increments, a sorted set's stored scores) are plain decimals, which
  // from_chars reads without a copy; it rounds as strtod does. Anything it does not take whole
  // ("+1", "0x1p3", an overflow, a NaN) goes to strtod for strtod's answer.
  double v;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !std::isnan(v)) {
    *out = v;
    return true;
  }
  std::string tmp(s);
  char* end;
  errno = 0;
  v = strtod(tmp.c_str(), &end);
  if (static_cast<size_t>(end - tmp.c_str()) != s.size() ||
      (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) || std::isnan(v))
    return false;
  *out = v;
  return true;
}

std::string FormatDouble(double v) {
  char buf[kDoubleBufSize];
  return std::string(buf, static_cast<size_t>(FormatDouble(v, buf)));
}

int FormatDouble(double v, char* out) {
  auto put = [&](std::string_view s) {
    memcpy(out, s.data(), s.size());
    return static_cast<int>(s.size());
  };
  if (std::isnan(v)) return put("nan");
  if (std::isinf(v)) return put(v > 0 ? "inf" : "-inf");
  if (v == 0) return put(std::signbit(v) ? "-0" : "0");
  // Integral values in a safe range print as integers.
  constexpr double kIntLimit = static_cast<double>(INT64_MAX / 2);
  if (v >= -kIntLimit && v <= kIntLimit && v == std::trunc(v))
    return FormatInt64(static_cast<int64_t>(v), out);
  // Shortest round-trip digits, laid out like Valkey 8: plain integers and short decimals
  // without an exponent, otherwise "d.ddde[+-]x" with no zero-padding of the exponent. Built
  // in one buffer: sorted-set scores are formatted by the million (replies, loads).
  char sci[64];
  auto r = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  const char* p = sci;
  bool neg = *p == '-';
  if (neg) p++;
  char digits[32];  // at most 17 significant digits
  int n = 0;
  for (; p < r.ptr && *p != 'e'; p++)
    if (*p != '.') digits[n++] = *p;
  int e10 = 0;
  if (p < r.ptr) {
    const char* q = p + 1;
    if (*q == '+') q++;
    std::from_chars(q, r.ptr, e10);
  }
  int k = e10 - (n - 1);  // value = digits * 10^k
  int exp = std::abs(k + n - 1);
  int o = 0;
  if (neg) out[o++] = '-';
  if (k >= 0 && exp < n + 7) {
    for (int i = 0; i < n; i++) out[o++] = digits[i];
    for (int i = 0; i < k; i++) out[o++] = '0';
  } else if (k < 0 && (k > -7 || exp < 4)) {
    int offset = n + k;
    if (offset <= 0) {
      out[o++] = '0';
      out[o++] = '.';
      for (int i = 0; i < -offset; i++) out[o++] = '0';
      for (int i = 0; i < n; i++) out[o++] = digits[i];
    } else {
      for (int i = 0; i < offset; i++) out[o++] = digits[i];
      out[o++] = '.';
      for (int i = offset; i < n; i++) out[o++] = digits[i];
    }
  } else {
    out[o++] = digits[0];
    if (n > 1) {
      out[o++] = '.';
      for (int i = 1; i < n; i++) out[o++] = digits[i];
    }
    out[o++] = 'e';
    out[o++] = (k + n - 1 < 0) ? '-' : '+';
    auto er = std::to_chars(out + o, out + kDoubleBufSize, exp);
    o = static_cast<int>(er.ptr - out);
  }
  return o;
}

std::optional<uint64_t> ParseMemory(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++;
  if (i == 0) return std::nullopt;
  uint64_t v;
  if (!ParseUint64(s.substr(0, i), &v)) {
    // allow leading zeros like "0100"? no: strict
    return std::nullopt;
  }
  std::string unit = ToLower(s.substr(i));
  uint64_t mul;
  if (unit.empty() || unit == "b")
    mul = 1;
  else if (unit == "k")
    mul = 1000;
  else if (unit == "kb")
    mul = 1024;
  else if (unit == "m")
    mul = 1000ULL * 1000;
  else if (unit == "mb")
    mul = 1024ULL * 1024;
  else if (unit == "g")
    mul = 1000ULL * 1000 * 1000;
  else if (unit == "gb")
    mul = 1024ULL * 1024 * 1024;
  else
    return std::nullopt;
  if (v != 0 && mul > UINT64_MAX / v) return std::nullopt;
  return v * mul;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string ToLower(std::string_view s) {
  std::string r(s);
  for (auto& c : r)
    if (c >= 'A' && c <= 'Z') c += 32;
  return r;
}

std::string BytesToHuman(uint64_t n) {
  char buf[64];
  double d = static_cast<double>(n);
  if (n < 1024)
    snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  else if (n < 1024ULL * 1024)
    snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  else if (n < 1024ULL * 1024 * 1024)
    snprintf(buf, sizeof(buf), "%.2fM", d / (1024 * 1024));
  else if (n < 1024ULL * 1024 * 1024 * 1024)
    snprintf(buf, sizeof(buf), "%.2fG", d / (1024.0 * 1024 * 1024));
  else
    snprintf(buf, sizeof(buf), "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
  return buf;
}
std::string RandomHex(int n) {
  static const char* hex = "0123456789abcdef";
  std::string raw(static_cast<size_t>(n), '\0');
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && read(fd, raw.data(), raw.size()) == static_cast<ssize_t>(raw.size());
  if (fd >= 0) close(fd);
  if (!ok) {  // no /dev/urandom: the time and the address space layout still differ per run
    uint64_t x = static_cast<uint64_t>(time(nullptr)) ^ reinterpret_cast<uintptr_t>(&raw);
    for (auto& ch : raw) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      ch = static_cast<char>(x);
    }
  }
  std::string s;
  for (char ch : raw) s.push_back(hex[static_cast<unsigned char>(ch) & 15]);
  return s;
}

// Bytes as Valkey's sdscatrepr quotes them: "..." with C escapes, \xHH for other bytes.
std::string Repr(std::string_view s, size_t max) {
  std::string out = "\"";
  for (unsigned char ch : s.substr(0, max)) {
    switch (ch) {
      case '\\':
      case '"':
        out += '\\';
        out += static_cast<char>(ch);
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      default:
        if (isprint(ch)) {
          out += static_cast<char>(ch);
        } else {
          char hex[8];
          snprintf(hex, sizeof(hex), "\\x%02x", ch);
          out += hex;
        }
    }
  }
  return out + "\"";
}

bool ReadWholeFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace base
