# SORT and SORT_RO: numeric and ALPHA order, BY (keys, hash fields, nosort), GET, LIMIT,
# ASC|DESC, STORE, the errors, what replicas receive, and the cluster-mode refusals. The
# replies of the session below were recorded from Valkey 8.0.1.

start_server {tags {sort}} {
    test "SORT: a session recorded from Valkey 8.0.1" {
        r select 9
        foreach {cmd want} {
            flushall OK
            {rpush l 3 1 2 10 -1.5 0x10 inf} 7
            {sort l} {-1.5 1 2 3 10 0x10 inf}
            {sort l desc} {inf 0x10 10 3 2 1 -1.5}
            {sort l limit 1 3} {1 2 3}
            {sort l limit -5 2} {-1.5 1}
            {sort l limit 10 2} {}
            {sort l limit 2 -1} {2 3 10 0x10 inf}
            {sort l alpha} {-1.5 0x10 1 10 2 3 inf}
            {sort l alpha desc limit 0 3} {inf 3 2}
            {mset w_3 30 w_1 10 w_2 20 w_10 5} OK
            {sort l by w_*} {-1.5 0x10 inf 10 1 2 3}
            {sort l by w_* get # get w_*} {-1.5 {} 0x10 {} inf {} 10 5 1 10 2 20 3 30}
            {sort l by nosort} {3 1 2 10 -1.5 0x10 inf}
            {sort l by nosort desc} {inf 0x10 -1.5 10 2 1 3}
            {sadd s c a b} 3
            {sort s alpha} {a b c}
            {sort s by nosort store dst} 3
            {lrange dst 0 -1} {a b c}
            {zadd z 3 c 1 a 2 b} 3
            {sort z by nosort} {a b c}
            {sort z by nosort desc} {c b a}
            {sort z by nosort desc limit 1 1} b
            {sort z alpha desc} {c b a}
            {hset h_a f 3} 1
            {hset h_b f 1} 1
            {hset h_c f 2} 1
            {sort s by h_*->f} {b c a}
            {sort s by h_*->f get h_*->f get #} {1 b 2 c 3 a}
            {sort s by h_*->f store out get h_*->nofield} 3
            {lrange out 0 -1} {{} {} {}}
            {type out} list
            {rpush bad x y} 2
            {sort bad} {ERROR {ERR One or more scores can't be converted into double}}
            {sort bad alpha} {x y}
            {sort l foo} {ERROR {ERR syntax error}}
            {sort l limit 1} {ERROR {ERR syntax error}}
            {sort l limit a b} {ERROR {ERR value is not an integer or out of range}}
            {set str v} OK
            {sort str} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {sort nokey} {}
            {sort nokey store dst} 0
            {exists dst} 0
            {sort_ro l store x} {ERROR {ERR syntax error}}
            {sort_ro l limit 0 2} {-1.5 1}
            {sort l store dst2 alpha limit 0 2} 2
            {lrange dst2 0 -1} {-1.5 0x10}
        } {
            if {[catch {r {*}$cmd} got]} { set got [list ERROR $got] }
            assert_equal $want $got $cmd
        }
        r select 0
    }

    test "SORT ... STORE goes to replicas as sent; a set without BY is stored sorted" {
        r flushall
        r sadd s c a b
        set tap [repl_tap_open]
        assert_equal 3 [r sort s by nosort store dst]
        assert_equal {a b c} [r lrange dst 0 -1]
        assert_equal 0 [r sort nokey store dst]
        assert_equal {SELECT 0} [repl_tap_next $tap]
        assert_equal {sort s by nosort store dst} [repl_tap_next $tap]
        assert_equal {sort nokey store dst} [repl_tap_next $tap]
        close $tap
        assert_equal 0 [r exists dst]
    }

    test "COMMAND GETKEYS finds SORT's STORE key after the option values" {
        assert_equal {src} [r command getkeys sort src by store get store]
        assert_equal {src dst} [r command getkeys sort src limit 0 1 get # store dst]
        assert_equal {src} [r command getkeys sort_ro src by w_*]
    }
}
