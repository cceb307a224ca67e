#!/usr/bin/env bash
# Moves slots between two primaries of a running cluster with atomic slot migration: one
# CLUSTER MIGRATESLOTS on the source, then CLUSTER GETSLOTMIGRATIONS polled every 100 ms with a
# progress line (keys sent, queued bytes, rate, elapsed), and a summary. Clients see MOVED once
# per slot at the end, never ASK or TRYAGAIN.
#
#   utils/migrate-slots.sh HOST:PORT --from SRC --to DST (--slots N | --range A-B [--range ...])
#
# SRC and DST are node IDs or host:port of primaries; HOST:PORT is any node. --slots N takes the
# source's N lowest slots. Needs redis-cli (Debian: redis-tools). Extra redis-cli options (e.g.
# -a PASSWORD --user NAME) go in $CLI_OPTS.
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
entry=$1; shift
from=; to=; count=; ranges=()
while [ $# -gt 0 ]; do
  case $1 in
    --from) from=$2; shift 2 ;;
    --to) to=$2; shift 2 ;;
    --slots) count=$2; shift 2 ;;
    --range) ranges+=("$2"); shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$from" ] && [ -n "$to" ] || usage
[ -n "$count" ] || [ ${#ranges[@]} -gt 0 ] || usage
command -v redis-cli >/dev/null || { echo "redis-cli not found (apt-get install redis-tools)" >&2; exit 1; }

cli() { local hp=$1; shift; redis-cli ${CLI_OPTS:-} -h "${hp%:*}" -p "${hp##*:}" "$@"; }

nodes=$(cli "$entry" cluster nodes)
# A node ID or host:port -> "id host:port"; primaries only.
resolve() {
  awk -v want="$1" '{
    split($2, a, "@"); hp = a[1]; sub(/^[^:]*:/, "", a[1])
    if (($1 == want || hp == want) && $3 ~ /master/) { print $1, hp; found = 1 }
  } END { if (!found) exit 1 }' <<<"$nodes" || { echo "no primary $1 in CLUSTER NODES" >&2; exit 1; }
}
read -r src_id src_hp < <(resolve "$from")
read -r dst_id dst_hp < <(resolve "$to")

# The source's slots, one per line.
src_slots() {
  awk -v id="$src_id" '$1 == id { for (i = 9; i <= NF; i++) if ($i !~ /^\[/) print $i }' <<<"$nodes" |
    while IFS=- read -r lo hi; do seq "$lo" "${hi:-$lo}"; done
}
if [ -n "$count" ]; then
  mapfile -t chosen < <(src_slots | sort -n | head -n "$count")
  [ ${#chosen[@]} -eq "$count" ] || { echo "the source serves only ${#chosen[@]} slots" >&2; exit 1; }
else
  chosen=()
  for r in "${ranges[@]}"; do
    IFS=- read -r lo hi <<<"$r"
    mapfile -t -O ${#chosen[@]} chosen < <(seq "$lo" "${hi:-$lo}")
  done
fi
# Consecutive slots -> SLOTSRANGE pairs.
args=(); prev=; start=
for s in $(printf '%s\n' "${chosen[@]}" | sort -n | uniq); do
  if [ -z "$start" ]; then start=$s
  elif [ "$s" -ne $((prev + 1)) ]; then args+=("$start" "$prev"); start=$s; fi
  prev=$s
done
args+=("$start" "$prev")

total=$(printf 'CLUSTER COUNTKEYSINSLOT %s\n' "${chosen[@]}" | cli "$src_hp" | awk '{ n += $1 } END { print n + 0 }')
echo "moving ${#chosen[@]} slots ($total keys) from $src_id ($src_hp) to $dst_id ($dst_hp)"

reply=$(cli "$src_hp" cluster migrateslots slotsrange "${args[@]}" node "$dst_id")
[ "$reply" = OK ] || { echo "MIGRATESLOTS: $reply" >&2; exit 1; }

# The last export job's fields, as "field value" lines.
job() {
  cli "$src_hp" cluster getslotmigrations | awk '
    /^name$/ && (n % 2 == 0) { if (op == "EXPORT") { m = n; for (i = 1; i <= n; i++) keep[i] = line[i] } n = 0; op = "" }
    { line[++n] = $0; if (n % 2 == 0 && line[n - 1] == "operation") op = $0 }
    END {
      if (op == "EXPORT") { m = n; for (i = 1; i <= n; i++) keep[i] = line[i] }
      for (i = 1; i < m; i += 2) print keep[i], keep[i + 1]
    }'
}
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$info"; }

t0=$(date +%s.%N)
while :; do
  info=$(job)
  state=$(field state); keys=$(field keys_sent); queued=$(field remaining_repl_size)
  el=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
  rate=$(awk -v k="$keys" -v e="$el" 'BEGIN { printf "%d", (e > 0 ? k / e : 0) }')
  pct=$([ "$total" -gt 0 ] && echo $((keys * 100 / total)) || echo 100)
  [ "$pct" -gt 100 ] && pct=100
  bar=$(printf '%*s' $((pct / 5)) '' | tr ' ' '#')
  printf '\r[%-20s] %3d%%  %s/%s keys  %s B queued  %s keys/s  %ss  %-26s' \
    "$bar" "$pct" "$keys" "$total" "$queued" "$rate" "$el" "$state"
  case $state in success|failed|cancelled) break ;; esac
  sleep 0.1
done
echo
echo "state: $state$( [ -n "$(field message)" ] && echo " ($(field message))")"
echo "keys sent: $(field keys_sent), writes forwarded: $(field writes_forwarded), writes held $(field write_hold_ms) ms at the handover"
[ "$state" = success ]
