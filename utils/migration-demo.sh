#!/usr/bin/env bash
# migration-demo.sh -- what clients see while a slot moves, on a primary and on its replica.
#
#   utils/migration-demo.sh [--keep] [--with-redis7]
#
# Starts a local cluster of our nodes (3 primaries + 3 replicas on ports 31001-31006, data in a
# temp dir), writes a few keys into one slot, opens a live migration of that slot from its
# primary to another primary (CLUSTER SETSLOT IMPORTING on the target, MIGRATING on the source),
# MIGRATEs half of the keys, and shows side by side, for each key, the answer of the primary and
# of its replica read over a READONLY connection:
#   moved key      ASK <slot> <target> on both (the replica knows the open slot: its primary
#                  replicated the SETSLOT to it before applying it)
#   present key    the value on both
#   MGET of a present and a moved key: TRYAGAIN on both
# Then it moves the other keys, finishes the migration (SETSLOT NODE on the target, then on the
# source) and shows the answers again: MOVED to the new owner on both.
#
#   --with-redis7  the same with a cluster of Debian's redis-server 7.0 (ports 31101-31106), for
#                  contrast: a Redis 7.0 replica does not know open slots and answers nil for a
#                  moved key, and values (plus nil) for the MGET
#   --keep         leave the cluster(s) running at the end, and say how to stop them
#
# Environment: SERVER (default src/valkey-server), REDIS7 (default /usr/bin/redis-server),
# PORT (first port of ours, 31001), PORT7 (first port of redis 7.0's, 31101).
set -u
cd "$(dirname "$0")/.." || exit 1
SERVER=${SERVER:-$PWD/src/valkey-server}
REDIS7=${REDIS7:-/usr/bin/redis-server}
PORT=${PORT:-31001}
PORT7=${PORT7:-31101}
KEEP=0
WITH7=0
for a in "$@"; do
  case $a in
    --keep) KEEP=1 ;;
    --with-redis7) WITH7=1 ;;
    *) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
  esac
done
TMP=$(mktemp -d /tmp/migration-demo.XXXXXX)
PIDS=()
cleanup() {
  if [ $KEEP = 1 ] && [ ${#PIDS[@]} -gt 0 ]; then
    echo
    echo "Left running (--keep): pids ${PIDS[*]}, data and logs in $TMP"
    echo "Stop with:  kill ${PIDS[*]}; rm -rf $TMP"
    return
  fi
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "migration-demo: $*" >&2; exit 1; }
cli() { local p=$1; shift; redis-cli --no-raw -p "$p" "$@" 2>&1 | tr -d '\r' | paste -sd' ' -; }
# ro PORT CMD...: the answer of a connection that sent READONLY first (the first line is its OK).
ro() {
  local p=$1; shift
  printf 'READONLY\n%s\n' "$*" | redis-cli --no-raw -p "$p" 2>&1 | tr -d '\r' | sed 1d |
    paste -sd' ' -
}
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
id_of() { redis-cli -p "$1" cluster myid; }
# step PORT CMD...: run one command, show it in the way an operator would type it.
step() {
  local p=$1 out a shown=""; shift
  out=$(cli "$p" "$@")
  for a in "$@"; do shown="$shown ${a:-\"\"}"; done
  printf '  $ redis-cli -p %s%s\n    %s\n' "$p" "$(abbrev "$shown")" "$out"
  [[ $out == *ERR* || $out == *error* ]] && die "command failed on $p: $* -> $out"
  return 0
}
abbrev() { sed -E 's/\b([0-9a-f]{8})[0-9a-f]{32}\b/\1…/g' <<<"$1"; }

start_cluster() {  # start_cluster BIN FIRST: 3 primaries + 3 replicas on FIRST..FIRST+5
  local bin=$1 first=$2 hosts="" p
  [ -x "$bin" ] || die "no server binary at $bin"
  for p in $(seq "$first" $((first + 5))); do
    if port_busy "$p" || port_busy $((p + 10000)); then
      die "port $p or its bus port $((p + 10000)) is in use (set PORT / PORT7 to move the demo)"
    fi
  done
  for p in $(seq "$first" $((first + 5))); do
    mkdir -p "$TMP/$p"
    (cd "$TMP/$p" && exec "$bin" --port "$p" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 2000 --save "" \
      --appendonly no --logfile node.log) &
    disown
    PIDS+=($!)
    hosts="$hosts 127.0.0.1:$p"
  done
  for p in $(seq "$first" $((first + 5))); do
    for _ in $(seq 1 100); do
      [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && continue 2
      sleep 0.05
    done
    die "node $p did not start: $(tail -3 "$TMP/$p/node.log" 2>/dev/null)"
  done
  # shellcheck disable=SC2086
  redis-cli --cluster create $hosts --cluster-replicas 1 --cluster-yes \
    >"$TMP/create-$first.log" 2>&1 ||
    die "cluster create failed: $(tail -3 "$TMP/create-$first.log")"
  for p in $(seq "$first" $((first + 5))); do
    for _ in $(seq 1 200); do
      redis-cli -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' &&
        redis-cli -p "$p" info replication | tr -d '\r' |
        grep -qE '^role:master|^master_link_status:up' &&
        continue 2
      sleep 0.05
    done
    die "node $p did not reach cluster_state:ok with its replication up"
  done
  for _ in $(seq 1 100); do
    redis-cli --cluster check "127.0.0.1:$first" 2>&1 | grep -qE '\[ERR\]|\[WARNING\]' || return 0
    sleep 0.1
  done
  die "the nodes do not agree on the configuration: see redis-cli --cluster check 127.0.0.1:$first"
}

# owner_of FIRST SLOT / replica_of FIRST PRIMARY_PORT / other_primary FIRST NOT_PORT: ports.
nodes_of() { redis-cli -p "$1" cluster nodes | tr -d '\r'; }
port_of_line() { sed -E 's/^[^ ]+ [^ ]*:([0-9]+)@.*/\1/'; }
owner_of() {
  nodes_of "$1" | awk -v s="$2" '$3 ~ /master/ { for (i = 9; i <= NF; i++) { n = split($i, r, "-");
    if ($i !~ /^\[/ && s >= r[1] && s <= r[n]) print } }' | head -1 | port_of_line
}
replica_of() {
  local id; id=$(id_of "$2")
  nodes_of "$1" | awk -v m="$id" '$4 == m' | head -1 | port_of_line
}
other_primary() {
  nodes_of "$1" | awk '$3 ~ /master/ && NF > 8' | port_of_line | grep -vx "$2" | head -1
}
# wait_owner PORT SLOT OWNER_PORT: until node PORT sees OWNER_PORT as the slot's owner (gossip).
wait_owner() {
  for _ in $(seq 1 100); do [ "$(owner_of "$1" "$2")" = "$3" ] && return 0; sleep 0.05; done
  echo "  (node $1 still does not see $3 as the owner of slot $2)"
}

# row KEY ANSWER...: one line of a table, answers in columns 36 wide.
row() {
  printf '  %-9s' "$1"; shift
  while [ $# -gt 1 ]; do printf ' %-36s' "$1"; shift; done
  printf ' %s\n' "$1"
}
# hdr TITLE...: a header row, underlined.
hdr() {
  local t d=()
  row "$@"
  for t in "$@"; do d+=("$(tr -c '\n' - <<<"$t")"); done
  row "${d[@]}"
}

demo() {  # demo NAME BIN FIRST
  local name=$1 bin=$2 first=$3 slot p r t pid tid k i keys=() half=() rest=()
  echo "=== $name: 3 primaries + 3 replicas on ports $first-$((first + 5))"
  start_cluster "$bin" "$first"
  for i in 1 2 3 4 5 6; do keys+=("{demo}:$i"); done
  slot=$(redis-cli -p "$first" cluster keyslot '{demo}')
  p=$(owner_of "$first" "$slot")
  r=$(replica_of "$first" "$p")
  t=$(other_primary "$first" "$p")
  { [ -n "$p" ] && [ -n "$r" ] && [ -n "$t" ]; } ||
    die "could not find the slot's primary, its replica and another primary"
  pid=$(id_of "$p"); tid=$(id_of "$t")
  echo "Slot $slot (hash tag {demo}) belongs to :$p, whose replica is :$r; it will move to :$t."
  for k in "${keys[@]}"; do
    [ "$(cli "$p" SET "$k" "value-${k#*:}")" = OK ] || die "SET $k on $p failed"
  done
  cli "$p" WAIT 1 2000 >/dev/null
  half=("${keys[@]:0:3}"); rest=("${keys[@]:3}")

  echo
  echo "1. Open the migration, then MIGRATE ${half[*]} to :$t"
  step "$t" CLUSTER SETSLOT "$slot" IMPORTING "$pid"
  step "$p" CLUSTER SETSLOT "$slot" MIGRATING "$tid"
  step "$p" MIGRATE 127.0.0.1 "$t" "" 0 5000 KEYS "${half[@]}"
  cli "$p" WAIT 1 2000 >/dev/null  # the DELs reach the replica
  echo
  echo "2. While slot $slot is migrating:"
  show "$p" "$r" "${rest[0]}" "${half[0]}" "${keys[@]}"

  echo
  echo "3. Move the other keys, then give the slot to :$t (target first, then source)"
  step "$p" MIGRATE 127.0.0.1 "$t" "" 0 5000 KEYS "${rest[@]}"
  step "$t" CLUSTER SETSLOT "$slot" NODE "$tid"
  step "$p" CLUSTER SETSLOT "$slot" NODE "$tid"
  cli "$p" WAIT 1 2000 >/dev/null
  wait_owner "$r" "$slot" "$t"
  echo
  echo "4. After the migration:"
  hdr "key" "old owner :$p" "its replica :$r (READONLY)" "new owner :$t"
  for k in "${keys[@]}"; do
    row "$k" "$(cli "$p" GET "$k")" "$(ro "$r" GET "$k")" "$(cli "$t" GET "$k")"
  done
  echo
}

# show P R PRESENT MOVED KEYS...: each key's answer on the primary and on its READONLY replica,
# then an MGET of a key still on the source (PRESENT) and a moved one (MOVED).
show() {
  local p=$1 r=$2 present=$3 moved=$4 k; shift 4
  hdr "key" "primary :$p" "its replica :$r (READONLY)"
  for k in "$@"; do row "$k" "$(cli "$p" GET "$k")" "$(ro "$r" GET "$k")"; done
  echo
  echo "  MGET $present $moved (one key still on :$p, one moved):"
  printf '    %-18s %s\n' "primary :$p" "$(cli "$p" MGET "$present" "$moved")"
  printf '    %-18s %s\n' "replica :$r" "$(ro "$r" MGET "$present" "$moved")"
}

demo "Our nodes ($SERVER)" "$SERVER" "$PORT"
if [ $WITH7 = 1 ]; then
  demo "Redis 7.0 ($("$REDIS7" --version | awk '{print $3}'))" "$REDIS7" "$PORT7"
  echo "A Redis 7.0 replica does not learn open slots (SETSLOT is not replicated there): it"
  echo "answers a moved key with nil and the MGET with values, where a Valkey 8 replica redirects."
fi
