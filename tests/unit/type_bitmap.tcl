# Bit operations on strings (issue 12, first slice): SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP,
# BITFIELD, BITFIELD_RO. The table below is a session of commands with the replies Valkey 8.0.1
# gave to the same session (recorded facts; `get` replies as hex): ranges in BYTE and BIT
# units, negative indexes, missing keys, WRONGTYPE, every error text, BITOP's empty results
# and TTL, BITFIELD's signed/unsigned widths, `#` offsets and the three overflow modes. Then
# what reaches replicas and keyspace notifications: only changes, as Valkey.

# {command} {ok reply | err text | hex value}; commands may hold \xNN escapes.
set ::bit_session {
    flushall {ok OK}
    {setbit b 7 1} {ok 0}
    {setbit b 7 1} {ok 1}
    {setbit b 100 1} {ok 0}
    {getbit b 7} {ok 1}
    {getbit b 100} {ok 1}
    {getbit b 1000} {ok 0}
    {getbit nokey 3} {ok 0}
    {setbit b -1 1} {err {ERR bit offset is not an integer or out of range}}
    {setbit b 4294967296 1} {err {ERR bit offset is not an integer or out of range}}
    {setbit b 1 2} {err {ERR bit is not an integer or out of range}}
    {setbit b x 1} {err {ERR bit offset is not an integer or out of range}}
    {setbit b 1 x} {err {ERR bit is not an integer or out of range}}
    {get b} {hex 01000000000000000000000008}
    {strlen b} {ok 13}
    {set s foobar} {ok OK}
    {bitcount s} {ok 26}
    {bitcount s 0 0} {ok 4}
    {bitcount s 1 1} {ok 6}
    {bitcount s 1 1 byte} {ok 6}
    {bitcount s 5 30 bit} {ok 17}
    {bitcount s -1 -1} {ok 4}
    {bitcount s -2 -1 bit} {ok 1}
    {bitcount s 0 -1 BIT} {ok 26}
    {bitcount s 3 1} {ok 0}
    {bitcount s -1 -2} {ok 0}
    {bitcount s 0} {ok 26}
    {bitcount s 0 1 foo} {err {ERR syntax error}}
    {bitcount s 0 1 bit x} {err {ERR syntax error}}
    {bitcount s a 1} {err {ERR value is not an integer or out of range}}
    {bitcount nokey} {ok 0}
    {bitcount nokey 0 5 bit} {ok 0}
    {set z 0} {ok OK}
    {setbit z 3 1} {ok 1}
    {get z} {hex 30}
    {set i 12345} {ok OK}
    {getbit i 2} {ok 1}
    {bitcount i} {ok 17}
    {lpush l a} {ok 1}
    {bitcount l} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {getbit l 0} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {setbit l 0 1} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {set p "\xff\xf0\x00"} {ok OK}
    {bitpos p 0} {ok 12}
    {bitpos p 1} {ok 0}
    {set q "\x00\xff\xf0"} {ok OK}
    {bitpos q 1 0} {ok 8}
    {bitpos q 1 2} {ok 16}
    {bitpos q 1 2 -1 byte} {ok 16}
    {bitpos q 1 7 15 bit} {ok 8}
    {bitpos q 0 8 15 bit} {ok -1}
    {bitpos q 0 0 7 bit} {ok 0}
    {bitpos q 0 1 -1} {ok 20}
    {bitpos q 0 1} {ok 20}
    {set allones "\xff\xff"} {ok OK}
    {bitpos allones 0} {ok 16}
    {bitpos allones 0 0 -1} {ok -1}
    {bitpos allones 0 0} {ok 16}
    {bitpos allones 0 3 5 bit} {ok -1}
    {bitpos nokey 1} {ok -1}
    {bitpos nokey 0} {ok 0}
    {bitpos q 2} {err {ERR The bit argument must be 1 or 0.}}
    {bitpos q x} {err {ERR value is not an integer or out of range}}
    {bitpos q 1 a} {err {ERR value is not an integer or out of range}}
    {bitpos q 1 0 b} {err {ERR value is not an integer or out of range}}
    {bitpos q 1 0 1 foo} {err {ERR syntax error}}
    {bitpos q 1 0 1 bit 3} {err {ERR syntax error}}
    {bitpos q 1 -100 100 bit} {ok 8}
    {bitpos q 0 5 2} {ok -1}
    {set a1 "abc"} {ok OK}
    {set a2 "ab"} {ok OK}
    {bitop and d a1 a2} {ok 3}
    {get d} {hex 616200}
    {bitop or d a1 a2 nokey} {ok 3}
    {get d} {hex 616263}
    {bitop xor d a1 a2} {ok 3}
    {get d} {hex 000063}
    {bitop not d a1} {ok 3}
    {get d} {hex 9e9d9c}
    {bitop not d a1 a2} {err {ERR BITOP NOT must be called with a single source key.}}
    {bitop nand d a1} {err {ERR syntax error}}
    {bitop and d nokey nokey2} {ok 0}
    {exists d} {ok 0}
    {set d x} {ok OK}
    {expire d 100} {ok 1}
    {bitop or d a1} {ok 3}
    {ttl d} {ok -1}
    {bitop and d l} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {bitop or a1 a1 a2} {ok 3}
    {get a1} {hex 616263}
    {bitfield bf set u8 0 255 get u8 0} {ok {0 255}}
    {bitfield bf incrby u8 0 10} {ok 9}
    {bitfield bf overflow sat incrby u8 0 300 overflow fail incrby u8 0 1 get u8 0} {ok {255 {} 255}}
    {bitfield bf set i8 #1 -128 get i8 #1 incrby i8 #1 -1} {ok {0 -128 127}}
    {bitfield bf overflow sat incrby i8 8 -200 overflow wrap incrby i8 8 -200} {ok {-73 -17}}
    {bitfield bf set u8 0 -1 overflow sat set u8 0 -1 overflow fail set u8 0 -1} {ok {255 255 {}}}
    {bitfield bf get i64 0 get u63 0 get i1 3 get u1 3} {ok {-4785074604081152 9220979499552735232 -1 1}}
    {bitfield bf set i64 100 -9223372036854775808 incrby i64 100 -1} {ok {0 9223372036854775807}}
    {bitfield bf overflow sat incrby i64 100 -1 overflow fail incrby i64 100 -1} {ok {9223372036854775806 9223372036854775805}}
    {bitfield bf get u64 0} {err {ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.}}
    {bitfield bf get i65 0} {err {ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.}}
    {bitfield bf get x8 0} {err {ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.}}
    {bitfield bf get u0 0} {err {ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.}}
    {bitfield bf get u8 -1} {err {ERR bit offset is not an integer or out of range}}
    {bitfield bf get u8 #-1} {err {ERR bit offset is not an integer or out of range}}
    {bitfield bf get u8 #x} {err {ERR bit offset is not an integer or out of range}}
    {bitfield bf overflow foo} {err {ERR Invalid OVERFLOW type specified}}
    {bitfield bf foo} {err {ERR syntax error}}
    {bitfield bf set u8 0} {err {ERR syntax error}}
    {bitfield bf set u8 0 abc} {err {ERR value is not an integer or out of range}}
    {bitfield bf} {ok {}}
    {bitfield bf get u8 0 overflow} {err {ERR syntax error}}
    {get bf} {hex ffef0000000000000000000007ffffffffffffffd0}
    {bitfield nokey get u8 0 get i16 4} {ok {0 0}}
    {exists nokey} {ok 0}
    {bitfield l get u8 0} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {bitfield_ro bf get u8 0 get i4 2} {ok {255 -1}}
    {bitfield_ro bf set u8 0 1} {err {ERR BITFIELD_RO only supports the GET subcommand}}
    {bitfield_ro bf get u8 0 set u8 0 1} {err {ERR BITFIELD_RO only supports the GET subcommand}}
    {bitfield_ro l get u8 0} {err {WRONGTYPE Operation against a key holding the wrong kind of value}}
    {bitfield s get u4 0 set u4 0 15 get u4 0} {ok {6 6 15}}
    {get s} {hex f66f6f626172}
    {bitfield big set u2 #1000 3} {ok 0}
    {strlen big} {ok 251}
    {bitcount s -3} {ok 10}
    {bitcount s 100} {ok 0}
    {bitcount s x} {err {ERR value is not an integer or out of range}}
    {bitcount nokey 0} {ok 0}
}

start_server {tags {bitmap}} {
    test "Bit commands: every reply of the session as Valkey 8" {
        set n 0
        foreach {line expect} $::bit_session {
            set args [subst -nocommands -novariables $line]
            if {[catch {r {*}$args} reply]} {
                set got [list err $reply]
            } elseif {[lindex $args 0] eq "get"} {
                set got [list hex [binary encode hex $reply]]
            } else {
                set got [list ok $reply]
            }
            assert_equal $expect $got $line
            incr n
        }
        assert_equal 128 $n
    }

    test "BITOP on long values (the word-at-a-time path) equals the byte-by-byte result" {
        expr {srand(7)}
        proc rbytes {n} {
            set s {}
            for {set i 0} {$i < $n} {incr i} { append s [binary format c [expr {int(rand() * 256)}]] }
            return $s
        }
        set a [rbytes 1000]; set b [rbytes 777]; set c [rbytes 1003]
        r set a $a; r set b $b; r set c $c
        binary scan $a cu* la; binary scan $b cu* lb; binary scan $c cu* lc
        foreach op {and or xor} {
            set want {}
            for {set i 0} {$i < 1003} {incr i} {
                set x [expr {$i < 1000 ? [lindex $la $i] : 0}]
                foreach l [list $lb $lc] n {777 1003} {
                    set y [expr {$i < $n ? [lindex $l $i] : 0}]
                    set x [expr "$x [dict get {and & or | xor ^} $op] $y"]
                }
                lappend want $x
            }
            assert_equal 1003 [r bitop $op d a b c]
            binary scan [r get d] cu* got
            assert_equal $want $got "BITOP $op"
        }
        assert_equal 1000 [r bitop not d a]
        binary scan [r get d] cu* got
        assert_equal [lmap x $la {expr {~$x & 255}}] $got
        # the destination may be one of the sources
        assert_equal 1003 [r bitop xor a a c]
        binary scan [r get a] cu* got
        assert_equal [lmap x $la y [lrange $lc 0 999] {expr {$x ^ $y}}] [lrange $got 0 999]
        # and BITCOUNT over the same long value in BIT ranges, against a count done here
        set ones 0
        foreach x [lrange $lc 3 900] { for {set k 0} {$k < 8} {incr k} { incr ones [expr {($x >> $k) & 1}] } }
        assert_equal $ones [r bitcount c 3 900]
        assert_equal $ones [r bitcount c 24 7207 bit]
        # BITPOS across long runs of the byte it skips
        r set ff "[string repeat \xff 203]\x0f[string repeat \xff 40]"
        assert_equal [expr {203 * 8}] [r bitpos ff 0]
        assert_equal [expr {244 * 8}] [r bitpos ff 0 204]
        assert_equal -1 [r bitpos ff 0 204 -1]
        r set zz "[string repeat \x00 301]\x10"
        assert_equal [expr {301 * 8 + 3}] [r bitpos zz 1]
        assert_equal -1 [r bitpos zz 1 0 300]
    }

    test "BITFIELD's key is read-only when every operation is a GET (COMMAND GETKEYSANDFLAGS)" {
        assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k get u8 0 overflow sat get i4 1]
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k get u8 0 incrby u8 0 1]
        assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k nosuchop]
        assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} [r command getkeysandflags bitop or d a b]
    }
}

start_server {tags {bitmap repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        test "Only bit writes that change something reach the replica, and notify" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 100 50 {[info_field [r info replication] master_link_status] eq "up"} else {
                fail "no link"
            }
            r -1 config set notify-keyspace-events KA
            set sub [valkey_client -1]
            $sub psubscribe __keyspace@0__:*
            set before [info_field [r -1 info replication] master_repl_offset]
            # no change: not propagated, no event
            r -1 setbit k 3 0
            set grown [info_field [r -1 info replication] master_repl_offset]
            assert [expr {$grown > $before}] "the first SETBIT creates the key"
            assert_equal {pmessage __keyspace@0__:* __keyspace@0__:k setbit} [$sub read]
            r -1 setbit k 3 0
            r -1 bitfield k get u8 0
            r -1 bitfield k overflow fail incrby u4 0 100
            assert_equal $grown [info_field [r -1 info replication] master_repl_offset]
            # changes: propagated and notified
            r -1 setbit k 3 1
            assert_equal {pmessage __keyspace@0__:* __keyspace@0__:k setbit} [$sub read]
            r -1 bitfield k set u8 8 200 incrby i8 8 1
            assert_equal {pmessage __keyspace@0__:* __keyspace@0__:k setbit} [$sub read]
            r -1 bitop not nk k
            assert_equal {pmessage __keyspace@0__:* __keyspace@0__:nk set} [$sub read]
            wait_for_condition 100 50 {
                [info_field [r info replication] master_repl_offset] == [info_field [r -1 info replication] master_repl_offset]
            } else { fail "the replica never caught up" }
            assert_equal [binary encode hex [r -1 get k]] [binary encode hex [r get k]]
            assert_equal [binary encode hex [r -1 get nk]] [binary encode hex [r get nk]]
            assert_equal {16 -55} [r bitfield_ro k get u8 0 get i8 8]
            $sub close
        }
    }

    test "BITOP over values longer than its 4 KB work block, of unequal lengths" {
        # Pseudo-random bytes: 9000 and 5000 of them; the result is checked byte by byte.
        array unset bop
        set x 12345
        foreach {name len} {big 9000 small 5000} {
            set bytes {}
            for {set i 0} {$i < $len} {incr i} {
                set x [expr {($x * 1103515245 + 12345) % 2147483648}]
                lappend bytes [expr {($x >> 16) & 255}]
            }
            set bop($name) $bytes
            r set $name [binary format c* $bytes]
        }
        foreach op {and or xor} {
            assert_equal 9000 [r bitop $op dst big small]
            binary scan [r get dst] cu* got
            set want {}
            for {set i 0} {$i < 9000} {incr i} {
                set p [lindex $bop(big) $i]
                set q [expr {$i < 5000 ? [lindex $bop(small) $i] : 0}]
                lappend want [expr {$op eq "and" ? ($p & $q) : ($op eq "or" ? ($p | $q) : ($p ^ $q))}]
            }
            assert_equal $want $got "BITOP $op"
        }
        assert_equal 9000 [r bitop not dst big]
        binary scan [r get dst] cu* got
        assert_equal [lmap p $bop(big) {expr {~$p & 255}}] $got "BITOP NOT"
    }
}
