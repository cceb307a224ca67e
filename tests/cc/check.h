// Minimal test registry and assertions for the C++ unit tests (no external framework).
#pragma once
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace check {
struct Case {
  const char* name;
  std::function<void()> fn;
};
std::vector<Case>& Registry();
extern int failures;
struct Registrar {
  Registrar(const char* name, std::function<void()> fn) { Registry().push_back({name, fn}); }
};
}  // namespace check

#define TEST_CASE(name)                                  \
  static void name();                                    \
  static check::Registrar name##_registrar(#name, name); \
  static void name()

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check::failures++;                                                         \
      return;                                                                    \
    }                                                                            \
  } while (0)

#define CHECK_EQ(a, b)                                                                      \
  do {                                                                                      \
    auto va = (a);                                                                          \
    auto vb = (b);                                                                          \
    if (!(va == vb)) {                                                                      \
      std::ostringstream os;                                                                \
      os << va << " != " << vb;                                                             \
      fprintf(stderr, "  %s:%d: CHECK_EQ(%s, %s) failed: %s\n", __FILE__, __LINE__, #a, #b, \
              os.str().c_str());                                                            \
      check::failures++;                                                                    \
      return;                                                                               \
    }                                                                                       \
  } while (0)
