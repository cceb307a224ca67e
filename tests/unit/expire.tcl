# Expiration: EXPIRE PEXPIRE EXPIREAT PEXPIREAT (NX XX GT LT), TTL PTTL EXPIRETIME
# PEXPIRETIME PERSIST, lazy and active expiry, INFO keyspace / expired_keys.

# All tests run against one long-lived server, each on a fresh connection, each ending with
# nothing left blocked or WATCHed (assert_server_idle).
proc exp_test {name body args} {
    uplevel 1 [list test $name "reconnect\n$body\nassert_server_idle" {*}$args]
}

start_server {tags {expire}} {
    exp_test "A pipelined command judges expiry after the command before it ran" {
        r flushall
        set c [valkey_client]
        set cmds [::resp::encode_command SET k v PX 100]
        append cmds [::resp::encode_command DEBUG SLEEP 0.2] [::resp::encode_command EXISTS k]
        $c write_raw $cmds
        assert_equal OK [$c read]
        assert_equal OK [$c read]
        assert_equal 0 [$c read]
        $c close
    }

    exp_test "EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT set the TTL" {
        r flushall
        r set k v
        assert_equal 1 [r expire k 100]
        assert_range [r ttl k] 98 100
        assert_range [r pttl k] 98000 100000
        assert_equal 1 [r pexpire k 200000]
        assert_range [r ttl k] 198 200
        set at [expr {[clock seconds] + 300}]
        assert_equal 1 [r expireat k $at]
        assert_equal $at [r expiretime k]
        assert_equal [expr {$at * 1000}] [r pexpiretime k]
        set pat [expr {[clock milliseconds] + 400000}]
        assert_equal 1 [r pexpireat k $pat]
        assert_equal $pat [r pexpiretime k]
        # EXPIRETIME rounds the millisecond time to the nearest second
        assert_equal [expr {($pat + 500) / 1000}] [r expiretime k]
        assert_equal v [r get k]
    }

    exp_test "EXPIRE family on a missing key returns 0" {
        r flushall
        assert_equal 0 [r expire nokey 100]
        assert_equal 0 [r pexpire nokey 100]
        assert_equal 0 [r expireat nokey 4000000000]
        assert_equal 0 [r pexpireat nokey 4000000000000]
        assert_equal 0 [r expire nokey 100 nx]
        assert_equal 0 [r expire nokey -1]
        assert_equal 0 [r exists nokey]
    }

    exp_test "TTL, PTTL, EXPIRETIME and PEXPIRETIME of keys without TTL and missing keys" {
        r flushall
        r set k v
        assert_equal -1 [r ttl k]
        assert_equal -1 [r pttl k]
        assert_equal -1 [r expiretime k]
        assert_equal -1 [r pexpiretime k]
        assert_equal -2 [r ttl nokey]
        assert_equal -2 [r pttl nokey]
        assert_equal -2 [r expiretime nokey]
        assert_equal -2 [r pexpiretime nokey]
        assert_error "ERR wrong number of arguments for 'ttl' command" {r ttl}
        assert_error "ERR wrong number of arguments for 'pexpiretime' command" {r pexpiretime a b}
    }

    exp_test "EXPIRETIME and PEXPIRETIME exact values" {
        r flushall
        r set k v
        r expireat k 4000000000
        assert_equal 4000000000 [r expiretime k]
        assert_equal 4000000000000 [r pexpiretime k]
        r pexpireat k 4000000000123
        assert_equal 4000000000 [r expiretime k]
        assert_equal 4000000000123 [r pexpiretime k]
        r pexpireat k 4000000000499
        assert_equal 4000000000 [r expiretime k]
        r pexpireat k 4000000000500
        assert_equal 4000000001 [r expiretime k]
        r pexpireat k 4000000000999
        assert_equal 4000000001 [r expiretime k]
        assert_equal 4000000000999 [r pexpiretime k]
    }

    exp_test "TTL rounds the remaining time to the nearest second" {
        r flushall
        r set k v
        r pexpire k 100900
        assert_equal 101 [r ttl k]
        r pexpire k 100100
        assert_equal 100 [r ttl k]
        r pexpire k 1400
        assert_equal 1 [r ttl k]
    }

    exp_test "PERSIST" {
        r flushall
        r set k v ex 100
        assert_equal 1 [r persist k]
        assert_equal -1 [r ttl k]
        assert_equal 0 [r persist k]
        assert_equal 0 [r persist nokey]
        assert_equal v [r get k]
        assert_error "ERR wrong number of arguments for 'persist' command" {r persist}
    }

    exp_test "EXPIRE NX and XX" {
        r flushall
        r set k v
        assert_equal 0 [r expire k 100 xx]
        assert_equal -1 [r ttl k]
        assert_equal 1 [r expire k 100 nx]
        assert_range [r ttl k] 98 100
        assert_equal 0 [r expire k 200 nx]
        assert_range [r ttl k] 98 100
        assert_equal 1 [r expire k 200 xx]
        assert_range [r ttl k] 198 200
        assert_equal 1 [r pexpire k 300000 XX]
        assert_range [r ttl k] 298 300
    }

    exp_test "EXPIRE GT and LT" {
        r flushall
        r set k v
        # a key without TTL counts as an infinite TTL
        assert_equal 0 [r expire k 100 gt]
        assert_equal -1 [r ttl k]
        assert_equal 0 [r expire k 100 xx gt]
        assert_equal 1 [r expire k 100 lt]
        assert_range [r ttl k] 98 100
        assert_equal 0 [r expire k 50 gt]
        assert_equal 1 [r expire k 200 gt]
        assert_range [r ttl k] 198 200
        assert_equal 0 [r expire k 300 lt]
        assert_equal 1 [r expire k 50 lt]
        assert_range [r ttl k] 48 50
        assert_equal 1 [r expire k 60 xx gt]
        assert_equal 1 [r expire k 55 xx lt]
        assert_range [r ttl k] 53 55
        set at [expr {[clock seconds] + 1000}]
        assert_equal 1 [r expireat k $at gt]
        assert_equal 0 [r expireat k [expr {$at + 10}] lt]
        assert_equal 1 [r pexpireat k [expr {($at - 10) * 1000}] lt]
        assert_equal [expr {$at - 10}] [r expiretime k]
    }

    exp_test "EXPIRE with incompatible or unknown options" {
        r flushall
        r set k v
        set nx_msg "ERR NX and XX, GT or LT options at the same time are not compatible"
        foreach opts {{nx xx} {xx nx} {nx gt} {nx lt} {gt nx}} {
            assert_error $nx_msg {r expire k 100 {*}$opts}
        }
        assert_error "ERR GT and LT options at the same time are not compatible" {r expire k 100 gt lt}
        assert_error "ERR GT and LT options at the same time are not compatible" {r pexpire k 100 lt gt}
        assert_error $nx_msg {r pexpireat k 100 nx xx}
        assert_error $nx_msg {r expireat k 100 nx lt}
        assert_error "ERR Unsupported option foo" {r expire k 100 foo}
        assert_error "ERR Unsupported option bar" {r pexpire k 100 nx bar}
        assert_error "ERR wrong number of arguments for 'expire' command" {r expire k}
        assert_equal -1 [r ttl k]
    }

    exp_test "EXPIRE with a non-integer or overflowing time" {
        r flushall
        r set k v
        assert_error "ERR value is not an integer or out of range" {r expire k abc}
        assert_error "ERR value is not an integer or out of range" {r expire k 1.5}
        assert_error "ERR value is not an integer or out of range" {r pexpire k 9223372036854775808}
        assert_error "ERR invalid expire time in 'expire' command" {r expire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expire' command" {r expire k 9223372036854775}
        assert_error "ERR invalid expire time in 'expire' command" {r expire k -9223372036854775808}
        assert_error "ERR invalid expire time in 'pexpire' command" {r pexpire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expireat' command" {r expireat k 9223372036854775807}
        assert_equal -1 [r ttl k]
        assert_equal 1 [r exists k]
    }

    exp_test "Very large but valid expire times" {
        r flushall
        r set k v
        assert_equal 1 [r pexpireat k 9223372036854775807]
        assert_equal 9223372036854775807 [r pexpiretime k]
        assert_equal 1 [r expire k 9223372036854]
        assert_range [r ttl k] 9223372036853 9223372036854
        assert_equal v [r get k]
    }

    exp_test "A zero, negative or past expire deletes the key" {
        r flushall
        set before [s expired_keys]
        foreach cmd {{expire k 0} {expire k -1} {pexpire k 0} {pexpire k -100}
                     {expireat k 1} {expireat k 0} {pexpireat k 1} {pexpireat k -5}} {
            r set k v
            assert_equal 1 [r {*}$cmd] $cmd
            assert_equal 0 [r exists k] $cmd
            assert_equal -2 [r ttl k]
        }
        assert_equal 0 [r dbsize]
        # a deletion by a past expire is not counted as an expired key
        assert_equal $before [s expired_keys]
    }

    exp_test "A past expire with NX/XX/GT/LT follows the condition first" {
        r flushall
        r set k v
        assert_equal 0 [r expire k -1 xx]
        assert_equal 1 [r exists k]
        assert_equal 0 [r expire k -1 gt]
        assert_equal 1 [r exists k]
        assert_equal 1 [r expire k -1 lt]
        assert_equal 0 [r exists k]
    }

    exp_test "SET without KEEPTTL clears the TTL; overwriting commands follow" {
        r flushall
        r set k v ex 100
        r set k w
        assert_equal -1 [r ttl k]
        r set k v ex 100
        r setrange k 0 x
        assert_range [r ttl k] 98 100
        r set k v ex 100
        r getset k y
        assert_equal -1 [r ttl k]
        r set k v ex 100
        r set k w keepttl
        assert_range [r ttl k] 98 100
        r set k 1 ex 100
        r incr k
        assert_range [r ttl k] 98 100
    }

    exp_test "RENAME carries the TTL, DEL removes it" {
        r flushall
        r set a v px 100000
        r rename a b
        assert_range [r pttl b] 98000 100000
        r del b
        r set b v
        assert_equal -1 [r ttl b]
    }

    exp_test "Lazy expiry: GET of an expired key" {
        r flushall
        r debug set-active-expire 0
        try {
            set gone [within_ttl 400 {r set k v px $ttl} {set got [r get k]}]
            assert_equal v $got
            set before [s expired_keys]
            wait_until_ms $gone
            # still in the keyspace until accessed
            assert_equal 1 [r dbsize]
            assert_equal {} [r get k]
            assert_equal 0 [r dbsize]
            assert_equal [expr {$before + 1}] [s expired_keys]
        } finally {
            r debug set-active-expire 1
        }
    }

    exp_test "Expired but not yet deleted keys are invisible" {
        r flushall
        r debug set-active-expire 0
        try {
            r set gone v px 20
            r set stay v
            after 100
            assert_equal 2 [r dbsize]
            assert_equal {stay} [r keys *]
            assert_equal 0 [r exists gone]
            assert_equal -2 [r ttl gone]
            assert_equal -2 [r pttl gone]
            assert_equal none [r type gone]
            assert_equal {{} v} [r mget gone stay]
            assert_equal 1 [r dbsize]

            r set gone v px 20
            after 100
            assert_equal 0 [r expire gone 100]
            assert_equal 0 [r persist gone]
            assert_equal -2 [r ttl gone]
            r set gone v px 20
            after 100
            assert_equal 0 [r touch gone]
            assert_equal 0 [r del gone]
            r set gone v px 20
            after 100
            assert_equal 1 [r setnx gone new]
            assert_equal new [r get gone]
            assert_equal -1 [r ttl gone]
            r set gone2 v px 20
            after 100
            assert_equal 1 [r incr gone2]
            assert_equal -1 [r ttl gone2]
        } finally {
            r debug set-active-expire 1
        }
    }

    exp_test "SCAN deletes the expired keys it meets, KEYS does not" {
        r flushall
        r debug set-active-expire 0
        try {
            r set a 1 px 10
            r set b 1 px 10
            r set c 1
            after 60
            assert_equal {c} [r keys *]
            assert_equal 3 [r dbsize]
            lassign [r scan 0] cursor keys
            assert_equal 0 $cursor
            assert_equal {c} $keys
            assert_equal 1 [r dbsize]
        } finally {
            r debug set-active-expire 1
        }
    }

    exp_test "RANDOMKEY does not return an expired key" {
        r flushall
        r debug set-active-expire 0
        try {
            r set a 1 px 10
            after 50
            assert_equal {} [r randomkey]
            r set a 1 px 10
            r set b 1
            after 50
            for {set i 0} {$i < 20} {incr i} { assert_equal b [r randomkey] }
        } finally {
            r debug set-active-expire 1
        }
    }

    exp_test "Active expiry removes keys that are never accessed" {
        r flushall
        set before [s expired_keys]
        r debug set-active-expire 0
        for {set i 0} {$i < 200} {incr i} { r set vol:$i x px 100 }
        r mset p1 1 p2 2
        assert_equal 202 [r dbsize]
        r debug set-active-expire 1
        wait_for_condition 50 100 {[r dbsize] == 2} else {
            ::testutil::fail "active expiry left [r dbsize] keys"
        }
        assert_equal [expr {$before + 200}] [s expired_keys]
        assert_equal {p1 p2} [lsort [r keys *]]
    }

    exp_test "DEBUG SET-ACTIVE-EXPIRE 0 keeps expired keys in DBSIZE" {
        r flushall
        r debug set-active-expire 0
        try {
            for {set i 0} {$i < 50} {incr i} { r set vol:$i x px 10 }
            after 400
            assert_equal 50 [r dbsize]
            assert_match "*keys=50,expires=50,*" [r info keyspace]
        } finally {
            r debug set-active-expire 1
        }
        wait_for_condition 50 100 {[r dbsize] == 0} else {
            ::testutil::fail "active expiry left [r dbsize] keys after re-enabling"
        }
    }

    exp_test "INFO keyspace expires= count" {
        r flushall
        assert_equal "# Keyspace" [string trim [r info keyspace]]
        r set a 1
        r set b 1 ex 100
        r set c 1 px 100000
        assert_match "*db0:keys=3,expires=2,avg_ttl=*" [r info keyspace]
        r persist b
        assert_match "*db0:keys=3,expires=1,avg_ttl=*" [r info keyspace]
        r expire a 100
        r expire b 100
        assert_match "*db0:keys=3,expires=3,avg_ttl=*" [r info keyspace]
        r set a 2
        assert_match "*db0:keys=3,expires=2,avg_ttl=*" [r info keyspace]
        r select 9
        r set z 1 ex 100
        r select 0
        set info [r info keyspace]
        assert_match "*db0:keys=3,expires=2,avg_ttl=*" $info
        assert_match "*db9:keys=1,expires=1,avg_ttl=*" $info
        assert_no_match "*db1:*" $info
        # the expire cycle samples db0's TTLs into avg_ttl, and drops it once none is left
        wait_for_condition 100 20 {![string match "*db0:*avg_ttl=0*" [r info keyspace]]} else {
            fail "avg_ttl never sampled: [r info keyspace]"
        }
        r del b c
        wait_for_condition 100 20 {[string match "*db0:keys=1,expires=0,avg_ttl=0*" [r info keyspace]]} else {
            fail "avg_ttl kept without volatile keys: [r info keyspace]"
        }
    }

    exp_test "INFO keyspace line format" {
        r flushall
        r set a 1
        set lines [split [string trim [r info keyspace]] "\r\n"]
        set lines [lsearch -all -inline -not -exact $lines {}]
        assert_equal {{# Keyspace} db0:keys=1,expires=0,avg_ttl=0} $lines
    }

    exp_test "Expires beyond 2^48 ms keep every bit, set, changed and reloaded" {
        # An object keeps an expire below 2^48 ms in 6 bytes and a later one in 8: a key moved
        # across the boundary either way, of every value type, keeps its exact time.
        r flushall
        set edge 281474976710656
        foreach {t cmd} {s {set s v} l {rpush l a} h {hset h f v} z {zadd z 1 m}} {
            r {*}$cmd
            assert_equal 1 [r pexpireat $t [expr {$edge - 1}]]
            assert_equal [expr {$edge - 1}] [r pexpiretime $t]
            assert_equal 1 [r pexpireat $t $edge]
            assert_equal $edge [r pexpiretime $t]
            assert_equal 1 [r pexpireat $t 9223372036854775807]
            assert_equal 9223372036854775807 [r pexpiretime $t]
            assert_equal 1 [r pexpireat $t [expr {$edge + 12345}]]
        }
        r set n v pxat [expr {$edge - 2}]
        r debug reload
        foreach t {s l h z} {assert_equal [expr {$edge + 12345}] [r pexpiretime $t]}
        assert_equal [expr {$edge - 2}] [r pexpiretime n]
        assert_equal {v a v 1} [list [r get s] [r lindex l 0] [r hget h f] [r zscore z m]]
        assert_equal 5 [r dbsize]
        assert_match "*db0:keys=5,expires=5,*" [r info keyspace]
    }
}
