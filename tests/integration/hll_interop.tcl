# HyperLogLog values between the server under test and Debian's redis-server 7.0: the same
# PFADD/PFMERGE/PFCOUNT commands build the same bytes on both (sparse, promoted, dense), and
# values move both ways with GET/SET and DUMP/RESTORE and keep counting the same.

set ::hll_redis_bin /usr/bin/redis-server

if {![file executable $::hll_redis_bin]} {
    test "HyperLogLog interop with redis-server 7.0" { require_peer $::hll_redis_bin redis-server } {hll}
    return
}

# The same command on both servers (-1: redis-server, 0: the server under test); the replies
# must agree.
proc hll_both {args} {
    set want [r -1 {*}$args]
    assert_equal $want [r {*}$args] $args
    return $want
}

proc hll_same_value {key} {
    set v [r -1 get $key]
    assert_equal [string length $v] [string length [r get $key]] "length of $key"
    assert_equal $v [r get $key] "bytes of $key"
}

set ::hll_tested_server $::cfg(server)
set ::cfg(server) $::hll_redis_bin
try {
    start_server {tags {hll}} {
        set ::cfg(server) $::hll_tested_server
        start_server {} {
            test "PFADD sequences build the same bytes as redis-server 7.0 (sparse and dense)" {
                hll_both flushall
                foreach max {3000 300 0} {
                    hll_both config set hll-sparse-max-bytes $max
                    set key k$max
                    for {set b 0} {$b < 40} {incr b} {
                        set els {}
                        for {set i 0} {$i < $b * 7 % 50 + 1} {incr i} { lappend els e$b.$i }
                        hll_both pfadd $key {*}$els
                        hll_same_value $key
                        if {$b % 5 == 0} {
                            hll_both pfcount $key
                            hll_same_value $key
                        }
                    }
                    hll_both pfdebug encoding $key
                }
                hll_both config set hll-sparse-max-bytes 3000
                assert_equal sparse [r pfdebug encoding k3000]
                assert_equal dense [r pfdebug encoding k300]
                assert_equal dense [r pfdebug encoding k0]
                # Dense from the many.
                set els {}
                for {set i 0} {$i < 20000} {incr i} { lappend els d$i }
                hll_both pfadd big {*}$els
                hll_same_value big
                hll_both pfcount big
                hll_same_value big
                # Merges: into new keys, into a sparse source, with a dense source.
                hll_both pfadd s1 a b c
                hll_both pfmerge s1 k3000
                hll_same_value s1
                hll_both pfmerge m1 k3000 k300 nokey
                hll_same_value m1
                hll_both pfmerge m2 s1
                hll_same_value m2
                hll_both pfcount k3000 k300 k0 big
                hll_both pfdebug todense m2
                hll_same_value m2
            }

            # Checks a value copied to x:<key> and y:<key> on the other server: same bytes on
            # both, and both count and add alike.
            proc hll_moved_ok {key} {
                foreach k [list x:$key y:$key] {
                    hll_same_value $k
                    hll_both pfcount $k
                    hll_both pfadd $k one-more
                    hll_same_value $k
                    hll_both pfcount $k
                }
            }

            test "HyperLogLog values move both ways with GET/SET, and by DUMP/RESTORE from 7.0" {
                foreach key {k3000 k0 big s1} {
                    r del x:$key y:$key
                    r -1 del x:$key y:$key
                    r set x:$key [r -1 get $key]
                    r restore y:$key 0 [r -1 dump $key]
                    r -1 set y:$key [r get $key]
                    r -1 restore x:$key 0 [r -1 dump $key]
                    hll_moved_ok $key
                }
            }

            # Valkey 8 DUMPs with RDB version 11, which redis-server 7.0 refuses; the node
            # writes version 10.
            test "HyperLogLog values DUMPed by the node RESTORE into redis-server 7.0" {
                foreach key {k3000 k0 big s1} {
                    r del x:$key y:$key
                    r -1 del x:$key y:$key
                    r -1 restore x:$key 0 [r dump $key]
                    r -1 restore y:$key 0 [r dump $key]
                    r restore x:$key 0 [r dump $key]
                    r restore y:$key 0 [r dump $key]
                    hll_moved_ok $key
                }
            } {beyond-valkey}
        }
    }
} finally {
    set ::cfg(server) $::hll_tested_server
}
