#include "base/glob.h"

#include <utility>

namespace base {
namespace {

// Valkey compares bytes as (signed) char and folds with tolower() in the C locale.
int Lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
int Byte(char c) { return static_cast<signed char>(c); }

// A class starting at p ('['): returns where the pattern goes on after it, and whether `c`
// (if given) is in it. The class's extent depends on the pattern only.
const char* ScanClass(const char* p, const char* pe, const char* c, bool nocase, bool* in) {
  const char* q = p + 1;
  bool negate = q < pe && *q == '^';
  if (negate) q++;
  bool hit = false;
  while (true) {
    if (pe - q >= 2 && *q == '\\') {  // an escaped byte, compared exactly even with nocase
      q++;
      if (c && *q == *c) hit = true;
    } else if (q == pe) {  // unterminated: the class ends with the pattern
      if (in) *in = negate ? !hit : hit;
      return pe;
    } else if (*q == ']') {
      break;
    } else if (pe - q >= 3 && q[1] == '-') {  // swapped before folding, as Valkey does
      int lo = Byte(q[0]), hi = Byte(q[2]);
      if (lo > hi) std::swap(lo, hi);
      if (c) {
        int ch = Byte(*c);
        if (nocase) lo = Lower(lo), hi = Lower(hi), ch = Lower(ch);
        if (ch >= lo && ch <= hi) hit = true;
      }
      q += 2;
    } else if (c && (nocase ? Lower(Byte(*q)) == Lower(Byte(*c)) : *q == *c)) {
      hit = true;
    }
    q++;
  }
  if (in) *in = negate ? !hit : hit;
  return q + 1;
}

// Runs of '*' that have more pattern after them: each is one level of Valkey's recursion.
int InnerStarRuns(const char* p, const char* pe) {
  int runs = 0;
  bool last_star = false;
  while (p < pe) {
    if (*p == '*') {
      if (!last_star) runs++;
      last_star = true;
      p++;
      continue;
    }
    last_star = false;
    if (*p == '[')
      p = ScanClass(p, pe, nullptr, false, nullptr);
    else
      p += (*p == '\\' && pe - p >= 2) ? 2 : 1;
  }
  return last_star ? runs - 1 : runs;
}

// Every token but '*' takes exactly one byte, so backtracking to the last '*' only is exact
// (and keeps `*a*a*a...b` against `aaaa...` quadratic at worst instead of exponential).
bool Match(const char* p, const char* pe, const char* s, const char* se, bool nocase) {
  const char* star_p = nullptr;
  const char* star_s = nullptr;
  while (s < se) {
    if (p < pe) {
      if (*p == '*') {
        while (p < pe && *p == '*') p++;
        if (p == pe) return true;
        star_p = p;
        star_s = s;
        continue;
      }
      bool ok;
      const char* next;
      if (*p == '?') {
        ok = true;
        next = p + 1;
      } else if (*p == '[') {
        next = ScanClass(p, pe, s, nocase, &ok);
      } else {
        const char* lit = (*p == '\\' && pe - p >= 2) ? p + 1 : p;
        ok = nocase ? Lower(Byte(*lit)) == Lower(Byte(*s)) : *lit == *s;
        next = lit + 1;
      }
      if (ok) {
        p = next;
        s++;
        continue;
      }
    }
    if (!star_p) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < pe && *p == '*') p++;
  return p == pe;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase) {
  const char* p = pattern.data();
  const char* pe = p + pattern.size();
  if (str.empty()) return pattern.empty();
  if (InnerStarRuns(p, pe) > kGlobMaxStarRuns) return false;
  return Match(p, pe, str.data(), str.data() + str.size(), nocase);
}

}  // namespace base
