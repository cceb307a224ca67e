#!/bin/sh
# `make fuzz`: replays every kept input of tests/fuzz/regress/<target>/, then fuzzes each target
# for the given number of seconds (default 10). Any failure stops the run with a non-zero status
# and leaves the input in $FUZZ_ARTIFACTS (default /tmp/valkey-fuzz-artifacts).
#
#   tests/fuzz/run.sh [seconds] [target...]
set -e
cd "$(dirname "$0")/../.."
secs=${1:-10}
[ $# -gt 0 ] && shift
art=${FUZZ_ARTIFACTS:-/tmp/valkey-fuzz-artifacts}
mkdir -p "$art"
targets=${*:-$(./src/valkey-fuzz list)}
for t in $targets; do
  if [ -d "tests/fuzz/regress/$t" ]; then
    ./src/valkey-fuzz "$t" --artifacts "$art" --replay "tests/fuzz/regress/$t"
  fi
done
for t in $targets; do
  ./src/valkey-fuzz "$t" --seconds "$secs" --artifacts "$art"
done
# The harness must find a planted bug: an overflow behind four nested comparisons.
rm -f "$art"/crash-selftest-*
if ./src/valkey-fuzz selftest --runs 20000000 --seed 1 --artifacts "$art" >/dev/null 2>"$art/selftest.log"; then
  echo "fuzz selftest: the planted bug was NOT found" >&2
  exit 1
fi
if ! grep -q "heap-buffer-overflow" "$art/selftest.log" || ! cat "$art"/crash-selftest-* | grep -qa "^bug!"; then
  echo "fuzz selftest: no report or no kept input for the planted bug" >&2
  tail -20 "$art/selftest.log" >&2
  exit 1
fi
echo "fuzz selftest: the planted bug was found and its input kept"
