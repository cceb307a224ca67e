#!/usr/bin/env bash
# bench-repl.sh -- replication and persistence benchmark of our server against
# a reference redis-server, side by side in one run.
#
# Usage: utils/bench-repl.sh [--quick] [--rows sync|persist|throughput|all]
#
# Rows (ours and theirs, each paired with a server of the same kind):
#   full sync   REPLICAOF -> replica link up with DBSIZE == KEYS, disk-based
#               (repl-diskless-sync no) and diskless (yes, delay 0)
#   SAVE        time of the SAVE command on the primary holding KEYS keys
#   load        process start -> answers PING with DBSIZE == KEYS
#   throughput  redis-benchmark -t set -c 50 -P 1 / -P 16 against a primary
#               with 0 and with 2 replicas; cost = with/without per kind
# Targets: time ratio ours/theirs <= 1.00; our with/without ratio >= theirs.
#
# Environment:
#   OURS=path  THEIRS=path   server binaries (default src/valkey-server,
#                            /usr/bin/redis-server)
#   KEYS=n       keys for sync/save/load (default 1000000; 200000 --quick)
#   REPS=n       reps for sync/save/load (default 3; 1 with --quick)
#   TP_REPS=n    reps for throughput rows (default 3)
#   TP_N=n       redis-benchmark -n (default 300000; 100000 with --quick)
#   VERBOSE=1    print every sample
# Always exits 0 once the run completes: missed targets are marked MISS.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=utils/bench-lib.sh
. "$HERE/bench-lib.sh"

OURS=${OURS:-$ROOT/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
VERBOSE=${VERBOSE:-0}
QUICK=0
ROWS=all

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 ;;
        --rows) shift; ROWS=${1:-} ;;
        --rows=*) ROWS=${1#--rows=} ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
    shift
done
case $ROWS in sync|persist|throughput|all) ;; *) usage >&2; exit 2 ;; esac

if [ "$QUICK" = 1 ]; then
    KEYS=${KEYS:-200000}; REPS=${REPS:-1}; TP_N=${TP_N:-100000}
else
    KEYS=${KEYS:-1000000}; REPS=${REPS:-3}; TP_N=${TP_N:-300000}
fi
TP_REPS=${TP_REPS:-3}
SYNC_TIMEOUT=${SYNC_TIMEOUT:-180}

bl_init bench-repl
declare -A BIN=([ours]=$OURS [theirs]=$THEIRS)
START=$(bl_now)

row() { printf '%-30s %11s %11s %7s   %s\n' "$@"; }
vlog() { [ "$VERBOSE" = 1 ] && bl_log "  $*"; return 0; }

# mark RATIO OP LIMIT -> OK / MISS / n/a
mark() {
    [[ "$1" =~ ^[0-9.]+$ ]] || { echo n/a; return; }
    awk -v r="$1" -v op="$2" -v l="$3" 'BEGIN {
        ok = (op == "<=") ? (r + 0 <= l + 0) : (r + 0 >= l + 0); print ok ? "OK" : "MISS" }'
}

# kinds in alternating order per repetition (ours first on odd reps)
kinds_for() { if [ $(($1 % 2)) = 1 ]; then echo ours theirs; else echo theirs ours; fi; }

# start NAME BIN [ARGS..]: bl_start, retried on a fresh port if the random
# port turned out to be taken (e.g. by an outgoing connection's local port).
start() {
    for _ in 1 2 3; do
        bl_start "$@" 2>"$BL_TMP/start.err" && return 0
        bl_stop "$1"
        grep -q 'already in use' "$BL_TMP/start.err" || break
    done
    cat "$BL_TMP/start.err" >&2
    return 1
}

# state NAME: one connection, "<link_status> <dbsize>" (or "- -" when not ready)
state() {
    printf 'INFO replication\r\nDBSIZE\r\n' | bl_cli "$1" 2>/dev/null | tr -d '\r' |
        awk -F: '$1=="master_link_status" {l=$2} END {print (l==""?"-":l), ($0 ~ /^[0-9]+$/ ? $0 : "-")}'
}

# wait_synced NAME N: poll until the replica's link is up with N keys.
wait_synced() {
    local name=$1 n=$2 deadline s
    deadline=$(( $(date +%s) + SYNC_TIMEOUT ))
    while :; do
        s=$(state "$name")
        [ "$s" = "up $n" ] && return 0
        bl_alive "$name" || { bl_log "[$name] replica died"; return 1; }
        [ "$(date +%s)" -lt "$deadline" ] || { bl_log "[$name] sync timeout (state: $s)"; return 1; }
        sleep 0.02
    done
}

# wait_loaded NAME N: poll until PING answers PONG and DBSIZE is N.
wait_loaded() {
    local name=$1 n=$2 deadline out
    deadline=$(( $(date +%s) + SYNC_TIMEOUT ))
    while :; do
        out=$(printf 'PING\r\nDBSIZE\r\n' | bl_cli "$name" 2>/dev/null | tr -d '\r' | tr '\n' ' ')
        [ "$out" = "PONG $n " ] && return 0
        bl_alive "$name" || return 2
        [ "$(date +%s)" -lt "$deadline" ] || { bl_log "[$name] load timeout ($out)"; return 1; }
        sleep 0.02
    done
}

# time_row LABEL OURS_SAMPLES THEIRS_SAMPLES  (samples space separated)
time_row() {
    local label=$1 a b r
    # shellcheck disable=SC2086
    a=$(bl_median $2); b=$(bl_median $3)
    r=$(bl_ratio "$a" "$b")
    row "$label" "${a:-fail}" "${b:-fail}" "$r" "ratio <= 1.00  $(mark "$r" '<=' 1.0)"
}

echo "ours:   $OURS"
echo "theirs: $THEIRS"
echo "keys=$KEYS reps=$REPS throughput: n=$TP_N reps=$TP_REPS (medians; times in seconds)"

# ---------------------------------------------------------------- primaries
need_data=0
case $ROWS in sync|persist|all) need_data=1 ;; esac

if [ "$need_data" = 1 ]; then
    DATA="$BL_TMP/data.resp"
    bl_gen_set_file "$DATA" "$KEYS"
    for k in ours theirs; do
        start "p_$k" "${BIN[$k]}" --dbfilename bench.rdb --repl-diskless-sync-delay 0 || exit 1
        t0=$(bl_now)
        bl_pipe_load "p_$k" "$DATA" "$KEYS" || exit 1
        vlog "$k: pipe load of $KEYS keys $(bl_since "$t0") s"
    done
    echo "versions: ours=$(bl_version p_ours)  theirs=$(bl_version p_theirs)"
    rm -f "$DATA"
fi

# ---------------------------------------------------------------- full sync
if [ "$ROWS" = sync ] || [ "$ROWS" = all ]; then
    echo
    echo "-- full sync of $KEYS keys: REPLICAOF -> link up and DBSIZE=$KEYS (s)"
    row mode ours theirs ratio target
    for mode in disk diskless; do
        flag=$([ $mode = disk ] && echo no || echo yes)
        declare -A S=([ours]="" [theirs]="")
        for k in ours theirs; do
            bl_cli "p_$k" config set repl-diskless-sync "$flag" >/dev/null
            bl_cli "p_$k" config set repl-diskless-sync-delay 0 >/dev/null
            got=$(bl_cli "p_$k" config get repl-diskless-sync | tail -n 1)
            [ "$got" = "$flag" ] || bl_log "[p_$k] repl-diskless-sync is '$got', wanted $flag"
        done
        for rep in $(seq 1 "$REPS"); do
            for k in $(kinds_for "$rep"); do
                r="r_${k}_${mode}_$rep"
                start "$r" "${BIN[$k]}" || continue
                t0=$(bl_now)
                bl_cli "$r" replicaof 127.0.0.1 "$(bl_port "p_$k")" >/dev/null
                if wait_synced "$r" "$KEYS"; then
                    t=$(bl_since "$t0"); S[$k]+=" $t"; vlog "$k $mode rep $rep: $t"
                fi
                bl_stop "$r"
                rm -rf "$BL_TMP/srv-$r"
                # let the primary reap its fork / settle before the next sample
                sleep 0.5
            done
        done
        time_row "full sync, $mode" "${S[ours]}" "${S[theirs]}"
    done
fi

# ---------------------------------------------------------------- SAVE / load
if [ "$ROWS" = persist ] || [ "$ROWS" = all ]; then
    echo
    echo "-- persistence of $KEYS keys (s)"
    row action ours theirs ratio target
    declare -A S=([ours]="" [theirs]="")
    for rep in $(seq 1 "$REPS"); do
        for k in $(kinds_for "$rep"); do
            t0=$(bl_now)
            out=$(bl_cli "p_$k" save 2>&1)
            t=$(bl_since "$t0")
            if [ "$out" = OK ]; then S[$k]+=" $t"; vlog "$k SAVE rep $rep: $t"
            else bl_log "[p_$k] SAVE failed: $out"; fi
        done
    done
    time_row "SAVE" "${S[ours]}" "${S[theirs]}"
    for k in ours theirs; do
        vlog "$k rdb size: $(stat -c %s "$BL_TMP/srv-p_$k/bench.rdb" 2>/dev/null) bytes"
    done

    declare -A S=([ours]="" [theirs]="")
    for rep in $(seq 1 "$REPS"); do
        for k in $(kinds_for "$rep"); do
            l="l_${k}_$rep"
            for _ in 1 2 3; do  # retried only when the random port was taken
                t0=$(bl_now)
                bl_spawn "$l" "${BIN[$k]}" --dir "$BL_TMP/srv-p_$k" --dbfilename bench.rdb || break
                wait_loaded "$l" "$KEYS"; rc=$?
                t=$(bl_since "$t0")
                bl_stop "$l"
                if [ $rc = 0 ]; then
                    S[$k]+=" $t"; vlog "$k load rep $rep: $t"
                elif [ $rc = 2 ] && grep -q 'already in use' "$BL_TMP/srv-$l/server.log"; then
                    rm -rf "$BL_TMP/srv-$l"; continue
                else
                    bl_log "[$l] did not load $KEYS keys; log tail:"
                    tail -n 5 "$BL_TMP/srv-$l/server.log" >&2
                fi
                break
            done
            rm -rf "$BL_TMP/srv-$l"
        done
    done
    time_row "load at start" "${S[ours]}" "${S[theirs]}"
fi

if [ "$need_data" = 1 ]; then
    bl_stop p_ours; bl_stop p_theirs
fi

# ---------------------------------------------------------------- throughput
if [ "$ROWS" = throughput ] || [ "$ROWS" = all ]; then
    echo
    echo "-- write throughput: redis-benchmark -t set -n $TP_N -c 50 (req/s), primary with 0 / 2 replicas"
    for k in ours theirs; do
        start "tp_$k" "${BIN[$k]}" || exit 1
        start "tr1_$k" "${BIN[$k]}" || exit 1
        start "tr2_$k" "${BIN[$k]}" || exit 1
    done
    attach() {  # attach K: both replicas of kind K follow tp_K, wait until synced
        local k=$1 r n
        n=$(bl_cli "tp_$k" dbsize)
        for r in tr1 tr2; do bl_cli "${r}_$k" replicaof 127.0.0.1 "$(bl_port "tp_$k")" >/dev/null; done
        for r in tr1 tr2; do wait_synced "${r}_$k" "$n" || return 1; done
        [ "$(bl_info_field "tp_$k" replication connected_slaves)" = 2 ] ||
            bl_log "[tp_$k] connected_slaves is not 2"
    }
    detach() {
        local k=$1 r
        for r in tr1 tr2; do bl_cli "${r}_$k" replicaof no one >/dev/null; done
        for _ in $(seq 1 100); do
            [ "$(bl_info_field "tp_$k" replication connected_slaves)" = 0 ] && return 0
            sleep 0.05
        done
        bl_log "[tp_$k] replicas did not detach"
    }
    row "test" ours theirs ratio target
    for p in 1 16; do
        declare -A R=()
        for rep in $(seq 1 "$TP_REPS"); do
            for k in $(kinds_for "$rep"); do
                for w in none with; do
                    if [ $w = with ]; then attach "$k" || { R[$k,$w]+=" "; detach "$k"; continue; }; fi
                    sleep 0.3
                    v=$(bl_bench_rps "tp_$k" set -n "$TP_N" -c 50 -P "$p")
                    R[$k,$w]+=" $v"; vlog "$k -P $p $w rep $rep: $v"
                    [ $w = with ] && detach "$k"
                done
            done
        done
        declare -A M=()
        for k in ours theirs; do
            for w in none with; do
                # shellcheck disable=SC2086
                M[$k,$w]=$(bl_median ${R[$k,$w]:-})
            done
            M[$k,cost]=$(bl_ratio "${M[$k,with]}" "${M[$k,none]}")
        done
        r=$(bl_ratio "${M[ours,none]}" "${M[theirs,none]}")
        row "set -P $p, 0 replicas" "${M[ours,none]:-fail}" "${M[theirs,none]:-fail}" "$r" "(info)"
        r=$(bl_ratio "${M[ours,with]}" "${M[theirs,with]}")
        row "set -P $p, 2 replicas" "${M[ours,with]:-fail}" "${M[theirs,with]:-fail}" "$r" "(info)"
        r=$(bl_ratio "${M[ours,cost]}" "${M[theirs,cost]}")
        row "set -P $p, with/without" "${M[ours,cost]}" "${M[theirs,cost]}" "$r" \
            "ours >= theirs  $(mark "$r" '>=' 1.0)"
    done
fi

echo
echo "total time: $(bl_since "$START") s"
exit 0
