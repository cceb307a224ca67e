#!/bin/sh
# Long fuzzing run: at least RUNS (default 10,000,000) executions of every fuzz target, two
# targets at a time (one per core), each one's count printed. Builds src/valkey-fuzz first.
#
#   utils/fuzz-long.sh [runs] [target...]
set -e
cd "$(dirname "$0")/.."
runs=${1:-10000000}
[ $# -gt 0 ] && shift
make --no-print-directory -j"$(nproc)" src/valkey-fuzz >/dev/null
art=${FUZZ_ARTIFACTS:-/tmp/valkey-fuzz-artifacts}
mkdir -p "$art"
targets=${*:-$(./src/valkey-fuzz list)}
logs=$(mktemp -d /tmp/fuzz-long.XXXXXX)
fail=0
run() { ./src/valkey-fuzz "$1" --runs "$runs" --artifacts "$art" >"$logs/$1.out" 2>"$logs/$1.err"; }
set -- $targets
while [ $# -gt 0 ]; do
  a=$1; shift
  b=${1:-}; [ $# -gt 0 ] && shift
  run "$a" & pa=$!
  pb=
  if [ -n "$b" ]; then run "$b" & pb=$!; fi
  wait $pa || { fail=1; echo "$a FAILED:"; tail -40 "$logs/$a.err"; }
  if [ -n "$pb" ]; then wait $pb || { fail=1; echo "$b FAILED:"; tail -40 "$logs/$b.err"; }; fi
  for t in $a $b; do cat "$logs/$t.out"; done
done
exit $fail
