#!/usr/bin/env bash
# bench-cluster.sh -- our nodes against Debian's redis-server 7.0 as a cluster, side by side in
# one run, reported as ratios (ours / theirs) because the machine is shared and noisy.
#
#   utils/bench-cluster.sh [--quick]
#
# Rows, each for a cluster of our nodes and one of redis-server nodes of the same shape:
#   create-to-ok   seconds from `redis-cli --cluster create` to cluster_state:ok on every node
#                  (3 primaries + 3 replicas), median of 3 (lower is better)
#   set/get -P16   redis-benchmark --cluster throughput (higher is better)
#   idle cpu 6     CPU seconds used by the six idle nodes over IDLE_SECS (lower is better)
#   60 nodes       30 primaries + 30 replicas: seconds to cluster_state:ok everywhere, then
#                  CPU seconds over IDLE_SECS idle (lower is better)
#
# Environment: OURS (default src/valkey-server), THEIRS (default /usr/bin/redis-server),
# IDLE_SECS (default 60; 10 with --quick), REQUESTS (default 5000000; 500000 with --quick:
# with --threads, redis-benchmark notices the end of a run on its 250 ms timer, so the rate
# it reports moves in steps of a quarter second; 1M requests at ~800k/s read 664k, 798k or
# 994k and hid any difference under 20%),
# NT (cluster-node-timeout, default 5000), BIG (0 skips the 60-node row).
# Ports 12001-12106 and 13001-13160 (buses +10000) stay below the ephemeral range, where a
# client socket could hold a bus port.
set -u
cd "$(dirname "$0")/.."
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
IDLE_SECS=${IDLE_SECS:-$([ $QUICK = 1 ] && echo 10 || echo 60)}
REQUESTS=${REQUESTS:-$([ $QUICK = 1 ] && echo 500000 || echo 5000000)}
NT=${NT:-5000}
BIG=${BIG:-1}
TMP=$(mktemp -d /tmp/bench-cluster.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

log() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l | xargs printf '%.3f'; }
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then echo "$1 / $2" | bc -l | xargs printf '%.2f'; else echo n/a; fi; }

# start_nodes BIN FIRST_PORT COUNT: one node per port, cluster-enabled, own dir.
start_nodes() {
  local bin=$1 first=$2 count=$3 p
  for p in $(seq "$first" $((first + count - 1))); do
    mkdir -p "$TMP/$p"
    (cd "$TMP/$p" && exec "$bin" --port "$p" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout "$NT" --save "" \
      --appendonly no --logfile node.log) &
    disown
    PIDS+=($!)
    echo $! > "$TMP/$p.pid"
  done
  for p in $(seq "$first" $((first + count - 1))); do
    for _ in $(seq 1 100); do
      [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && break
      sleep 0.05
    done
  done
}

stop_nodes() {
  local first=$1 count=$2 p
  for p in $(seq "$first" $((first + count - 1))); do
    kill -9 "$(cat "$TMP/$p.pid")" 2>/dev/null
    rm -rf "${TMP:?}/$p" "$TMP/$p.pid"
  done
  sleep 0.3
}

# create FIRST COUNT: seconds from --cluster create to cluster_state:ok on every node.
create() {
  local first=$1 count=$2 hosts="" p t0
  for p in $(seq "$first" $((first + count - 1))); do hosts="$hosts 127.0.0.1:$p"; done
  t0=$(now)
  # shellcheck disable=SC2086
  redis-cli --cluster create $hosts --cluster-replicas 1 --cluster-yes >"$TMP/create.log" 2>&1 ||
    { log "create failed: $(tail -3 "$TMP/create.log")"; return 1; }
  for p in $(seq "$first" $((first + count - 1))); do
    for _ in $(seq 1 1200); do
      redis-cli -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && break
      sleep 0.05
    done
  done
  since "$t0"
}

# cpu_secs FIRST COUNT: user+system CPU seconds used so far by those nodes.
cpu_secs() {
  local first=$1 count=$2 p ticks=0 hz
  hz=$(getconf CLK_TCK)
  for p in $(seq "$first" $((first + count - 1))); do
    local st
    st=$(cut -d' ' -f14,15 "/proc/$(cat "$TMP/$p.pid")/stat" 2>/dev/null) || continue
    ticks=$((ticks + ${st% *} + ${st#* }))
  done
  echo "$ticks / $hz" | bc -l | xargs printf '%.2f'
}

idle_cpu() {
  local first=$1 count=$2 a b
  a=$(cpu_secs "$first" "$count")
  sleep "$IDLE_SECS"
  b=$(cpu_secs "$first" "$count")
  echo "$b - $a" | bc -l | xargs printf '%.2f'
}

median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

bench_rps() {  # bench_rps PORT TEST
  redis-benchmark --cluster -p "$1" -t "$2" -P 16 -c 50 -n "$REQUESTS" -r 100000 \
    --threads "${BENCH_THREADS:-2}" -q 2>/dev/null |
    tr '\r' '\n' | grep -i "^$2:" | tail -1 | sed -E 's/.*: ([0-9.]+) requests.*/\1/'
}

row() { printf '%-16s %12s %12s %8s\n' "$@"; }

log "ours:   $OURS"
log "theirs: $THEIRS ($("$THEIRS" --version | head -1))"
row "row" "ours" "theirs" "ratio"

declare -A T
for side in ours theirs; do
  bin=$OURS; base=12001
  [ $side = theirs ] && { bin=$THEIRS; base=12101; }
  times=()
  for i in 1 2 3; do
    start_nodes "$bin" $base 6
    times+=("$(create $base 6)")
    [ $i -lt 3 ] && stop_nodes $base 6
  done
  T[$side,create]=$(median3 "${times[@]}")
  T[$side,set]=$(bench_rps $base set)
  T[$side,get]=$(bench_rps $base get)
  T[$side,idle]=$(idle_cpu $base 6)
  stop_nodes $base 6
done
row "create-to-ok s" "${T[ours,create]}" "${T[theirs,create]}" "$(ratio "${T[ours,create]}" "${T[theirs,create]}")"
row "set -P16 rps" "${T[ours,set]}" "${T[theirs,set]}" "$(ratio "${T[ours,set]}" "${T[theirs,set]}")"
row "get -P16 rps" "${T[ours,get]}" "${T[theirs,get]}" "$(ratio "${T[ours,get]}" "${T[theirs,get]}")"
row "idle cpu 6 s" "${T[ours,idle]}" "${T[theirs,idle]}" "$(ratio "${T[ours,idle]}" "${T[theirs,idle]}")"

if [ "$BIG" != 0 ]; then
  for side in ours theirs; do
    bin=$OURS; base=13001
    [ $side = theirs ] && { bin=$THEIRS; base=13101; }
    start_nodes "$bin" $base 60
    T[$side,big]=$(create $base 60)
    T[$side,bigidle]=$(idle_cpu $base 60)
    stop_nodes $base 60
  done
  row "60 nodes to ok s" "${T[ours,big]}" "${T[theirs,big]}" "$(ratio "${T[ours,big]}" "${T[theirs,big]}")"
  row "idle cpu 60 s" "${T[ours,bigidle]}" "${T[theirs,bigidle]}" "$(ratio "${T[ours,bigidle]}" "${T[theirs,bigidle]}")"
fi
