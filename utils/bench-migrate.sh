#!/usr/bin/env bash
# bench-migrate.sh -- slot migration, our nodes against Debian's redis-server 7.0, side by side
# in one run, reported as ratios (ours / theirs) because the machine is shared and noisy.
#
#   utils/bench-migrate.sh [--quick]
#
# Rows, each for a cluster of our nodes and one of redis-server nodes of the same shape:
#   migrate keys/s     3 primaries, no replicas; one slot holds MIG_KEYS keys (hash tag {m});
#                      the slot moves to another primary the way redis-cli moves it: SETSLOT
#                      IMPORTING on the target, MIGRATING on the source, then one batch at a time
#                      GETKEYSINSLOT slot 1000 + MIGRATE host port "" 0 5000 KEYS k1..k1000, then
#                      SETSLOT NODE on the target and the source. Keys/s over the whole move,
#                      median of 3 moves (there, back, there again), the two sides' moves
#                      alternating (higher is better; target for ours: ratio >= 1.7)
#   reshard N slots    3 primaries + 3 replicas, RESHARD_KEYS keys key:0.. over all slots; seconds
#                      of `redis-cli --cluster reshard` moving N slots from one primary to
#                      another (lower is better; target: ratio <= 0.7). Then DBSIZE summed over
#                      the primaries must still be RESHARD_KEYS and `redis-cli --cluster check`
#                      must be clean.
#   atomic keys/s      (ROWS with atomic) after the migrate row, the same slot moved three times
#                      more on ours with CLUSTER MIGRATESLOTS: keys/s, and atomic / legacy.
#   big zset           (ROWS with bigkey) one sorted set of BIGZ members (5M; 1M) moved between
#                      two primaries, ours atomically, theirs with MIGRATE (60 s timeout, as
#                      redis-cli's default --cluster-timeout); both nodes PINGed
#                      every ms: seconds, the longest PING of each node, the same less the CPU
#                      wait during it (the longer of the node's main thread's and the prober's
#                      run delay in /proc schedstat: on a host with fewer cores than busy
#                      threads, the part of the stall that the node's own work explains), and
#                      the memory each used beyond what it held (source: peak over start;
#                      target: peak over end). First, the floor: the longest PING of the same
#                      probers against the same two nodes at rest for BIGZ_IDLE_SECS (5), which
#                      is this machine's and the prober's share, not the move's.
#   p99                (ROWS with p99; ours) SETs (25 clients) to a slot of the source that
#                      does not move and to one of the target, stable and while P99_SLOTS slots
#                      (100 keys of 100 B each) move back and forth atomically, phases
#                      alternating P99_ROUNDS times: the highest p99 of each phase, their ratio
#                      (target <= 1.2), the moves made and the longest write hold. The load is
#                      paced, P99_RATE SETs/s per node (10000, about half of what a node serves
#                      here with both loaded), by utils/paced-load.cc, latency counted from when
#                      each request was due; P99_RATE=0 sends them unpaced with
#                      redis-benchmark instead, which saturates the nodes, so that their
#                      latency then measures their share of the CPU more than the migration.
#                      A third phase, no move but one busy loop per CPU, shows what sharing
#                      the CPUs alone costs the nodes' latency on this machine (moving, both
#                      nodes are busy, and with the loads and the driver need more CPUs than
#                      a 2-core machine has).
#   writes             (ROWS with writes; ours) one slot of WRITES_FILL keys (1M; 200k) moved
#                      atomically WRITES_ROUNDS times (3), there and back, while two writers INCR
#                      WRITES_KEYS (1000) counters of the slot, 64 per round trip, unpaced (as
#                      fast as the source answers; a MOVED reply is not counted and the writer
#                      follows it): writes/s before and during each move, the move's seconds
#                      and write hold, and lost writes (INCRs acknowledged minus the counters'
#                      sum on the new owner, which must be 0; exit 3 otherwise) and errors.
#   atomic reshard     on that cluster, on a side whose server has CLUSTER MIGRATESLOTS
#                      (ours): the same N slots moved back with one MIGRATESLOTS, seconds
#                      until GETSLOTMIGRATIONS says success (polled every 10 ms); keys kept and
#                      `--cluster check` clean as above. Also reported: atomic / legacy reshard
#                      of ours, and atomic of ours / the other side's legacy reshard.
#   replica reads      on that cluster: pipelined READONLY GETs of the keys of one primary P,
#                      against P's replica, while P's slots are stable and while a background
#                      loop moves P's slots one by one to another primary and back (SETSLOT +
#                      MIGRATE). Phases alternate stable/migrating/migrating/stable so that a
#                      drift of the machine's load cancels out. Reported: migrating/stable
#                      throughput (target for ours: >= 0.95), its lowest and highest value
#                      over the rounds of SMMS (the spread the machine's noise gives it), and
#                      how many replies were ASK, MOVED, TRYAGAIN or nil (all counted as
#                      answered requests). A redis 7.0 replica does not know open slots: a
#                      moved key reads as nil there.
#                      Also shown: the replica's CPU use (cores) in each state and the ratio of
#                      its reads per CPU second, which the machine's noise moves less.
#
# A small python3 driver (raw sockets, no client library) runs the migrations and the read load,
# so its overhead is the same for both servers. Exits non-zero on a setup failure, or when a
# reshard loses keys or leaves `--cluster check` unclean; never because of a speed.
#
# Environment (defaults; with --quick):
#   ROWS (migrate,reshard,reads: the rows to run), P99_RATE (10000), P99_N (requests per node and
#   phase, 150000; 60000),
#   OURS (src/valkey-server), THEIRS (/usr/bin/redis-server), OURS_ARGS / THEIRS_ARGS (extra
#   server arguments, word-split), PYTHON (python3), NT (cluster-node-timeout, 5000),
#   MIG_KEYS (200000; 50000), RESHARD_KEYS (100000; 20000), RESHARD_SLOTS (1000; 300),
#   READ_SECS (seconds of reads per state, 20; 8), PHASE_K (rounds of stable, migrating,
#   migrating, stable; 4; 2), READERS (load processes, 2), PIPE (GETs per pipelined batch, 256),
#   DEPTH (batches each reader keeps in flight, 2: with one, a reader the scheduler delays
#   leaves the replica idle, which then counts against the replica; the replica, not the
#   readers, must be the bottleneck), MOVE_GAP (seconds between two slot moves of the
#   background loop, 0.02).
# Ports 14001-14006 (ours) and 14101-14106 (theirs), buses +10000, stay below the ephemeral
# range, where a client socket could hold a bus port.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=utils/bench-lib.sh disable=SC1091
. utils/bench-lib.sh
OURS=${OURS:-$PWD/src/valkey-server}
THEIRS=${THEIRS:-/usr/bin/redis-server}
PYTHON=${PYTHON:-python3}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
q() { if [ $QUICK = 1 ]; then echo "$2"; else echo "$1"; fi; }
MIG_KEYS=${MIG_KEYS:-$(q 200000 50000)}
RESHARD_KEYS=${RESHARD_KEYS:-$(q 100000 20000)}
RESHARD_SLOTS=${RESHARD_SLOTS:-$(q 1000 300)}
READ_SECS=${READ_SECS:-$(q 20 8)}
READERS=${READERS:-2}
PIPE=${PIPE:-256}
DEPTH=${DEPTH:-2}
MOVE_GAP=${MOVE_GAP:-0.02}
NT=${NT:-5000}
TMP=$(mktemp -d /tmp/bench-migrate.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

log() { printf '%s\n' "$*" >&2; }
die() { log "setup failed: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# The driver: cluster topology helpers, the redis-cli-style slot mover and the replica load.
cat >"$TMP/mig.py" <<'PY'
import multiprocessing as mp, os, socket, subprocess, sys, threading, time

class Err(str):
    pass

def enc(args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a).encode()
        elif isinstance(a, str):
            a = a.encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)

class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', int(port)), timeout=60)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b''
        self.pos = 0

    def _fill(self):
        d = self.s.recv(1 << 16)
        if not d:
            raise ConnectionError('connection closed')
        self.buf = self.buf[self.pos:] + d
        self.pos = 0

    def _line(self):
        while True:
            i = self.buf.find(b'\r\n', self.pos)
            if i >= 0:
                line = self.buf[self.pos:i]
                self.pos = i + 2
                return line
            self._fill()

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b'+':
            return rest.decode()
        if t == b'-':
            return Err(rest.decode())
        if t == b':':
            return int(rest)
        if t == b'$':
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            d = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return d
        if t == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError('bad reply %r' % line)

    def call(self, *args):
        self.s.sendall(enc(args))
        return self.read()

def ok(r, what):
    if isinstance(r, Err):
        raise RuntimeError('%s: %s' % (what, r))
    return r

# --- topology ---------------------------------------------------------------------------------
def nodes(port):
    text = ok(Conn(port).call('CLUSTER', 'NODES'), 'CLUSTER NODES')
    out = []
    for line in text.decode().splitlines():
        f = line.split()
        if len(f) < 8:
            continue
        addr = f[1].split(',')[0].split('@')[0]
        slots = set()
        for r in f[8:]:
            if r.startswith('['):
                continue
            a, _, b = r.partition('-')
            slots.update(range(int(a), int(b or a) + 1))
        out.append(dict(id=f[0], port=int(addr.rsplit(':', 1)[1]), flags=f[2].split(','),
                        master=f[3], slots=slots))
    return out

def primaries(port):
    return sorted(n['port'] for n in nodes(port) if 'master' in n['flags'] and n['slots'])

def owner(port, slot):
    for n in nodes(port):
        if 'master' in n['flags'] and slot in n['slots']:
            return n['port']
    raise RuntimeError('slot %d has no owner' % slot)

def replica_of(port, pport):
    ns = nodes(port)
    pid = [n['id'] for n in ns if n['port'] == pport][0]
    return [n['port'] for n in ns if n['master'] == pid][0]

_T = []
def crc16(data):
    if not _T:
        for i in range(256):
            c = i << 8
            for _ in range(8):
                c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
            _T.append(c & 0xffff)
    c = 0
    for b in data:
        c = ((c << 8) & 0xffff) ^ _T[((c >> 8) ^ b) & 0xff]
    return c

def keyslot(key):
    s = key.find(b'{')
    if s >= 0:
        e = key.find(b'}', s + 1)
        if e > s + 1:
            key = key[s + 1:e]
    return crc16(key) & 16383

def value(i):
    return b'v%015d' % i

def gen_spread(port, n, outdir):
    """RESP SETs of key:0..n-1, one file per owning primary; prints 'port count' lines."""
    owner_of = {}
    for nd in nodes(port):
        if 'master' in nd['flags']:
            for s in nd['slots']:
                owner_of[s] = nd['port']
    files, counts = {}, {}
    for i in range(n):
        k = b'key:%d' % i
        p = owner_of[keyslot(k)]
        if p not in files:
            files[p] = open(os.path.join(outdir, '%d.resp' % p), 'wb')
            counts[p] = 0
        files[p].write(enc((b'SET', k, value(i))))
        counts[p] += 1
    for p, f in files.items():
        f.close()
        print(p, counts[p])

# --- moving a slot the way redis-cli does it --------------------------------------------------
def move_slot(src, dst, sid, did, slot, batch=1000, timeout=5000):
    ok(dst.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', sid), 'SETSLOT IMPORTING')
    ok(src.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', did), 'SETSLOT MIGRATING')
    moved = 0
    while True:
        keys = ok(src.call('CLUSTER', 'GETKEYSINSLOT', slot, batch), 'GETKEYSINSLOT')
        if not keys:
            break
        ok(src.call('MIGRATE', '127.0.0.1', dst.port, '', 0, timeout, 'KEYS', *keys), 'MIGRATE')
        moved += len(keys)
    ok(dst.call('CLUSTER', 'SETSLOT', slot, 'NODE', did), 'SETSLOT NODE (target)')
    ok(src.call('CLUSTER', 'SETSLOT', slot, 'NODE', did), 'SETSLOT NODE (source)')
    return moved

def conn_with_id(port):
    c = Conn(port)
    c.port = int(port)
    return c, ok(c.call('CLUSTER', 'MYID'), 'MYID').decode()

def migrate(src_port, dst_port, slot, batch, rounds):
    """Moves the slot rounds times, back and forth; prints 'keys seconds' for each move."""
    a, b = conn_with_id(src_port), conn_with_id(dst_port)
    for _ in range(int(rounds)):
        t0 = time.perf_counter()
        moved = move_slot(a[0], b[0], a[1], b[1], int(slot), int(batch))
        print(moved, '%.4f' % (time.perf_counter() - t0))
        a, b = b, a

def atomic_move(a, b, slot, last=None):
    """One MIGRATESLOTS of slots slot..last (default: slot alone) from a to b, polled every
    10 ms: (seconds, job fields)."""
    t0 = time.perf_counter()
    last = slot if last is None else last
    ok(a[0].call('CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', slot, last, 'NODE', b[1]), 'MIGRATESLOTS')
    while True:
        # this node's last export (an earlier move may have left an import listed after it)
        jobs = ok(a[0].call('CLUSTER', 'GETSLOTMIGRATIONS'), 'GETSLOTMIGRATIONS')
        fs = [{j[i].decode(): j[i + 1] for i in range(0, len(j), 2)} for j in jobs]
        f = [x for x in fs if x['operation'] == b'EXPORT'][-1]
        st = f['state'].decode()
        if st in ('success', 'failed', 'cancelled'):
            if st != 'success':
                raise RuntimeError('migration %s: %s' % (st, f['message']))
            return time.perf_counter() - t0, f
        time.sleep(0.01)

def atomic(src_port, dst_port, slot, rounds):
    """As migrate, with CLUSTER MIGRATESLOTS: prints 'keys seconds' for each move."""
    a, b = conn_with_id(src_port), conn_with_id(dst_port)
    for _ in range(int(rounds)):
        n = ok(a[0].call('CLUSTER', 'COUNTKEYSINSLOT', int(slot)), 'COUNTKEYSINSLOT')
        secs, _ = atomic_move(a, b, int(slot))
        print(n, '%.4f' % secs)
        a, b = b, a

def run_delay_ns(path):
    """The CPU wait (ns runnable but not running) of the thread whose schedstat is at path;
    0 where the kernel does not account it."""
    try:
        with open(path) as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0

def prober(port, stop, out):
    """PING every ms; out gets the longest round trip in ms, then the longest round trip less
    the CPU wait during it (the longer of the node's main thread's and the prober's own): on a
    machine with fewer cores than busy threads, what the node itself took, at most."""
    c = Conn(port)
    info = ok(c.call('INFO', 'server'), 'INFO').decode()
    pid = int(info.split('process_id:')[1].split()[0])
    node_stat, own_stat = '/proc/%d/task/%d/schedstat' % (pid, pid), '/proc/thread-self/schedstat'
    worst = worst_own = 0.0
    while not stop.is_set():
        n0, p0 = run_delay_ns(node_stat), run_delay_ns(own_stat)
        t0 = time.perf_counter()
        c.call('PING')
        took = time.perf_counter() - t0
        waited = max(run_delay_ns(node_stat) - n0, run_delay_ns(own_stat) - p0) / 1e9
        worst = max(worst, took)
        worst_own = max(worst_own, took - waited)
        time.sleep(0.001)
    out.extend([worst * 1000, worst_own * 1000])

def used_memory(c):
    info = ok(c.call('INFO', 'memory'), 'INFO').decode()
    return int(info.split('used_memory:')[1].split()[0])

def memwatch(port, stop, out):
    c = Conn(port)
    base = peak = used_memory(c)
    while not stop.is_set():
        peak = max(peak, used_memory(c))
        time.sleep(0.02)
    out.extend([base, peak])

def loop_max_ms(c):
    """The longest event loop pass since CONFIG RESETSTAT (INFO debug, Valkey 8 and ours), ms;
    -1 where the server does not report it (Redis 7.0)."""
    info = ok(c.call('INFO', 'debug'), 'INFO').decode()
    if 'eventloop_duration_max:' not in info:
        return -1.0
    return int(info.split('eventloop_duration_max:')[1].split()[0]) / 1000.0

def bigkey(kind, src_port, dst_port, key, members):
    """Builds a sorted set of `members` members on src, moves it to dst (atomic: MIGRATESLOTS
    of its slot; legacy: SETSLOT + MIGRATE as redis-cli does), PINGs both nodes every ms
    meanwhile. Prints secs, the longest PING of each node (ms), the longest loop pass each node
    measured itself (ms: unlike the PING, not lengthened by the prober's own scheduling), and
    the memory each used above what it holds before and after (MB): the source's peak over its
    start, the target's peak over its end."""
    a, b = conn_with_id(src_port), conn_with_id(dst_port)
    a[0].call('DEL', key)
    n = int(members)
    for c0 in range(0, n, 10000):
        args = []
        for i in range(c0, min(n, c0 + 10000)):
            args += ['%.1f' % (i * 1.5), 'member:%d' % i]
        ok(a[0].call('ZADD', key, *args), 'ZADD')
    time.sleep(0.5)
    # The floor: the same probers against the same nodes at rest, as long as a move takes.
    stop = threading.Event()
    idle = {k: [] for k in ('ps', 'pd')}
    ths = [threading.Thread(target=prober, args=(src_port, stop, idle['ps'])),
           threading.Thread(target=prober, args=(dst_port, stop, idle['pd']))]
    for t in ths:
        t.start()
    time.sleep(float(os.environ.get('BIGZ_IDLE_SECS', '5')))
    stop.set()
    for t in ths:
        t.join()
    stop = threading.Event()
    outs = {k: [] for k in ('ps', 'pd', 'ms', 'md')}
    ths = [threading.Thread(target=prober, args=(src_port, stop, outs['ps'])),
           threading.Thread(target=prober, args=(dst_port, stop, outs['pd'])),
           threading.Thread(target=memwatch, args=(src_port, stop, outs['ms'])),
           threading.Thread(target=memwatch, args=(dst_port, stop, outs['md']))]
    for t in ths:
        t.start()
    time.sleep(0.5)
    for c in (a[0], b[0]):
        ok(c.call('CONFIG', 'RESETSTAT'), 'RESETSTAT')
    slot = keyslot(key.encode())
    if kind == 'atomic':
        secs, _ = atomic_move(a, b, slot)
    else:
        t0 = time.perf_counter()
        move_slot(a[0], b[0], a[1], b[1], slot, 1, 60000)
        secs = time.perf_counter() - t0
    time.sleep(1.0)  # the source frees what it moved
    loop_src, loop_dst = loop_max_ms(a[0]), loop_max_ms(b[0])
    stop.set()
    for t in ths:
        t.join()
    # a node blocked longer than the node timeout may have taken the cluster down: wait
    for _ in range(300):
        got = b[0].call('ZCARD', key)
        if not (isinstance(got, Err) and got.startswith('CLUSTERDOWN')):
            break
        time.sleep(0.1)
    got = ok(got, 'ZCARD')
    if got != n:
        raise RuntimeError('the target holds %s members, not %d' % (got, n))
    end_dst = used_memory(b[0])
    print('secs=%.2f ping_src=%.1f ping_dst=%.1f own_src=%.1f own_dst=%.1f loop_src=%.1f '
          'loop_dst=%.1f idle_src=%.1f idle_dst=%.1f extra_src=%.1f extra_dst=%.1f' % (
        secs, outs['ps'][0], outs['pd'][0], outs['ps'][1], outs['pd'][1], loop_src, loop_dst,
        idle['ps'][0], idle['pd'][0],
        (outs['ms'][1] - outs['ms'][0]) / 1e6,
        max(0, outs['md'][1] - end_dst) / 1e6))

def tag_of(port, avoid):
    """A key (hash tag) of a slot the node at port serves, outside `avoid` (a (lo, hi) pair)."""
    mine = [n for n in nodes(port) if n['port'] == int(port)][0]['slots']
    for i in range(200000):
        s = keyslot(('t%d' % i).encode())
        if s in mine and not (avoid[0] <= s <= avoid[1]):
            return 't%d' % i
    raise RuntimeError('no tag for node %s' % port)

def bench_p99(port, tag, n, rate):
    """SETs of keys {tag}:<rand>, 25 clients: (p50, p99, max) in ms. rate > 0: n requests paced
    at rate/s by utils/paced-load.cc (latency from when each was due); 0: redis-benchmark,
    unpaced (the server saturated: its latency is its throughput's share)."""
    import re
    if rate > 0:
        out = subprocess.run([os.environ['PACED_LOAD'], '--port', str(port), '--rate', str(rate),
                              '--seconds', str(n / rate), '--key-prefix', '{%s}:' % tag],
                             capture_output=True, text=True)
        m = re.search(r'errors=0 .*p50=([\d.]+) p99=([\d.]+) p999=[\d.]+ max=([\d.]+)', out.stdout)
        if not m:
            raise RuntimeError('paced-load said: ' + out.stdout + out.stderr)
        return tuple(float(x) for x in m.groups())
    out = subprocess.run(['redis-benchmark', '-p', str(port), '-c', '25', '-n', str(n), '-r',
                          '100000', 'SET', '{%s}:__rand_int__' % tag, 'v'],
                         capture_output=True, text=True).stdout
    m = re.search(r'avg\s+min\s+p50\s+p95\s+p99\s+max\s*\n\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s+'
                  r'[\d.]+\s+([\d.]+)\s+([\d.]+)', out)
    if not m:
        raise RuntimeError('redis-benchmark said: ' + out[-300:])
    return tuple(float(x) for x in m.groups())

def p99load(src_port, dst_port, lo, hi, n, rounds, rate):
    """SET load on a slot of the source outside [lo, hi] and on one of the target, without and
    during a back-and-forth atomic move of slots lo..hi (each holding 100 keys of 100 B), stable
    and moving phases alternating. Prints one line per phase."""
    a, b = conn_with_id(src_port), conn_with_id(dst_port)
    lo, hi, n, rate = int(lo), int(hi), int(n), int(rate)
    tags, i = {}, 0
    while len(tags) < hi - lo + 1:
        s = keyslot(('h%d' % i).encode())
        if lo <= s <= hi and s not in tags:
            tags[s] = 'h%d' % i
        i += 1
    for t in tags.values():
        for j in range(100):
            a[0].s.sendall(enc(['SET', '{%s}:%d' % (t, j), 'x' * 100]))
        for j in range(100):
            ok(a[0].read(), 'SET')
    ta, tb = tag_of(src_port, (lo, hi)), tag_of(dst_port, (lo, hi))
    for _ in range(int(rounds)):
        for phase in ('stable', 'moving', 'hogged'):
            moving = phase == 'moving'
            # hogged: no move, but as many busy loops as there are CPUs, so the nodes share
            # their CPUs as they do while moving: the latency the scheduler alone costs here
            hogs = [subprocess.Popen(['sh', '-c', 'while :; do :; done'])
                    for _ in range(os.cpu_count() if phase == 'hogged' else 0)]
            stop = threading.Event()
            moves, holds = [0], []
            def mover():
                x, y = a, b
                while not stop.is_set():
                    secs, f = atomic_move(x, y, lo, hi)
                    holds.append(int(f['write_hold_ms']))
                    moves[0] += 1
                    x, y = y, x
                if moves[0] % 2:  # home again
                    atomic_move(x, y, lo, hi)
            th = threading.Thread(target=mover)
            if moving:
                th.start()
            res = {}
            t1 = threading.Thread(target=lambda: res.__setitem__('src', bench_p99(src_port, ta, n, rate)))
            t2 = threading.Thread(target=lambda: res.__setitem__('dst', bench_p99(dst_port, tb, n, rate)))
            t1.start(); t2.start(); t1.join(); t2.join()
            stop.set()
            if moving:
                th.join()
            for h in hogs:
                h.kill()
                h.wait()
            print('%s src_p50=%.3f src_p99=%.3f src_max=%.3f dst_p50=%.3f dst_p99=%.3f '
                  'dst_max=%.3f moves=%d hold_max=%d' % (
                      phase, *res['src'], *res['dst'], moves[0],
                      max(holds) if holds else -1))

# --- a write load on the moving slot -------------------------------------------------------------
def writer(idx, port, keys, pipe, phase, acked, moved, errs):
    """INCRs of its keys, `pipe` per round trip, unpaced; a MOVED reply (not run) sends the rest
    of its work to the node it names. acked[phase] counts the replies that say it ran."""
    c = Conn(port)
    mine = [k for j, k in enumerate(keys) if j % 2 == idx]
    batches = [(b''.join(enc(['INCR', k]) for k in mine[i:i + pipe]), len(mine[i:i + pipe]))
               for i in range(0, len(mine), pipe)]
    turn = 0
    while phase.value < 3:
        ph = phase.value
        batch, n = batches[turn % len(batches)]
        turn += 1
        c.s.sendall(batch)
        redirect = None
        for _ in range(n):
            r = c.read()
            if isinstance(r, int):
                acked[ph] += 1
            elif isinstance(r, Err) and r.startswith('MOVED'):
                moved.value += 1
                redirect = int(r.split()[2].rsplit(':', 1)[1])
            else:
                errs.value += 1
        if redirect:
            c = Conn(redirect)

def writeload(src_port, dst_port, slot, nkeys, pipe, warm, after):
    """Two writers INCR nkeys keys of the slot while it moves from src to dst atomically (after
    `warm` seconds; the load goes on `after` seconds past the move). Prints the write rates
    before and during the move, the move's seconds and write hold, and the check: the sum of
    the counters on the new owner against the INCRs acknowledged (lost = acknowledged - sum)."""
    nkeys, pipe = int(nkeys), int(pipe)
    keys = [b'{w}:c%d' % i for i in range(nkeys)]
    a, b = conn_with_id(src_port), conn_with_id(dst_port)
    phase = mp.Value('i', 0)
    acked = [mp.Array('q', 3, lock=False) for _ in range(2)]
    moved, errs = mp.Value('q', 0), mp.Value('q', 0)
    procs = [mp.Process(target=writer, args=(i, src_port, keys, pipe, phase, acked[i], moved,
                                             errs)) for i in range(2)]
    for p in procs:
        p.start()
    t0 = time.perf_counter()
    time.sleep(float(warm))
    t1 = time.perf_counter()
    phase.value = 1
    secs, f = atomic_move(a, b, int(slot))
    t2 = time.perf_counter()
    phase.value = 2
    time.sleep(float(after))
    phase.value = 3
    for p in procs:
        p.join()
    ack = [sum(x[i] for x in acked) for i in range(3)]
    total = 0
    c = Conn(dst_port)
    for i in range(0, nkeys, 500):
        vals = ok(c.call('MGET', *keys[i:i + 500]), 'MGET')
        total += sum(int(v) for v in vals if v is not None)
    left = ok(a[0].call('CLUSTER', 'COUNTKEYSINSLOT', int(slot)), 'COUNTKEYSINSLOT')
    print('before_wps=%.0f during_wps=%.0f move_s=%.3f hold_ms=%d acked=%d sum=%d lost=%d '
          'errors=%d moved=%d left_on_source=%d resumes=%d' % (
              ack[0] / (t1 - t0), ack[1] / (t2 - t1), secs, int(f['write_hold_ms']), sum(ack),
              total, sum(ack) - total, errs.value, moved.value, left, int(f['resumes'])))

# --- replica read load --------------------------------------------------------------------------
NCOUNT = 6  # replies, ASK, MOVED, TRYAGAIN, nil, other errors

def reader(idx, nreaders, port, keys, pipe, depth, vlen, stop, counts):
    """Pipelined READONLY GETs: `depth` batches of `pipe` GETs in flight, one more sent as soon
    as one batch's worth of replies is in, so that a reader that is late (the machine has two
    cores and a busy cluster) does not leave the replica idle."""
    c = Conn(port)
    ok(c.call('READONLY'), 'READONLY')
    n = len(keys)
    start = (idx * n) // nreaders
    order = keys[start:] + keys[:start]
    batches = []
    for i in range(0, n, pipe):
        chunk = order[i:i + pipe]
        if len(chunk) < pipe:
            chunk += order[:pipe - len(chunk)]
        batches.append(b''.join(enc((b'GET', k)) for k in chunk))
    bulk = b'$%d\r\n' % vlen
    sock, base, b = c.s, idx * NCOUNT, 0
    sent = got = 0
    prev = b'+OK\r\n'  # the stream's last bytes before this read (READONLY's reply first)

    def cnt(pat, d):  # occurrences in d, and across the boundary with the bytes before it
        k = len(pat) - 1
        return d.count(pat) + (prev[-k:] + d[:k]).count(pat)

    while not stop.value:
        while sent - got < depth * pipe:
            sock.sendall(batches[b])
            b = (b + 1) % len(batches)
            sent += pipe
        d = sock.recv(1 << 16)
        if not d:
            raise ConnectionError('replica closed the connection')
        # Replies complete so far = lines - value headers: a value reply is two lines, every
        # other reply (error, nil) one. Counted per read, patterns cut by a read included.
        replies = cnt(b'\r\n', d) - cnt(bulk, d)
        if b'-' in d or b'-' in prev:  # an error or a nil (values and headers have no '-')
            ask, moved, tryagain = cnt(b'-ASK ', d), cnt(b'-MOVED ', d), cnt(b'-TRYAGAIN', d)
            counts[base + 1] += ask
            counts[base + 2] += moved
            counts[base + 3] += tryagain
            counts[base + 4] += cnt(b'$-1\r\n', d)
            counts[base + 5] += cnt(b'\r\n-', d) - ask - moved - tryagain
        got += replies
        counts[base] += replies
        prev = (prev + d[-8:])[-8:]

class Mover(threading.Thread):
    """Moves the slots one by one from P to Q and back until told to stop (after a round trip)."""
    def __init__(self, pport, qport, slots, gap):
        super().__init__(daemon=True)
        self.p, self.pid = conn_with_id(pport)
        self.q, self.qid = conn_with_id(qport)
        self.slots, self.gap, self.i = slots, gap, 0
        self.moves = 0
        self.halt = threading.Event()
        self.error = None

    def run(self):
        try:
            while not self.halt.is_set():
                s = self.slots[self.i % len(self.slots)]
                self.i += 1
                move_slot(self.p, self.q, self.pid, self.qid, s)
                time.sleep(self.gap)
                move_slot(self.q, self.p, self.qid, self.pid, s)
                self.moves += 2
                time.sleep(self.gap)
        except Exception as e:
            self.error = e

def cpu_secs(pid):
    with open('/proc/%d/stat' % pid) as f:
        st = f.read().rsplit(')', 1)[1].split()
    return (int(st[11]) + int(st[12])) / os.sysconf('SC_CLK_TCK')

def readload(rport, rpid, pport, qport, nkeys, secs, phases, readers, pipe, depth, gap):
    rport, rpid, pport, qport = int(rport), int(rpid), int(pport), int(qport)
    nkeys, secs, readers, pipe, depth, gap = (int(nkeys), float(secs), int(readers), int(pipe),
                                              int(depth), float(gap))
    mine = [n for n in nodes(pport) if n['port'] == pport][0]['slots']
    keys, slots = [], set()
    for i in range(nkeys):
        k = b'key:%d' % i
        s = keyslot(k)
        if s in mine:
            keys.append(k)
            slots.add(s)
    stop = mp.Value('i', 0, lock=False)
    counts = mp.Array('q', readers * NCOUNT, lock=False)
    procs = [mp.Process(target=reader, daemon=True,
                        args=(i, readers, rport, keys, pipe, depth, 16, stop, counts))
             for i in range(readers)]
    for p in procs:
        p.start()

    def snap():
        return [sum(counts[w * NCOUNT + j] for w in range(readers)) for j in range(NCOUNT)]

    time.sleep(1.0)  # warm-up: connections up, caches warm
    if not all(counts[w * NCOUNT] for w in range(readers)):
        raise RuntimeError('a reader got no replies during warm-up')
    acc = {'S': [0.0, 0.0] + [0] * NCOUNT, 'M': [0.0, 0.0] + [0] * NCOUNT}
    per_round = []  # [stable replies, stable secs, migrating replies, migrating secs] per SMMS
    mover = None
    moves = 0
    for i, ph in enumerate(phases):
        if i % 4 == 0:
            per_round.append([0, 0.0, 0, 0.0])
        if ph == 'M' and mover is None:
            mover = Mover(pport, qport, sorted(slots), gap)
            mover.start()
        if ph == 'S' and mover is not None:
            mover.halt.set()
            mover.join()
            moves += mover.moves
            if mover.error:
                raise RuntimeError('slot mover: %s' % mover.error)
            mover = None
        a, t0, c0 = snap(), time.perf_counter(), cpu_secs(rpid)
        time.sleep(secs)
        b, t1, c1 = snap(), time.perf_counter(), cpu_secs(rpid)
        acc[ph][0] += t1 - t0
        acc[ph][1] += c1 - c0
        k = 0 if ph == 'S' else 2
        per_round[-1][k] += b[0] - a[0]
        per_round[-1][k + 1] += t1 - t0
        for j in range(NCOUNT):
            acc[ph][j + 2] += b[j] - a[j]
    if mover is not None:
        mover.halt.set()
        mover.join()
        moves += mover.moves
    stop.value = 1
    for p in procs:
        p.join(10)
    bad = [p for p in procs if p.exitcode != 0]
    if bad:
        raise RuntimeError('a reader died (exit code %s)' % bad[0].exitcode)
    names = ['replies', 'ask', 'moved', 'tryagain', 'nil', 'err']
    print('info=%d keys in %d slots, %d slot moves' % (len(keys), len(slots), moves))
    # The spread of migrating/stable over the rounds: how much the machine's noise moves it.
    rr = [(m / ms) / (s / ss) for s, ss, m, ms in per_round if s and ss and ms]
    if rr:
        print('rounds=%.3f-%.3f' % (min(rr), max(rr)))
    for ph, tag in (('S', 'stable'), ('M', 'migrating')):
        v = acc[ph]
        if not v[0]:
            continue
        print('%s_rps=%.0f' % (tag, v[2] / v[0]))
        print('%s_cpu=%.2f' % (tag, v[1] / v[0]))  # replica CPU use, cores
        print('%s_rpc=%.0f' % (tag, v[2] / v[1] if v[1] else 0))  # replies per CPU second
        for j, nm in enumerate(names[1:], 3):
            print('%s_%s=%d' % (tag, nm, v[j]))

if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'primaries':
        print(*primaries(int(args[0])))
    elif cmd == 'owner':
        print(owner(int(args[0]), int(args[1])))
    elif cmd == 'replica':
        print(replica_of(int(args[0]), int(args[1])))
    elif cmd == 'keyslot':
        print(keyslot(args[0].encode()))
    elif cmd == 'gen-spread':
        gen_spread(int(args[0]), int(args[1]), args[2])
    elif cmd == 'migrate':
        migrate(*args)
    elif cmd == 'atomic':
        atomic(*args)
    elif cmd == 'bigkey':
        bigkey(*args)
    elif cmd == 'p99load':
        p99load(*args)
    elif cmd == 'writeload':
        writeload(*args)
    elif cmd == 'readload':
        readload(*args)
    else:
        sys.exit('unknown command ' + cmd)
PY
py() { "$PYTHON" "$TMP/mig.py" "$@"; }

# ---------------------------------------------------------------------------------------------
# start_nodes BIN FIRST_PORT COUNT [ARGS]: one node per port, cluster-enabled, own dir.
start_nodes() {
  local bin=$1 first=$2 count=$3 args=${4:-} p
  for p in $(seq "$first" $((first + count - 1))); do
    bl_port_in_use "$p" && die "port $p is in use"
    mkdir -p "$TMP/$p"
    # shellcheck disable=SC2086  # ARGS are word-split on purpose
    (cd "$TMP/$p" && exec "$bin" --port "$p" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout "$NT" --save "" \
      --appendonly no --logfile node.log $args) &
    disown
    PIDS+=($!)
    echo $! >"$TMP/$p.pid"
  done
  for p in $(seq "$first" $((first + count - 1))); do
    for _ in $(seq 1 100); do
      [ "$(redis-cli -p "$p" ping 2>/dev/null)" = PONG ] && continue 2
      sleep 0.05
    done
    die "node $p did not start: $(tail -3 "$TMP/$p/node.log" 2>/dev/null)"
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

# check_clean PORT: `redis-cli --cluster check` reports no error and no warning.
check_clean() {
  redis-cli --cluster check "127.0.0.1:$1" >"$TMP/check.log" 2>&1 &&
    ! grep -qE '\[ERR\]|\[WARNING\]' "$TMP/check.log"
}

# create FIRST COUNT REPLICAS: a cluster, every node in cluster_state:ok, replicas in sync and
# `--cluster check` clean.
create() {
  local first=$1 count=$2 replicas=$3 hosts="" p last=$(($1 + $2 - 1))
  for p in $(seq "$first" "$last"); do hosts="$hosts 127.0.0.1:$p"; done
  # shellcheck disable=SC2086
  redis-cli --cluster create $hosts --cluster-replicas "$replicas" --cluster-yes \
    >"$TMP/create.log" 2>&1 || die "create: $(tail -3 "$TMP/create.log")"
  for p in $(seq "$first" "$last"); do
    for _ in $(seq 1 600); do
      redis-cli -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && continue 2
      sleep 0.05
    done
    die "node $p never reached cluster_state:ok"
  done
  for p in $(seq "$first" "$last"); do
    for _ in $(seq 1 600); do
      redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r' |
        grep -qE '^role:master|^master_link_status:up' && continue 2
      sleep 0.05
    done
    die "replica $p never got in sync"
  done
  for _ in $(seq 1 300); do check_clean "$first" && return 0; sleep 0.1; done
  die "--cluster check not clean after create: $(grep -E 'ERR|WARN' "$TMP/check.log" | head -3)"
}

# pipe_load PORT FILE N: mass insert through redis-cli --pipe, all N replies without error.
pipe_load() {
  local out
  out=$(redis-cli -p "$1" --pipe <"$2" 2>&1 | tr -d '\r')
  grep -q "errors: 0, replies: $3\$" <<<"$out" ||
    die "load on $1: $(tail -2 <<<"$out" | tr '\n' ' ')"
}

# side_setup ours|theirs: sets bin, base (first port) and ARGS for that side's nodes.
side_setup() {
  bin=$OURS; base=14001; ARGS=${OURS_ARGS:-}
  [ "$1" = theirs ] && { bin=$THEIRS; base=14101; ARGS=${THEIRS_ARGS:-}; }
}

# Row 1: one slot of MIG_KEYS keys moved from its owner to another primary, on a cluster of
# each side at once; sets T[side,mig] (keys/s). The moves alternate between the sides (ours,
# theirs, ours, ...) so that a drift of the machine's speed during the row (this shared
# machine's CPU time per move drifts by half within a minute) weighs on both alike. Not run in
# a subshell: the nodes it starts must reach the EXIT trap's list.
declare -A T
row_migrate() {
  local side bin base slot moved secs n
  local -A src dst
  slot=$(py keyslot '{m}') || die "driver"
  LC_ALL=C awk -v n="$MIG_KEYS" 'BEGIN {
    for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$11\r\n{m}:%07d\r\n$16\r\nv%015d\r\n", i, i
  }' >"$TMP/slot.resp"
  for side in ours theirs; do
    side_setup $side
    start_nodes "$bin" "$base" 3 "$ARGS"
    create "$base" 3 0
    src[$side]=$(py owner "$base" "$slot") || die "owner of slot $slot"
    dst[$side]=$base; [ "${dst[$side]}" = "${src[$side]}" ] && dst[$side]=$((base + 1))
    pipe_load "${src[$side]}" "$TMP/slot.resp" "$MIG_KEYS"
    : >"$TMP/migrate.$side"
  done
  # Three moves per side (there, back, there again): the median of their rates.
  for _ in 1 2 3; do
    for side in ours theirs; do
      py migrate "${src[$side]}" "${dst[$side]}" "$slot" 1000 1 >>"$TMP/migrate.$side" ||
        die "$side: migrate slot $slot ${src[$side]} -> ${dst[$side]}"
      n=${src[$side]}; src[$side]=${dst[$side]}; dst[$side]=$n
    done
  done
  for side in ours theirs; do
    n=$(redis-cli -p "${src[$side]}" cluster countkeysinslot "$slot")
    [ "$n" = "$MIG_KEYS" ] || die "$side: slot $slot: the target holds $n keys, not $MIG_KEYS"
    while read -r moved secs; do
      [ "$moved" = "$MIG_KEYS" ] || die "$side: a move of slot $slot took $moved keys"
    done <"$TMP/migrate.$side"
    log "  $side: slot $slot moved there, back and there again, seconds each:" \
      "$(awk '{printf " %s", $2}' "$TMP/migrate.$side")"
    # shellcheck disable=SC2046
    T[$side,mig]=$(bl_median $(awk '{ printf "%.0f\n", $1 / $2 }' "$TMP/migrate.$side"))
  done
  # The same slot, three atomic moves on ours (CLUSTER MIGRATESLOTS), against its legacy moves.
  if [[ $ROWS == *atomic* ]]; then
    py atomic "${src[ours]}" "${dst[ours]}" "$slot" 3 >"$TMP/atomic.ours" || die "ours: atomic moves"
    while read -r moved secs; do
      [ "$moved" = "$MIG_KEYS" ] || die "ours: an atomic move of slot $slot took $moved keys"
    done <"$TMP/atomic.ours"
    log "  ours: slot $slot moved atomically there, back and there again, seconds each:" \
      "$(awk '{printf " %s", $2}' "$TMP/atomic.ours")"
    # shellcheck disable=SC2046
    T[ours,atomic_mig]=$(bl_median $(awk '{ printf "%.0f\n", $1 / $2 }' "$TMP/atomic.ours"))
  fi
  stop_nodes 14001 3
  stop_nodes 14101 3
}

# One sorted set of BIGZ members moved between two primaries: ours atomically, theirs the
# legacy way (MIGRATE of the key), each node PINGed every ms meanwhile. Sets B[side,...].
declare -A B
row_bigkey() {
  local side bin base key='{z}big' src dst out k v
  for side in ours theirs; do
    side_setup $side
    start_nodes "$bin" "$base" 3 "$ARGS"
    create "$base" 3 0
    src=$(py owner "$base" "$(py keyslot "$key")") || die "owner of $key"
    dst=$base; [ "$dst" = "$src" ] && dst=$((base + 1))
    local kind=legacy
    [ $side = ours ] && kind=atomic
    out=$(py bigkey "$kind" "$src" "$dst" "$key" "$BIGZ") || die "$side: big key move"
    log "  $side ($kind): $out"
    for kv in $out; do k=${kv%%=*}; v=${kv#*=}; B[$side,$k]=$v; done
    stop_nodes "$base" 3
  done
}

# SET load (redis-benchmark, 25 clients) on a slot of the source that does not move and on one
# of the target, stable and during back-and-forth atomic moves of P99_SLOTS slots, alternating
# (ours only: the other side has no atomic migration). Sets P[...] from the worst round.
declare -A P
row_p99() {
  local out line k v
  side_setup ours
  start_nodes "$bin" "$base" 3 "$ARGS"
  create "$base" 3 0
  local src dst
  src=$(py owner "$base" 16000) || die "owner of slot 16000"
  dst=$(py owner "$base" 0) || die "owner of slot 0"
  out=$(py p99load "$src" "$dst" $((16000 - P99_SLOTS + 1)) 16000 "$P99_N" "$P99_ROUNDS" "$P99_RATE") ||
    die "p99 load"
  while read -r line; do
    log "  ours: $line"
    local phase=${line%% *}
    for kv in ${line#* }; do
      k=${kv%%=*}; v=${kv#*=}
      # the highest of the rounds
      if [ -z "${P[$phase,$k]:-}" ] || awk -v a="$v" -v b="${P[$phase,$k]}" 'BEGIN{exit !(a>b)}'; then
        P[$phase,$k]=$v
      fi
    done
  done <<<"$out"
  stop_nodes "$base" 3
}

# Atomic moves of one slot (WRITES_FILL keys of 16 B, plus WRITES_KEYS counters) while two
# writers INCR its counters as fast as the source answers (ours only). Sets W[...] from each of
# WRITES_ROUNDS moves (there and back), and exits 3 at the end if a move lost a write.
declare -A W
row_writes() {
  local slot src dst out r
  side_setup ours
  start_nodes "$bin" "$base" 3 "$ARGS"
  create "$base" 3 0
  slot=$(py keyslot '{w}') || die "driver"
  src=$(py owner "$base" "$slot") || die "owner of slot $slot"
  dst=$base; [ "$dst" = "$src" ] && dst=$((base + 1))
  LC_ALL=C awk -v n="$WRITES_FILL" 'BEGIN {
    for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$13\r\n{w}:f%08d\r\n$16\r\nv%015d\r\n", i, i
  }' >"$TMP/w.resp"
  pipe_load "$src" "$TMP/w.resp" "$WRITES_FILL"
  for r in $(seq 1 "$WRITES_ROUNDS"); do
    out=$(py writeload "$src" "$dst" "$slot" "$WRITES_KEYS" 64 2 1) || die "write load"
    log "  ours: move $r: $out"
    for kv in $out; do W[$r,${kv%%=*}]=${kv#*=}; done
    W[lost]=$(( ${W[lost]:-0} + W[$r,lost] ))
    W[rates]="${W[rates]:-}${W[rates]:+ }${W[$r,during_wps]}"
    W[before]="${W[before]:-}${W[before]:+ }${W[$r,before_wps]}"
    W[secs]="${W[secs]:-}${W[secs]:+ }${W[$r,move_s]}"
    W[holds]="${W[holds]:-}${W[holds]:+ }${W[$r,hold_ms]}"
    W[errors]=$(( ${W[errors]:-0} + W[$r,errors] ))
    # the counters restart from 0 on each move: the check above is per move
    redis-cli -p "$dst" del $(for i in $(seq 0 $((WRITES_KEYS - 1))); do printf '{w}:c%d ' "$i"; done) >/dev/null
    local t=$src; src=$dst; dst=$t
  done
  stop_nodes "$base" 3
}

dbsize_primaries() {
  local p sum=0
  for p in $(py primaries "$1"); do sum=$((sum + $(redis-cli -p "$p" dbsize))); done
  echo "$sum"
}

# The slots a primary serves (its own CLUSTER NODES line), one per line, sorted.
my_slots() {
  redis-cli -p "$1" cluster nodes | awk '/myself/ { for (i = 9; i <= NF; i++) if ($i !~ /^\[/) print $i }' |
    while IFS=- read -r lo hi; do seq "$lo" "${hi:-$lo}"; done | sort  # as comm wants
}

# The slots the legacy reshard moved from port $3 to port $4 go back with one MIGRATESLOTS on
# $4. Sets R[side,atomic] (seconds) and R[side,atomic_check].
atomic_back() {
  local side=$1 base=$2 fromp=$3 top=$4 from=$5 t0 secs state args=() start prev s sum
  my_slots "$fromp" >"$TMP/from-after.txt"
  comm -23 "$TMP/from-before.txt" "$TMP/from-after.txt" | sort -n >"$TMP/moved.txt"
  start=; prev=
  while read -r s; do
    if [ -z "$start" ]; then start=$s
    elif [ "$s" -ne $((prev + 1)) ]; then args+=("$start" "$prev"); start=$s; fi
    prev=$s
  done <"$TMP/moved.txt"
  args+=("$start" "$prev")
  t0=$(bl_now)
  [ "$(redis-cli -p "$top" cluster migrateslots slotsrange "${args[@]}" node "$from")" = OK ] ||
    die "MIGRATESLOTS refused: $(redis-cli -p "$top" cluster migrateslots slotsrange "${args[@]}" node "$from" 2>&1 | head -c 200)"
  while :; do
    state=$(redis-cli -p "$top" cluster getslotmigrations | awk 'p { print; exit } $0 == "state" { p = 1 }')
    case $state in success|failed|cancelled) break ;; esac
    sleep 0.01
  done
  secs=$(bl_since "$t0")
  [ "$state" = success ] || die "atomic migration: $state"
  R[$side,atomic]=$secs
  sum=$(dbsize_primaries "$base")
  R[$side,atomic_check]=ok
  [ "$sum" = "$RESHARD_KEYS" ] || R[$side,atomic_check]="keys $sum"
  for _ in $(seq 1 100); do check_clean "$base" && break; sleep 0.1; done
  check_clean "$base" || R[$side,atomic_check]="${R[$side,atomic_check]/ok/}unclean"
  log "  $side: atomic move of the same $(wc -l <"$TMP/moved.txt") slots back in ${secs}s," \
    "$sum keys on the primaries, check ${R[$side,atomic_check]}"
}

# Rows 2 and 3 on one 3+3 cluster. Sets R[side,reshard], R[side,check] and R[side,read_*].
declare -A R
rows_reshard_reads() {
  local side=$1 bin=$2 base=$3 port count from to p q r t0 secs sum out prims
  start_nodes "$bin" "$base" 6 "$ARGS"
  create "$base" 6 1
  mkdir -p "$TMP/spread"
  py gen-spread "$base" "$RESHARD_KEYS" "$TMP/spread" >"$TMP/spread.txt" || die "gen-spread"
  while read -r port count; do
    pipe_load "$port" "$TMP/spread/$port.resp" "$count"
  done <"$TMP/spread.txt"
  rm -rf "$TMP/spread"
  read -r -a prims <<<"$(py primaries "$base")"
  [ ${#prims[@]} = 3 ] || die "expected 3 primaries, got ${prims[*]}"
  from=$(redis-cli -p "${prims[0]}" cluster myid)
  to=$(redis-cli -p "${prims[1]}" cluster myid)
  my_slots "${prims[0]}" >"$TMP/from-before.txt"
  t0=$(bl_now)
  redis-cli --cluster reshard "127.0.0.1:$base" --cluster-from "$from" --cluster-to "$to" \
    --cluster-slots "$RESHARD_SLOTS" --cluster-yes >"$TMP/reshard.log" 2>&1 ||
    die "reshard: $(grep -E 'ERR|rror' "$TMP/reshard.log" | head -3)"
  secs=$(bl_since "$t0")
  R[$side,reshard]=$secs
  sum=$(dbsize_primaries "$base")
  R[$side,check]=ok
  if [ "$sum" != "$RESHARD_KEYS" ]; then
    R[$side,check]="keys $sum"
    log "  $side: after the reshard the primaries hold $sum keys, not $RESHARD_KEYS"
  fi
  # The other nodes learn the new owners through gossip: give them a moment to agree.
  for _ in $(seq 1 100); do check_clean "$base" && break; sleep 0.1; done
  if ! check_clean "$base"; then
    R[$side,check]="${R[$side,check]/ok/}unclean"
    log "  $side: --cluster check after the reshard:"
    grep -E 'ERR|WARN' "$TMP/check.log" | head -5 | sed 's/^/    /' >&2
  fi
  log "  $side: reshard of $RESHARD_SLOTS slots in ${secs}s, $sum keys on the primaries," \
    "check ${R[$side,check]}"
  if [[ $ROWS == *atomic* ]] && redis-cli -p "${prims[1]}" command info "cluster|migrateslots" |
    grep -q migrateslots; then
    atomic_back "$side" "$base" "${prims[0]}" "${prims[1]}" "$from"
  fi

  # Row 3: P = the primary the reshard did not touch, R = its replica, Q = another primary.
  if [[ $ROWS != *reads* ]]; then stop_nodes "$base" 6; return; fi
  p=${prims[2]}; q=${prims[0]}
  r=$(py replica "$base" "$p") || die "no replica of $p"
  secs=$(awk -v s="$READ_SECS" -v k="$PHASE_K" 'BEGIN { print s / (2 * k) }')  # per phase
  out=$(py readload "$r" "$(cat "$TMP/$r.pid")" "$p" "$q" "$RESHARD_KEYS" "$secs" "$PHASES" \
    "$READERS" "$PIPE" "$DEPTH" "$MOVE_GAP") || die "replica read load on $r"
  while IFS='=' read -r k v; do
    case $k in info) log "  $side: reads on replica $r of $p: $v" ;; *) R[$side,$k]=$v ;; esac
  done <<<"$out"
  stop_nodes "$base" 6
}

# Which rows run (the replica reads need the reshard's cluster, so they bring the reshard).
ROWS=${ROWS:-migrate,reshard,atomic,reads,bigkey}
BIGZ=${BIGZ:-$(q 5000000 1000000)}
P99_SLOTS=${P99_SLOTS:-1000}
P99_N=${P99_N:-$(q 150000 60000)}
P99_ROUNDS=${P99_ROUNDS:-$(q 3 2)}
P99_RATE=${P99_RATE:-10000}
WRITES_FILL=${WRITES_FILL:-$(q 1000000 200000)}
WRITES_KEYS=${WRITES_KEYS:-1000}
WRITES_ROUNDS=${WRITES_ROUNDS:-3}

# Phases: stable/migrating in ABBA order, PHASE_K times (READ_SECS per state in total).
PHASE_K=${PHASE_K:-$(q 4 2)}
PHASES=${PHASES:-$(for _ in $(seq 1 "$PHASE_K"); do printf 'SMMS'; done)}

command -v "$PYTHON" >/dev/null || die "no $PYTHON"
[ -x "$OURS" ] || die "no server binary at $OURS"
log "ours:   $OURS"
log "theirs: $THEIRS ($("$THEIRS" --version | head -1))"
log "migrate: $MIG_KEYS keys in one slot; reshard: $RESHARD_SLOTS slots of $RESHARD_KEYS keys;" \
  "replica reads: ${READ_SECS}s per state, $READERS readers, pipeline $PIPE x $DEPTH in flight"

if [[ $ROWS == *migrate* ]]; then
  log "[both] migrate one slot, moves alternating between the sides"
  row_migrate
fi
if [[ $ROWS == *p99* ]]; then
  if [ "$P99_RATE" -gt 0 ]; then
    export PACED_LOAD=$TMP/paced-load
    "${CXX:-g++}" -O2 -std=c++17 -o "$PACED_LOAD" utils/paced-load.cc ||
      die "cannot build utils/paced-load.cc"
  fi
  log "[ours] SET p99 on slots that do not move, stable and while $P99_SLOTS slots move" \
    "($([ "$P99_RATE" -gt 0 ] && echo "paced, $P99_RATE/s per node" || echo unpaced))"
  row_p99
fi
if [[ $ROWS == *writes* ]]; then
  log "[ours] one slot of $WRITES_FILL keys moved while two writers INCR $WRITES_KEYS of its keys"
  row_writes
fi
if [[ $ROWS == *bigkey* ]]; then
  log "[both] one sorted set of $BIGZ members: ours atomic, theirs legacy (MIGRATE)"
  row_bigkey
fi
for side in ours theirs; do
  side_setup $side
  if [[ $ROWS == *reshard* || $ROWS == *reads* ]]; then
    log "[$side] reshard and replica reads"
    rows_reshard_reads $side "$bin" "$base"
  fi
done

set +u  # rows left out by ROWS print as empty / n/a
row() { printf '%-30s %12s %12s %8s\n' "$@"; }
frac() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f\n", a / b; else print "n/a" }'; }
echo
row "row" "ours" "theirs" "ratio"
row "migrate keys/s" "${T[ours,mig]}" "${T[theirs,mig]}" \
  "$(bl_ratio "${T[ours,mig]}" "${T[theirs,mig]}")"
row "  atomic keys/s (ours)" "${T[ours,atomic_mig]:--}" "-" "-"
row "  atomic / legacy (ours)" "$(frac "${T[ours,atomic_mig]}" "${T[ours,mig]}")" "-" "-"
row "p99 stable src/dst ms" "${P[stable,src_p99]:--}/${P[stable,dst_p99]:--}" "-" "-"
row "p99 moving src/dst ms" "${P[moving,src_p99]:--}/${P[moving,dst_p99]:--}" "-" "-"
row "p99 CPUs busy src/dst ms" "${P[hogged,src_p99]:--}/${P[hogged,dst_p99]:--}" "-" "-"
row "  moving/stable src, dst" "$(frac "${P[moving,src_p99]}" "${P[stable,src_p99]}"), $(frac "${P[moving,dst_p99]}" "${P[stable,dst_p99]}")" "-" "-"
row "  moves, longest hold ms" "${P[moving,moves]:--}, ${P[moving,hold_max]:--}" "-" "-"
row "writes/s before, during move" "${W[before]:--} / ${W[rates]:--}" "-" "-"
row "  move s, write hold ms" "${W[secs]:--}, ${W[holds]:--}" "-" "-"
row "  lost writes, errors" "${W[lost]:--}, ${W[errors]:--}" "-" "-"
row "big zset ($BIGZ) move s" "${B[ours,secs]:--}" "${B[theirs,secs]:--}" "-"
row "  longest PING source ms" "${B[ours,ping_src]:--}" "${B[theirs,ping_src]:--}" "-"
row "  longest PING target ms" "${B[ours,ping_dst]:--}" "${B[theirs,ping_dst]:--}" "-"
row "  longest PING at rest src/dst" "${B[ours,idle_src]:--}/${B[ours,idle_dst]:--}" \
  "${B[theirs,idle_src]:--}/${B[theirs,idle_dst]:--}" "-"
row "  less CPU waits src/dst ms" "${B[ours,own_src]:--}/${B[ours,own_dst]:--}" \
  "${B[theirs,own_src]:--}/${B[theirs,own_dst]:--}" "-"
row "  longest loop pass src/dst ms" "${B[ours,loop_src]:--}/${B[ours,loop_dst]:--}" \
  "${B[theirs,loop_src]:--}/${B[theirs,loop_dst]:--}" "-"
row "  extra memory source MB" "${B[ours,extra_src]:--}" "${B[theirs,extra_src]:--}" "-"
row "  extra memory target MB" "${B[ours,extra_dst]:--}" "${B[theirs,extra_dst]:--}" "-"
row "reshard $RESHARD_SLOTS slots s" "${R[ours,reshard]}" "${R[theirs,reshard]}" \
  "$(bl_ratio "${R[ours,reshard]}" "${R[theirs,reshard]}")"
row "  keys kept, check clean" "${R[ours,check]}" "${R[theirs,check]}" "-"
row "atomic reshard back s" "${R[ours,atomic]:--}" "${R[theirs,atomic]:--}" "-"
row "  keys kept, check clean" "${R[ours,atomic_check]:--}" "${R[theirs,atomic_check]:--}" "-"
row "  atomic / legacy (ours)" "$(frac "${R[ours,atomic]}" "${R[ours,reshard]}")" "-" "-"
row "  atomic ours / legacy theirs" "$(frac "${R[ours,atomic]}" "${R[theirs,reshard]}")" "-" "-"
for s in ours theirs; do R[$s,frac]=$(frac "${R[$s,migrating_rps]}" "${R[$s,stable_rps]}"); done
row "replica reads migr/stable" "${R[ours,frac]}" "${R[theirs,frac]}" \
  "$(bl_ratio "${R[ours,frac]}" "${R[theirs,frac]}")"
row "  lowest-highest of a round" "${R[ours,rounds]}" "${R[theirs,rounds]}" "-"
row "  replica cpu stable/migr" "${R[ours,stable_cpu]}/${R[ours,migrating_cpu]}" \
  "${R[theirs,stable_cpu]}/${R[theirs,migrating_cpu]}" "-"
for s in ours theirs; do R[$s,fracc]=$(frac "${R[$s,migrating_rpc]}" "${R[$s,stable_rpc]}"); done
row "  reads per cpu-s migr/stable" "${R[ours,fracc]}" "${R[theirs,fracc]}" \
  "$(bl_ratio "${R[ours,fracc]}" "${R[theirs,fracc]}")"
row "  stable reads/s" "${R[ours,stable_rps]}" "${R[theirs,stable_rps]}" \
  "$(bl_ratio "${R[ours,stable_rps]}" "${R[theirs,stable_rps]}")"
row "  migrating reads/s" "${R[ours,migrating_rps]}" "${R[theirs,migrating_rps]}" \
  "$(bl_ratio "${R[ours,migrating_rps]}" "${R[theirs,migrating_rps]}")"
for k in ask moved tryagain nil err; do
  row "  migrating: $(tr '[:lower:]' '[:upper:]' <<<"$k") replies" \
    "${R[ours,migrating_$k]}" "${R[theirs,migrating_$k]}" "-"
done
for s in ours theirs; do
  for k in ask moved tryagain nil err; do
    [ "${R[$s,stable_$k]:-0}" = 0 ] || log "note: $s had ${R[$s,stable_$k]} $k replies while stable"
  done
done
for s in ours theirs; do [ -z "${R[$s,check]}" ] || [ "${R[$s,check]}" = ok ] || exit 3; done
[ "${W[lost]:-0}" = 0 ] && [ "${W[errors]:-0}" = 0 ] || exit 3
for s in ours theirs; do
  [ -z "${R[$s,atomic_check]}" ] || [ "${R[$s,atomic_check]}" = ok ] || exit 3
done
exit 0
