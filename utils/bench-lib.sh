# shellcheck shell=bash
# bench-lib.sh -- shared helpers for the utils/bench-*.sh scripts.
# Source it; do not execute it.  Everything is prefixed with bl_.
#
# Provides:
#   bl_init                      create $BL_TMP and install the EXIT trap
#   bl_free_port                 print a free TCP port on 127.0.0.1
#   bl_start NAME BIN [ARGS..]   start a server (sets BL_PORT_<NAME>, BL_PID_<NAME>)
#   bl_alive NAME                true if server NAME is still running
#   bl_cli NAME ARGS..           redis-cli against server NAME
#   bl_info_field NAME SECTION FIELD
#   bl_version NAME              "name version" string from INFO server
#   bl_median N1 N2 ...          median (lower median for even counts)
#   bl_bench_rps NAME TEST ARGS..  run redis-benchmark, print req/s ("" on failure)
#   bl_gen_set_file FILE N [EX]  write RESP SETs for N keys key:%07d (16-byte values)
#   bl_pipe_load NAME FILE N     feed FILE through redis-cli --pipe, verify N replies
#   bl_ratio A B                 A/B with 2 decimals ("n/a" if either is missing)
#   bl_ratio_row FMT LABEL A_SAMPLES B_SAMPLES TARGET
#                                one table row: the medians of two space-separated sample
#                                lists, their ratio and the target, printed with FMT
#   bl_stop_all                  stop every server started with bl_start
#   bl_spawn NAME BIN [ARGS..]   like bl_start but returns at once (no PING wait)
#   bl_stop NAME                 stop one server started with bl_start/bl_spawn
#   bl_now                       wall clock in seconds with microseconds
#   bl_since T0                  seconds elapsed since T0 (from bl_now), 3 decimals

BL_CLI=${BL_CLI:-redis-cli}
BL_BENCH=${BL_BENCH:-redis-benchmark}
BL_SERVERS=()
BL_TMP=""

bl_log() { printf '%s\n' "$*" >&2; }

# The scripts' one argument: --quick (QUICK=1) or nothing; `q FULL QUICK` picks the value.
bl_quick_arg() {
  QUICK=0
  case "${1:-}" in
    --quick) QUICK=1 ;;
    "") ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
  esac
}
q() { if [ "$QUICK" = 1 ]; then echo "$2"; else echo "$1"; fi; }

bl_init() {
    BL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/${1:-bench}.XXXXXX") || exit 1
    trap 'bl_stop_all; [ -n "$BL_TMP" ] && rm -rf "$BL_TMP"' EXIT
    trap 'exit 130' INT TERM
}

bl_port_in_use() {
    # true if something accepts connections on 127.0.0.1:$1
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

bl_free_port() {
    local p
    for _ in $(seq 1 200); do
        # Below Linux's ephemeral range (32768+), so that no client socket of an earlier
        # row holds the port when the server binds it.
        p=$(( 20000 + RANDOM % 12000 ))
        if ! bl_port_in_use "$p"; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# bl_start NAME BIN [extra server args...]
# Starts BIN on a free loopback port with no persistence, in its own temp dir.
bl_start() {
    local name=$1 bin=$2; shift 2
    local dir="$BL_TMP/srv-$name" port pid
    mkdir -p "$dir"
    if [ ! -x "$bin" ]; then
        bl_log "[$name] binary not found or not executable: $bin"
        return 1
    fi
    port=$(bl_free_port) || { bl_log "no free port"; return 1; }
    ( cd "$dir" && exec "$bin" --port "$port" --bind 127.0.0.1 \
        --save "" --appendonly no --dir "$dir" "$@" ) >"$dir/server.log" 2>&1 &
    pid=$!
    printf -v "BL_PORT_$name" '%s' "$port"
    printf -v "BL_PID_$name" '%s' "$pid"
    BL_SERVERS+=("$name")
    for _ in $(seq 1 100); do
        if [ "$("$BL_CLI" -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; then
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    bl_log "[$name] server did not come up on port $port; log tail:"
    tail -n 20 "$dir/server.log" >&2
    return 1
}

bl_port() { local v="BL_PORT_$1"; echo "${!v:-}"; }
bl_pid()  { local v="BL_PID_$1";  echo "${!v:-}"; }

bl_alive() {
    local pid; pid=$(bl_pid "$1")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

bl_cli() {
    local name=$1; shift
    "$BL_CLI" -h 127.0.0.1 -p "$(bl_port "$name")" "$@"
}

bl_info_field() {
    # bl_info_field NAME SECTION FIELD
    bl_cli "$1" info "$2" 2>/dev/null | tr -d '\r' | awk -F: -v f="$3" '$1==f {print $2; exit}'
}

bl_version() {
    local info
    info=$(bl_cli "$1" info server 2>/dev/null | tr -d '\r')
    local v s
    v=$(awk -F: '$1=="valkey_version"{print $2}' <<<"$info")
    if [ -n "$v" ]; then
        s=$(awk -F: '$1=="server_name"{print $2}' <<<"$info")
        echo "${s:-valkey} $v"
    else
        echo "redis $(awk -F: '$1=="redis_version"{print $2}' <<<"$info")"
    fi
}

bl_stop_all() {
    local name pid
    for name in "${BL_SERVERS[@]}"; do
        pid=$(bl_pid "$name")
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    BL_SERVERS=()
}

bl_median() {
    printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g |
        awk '{a[NR]=$1} END { if (NR==0) exit; print a[int((NR+1)/2)] }'
}

# bl_bench_rps NAME TEST [redis-benchmark args...]
# TEST is the -t name (set, get, ...).  Prints requests/second.
bl_bench_rps() {
    local name=$1 test=$2; shift 2
    local out
    out=$("$BL_BENCH" -h 127.0.0.1 -p "$(bl_port "$name")" -t "$test" -q --csv "$@" 2>/dev/null)
    # CSV names may carry a note, e.g. "LRANGE_100 (first 100 elements)" or "MSET (10 keys)".
    awk -F'"' -v t="$(tr '[:lower:]' '[:upper:]' <<<"$test")" \
        '($2==t || index($2, t " (")==1) && $4 ~ /^[0-9.]+$/ {printf "%.0f\n", $4; exit}' <<<"$out"
}

# bl_gen_set_file FILE N [EX_SECONDS]
# RESP for: SET key:%07d v%015d [EX secs]  (11-byte keys, 16-byte unique values)
bl_gen_set_file() {
    local file=$1 n=$2 ex=${3:-}
    LC_ALL=C awk -v n="$n" -v ex="$ex" 'BEGIN {
        if (ex != "") { hdr = "*5\r\n$3\r\nSET\r\n$11\r\n"
                        tail = "\r\n$2\r\nEX\r\n$" length(ex) "\r\n" ex "\r\n" }
        else          { hdr = "*3\r\n$3\r\nSET\r\n$11\r\n"; tail = "\r\n" }
        for (i = 0; i < n; i++)
            printf "%skey:%07d\r\n$16\r\nv%015d%s", hdr, i, i, tail
    }' >"$file"
}

# bl_pipe_load NAME FILE N : mass-insert, succeed only if N replies and 0 errors
bl_pipe_load() {
    local name=$1 file=$2 n=$3 out
    out=$(bl_cli "$name" --pipe <"$file" 2>&1 | tr -d '\r')
    if ! grep -q "errors: 0, replies: $n\$" <<<"$out"; then
        bl_log "[$name] pipe load failed: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
        return 1
    fi
}

bl_ratio() {
    [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]] || { echo n/a; return; }
    awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

bl_ratio_row() {
    local fmt=$1 label=$2 a b
    # shellcheck disable=SC2086  # the samples are space separated
    a=$(bl_median $3)
    # shellcheck disable=SC2086
    b=$(bl_median $4)
    # shellcheck disable=SC2059  # the format is the caller's
    printf "$fmt" "$label" "${a:--}" "${b:--}" "$(bl_ratio "$a" "$b")" "$5"
}

# bl_spawn NAME BIN [extra server args...]
# Same command line, directory and bookkeeping as bl_start, but does not wait
# for the server to answer (for timing start-up/loading from the caller).
bl_spawn() {
    local name=$1 bin=$2; shift 2
    local dir="$BL_TMP/srv-$name" port
    mkdir -p "$dir"
    [ -x "$bin" ] || { bl_log "[$name] binary not found or not executable: $bin"; return 1; }
    port=$(bl_free_port) || { bl_log "no free port"; return 1; }
    ( cd "$dir" && exec "$bin" --port "$port" --bind 127.0.0.1 \
        --save "" --appendonly no --dir "$dir" "$@" ) >"$dir/server.log" 2>&1 &
    printf -v "BL_PORT_$name" '%s' "$port"
    printf -v "BL_PID_$name" '%s' "$!"
    BL_SERVERS+=("$name")
}

# bl_stop NAME: SIGTERM (then SIGKILL after 5 s) one server and forget it.
bl_stop() {
    local name=$1 pid n keep=()
    pid=$(bl_pid "$name")
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    for n in "${BL_SERVERS[@]}"; do [ "$n" = "$name" ] || keep+=("$n"); done
    BL_SERVERS=("${keep[@]}")
    printf -v "BL_PID_$name" '%s' ""
}

bl_now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}

bl_since() {
    awk -v a="$1" -v b="$(bl_now)" 'BEGIN { printf "%.3f\n", b - a }'
}
