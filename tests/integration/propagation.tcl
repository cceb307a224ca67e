# What the replication stream carries, command by command, compared with Valkey 8.0.1's stream
# for the same commands (recorded by attaching to its stream with PSYNC): rewritten commands
# (relative times as PXAT/PEXPIREAT, blocking pops as their plain forms, GETSET as SET, the
# pops of LMPOP/ZMPOP as counted), deletions of expired keys as UNLINK (lazyfree-lazy-expire
# yes), and transactions: one write goes alone, several go inside MULTI/EXEC (MULTI before the
# SELECT), none sends nothing. Times are compared as patterns.

# Runs each {command} and then expects the stream lines (glob patterns) in order.
proc expect_stream {tap cmds want} {
    foreach cmd $cmds { catch {r {*}$cmd} }
    foreach w $want {
        set got [repl_tap_next $tap]
        assert_match $w $got "stream after: $cmds"
    }
}

start_server {tags {repl propagation}} {
    test "Rewritten commands reach the stream as Valkey 8 sends them" {
        r flushall
        set tap [repl_tap_open]
        expect_stream $tap {
            {set s1 v ex 100} {setex s2 100 v} {psetex s3 100000 v} {set s4 v px 100000 get}
            {set s5 v pxat 4000000000000}
            {getex s1 ex 200} {getex s1 persist} {getex s1} {expire s2 300} {pexpire s2 300000}
            {expireat s2 4000000000} {expire nokey 10} {incrbyfloat f 1.5}
            {hincrbyfloat h x 2.5} {rpush l a b c} {blpop l 0} {brpop l 0} {rpush l a b}
            {blmove l l2 left right 0} {brpoplpush l l2 0} {lmpop 1 l2 left count 5}
            {zadd z 1 a 2 b 3 c} {zmpop 1 z min count 2} {bzmpop 0 1 z max} {zadd z 1 a}
            {zmpop 1 z min count 10} {zadd z 1 a} {bzpopmin z 0} {sadd s a} {spop s} {srandmember s} {set n 10} {incr n}
            {decrby n 3} {setnx n 1} {del nokey} {getset n 5} {set n 6 keepttl} {getdel n}
            {flushall}
        } {
            {SELECT 0} {SET s1 v PXAT *} {SET s2 v PXAT *} {SET s3 v PXAT *} {SET s4 v PXAT *}
            {set s5 v pxat 4000000000000}
            {PEXPIREAT s1 *} {PERSIST s1} {PEXPIREAT s2 *} {PEXPIREAT s2 *}
            {PEXPIREAT s2 4000000000000} {SET f 1.5 KEEPTTL} {HSET h x 2.5} {rpush l a b c}
            {LPOP l} {RPOP l} {rpush l a b} {LMOVE l l2 left right} {RPOPLPUSH l l2}
            {LPOP l2 2} {zadd z 1 a 2 b 3 c} {ZPOPMIN z 2} {ZPOPMAX z 1} {zadd z 1 a}
            {ZPOPMIN z 1} {zadd z 1 a} {ZPOPMIN z} {sadd s a} {SREM s a} {set n 10} {incr n} {decrby n 3} {SET n 5}
            {set n 6 keepttl} {DEL n} {flushall}
        }
        close $tap
    }

    test "Keys deleted because their time passed go as UNLINK (lazyfree-lazy-expire yes)" {
        r flushall
        r debug set-active-expire 0
        set tap [repl_tap_open]
        set dump [r dump nosuch]
        r set f 1
        set dump [r dump f]
        expect_stream $tap {
            {set a 1} {expire a -1} {set b 1} {pexpireat b 1} {set c 1} {set c 2 exat 1}
            {set d 1} {getdel d} {set e 1} {getex e pxat 1}
        } {
            {SELECT 0} {set f 1} {set a 1} {UNLINK a} {set b 1} {UNLINK b} {set c 1} {UNLINK c}
            {set d 1} {DEL d} {set e 1} {UNLINK e}
        }
        # RESTORE of an already expired value creates nothing and sends nothing; over an
        # existing key (REPLACE) it deletes it.
        expect_stream $tap [list [list restore g 1 $dump absttl] {set j 1} \
                                [list restore j 1 $dump absttl replace] {set h 1 px 1}] \
            {{set j 1} {UNLINK j} {SET h 1 PXAT *}}
        after 20
        expect_stream $tap {{get h}} {{UNLINK h}}
        r debug set-active-expire 1
        expect_stream $tap {{set i 1 px 1}} {{SET i 1 PXAT *}}
        wait_for_condition 100 10 {[r exists i] == 0} else { fail "i never expired" }
        expect_stream $tap {} {{UNLINK i}}
        expect_stream $tap {{sadd s2 a b} {spop s2 5}} {{sadd s2 a b} {UNLINK s2}}
        r config set lazyfree-lazy-expire no
        expect_stream $tap {{set k 1} {expire k -1}} {{set k 1} {DEL k}}
        r config set lazyfree-lazy-expire yes
        close $tap
    }

    test "A transaction with one write goes without MULTI/EXEC; with several, inside one" {
        r flushall
        r debug set-active-expire 0
        set tap [repl_tap_open]
        r set k v px 1
        after 20
        foreach {tx want} {
            {{get k} {set x 1}} {{SELECT 0} {SET k v PXAT *} MULTI {UNLINK k} {set x 1} EXEC}
            {{set y 1}} {{set y 1}}
            {{set z 1} {set w 2}} {MULTI {set z 1} {set w 2} EXEC}
            {{get nothing}} {}
        } {
            r multi
            foreach c $tx { r {*}$c }
            r exec
            foreach w $want { assert_match $w [repl_tap_next $tap] $tx }
        }
        r set k2 v px 1
        after 20
        r multi
        r get k2
        r exec
        assert_match {SET k2 v PXAT *} [repl_tap_next $tap]
        assert_equal {UNLINK k2} [repl_tap_next $tap]
        r select 3
        r set a 1
        r select 0
        r multi
        r set b 1
        r select 3
        r set c 1
        r exec
        r multi
        r select 3
        r set d 1
        r exec
        r select 0
        foreach w {{SELECT 3} {set a 1} MULTI {SELECT 0} {set b 1} {SELECT 3} {set c 1} EXEC
                   {set d 1}} {
            assert_equal $w [repl_tap_next $tap]
        }
        r debug set-active-expire 1
        close $tap
    }
}
