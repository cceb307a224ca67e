// Fuzz targets and the driver's interface to them (tests/fuzz/README.md).
//
// A target feeds one input to one decoder of untrusted bytes and checks what must hold for
// every input (no crash, no sanitizer report, no hang, and its own invariants: what it accepts
// re-encodes and decodes again). It aborts through FUZZ_CHECK when an invariant fails, so the
// driver keeps the input like any crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace fuzz {

struct Target {
  const char* name;
  void (*run)(const uint8_t* data, size_t size);
  std::vector<std::string> (*seeds)();  // valid inputs the mutations start from
  std::vector<std::string> dictionary;  // tokens worth inserting (keywords, magic bytes)
  size_t max_len;                       // inputs are cut to this size
  // The harness's own check: a planted bug the driver must find (not in `list`).
  bool planted_bug = false;
};

std::vector<Target>& Targets();
struct Registrar {
  explicit Registrar(Target t) { Targets().push_back(std::move(t)); }
};

}  // namespace fuzz

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", __FILE__, __LINE__, \
              #cond);                                                             \
      abort();                                                                    \
    }                                                                             \
  } while (0)
