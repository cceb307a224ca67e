# Sorted set commands: ZADD (all flags) ZINCRBY ZREM ZCARD ZCOUNT ZLEXCOUNT ZSCORE ZMSCORE
# ZRANK ZREVRANK ZRANGE (all forms) ZRANGESTORE ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE
# ZRANGEBYLEX ZREVRANGEBYLEX ZREMRANGEBY* ZPOPMIN ZPOPMAX ZMPOP ZRANDMEMBER ZUNION ZINTER
# ZDIFF and STORE forms, ZINTERCARD, ZSCAN, score formatting, type errors.

proc zset_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [zset_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [zset_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc zset_raw {c args} {
    $c {*}$args
    return [zset_raw_reply $c]
}

proc zset_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

proc zset_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body"]
}

# listpack: the default thresholds; skiplist: every sorted set is converted at once.
proc zset_use_encoding {enc} {
    if {$enc eq "skiplist"} {
        r config set zset-max-listpack-entries 0
    } else {
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
    }
}

proc zset_scan_all {key args} {
    set cursor 0
    set out {}
    set calls 0
    while 1 {
        lassign [r zscan $key $cursor {*}$args] cursor items
        lappend out {*}$items
        if {$cursor eq "0"} break
        if {[incr calls] > 100000} { error "ZSCAN did not terminate" }
    }
    return $out
}

set ::zset_wrongtype "WRONGTYPE Operation against a key holding the wrong kind of value"

start_server {tags {zset}} {
    foreach enc {listpack skiplist} {
        zset_test "ZADD / ZSCORE / ZCARD / ZREM basics ($enc)" {
            r flushall
            zset_use_encoding $enc
            assert_equal 3 [r zadd z 1 a 2 b 3 c]
            assert_equal $enc [r object encoding z]
            assert_equal zset [r type z]
            assert_equal 0 [r zadd z 10 a]
            assert_equal 10 [r zscore z a]
            assert_equal 3 [r zcard z]
            assert_equal 1 [r zrem z a nope]
            assert_equal 0 [r zrem z a]
            assert_equal {b c} [r zrange z 0 -1]
            assert_equal 2 [r zrem z b c]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zrem nokey a]
            assert_equal 0 [r zcard nokey]
        }

        zset_test "Equal scores order members lexicographically ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 c 1 a 1 b 0 z 2 A
            assert_equal {z a b c A} [r zrange z 0 -1]
            r zadd z 1 A
            assert_equal {z A a b c} [r zrange z 0 -1]
        }

        zset_test "Score formatting in replies ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 0.1 a 1e-7 b 5e-324 c 123456789012345678 d 1.5e300 e -inf f +inf g \
                3.0 h 1.0e1 i 1e15 j 1e16 k 1e21 l -1.5 m 0.000001 n 1e-5 o \
                12345678901234567890 p 1.7976931348623157e308 q 9007199254740993 r
            set expect {a 0.1 b 1e-7 c 5e-324 d 123456789012345680 e 1.5e+300 f -inf g inf
                h 3 i 10 j 1000000000000000 k 10000000000000000 l 1e+21 m -1.5 n 0.000001
                o 0.00001 p 12345678901234567000 q 1.7976931348623157e+308 r 9007199254740992}
            foreach {m s} $expect {
                assert_equal $s [r zscore z $m] "ZSCORE of $m"
            }
            assert_equal {0.1 1e-7 5e-324 {} inf} [r zmscore z a b c nope g]
            set ws [r zrange z 0 -1 withscores]
            foreach {m s} $ws { assert_equal [dict get $expect $m] $s "WITHSCORES of $m" }
            assert_equal 0.1 [r zincrby w 0.1 x]
            assert_equal 0.30000000000000004 [r zincrby w 0.2 x]
            assert_equal 1e-7 [r zadd w incr 1e-7 y]
            assert_equal {a 0.1} [r zrangebyscore z 0.1 0.1 withscores]
            assert_equal 5e-324 [lindex [r zrank z c withscore] 1]
        }

        zset_test "ZRANGE by rank with and without scores ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {a b c d e} [r zrange z 0 -1]
            assert_equal {b 2 c 3} [r zrange z 1 2 withscores]
            assert_equal {d e} [r zrange z -2 -1]
            assert_equal {} [r zrange z 3 1]
            assert_equal {a b c d e} [r zrange z -100 100]
            assert_equal {} [r zrange z 5 10]
            assert_equal {d c b} [r zrange z 1 3 rev]
            assert_equal {e 5 d 4} [r zrange z 0 1 rev withscores]
            assert_equal {e 5 d 4} [r zrevrange z 0 1 withscores]
            assert_equal {e d c b a} [r zrevrange z 0 -1]
            assert_equal {} [r zrange nokey 0 -1]
        }

        zset_test "ZRANGE BYSCORE with exclusive ranges, infinities and LIMIT ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {b c} [r zrange z (1 3 byscore]
            assert_equal {a b} [r zrange z 1 (3 byscore]
            assert_equal {b} [r zrange z (1 (3 byscore]
            assert_equal {} [r zrange z (3 (3 byscore]
            assert_equal {c} [r zrange z 3 3 byscore]
            assert_equal {a b c d e} [r zrange z -inf +inf byscore]
            assert_equal {a b c d e} [r zrange z -inf inf byscore]
            assert_equal {} [r zrange z (inf +inf byscore]
            assert_equal {b c} [r zrange z -inf +inf byscore limit 1 2]
            assert_equal {b c d e} [r zrange z -inf +inf byscore limit 1 -1]
            assert_equal {b c d e} [r zrange z -inf +inf byscore limit 1 -5]
            # (a negative LIMIT offset is left out: Valkey answers differently per encoding)
            assert_equal {} [r zrange z -inf +inf byscore limit 1 0]
            assert_equal {} [r zrange z -inf +inf byscore limit 10 2]
            assert_equal {d c} [r zrange z +inf -inf byscore rev limit 1 2]
            assert_equal {c 3 b 2 a 1} [r zrange z 3 1 byscore rev withscores]
            assert_equal {} [r zrange z 1 3 byscore rev]
            assert_equal {} [r zrange z 3 1 byscore]
            assert_equal {b 2 c 3 d 4} [r zrangebyscore z 2 4 withscores]
            assert_equal {c 3} [r zrangebyscore z 2 4 withscores limit 1 1]
            assert_equal {d c b} [r zrevrangebyscore z 4 2]
            assert_equal {c b} [r zrevrangebyscore z (4 2]
            assert_equal {} [r zrevrangebyscore z 2 4]
            assert_equal {d 4} [r zrevrangebyscore z +inf -inf withscores limit 1 1]
            assert_equal {a b c d e} [r zrangebyscore z -inf 1e400]
        }

        zset_test "ZRANGE BYLEX and the lex commands ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 0 a 0 b 0 c 0 d 0 e 0 ""
            assert_equal {a b c} [r zrange z \[a \[c bylex]
            assert_equal {b c} [r zrange z (a \[c bylex]
            assert_equal {b} [r zrange z (a (c bylex]
            assert_equal [list "" a b c d e] [r zrange z - + bylex]
            assert_equal [list ""] [r zrange z \[ \[ bylex]
            assert_equal {a b c d e} [r zrange z ( + bylex]
            assert_equal {} [r zrange z + - bylex]
            assert_equal {} [r zrange z - - bylex]
            assert_equal {} [r zrange z + + bylex]
            assert_equal {e d} [r zrange z + - bylex rev limit 0 2]
            assert_equal {b c} [r zrange z - + bylex limit 2 2]
            assert_equal {b c d e} [r zrangebylex z (a +]
            assert_equal {a b} [r zrangebylex z - + limit 1 2]
            assert_equal {a b c d e} [r zrangebylex z - + limit 1 -1]
            assert_equal {e d} [r zrevrangebylex z + (c]
            assert_equal {c} [r zrevrangebylex z (d \[b limit 0 1]
            assert_equal 2 [r zlexcount z \[b (d]
            assert_equal 6 [r zlexcount z - +]
            assert_equal 0 [r zlexcount z + -]
            assert_equal 0 [r zlexcount nokey - +]
        }

        zset_test "BYLEX / BYSCORE LIMIT with a negative offset, REV or not ($enc)" {
            # Valkey 8.0.1 skips a listpack's elements while offset-- is non-zero, so a negative
            # offset skips them all; a skiplist counts it from the far end of the range.
            r flushall
            zset_use_encoding $enc
            r zadd z 0 m1 0 m2 0 m3 0 m4 0 m5 0 m6 0 m7
            set sl [expr {$enc eq "skiplist"}]
            foreach {want args} [list \
                [expr {$sl ? {m1} : {}}] {(m5 [m1 bylex rev limit -1 4} \
                [expr {$sl ? {m1} : {}}] {(m5 [m1 bylex rev limit -1 -1} \
                [expr {$sl ? {m2 m1} : {}}] {(m5 [m1 bylex rev limit -2 2} \
                {} {(m5 [m1 bylex rev limit -5 -5} \
                [expr {$sl ? {m5 m4 m3 m2 m1} : {}}] {[m5 [m1 bylex rev limit -5 -5} \
                [expr {$sl ? {m4} : {}}] {[m1 (m5 bylex limit -1 4} \
                [expr {$sl ? {m3 m4} : {}}] {[m1 (m5 bylex limit -2 2} \
                [expr {$sl ? {m3 m4 m5 m6 m7} : {}}] {- + bylex limit -5 -5} \
                [expr {$sl ? {m7} : {}}] {- + bylex limit -1 10} \
                {} {- + bylex limit -8 10} \
                {} {- + bylex limit -1 0} \
                {m4 m3 m2 m1} {(m5 [m1 bylex rev limit 0 -1} \
                {} {(m5 [m1 bylex rev limit 0 0} \
                [expr {$sl ? {m1} : {}}] {+inf -inf byscore rev limit -1 4} \
                [expr {$sl ? {m6 m7} : {}}] {-inf +inf byscore limit -2 5} \
            ] {
                assert_equal $want [r zrange z {*}$args] "ZRANGE z $args"
            }
            assert_equal [expr {$sl ? {m2 m1} : {}}] [r zrevrangebylex z (m5 \[m1 limit -2 2]
            assert_equal [expr {$sl ? {m7} : {}}] [r zrangebyscore z -inf +inf limit -1 1]
            assert_equal [expr {$sl ? 2 : 0}] [r zrangestore d z (m5 \[m1 bylex rev limit -2 2]
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal [expr {$sl ? {b 2 a 1} : {}}] [r zrange z (4 -inf byscore rev withscores limit -2 9]
            assert_equal [expr {$sl ? {c} : {}}] [r zrange z 2 4 byscore limit -2 1]
        }

        zset_test "ZCOUNT ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c 4 d 5 e -inf m +inf p
            assert_equal 3 [r zcount z 2 4]
            assert_equal 2 [r zcount z (2 4]
            assert_equal 1 [r zcount z (2 (4]
            assert_equal 7 [r zcount z -inf +inf]
            assert_equal 1 [r zcount z +inf +inf]
            assert_equal 0 [r zcount z (inf +inf]
            assert_equal 0 [r zcount z 4 2]
            assert_equal 0 [r zcount nokey 0 1]
        }

        zset_test "ZRANK / ZREVRANK with WITHSCORE ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3.5 c 4 d
            assert_equal 0 [r zrank z a]
            assert_equal 2 [r zrank z c]
            assert_equal 1 [r zrevrank z c]
            assert_equal 3 [r zrevrank z a]
            assert_equal {2 3.5} [r zrank z c withscore]
            assert_equal {1 3.5} [r zrevrank z c withscore]
            assert_equal {} [r zrank z nope]
            assert_equal {} [r zrevrank z nope withscore]
            set c [zset_raw_client]
            assert_equal {$-1} [zset_raw $c zrank z nope]
            assert_equal {*-1} [zset_raw $c zrank z nope withscore]
            assert_equal {*-1} [zset_raw $c zrank nokey a withscore]
            assert_equal {*2 :2 $3 3.5} [zset_raw $c zrank z c withscore]
            zset_raw $c hello 3
            assert_equal {*2 :2 ,3.5} [zset_raw $c zrank z c withscore]
            assert_equal {_} [zset_raw $c zrank z nope withscore]
            $c close
        }

        zset_test "ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 1 [r zremrangebyrank z 0 0]
            assert_equal 1 [r zremrangebyrank z -1 -1]
            assert_equal {b c d} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyrank z 5 10]
            assert_equal 1 [r zremrangebyscore z (2 3]
            assert_equal {b d} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyscore z 10 20]
            assert_equal 2 [r zremrangebyscore z -inf +inf]
            assert_equal 0 [r exists z]
            r zadd z 0 a 0 b 0 c 0 d 0 e
            assert_equal 2 [r zremrangebylex z - (c]
            assert_equal 2 [r zremrangebylex z \[d +]
            assert_equal {c} [r zrange z 0 -1]
            assert_equal 1 [r zremrangebyrank z 0 -1]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zremrangebyrank nokey 0 -1]
            assert_equal 0 [r zremrangebyscore nokey -inf +inf]
            assert_equal 0 [r zremrangebylex nokey - +]
        }

        zset_test "ZPOPMIN / ZPOPMAX ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {a 1} [r zpopmin z]
            assert_equal {e 5 d 4} [r zpopmax z 2]
            assert_equal {} [r zpopmin z 0]
            assert_equal {b 2 c 3} [r zpopmin z 10]
            assert_equal 0 [r exists z]
            assert_equal {} [r zpopmin nokey]
            assert_equal {} [r zpopmax nokey 3]
        }

        zset_test "ZMPOP ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd z 1 a 2 b 3 c
            assert_equal {z {{a 1}}} [r zmpop 1 z min]
            assert_equal {z {{c 3} {b 2}}} [r zmpop 2 nokey z max count 10]
            assert_equal 0 [r exists z]
            assert_equal {} [r zmpop 1 z min]
        }

        zset_test "ZSCAN returns every member with its score ($enc)" {
            r flushall
            zset_use_encoding $enc
            for {set i 0} {$i < 200} {incr i} { r zadd z $i.5 m$i }
            set items [zset_scan_all z count 13]
            set d [dict create]
            foreach {m s} $items {
                assert_equal "m[expr {int($s)}]" $m
                assert_equal "[string range $m 1 end].5" $s
                dict set d $m 1
            }
            assert_equal 200 [dict size $d]
            set items [zset_scan_all z match m1?]
            assert_equal 10 [dict size $items]
            foreach {m s} $items { assert_match m1? $m }
        }
    }
    zset_use_encoding listpack

    zset_test "ZADD NX / XX" {
        r flushall
        r zadd z 1 a
        assert_equal 1 [r zadd z nx 5 a 2 b]
        assert_equal 1 [r zscore z a]
        assert_equal 2 [r zscore z b]
        assert_equal 0 [r zadd z xx 10 a 20 c]
        assert_equal 10 [r zscore z a]
        assert_equal {} [r zscore z c]
        assert_equal 0 [r zadd nokey xx 1 a]
        assert_equal 0 [r exists nokey]
    }

    zset_test "ZADD GT / LT update only in one direction but always add" {
        r flushall
        r zadd z 5 a
        assert_equal 0 [r zadd z gt 3 a]
        assert_equal 5 [r zscore z a]
        assert_equal 0 [r zadd z gt 7 a]
        assert_equal 7 [r zscore z a]
        assert_equal 0 [r zadd z lt 9 a]
        assert_equal 7 [r zscore z a]
        assert_equal 0 [r zadd z lt 1 a]
        assert_equal 1 [r zscore z a]
        assert_equal 1 [r zadd z gt 100 new]
        assert_equal 1 [r zadd z lt 100 new2]
        assert_equal 1 [r zadd z xx gt ch 2 a 1 nope]
        assert_equal 2 [r zscore z a]
        assert_equal {} [r zscore z nope]
    }

    zset_test "ZADD CH counts changed and added elements" {
        r flushall
        r zadd z 1 a 2 b
        assert_equal 2 [r zadd z ch 10 a 20 d]
        assert_equal 1 [r zadd z xx ch 11 a 30 e]
        assert_equal 0 [r zadd z ch 11 a 2 b]
        assert_equal 1 [r zadd z gt ch 5 a 12 b]
        assert_equal 1 [r zadd z lt ch 50 a 1 b]
        assert_equal 1 [r zadd z nx ch 7 c 1 a]
        assert_equal 0 [r zadd z gt ch 1 a]
    }

    zset_test "ZADD INCR" {
        r flushall
        assert_equal 5 [r zadd z incr 5 a]
        assert_equal 6 [r zadd z incr 1 a]
        assert_equal {} [r zadd z incr nx 1 a]
        assert_equal {} [r zadd z incr xx 1 nope]
        assert_equal 0 [r exists nokey]
        assert_equal {} [r zadd z incr gt -100 a]
        assert_equal -94 [r zadd z incr lt -100 a]
        assert_equal 2 [r zadd z incr xx 96 a]
        assert_equal 2 [r zscore z a]
        assert_equal 3 [r zadd z incr ch 1 a]
        set c [zset_raw_client]
        assert_equal {$-1} [zset_raw $c zadd z incr nx 1 a]
        assert_equal {$1 4} [zset_raw $c zadd z incr 1 a]
        $c close
    }

    zset_test "ZADD option and argument errors" {
        r flushall
        r zadd z 1 a
        assert_error "ERR XX and NX options at the same time are not compatible" {r zadd z nx xx 1 a}
        assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r zadd z gt lt 1 a}
        assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r zadd z nx gt 1 a}
        assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r zadd z nx lt 1 a}
        assert_error "ERR INCR option supports a single increment-element pair" {r zadd z incr 1 a 2 b}
        assert_error "ERR value is not a valid float" {r zadd z x a}
        assert_error "ERR value is not a valid float" {r zadd z nan a}
        assert_error "ERR value is not a valid float" {r zadd z " 1" a}
        assert_error "ERR value is not a valid float" {r zadd z 1e a}
        assert_error "ERR value is not a valid float" {r zadd z 1 b x c}
        assert_error "ERR syntax error" {r zadd z 1 a 2}
        assert_error "ERR wrong number of arguments for 'zadd' command" {r zadd z 1}
        assert_error "ERR wrong number of arguments for 'zadd' command" {r zadd z nx}
        assert_error "ERR wrong number of arguments for 'zadd' command" {r zadd z}
        # nothing of a failed command is applied
        assert_equal {a 1} [r zrange z 0 -1 withscores]
    }

    zset_test "ZADD accepts the spellings of infinity" {
        r flushall
        foreach {s exp} {inf inf +inf inf -inf -inf Inf inf infinity inf -Infinity -inf} {
            r zadd z $s m
            assert_equal $exp [r zscore z m] "score '$s'"
        }
    }

    zset_test "ZINCRBY" {
        r flushall
        assert_equal 1 [r zincrby z 1 a]
        assert_equal 3.5 [r zincrby z 2.5 a]
        assert_equal -1.5 [r zincrby z -5 a]
        assert_equal inf [r zincrby z +inf b]
        assert_error "ERR resulting score is not a number (NaN)" {r zincrby z -inf b}
        assert_equal inf [r zscore z b]
        assert_error "ERR value is not a valid float" {r zincrby z x a}
        assert_error "ERR wrong number of arguments for 'zincrby' command" {r zincrby z 1}
        assert_error "ERR wrong number of arguments for 'zincrby' command" {r zincrby z 1 a b}
        assert_equal inf [r zadd z incr +inf c]
        assert_error "ERR resulting score is not a number (NaN)" {r zadd z incr -inf c}
    }

    zset_test "Negative zero: ZADD INCR replies -0, a listpack stores 0, a skiplist keeps -0" {
        r flushall
        zset_use_encoding listpack
        assert_equal -0 [r zadd z incr -0 b]
        r zadd z -0 a
        assert_equal listpack [r object encoding z]
        assert_equal 0 [r zscore z a]
        assert_equal 0 [r zscore z b]
        assert_equal {a 0 b 0} [r zrange z 0 -1 withscores]
        zset_use_encoding skiplist
        r zadd s -0 a
        assert_equal skiplist [r object encoding s]
        assert_equal -0 [r zscore s a]
        assert_equal {a -0} [r zrange s 0 -1 withscores]
        # RESP3 doubles as Valkey 8.0.1 writes them: ,0 from a listpack, ,-0 from a skiplist.
        set c [zset_raw_client]
        zset_raw $c hello 3
        assert_equal {,0} [zset_raw $c zscore z a]
        assert_equal {*2 *2 $1 a ,0 *2 $1 b ,0} [zset_raw $c zrange z 0 -1 withscores]
        assert_equal {,-0} [zset_raw $c zscore s a]
        assert_equal {*1 *2 $1 a ,-0} [zset_raw $c zrange s 0 -1 withscores]
        assert_equal {*1 ,-0} [zset_raw $c zmscore s a]
        assert_equal {,-0} [zset_raw $c zincrby s -0 a]
        $c close
        zset_use_encoding listpack
    }

    zset_test "ZSCORE / ZMSCORE on missing keys and members" {
        r flushall
        r zadd z 1 a
        assert_equal {} [r zscore nokey a]
        assert_equal {} [r zscore z nope]
        assert_equal {{}} [r zmscore nokey a]
        assert_equal {1 {} 1} [r zmscore z a nope a]
        set c [zset_raw_client]
        assert_equal {$-1} [zset_raw $c zscore z nope]
        assert_equal {*2 $1 1 $-1} [zset_raw $c zmscore z a nope]
        assert_equal {*1 $-1} [zset_raw $c zmscore nokey a]
        zset_raw $c hello 3
        assert_equal {,1} [zset_raw $c zscore z a]
        assert_equal {*2 ,1 _} [zset_raw $c zmscore z a nope]
        assert_equal {,inf} [zset_raw $c zincrby z +inf a]
        assert_equal {,-inf} [zset_raw $c zincrby z -inf m]
        $c close
        assert_error "ERR wrong number of arguments for 'zscore' command" {r zscore z}
        assert_error "ERR wrong number of arguments for 'zmscore' command" {r zmscore z}
    }

    zset_test "WITHSCORES replies in RESP3" {
        r flushall
        r zadd z 1 a 2.5 b
        set c [zset_raw_client]
        zset_raw $c hello 3
        assert_equal {*2 *2 $1 a ,1 *2 $1 b ,2.5} [zset_raw $c zrange z 0 -1 withscores]
        assert_equal {*2 $1 a $1 b} [zset_raw $c zrange z 0 -1]
        assert_equal {*1 *2 $1 b ,2.5} [zset_raw $c zrangebyscore z 2 3 withscores]
        assert_equal {*2 $1 a ,1} [zset_raw $c zpopmin z]
        r zadd z 1 a
        assert_equal {*2 *2 $1 b ,2.5 *2 $1 a ,1} [zset_raw $c zpopmax z 5]
        r zadd z 1 a
        assert_equal {*2 $1 z *1 *2 $1 a ,1} [zset_raw $c zmpop 1 z min]
        assert_equal {_} [zset_raw $c zmpop 1 z min]
        $c close
    }

    zset_test "ZRANGE argument errors" {
        r flushall
        r zadd z 1 a 2 b
        assert_error "ERR min or max is not a float" {r zrange z x 1 byscore}
        assert_error "ERR min or max is not a float" {r zrange z 1 x byscore}
        assert_error "ERR min or max is not a float" {r zrange z (x 1 byscore}
        assert_error "ERR min or max is not a float" {r zrangebyscore z \[1 2}
        assert_error "ERR min or max is not a float" {r zrangebyscore z 1 nan}
        assert_error "ERR min or max is not a float" {r zcount z x 4}
        assert_error "ERR min or max is not a float" {r zremrangebyscore z x 1}
        assert_error "ERR min or max not valid string range item" {r zrange z a c bylex}
        assert_error "ERR min or max not valid string range item" {r zrangebylex z b \[d}
        assert_error "ERR min or max not valid string range item" {r zlexcount z b d}
        assert_error "ERR min or max not valid string range item" {r zremrangebylex z x y}
        assert_error "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX" \
            {r zrange z 0 -1 limit 0 1}
        assert_error "ERR syntax error, WITHSCORES not supported in combination with BYLEX" \
            {r zrange z - + bylex withscores}
        assert_error "ERR syntax error, WITHSCORES not supported in combination with BYLEX" \
            {r zrangebylex z - + withscores}
        assert_error "ERR syntax error" {r zrange z 0 -1 byscore bylex}
        assert_error "ERR syntax error" {r zrange z 0 -1 limit 0}
        assert_error "ERR syntax error" {r zrange z 0 -1 foo}
        assert_error "ERR syntax error" {r zrevrange z 0 1 foo}
        assert_error "ERR syntax error" {r zrangebyscore z 2 4 limit 1}
        assert_error "ERR syntax error" {r zrangebyscore z 2 4 foo}
        assert_error "ERR value is not an integer or out of range" {r zrange z x 1}
        assert_error "ERR value is not an integer or out of range" {r zrange z 0 -1 byscore limit x 1}
        assert_error "ERR value is not an integer or out of range" {r zremrangebyrank z x 1}
        assert_error "ERR syntax error" {r zrank z a foo}
        assert_error "ERR wrong number of arguments for 'zrank' command" {r zrank z a withscore foo}
    }

    zset_test "ZRANGESTORE" {
        r flushall
        r zadd z 1 a 2 b 3 c 4 d 5 e
        assert_equal 2 [r zrangestore d z 0 1]
        assert_equal {a 1 b 2} [r zrange d 0 -1 withscores]
        assert_equal 2 [r zrangestore d z (1 +inf byscore limit 0 2]
        assert_equal {b 2 c 3} [r zrange d 0 -1 withscores]
        assert_equal 4 [r zrangestore d z + \[b bylex rev]
        assert_equal {b c d e} [r zrange d 0 -1]
        assert_equal 0 [r zrangestore d z \[b + bylex rev]
        assert_equal 0 [r exists d]
        r zadd d 1 x
        assert_equal 0 [r zrangestore d z 10 20]
        assert_equal 0 [r exists d]
        assert_equal 0 [r zrangestore d nokey 0 -1]
        r set str x
        assert_equal 5 [r zrangestore str z 0 -1]
        assert_equal zset [r type str]
        assert_error "ERR syntax error" {r zrangestore d z 0 -1 withscores}
        r set str2 x
        assert_error $::zset_wrongtype {r zrangestore d str2 0 -1}
    }

    zset_test "ZPOPMIN / ZPOPMAX count errors and wire format" {
        r flushall
        r zadd z 1 a 2 b
        assert_error "ERR value is out of range, must be positive" {r zpopmin z -1}
        assert_error "ERR value is out of range, must be positive" {r zpopmax z x}
        set c [zset_raw_client]
        assert_equal {*0} [zset_raw $c zpopmin z 0]
        assert_equal {*0} [zset_raw $c zpopmin nokey]
        assert_equal {*0} [zset_raw $c zpopmax nokey 2]
        assert_equal {*2 $1 a $1 1} [zset_raw $c zpopmin z]
        assert_equal {*2 $1 b $1 2} [zset_raw $c zpopmax z 1]
        $c close
    }

    zset_test "ZMPOP wire format and errors" {
        r flushall
        r zadd z 1 a 2 b 3 c
        set c [zset_raw_client]
        assert_equal {*2 $1 z *1 *2 $1 a $1 1} [zset_raw $c zmpop 1 z min]
        assert_equal {*2 $1 z *2 *2 $1 c $1 3 *2 $1 b $1 2} [zset_raw $c zmpop 1 z MAX COUNT 5]
        assert_equal {*-1} [zset_raw $c zmpop 1 z min]
        $c close
        r zadd z 1 a
        r set str x
        assert_error "ERR syntax error" {r zmpop 1 z foo}
        assert_error "ERR syntax error" {r zmpop 3 z min}
        assert_error "ERR syntax error" {r zmpop 1 z min count 1 count 2}
        assert_error "ERR numkeys should be greater than 0" {r zmpop 0 z min}
        assert_error "ERR count should be greater than 0" {r zmpop 1 z min count 0}
        assert_error "ERR count should be greater than 0" {r zmpop 1 z min count -1}
        assert_error "ERR count should be greater than 0" {r zmpop 1 z min count x}
        assert_error $::zset_wrongtype {r zmpop 2 nokey str min}
        assert_equal 1 [r zcard z]
    }

    zset_test "ZRANDMEMBER with a count under a third of the set draws members: a rehash moves on" {
        # As SRANDMEMBER's (type_set.tcl): random draws, not a copy of the sorted set.
        r flushall
        set args {}
        for {set i 0} {$i < 1024} {incr i} { lappend args $i m$i }
        r zadd z {*}$args
        r zadd z 5000 extra
        assert_match "*rehashing target*" [r debug htstats-key z]
        # only ZRANDMEMBER runs meanwhile (a lookup would move the rehash on itself)
        set calls 0
        set picks {}
        while {[string match "*rehashing target*" [r debug htstats-key z]] && $calls < 1000} {
            set res [r zrandmember z 10 withscores]
            assert_equal 10 [llength [lsort -unique [dict keys $res]]]
            lappend picks {*}$res
            incr calls
        }
        assert_range $calls 1 999
        foreach {m sc} $picks { assert_equal $sc [r zscore z $m] }
        # a count whose triple overflows 64 bits is still a count past the size: every member
        r del z
        r zadd z 1 a 2 b 3 c 4 d 5 e 6 f 7 g
        assert_equal {a b c d e f g} [lsort [r zrandmember z 6148914691236517206]]
    }

    zset_test "ZRANDMEMBER properties" {
        r flushall
        assert_equal {} [r zrandmember nokey]
        assert_equal {} [r zrandmember nokey 3]
        for {set i 0} {$i < 20} {incr i} { r zadd z $i m$i }
        set all [r zrange z 0 -1]
        for {set i 0} {$i < 10} {incr i} { assert {[r zrandmember z] in $all} }
        assert_equal {} [r zrandmember z 0]
        set res [r zrandmember z 7]
        assert_equal 7 [llength [lsort -unique $res]]
        foreach m $res { assert {$m in $all} }
        assert_equal [lsort $all] [lsort [r zrandmember z 100]]
        set res [r zrandmember z -60]
        assert_equal 60 [llength $res]
        foreach m $res { assert {$m in $all} }
        set res [r zrandmember z 5 withscores]
        assert_equal 10 [llength $res]
        foreach {m s} $res { assert_equal "m$s" $m }
        set res [r zrandmember z -30 withscores]
        assert_equal 60 [llength $res]
        foreach {m s} $res { assert_equal "m$s" $m }
        set c [zset_raw_client]
        assert_equal {$-1} [zset_raw $c zrandmember nokey]
        assert_equal {*0} [zset_raw $c zrandmember nokey 2]
        assert_equal {*0} [zset_raw $c zrandmember z 0]
        zset_raw $c hello 3
        r del one
        r zadd one 1.5 x
        assert_equal {*1 *2 $1 x ,1.5} [zset_raw $c zrandmember one 1 withscores]
        $c close
        assert_error "ERR value is not an integer or out of range" {r zrandmember z withscores}
        assert_error "ERR syntax error" {r zrandmember z 1 withscores foo}
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
            {r zrandmember z -9223372036854775808}
    }

    zset_test "ZUNION / ZINTER / ZDIFF with WEIGHTS and AGGREGATE" {
        r flushall
        r zadd a 1 x 2 y 3 z
        r zadd b 10 y 20 z 30 w
        assert_equal {x 1 y 12 z 23 w 30} [r zunion 2 a b withscores]
        assert_equal {x 2 y 34 z 66 w 90} [r zunion 2 a b weights 2 3 withscores]
        assert_equal {x 1 y 2 z 3 w 30} [r zunion 2 a b aggregate min withscores]
        assert_equal {x 1 y 10 z 20 w 30} [r zunion 2 a b aggregate max withscores]
        assert_equal {x y z w} [r zunion 2 a b]
        assert_equal {y 12 z 23} [r zinter 2 a b withscores]
        assert_equal {z -17 y -8} [r zinter 2 a b weights 1 -1 aggregate sum withscores]
        assert_equal {y 2 z 3} [r zinter 2 a b aggregate MIN withscores]
        assert_equal {x 1} [r zdiff 2 a b withscores]
        assert_equal {w} [r zdiff 2 b a]
        assert_equal {x 1 y 2 z 3} [r zdiff 1 a withscores]
        assert_equal {} [r zunion 1 nokey]
        assert_equal {} [r zinter 2 a nokey]
        assert_equal {} [r zdiff 2 nokey a]
        assert_equal {x y z} [r zdiff 2 a nokey]
    }

    zset_test "Plain sets are accepted as inputs with score 1" {
        r flushall
        r zadd a 1 x 2 y 3 z
        r sadd s y w q
        assert_equal {y 3} [r zinter 2 a s withscores]
        assert_equal {q 1 w 1 x 1 y 3 z 3} [r zunion 2 a s withscores]
        assert_equal {x 1 z 3} [r zdiff 2 a s withscores]
        assert_equal 1 [r zintercard 2 a s]
        assert_equal 3 [r zunionstore d 1 s]
        assert_equal {q 1 w 1 y 1} [r zrange d 0 -1 withscores]
    }

    zset_test "Infinite weights: inf - inf gives 0" {
        r flushall
        r zadd a 1 x 2 y 3 z
        r zadd i 1 x
        assert_equal {x 0 y inf z inf} [r zunion 2 a i weights +inf -inf withscores]
        assert_equal {x 0 y 0 z 0} [r zunion 2 a a weights +inf -inf withscores]
        assert_equal {x inf y inf z inf} [r zinter 2 a a weights 0 inf withscores]
    }

    zset_test "ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE" {
        r flushall
        r zadd a 1 x 2 y 3 z
        r zadd b 10 y 20 z 30 w
        assert_equal 4 [r zunionstore d 2 a b weights 2 3]
        assert_equal {x 2 y 34 z 66 w 90} [r zrange d 0 -1 withscores]
        assert_equal 2 [r zinterstore d 2 a b aggregate max]
        assert_equal {y 10 z 20} [r zrange d 0 -1 withscores]
        assert_equal 1 [r zdiffstore d 2 a b]
        assert_equal {x 1} [r zrange d 0 -1 withscores]
        assert_equal 0 [r zdiffstore d 2 a a]
        assert_equal 0 [r exists d]
        r zadd d 5 old
        assert_equal 0 [r zinterstore d 2 a nokey]
        assert_equal 0 [r exists d]
        # the destination may be a source
        assert_equal 4 [r zunionstore a 2 a b]
        assert_equal {x 1 y 12 z 23 w 30} [r zrange a 0 -1 withscores]
        r set str x
        assert_equal 3 [r zunionstore str 1 b aggregate sum weights 2]
        assert_equal {y 20 z 40 w 60} [r zrange str 0 -1 withscores]
        assert_equal zset [r type str]
    }

    zset_test "Set operation argument errors" {
        r flushall
        r zadd a 1 x
        r zadd b 1 y
        r set str x
        assert_error "ERR at least 1 input key is needed for 'zunion' command" {r zunion 0 a}
        assert_error "ERR at least 1 input key is needed for 'zinter' command" {r zinter 0 a}
        assert_error "ERR at least 1 input key is needed for 'zunionstore' command" {r zunionstore d 0 a}
        assert_error "ERR at least 1 input key is needed for 'zintercard' command" {r zintercard 0 a}
        assert_error "ERR syntax error" {r zunion 3 a b}
        assert_error "ERR syntax error" {r zunion 2 a b weights 1}
        assert_error "ERR weight value is not a float" {r zunion 2 a b weights 1 x}
        assert_error "ERR weight value is not a float" {r zunionstore d 2 a b weights 1e400 1}
        assert_error "ERR syntax error" {r zunion 2 a b aggregate avg}
        assert_error "ERR syntax error" {r zunion 2 a b foo}
        assert_error "ERR syntax error" {r zunionstore d 2 a b withscores}
        assert_error "ERR syntax error" {r zdiff 2 a b weights 1 1}
        assert_error "ERR syntax error" {r zdiff 2 a b aggregate sum}
        assert_error $::zset_wrongtype {r zunion 2 a str}
        assert_error $::zset_wrongtype {r zinter 2 nokey str}
        assert_error $::zset_wrongtype {r zdiff 2 nokey str}
        assert_error $::zset_wrongtype {r zunionstore d 1 str}
        assert_error $::zset_wrongtype {r zintercard 2 a str}
        assert_equal 0 [r exists d]
    }

    zset_test "ZINTERCARD" {
        r flushall
        r zadd a 1 x 2 y 3 z
        r zadd b 10 y 20 z 30 w
        assert_equal 2 [r zintercard 2 a b]
        assert_equal 1 [r zintercard 2 a b limit 1]
        assert_equal 2 [r zintercard 2 a b limit 0]
        assert_equal 3 [r zintercard 1 a]
        assert_equal 0 [r zintercard 2 a nokey]
        assert_error "ERR LIMIT can't be negative" {r zintercard 1 a limit -1}
        assert_error "ERR syntax error" {r zintercard 3 a b}
        assert_error "ERR syntax error" {r zintercard 1 a foo}
    }

    zset_test "ZSCAN on small and missing keys, errors" {
        r flushall
        r zadd z 1 a 2 b 3 c
        assert_equal {0 {a 1 b 2 c 3}} [r zscan z 0]
        assert_equal {0 {}} [r zscan nokey 0]
        assert_error "ERR NOVALUES option can only be used in HSCAN" {r zscan z 0 novalues}
        assert_error "ERR invalid cursor" {r zscan z x}
        assert_error "ERR syntax error" {r zscan z 0 count 0}
        r zadd f 0.1 a 5e-324 b
        assert_equal {0 {b 5e-324 a 0.1}} [r zscan f 0]
    }

    zset_test "ZSCAN score text: shortest form for a listpack, %.17g for a skiplist" {
        # Measured on Valkey 8.0.1: the skiplist ZSCAN path formats like Redis 7.0 does,
        # unlike every other score reply.
        r flushall
        zset_use_encoding listpack
        r zadd l 0.1 a 1e-7 b -0 c
        assert_equal {0 {c 0 b 1e-7 a 0.1}} [r zscan l 0]
        zset_use_encoding skiplist
        r zadd s 0.1 a 1e-7 b -0 c 5e-324 d 2.5 e
        set got [dict create {*}[lindex [r zscan s 0] 1]]
        assert_equal 0.10000000000000001 [dict get $got a]
        assert_equal 9.9999999999999995e-08 [dict get $got b]
        assert_equal -0 [dict get $got c]
        assert_equal 4.9406564584124654e-324 [dict get $got d]
        assert_equal 2.5 [dict get $got e]
        zset_use_encoding listpack
    }

    zset_test "Random operations on a large sorted set agree with a model" {
        r flushall
        expr {srand(9001)}
        set model [dict create]
        for {set i 0} {$i < 1500} {incr i} {
            set m m[expr {int(rand() * 300)}]
            set s [expr {int(rand() * 100) - 50}]
            switch [expr {int(rand() * 4)}] {
                0 - 1 {
                    set added [expr {![dict exists $model $m]}]
                    assert_equal $added [r zadd z $s $m]
                    dict set model $m $s
                }
                2 {
                    set old [expr {[dict exists $model $m] ? [dict get $model $m] : 0}]
                    assert_equal [expr {$old + $s}] [r zincrby z $s $m]
                    dict set model $m [expr {$old + $s}]
                }
                3 {
                    assert_equal [dict exists $model $m] [r zrem z $m]
                    dict unset model $m
                }
            }
        }
        set sorted [lsort -stride 2 -index 1 -integer [lsort -stride 2 -index 0 $model]]
        assert_equal [dict size $model] [r zcard z]
        assert_equal $sorted [r zrange z 0 -1 withscores]
        set members [dict keys [dict create {*}$sorted]]
        set last [expr {[llength $members] - 1}]
        foreach rank [list 0 7 50 $last] {
            set m [lindex $members $rank]
            assert_equal $rank [r zrank z $m]
            assert_equal [expr {[llength $members] - 1 - $rank}] [r zrevrank z $m]
        }
        foreach {lo hi} {-10 10 -50 -40 0 0 30 100} {
            set exp {}
            foreach {m s} $sorted { if {$s >= $lo && $s <= $hi} { lappend exp $m } }
            assert_equal $exp [r zrangebyscore z $lo $hi]
            assert_equal [llength $exp] [r zcount z $lo $hi]
        }
    }

    zset_test "Sorted set commands against a string key are WRONGTYPE" {
        r flushall
        r set str x
        foreach cmd {
            {zadd str 1 a} {zincrby str 1 a} {zrem str a} {zcard str} {zcount str 0 1}
            {zlexcount str - +} {zscore str a} {zmscore str a} {zrank str a} {zrevrank str a}
            {zrange str 0 -1} {zrevrange str 0 -1} {zrangebyscore str 0 1}
            {zrevrangebyscore str 1 0} {zrangebylex str - +} {zrevrangebylex str + -}
            {zremrangebyrank str 0 1} {zremrangebyscore str 0 1} {zremrangebylex str - +}
            {zpopmin str} {zpopmax str} {zrandmember str} {zscan str 0} {zmpop 1 str min}
            {zrangestore d str 0 -1}
        } {
            assert_error $::zset_wrongtype [list r {*}$cmd]
        }
        assert_equal x [r get str]
        assert_equal 0 [r exists d]
    }

    # The cases below were found by the differential test (integration/differential.tcl);
    # the expected replies are those of Valkey 8.0.1 and redis-server 7.0 alike.
    zset_test "Range arguments are parsed before the key's type is checked" {
        r flushall
        r rpush l x
        assert_error "ERR min or max is not a float" {r zrevrangebyscore l 11 x}
        assert_error "ERR min or max is not a float" {r zrange l x 1 byscore}
        assert_error "ERR min or max not valid string range item" {r zrangebylex l a b}
        assert_error "ERR min or max is not a float" {r zremrangebyscore l x 1}
        assert_error "ERR value is not an integer or out of range" {r zrange l 0 x}
        assert_error $::zset_wrongtype {r zrevrangebyscore l 11 1}
        # LIMIT 0 -1 is no LIMIT, so it is allowed on a rank range
        r zadd z 1 a 2 b
        assert_equal {a b} [r zrange z 0 1 limit 0 -1]
    }

    zset_test "Score bounds are what strtod reads: an empty bound is 0" {
        r flushall
        r zadd z 0 a 1 b
        assert_equal 1 [r zcount z "" ""]
        assert_equal 1 [r zcount z ( 1]
        assert_equal {b} [r zrangebyscore z " 1" 1]
    }

    foreach enc {listpack skiplist} {
        zset_test "ZINTER: only the smallest input's NaN product is cleared ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd i1 5 m
            r zadd i2 -inf m 1 n
            # i1 is the smallest input: 5*inf = inf; i2 gives -inf*0 = NaN, and inf + NaN is
            # NaN, which SUM turns into 0, while MIN and MAX keep inf
            assert_equal 1 [r zinterstore d 2 i1 i2 weights inf 0]
            assert_equal 0 [r zscore d m]
            assert_equal 1 [r zinterstore d 2 i1 i2 weights inf 0 aggregate sum]
            assert_equal 0 [r zscore d m]
            assert_equal {m inf} [r zinter 2 i1 i2 weights inf 0 aggregate min withscores]
            assert_equal {m inf} [r zinter 2 i1 i2 weights inf 0 aggregate max withscores]
            # the NaN of the smallest input is 0 before the aggregation
            assert_equal {m -inf} [r zinter 2 i1 i2 weights 0 1 aggregate sum withscores]
        }

        zset_test "ZUNION adds the inputs from the smallest to the largest ($enc)" {
            r flushall
            zset_use_encoding $enc
            r zadd a 0.1 m 1 x 2 y
            r zadd b 0.2 m 1 x
            r zadd c 0.3 m
            # (0.3 + 0.2) + 0.1 = 0.6; in the order given, (0.1 + 0.2) + 0.3 = 0.6000000000000001
            assert_equal {m 0.6 x 2 y 2} [r zunion 3 a b c withscores]
            assert_equal {m 0.6 x 2 y 2} [r zunion 3 c b a withscores]
        }
    }

    zset_test "Lex ranges over members whose scores differ walk the listpack like Valkey" {
        r flushall
        zset_use_encoding listpack
        r zadd z 1 b 2 a 3 c
        # start at the first member >= min, go on while members are <= max
        assert_equal {b a c} [r zrangebylex z \[a \[c]
        assert_equal {b a} [r zrangebylex z \[b \[b]
        assert_equal {a c} [r zrangebylex z \[a + limit 1 5]
        assert_equal 2 [r zlexcount z \[b \[b]
        # reverse: start at the last member <= max, go down while members are >= min
        assert_equal {a b} [r zrevrangebylex z \[b \[a]
        # the first member must be <= max and the last >= min, else the range is empty
        assert_equal {} [r zrangebylex z \[d +]
        assert_equal 2 [r zremrangebylex z \[b \[b]
        assert_equal {c} [r zrange z 0 -1]
    }

    zset_test "SMOVE from a missing key answers 0 before the destination's type is checked" {
        r flushall
        r set str x
        assert_equal 0 [r smove nosuch str m]
        r sadd s m
        assert_error $::zset_wrongtype {r smove s str m}
    }
}
