#!/bin/sh
# The Tcl suite against an AddressSanitizer + UBSan build of the server, built apart in a temp
# copy of the tree (the normal build is untouched). Slow; not part of `make test`.
#
#   utils/asan-test.sh [test_helper options, e.g. --single tests/cluster/create.tcl]
#
# Sanitizer reports land in <tmp>/reports (printed at the end). Expected there: none, except
# the SEGV of the harness self-test, which kills a server with SIGSEGV on purpose. used_memory
# comes from ASan's allocator in this build, so maxmemory works as in the normal build; the
# whole suite is expected to pass.
set -e
cd "$(dirname "$0")/.."
T=$(mktemp -d /tmp/asan-test.XXXXXX)
cp -r Makefile src deps "$T"/
rm -rf "$T/src/.build" "$T/src/valkey-server" "$T/src/valkey-unit-tests"
make -C "$T" -j"$(nproc)" SANITIZE=address,undefined src/valkey-server >"$T/build.log"
mkdir -p "$T/reports"
ASAN_OPTIONS="abort_on_error=1:detect_leaks=0:log_path=$T/reports/asan" \
UBSAN_OPTIONS="print_stacktrace=1:log_path=$T/reports/ubsan" \
  tclsh8.6 tests/test_helper.tcl --server "$T/src/valkey-server" "$@" || true
echo "sanitizer reports in $T/reports:"
for f in "$T"/reports/*; do
  [ -e "$f" ] && grep -m1 -E "ERROR: AddressSanitizer|runtime error" "$f" | sed "s|^|  $(basename "$f"): |"
done
exit 0
