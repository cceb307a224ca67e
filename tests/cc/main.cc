// Runs every registered C++ unit test; prints "N passed, N failed" like the Tcl runner.
#include <cstdio>

#include "check.h"

namespace check {
std::vector<Case>& Registry() {
  static std::vector<Case> r;
  return r;
}
int failures = 0;
}  // namespace check

int main() {
  int passed = 0, failed = 0;
  for (auto& c : check::Registry()) {
    int before = check::failures;
    c.fn();
    if (check::failures == before) {
      passed++;
      printf("[ok] %s\n", c.name);
    } else {
      failed++;
      printf("[err] %s\n", c.name);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
