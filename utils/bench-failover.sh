#!/usr/bin/env bash
# bench-failover.sh -- cluster failover, our nodes against Debian's redis-server 7.0, side by side
# in one run, reported as ratios (ours / theirs) because the machine is shared and noisy.
#
#   utils/bench-failover.sh [--quick]
#
# Two clusters live side by side for the whole run, one of our nodes and one of redis-server
# nodes, each 3 primaries + 3 replicas (one replica per primary, `redis-cli --cluster create
# --cluster-replicas 1`), every node in its own directory with its own nodes.conf, started with
# --cluster-node-timeout NT --repl-diskless-sync-delay 0 --save "". Before every round a cluster
# must be settled: every node says cluster_state:ok, all nodes return the same CLUSTER SLOTS and
# the same topology in CLUSTER NODES (no fail/pfail flag), and every replica has
# master_link_status:up. Rounds alternate ours/theirs (ours first in odd rounds, theirs first in
# even ones), so that a drift of the machine's load hits both alike. Round r works on the shard
# of slot 0, 5461 or 10923 (for r = 1, 2, 3, then again), so each round hits another primary.
#
# Rows (seconds, median over ROUNDS rounds per server; lower is better):
#   kill -9 -> ok       kill -9 of a primary P, until every surviving node reports
#                       cluster_state:ok again AND P's replica R is a master owning P's slots in
#                       the myself line of its own CLUSTER NODES (the survivors say ok until P is
#                       marked FAIL, so "ok" alone would be met at once). Then P is restarted from
#                       its directory (same port, same nodes.conf), must rejoin as a replica and
#                       the cluster must settle again (not timed). Target: ratio <= 1.0.
#                       Also shown: when the first survivor reported cluster_state:fail and when
#                       R was a master with P's slots in its own view.
#   manual failover     CLUSTER FAILOVER sent to the replica R of a primary P, until R is a
#                       master owning P's slots in its own view AND in the CLUSTER NODES of every
#                       other node, AND every node (P included) shows P as a slave. No write load
#                       runs meanwhile. Target: ratio <= 1.0. Also shown: when every node
#                       (R included) first showed R as a master with P's slots.
# The polls (every POLL seconds) go over one plain bash /dev/tcp connection per node, so that no
# process is forked per poll and the timing overhead is the same for both servers.
#
# Exits 1 on a setup failure (a binary or port missing, a node that does not start, a cluster
# that does not form, or one that does not settle again between rounds); never because of a
# speed. A failover that does not converge within FAIL_WAIT seconds is counted as a timeout in
# its row (shown as "timeouts"), and the run goes on.
#
# Environment (defaults; with --quick):
#   ROWS (kill,manual: the rows to run), ROUNDS (3; 2), NT (cluster-node-timeout in ms, 5000),
#   OURS (src/valkey-server), THEIRS (/usr/bin/redis-server), OURS_ARGS / THEIRS_ARGS (extra
#   server arguments, word-split), POLL (seconds between two polls, 0.02), FAIL_WAIT (seconds a
#   failover may take before it counts as a timeout, NT*10/1000 + 30), SETTLE_WAIT (seconds a
#   cluster may take to settle, 120).
# Ports: two free bases in 15000-21999 (checked with bl_port_in_use, all 6 ports and their
# buses +10000 free), below the ephemeral range and away from bench-migrate.sh's 14001-14106.
set -u
export LC_ALL=C  # byte counts for the RESP reader below
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=utils/bench-lib.sh disable=SC1091
. utils/bench-lib.sh
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
q() { if [ $QUICK = 1 ]; then echo "$2"; else echo "$1"; fi; }
ROWS=${ROWS:-kill,manual}
ROUNDS=${ROUNDS:-$(q 3 2)}
NT=${NT:-5000}
POLL=${POLL:-0.02}
FAIL_WAIT=${FAIL_WAIT:-$((NT * 10 / 1000 + 30))}
SETTLE_WAIT=${SETTLE_WAIT:-120}

log() { printf '%s\n' "$*" >&2; }
die() { log "setup failed: $*"; exit 1; }

bl_init bench-failover
TMP=$BL_TMP
declare -A PID BASE BIN ARGS BROKEN
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local k
  for k in "${!PID[@]}"; do [ -n "${PID[$k]}" ] && kill -9 "${PID[$k]}" 2>/dev/null; done
  bl_stop_all
  rm -rf "$TMP"
}
trap cleanup EXIT

[ "${EPOCHREALTIME:-}" ] || die "bash 5 or newer needed (EPOCHREALTIME)"
[ -x "$OURS" ] || die "no server binary at $OURS"
[ -x "$THEIRS" ] || die "no server binary at $THEIRS"
command -v redis-cli >/dev/null || die "no redis-cli"
BIN[ours]=$OURS; BIN[theirs]=$THEIRS
ARGS[ours]=${OURS_ARGS:-}; ARGS[theirs]=${THEIRS_ARGS:-}

# ---------------------------------------------------------------------------------------------
# Nodes. Node I (0..5) of SIDE listens on BASE[SIDE]+I and lives in $TMP/SIDE-PORT.

# pick_base [AVOID]: a base port whose 6 ports and 6 bus ports are free (and not AVOID's range).
pick_base() {
  local avoid=${1:-0} b p
  for _ in $(seq 1 200); do
    b=$((15000 + RANDOM % 7000))
    ((b + 5 < avoid || b > avoid + 5)) || continue
    for p in $(seq "$b" $((b + 5))); do
      bl_port_in_use "$p" && continue 2
      bl_port_in_use $((p + 10000)) && continue 2
    done
    echo "$b"
    return 0
  done
  return 1
}

port_of() { echo $((BASE[$1] + $2)); }

# start_node SIDE I: start (or restart, from the same directory) one node.
start_node() {
  local side=$1 i=$2 p dir
  p=$(port_of "$side" "$i")
  dir="$TMP/$side-$p"
  mkdir -p "$dir"
  # shellcheck disable=SC2086  # ARGS are word-split on purpose
  (cd "$dir" && exec "${BIN[$side]}" --port "$p" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-config-file nodes.conf --cluster-node-timeout "$NT" \
    --repl-diskless-sync-delay 0 --save "" --appendonly no --dir "$dir" \
    --logfile node.log ${ARGS[$side]}) &
  PID[$side,$i]=$!
  disown
}

# wait_up SIDE I: PING answers PONG.
wait_up() {
  local p; p=$(port_of "$1" "$2")
  for _ in $(seq 1 200); do
    [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && return 0
    kill -0 "${PID[$1,$2]}" 2>/dev/null || break
    sleep 0.05
  done
  log "node $p ($1) did not start; log tail:"
  tail -n 5 "$TMP/$1-$p/node.log" >&2 2>/dev/null
  return 1
}

# kill_node SIDE I: kill -9, then wait until the process is gone and its port is closed.
kill_node() {
  local side=$1 i=$2 pid p
  pid=${PID[$side,$i]}; p=$(port_of "$side" "$i")
  kill -9 "$pid" 2>/dev/null
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || bl_port_in_use "$p" || break
    sleep 0.02
  done
  PID[$side,$i]=""
}

# ---------------------------------------------------------------------------------------------
# Topology from CLUSTER NODES text: "ID ROLE MASTER SLOTS" per node, sorted (myself and the
# fail/pfail flags dropped; a FAIL flag appears as its own word "fail" at the end of the line).
topo() {
  awk 'NF >= 8 {
         role = ($3 ~ /master/) ? "master" : ($3 ~ /slave/) ? "slave" : "?"
         bad = ($3 ~ /fail|handshake|noaddr/) ? " fail" : ""
         s = ""; for (i = 9; i <= NF; i++) s = s " " $i
         print $1, role, $4 s bad }' | sort
}

# settled SIDE: every node ok, same CLUSTER SLOTS, same topology (3 masters with slots, 3
# slaves, no failure flag), every slave's link up.
settled() {
  local side=$1 i p st sl tp ref_sl="" ref_tp=""
  for i in 0 1 2 3 4 5; do
    p=$(port_of "$side" "$i")
    st=$(redis-cli -p "$p" cluster info 2>/dev/null | tr -d '\r' | grep '^cluster_state:')
    [ "$st" = cluster_state:ok ] || return 1
    sl=$(redis-cli -p "$p" cluster slots 2>/dev/null) || return 1
    tp=$(redis-cli -p "$p" cluster nodes 2>/dev/null | topo) || return 1
    if [ $i = 0 ]; then ref_sl=$sl; ref_tp=$tp; fi
    [ "$sl" = "$ref_sl" ] && [ "$tp" = "$ref_tp" ] || return 1
    redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r' |
      awk -F: '$1 == "role" { r = $2 } $1 == "master_link_status" { l = $2 }
               END { exit !(r == "master" || (r == "slave" && l == "up")) }' || return 1
  done
  [ "$(grep -c ' master [^ ]* [0-9]' <<<"$ref_tp")" = 3 ] || return 1
  [ "$(grep -c ' slave ' <<<"$ref_tp")" = 3 ] || return 1
  ! grep -q ' fail$' <<<"$ref_tp"
}

# wait_settled SIDE: poll settled() for SETTLE_WAIT seconds; on failure log why.
wait_settled() {
  local side=$1 end=$((SECONDS + SETTLE_WAIT)) p i
  while ((SECONDS < end)); do
    settled "$side" && return 0
    sleep 0.1
  done
  log "  $side: the cluster did not settle within ${SETTLE_WAIT}s; per node:"
  for i in 0 1 2 3 4 5; do
    p=$(port_of "$side" "$i")
    log "    $p: $(redis-cli -p "$p" cluster info 2>/dev/null | tr -d '\r' |
      grep '^cluster_state:') $(redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r' |
      grep -E '^(role|master_link_status):' | tr '\n' ' ')"
    redis-cli -p "$p" cluster nodes 2>/dev/null | sed 's/^/      /' >&2
  done
  return 1
}

create_cluster() {
  local side=$1 i hosts=""
  for i in 0 1 2 3 4 5; do
    bl_port_in_use "$(port_of "$side" "$i")" && die "port $(port_of "$side" "$i") is in use"
    start_node "$side" "$i"
  done
  for i in 0 1 2 3 4 5; do
    wait_up "$side" "$i" || die "$side node $(port_of "$side" "$i") did not start"
    hosts="$hosts 127.0.0.1:$(port_of "$side" "$i")"
  done
  # shellcheck disable=SC2086
  redis-cli --cluster create $hosts --cluster-replicas 1 --cluster-yes \
    >"$TMP/create-$side.log" 2>&1 || die "$side: create: $(tail -3 "$TMP/create-$side.log")"
  wait_settled "$side" || die "$side: the new cluster did not settle"
}

# nodes_of SIDE: "INDEX ID ROLE MASTER_ID SLOTS" for every node, from node 0's CLUSTER NODES.
nodes_of() {
  local side=$1 p0
  p0=$(port_of "$side" 0)
  redis-cli -p "$p0" cluster nodes 2>/dev/null |
    awk -v b="${BASE[$side]}" 'NF >= 8 {
      split($2, a, "@"); n = split(a[1], h, ":"); s = ""
      for (i = 9; i <= NF; i++) s = s (s == "" ? "" : " ") $i
      print h[n] - b, $1, ($3 ~ /master/ ? "master" : "slave"), $4, s }'
}

# shard SIDE R: sets SH_P, SH_PID (index and id of the primary owning the round's slot),
# SH_R, SH_RID (its replica), SH_SLOTS (the primary's slots as CLUSTER NODES shows them).
shard() {
  local side=$1 slot idx id role master slots rg
  case $((($2 - 1) % 3)) in 0) slot=0 ;; 1) slot=5461 ;; 2) slot=10923 ;; esac
  SH_P=""; SH_R=""
  while read -r idx id role master slots; do
    if [ "$role" != master ] || [ -z "$slots" ]; then continue; fi
    for rg in $slots; do
      if ((slot >= ${rg%-*} && slot <= ${rg#*-})); then SH_P=$idx; SH_PID=$id; SH_SLOTS=$slots; fi
    done
  done < <(nodes_of "$side")
  [ -n "$SH_P" ] || return 1
  while read -r idx id role master slots; do
    [ "$role" = slave ] && [ "$master" = "$SH_PID" ] && { SH_R=$idx; SH_RID=$id; }
  done < <(nodes_of "$side")
  [ -n "$SH_R" ]
}

# ---------------------------------------------------------------------------------------------
# A minimal RESP client on bash's /dev/tcp: no fork per request. FD[I] is node I's connection.
declare -A FD
conn_open() {  # conn_open SIDE I
  local fd
  # (the braces: "exec ... 2>/dev/null" alone would silence the script's stderr for good)
  { exec {fd}<>"/dev/tcp/127.0.0.1/$(port_of "$1" "$2")"; } 2>/dev/null || return 1
  FD[$2]=$fd
}
conn_close() {  # conn_close I
  local fd=${FD[$1]:-}
  [ -z "$fd" ] || exec {fd}>&-
  unset "FD[$1]"
}
conn_close_all() { local i; for i in "${!FD[@]}"; do conn_close "$i"; done; }

# call I ARGS..: one request on node I's connection; the reply is in REPLY_TXT (bulk string,
# simple string or integer). Returns 1 (and closes the connection) on an I/O error or timeout,
# 2 on an error reply.
call() {
  local i=$1 fd line req a; shift
  fd=${FD[$i]:-}
  [ -n "$fd" ] || return 1
  req="*$#"$'\r\n'
  for a in "$@"; do req+="\$${#a}"$'\r\n'"$a"$'\r\n'; done
  REPLY_TXT=""
  if { printf '%s' "$req" >&"$fd"; } 2>/dev/null && IFS= read -r -t 2 -u "$fd" line; then
    line=${line%$'\r'}
    case $line in
      '$-1') return 0 ;;
      # (no -t here: bash reads much slower with a timeout, and the body follows the header)
      '$'*) if IFS= read -r -d '' -N $((${line:1} + 2)) -u "$fd" REPLY_TXT; then
              REPLY_TXT=${REPLY_TXT%$'\r\n'}
              return 0
            fi ;;
      [+:]*) REPLY_TXT=${line:1}; return 0 ;;
      -*) REPLY_TXT=${line:1}; return 2 ;;
    esac
  fi
  conn_close "$i"
  return 1
}

# line_has TEXT ID ROLE [SLOTS]: in CLUSTER NODES TEXT, node ID has ROLE (and exactly SLOTS).
line_has() {
  local l f
  while IFS= read -r l; do
    [[ $l == "$2 "* ]] || continue
    read -r -a f <<<"$l"
    [[ ,${f[2]}, == *,"$3",* && ,${f[2]}, != *,fail* ]] || return 1
    [ $# -lt 4 ] || [ "${f[*]:8}" = "$4" ]
    return
  done <<<"$1"
  return 1
}

# secs_between T0 T1: seconds between two EPOCHREALTIME values, as seconds with 3 decimals.
secs_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }

declare -A S  # S[side,row]: the samples, space separated; S[side,row_to]: timeouts
add() { S[$1,$2]="${S[$1,$2]:-} $3"; }

# ---------------------------------------------------------------------------------------------
# Row 1: kill -9 a primary, until all survivors are ok and its replica owns its slots.
round_kill() {
  local side=$1 r=$2 i t0 end tfail="" tmaster="" all st secs="" p
  [ -z "${BROKEN[$side]:-}" ] || return 0
  shard "$side" "$r" || die "$side: no primary/replica pair for round $r"
  trap '' PIPE  # a write to a node that just died must fail, not kill the script
  p=$(port_of "$side" "$SH_P")
  for i in 0 1 2 3 4 5; do
    [ "$i" = "$SH_P" ] || conn_open "$side" "$i" || die "$side: cannot connect to node $i"
  done
  end=$((SECONDS + FAIL_WAIT))
  t0=$(bl_now)
  kill -9 "${PID[$side,$SH_P]}"
  while :; do
    all=1
    for i in 0 1 2 3 4 5; do
      [ "$i" = "$SH_P" ] && continue
      [ -n "${FD[$i]:-}" ] || conn_open "$side" "$i" || { all=0; continue; }
      if call "$i" CLUSTER INFO; then
        st=${REPLY_TXT#*cluster_state:}; st=${st%%[$'\r\n']*}
      else
        st=none
      fi
      [ "$st" = ok ] || all=0
      [ "$st" = fail ] && [ -z "$tfail" ] && tfail=${EPOCHREALTIME/,/.}
    done
    if call "$SH_R" CLUSTER NODES && line_has "$REPLY_TXT" "$SH_RID" myself &&
      line_has "$REPLY_TXT" "$SH_RID" master "$SH_SLOTS"; then
      [ -n "$tmaster" ] || tmaster=${EPOCHREALTIME/,/.}
      if [ $all = 1 ]; then secs=$(bl_since "$t0"); break; fi
    fi
    ((SECONDS < end)) || break
    sleep "$POLL"
  done
  conn_close_all
  trap - PIPE
  kill_node "$side" "$SH_P"
  if [ -n "$secs" ]; then
    add "$side" kill "$secs"
    [ -n "$tfail" ] && add "$side" kfail "$(secs_between "$t0" "$tfail")"
    add "$side" kmaster "$(secs_between "$t0" "$tmaster")"
    log "  $side round $r: killed $p, replica $(port_of "$side" "$SH_R") took over:" \
      "all ok after ${secs}s (first fail seen $([ -n "$tfail" ] && secs_between "$t0" "$tfail")s," \
      "replica master $(secs_between "$t0" "$tmaster")s)"
  else
    S[$side,kill_to]=$((${S[$side,kill_to]:-0} + 1))
    log "  $side round $r: killed $p; no convergence within ${FAIL_WAIT}s (timeout)"
  fi
  start_node "$side" "$SH_P"
  wait_up "$side" "$SH_P" || die "$side: node $p did not restart"
  if ! wait_settled "$side"; then
    log "  $side: the cluster did not settle after node $p restarted; no more rounds for $side"
    BROKEN[$side]=1
    return 0
  fi
  if [ -n "$secs" ] && { ! shard "$side" "$r" || [ "$SH_R" != "$((p - BASE[$side]))" ]; }; then
    log "  $side: note: the restarted node $p is not the replica of its shard's new primary"
  fi
}

# Row 2: CLUSTER FAILOVER on a replica, until every node sees the swap.
round_manual() {
  local side=$1 r=$2 i t0 end all rall secs view tview=""
  [ -z "${BROKEN[$side]:-}" ] || return 0
  shard "$side" "$r" || die "$side: no primary/replica pair for round $r"
  trap '' PIPE
  for i in 0 1 2 3 4 5; do conn_open "$side" "$i" || die "$side: cannot connect to node $i"; done
  end=$((SECONDS + FAIL_WAIT))
  t0=$(bl_now)
  call "$SH_R" CLUSTER FAILOVER
  if [ "$REPLY_TXT" != OK ]; then
    log "  $side round $r: CLUSTER FAILOVER on $(port_of "$side" "$SH_R") answered: $REPLY_TXT"
  fi
  secs=""
  while :; do
    all=1 rall=1
    for i in 0 1 2 3 4 5; do
      [ -n "${FD[$i]:-}" ] || conn_open "$side" "$i" || { all=0 rall=0; break; }
      call "$i" CLUSTER NODES || { all=0 rall=0; break; }
      view=$REPLY_TXT
      line_has "$view" "$SH_RID" master "$SH_SLOTS" || { all=0 rall=0; break; }
      line_has "$view" "$SH_PID" slave || all=0
    done
    [ $rall = 0 ] || [ -n "$tview" ] || tview=${EPOCHREALTIME/,/.}
    if [ $all = 1 ]; then secs=$(bl_since "$t0"); break; fi
    ((SECONDS < end)) || break
    sleep "$POLL"
  done
  conn_close_all
  trap - PIPE
  if [ -n "$secs" ]; then
    add "$side" manual "$secs"
    add "$side" mmaster "$(secs_between "$t0" "$tview")"
    log "  $side round $r: $(port_of "$side" "$SH_R") replaced $(port_of "$side" "$SH_P")" \
      "in every view after ${secs}s (new primary everywhere after" \
      "$(secs_between "$t0" "$tview")s)"
  else
    S[$side,manual_to]=$((${S[$side,manual_to]:-0} + 1))
    log "  $side round $r: CLUSTER FAILOVER on $(port_of "$side" "$SH_R"): no convergence" \
      "within ${FAIL_WAIT}s (timeout)"
  fi
  if ! wait_settled "$side"; then
    log "  $side: the cluster did not settle after the manual failover; no more rounds for $side"
    BROKEN[$side]=1
  fi
}

# ---------------------------------------------------------------------------------------------
BASE[ours]=$(pick_base) || die "no free base port"
BASE[theirs]=$(pick_base "${BASE[ours]}") || die "no free base port"
log "ours:   $OURS (ports ${BASE[ours]}-$((BASE[ours] + 5)))"
log "theirs: $THEIRS (ports ${BASE[theirs]}-$((BASE[theirs] + 5)))"
log "3 primaries + 3 replicas each, cluster-node-timeout $NT ms, $ROUNDS rounds per row"
for side in ours theirs; do
  log "[$side] create the cluster"
  create_cluster "$side"
done
VERSION_OURS=$(BL_PORT_o=$(port_of ours 0) bl_version o)
VERSION_THEIRS=$(BL_PORT_t=$(port_of theirs 0) bl_version t)

# order R: ours first in odd rounds, theirs first in even ones.
order() { if (($1 % 2)); then echo ours theirs; else echo theirs ours; fi; }
if [[ $ROWS == *kill* ]]; then
  log "[kill -9 -> ok]"
  for r in $(seq 1 "$ROUNDS"); do
    for side in $(order "$r"); do round_kill "$side" "$r"; done
  done
fi
if [[ $ROWS == *manual* ]]; then
  log "[manual failover]"
  for r in $(seq 1 "$ROUNDS"); do
    for side in $(order "$r"); do round_manual "$side" "$r"; done
  done
fi

# ---------------------------------------------------------------------------------------------
ROW_FMT='%-24s %9s %9s %7s   %s\n'
# shellcheck disable=SC2059  # one format for the header and the rows
row() { printf "$ROW_FMT" "$@"; }
line() { bl_ratio_row "$ROW_FMT" "$1" "${S[ours,$2]:-}" "${S[theirs,$2]:-}" "$3"; }
echo
echo "versions: ours=$VERSION_OURS  theirs=$VERSION_THEIRS  (NT=$NT ms, $ROUNDS rounds, medians)"
row "row" "ours" "theirs" "ratio" "target"
if [[ $ROWS == *kill* ]]; then
  line "kill -9 -> ok (s)" kill "<= 1.0"
  line "  first fail seen (s)" kfail "-"
  line "  replica promoted (s)" kmaster "-"
fi
if [[ $ROWS == *manual* ]]; then
  line "manual failover (s)" manual "<= 1.0"
  line "  new primary seen (s)" mmaster "-"
fi
for k in kill manual; do
  [[ $ROWS == *$k* ]] || continue
  if [ -n "${S[ours,${k}_to]:-}${S[theirs,${k}_to]:-}" ]; then
    row "  $k: timeouts" "${S[ours,${k}_to]:-0}" "${S[theirs,${k}_to]:-0}" "-" "-"
  fi
done
for side in ours theirs; do
  [ -z "${BROKEN[$side]:-}" ] || { log "$side: a cluster did not settle again (see above)"; exit 1; }
done
exit 0
