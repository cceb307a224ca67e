#!/usr/bin/env bash
# Data-type benchmark: redis-benchmark rows for lists, sets, hashes and sorted sets, and memory
# of large values, for src/valkey-server and Debian's redis-server side by side in one run.
# Usage: utils/bench-types.sh [--quick] [--rows throughput|bitmap|sort|geo|hll|stream|memory|all]
# bitmap: SETBIT, GETBIT, BITFIELD on 100,000 keys of 512 bytes (redis-benchmark's random numbers
# are zero-padded, which no server takes as an offset, so they go in the key), and BITCOUNT,
# BITPOS, BITOP on a 1 MB bitmap; redis-benchmark with the command line, -c 50 -P 1.
# hll: PFADD into 10,000 sparse keys and into one dense key, PFCOUNT answered from the cache,
# PFCOUNT and PFMERGE of two dense keys (a full merge and estimate every time).
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
    *) echo "usage: $0 [--quick] [--rows throughput|bitmap|sort|geo|hll|stream|memory|all]" >&2; exit 2 ;;
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

if [ "$ROWS" = all ] || [ "$ROWS" = throughput ]; then
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

# cmd_rps NAME N RANDOM ARGS...: redis-benchmark of one command line, requests per second.
cmd_rps() {
  local name=$1 n=$2 r=$3; shift 3
  "$BL_BENCH" -h 127.0.0.1 -p "$(bl_port "$name")" -n "$n" -c 50 -r "$r" -q --csv "$@" 2>/dev/null |
    awk -F'"' '$4 ~ /^[0-9.]+$/ {printf "%.0f\n", $4; exit}'
}

# cmdrow LABEL N RANDOM COMMAND...: one command line on both, median of REPS, ratio row.
cmdrow() {
  local label=$1 n=$2 rnd=$3 o=() th=() r a b ratio mark; shift 3
  for r in $(seq 1 "$REPS"); do
    if [ $((r % 2)) = 1 ]; then
      o+=("$(cmd_rps ours "$n" "$rnd" "$@")"); th+=("$(cmd_rps theirs "$n" "$rnd" "$@")")
    else
      th+=("$(cmd_rps theirs "$n" "$rnd" "$@")"); o+=("$(cmd_rps ours "$n" "$rnd" "$@")")
    fi
  done
  a=$(bl_median "${o[@]}"); b=$(bl_median "${th[@]}"); ratio=$(bl_ratio "$a" "$b")
  mark=OK; awk -v r="$ratio" 'BEGIN{exit !(r+0 < 1.0)}' && mark=MISS
  row "$label" "$a" "$b" "$ratio" "ratio >= 1.00  $mark"
}

if [ "$ROWS" = all ] || [ "$ROWS" = bitmap ]; then
  echo
  echo "-- bitmaps (redis-benchmark -c 50 -P 1, median of $REPS, req/s; 1 MB bitmap)"
  row test ours theirs ratio target
  for s in ours theirs; do
    bl_cli $s del bits zeros bf dst >/dev/null
    bl_cli $s setbit bits 7999999 1 >/dev/null
    bl_cli $s setbit zeros 7999999 0 >/dev/null
  done
  cmdrow "setbit" "$N" 100000 setbit "bit:__rand_int__" 4095 1
  cmdrow "getbit" "$N" 100000 getbit "bit:__rand_int__" 4095
  cmdrow "bitfield incrby u16" "$N" 100000 bitfield "bit:__rand_int__" incrby u16 "#100" 1
  cmdrow "bitcount 1 MB" $((N / 10)) 1 bitcount bits
  cmdrow "bitpos 1 in 1 MB zeros" $((N / 10)) 1 bitpos zeros 1
  cmdrow "bitop and 1 MB" $((N / 50)) 1 bitop and dst bits zeros
fi

if [ "$ROWS" = all ] || [ "$ROWS" = sort ]; then
  echo
  echo "-- SORT (redis-benchmark -c 50 -P 1, median of $REPS, req/s)"
  row test ours theirs ratio target
  for s in ours theirs; do
    bl_cli $s del sl ss sbig >/dev/null
    for i in $(seq 1 100); do
      echo "RPUSH sl $(( (i * 7919) % 1000 ))"
      echo "SADD ss member:$(( (i * 7919) % 1000 ))"
      echo "SET w_$(( (i * 7919) % 1000 )) $i"
    done | bl_cli $s >/dev/null
    seq 1 1000 | sed 's/^/RPUSH sbig /' | bl_cli $s >/dev/null
  done
  cmdrow "sort 100 numbers" $((N / 5)) 1 sort sl
  cmdrow "sort 100 alpha" $((N / 5)) 1 sort ss alpha
  cmdrow "sort 100 by w_* get #" $((N / 10)) 1 sort sl by "w_*" get "#" get "w_*"
  cmdrow "sort 1000 limit 0 10" $((N / 20)) 1 sort sbig limit 0 10
fi

gen_geo() {  # geo set NAME of N points in [13, 14) x [38, 39) (about 87 x 111 km), 1000 per command
  local name=$1 n=$2
  LC_ALL=C awk -v n="$n" -v k="$name" 'BEGIN { srand(7); for (c = 0; c < n / 1000; c++) {
    printf "*3002\r\n$6\r\nGEOADD\r\n$%d\r\n%s\r\n", length(k), k;
    for (f = 0; f < 1000; f++) { lon = sprintf("%.6f", 13 + rand()); lat = sprintf("%.6f", 38 + rand());
      m = sprintf("m:%012d", c * 1000 + f);
      printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(m), m } } }'
}

if [ "$ROWS" = all ] || [ "$ROWS" = geo ]; then
  echo
  echo "-- geo (redis-benchmark -c 50 -P 1, median of $REPS, req/s; searches in 100,000 points)"
  row test ours theirs ratio target
  for s in ours theirs; do
    bl_cli $s del geo geoadd >/dev/null
    gen_geo geo 100000 >"$BL_TMP/geo.resp"
    bl_pipe_load $s "$BL_TMP/geo.resp" 100 || exit 1
  done
  cmdrow "geoadd" "$N" 100000 geoadd geoadd "13.__rand_int__" "38.__rand_int__" "m:__rand_int__"
  cmdrow "geosearch radius 1 km" $((N / 5)) 100000 geosearch geo fromlonlat "13.__rand_int__" \
    "38.__rand_int__" byradius 1 km asc
  cmdrow "geosearch box count 10" $((N / 5)) 100000 geosearch geo fromlonlat "13.__rand_int__" \
    "38.__rand_int__" bybox 4 4 km count 10 withdist
  cmdrow "georadius 5 km count 10" $((N / 10)) 100000 georadius geo "13.__rand_int__" \
    "38.__rand_int__" 5 km count 10
  cmdrow "geodist" "$N" 100000 geodist geo "m:__rand_int__" m:000000000001
  cmdrow "geopos" "$N" 100000 geopos geo "m:__rand_int__"
fi

if [ "$ROWS" = all ] || [ "$ROWS" = hll ]; then
  echo
  echo "-- HyperLogLog (redis-benchmark -c 50 -P 1, median of $REPS, req/s; dense keys of 20,000)"
  row test ours theirs ratio target
  for s in ours theirs; do
    bl_cli $s del hd hd2 hm >/dev/null
    for k in hd hd2; do
      for c in $(seq 0 19); do
        echo "PFADD $k $(seq -f "$k:$c:%g" 1 1000 | tr '\n' ' ')"
      done
    done | bl_cli $s >/dev/null
  done
  cmdrow "pfadd 10k sparse keys" "$N" 10000 pfadd "hll:__rand_int__" "e:__rand_int__"
  cmdrow "pfadd dense" "$N" 100000000 pfadd hd "__rand_int__"
  cmdrow "pfcount cached" "$N" 1 pfcount hd
  cmdrow "pfcount 2 dense keys" $((N / 10)) 1 pfcount hd hd2
  cmdrow "pfmerge 2 dense" $((N / 10)) 1 pfmerge hm hd hd2
fi

gen_stream() {  # stream NAME of N entries with IDs 1-0 .. N-0 and two small fields, 1 per command
  LC_ALL=C awk -v k="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) { id = i "-0"; v = sprintf("%d", i % 1000);
    printf "*7\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$4\r\nuser\r\n$%d\r\n%s\r\n$6\r\naction\r\n$5\r\nclick\r\n",
      length(k), k, length(id), id, length(v), v } }'
}

if [ "$ROWS" = all ] || [ "$ROWS" = stream ]; then
  echo
  echo "-- streams (redis-benchmark -c 50 -P 1, median of $REPS, req/s; reads in 100,000 entries)"
  row test ours theirs ratio target
  for s in ours theirs; do
    bl_cli $s del xs xt xbig >/dev/null
    gen_stream xbig 100000 >"$BL_TMP/stream.resp"
    bl_pipe_load $s "$BL_TMP/stream.resp" 100000 || exit 1
  done
  cmdrow "xadd *" "$N" 100000 xadd xs "*" user "__rand_int__" action click
  cmdrow "xadd maxlen ~ 1000 *" "$N" 100000 xadd xt maxlen "~" 1000 "*" user "__rand_int__"
  cmdrow "xrange count 10" $((N / 2)) 100000 xrange xbig "__rand_int__" + count 10
  cmdrow "xrevrange count 10" $((N / 2)) 100000 xrevrange xbig "__rand_int__" - count 10
  cmdrow "xread count 10" $((N / 2)) 100000 xread count 10 streams xbig "__rand_int__"
  cmdrow "xlen" "$N" 1 xlen xbig
fi

# mem_row NAME GENERATOR: loads the generated RESP stream into both and reports used_memory growth.
mem_row() {
  local name=$1 gen=$2 file="$BL_TMP/mem.resp" a b
  $gen >"$file"
  local count; count=$(grep -c '^\*' "$file")
  for s in ours theirs; do
    bl_cli $s flushall sync >/dev/null
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

# coll_row LABEL TYPE KEYS MEMBERS [SHAPE [TARGET]]: used_memory growth per member, ours and
# theirs; SHAPE "seq" (members "m:%05d") or "rand" (8 random hex digits, sharing no prefix);
# TARGET the highest ratio that meets the row (0.80), or "-" for a row only reported.
coll_row() {
  local label=$1 t=$2 nk=$3 nm=$4 shape=${5:-seq} target=${6:-0.80} file="$BL_TMP/coll.resp" s before after count
  gen_coll "$t" "$nk" "$nm" "$shape" >"$file"
  count=$(grep -c '^\*' "$file")
  declare -A per
  for s in ours theirs; do
    bl_cli $s flushall sync >/dev/null
    before=$(bl_info_field $s memory used_memory)
    bl_pipe_load $s "$file" "$count" || return
    after=$(bl_info_field $s memory used_memory)
    per[$s]=$(awk -v a="$after" -v b="$before" -v n="$((nk * nm))" 'BEGIN{printf "%.1f", (a - b) / n}')
  done
  bl_cli ours flushall sync >/dev/null; bl_cli theirs flushall sync >/dev/null
  local ratio mark=OK; ratio=$(bl_ratio "${per[ours]}" "${per[theirs]}")
  if [ "$target" = - ]; then
    row "$label" "${per[ours]}" "${per[theirs]}" "$ratio" "(reported)"
  else
    awk -v r="$ratio" -v t="$target" 'BEGIN{exit !(r+0 > t+0)}' && mark=MISS
    row "$label" "${per[ours]}" "${per[theirs]}" "$ratio" "ratio <= $target  $mark"
  fi
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

# gen_coll TYPE KEYS MEMBERS SHAPE: KEYS collections of MEMBERS small members each, 100 members
# per command. seq: members "m:%05d", hash values "v:%05d", zset scores the member's number;
# rand: members and values of 8 random hex digits (the same stream each run), which share no
# prefix with one another.
gen_coll() {
  LC_ALL=C awk -v t="$1" -v n="$2" -v m="$3" -v shape="${4:-seq}" 'BEGIN {
    srand(1)
    cmd = (t == "hash") ? "HSET" : (t == "set") ? "SADD" : "ZADD"; per = (t == "set") ? 1 : 2
    for (k = 0; k < n; k++) for (c = 0; c < m; c += 100) {
      cnt = (m - c < 100) ? m - c : 100
      key = sprintf("%s:%05d", t, k)
      printf "*%d\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", 2 + per * cnt, length(cmd), cmd, length(key), key
      for (f = c; f < c + cnt; f++) {
        if (t == "zset") printf "$%d\r\n%d\r\n", length(f ""), f
        if (shape == "rand") printf "$8\r\n%04x%04x\r\n", int(rand() * 65536), int(rand() * 65536)
        else printf "$7\r\nm:%05d\r\n", f
        if (t == "hash") {
          if (shape == "rand") printf "$8\r\n%04x%04x\r\n", int(rand() * 65536), int(rand() * 65536)
          else printf "$7\r\nv:%05d\r\n", f
        }
      } } }'
}

gen_bigstream() {  # 1 stream of 1,000,000 entries
  gen_stream bigstream $([ $QUICK = 1 ] && echo 200000 || echo 1000000)
}
gen_biggeo() {  # 1 geo set of 1,000,000 members, 1000 per command
  gen_geo biggeo $([ $QUICK = 1 ] && echo 200000 || echo 1000000)
}

if [ "$ROWS" = all ] || [ "$ROWS" = memory ]; then
  echo
  echo "-- memory (INFO used_memory growth, bytes)"
  row data ours theirs ratio target
  mem_row "100k hashes x 10 fields" gen_hashes
  mem_row "1 hash x 1M fields" gen_bighash
  mem_row "1 zset x 1M members" gen_bigzset
  mem_row "1 geo set x 1M members" gen_biggeo
  mem_row "1 stream x 1M entries" gen_bigstream
  echo
  echo "-- memory per member of collections of small members (bytes; target ratio <= 0.80)"
  row data ours theirs ratio target
  for t in hash set zset; do
    for shape in "10000 100" "100 10000"; do
      read -r nk nm <<<"$shape"
      [ "$QUICK" = 1 ] && nk=$((nk / 10))
      coll_row "$nk $t x $nm members" "$t" "$nk" "$nm"
    done
  done
  # Members that share no prefix: what the small encoding saves without front coding.
  for t in hash set zset; do
    nk=$([ "$QUICK" = 1 ] && echo 1000 || echo 10000)
    coll_row "$nk $t x 100 random" "$t" "$nk" 100 rand -
  done
fi
