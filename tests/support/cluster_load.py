"""A real cluster client (redis-py's RedisCluster) under load, for tests/cluster/*.tcl.

    cluster_load.py fill PORT N             writes rs:0..N-1 = v<i>
    cluster_load.py tagread PORT N TAG      reads {TAG}0..N-1 (= their index) four times each
                                            through read_from_replicas=True
    cluster_load.py run PORT N STOPFILE     until STOPFILE exists: reads rs:* through
                                            read_from_replicas=True and checks every value,
                                            while writing ws:<j> = <j> (each acknowledged
                                            write is remembered); then checks that every
                                            acknowledged write is there
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


def client(port, replicas):
    return RedisCluster(host="127.0.0.1", port=port, read_from_replicas=replicas,
                        cluster_error_retry_attempts=10)


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
    elif mode == "tagread":
        tagread(port, n, sys.argv[4])
    else:
        run(port, n, sys.argv[4])
