"""A real cluster client (redis-py's RedisCluster) under load, for tests/cluster/*.tcl.

    cluster_load.py fill PORT N             writes rs:0..N-1 = v<i>
    cluster_load.py tagread PORT N TAG      reads {TAG}0..N-1 (= their index) four times each
                                            through read_from_replicas=True
    cluster_load.py run PORT N STOPFILE     until STOPFILE exists: reads rs:* through
                                            read_from_replicas=True and checks every value,
                                            while writing ws:<j> = <j> (each acknowledged
                                            write is remembered); then checks that every
                                            acknowledged write is there
    cluster_load.py writes PORT N STOPFILE  until STOPFILE exists: writes fw:<j> = <j> through a
                                            RedisCluster (primaries only), each acknowledged
                                            write remembered; an error that reaches the
                                            application is counted by its class and the write
                                            retried after 50 ms, as an application would; then
                                            checks that every acknowledged write is there.
                                            N: stop after N writes if STOPFILE never appears.
                                            Prints "writes N errors E lost L kinds K clientbug
                                            B" (K: the error classes seen, comma-separated,
                                            or "none"; B: redis-py 4.3's failure to rebuild
                                            its slot map after a node died, worked around
                                            with a new client)
    cluster_load.py scan PORT N              writes sc:0..N-1 and a hash, a set and a sorted set
                                            of N elements each, then SCANs (scan_iter) and
                                            HSCAN/SSCAN/ZSCANs them through
                                            read_from_replicas=True; prints "keys K hash H set
                                            S zset Z" (distinct elements returned)
Prints one line: "reads R wrong W errors E clientbug B writes N lost L" (wrong: a read that
returned something other than the value written before the run; errors: exceptions that
reached the application; clientbug: the IndexError that redis-py before 5.0.4 raises when
read_from_replicas meets a MOVED for a slot whose node list shrank (redis-py issues #2988,
fixed by #3182): a defect of the client, retried here as an application would). The first
wrong reads and errors follow on stderr, one "SAMPLE ..." line each.
"""
import os
import random
import sys
import time

from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException


def client(port, replicas):
    return RedisCluster(host="127.0.0.1", port=port, read_from_replicas=replicas,
                        cluster_error_retry_attempts=10)


def client_despite_bug(port):
    """A new client even while a node is down: redis-py before 4.4 fails to build its slot map
    when a node it was given is dead (its deepcopy of the connection settings fails with
    "cannot pickle"), a defect of the client; an application tries again, so do we."""
    for attempt in range(300):  # 30 s: a cluster down for longer is the test's failure
        try:
            return client(port, False)
        except RedisClusterException as e:
            if "cannot pickle" not in str(e) or attempt == 299:
                raise
        except Exception:  # its first command may still meet the dead node
            if attempt == 299:
                raise
        time.sleep(0.1)


def fill(port, n):
    rc = client(port, False)
    pipe = rc.pipeline()
    for i in range(n):
        pipe.set("rs:%d" % i, "v%d" % i)
        if i % 500 == 499:
            pipe.execute()
    pipe.execute()
    print("filled %d" % n)


def run(port, n, stopfile):
    reader = client(port, True)
    writer = client(port, False)
    reads = wrong = errors = clientbug = 0
    acked = []
    j = 0
    samples = []
    while not os.path.exists(stopfile):
        i = random.randrange(n)
        try:
            try:
                v = reader.get("rs:%d" % i)
            except IndexError:
                clientbug += 1
                v = reader.get("rs:%d" % i)
            reads += 1
            if reads == 100:  # the test's change may begin: the load runs
                open(stopfile + ".running", "w").close()
            if v != ("v%d" % i).encode():
                wrong += 1
                if len(samples) < 5:
                    samples.append("rs:%d -> %r" % (i, v))
        except Exception as e:  # what an application would see
            errors += 1
            if len(samples) < 5:
                samples.append("read rs:%d: %s" % (i, e))
        if reads % 4 == 0:
            try:
                writer.set("ws:%d" % j, str(j))
                acked.append(j)
            except Exception as e:
                errors += 1
                if len(samples) < 5:
                    samples.append("write ws:%d: %s" % (j, e))
            j += 1
    time.sleep(0.1)
    lost = sum(1 for k in acked if writer.get("ws:%d" % k) != str(k).encode())
    print("reads %d wrong %d errors %d clientbug %d writes %d lost %d" %
          (reads, wrong, errors, clientbug, len(acked), lost))
    for s in samples:
        print("SAMPLE " + s, file=sys.stderr)


def writes(port, n, stopfile):
    rc = client(port, False)
    acked = []
    errors = clientbug = 0
    kinds = set()
    samples = []
    j = 0
    while not os.path.exists(stopfile) and j < n:
        try:
            rc.set("fw:%d" % j, str(j))
            acked.append(j)
            j += 1
        except RedisClusterException as e:
            if "cannot pickle" not in str(e):
                raise
            # redis-py before 4.4 cannot rebuild its slot map once a seed node died (its
            # deepcopy of the connection settings fails): a defect of the client. An
            # application makes a new client, so do we.
            clientbug += 1
            rc = client_despite_bug(port)
        except Exception as e:  # what an application would see; it tries again
            errors += 1
            kinds.add(type(e).__name__)
            if len(samples) < 5:
                samples.append("write fw:%d: %s: %s" % (j, type(e).__name__, e))
            time.sleep(0.05)
    lost = 0
    check = client_despite_bug(port)
    # Read back in pipelined batches: one GET per round trip took minutes on a loaded machine.
    for i in range(0, len(acked), 1000):
        batch = acked[i:i + 1000]
        for attempt in range(50):
            try:
                pipe = check.pipeline()
                for k in batch:
                    pipe.get("fw:%d" % k)
                got_all = pipe.execute()
                break
            except RedisClusterException as e:  # the same defect, met by the pipeline
                if "cannot pickle" not in str(e) or attempt == 49:
                    raise
                check = client_despite_bug(port)
        for k, got in zip(batch, got_all):
            if got != str(k).encode():
                lost += 1
                if len(samples) < 10:
                    samples.append("lost fw:%d" % k)
    print("writes %d errors %d lost %d kinds %s clientbug %d" %
          (len(acked), errors, lost, ",".join(sorted(kinds)) or "none", clientbug))
    for s in samples:
        print("SAMPLE " + s, file=sys.stderr)


def scan(port, n):
    w = client(port, False)
    pipe = w.pipeline()
    for i in range(n):
        pipe.set("sc:%d" % i, i)
        if i % 500 == 499:
            pipe.execute()
    pipe.execute()
    for i in range(0, n, 500):
        chunk = range(i, min(n, i + 500))
        w.hset("{sch}h", mapping={"f%d" % j: j for j in chunk})
        w.sadd("{sch}s", *["m%d" % j for j in chunk])
        w.zadd("{sch}z", {"m%d" % j: j for j in chunk})
    time.sleep(0.5)  # let the replicas catch up
    r = client(port, True)
    keys = set(r.scan_iter(match="sc:*", count=50))
    h = set(f for f, _ in r.hscan_iter("{sch}h", count=20))
    st = set(r.sscan_iter("{sch}s", count=20))
    z = set(m for m, _ in r.zscan_iter("{sch}z", count=20))
    print("keys %d hash %d set %d zset %d" % (len(keys), len(h), len(st), len(z)))


def tagread(port, n, tag):
    rc = client(port, True)
    reads = wrong = errors = clientbug = 0
    samples = []
    for _ in range(4):
        for i in range(n):
            key = "{%s}%d" % (tag, i)
            try:
                try:
                    v = rc.get(key)
                except IndexError:
                    clientbug += 1
                    v = rc.get(key)
                reads += 1
                if v != str(i).encode():
                    wrong += 1
                    if len(samples) < 5:
                        samples.append("%s -> %r" % (key, v))
            except Exception as e:
                errors += 1
                if len(samples) < 5:
                    samples.append("read %s: %s" % (key, e))
    print("reads %d wrong %d errors %d clientbug %d writes 0 lost 0" %
          (reads, wrong, errors, clientbug))
    for s in samples:
        print("SAMPLE " + s)


if __name__ == "__main__":
    mode, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "fill":
        fill(port, n)
    elif mode == "scan":
        scan(port, n)
    elif mode == "writes":
        writes(port, n, sys.argv[4])
    elif mode == "tagread":
        tagread(port, n, sys.argv[4])
    else:
        run(port, n, sys.argv[4])
