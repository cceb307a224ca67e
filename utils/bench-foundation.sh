#!/usr/bin/env bash
# bench-foundation.sh -- side-by-side throughput and memory benchmark of our
# server against a reference redis-server.
#
# Usage: utils/bench-foundation.sh [--quick] [--rows throughput|memory|latency|all]
#
# Environment:
#   OURS=path      our server binary     (default: <repo>/src/valkey-server)
#   THEIRS=path    reference binary      (default: /usr/bin/redis-server)
#   REPS=n         repetitions per throughput row, median taken (default 3)
#   KEYS=n         keys for the memory rows (default 1000000, 200000 with --quick)
#   OURS_ARGS / THEIRS_ARGS   extra server arguments (word-split)
#   VERBOSE=1      print every individual sample
#   LAT_RATE=n     requests/s of the latency rows (default: half of theirs' SET -c50 -P1
#                  throughput, measured at the start of those rows)
#   LAT_SECS=s     seconds per latency sample (default 5, 2 with --quick)
#
# Latency rows (utils/paced-load.cc, built with g++): SETs then GETs paced at LAT_RATE/s over
# 50 connections, each latency counted from when its request was due, ours/theirs interleaved
# REPS times; p50/p99/p99.9 medians, and the lowest and highest of the per-repetition ratios.
# Then the same SETs with 10,000 more connections open and idle (both servers get
# --maxclients 10100 and the script raises its open-file limit for these rows).
#
# Both servers run at the same time on free loopback ports with --save ''
# --appendonly no; every throughput row is run ours/theirs interleaved
# (order alternating per repetition) REPS times and the median is reported, with
# the server's own CPU per request (from /proc) and redis-benchmark's p50 and p99.
# THEIRS=/tmp/valkey8/src/valkey-server compares against a Valkey 8 build.
# Always exits 0 once the run completes: missed targets are marked MISS.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=utils/bench-lib.sh
. "$HERE/bench-lib.sh"

OURS=${OURS:-$ROOT/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
REPS=${REPS:-3}
VERBOSE=${VERBOSE:-0}
QUICK=0
ROWS=all

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 ;;
        --rows) shift; ROWS=${1:-} ;;
        --rows=*) ROWS=${1#--rows=} ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
case $ROWS in throughput|memory|latency|all) ;; *) echo "bad --rows: $ROWS" >&2; exit 2 ;; esac

# Request counts, sized for ~2-4 s per row on redis-server 7.0 on a 2-core VM.
if [ "$QUICK" = 1 ]; then
    N_P1=50000; N_P16=600000; N_RAND=50000
    KEYS=${KEYS:-200000}
else
    N_P1=400000; N_P16=5000000; N_RAND=400000
    KEYS=${KEYS:-1000000}
fi

for tool in "$BL_CLI" "$BL_BENCH"; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done

bl_init bench-foundation
LAT_ARGS=()
if [ "$ROWS" = latency ] || [ "$ROWS" = all ]; then
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    LAT_ARGS=(--maxclients 10100)
    PACED=$BL_TMP/paced-load
    "${CXX:-g++}" -O2 -std=c++17 -o "$PACED" "$ROOT/utils/paced-load.cc" ||
        { echo "cannot build utils/paced-load.cc" >&2; exit 1; }
fi

# shellcheck disable=SC2086
bl_start ours "$OURS" "${LAT_ARGS[@]}" ${OURS_ARGS:-} || echo "WARNING: our server failed to start ($OURS); its columns will be n/a" >&2
# shellcheck disable=SC2086
bl_start theirs "$THEIRS" "${LAT_ARGS[@]}" ${THEIRS_ARGS:-} || echo "WARNING: reference server failed to start ($THEIRS)" >&2

ver_of() { if bl_alive "$1"; then bl_version "$1"; else echo "not running"; fi; }
echo "== bench-foundation $(date '+%Y-%m-%d %H:%M:%S')  $(nproc) cpus  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ours:   $OURS  [$(ver_of ours)]  port $(bl_port ours)"
echo "theirs: $THEIRS  [$(ver_of theirs)]  port $(bl_port theirs)"
echo

MISSES=0
fmt_row() { printf '%-26s %14s %14s %7s   %-33s %s\n' "$@"; }

# ---------------------------------------------------------------- throughput
# cpu_ticks NAME -> the server's user+system CPU so far, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$(bl_pid "$1")/stat" 2>/dev/null; }

# sample NAME TEST ARGS... -> "rps cpu_us_per_request p50_ms p99_ms" or "" (also if the
# server is dead). CPU is the server process's own, read from /proc around the run.
sample() {
    local name=$1 test=$2; shift 2
    bl_alive "$name" || return 0
    local c0 c1 out n=0 a prev=
    for a in "$@"; do [ "${prev:-}" = -n ] && n=$a; prev=$a; done
    c0=$(cpu_ticks "$name")
    out=$("$BL_BENCH" -h 127.0.0.1 -p "$(bl_port "$name")" -t "$test" -q --csv "$@" 2>/dev/null)
    c1=$(cpu_ticks "$name")
    awk -F'"' -v t="$(tr '[:lower:]' '[:upper:]' <<<"$test")" -v c="$((c1 - c0))" -v n="$n" \
        -v tk="$(getconf CLK_TCK)" '
        ($2==t || index($2, t " (")==1) && $4 ~ /^[0-9.]+$/ {
            printf "%.0f %.2f %s %s\n", $4, (n > 0 ? c / tk * 1e6 / n : 0), $10, $14; exit }' <<<"$out"
}

# field N VALUES... -> the Nth word of each value (1: rps, 2: cpu, 3: p50, 4: p99)
field() { local i=$1 v; shift; for v in "$@"; do awk -v i="$i" '{print $i}' <<<"$v"; done; }

# interleaved FN ARGS...: REPS samples of `FN ours ARGS...` and `FN theirs ARGS...`, the order
# alternating per repetition, into the arrays O and T.
interleaved() {
    local fn=$1 r; shift
    O=(); T=()
    for r in $(seq 1 "$REPS"); do
        if (( r % 2 )); then
            O+=("$("$fn" ours "$@")"); T+=("$("$fn" theirs "$@")")
        else
            T+=("$("$fn" theirs "$@")"); O+=("$("$fn" ours "$@")")
        fi
    done
}

# judged_row NAME OURS THEIRS RATIO MISS_IF TARGET: the row, a miss counted when the ratio is
# n/a or MISS_IF (an awk condition on r) holds.
judged_row() {
    local st=OK
    if [ "$4" = n/a ] || awk -v r="$4" "BEGIN{exit !($5)}"; then
        st=MISS; MISSES=$((MISSES + 1))
    fi
    fmt_row "$1" "${2:-n/a}" "${3:-n/a}" "$4" "$6" "$st"
}

# tput_row LABEL CPU_MAX TEST ARGS...: throughput (ours >= theirs), then server CPU per
# request (ours / theirs <= CPU_MAX) and p50 / p99 latency (ours <= theirs), medians of REPS.
tput_row() {
    local label=$1 cpu_max=$2; shift 2
    local k ov tv name target cmp
    interleaved sample "$@"
    for k in 1 2 3 4; do
        # shellcheck disable=SC2046
        ov=$(bl_median $(field $k "${O[@]}")); tv=$(bl_median $(field $k "${T[@]}"))
        case $k in
            1) name=$label; target="ratio >= 1.00"; cmp="r < 1.0" ;;
            2) name="  cpu us/request"; target="ratio <= $cpu_max"; cmp="r > $cpu_max" ;;
            3) name="  p50 ms"; target="ratio <= 1.00"; cmp="r > 1.0" ;;
            4) name="  p99 ms"; target="ratio <= 1.00"; cmp="r > 1.0" ;;
        esac
        judged_row "$name" "$ov" "$tv" "$(bl_ratio "$ov" "$tv")" "$cmp" "$target"
    done
    [ "$VERBOSE" = 1 ] && echo "    samples ours: ${O[*]:-}  theirs: ${T[*]:-}"
}

if [ "$ROWS" = throughput ] || [ "$ROWS" = all ]; then
    echo "-- throughput (redis-benchmark, median of $REPS, req/s; n=$N_P1 / P16 n=$N_P16 / rand n=$N_RAND)"
    fmt_row "row" "ours" "theirs" "ratio" "target" ""
    for s in ours theirs; do bl_alive $s && bl_cli $s flushall >/dev/null; done
    tput_row "SET -c50 -P1"        0.90 set -c 50 -P 1  -n "$N_P1"
    tput_row "GET -c50 -P1"        0.90 get -c 50 -P 1  -n "$N_P1"
    tput_row "SET -c50 -P16"       0.70 set -c 50 -P 16 -n "$N_P16"
    tput_row "GET -c50 -P16"       0.70 get -c 50 -P 16 -n "$N_P16"
    tput_row "SET -c50 -r1M -d100" 0.90 set -c 50 -P 1  -n "$N_RAND" -r 1000000 -d 100
    tput_row "GET -c50 -r1M -d100" 0.90 get -c 50 -P 1  -n "$N_RAND" -r 1000000 -d 100
    echo
fi

# ---------------------------------------------------------------- memory
# settle NAME: waits (at most 10 s) until the node's tables have finished their incremental
# resizes (INFO mem_overhead_db_hashtable_rehashing 0, in Valkey 8 and ours): while one runs a
# table holds two bucket arrays, and both servers finish theirs from the cron at about 1 ms a
# tick, so what a load leaves pending would count for a few seconds.
settle() {
    local r
    for _ in $(seq 1 100); do
        r=$(bl_info_field "$1" memory mem_overhead_db_hashtable_rehashing)
        [ -z "$r" ] || [ "$r" = 0 ] && return 0
        sleep 0.1
    done
}

# mem_per_key NAME FILE -> prints bytes/key (1 decimal) or nothing on failure: used_memory
# after the load, its resizes settled, less before
mem_per_key() {
    local name=$1 file=$2 before after n
    bl_alive "$name" || return 0
    bl_cli "$name" flushall sync >/dev/null || return 0
    sleep 0.3
    before=$(bl_info_field "$name" memory used_memory)
    bl_pipe_load "$name" "$file" "$KEYS" || return 0
    sleep 0.3
    settle "$name"
    after=$(bl_info_field "$name" memory used_memory)
    n=$(bl_cli "$name" dbsize 2>/dev/null)
    if [ "$n" != "$KEYS" ]; then
        bl_log "[$name] dbsize $n after loading $KEYS keys"
        return 0
    fi
    bl_cli "$name" flushall sync >/dev/null
    [ -n "$before" ] && [ -n "$after" ] || return 0
    awk -v a="$after" -v b="$before" -v n="$KEYS" 'BEGIN{printf "%.1f\n", (a - b) / n}'
}

# mem_row LABEL FILE MAX_BYTES [MAX_RATIO]: ours and theirs, or the servers named by
# MEM_OURS / MEM_THEIRS (the cluster-mode pair).
mem_row() {
    local label=$1 file=$2 maxb=$3 maxr=${4:-} ov tv ratio st target
    ov=$(mem_per_key "${MEM_OURS:-ours}" "$file")
    tv=$(mem_per_key "${MEM_THEIRS:-theirs}" "$file")
    ratio=$(bl_ratio "$ov" "$tv")
    target="ours <= $maxb B/key"
    [ -n "$maxr" ] && target="$target, ratio <= $maxr"
    st=OK
    if [ -z "$ov" ] || awk -v v="$ov" -v m="$maxb" 'BEGIN{exit !(v > m)}'; then st=MISS; fi
    if [ -n "$maxr" ] && { [ "$ratio" = n/a ] || awk -v r="$ratio" -v m="$maxr" 'BEGIN{exit !(r > m)}'; }; then st=MISS; fi
    [ "$st" = MISS ] && MISSES=$((MISSES + 1))
    fmt_row "$label" "${ov:-n/a}" "${tv:-n/a}" "$ratio" "$target" "$st"
}

# cluster_node NAME BIN: a cluster-mode node holding every slot, its state ok.
cluster_node() {
    bl_start "$1" "$2" --cluster-enabled yes --cluster-config-file nodes.conf || return 0
    bl_cli "$1" cluster addslotsrange 0 16383 >/dev/null
    for _ in $(seq 1 100); do
        bl_cli "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && return 0
        sleep 0.1
    done
    bl_log "[$1] cluster_state never ok"
}

if [ "$ROWS" = memory ] || [ "$ROWS" = all ]; then
    echo "-- memory (INFO used_memory delta / key once resizes settled, $KEYS keys key:%07d, 16-byte values, bytes/key)"
    fmt_row "row" "ours" "theirs" "ratio" "target" ""
    bl_gen_set_file "$BL_TMP/set.resp" "$KEYS"
    bl_gen_set_file "$BL_TMP/setex.resp" "$KEYS" 100000
    mem_row "SET (no TTL)" "$BL_TMP/set.resp" 48 0.77
    mem_row "SET EX 100000 (TTL)" "$BL_TMP/setex.resp" 72
    # The same in cluster mode: one node holding all 16384 slots (a table pair per slot).
    cluster_node oursc "$OURS"
    cluster_node theirsc "$THEIRS"
    MEM_OURS=oursc MEM_THEIRS=theirsc mem_row "SET, cluster mode" "$BL_TMP/set.resp" 48 0.77
    MEM_OURS=oursc MEM_THEIRS=theirsc mem_row "SET EX, cluster mode" "$BL_TMP/setex.resp" 72
    bl_stop oursc; bl_stop theirsc
    rm -f "$BL_TMP/set.resp" "$BL_TMP/setex.resp"
    echo
fi

# ---------------------------------------------------------------- latency
# lat_sample NAME ARGS... -> "p50 p99 p999" (ms) or "" on a failure or an error reply
lat_sample() {
    local name=$1; shift
    bl_alive "$name" || return 0
    "$PACED" --port "$(bl_port "$name")" --clients 50 --rate "$LAT_RATE" --seconds "$LAT_SECS" \
        "$@" 2>/dev/null | sed -n 's/.*errors=0 .*p50=\([0-9.]*\) p99=\([0-9.]*\) p999=\([0-9.]*\).*/\1 \2 \3/p'
}

# lat_row LABEL ARGS...: p50, p99, p99.9 (ours <= theirs), medians of REPS interleaved samples,
# with the range of the per-repetition ratios.
lat_row() {
    local label=$1; shift
    local r k ov tv name lo hi
    interleaved lat_sample "$@"
    for k in 1 2 3; do
        # shellcheck disable=SC2046
        ov=$(bl_median $(field $k "${O[@]}")); tv=$(bl_median $(field $k "${T[@]}"))
        read -r lo hi < <(for r in $(seq 0 $((REPS - 1))); do
            bl_ratio "$(field $k "${O[$r]}")" "$(field $k "${T[$r]}")"; echo; done |
            grep -v -e n/a -e '^$' | sort -g | awk 'NR==1{l=$1} {h=$1} END{print l, h}')
        case $k in
            1) name="$label p50 ms" ;;
            2) name="  p99 ms" ;;
            3) name="  p99.9 ms" ;;
        esac
        judged_row "$name" "$ov" "$tv" "$(bl_ratio "$ov" "$tv")" "r > 1.0" \
            "ratio <= 1.00 (reps ${lo:-?}-${hi:-?})"
    done
    [ "$VERBOSE" = 1 ] && echo "    samples ours: ${O[*]:-}  theirs: ${T[*]:-}"
}

if [ "$ROWS" = latency ] || [ "$ROWS" = all ]; then
    LAT_SECS=${LAT_SECS:-$([ "$QUICK" = 1 ] && echo 2 || echo 5)}
    if [ -z "${LAT_RATE:-}" ]; then
        LAT_RATE=$(sample theirs set -c 50 -P 1 -n "$N_P1" | awk '{printf "%d", $1 / 2}')
        [ -n "$LAT_RATE" ] || LAT_RATE=20000
    fi
    echo "-- latency (paced $LAT_RATE req/s over 50 connections, $LAT_SECS s a sample, median of $REPS)"
    fmt_row "row" "ours" "theirs" "ratio" "target" ""
    for s in ours theirs; do bl_alive $s && bl_cli $s flushall >/dev/null; done
    lat_row "SET" --keys 100000
    lat_row "GET" --keys 100000 --get
    lat_row "SET +10k idle" --keys 100000 --idle 10000
    echo
fi

for s in ours theirs; do
    if [ -n "$(bl_pid $s)" ] && ! bl_alive $s; then
        echo "WARNING: $s server died during the run; log tail:"
        tail -n 15 "$BL_TMP/srv-$s/server.log"
    fi
done
echo "targets missed: $MISSES"
exit 0
