#!/usr/bin/env bash
# bench-aof.sh -- the append-only file, our server against Debian's redis-server 7.0, side by side
# in one run, reported as ratios (ours / theirs) because the machine is shared and noisy.
#
#   utils/bench-aof.sh [--quick]
#
# Every server runs on a free loopback port in its own temp dir, with bench-lib's --save '' and
# the row's AOF settings on top (both with their default aof-use-rdb-preamble yes, appendonlydir,
# appendonly.aof and auto-aof-rewrite-percentage 100 / min-size 64mb); before a row is measured
# CONFIG GET appendonly / appendfsync and INFO persistence aof_enabled must show those settings.
#
# Rows (medians over ROUNDS rounds; a round is one measurement per server, ours first in odd
# rounds, theirs first in even ones):
#   SET everysec     --appendonly yes --appendfsync everysec; a fresh server (new temp dir) per
#                    measurement, then redis-benchmark -t set -P 16 -n N_EVERYSEC -r 1000000
#                    -d 100 (50 clients), requests per second (target: ours / theirs >= 1.0)
#   SET always       the same with --appendfsync always and -n N_ALWAYS (every write is synced
#                    before its reply, so a smaller N) (target: ours / theirs >= 1.0)
#     per server CPU-s   under both: the same requests per second of the server process's CPU
#                    time, all threads plus reaped children (/proc/PID/stat utime + stime +
#                    cutime + cstime), which the machine's noise moves less
#     auto rewrites  INFO persistence aof_rewrites grown during the benchmark (the default
#                    auto-aof-rewrite settings are in force on both)
#     AOF bytes      INFO persistence aof_current_size at the end of the benchmark
#   BGREWRITEAOF     --appendonly yes --appendfsync everysec, one server per side for all the
#                    rounds; a round on one server: FLUSHALL, fill with redis-benchmark -t set
#                    -P 16 -n REWRITE_KEYS*3/2 -r REWRITE_KEYS -d 100, wait until no rewrite is
#                    in progress or scheduled (the fill may have started an automatic one), then
#                    time BGREWRITEAOF until INFO persistence shows aof_rewrite_in_progress:0,
#                    aof_rewrite_scheduled:0 and aof_rewrites above its value before the command
#                    (polled every 20 ms), in seconds (target: ours / theirs <= 1.0). The time is
#                    what a client sees: it includes each server noticing its child's exit
#                    (redis 7.0 checks from serverCron, hz 10).
#     keys           DBSIZE after the fill; the run fails unless both sides are within 10%
#     base file bytes  the size of the base file in appendonlydir after the rewrite (its name,
#                    .base.rdb with the preamble, is shown under the table)
#     fill SET/s     the fill's requests per second (informational)
#   SET no AOF       reference: the SET everysec benchmark with -n N_NOAOF on a fresh server
#                    with --appendonly no (informational, ratio only)
#
# Exits 1 on a setup failure (a binary missing, a server that does not start or dies, a setting
# not in force, a benchmark or rewrite that fails or times out, fills that disagree); never
# because of a speed.
#
# Environment (defaults; with --quick):
#   ROWS (everysec,always,rewrite,noaof: the rows to run), N_EVERYSEC (1000000; 200000),
#   N_ALWAYS (100000; 20000), N_NOAOF (N_EVERYSEC), REWRITE_KEYS (1000000; 200000),
#   ROUNDS (3), REWRITE_TIMEOUT (seconds, 300), OURS (src/valkey-server),
#   THEIRS (/usr/bin/redis-server), OURS_ARGS / THEIRS_ARGS (extra server arguments,
#   word-split).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=utils/bench-lib.sh disable=SC1091
. utils/bench-lib.sh
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
bl_quick_arg "$@"
ROWS=${ROWS:-everysec,always,rewrite,noaof}
N_EVERYSEC=${N_EVERYSEC:-$(q 1000000 200000)}
N_ALWAYS=${N_ALWAYS:-$(q 100000 20000)}
N_NOAOF=${N_NOAOF:-$N_EVERYSEC}
REWRITE_KEYS=${REWRITE_KEYS:-$(q 1000000 200000)}
ROUNDS=${ROUNDS:-3}
REWRITE_TIMEOUT=${REWRITE_TIMEOUT:-300}
PIPELINE=16
VALUE_SIZE=100
KEYSPACE=1000000

log() { printf '%s\n' "$*" >&2; }
die() { log "setup failed: $*"; exit 1; }

for v in N_EVERYSEC N_ALWAYS N_NOAOF REWRITE_KEYS ROUNDS REWRITE_TIMEOUT; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
FILL_N=$((REWRITE_KEYS * 3 / 2))
ALL_ROWS=(everysec always rewrite noaof)
RUN_ROWS=()
for r in ${ROWS//,/ }; do
  [[ " ${ALL_ROWS[*]} " == *" $r "* ]] || die "unknown row '$r' (rows: ${ALL_ROWS[*]})"
  RUN_ROWS+=("$r")
done
((${#RUN_ROWS[@]})) || die "ROWS is empty"

[ -x "$OURS" ] || die "no server binary at $OURS"
[ -x "$THEIRS" ] || die "no server binary at $THEIRS"
command -v redis-cli >/dev/null || die "no redis-cli"
command -v redis-benchmark >/dev/null || die "no redis-benchmark"
CLK_TCK=$(getconf CLK_TCK 2>/dev/null) || CLK_TCK=100

bl_init bench-aof
TMP=$BL_TMP
T_START=$(bl_now)
log "ours:   $OURS"
log "theirs: $THEIRS"
log "rows ${RUN_ROWS[*]}; SET -P $PIPELINE -d $VALUE_SIZE -r $KEYSPACE: everysec n=$N_EVERYSEC," \
  "always n=$N_ALWAYS, no AOF n=$N_NOAOF; rewrite of $REWRITE_KEYS keys (fill n=$FILL_N); $ROUNDS rounds"

declare -A S  # S[row,side,metric]: samples, space separated
declare -A BASE_NAME VERSION
add() { S[$1,$2,$3]="${S[$1,$2,$3]:-} $4"; }
# shellcheck disable=SC2086  # the samples are space separated
med() { bl_median ${S[$1,$2,$3]:-}; }

bin_of() { if [ "$1" = ours ]; then echo "$OURS"; else echo "$THEIRS"; fi; }

# fresh SIDE [server args...]: stop SIDE if it runs, empty its temp dir, start it again (a new
# port is tried up to three times, in case the free one was taken meanwhile).
fresh() {
  local side=$1 extra; shift
  if [ "$side" = ours ]; then extra=${OURS_ARGS:-}; else extra=${THEIRS_ARGS:-}; fi
  for _ in 1 2 3; do
    bl_stop "$side"
    rm -rf "$TMP/srv-$side"
    # shellcheck disable=SC2086  # *_ARGS are word-split on purpose
    bl_start "$side" "$(bin_of "$side")" "$@" $extra && {
      VERSION[$side]=$(bl_version "$side")
      return 0
    }
  done
  die "$side did not start"
}

# settings SIDE APPENDONLY [APPENDFSYNC]: the AOF settings must be in force.
settings() {
  local side=$1 ao=$2 fs=${3:-} got want=0
  got=$(bl_cli "$side" config get appendonly | tail -n 1)
  [ "$got" = "$ao" ] || die "$side: appendonly is '$got', expected '$ao'"
  [ "$ao" = yes ] && want=1
  got=$(bl_info_field "$side" persistence aof_enabled)
  [ "$got" = "$want" ] || die "$side: INFO persistence aof_enabled is '$got', expected $want"
  if [ -n "$fs" ]; then
    got=$(bl_cli "$side" config get appendfsync | tail -n 1)
    [ "$got" = "$fs" ] || die "$side: appendfsync is '$got', expected '$fs'"
  fi
}

# cpu_ticks SIDE: utime + stime + cutime + cstime of the server process, in clock ticks
cpu_ticks() {
  awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' /proc/"$(bl_pid "$1")"/stat
}

# persistence SIDE: "in_progress scheduled rewrites" from one INFO persistence
persistence() {
  bl_cli "$1" info persistence 2>/dev/null | tr -d '\r' | awk -F: '
    $1 == "aof_rewrite_in_progress" { p = $2 }
    $1 == "aof_rewrite_scheduled" { s = $2 }
    $1 == "aof_rewrites" { n = $2 }
    END { print (p == "" ? "-" : p), (s == "" ? "-" : s), (n == "" ? "-" : n) }'
}

# wait_idle SIDE: until no rewrite is in progress or scheduled (REWRITE_TIMEOUT).
wait_idle() {
  local side=$1 deadline p s n
  deadline=$(($(date +%s) + REWRITE_TIMEOUT))
  while :; do
    read -r p s n <<<"$(persistence "$side")"
    [ "$p $s" = "0 0" ] && return 0
    bl_alive "$side" || die "$side: the server is gone; log tail: $(tail -n 5 "$TMP/srv-$side/server.log")"
    [ "$(date +%s)" -lt "$deadline" ] || die "$side: a rewrite still runs after ${REWRITE_TIMEOUT}s ($p $s $n)"
    sleep 0.02
  done
}

# measure_set ROW SIDE ROUND: a fresh server with the row's settings, one redis-benchmark run.
measure_set() {
  local row=$1 side=$2 r=$3 n rw0 rw1 c0 c1 rps keys size
  case $row in
    everysec) n=$N_EVERYSEC; fresh "$side" --appendonly yes --appendfsync everysec
              settings "$side" yes everysec ;;
    always)   n=$N_ALWAYS; fresh "$side" --appendonly yes --appendfsync always
              settings "$side" yes always ;;
    noaof)    n=$N_NOAOF; fresh "$side"
              settings "$side" no ;;
  esac
  rw0=$(bl_info_field "$side" persistence aof_rewrites)
  c0=$(cpu_ticks "$side")
  rps=$(bl_bench_rps "$side" set -P "$PIPELINE" -n "$n" -r "$KEYSPACE" -d "$VALUE_SIZE")
  bl_alive "$side" || die "$side: the server died in the $row benchmark; log tail: $(tail -n 5 "$TMP/srv-$side/server.log")"
  c1=$(cpu_ticks "$side")
  [ -n "$rps" ] || die "$side: redis-benchmark ($row, round $r) failed"
  rw1=$(bl_info_field "$side" persistence aof_rewrites)
  keys=$(bl_cli "$side" dbsize)
  if ! [[ $keys =~ ^[0-9]+$ ]] || ((keys == 0)); then
    die "$side: DBSIZE after the $row benchmark is '$keys'"
  fi
  add "$row" "$side" rps "$rps"
  add "$row" "$side" cpu "$(awk -v n="$n" -v c=$((c1 - c0)) -v hz="$CLK_TCK" \
    'BEGIN { if (c > 0) printf "%.0f\n", n / (c / hz) }')"
  if [ "$row" != noaof ]; then
    [ "$(bl_info_field "$side" persistence aof_last_write_status)" = ok ] ||
      die "$side: aof_last_write_status is not ok after the $row benchmark"
    size=$(bl_info_field "$side" persistence aof_current_size)
    add "$row" "$side" auto $((rw1 - rw0))
    add "$row" "$side" size "$size"
    log "  $side round $r: $rps req/s, $keys keys, $((rw1 - rw0)) auto rewrites, aof_current_size $size"
  else
    log "  $side round $r: $rps req/s, $keys keys"
  fi
  bl_stop "$side"
  rm -rf "$TMP/srv-$side"
}

# measure_rewrite SIDE ROUND: FLUSHALL, fill, time BGREWRITEAOF (the server is running).
measure_rewrite() {
  local side=$1 r=$2 rps keys rw0 p s n t0 secs out deadline dir base
  bl_alive "$side" || die "$side: the server is gone; log tail: $(tail -n 5 "$TMP/srv-$side/server.log")"
  wait_idle "$side"
  [ "$(bl_cli "$side" flushall)" = OK ] || die "$side: FLUSHALL failed"
  rps=$(bl_bench_rps "$side" set -P "$PIPELINE" -n "$FILL_N" -r "$REWRITE_KEYS" -d "$VALUE_SIZE")
  [ -n "$rps" ] || die "$side: the fill (round $r) failed"
  keys=$(bl_cli "$side" dbsize)
  if ! [[ $keys =~ ^[0-9]+$ ]] || ((keys <= REWRITE_KEYS / 2)); then
    die "$side: DBSIZE after the fill of $FILL_N SETs over $REWRITE_KEYS keys is '$keys'"
  fi
  wait_idle "$side"
  read -r p s rw0 <<<"$(persistence "$side")"
  [[ $rw0 =~ ^[0-9]+$ ]] || die "$side: no aof_rewrites in INFO persistence"
  deadline=$(($(date +%s) + REWRITE_TIMEOUT))
  t0=$(bl_now)
  out=$(bl_cli "$side" bgrewriteaof 2>&1)
  case $out in
    *"rewriting started"* | *"rewriting scheduled"*) ;;
    *) die "$side: BGREWRITEAOF answered '$out'" ;;
  esac
  while :; do
    read -r p s n <<<"$(persistence "$side")"
    [ "$p $s" = "0 0" ] && [[ $n =~ ^[0-9]+$ ]] && ((n > rw0)) && break
    bl_alive "$side" || die "$side: the server died in BGREWRITEAOF; log tail: $(tail -n 5 "$TMP/srv-$side/server.log")"
    [ "$(date +%s)" -lt "$deadline" ] || die "$side: BGREWRITEAOF not done after ${REWRITE_TIMEOUT}s ($p $s $n)"
    sleep 0.02
  done
  secs=$(bl_since "$t0")
  [ "$(bl_info_field "$side" persistence aof_last_bgrewrite_status)" = ok ] ||
    die "$side: aof_last_bgrewrite_status is not ok after BGREWRITEAOF"
  dir=$TMP/srv-$side/appendonlydir
  # the newest appendonly.aof.<seq>.base.<rdb|aof> (the rewrite deletes the older ones)
  base=$(find "$dir" -maxdepth 1 -name '*.base.*' -printf '%T@ %f\n' | sort -gr | awk 'NR == 1 { print $2 }')
  [ -n "$base" ] || die "$side: no base file in $dir after BGREWRITEAOF"
  BASE_NAME[$side]=$base
  add rewrite "$side" secs "$secs"
  add rewrite "$side" keys "$keys"
  add rewrite "$side" fill "$rps"
  add rewrite "$side" base "$(stat -c %s "$dir/$base")"
  log "  $side round $r: fill $rps req/s, $keys keys; BGREWRITEAOF ${secs}s;" \
    "appendonlydir: $(find "$dir" -maxdepth 1 -type f -printf '%f %s\n' | sort | paste -sd ';' -)"
}

# order R: ours first in odd rounds, theirs first in even ones.
order() { if (($1 % 2)); then echo ours theirs; else echo theirs ours; fi; }

label() {
  case $1 in
    everysec) echo "SET everysec (req/s)" ;;
    always) echo "SET always (req/s)" ;;
    rewrite) echo "BGREWRITEAOF (seconds)" ;;
    noaof) echo "SET no AOF (req/s)" ;;
  esac
}

for row in "${RUN_ROWS[@]}"; do
  log "[$(label "$row")]"
  if [ "$row" = rewrite ]; then
    for side in ours theirs; do
      fresh "$side" --appendonly yes --appendfsync everysec
      settings "$side" yes everysec
    done
    for r in $(seq 1 "$ROUNDS"); do
      for side in $(order "$r"); do measure_rewrite "$side" "$r"; done
    done
    bl_stop ours
    bl_stop theirs
    a=$(med rewrite ours keys); b=$(med rewrite theirs keys)
    awk -v a="$a" -v b="$b" 'BEGIN { d = a / b; exit !(d >= 0.9 && d <= 1.1) }' ||
      die "the fills disagree: DBSIZE ours $a, theirs $b (more than 10% apart)"
  else
    for r in $(seq 1 "$ROUNDS"); do
      for side in $(order "$r"); do measure_set "$row" "$side" "$r"; done
    done
  fi
done

# ---------------------------------------------------------------------------------------------
ROW_FMT='%-32s %14s %14s %7s   %s\n'
# shellcheck disable=SC2059  # one format for the header and the rows
trow() { printf "$ROW_FMT" "$@"; }
line() { bl_ratio_row "$ROW_FMT" "$1" "${S[$2,ours,$3]:-}" "${S[$2,theirs,$3]:-}" "${4:--}"; }
info_row() { trow "$1" "$(med "$2" ours "$3")" "$(med "$2" theirs "$3")" "-" "-"; }
# target_row LABEL ROW METRIC OP: the ratio of the medians against 1.0, marked OK or MISS
target_row() {
  local a b ratio ok=MISS
  a=$(med "$2" ours "$3"); b=$(med "$2" theirs "$3"); ratio=$(bl_ratio "$a" "$b")
  if [ "$ratio" != n/a ] && awk -v r="$ratio" -v op="$4" \
    'BEGIN { exit !(op == "<=" ? r <= 1.0 : r >= 1.0) }'; then ok=OK; fi
  trow "$1" "${a:--}" "${b:--}" "$ratio" "$4 1.00  $ok"
}

echo
echo "versions: ours=${VERSION[ours]:-?}  theirs=${VERSION[theirs]:-?}"
echo "redis-benchmark -t set -P $PIPELINE -c 50 -d $VALUE_SIZE -r $KEYSPACE: everysec -n $N_EVERYSEC," \
  "always -n $N_ALWAYS, no AOF -n $N_NOAOF (fresh server each); BGREWRITEAOF after FLUSHALL and" \
  "-n $FILL_N -r $REWRITE_KEYS; median of $ROUNDS rounds"
echo "note: shared, noisy machine (2 cores, other work); compare the ratios, not the absolutes."
trow "row" "ours" "theirs" "ratio" "target"
for row in "${RUN_ROWS[@]}"; do
  case $row in
    everysec | always)
      target_row "$(label "$row")" "$row" rps ">="
      line "  per server CPU-s" "$row" cpu
      info_row "  auto rewrites" "$row" auto
      line "  AOF bytes at the end" "$row" size ;;
    rewrite)
      target_row "$(label "$row")" rewrite secs "<="
      line "  keys (DBSIZE)" rewrite keys
      line "  base file bytes" rewrite base
      line "  fill SET/s (everysec)" rewrite fill ;;
    noaof)
      line "$(label "$row") (reference)" noaof rps
      line "  per server CPU-s" noaof cpu ;;
  esac
done
if [[ " ${RUN_ROWS[*]} " == *" rewrite "* ]]; then
  echo "base files: ours ${BASE_NAME[ours]:-?}, theirs ${BASE_NAME[theirs]:-?}"
fi
echo
echo "wall time $(bl_since "$T_START")s"
exit 0
