# Blocking commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP.
# Timeouts, serving order, keys made ready inside MULTI/EXEC, CLIENT UNBLOCK, INFO
# blocked_clients, argument errors.
#
# Every test runs in sequence against one long-lived server, as users' servers live: each
# starts on a fresh connection (a test that stopped halfway leaves no SELECTed db behind) and
# ends with blk_assert_idle, so whatever one scenario leaves in the blocking registry fails
# that scenario instead of a later one.

proc blk_test {name body args} {
    uplevel 1 [list test $name "reconnect\n$body\nblk_assert_idle" {*}$args]
}

# Once the test's clients are gone, nothing is left blocked or registered (assert_server_idle).
proc blk_assert_idle {} { assert_server_idle }

# A client whose commands are only sent; its replies are fetched with $c read.
proc blk_client {{raw 0}} {
    set c [valkey_client]
    $c timeout 5000
    if {$raw} { $c readraw 1 }
    $c deferred 1
    return $c
}

# A deferred client plus its CLIENT ID: {client id}
proc blk_client_with_id {} {
    set c [valkey_client]
    set id [$c client id]
    $c timeout 5000
    $c deferred 1
    return [list $c $id]
}

proc blk_wait_blocked {n} {
    wait_for_condition 200 10 {[s blocked_clients] == $n} else {
        ::testutil::fail "blocked_clients is [s blocked_clients], expected $n"
    }
}

# 1 if the client has a reply ready within ms milliseconds.
proc blk_has_reply {c {ms 100}} {
    if {[catch {$c read $ms} reply]} {
        if {[string match "*timeout*" $reply]} { return 0 }
        error $reply
    }
    error "unexpected reply: $reply"
}

start_server {tags {blocking}} {
    blk_test "BLPOP / BRPOP return at once when a list has data" {
        r flushall
        r rpush l a b c
        assert_equal {l a} [r blpop l 0]
        assert_equal {l c} [r brpop l 0]
        # the first non-empty key in argument order
        r rpush l2 x
        assert_equal {l b} [r blpop nokey l l2 1]
        assert_equal {l2 x} [r brpop nokey l l2 1]
        assert_equal 0 [r exists l]
        assert_equal 0 [r exists l2]
    }

    blk_test "BLPOP blocks until another client pushes" {
        r flushall
        set c [blk_client]
        $c blpop l 0
        blk_wait_blocked 1
        assert_equal 1 [r rpush l x]
        assert_equal {l x} [$c read]
        blk_wait_blocked 0
        assert_equal 0 [r exists l]
    }

    blk_test "BRPOP takes the tail of a multi-element push" {
        r flushall
        set c [blk_client]
        $c brpop l 0
        blk_wait_blocked 1
        r rpush l a b c
        assert_equal {l c} [$c read]
        assert_equal {a b} [r lrange l 0 -1]
        set c2 [blk_client]
        $c2 blpop m 0
        blk_wait_blocked 1
        r lpush m a b c
        assert_equal {m c} [$c2 read]
        assert_equal {b a} [r lrange m 0 -1]
    }

    blk_test "A client blocked on several keys is served by the first pushed key" {
        r flushall
        set c [blk_client]
        $c blpop k1 k2 k3 0
        blk_wait_blocked 1
        r rpush k3 three
        assert_equal {k3 three} [$c read]
        r rpush k1 one
        assert_equal {one} [r lrange k1 0 -1]
    }

    blk_test "Several waiters on one key are served in arrival order" {
        r flushall
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set c [blk_client]
            $c blpop l 0
            blk_wait_blocked [expr {$i + 1}]
            lappend clients $c
        }
        r rpush l a
        assert_equal {l a} [[lindex $clients 0] read]
        blk_wait_blocked 2
        r rpush l b
        assert_equal {l b} [[lindex $clients 1] read]
        r rpush l c
        assert_equal {l c} [[lindex $clients 2] read]
        blk_wait_blocked 0
    }

    blk_test "One push of several elements serves several waiters in order" {
        r flushall
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set c [blk_client]
            $c blpop l 0
            blk_wait_blocked [expr {$i + 1}]
            lappend clients $c
        }
        assert_equal 4 [r rpush l a b c d]
        assert_equal {l a} [[lindex $clients 0] read]
        assert_equal {l b} [[lindex $clients 1] read]
        assert_equal {l c} [[lindex $clients 2] read]
        assert_equal {d} [r lrange l 0 -1]
        blk_wait_blocked 0
    }

    blk_test "Waiters on different sides: BLPOP and BRPOP share one push" {
        r flushall
        set a [blk_client]
        $a blpop l 0
        blk_wait_blocked 1
        set b [blk_client]
        $b brpop l 0
        blk_wait_blocked 2
        r rpush l x y z
        assert_equal {l x} [$a read]
        assert_equal {l z} [$b read]
        assert_equal {y} [r lrange l 0 -1]
    }

    blk_test "A key made ready inside MULTI/EXEC is served after EXEC" {
        r flushall
        set c [blk_client]
        $c blpop l 0
        blk_wait_blocked 1
        r multi
        r rpush l a b
        r lpop l
        r exec
        assert_equal {l b} [$c read]
        assert_equal 0 [r exists l]
    }

    blk_test "A key pushed and deleted inside MULTI/EXEC does not serve the waiter" {
        r flushall
        set c [blk_client]
        $c blpop l 0
        blk_wait_blocked 1
        r multi
        r rpush l a
        r del l
        r exec
        assert_equal 0 [blk_has_reply $c 200]
        blk_wait_blocked 1
        r rpush l later
        assert_equal {l later} [$c read]
    }

    blk_test "Blocking commands inside MULTI do not block" {
        r flushall
        r multi
        r blpop l 0
        r brpop l 0
        r blmove l m left left 0
        r brpoplpush l m 0
        r blmpop 0 1 l left
        r bzpopmin z 0
        r bzpopmax z 0
        r bzmpop 0 1 z min
        assert_equal {{} {} {} {} {} {} {} {}} [r exec]
        r rpush l x
        r multi
        r blpop l 0
        assert_equal {{l x}} [r exec]
    }

    blk_test "Timeouts: 0.1 seconds gives a null reply" {
        r flushall
        set c [blk_client 1]
        foreach cmd {
            {blpop l 0.1} {brpop l 0.1} {blmove l m left right 0.1} {brpoplpush l m 0.1}
            {blmpop 0.1 1 l left} {bzpopmin z 0.1} {bzpopmax z 0.1} {bzmpop 0.1 1 z min}
        } {
            set start [clock milliseconds]
            $c {*}$cmd
            assert_equal {*-1} [$c read] $cmd
            set elapsed [expr {[clock milliseconds] - $start}]
            assert_range $elapsed 80 2000
        }
        assert_equal 0 [r exists l m z]
        blk_wait_blocked 0
    }

    blk_test "Timeouts in RESP3 are a null" {
        r flushall
        set c [valkey_client]
        $c hello 3
        $c timeout 5000
        $c readraw 1
        $c deferred 1
        foreach cmd {{blpop l 0.05} {blmove l m left right 0.05} {bzpopmin z 0.05} {blmpop 0.05 1 l left} {bzmpop 0.05 1 z max}} {
            $c {*}$cmd
            assert_equal {_} [$c read] $cmd
        }
    }

    blk_test "An integer timeout in seconds and a timeout that expires while others wait" {
        r flushall
        set a [blk_client]
        set start [clock milliseconds]
        $a blpop l 1
        set b [blk_client]
        $b blpop l 0
        blk_wait_blocked 2
        # the timeout never fires early; on a busy machine it may fire late (read deadline)
        assert_equal {} [$a read 10000]
        assert_morethan [expr {[clock milliseconds] - $start}] 900
        blk_wait_blocked 1
        r rpush l x
        assert_equal {l x} [$b read]
    }

    blk_test "A timed-out waiter does not take later pushes" {
        r flushall
        set c [blk_client]
        $c blpop l 0.05
        assert_equal {} [$c read]
        r rpush l kept
        assert_equal {kept} [r lrange l 0 -1]
    }

    blk_test "A closed waiter does not take later pushes" {
        r flushall
        set c [blk_client]
        $c blpop l 0
        blk_wait_blocked 1
        $c close
        blk_wait_blocked 0
        r rpush l kept
        assert_equal {kept} [r lrange l 0 -1]
    }

    blk_test "A waiter stays blocked while the key holds another type" {
        r flushall
        set c [blk_client]
        $c blpop k 0
        blk_wait_blocked 1
        r set k string
        assert_equal 0 [blk_has_reply $c 100]
        blk_wait_blocked 1
        r del k
        r rpush k v
        assert_equal {k v} [$c read]
    }

    blk_test "Blocking pops on a key of the wrong type fail at once" {
        r flushall
        r set s x
        r rpush l a
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r blpop s 0}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r blmove s l left left 0}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r blmpop 0 1 s left}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r bzpopmin s 0}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r bzpopmax l 0}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r bzmpop 0 1 l min}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r blmove l s left left 0}
        assert_equal {a} [r lrange l 0 -1]
    }

    blk_test "BLMOVE / BRPOPLPUSH return at once when the source has data" {
        r flushall
        r rpush src a b c
        assert_equal a [r blmove src dst left right 0]
        assert_equal c [r blmove src dst right left 0]
        assert_equal b [r brpoplpush src dst 0]
        assert_equal {b c a} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
        assert_error "ERR syntax error" {r blmove src dst up right 0}
    }

    blk_test "BLMOVE blocks and moves the pushed element" {
        r flushall
        set c [blk_client]
        $c blmove src dst right left 0
        blk_wait_blocked 1
        r rpush dst old
        r rpush src x
        assert_equal x [$c read]
        assert_equal {x old} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
    }

    blk_test "BRPOPLPUSH blocks and moves the pushed element" {
        r flushall
        set c [blk_client]
        $c brpoplpush src dst 0
        blk_wait_blocked 1
        r rpush src a b
        assert_equal b [$c read]
        assert_equal {b} [r lrange dst 0 -1]
        assert_equal {a} [r lrange src 0 -1]
    }

    blk_test "BLMOVE onto a list another client waits on serves it in turn" {
        r flushall
        set mover [blk_client]
        $mover blmove src dst left left 0
        blk_wait_blocked 1
        set popper [blk_client]
        $popper blpop dst 0
        blk_wait_blocked 2
        r rpush src v
        assert_equal v [$mover read]
        assert_equal {dst v} [$popper read]
        assert_equal 0 [r exists src dst]
    }

    blk_test "BLMOVE with the same source and destination" {
        r flushall
        set c [blk_client]
        $c blmove l l left right 0
        blk_wait_blocked 1
        r rpush l a
        assert_equal a [$c read]
        assert_equal {a} [r lrange l 0 -1]
    }

    blk_test "BLMOVE with a wrong-type destination when served" {
        r flushall
        set c [blk_client]
        $c blmove src dst left left 0
        blk_wait_blocked 1
        r set dst x
        r rpush src a
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {$c read}
        assert_equal {a} [r lrange src 0 -1]
    }

    blk_test "BLMPOP returns at once or blocks, with COUNT" {
        r flushall
        r rpush l a b c
        assert_equal {l {c b}} [r blmpop 0 2 nokey l right count 2]
        set c [blk_client]
        $c blmpop 0 2 k1 k2 left count 3
        blk_wait_blocked 1
        r rpush k2 x y z w
        assert_equal {k2 {x y z}} [$c read]
        assert_equal {w} [r lrange k2 0 -1]
        set c2 [blk_client]
        $c2 blmpop 0 1 k3 right
        blk_wait_blocked 1
        r rpush k3 p q
        assert_equal {k3 q} [$c2 read]
    }

    blk_test "BZPOPMIN / BZPOPMAX return at once when a sorted set has data" {
        r flushall
        r zadd z 0.1 a 5e-324 b 3 c
        assert_equal {z b 5e-324} [r bzpopmin z 0]
        assert_equal {z c 3} [r bzpopmax z 0]
        assert_equal {z a 0.1} [r bzpopmin nokey z 0]
        assert_equal 0 [r exists z]
    }

    blk_test "BZPOPMIN / BZPOPMAX block until ZADD" {
        r flushall
        set a [blk_client]
        $a bzpopmin z 0
        blk_wait_blocked 1
        set b [blk_client]
        $b bzpopmax z 0
        blk_wait_blocked 2
        r zadd z 1 one 2 two 3 three
        assert_equal {z one 1} [$a read]
        assert_equal {z three 3} [$b read]
        assert_equal {two 2} [r zrange z 0 -1 withscores]
    }

    blk_test "BZPOPMIN wire format in RESP2 and RESP3" {
        r flushall
        r zadd z 1.5 m 2 n
        set c [blk_client 1]
        $c bzpopmin z 0
        assert_equal {*3} [$c read]
        assert_equal {$1} [$c read]
        assert_equal {z} [$c read]
        assert_equal {$1} [$c read]
        assert_equal {m} [$c read]
        assert_equal {$3} [$c read]
        assert_equal {1.5} [$c read]
        set d [valkey_client]
        $d hello 3
        assert_equal {z n 2} [$d bzpopmin z 0]
    }

    blk_test "BZMPOP returns at once or blocks, with COUNT" {
        r flushall
        r zadd z 1 a 2 b 3 c
        assert_equal {z {{a 1} {b 2}}} [r bzmpop 0 2 nokey z min count 2]
        set c [blk_client]
        $c bzmpop 0 2 z1 z2 max count 2
        blk_wait_blocked 1
        r zadd z2 1 x 2 y 3 w
        assert_equal {z2 {{w 3} {y 2}}} [$c read]
        assert_equal {x} [r zrange z2 0 -1]
    }

    blk_test "CLIENT UNBLOCK TIMEOUT gives the blocked client a null reply" {
        r flushall
        lassign [blk_client_with_id] c id
        $c blpop l 0
        blk_wait_blocked 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$c read]
        blk_wait_blocked 0
        assert_equal 0 [r client unblock $id]
        lassign [blk_client_with_id] c2 id2
        $c2 bzpopmin z 0
        blk_wait_blocked 1
        assert_equal 1 [r client unblock $id2 timeout]
        assert_equal {} [$c2 read]
    }

    blk_test "CLIENT UNBLOCK ERROR gives the blocked client an error" {
        r flushall
        foreach cmd {{blpop l 0} {blmove l m left left 0} {blmpop 0 1 l left} {bzpopmax z 0} {bzmpop 0 1 z min}} {
            lassign [blk_client_with_id] c id
            $c {*}$cmd
            blk_wait_blocked 1
            assert_equal 1 [r client unblock $id error]
            assert_error "UNBLOCKED client unblocked via CLIENT UNBLOCK" {$c read}
            blk_wait_blocked 0
            # the client keeps working
            $c ping
            assert_equal PONG [$c read]
        }
    }

    blk_test "CLIENT UNBLOCK on a client that is not blocked and argument errors" {
        r flushall
        set id [r client id]
        assert_equal 0 [r client unblock $id]
        assert_equal 0 [r client unblock 999999999]
        assert_error "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR" {r client unblock $id foo}
        assert_error "ERR value is not an integer or out of range" {r client unblock x}
    }

    blk_test "INFO blocked_clients follows blocking and unblocking" {
        r flushall
        assert_equal 0 [s blocked_clients]
        set a [blk_client]
        $a blpop l 0
        set b [blk_client]
        $b bzpopmin z 0
        set c [blk_client]
        $c blmove x y left left 0
        blk_wait_blocked 3
        r rpush l v
        $a read
        blk_wait_blocked 2
        r zadd z 1 m
        $b read
        blk_wait_blocked 1
        $c close
        blk_wait_blocked 0
    }

    blk_test "CLIENT LIST shows the blocked flag" {
        r flushall
        lassign [blk_client_with_id] c id
        $c blpop l 0
        blk_wait_blocked 1
        set line [lsearch -inline [split [r client list] \n] "id=$id *"]
        assert_match {* flags=b *} $line
        assert_match {* cmd=blpop *} $line
        r rpush l x
        $c read
    }

    blk_test "Negative timeout error" {
        r flushall
        foreach cmd {
            {blpop l -1} {brpop l -0.5} {blmove a b left right -1} {brpoplpush a b -1}
            {blmpop -1 1 l left} {bzpopmin z -1} {bzpopmax z -1} {bzmpop -1 1 z min}
        } {
            assert_error "ERR timeout is negative" [list r {*}$cmd]
        }
    }

    blk_test "Timeout that is not a float error" {
        r flushall
        foreach cmd {
            {blpop l x} {brpop l nan} {blmove a b left right abc} {brpoplpush a b 1x}
            {blmpop x 1 l left} {bzpopmin z " 1"} {bzpopmax z ""} {bzmpop x 1 z min}
        } {
            assert_error "ERR timeout is not a float or out of range" [list r {*}$cmd]
        }
        assert_error "ERR timeout is out of range" {r blpop l 1e400}
        assert_error "ERR timeout is out of range" {r blpop l inf}
        assert_error "ERR timeout is out of range" {r blpop l 9223372036854775807}
    }

    blk_test "Other argument errors of the blocking commands" {
        r flushall
        assert_error "ERR wrong number of arguments for 'blpop' command" {r blpop l}
        assert_error "ERR wrong number of arguments for 'bzpopmin' command" {r bzpopmin z}
        assert_error "ERR numkeys should be greater than 0" {r blmpop 0.01 0 l left}
        assert_error "ERR count should be greater than 0" {r blmpop 0.01 1 l left count 0}
        assert_error "ERR syntax error" {r blmpop 0.01 2 l left}
        assert_error "ERR count should be greater than 0" {r bzmpop 0.01 1 z min count 0}
        assert_error "ERR syntax error" {r bzmpop 0.01 1 z foo}
        assert_equal 0 [s blocked_clients]
    }

    blk_test "SWAPDB wakes a client blocked on a key the other db holds (it used to hang)" {
        r flushall
        set c [blk_client]
        $c blpop k 0
        blk_wait_blocked 1
        r select 1
        r rpush k x
        r swapdb 0 1
        r select 0
        assert_equal {k x} [$c read]
        # and a bzpopmin client, with a sorted set coming from db 1
        $c bzpopmin z 0
        blk_wait_blocked 1
        r select 1
        r zadd z 1 m
        r select 0
        r swapdb 1 0
        assert_equal {z m 1} [$c read]
        r flushall
    }

    blk_test "A key made any way wakes its blocked clients: RENAME, MOVE, COPY, RESTORE, STORE" {
        r flushall
        set c [blk_client]
        foreach {make want} {
            {{rpush src x} {rename src k}} {k x}
            {{select 1} {rpush k x} {move k 0} {select 0}} {k x}
            {{rpush src x} {copy src k}} {k x}
            {{rpush src 1} {sort src store k}} {k 1}
            {{rpush src x} {lmove src k left right}} {k x}
        } {
            $c blpop k 0
            blk_wait_blocked 1
            foreach cmd $make { r {*}$cmd }
            assert_equal $want [$c read] $make
            r flushall
        }
        r rpush src x
        set dump [r dump src]
        $c blpop k 0
        blk_wait_blocked 1
        r restore k 0 $dump
        assert_equal {k x} [$c read]
        foreach make {{zunionstore z 1 a} {zrangestore z a 0 -1}} {
            r flushall
            r zadd a 1 m
            $c bzpopmin z 0
            blk_wait_blocked 1
            r {*}$make
            assert_equal {z m 1} [$c read] $make
        }
    }

    blk_test "INFO total_blocking_keys counts the keys waited on, once each" {
        r flushall
        assert_equal 0 [s total_blocking_keys]
        set a [blk_client]
        $a blpop k1 k2 0
        set b [blk_client]
        $b brpop k2 k1 0
        set c [blk_client]
        $c bzpopmin z 0
        blk_wait_blocked 3
        assert_equal 3 [s total_blocking_keys]
        r rpush k1 x
        assert_equal {k1 x} [$a read]
        blk_wait_blocked 2
        assert_equal 3 [s total_blocking_keys]
        $c close
        blk_wait_blocked 1
        assert_equal 2 [s total_blocking_keys]
        r rpush k2 y
        assert_equal {k2 y} [$b read]
        blk_wait_blocked 0
        assert_equal 0 [s total_blocking_keys]
    }

    blk_test "Killed, closed and timed-out waiters and a replica coming and going leave nothing registered" {
        r flushall
        lassign [blk_client_with_id] k kid
        $k blpop gone 0
        set d [blk_client]
        $d blmove gone dst left left 0
        set t [blk_client]
        $t bzpopmin gonez 0.05
        assert_equal {} [$t read]
        blk_wait_blocked 2
        set tap [repl_tap_open]
        assert_equal 1 [r client kill id $kid]
        $d close
        close $tap
        blk_wait_blocked 0
        assert_equal 0 [s total_blocking_keys]
        # a waiter on the same key is served as on a fresh server
        set c [blk_client]
        $c blpop gone 0
        blk_wait_blocked 1
        r rpush gone v
        assert_equal {gone v} [$c read]
        assert_equal 0 [r exists gone dst]
    }

    # Issue 27: a waiter's key made ready by SWAPDB (or EXEC) while it holds an expired key is
    # only looked at: the key stays until a command touches it, which then deletes and
    # propagates it. This node used to delete it during the wake-up check, so its UNLINK went
    # down the stream ahead of the commands that followed the SWAPDB; a suite that checked
    # that stream and stopped halfway left its connection in the other db, and a later
    # LPUSH bob{t} + RENAME bob{t} foo{t} then went to the wrong db: the BLPOP foo{t} waiter
    # looked hung. The RENAME wake-up is checked again after the sequence.
    blk_test "SWAPDB onto an expired key keeps the waiter blocked and leaves the key to its next access; RENAME then wakes a waiter" {
        r flushall
        r debug set-active-expire 0
        set tap [repl_tap_open]
        try {
            lassign [blk_client_with_id] c id
            $c blpop k 0
            blk_wait_blocked 1
            r select 1
            r rpush k hello
            r pexpire k 50
            set expired_at [expr {[clock milliseconds] + 60}]
            wait_for_condition 100 10 {[clock milliseconds] > $expired_at}
            r swapdb 0 1
            assert_match {* flags=b *} [r client list id $id]
            r set marker 1
            set stream {}
            for {set i 0} {$i < 5} {incr i} {
                lappend stream [string tolower [lrange [repl_tap_next $tap] 0 1]]
            }
            assert_equal {{select 1} {rpush k} {pexpireat k} {swapdb 0} {set marker}} $stream
            assert_equal 1 [r client unblock $id]
            assert_equal {} [$c read]
            # the waiter's db holds the expired key: its next access deletes it
            $c exists k
            assert_equal 0 [$c read]
            assert_equal {select 0} [string tolower [repl_tap_next $tap]]
            assert_equal {unlink k} [string tolower [repl_tap_next $tap]]
        } finally {
            close $tap
            r debug set-active-expire 1
        }
        r select 0
        $c blpop foo{t} 0
        blk_wait_blocked 1
        r lpush bob{t} a b c
        r rename bob{t} foo{t}
        assert_equal {foo{t} c} [$c read]
        assert_equal {b a} [r lrange foo{t} 0 -1]
    }

    blk_test "EXEC that pushes a key and lets it expire: the waiter runs again, deletes it and blocks again" {
        r flushall
        r debug set-active-expire 0
        set tap [repl_tap_open]
        try {
            # the stream's db is chosen before the transaction
            r set before 1
            assert_equal {select 0} [string tolower [repl_tap_next $tap]]
            assert_equal {set before 1} [repl_tap_next $tap]
            lassign [blk_client_with_id] c id
            $c brpop k 0
            blk_wait_blocked 1
            r multi
            r rpush k hello
            r pexpire k 100
            r debug sleep 0.2
            r exec
            # alive at EXEC's clock: the waiter runs, finds it expired by now, blocks again
            assert_match {* flags=b *} [r client list id $id]
            r set marker 1
            set stream {}
            for {set i 0} {$i < 6} {incr i} {
                lappend stream [string tolower [lrange [repl_tap_next $tap] 0 1]]
            }
            assert_equal {multi {rpush k} {pexpireat k} exec {unlink k} {set marker}} $stream
            assert_equal 1 [r client unblock $id]
            assert_equal {} [$c read]
            assert_equal 0 [r exists k]
        } finally {
            close $tap
            r debug set-active-expire 1
        }
    }

    # Issue 27: SWAPDB wakes the waiter (the key was alive at EXEC's clock); the waiter's own
    # run, in its db, finds the key expired, deletes it and blocks again. Its UNLINK follows
    # the EXEC, under the waiter's db, before the next command of the connection that swapped.
    blk_test "SWAPDB inside EXEC wakes a waiter whose run finds the key expired: its UNLINK follows EXEC in its db" {
        r flushall
        r debug set-active-expire 0
        set tap [repl_tap_open]
        try {
            # the stream's db is chosen before the transaction
            r set before 1
            assert_equal {select 0} [string tolower [repl_tap_next $tap]]
            assert_equal {set before 1} [repl_tap_next $tap]
            lassign [blk_client_with_id] c id
            $c brpop k 0
            blk_wait_blocked 1
            r multi
            r select 1
            r rpush k hello
            r pexpire k 100
            r debug sleep 0.2
            r swapdb 0 1
            assert_equal {OK 1 1 OK OK} [r exec]
            assert_match {* flags=b *} [r client list id $id]
            r set marker 1
            set stream {}
            for {set i 0} {$i < 10} {incr i} {
                lappend stream [string tolower [lrange [repl_tap_next $tap] 0 1]]
            }
            assert_equal {multi {select 1} {rpush k} {pexpireat k} {swapdb 0} exec\
                {select 0} {unlink k} {select 1} {set marker}} $stream
            assert_equal 1 [r client unblock $id]
            assert_equal {} [$c read]
            assert_equal 0 [r exists k]
            r select 0
            assert_equal 0 [r exists k]
        } finally {
            close $tap
            r select 0
            r debug set-active-expire 1
        }
    }
}
