# DUMP/RESTORE between the server under test and Debian's redis-server 7.0 (both ways, every
# type and encoding), and RESTORE of corrupt payloads (rejected, nothing created, no crash).

set ::dump_redis_bin /usr/bin/redis-server

proc fill_flushed {level} {
    r_at $level flushall
    fill_every_type $level
}

# The peer is installed by `make test`; without it this file fails (it never skips).
if {![file executable $::dump_redis_bin]} {
    test "DUMP/RESTORE interop with redis-server 7.0" { require_peer $::dump_redis_bin redis-server } {dump}
    return
}

set ::dump_tested_server $::cfg(server)
set ::cfg(server) $::dump_redis_bin
try {
    start_server {tags {dump}} {
        set ::cfg(server) $::dump_tested_server
        start_server {} {
            test "Values DUMPed by redis-server 7.0 RESTORE into our node with equal contents" {
                fill_flushed -1
                r flushall
                foreach k $::every_type_keys {
                    set payload [r -1 dump $k]
                    assert_equal OK [r restore $k 0 $payload]
                    assert_equal [key_contents -1 $k] [key_contents 0 $k] "contents of $k"
                }
                # Encodings are chosen by our node's rules on restore.
                assert_equal listpack [r object encoding h:small]
                assert_equal hashtable [r object encoding h:big]
                assert_equal intset [r object encoding set:int]
                assert_equal skiplist [r object encoding z:big]
                assert_equal quicklist [r object encoding l:big]
            }

            test "Values DUMPed by our node RESTORE into redis-server 7.0 with equal contents" {
                fill_flushed 0
                r -1 flushall
                foreach k $::every_type_keys {
                    set payload [r dump $k]
                    assert_equal OK [r -1 restore $k 0 $payload]
                    assert_equal [key_contents 0 $k] [key_contents -1 $k] "contents of $k"
                }
            }

            test "Streams with groups move both ways with redis-server 7.0 (DUMP/RESTORE)" {
                foreach level {-1 0} {
                    r_at $level flushall
                    for {set i 1} {$i <= 250} {incr i} {
                        r_at $level xadd st $i-[expr {$i % 3}] f[expr {$i % 4}] v$i n $i
                    }
                    r_at $level xdel st 7-1
                    r_at $level xgroup create st g 0
                    r_at $level xreadgroup GROUP g alice COUNT 3 STREAMS st >
                    r_at $level xgroup createconsumer st g bob
                    r_at $level xadd empty MAXLEN 0 5-5 a 1
                }
                foreach {from to} {-1 0 0 -1} {
                    foreach k {st empty} {
                        r_at $to del $k
                        assert_equal OK [r_at $to restore $k 0 [r_at $from dump $k]]
                        assert_equal [r_at $from xrange $k - +] [r_at $to xrange $k - +]
                        assert_equal [r_at $from xinfo stream $k] [r_at $to xinfo stream $k]
                        assert_equal [r_at $from xinfo groups $k] [r_at $to xinfo groups $k]
                    }
                    # Same entries, consumers and delivery counts; idle times read a moment
                    # apart may differ by a few milliseconds.
                    set pa [r_at $from xpending st g - + 10]
                    set pb [r_at $to xpending st g - + 10]
                    assert_equal [llength $pa] [llength $pb]
                    foreach ea $pa eb $pb {
                        assert_equal [lreplace $ea 2 2] [lreplace $eb 2 2]
                        assert {abs([lindex $ea 2] - [lindex $eb 2]) < 1000} "idle $ea / $eb"
                    }
                }
            }

            test "RESTORE keeps TTL (relative and ABSTTL) and refuses an existing key" {
                r flushall
                r set k v
                set p [r dump k]
                assert_error "BUSYKEY Target key name already exists." {r restore k 0 $p}
                assert_equal OK [r restore k2 100000 $p]
                assert_range [r pttl k2] 90000 100000
                set at [expr {[clock milliseconds] + 200000}]
                assert_equal OK [r restore k3 $at $p absttl]
                assert_range [r pttl k3] 190000 200000
                assert_equal OK [r restore k $at $p replace]
                assert_error "ERR Invalid TTL value, must be >= 0" {r restore k4 -1 $p}
            }
        }
    }
} finally {
    set ::cfg(server) $::dump_tested_server
}

start_server {tags {dump}} {
    test "Corrupt DUMP payloads are rejected and create nothing" {
        r flushall
        r rpush l a b c
        set good [r dump l]
        # Truncations at every length fail the version/checksum check.
        for {set n 0} {$n < [string length $good]} {incr n} {
            assert_error "ERR DUMP payload version or checksum are wrong" \
                {r restore t 0 [string range $good 0 [expr {$n - 1}]]}
        }
        # A flipped byte anywhere breaks the checksum.
        for {set i 0} {$i < [string length $good]} {incr i} {
            binary scan [string index $good $i] cu b
            set bad [string replace $good $i $i [binary format cu [expr {$b ^ 0x55}]]]
            assert_error "ERR DUMP payload version or checksum are wrong" {r restore t 0 $bad}
        }
        assert_equal 0 [r exists t]
    }

    test "Malformed bodies with a valid checksum get Bad data format" {
        set v10 [binary format s 10]
        # A string claiming 2^32 bytes with 3 present.
        set body "\x00\x80\xff\xff\xff\xffabc$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        # A plain list claiming 2^40 elements.
        set body "\x01\x81\x00\x00\x01\x00\x00\x00\x00\x00$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        # An unknown object type.
        set body "\x63\x01a$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        # Trailing garbage after a valid string value.
        set body "\x00\x03abcXYZ$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        # A listpack hash whose declared size exceeds its bytes.
        set body "\x10\x0b\xff\x00\x00\x00\x02\x00\x81a\x02\x81b\x02\xff$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        # A quicklist of one plain node of 0 bytes (Valkey 8 refuses any empty node; ours
        # made a list of one empty element).
        set body "\x12\x01\x01\x00$v10"
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $body]}
        assert_equal 0 [r exists t]
        # A well-formed crafted payload still works.
        assert_equal OK [r restore t 0 [with_crc "\x00\x03abc$v10"]]
        assert_equal abc [r get t]
        assert_equal PONG [r ping]
    }

    test "Malformed stream payloads with a valid checksum get Bad data format" {
        r flushall
        set v10 [binary format s 10]
        # A stream of one node (written by redis-server 7.0): one entry 5-5 trimmed away.
        set ok [binary decode hex 13000005050000000001000a00]
        assert_equal OK [r restore t 0 [with_crc [string range $ok 0 end-2]$v10]]
        assert_equal 0 [r xlen t]
        r del t
        # A three-entry stream with a group: every single-byte change of the body is either
        # refused with Bad data format or restores a stream that answers; never a crash.
        set body [binary decode hex [join {
            13011000000000000000010000000000000001c33a3f113f0000001900030100010201816102
            816202400900002001050101817802052016400a201c0079200c400a02dfff02201a06630203
            010601ff030200010100000301016701020202000000000000000100000000000000011d7ed9
            33a201000001000000000000000100000000000000021d7ed933a2010000010205616c696365
            1d7ed933a2010000020000000000000001000000000000000100000000000000010000000000
            00000203626f62247ed933a2010000000a00} ""]]
        set body [string range $body 0 end-2]
        assert_equal OK [r restore t 0 [with_crc $body$v10]]
        assert_equal 3 [r xlen t]
        r del t
        for {set i 1} {$i < [string length $body]} {incr i} {
            binary scan [string index $body $i] cu b
            set bad [string replace $body $i $i [binary format cu [expr {$b ^ 0x21}]]]
            if {[catch {r restore t 0 [with_crc $bad$v10]} err]} {
                assert_match {*Bad data format*} $err
            } else {
                r xinfo stream t full
                r xrange t - +
                r xrevrange t + -
                r del t
            }
        }
        # A pending entry that no consumer owns.
        # (no nodes, last ID 1-0, one group "g" whose pending list holds 1-0 and has no consumer)
        set orphan [binary decode hex [join {
            1300000100000000000101016700000001000000000000000100000000000000000000000000
            0000000100} ""]]
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $orphan$v10]}
        # The same with a consumer owning the entry restores.
        set owned [binary decode hex [join {
            1300000100000000000101016700000001000000000000000100000000000000000000000000
            0000000101016300000000000000000100000000000000010000000000000000} ""]]
        assert_equal OK [r restore t 0 [with_crc $owned$v10]]
        assert_equal {1 1-0 1-0 {{c 1}}} [r xpending t g]
        r del t
        assert_error "ERR Bad data format" {r restore t 0 [with_crc $orphan$v10]}
        assert_equal PONG [r ping]
    }

    test "A payload of a newer version (12) is refused" {
        set body "\x00\x03abc[binary format s 12]"
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore t2 0 [with_crc $body]}
    }
}
