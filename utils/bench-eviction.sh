#!/usr/bin/env bash
# bench-eviction.sh -- maxmemory eviction under a cache-aside Zipf load, our server against
# Debian's redis-server 7.0, side by side in one run, reported as ratios (ours / theirs) because
# the machine is shared and noisy.
#
#   utils/bench-eviction.sh [--quick]
#
# One standalone server of each kind, started per policy (POLICIES, allkeys-lru then
# allkeys-lfu) with --maxmemory MAXMEMORY --maxmemory-policy POLICY (and bench-lib's --save ''
# --appendonly no), on free loopback ports. The load is utils/evict-load.cc, a small C++ client
# (raw sockets, one connection, pipelined), built into $TMP with $CXX. A measurement on one
# server:
#   1. FLUSHALL;
#   2. warm-up fill: SET key:0 .. key:<KEYS-1> with VALUE_SIZE-byte values (pipeline
#      FILL_PIPELINE), several times maxmemory of data; INFO stats evicted_keys must have grown
#      (the fill must evict), else the run fails;
#   3. the measured mix: OPS operations, GET with probability GET_RATIO else SET, keys drawn from
#      a Zipf(ZIPF) distribution over the KEYS keys (the same sequence on both servers: the seed
#      is the round number); a GET that returns nil is followed by a SET of that key (cache-aside
#      fill), on top of the OPS operations; PIPELINE commands per batch.
# A round is one measurement per server, ours first in odd rounds, theirs first in even ones;
# ROUNDS rounds per policy, medians reported.
#
# Rows per policy (median over the rounds):
#   mix ops/s              commands answered per second in the mix, fills included
#                          (target: ours / theirs >= 1.0)
#     per server CPU-s     the same commands per second of the server's main-thread CPU time
#                          (/proc/PID/schedstat), which the machine's noise moves less
#   hit rate               hits / GETs in the mix; the "ratio" column is ours - theirs in
#                          percentage points (target: ours >= 0.95 x theirs, i.e. within 5% of
#                          redis's hit rate)
#   fill SET/s (evicting)  the warm-up fill's SETs per second (informational)
#   evicted in fill / mix  INFO stats evicted_keys grown during the fill / the mix
#   used_memory after mix  INFO memory used_memory, bytes
#   used_memory_rss ...    INFO memory used_memory_rss, bytes (what the process really holds;
#                          used_memory is each server's own count, and the two count differently)
#   keys after mix         DBSIZE
#
# Exits 1 on a setup failure (a binary missing, the client not compiling, a server that does
# not start or dies, a fill that does not evict, a client failure); never because of a speed.
#
# Environment (defaults; with --quick):
#   MAXMEMORY (100mb; 25mb), KEYS (2000000; 500000), OPS (2000000; 500000), VALUE_SIZE (100),
#   PIPELINE (16), FILL_PIPELINE (64), ZIPF (0.99), GET_RATIO (0.9), ROUNDS (3),
#   POLICIES (allkeys-lru,allkeys-lfu), OURS (src/valkey-server),
#   THEIRS (/usr/bin/redis-server), OURS_ARGS / THEIRS_ARGS (extra server arguments,
#   word-split), CXX (g++).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=utils/bench-lib.sh disable=SC1091
. utils/bench-lib.sh
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
CXX=${CXX:-g++}
bl_quick_arg "$@"
MAXMEMORY=${MAXMEMORY:-$(q 100mb 25mb)}
KEYS=${KEYS:-$(q 2000000 500000)}
OPS=${OPS:-$(q 2000000 500000)}
VALUE_SIZE=${VALUE_SIZE:-100}
PIPELINE=${PIPELINE:-16}
FILL_PIPELINE=${FILL_PIPELINE:-64}
ZIPF=${ZIPF:-0.99}
GET_RATIO=${GET_RATIO:-0.9}
ROUNDS=${ROUNDS:-3}
POLICIES=${POLICIES:-allkeys-lru,allkeys-lfu}

log() { printf '%s\n' "$*" >&2; }
die() { log "setup failed: $*"; exit 1; }

for v in KEYS OPS VALUE_SIZE PIPELINE FILL_PIPELINE ROUNDS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[[ $MAXMEMORY =~ ^[1-9][0-9]*(kb|mb|gb)?$ ]] || die "MAXMEMORY must be like 100mb (got '$MAXMEMORY')"
[[ $ZIPF =~ ^[0-9]+([.][0-9]*)?$ ]] || die "ZIPF must be a number (got '$ZIPF')"
[[ $GET_RATIO =~ ^(0([.][0-9]*)?|1([.]0*)?)$ ]] || die "GET_RATIO must be in [0, 1] (got '$GET_RATIO')"
RUN_POLICIES=()
for p in ${POLICIES//,/ }; do
  case $p in
    allkeys-lru | allkeys-lfu | allkeys-random) RUN_POLICIES+=("$p") ;;
    *) die "unsupported policy '$p' (allkeys-lru, allkeys-lfu, allkeys-random)" ;;
  esac
done
((${#RUN_POLICIES[@]})) || die "POLICIES is empty"

# MAXMEMORY in bytes, and the fill's payload (key name + value bytes) as a multiple of it.
MAXMEM_BYTES=$(awk -v m="$MAXMEMORY" 'BEGIN {
  n = m + 0; u = substr(m, length(n "") + 1)
  print n * (u == "kb" ? 1024 : u == "mb" ? 1048576 : u == "gb" ? 1073741824 : 1) }')
DATA_X=$(awk -v k="$KEYS" -v v="$VALUE_SIZE" -v m="$MAXMEM_BYTES" 'BEGIN {
  # key:<i> for 0 <= i < k: 4 + digits(i) bytes each
  for (lo = 0; lo < k; lo = hi) { hi = (lo == 0 ? 10 : lo * 10); n = (hi < k ? hi : k) - lo; d += n * (4 + length(lo "")) }
  printf "%.1f\n", (d + k * v) / m }')
awk -v x="$DATA_X" 'BEGIN { exit !(x < 2) }' &&
  log "warning: the fill's payload is only ${DATA_X}x maxmemory (keep it >= 2x)"

[ -x "$OURS" ] || die "no server binary at $OURS"
[ -x "$THEIRS" ] || die "no server binary at $THEIRS"
command -v redis-cli >/dev/null || die "no redis-cli"
command -v "$CXX" >/dev/null || die "no $CXX"

bl_init bench-eviction
TMP=$BL_TMP
LOAD=$TMP/evict-load
"$CXX" -O2 -std=c++17 -o "$LOAD" utils/evict-load.cc || die "cannot build utils/evict-load.cc"

T_START=$(bl_now)
log "ours:   $OURS"
log "theirs: $THEIRS"
log "maxmemory $MAXMEMORY, $KEYS keys x $VALUE_SIZE-byte values (payload ${DATA_X}x maxmemory)," \
  "$OPS ops, pipeline $PIPELINE, zipf $ZIPF, get-ratio $GET_RATIO, $ROUNDS rounds"

declare -A S  # S[policy,side,metric]: samples, space separated
add() { S[$1,$2,$3]="${S[$1,$2,$3]:-} $4"; }

# main-thread CPU time of server SIDE in nanoseconds
cpu_ns() {
  local pid f
  pid=$(bl_pid "$1")
  if read -r f _ </proc/"$pid"/schedstat 2>/dev/null; then echo "$f"; return; fi
  awk '{ sub(/.*\) /, ""); print ($12 + $13) * 10000000 }' /proc/"$pid"/stat
}

field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# measure POLICY SIDE ROUND: one FLUSHALL, fill and mix on one server.
measure() {
  local pol=$1 side=$2 r=$3 port ev0 ev1 ev2 out c0 c1 secs ops
  bl_alive "$side" || die "$side: the server is gone; log tail: $(tail -n 5 "$TMP/srv-$side/server.log")"
  port=$(bl_port "$side")
  [ "$(bl_cli "$side" flushall)" = OK ] || die "$side: FLUSHALL failed"
  ev0=$(bl_info_field "$side" stats evicted_keys)
  out=$("$LOAD" --port "$port" --fill --keys "$KEYS" --value-size "$VALUE_SIZE" \
    --pipeline "$FILL_PIPELINE" --seed "$r") || die "$side: the fill failed"
  ev1=$(bl_info_field "$side" stats evicted_keys)
  [ "$(field errors "$out")" = 0 ] || die "$side: the fill got error replies: $out"
  [[ $ev0 =~ ^[0-9]+$ && $ev1 =~ ^[0-9]+$ ]] || die "$side: no evicted_keys in INFO stats"
  ((ev1 > ev0)) || die "$side: the fill of $KEYS keys evicted nothing (evicted_keys $ev0 -> $ev1)"
  add "$pol" "$side" fill "$(field ops_per_sec "$out")"
  add "$pol" "$side" ev_fill $((ev1 - ev0))
  log "  $side round $r fill: $out, evicted $((ev1 - ev0)), keys $(bl_cli "$side" dbsize)"

  c0=$(cpu_ns "$side")
  out=$("$LOAD" --port "$port" --keys "$KEYS" --ops "$OPS" --pipeline "$PIPELINE" \
    --value-size "$VALUE_SIZE" --zipf "$ZIPF" --get-ratio "$GET_RATIO" --seed "$r") ||
    die "$side: the mix failed"
  c1=$(cpu_ns "$side")
  ev2=$(bl_info_field "$side" stats evicted_keys)
  ops=$(field ops "$out")
  secs=$(field seconds "$out")
  add "$pol" "$side" ops "$(field ops_per_sec "$out")"
  add "$pol" "$side" cpu "$(awk -v n="$ops" -v c=$((c1 - c0)) 'BEGIN { if (c > 0) printf "%.0f\n", n / (c / 1e9) }')"
  add "$pol" "$side" hit "$(field hit_rate "$out")"
  add "$pol" "$side" err "$(field errors "$out")"
  add "$pol" "$side" ev_mix $((ev2 - ev1))
  add "$pol" "$side" mem "$(bl_info_field "$side" memory used_memory)"
  add "$pol" "$side" rss "$(bl_info_field "$side" memory used_memory_rss)"
  add "$pol" "$side" keys "$(bl_cli "$side" dbsize)"
  log "  $side round $r mix:  $out, evicted $((ev2 - ev1)), ${secs}s"
}

# order R: ours first in odd rounds, theirs first in even ones.
order() { if (($1 % 2)); then echo ours theirs; else echo theirs ours; fi; }

for pol in "${RUN_POLICIES[@]}"; do
  log "[$pol]"
  # shellcheck disable=SC2086  # *_ARGS are word-split on purpose
  bl_start ours "$OURS" --maxmemory "$MAXMEMORY" --maxmemory-policy "$pol" ${OURS_ARGS:-} ||
    die "ours did not start"
  # shellcheck disable=SC2086
  bl_start theirs "$THEIRS" --maxmemory "$MAXMEMORY" --maxmemory-policy "$pol" ${THEIRS_ARGS:-} ||
    die "theirs did not start"
  VERSION_OURS=$(bl_version ours)
  VERSION_THEIRS=$(bl_version theirs)
  for side in ours theirs; do
    got=$(bl_cli "$side" config get maxmemory-policy | tail -n 1)
    [ "$got" = "$pol" ] || die "$side: maxmemory-policy is '$got', expected '$pol'"
    got=$(bl_cli "$side" config get maxmemory | tail -n 1)
    [ "$got" = "$MAXMEM_BYTES" ] || die "$side: maxmemory is '$got', expected $MAXMEM_BYTES"
  done
  for r in $(seq 1 "$ROUNDS"); do
    for side in $(order "$r"); do measure "$pol" "$side" "$r"; done
  done
  bl_stop ours
  bl_stop theirs
done

# ---------------------------------------------------------------------------------------------
ROW_FMT='%-26s %14s %14s %9s   %s\n'
# shellcheck disable=SC2059  # one format for the header and the rows
trow() { printf "$ROW_FMT" "$@"; }
# shellcheck disable=SC2086  # the samples are space separated
med() { bl_median ${S[$1,$2,$3]:-}; }
info_row() { trow "$1" "$(med "$2" ours "$3")" "$(med "$2" theirs "$3")" "-" "-"; }
mark() { if awk -v c="$1" 'BEGIN { exit !c }'; then echo OK; else echo MISS; fi; }

echo
echo "versions: ours=$VERSION_OURS  theirs=$VERSION_THEIRS"
echo "maxmemory $MAXMEMORY; fill: SET key:0..$((KEYS - 1)), $VALUE_SIZE-byte values" \
  "(payload ${DATA_X}x maxmemory); mix: $OPS ops, zipf $ZIPF, get-ratio $GET_RATIO," \
  "pipeline $PIPELINE, misses filled (cache-aside); median of $ROUNDS rounds"
echo "note: shared, noisy machine (2 cores, other work); compare the ratios, not the absolutes."
for pol in "${RUN_POLICIES[@]}"; do
  echo
  echo "-- $pol"
  trow "row" "ours" "theirs" "ratio" "target"
  a=$(med "$pol" ours ops); b=$(med "$pol" theirs ops); ratio=$(bl_ratio "$a" "$b")
  ok=MISS; [ "$ratio" != n/a ] && ok=$(mark "$ratio >= 1.0")
  trow "mix ops/s" "${a:--}" "${b:--}" "$ratio" ">= 1.00  $ok"
  bl_ratio_row "$ROW_FMT" "  per server CPU-s" "${S[$pol,ours,cpu]:-}" "${S[$pol,theirs,cpu]:-}" "-"
  a=$(med "$pol" ours hit); b=$(med "$pol" theirs hit)
  if [ -n "$a" ] && [ -n "$b" ]; then
    d=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.2fpp\n", (a - b) * 100 }')
    lim=$(awk -v b="$b" 'BEGIN { printf "%.2f\n", b * 5 }')
    ok=$(mark "$a >= $b * 0.95")
  else
    d=n/a; lim="?"; ok=MISS
  fi
  trow "hit rate" "${a:--}" "${b:--}" "$d" ">= -${lim}pp (5% of theirs)  $ok"
  bl_ratio_row "$ROW_FMT" "fill SET/s (evicting)" "${S[$pol,ours,fill]:-}" "${S[$pol,theirs,fill]:-}" "-"
  info_row "evicted in fill" "$pol" ev_fill
  info_row "evicted in mix" "$pol" ev_mix
  info_row "used_memory after mix" "$pol" mem
  info_row "used_memory_rss after mix" "$pol" rss
  info_row "keys after mix" "$pol" keys
  info_row "error replies in mix" "$pol" err
done
echo
echo "wall time $(bl_since "$T_START")s"
exit 0
