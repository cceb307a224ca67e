# Third-party clients and tools against the server: redis-cli, redis-benchmark, redis-py.

proc tool_path {name} {
    foreach dir {/usr/bin /usr/local/bin} {
        if {[file executable $dir/$name]} { return $dir/$name }
    }
    return {}
}

# The tools are peers that `make test` installs: a missing one fails the test, naming its
# Debian package.
proc need_tool {name} {
    set p [tool_path $name]
    if {$p eq {}} { require_peer /usr/bin/$name redis-tools }
    return $p
}

# Run redis-cli against the innermost server; returns its stdout (trailing newline removed).
proc cli {args} {
    set cli [need_tool redis-cli]
    return [exec $cli -p [srv port] {*}$args 2>@1]
}

# Run a Python snippet with /usr/bin/python3; PORT is in the environment.
proc py {script} {
    require_peer /usr/bin/python3 python3
    if {[catch {exec /usr/bin/python3 -c "import redis"}]} {
        ::testutil::fail "python3 cannot import redis: install the Debian package 'python3-redis' (make test does)"
    }
    set ::env(VTEST_PORT) [srv port]
    return [exec /usr/bin/python3 -c $script 2>@1]
}

start_server {tags {tools}} {
    test "redis-cli: SET and GET" {
        assert_equal OK [cli set k v]
        assert_equal v [cli get k]
        assert_equal v [r get k]
        assert_equal {} [cli get nokey]
    }

    test "redis-cli: error replies" {
        # redis-cli prints an empty line after an error when stdout is not a tty
        assert_equal "ERR unknown command 'nosuchcmd', with args beginning with: 'x' \n" [cli nosuchcmd x]
    }

    test "redis-cli: -r repeats a command" {
        r del x
        assert_equal "1\n2\n3" [cli -r 3 incr x]
        assert_equal 3 [r get x]
    }

    test "redis-cli: INFO and CONFIG GET" {
        assert_match "*server_name:valkey*" [cli info server]
        assert_equal "maxmemory\n0" [cli config get maxmemory]
    }

    test "redis-cli: --pipe mass insert of 10000 SETs" {
        r flushall
        set path [file join [srv dir] pipe.txt]
        set f [open $path w]
        fconfigure $f -translation binary
        for {set i 0} {$i < 10000} {incr i} {
            puts -nonewline $f [::resp::encode_command SET key:$i value:$i]
        }
        close $f
        set cli [need_tool redis-cli]
        set out [exec $cli -p [srv port] --pipe < $path 2>@1]
        assert_match "*errors: 0, replies: 10000*" $out
        assert_equal 10000 [r dbsize]
        assert_equal value:9999 [r get key:9999]
    }

    test "redis-cli: --rdb takes a snapshot with the data, --functions-rdb one without" {
        r flushall
        r set secret:key 1
        r rpush secret:list a b
        set full [file join [srv dir] full.rdb]
        set fn [file join [srv dir] functions.rdb]
        assert_match "*Transfer finished with success*" [cli --rdb $full]
        assert_match "*Transfer finished with success*" [cli --functions-rdb $fn]
        set f [read_binary $full]
        set g [read_binary $fn]
        assert_equal REDIS [string range $f 0 4]
        assert {[string first secret:list $f] > 0}
        assert_equal REDIS [string range $g 0 4]
        # the header, aux fields, EOF and checksum: no key, no SELECT
        assert_equal -1 [string first secret: $g]
        assert_equal -1 [string first "\xfe\x00" $g]
        assert_equal "\xff" [string index $g end-8]
        # neither stays a replica
        wait_for_condition 50 20 {[s connected_slaves] == 0} else { fail "a tool stayed a replica" }
        assert_equal 1 [r get secret:key]
    }

    test "REPLCONF rdb-only and rdb-filter-only: errors as Valkey 8's" {
        set c [::resp::client 127.0.0.1 [srv port]]
        assert_error "ERR Unsupported rdb-filter-only option: keys" {$c REPLCONF rdb-filter-only "functions keys"}
        assert_error "ERR value is out of range, value must between 0 and 1" {$c REPLCONF rdb-only 2}
        assert_error "ERR value is not an integer or out of range" {$c REPLCONF rdb-only yes}
        assert_equal OK [$c REPLCONF rdb-filter-only ""]
        # a filtered snapshot is only sent in the EOF-marked form
        assert_error "ERR Filtered replica requires EOF capability" {$c SYNC}
        $c close
    }

    test "REPLCONF rdb-only 1: the snapshot, then no stream while the tool stays connected" {
        r flushall
        r set before 1
        set fd [socket 127.0.0.1 [srv port]]
        fconfigure $fd -translation binary -buffering none
        foreach cmd {{REPLCONF capa eof} {REPLCONF rdb-only 1}} {
            puts -nonewline $fd [::resp::encode_command {*}$cmd]
            assert_equal "+OK" [string trimright [gets $fd] "\r"]
        }
        puts -nonewline $fd [::resp::encode_command SYNC]
        # newlines may come while the snapshot is made; then $EOF:<mark>, the data, the mark
        set head [gets $fd]
        while {$head eq ""} { set head [gets $fd] }
        assert_match {$EOF:*} $head
        set mark [string range [string trimright $head "\r"] 5 end]
        assert_equal 40 [string length $mark]
        fconfigure $fd -blocking 0
        set data ""
        set deadline [expr {[clock milliseconds] + 10000}]
        while {[string range $data end-39 end] ne $mark && [clock milliseconds] < $deadline} {
            append data [read $fd]
            after 5
        }
        assert_equal $mark [string range $data end-39 end]
        assert_equal REDIS [string range $data 0 4]
        # writes after the snapshot: none of them reaches the tool
        for {set i 0} {$i < 50} {incr i} { r set after:$i $i }
        after 300
        assert_equal {} [read $fd]
        # nor does it count as a replica that holds them
        r config set min-replicas-to-write 1
        assert_error "NOREPLICAS*" {r set after:x 1}
        assert_equal 0 [r wait 1 100]
        r config set min-replicas-to-write 0
        close $fd
        assert_equal 1 [r get before]
    }

    test "redis-cli: --pipe reports errors" {
        set path [file join [srv dir] pipe-err.txt]
        set f [open $path w]
        fconfigure $f -translation binary
        puts -nonewline $f [::resp::encode_command SET a 1]
        puts -nonewline $f [::resp::encode_command NOSUCHCMD]
        puts -nonewline $f [::resp::encode_command INCR a]
        close $f
        set cli [need_tool redis-cli]
        catch {exec $cli -p [srv port] --pipe < $path 2>@1} out
        assert_match "*errors: 1, replies: 3*" $out
        assert_equal 2 [r get a]
    }

    test "redis-cli: RESP3 mode (-3)" {
        assert_equal "1# \"maxmemory\" => \"0\"" [cli -3 --no-raw config get maxmemory]
        set h [cli -3 --no-raw hello 3]
        assert_match "1# \"server\" => \"valkey\"\n2# \"version\" => \"8.0.*\"\n3# \"proto\" => (integer) 3\n*" $h
    }

    test "redis-benchmark -n 1000 -q runs without errors" {
        set bench [need_tool redis-benchmark]
        set out [exec $bench -p [srv port] -n 1000 -c 10 -q 2>@1]
        assert_no_match "*ERR*" $out
        assert_no_match "*rror*" $out
        foreach t {PING_INLINE PING_MBULK SET GET INCR LPUSH RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN MSET} {
            assert_match "*\n$t*: * requests per second*" $out
        }
        assert_equal PONG [r ping]
    }

    test "redis-benchmark with pipelining and random keys" {
        set bench [need_tool redis-benchmark]
        r flushall
        set out [exec $bench -p [srv port] -n 2000 -P 16 -r 100 -t set,get -q 2>@1]
        assert_match "*SET: * requests per second*GET: * requests per second*" $out
        assert_range [r dbsize] 1 100
    }

    test "redis-py: set / get / delete" {
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]))
print(r.set("pk", "hello"), r.get("pk"), r.delete("pk"), r.get("pk"))
print(r.ping(), r.echo("x"))
        }]
        assert_equal "True b'hello' 1 None\nTrue b'x'" $out
    }

    test "redis-py: pipeline" {
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
r.delete("pl", "cnt")
p = r.pipeline(transaction=False)
for i in range(100):
    p.rpush("pl", i)
    p.incr("cnt")
res = p.execute()
print(len(res), res[-2:], r.llen("pl"), r.get("cnt"))
        }]
        assert_equal "200 \[100, 100\] 100 100" $out
    }

    test "redis-py: transaction with WATCH" {
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
other = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
r.set("bal", 10)
# committed transaction
with r.pipeline() as p:
    p.watch("bal")
    v = int(p.get("bal"))
    p.multi()
    p.set("bal", v + 5)
    p.get("bal")
    print(p.execute())
# aborted: another client touches the watched key
with r.pipeline() as p:
    p.watch("bal")
    other.incr("bal")
    p.multi()
    p.set("bal", 0)
    try:
        p.execute()
        print("committed")
    except redis.WatchError:
        print("WatchError")
print(r.get("bal"))
# errors inside a transaction
with r.pipeline() as p:
    p.set("s", "x")
    p.incr("s")
    try:
        p.execute()
    except redis.ResponseError as e:
        print("ResponseError:", e)
        }]
        assert_match "\\\[True, '15'\]\nWatchError\n16\nResponseError: Command # 2 (INCR* s*) of pipeline caused error: value is not an integer or out of range" \
            $out
    }

    test "redis-py: scan_iter over 500 keys" {
        r flushall
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
p = r.pipeline(transaction=False)
for i in range(500):
    p.set("scan:%d" % i, i)
p.set("other", 1)
p.execute()
keys = set(r.scan_iter(match="scan:*", count=50))
print(len(keys), "scan:499" in keys, "other" in keys)
print(len(list(r.scan_iter())))
        }]
        assert_equal "500 True False\n501" $out
    }

    test "redis-py: errors are raised with the server text" {
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
r.set("str", "x")
for cmd in (("LPUSH", "str", "a"), ("NOSUCH",), ("GET",)):
    try:
        r.execute_command(*cmd)
    except redis.ResponseError as e:
        print(type(e).__name__, e)
        }]
        assert_equal [join {
            "ResponseError WRONGTYPE Operation against a key holding the wrong kind of value"
            "ResponseError unknown command 'NOSUCH', with args beginning with: "
            "ResponseError wrong number of arguments for 'get' command"
        } \n] $out
    }

    test "redis-py: HELLO 2" {
        set out [py {
import os, redis
r = redis.Redis(port=int(os.environ["VTEST_PORT"]), decode_responses=True)
h = r.execute_command("HELLO", 2)
h = dict(zip(h[::2], h[1::2]))
print(h["server"], h["proto"], h["mode"], h["role"], h["version"])
        }]
        assert_match "valkey 2 standalone master 8.0.*" $out
    }

    test "redis-py: RESP3 connection (protocol=3)" {
        set out [py {
import os, inspect, redis
port = int(os.environ["VTEST_PORT"])
if "protocol" not in inspect.signature(redis.Redis.__init__).parameters:
    print("unsupported", redis.__version__)
else:
    r3 = redis.Redis(port=port, decode_responses=True, protocol=3)
    r3.set("r3", "v")
    print(r3.get("r3"), r3.config_get("maxmemory"))
        }]
        if {[string match "unsupported *" $out]} {
            # Debian 12 ships redis-py 4.3.4, which predates RESP3 support (redis-py 5.0)
            skip_deliberate "redis-py [lindex $out 1] has no protocol=3"
        }
        assert_equal "v {'maxmemory': '0'}" $out
    }
}
