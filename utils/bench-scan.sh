#!/usr/bin/env bash
# bench-scan.sh -- SCAN / HSCAN / SSCAN / ZSCAN throughput, our server against Debian's
# redis-server 7.0, side by side in one run, reported as ratios (ours / theirs) because the
# machine is shared and noisy.
#
#   utils/bench-scan.sh [--quick]
#
# One standalone server of each kind (no persistence), both with the small encodings switched
# off (hash-max-listpack-entries, set-max-listpack-entries, set-max-intset-entries and
# zset-max-listpack-entries set to 0 with CONFIG SET, each only where the server knows the name:
# redis 7.0 has no set-max-listpack-entries, and needs none, its sets of strings are hash tables).
# db 0 holds KEYS string keys key:%07d; db 1 holds one hash h (fields f%07d), one set s and one
# sorted set z (members m:%07d) of FIELDS elements each. Before the rows run, DBSIZE, HLEN,
# SCARD, ZCARD and OBJECT ENCODING (hashtable, hashtable, skiplist) must be as expected.
#
# Rows (elements per second of a full cursor walk, 0 back to 0, median over ROUNDS rounds per
# server; higher is better; target for ours: ratio >= 1.0 in every row):
#   scan100     SCAN cursor COUNT 100 over db 0 (an element is a key)
#   scan1000    SCAN cursor COUNT 1000 over db 0
#   hscan       HSCAN h cursor COUNT 100 (an element is a field with its value)
#   sscan       SSCAN s cursor COUNT 100
#   zscan       ZSCAN z cursor COUNT 100 (an element is a member with its score)
# Under each row: the same elements per second of the server's main-thread CPU time
# (/proc/PID/schedstat), which the machine's noise moves less.
#
# Our cursors carry a fingerprint of the hash seed in bits 48-62, so they are large numbers;
# the walker sends every cursor back verbatim, as the decimal string the server returned. The
# first cursor of each server is shown with the table.
#
# The walker is a small python3 program (raw sockets, no client library), the same for both
# servers: WALKS independent walks, one connection each, round-robin; as soon as a reply's
# cursor has arrived the next SCAN of that walk is sent, then the rest of the reply is taken in
# raw (only its CR LFs counted) and split after the clock has stopped, so that the server
# always has work queued and is the bottleneck as far as possible. A measurement repeats the
# WALKS walks until they have taken MIN_SECS in all, so that a short walk (--quick) is not all
# noise. A round is one measurement per server, ours first in odd rounds, theirs first in even
# ones; one untimed warm-up pass per server precedes each row. Every walk, warm-up included,
# must return exactly the expected number of distinct elements (KEYS or FIELDS) and end on
# cursor 0.
#
# Exits 1 on a setup failure (a binary missing, a server that does not start, a load that
# fails, a wrong encoding or count, a walk that does not return every element exactly); never
# because of a speed.
#
# Environment (defaults; with --quick):
#   ROWS (scan100,scan1000,hscan,sscan,zscan: the rows to run), KEYS (1000000; 200000),
#   FIELDS (1000000; 200000), ROUNDS (5; 3), WALKS (parallel walks per measurement, 2),
#   MIN_SECS (least walk time per measurement, 1),
#   OURS (src/valkey-server), THEIRS (/usr/bin/redis-server), OURS_ARGS / THEIRS_ARGS (extra
#   server arguments, word-split), PYTHON (python3).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=utils/bench-lib.sh disable=SC1091
. utils/bench-lib.sh
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
PYTHON=${PYTHON:-python3}
bl_quick_arg "$@"
ROWS=${ROWS:-scan100,scan1000,hscan,sscan,zscan}
KEYS=${KEYS:-$(q 1000000 200000)}
FIELDS=${FIELDS:-$(q 1000000 200000)}
ROUNDS=${ROUNDS:-$(q 5 3)}
WALKS=${WALKS:-2}
MIN_SECS=${MIN_SECS:-1}

log() { printf '%s\n' "$*" >&2; }
die() { log "setup failed: $*"; exit 1; }

for v in KEYS FIELDS ROUNDS WALKS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[[ $MIN_SECS =~ ^[0-9]+([.][0-9]*)?$ ]] || die "MIN_SECS must be a number (got '$MIN_SECS')"
ALL_ROWS=(scan100 scan1000 hscan sscan zscan)
RUN_ROWS=()
for r in ${ROWS//,/ }; do
  [[ " ${ALL_ROWS[*]} " == *" $r "* ]] || die "unknown row '$r' (rows: ${ALL_ROWS[*]})"
  RUN_ROWS+=("$r")
done
((${#RUN_ROWS[@]})) || die "ROWS is empty"

bl_init bench-scan
TMP=$BL_TMP

# ---------------------------------------------------------------------------------------------
# The walker. argv: port pid db count walks expect min_secs CMD [KEY]
# Runs `walks` walks side by side, again and again until they have taken min_secs in all (at
# least once), and prints "elem_per_s elem_per_cpu_s secs passes replies returned first_cursor"
# (elements counted as passes * walks * expect; replies and returned, duplicates included, are
# sums over every walk of every pass). Exits 1 with a message when a walk does not return
# exactly `expect` distinct elements.
cat >"$TMP/walk.py" <<'PY'
import socket, sys, time

def die(msg):
    sys.stderr.write('walk: %s\n' % msg)
    sys.exit(1)

port, pid, db, count, walks, expect, min_secs = sys.argv[1:8]
cmd = sys.argv[8].encode()
key = sys.argv[9].encode() if len(sys.argv) > 9 else None
walks, expect, min_secs = int(walks), int(expect), float(min_secs)
pairs = cmd in (b'HSCAN', b'ZSCAN')
step = 4 if pairs else 2          # reply strings per element: [$len, name] or [$len, name, $len, value]

def bulk(b):
    return b'$%d\r\n%s\r\n' % (len(b), b)

# The command around the cursor: PREFIX + bulk(cursor) + SUFFIX.
n_args = 4 if key is None else 5
PREFIX = b'*%d\r\n' % n_args + bulk(cmd) + (bulk(key) if key is not None else b'')
SUFFIX = bulk(b'COUNT') + bulk(count.encode())

def cpu_ns():
    try:
        with open('/proc/%s/schedstat' % pid) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        with open('/proc/%s/stat' % pid) as f:
            fs = f.read().rsplit(')', 1)[1].split()
        return (int(fs[11]) + int(fs[12])) * 10**9 // 100  # utime + stime, at USER_HZ 100

class Walk:
    def __init__(self):
        self.s = socket.create_connection(('127.0.0.1', int(port)), timeout=120)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b''
        self.pos = 0
        self.got = []      # the element strings of each reply, raw: $len CR LF data CR LF ...
        self.replies = 0
        self.first = None

    def fill(self):
        d = self.s.recv(1 << 18)
        if not d:
            die('connection closed by the server')
        self.buf = self.buf[self.pos:] + d
        self.pos = 0

    def line(self):
        while True:
            i = self.buf.find(b'\r\n', self.pos)
            if i >= 0:
                l = self.buf[self.pos:i]
                self.pos = i + 2
                return l
            self.fill()

    def select(self):
        self.s.sendall(b'*2\r\n$6\r\nSELECT\r\n' + bulk(db.encode()))
        l = self.line()
        if l != b'+OK':
            die('SELECT %s: %r' % (db, l))

    def send(self, cursor):
        self.s.sendall(PREFIX + bulk(cursor) + SUFFIX)

    def step(self):
        """Take in one reply; send the next SCAN as soon as its cursor is known. False at the end."""
        l = self.line()
        if l != b'*2':
            die('unexpected reply %r' % (l + self.buf[self.pos:self.pos + 200]))
        self.line()                     # $len of the cursor
        cursor = self.line()
        l = self.line()
        if l[:1] != b'*':
            die('unexpected element header %r' % l)
        more = cursor != b'0'
        if more:
            self.send(cursor)
        n = int(l[1:]) * 2              # strings in the array: a $len line and the data each
        self.replies += 1
        if self.first is None:
            self.first = cursor
        if n:
            # The data hold no CR LF (keys, fields, values, members and scores of this load), so
            # the array ends at the n-th CR LF from here. The strings are kept as they came and
            # split only after the clock has stopped.
            buf, pos = self.buf, self.pos
            c = buf.count(b'\r\n', pos)
            while c < n:
                self.fill()
                buf, pos = self.buf, self.pos
                c = buf.count(b'\r\n', pos)
            if c == n and buf.endswith(b'\r\n'):
                # the usual case: the buffer ends with this reply (one SCAN per connection is
                # outstanding, and the next one was sent only after this reply's header)
                self.got.append(buf[pos:] if pos else buf)
                self.buf = b''
            else:
                parts = buf[pos:].split(b'\r\n', n)
                self.buf = parts.pop()
                self.got.append(b'\r\n'.join(parts) + b'\r\n')
            self.pos = 0
        return more

    def elements(self):
        """Element names (keys, fields or members) of every reply, as lists."""
        for chunk in self.got:
            yield chunk.split(b'\r\n')[1::step]

ws = [Walk() for _ in range(walks)]
for w in ws:
    w.select()
limit = expect * 4 + 1000               # replies; a walk that never ends is a failure
secs = cpu = 0.0
passes = replies = returned = 0
first = None
while passes == 0 or secs < min_secs:
    for w in ws:
        w.got, w.replies = [], 0
    c0 = cpu_ns()
    t0 = time.perf_counter()
    for w in ws:
        w.send(b'0')
    active = ws
    while active:
        active = [w for w in active if w.step()]
        if any(w.replies > limit for w in active):
            die('a walk did not end after %d replies' % limit)
    secs += time.perf_counter() - t0
    cpu += (cpu_ns() - c0) / 1e9
    passes += 1
    # (the clock is stopped) every walk must have returned every element
    for i, w in enumerate(ws):
        seen = set()
        mine = 0
        for g in w.elements():
            seen.update(g)
            mine += len(g)
        if len(seen) != expect:
            die('walk %d of %d returned %d distinct elements, expected %d (%d with duplicates)'
                % (i + 1, walks, len(seen), expect, mine))
        if w.buf[w.pos:]:
            die('trailing bytes after the last reply: %r' % w.buf[w.pos:w.pos + 100])
        returned += mine
        replies += w.replies
        if first is None:
            first = w.first
    for w in ws:
        w.got = []
elems = passes * walks * expect
print('%.0f %s %.4f %d %d %d %s' % (elems / secs, '%.0f' % (elems / cpu) if cpu > 0 else 'n/a',
                                    secs, passes, replies, returned, first.decode()))
PY

# ---------------------------------------------------------------------------------------------
[ -x "$OURS" ] || die "no server binary at $OURS"
[ -x "$THEIRS" ] || die "no server binary at $THEIRS"
command -v redis-cli >/dev/null || die "no redis-cli"
command -v "$PYTHON" >/dev/null || die "no $PYTHON"
"$PYTHON" -c 'import socket, time' 2>/dev/null || die "$PYTHON does not run"

log "ours:   $OURS"
log "theirs: $THEIRS"
# shellcheck disable=SC2086  # *_ARGS are word-split on purpose
bl_start ours "$OURS" ${OURS_ARGS:-} || die "ours did not start"
# shellcheck disable=SC2086
bl_start theirs "$THEIRS" ${THEIRS_ARGS:-} || die "theirs did not start"
VERSION_OURS=$(bl_version ours)
VERSION_THEIRS=$(bl_version theirs)

for side in ours theirs; do
  for p in hash-max-listpack-entries set-max-listpack-entries set-max-intset-entries \
    zset-max-listpack-entries; do
    if [ -n "$(bl_cli "$side" config get "$p" 2>/dev/null)" ]; then
      [ "$(bl_cli "$side" config set "$p" 0 2>&1)" = OK ] || die "$side: CONFIG SET $p 0 failed"
    else
      log "[$side] does not know $p (not set)"
    fi
  done
done

# Load files. Batches of 1000 elements per HSET/SADD/ZADD.
log "generate $KEYS keys and 3 x $FIELDS elements"
bl_gen_set_file "$TMP/keys.resp" "$KEYS" || die "cannot write $TMP/keys.resp"
LC_ALL=C awk -v n="$FIELDS" -v b=1000 '
  function bulk(s) { return "$" length(s) "\r\n" s "\r\n" }
  function batch(cmd, key, kind,   i, j, m, out) {
    for (i = 0; i < n; i += b) {
      m = (n - i < b) ? n - i : b
      out = sprintf("*%d\r\n%s%s", 2 + m * (kind == "s" ? 1 : 2), bulk(cmd), bulk(key))
      for (j = i; j < i + m; j++) {
        if (kind == "h") out = out bulk(sprintf("f%07d", j)) bulk(sprintf("v%07d", j))
        else if (kind == "s") out = out bulk(sprintf("m:%07d", j))
        else out = out bulk(j) bulk(sprintf("m:%07d", j))
      }
      printf "%s", out
    }
  }
  BEGIN {
    printf "*2\r\n$6\r\nSELECT\r\n$1\r\n1\r\n"
    batch("HSET", "h", "h"); batch("SADD", "s", "s"); batch("ZADD", "z", "z")
  }' >"$TMP/big.resp" || die "cannot write $TMP/big.resp"
BIG_REPLIES=$((1 + 3 * ((FIELDS + 999) / 1000)))

for side in ours theirs; do
  t0=$(bl_now)
  bl_pipe_load "$side" "$TMP/keys.resp" "$KEYS" || die "$side: loading the keys failed"
  bl_pipe_load "$side" "$TMP/big.resp" "$BIG_REPLIES" || die "$side: loading h, s, z failed"
  log "[$side] loaded in $(bl_since "$t0")s"
  got="$(bl_cli "$side" -n 0 dbsize) $(bl_cli "$side" -n 1 hlen h) $(bl_cli "$side" -n 1 scard s)"
  got="$got $(bl_cli "$side" -n 1 zcard z) $(bl_cli "$side" -n 1 dbsize)"
  [ "$got" = "$KEYS $FIELDS $FIELDS $FIELDS 3" ] ||
    die "$side: DBSIZE 0, HLEN, SCARD, ZCARD, DBSIZE 1 are '$got', expected '$KEYS $FIELDS $FIELDS $FIELDS 3'"
  enc="$(bl_cli "$side" -n 1 object encoding h) $(bl_cli "$side" -n 1 object encoding s)"
  enc="$enc $(bl_cli "$side" -n 1 object encoding z)"
  [ "$enc" = "hashtable hashtable skiplist" ] ||
    die "$side: encodings of h, s, z are '$enc', expected 'hashtable hashtable skiplist'"
done
rm -f "$TMP/keys.resp" "$TMP/big.resp"

# ---------------------------------------------------------------------------------------------
declare -A S FIRST  # S[side,row] / S[side,row_cpu]: samples, space separated
add() { S[$1,$2]="${S[$1,$2]:-} $3"; }

# walk SIDE ROW MIN_SECS: one run of the walker; prints its output line, or fails.
walk() {
  local side=$1 row=$2 min=$3 db=1 count=100 expect=$FIELDS args
  case $row in
    scan100) db=0; count=100; expect=$KEYS; args=(SCAN) ;;
    scan1000) db=0; count=1000; expect=$KEYS; args=(SCAN) ;;
    hscan) args=(HSCAN h) ;;
    sscan) args=(SSCAN s) ;;
    zscan) args=(ZSCAN z) ;;
  esac
  bl_alive "$side" || { log "$side: the server is gone"; return 1; }
  "$PYTHON" "$TMP/walk.py" "$(bl_port "$side")" "$(bl_pid "$side")" "$db" "$count" "$WALKS" \
    "$expect" "$min" "${args[@]}"
}

label() {
  case $1 in
    scan100) echo "SCAN COUNT 100" ;;
    scan1000) echo "SCAN COUNT 1000" ;;
    hscan) echo "HSCAN COUNT 100" ;;
    sscan) echo "SSCAN COUNT 100" ;;
    zscan) echo "ZSCAN COUNT 100" ;;
  esac
}

# order R: ours first in odd rounds, theirs first in even ones.
order() { if (($1 % 2)); then echo ours theirs; else echo theirs ours; fi; }

log "$ROUNDS rounds per row, $WALKS parallel walks per measurement"
for row in "${RUN_ROWS[@]}"; do
  log "[$(label "$row")]"
  for side in ours theirs; do
    out=$(walk "$side" "$row" 0) || die "$side: $(label "$row"): the warm-up walk failed"
    read -r rate cpu secs passes replies returned first <<<"$out"
    [ -n "${FIRST[$side]:-}" ] || FIRST[$side]=$first
    log "  $side warm-up: $rate elem/s, $replies replies, first cursor $first"
  done
  for r in $(seq 1 "$ROUNDS"); do
    for side in $(order "$r"); do
      out=$(walk "$side" "$row" "$MIN_SECS") ||
        die "$side: $(label "$row") round $r: the walk failed"
      read -r rate cpu secs passes replies returned first <<<"$out"
      add "$side" "$row" "$rate"
      add "$side" "${row}_cpu" "$cpu"
      log "  $side round $r: $passes x $WALKS walks in ${secs}s, $rate elem/s," \
        "$cpu elem/CPU-s, $replies replies, $returned elements returned"
    done
  done
done

# ---------------------------------------------------------------------------------------------
ROW_FMT='%-26s %15s %15s %7s   %s\n'
# shellcheck disable=SC2059  # one format for the header and the rows
trow() { printf "$ROW_FMT" "$@"; }
line() { bl_ratio_row "$ROW_FMT" "$1" "${S[ours,$2]:-}" "${S[theirs,$2]:-}" "$3"; }
echo
echo "versions: ours=$VERSION_OURS  theirs=$VERSION_THEIRS"
echo "KEYS=$KEYS FIELDS=$FIELDS, $ROUNDS rounds, $WALKS parallel walks, >= ${MIN_SECS}s each, medians" \
  "(first cursor: ours ${FIRST[ours]:-?}, theirs ${FIRST[theirs]:-?})"
trow "row" "ours (elem/s)" "theirs (elem/s)" "ratio" "target"
for row in "${RUN_ROWS[@]}"; do
  line "$(label "$row")" "$row" ">= 1.0"
  line "  per server CPU-s" "${row}_cpu" "-"
done
exit 0
