#!/usr/bin/env bash
# Data-type benchmark: redis-benchmark rows for lists, sets, hashes and sorted sets, and memory
# of large values, for src/valkey-server and Debian's redis-server side by side in one run.
# Usage: utils/bench-types.sh [--quick] [--rows throughput|memory|all]
# Targets: throughput ratio >= 1.0 per row; memory ratio <= 1.0 per row.
set -u
cd "$(dirname "$0")/.." || exit 1
. utils/bench-lib.sh

OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
REPS=${REPS:-3}
QUICK=0
ROWS=all
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --rows) ROWS=$2; shift ;;
    *) echo "usage: $0 [--quick] [--rows throughput|memory|all]" >&2; exit 2 ;;
  esac
  shift
done

bl_init bench-types
bl_start ours "$OURS" || exit 1
bl_start theirs "$THEIRS" || exit 1
echo "ours:   $(bl_version ours)"
echo "theirs: $(bl_version theirs)"

N=$([ $QUICK = 1 ] && echo 50000 || echo 300000)
row() { printf '%-26s %12s %12s %7s   %s\n' "$@"; }

if [ "$ROWS" != memory ]; then
  echo
  echo "-- throughput (redis-benchmark -c 50 -P 1, median of $REPS, req/s; n=$N)"
  row test ours theirs ratio target
  for t in lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange_100 lrange_600 mset; do
    n=$N
    case $t in lrange_600) n=$((N / 6)) ;; lrange_100) n=$((N / 2)) ;; esac
    o=(); th=()
    for r in $(seq 1 "$REPS"); do
      # zpopmin/lpop need data: the benchmark fills it in its own earlier rows; run zadd/lpush first.
      case $t in
        zpopmin) bl_bench_rps ours zadd -n "$n" -c 50 -r 100000 >/dev/null; bl_bench_rps theirs zadd -n "$n" -c 50 -r 100000 >/dev/null ;;
        lpop|rpop|lrange_100|lrange_600) bl_bench_rps ours lpush -n "$n" -c 50 >/dev/null; bl_bench_rps theirs lpush -n "$n" -c 50 >/dev/null ;;
        spop) bl_bench_rps ours sadd -n "$n" -c 50 -r 100000 >/dev/null; bl_bench_rps theirs sadd -n "$n" -c 50 -r 100000 >/dev/null ;;
      esac
      if [ $((r % 2)) = 1 ]; then
        o+=("$(bl_bench_rps ours "$t" -n "$n" -c 50 -r 100000)"); th+=("$(bl_bench_rps theirs "$t" -n "$n" -c 50 -r 100000)")
      else
        th+=("$(bl_bench_rps theirs "$t" -n "$n" -c 50 -r 100000)"); o+=("$(bl_bench_rps ours "$t" -n "$n" -c 50 -r 100000)")
      fi
    done
    a=$(bl_median "${o[@]}"); b=$(bl_median "${th[@]}"); ratio=$(bl_ratio "$a" "$b")
    mark=OK; awk -v r="$ratio" 'BEGIN{exit !(r+0 < 1.0)}' && mark=MISS
    row "$t" "$a" "$b" "$ratio" "ratio >= 1.00  $mark"
  done
fi

# mem_row NAME GENERATOR: loads the generated RESP stream into both and reports used_memory growth.
mem_row() {
  local name=$1 gen=$2 file="$BL_TMP/mem.resp" a b
  $gen >"$file"
  local count; count=$(grep -c '^\*' "$file")
  for s in ours theirs; do
    bl_cli $s flushall >/dev/null
    local before; before=$(bl_info_field $s memory used_memory)
    bl_pipe_load $s "$file" "$count" || return
    local after; after=$(bl_info_field $s memory used_memory)
    eval "mem_$s=$((after - before))"
  done
  a=$mem_ours; b=$mem_theirs
  local ratio; ratio=$(bl_ratio "$a" "$b")
  local mark=OK; awk -v r="$ratio" 'BEGIN{exit !(r+0 > 1.0)}' && mark=MISS
  row "$name" "$a" "$b" "$ratio" "ratio <= 1.00  $mark"
}

gen_hashes() {  # 100,000 hashes of 10 small fields
  local n=$([ $QUICK = 1 ] && echo 20000 || echo 100000)
  LC_ALL=C awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) { printf "*22\r\n$4\r\nHSET\r\n$11\r\nhash:%06d\r\n", i;
    for (f = 0; f < 10; f++) printf "$6\r\nfield%d\r\n$8\r\nval%05d\r\n", f, i % 100000 } }'
}
gen_bighash() {  # 1 hash of 1,000,000 fields, 1000 fields per command
  local n=$([ $QUICK = 1 ] && echo 200 || echo 1000)
  LC_ALL=C awk -v n="$n" 'BEGIN { for (c = 0; c < n; c++) { printf "*2002\r\n$4\r\nHSET\r\n$7\r\nbighash\r\n";
    for (f = 0; f < 1000; f++) { printf "$13\r\nfield:%07d\r\n$8\r\nv%07d\r\n", c * 1000 + f, f } } }'
}
gen_bigzset() {  # 1 sorted set of 1,000,000 members, 1000 per command
  local n=$([ $QUICK = 1 ] && echo 200 || echo 1000)
  LC_ALL=C awk -v n="$n" 'BEGIN { for (c = 0; c < n; c++) { printf "*2002\r\n$4\r\nZADD\r\n$7\r\nbigzset\r\n";
    for (f = 0; f < 1000; f++) { s = sprintf("%d", c * 1000 + f); printf "$%d\r\n%s\r\n$14\r\nmember:%07d\r\n", length(s), s, c * 1000 + f } } }'
}

if [ "$ROWS" != throughput ]; then
  echo
  echo "-- memory (INFO used_memory growth, bytes)"
  row data ours theirs ratio target
  mem_row "100k hashes x 10 fields" gen_hashes
  mem_row "1 hash x 1M fields" gen_bighash
  mem_row "1 zset x 1M members" gen_bigzset
fi
