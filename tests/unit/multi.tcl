# Transactions: MULTI EXEC DISCARD WATCH UNWATCH.

proc multi_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [multi_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [multi_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc multi_raw {c args} {
    $c {*}$args
    return [multi_raw_reply $c]
}

proc multi_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

# Every test starts on a fresh cached connection, so that a transaction left open by a failed
# test cannot leak into the next one, and all run against one long-lived server: each ends
# with nothing left blocked or WATCHed (assert_server_idle).
proc multi_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body\nassert_server_idle"]
}

start_server {tags {multi}} {
    multi_test "MULTI / EXEC runs the queued commands in order" {
        r flushall
        assert_equal OK [r multi]
        assert_equal QUEUED [r set a 1]
        assert_equal QUEUED [r incr a]
        assert_equal QUEUED [r get a]
        assert_equal QUEUED [r mget a nokey]
        assert_equal {OK 2 2 {2 {}}} [r exec]
        assert_equal 2 [r get a]
    }

    multi_test "MULTI / EXEC on the wire" {
        r flushall
        set c [multi_raw_client]
        assert_equal "+OK" [multi_raw $c multi]
        assert_equal "+QUEUED" [multi_raw $c set a 1]
        assert_equal "+QUEUED" [multi_raw $c incr a]
        assert_equal "+QUEUED" [multi_raw $c get nokey]
        assert_equal {*3 +OK :2 $-1} [multi_raw $c exec]
        $c close
    }

    multi_test "EXEC of an empty transaction" {
        r flushall
        assert_equal OK [r multi]
        assert_equal {} [r exec]
        set c [multi_raw_client]
        multi_raw $c multi
        assert_equal "*0" [multi_raw $c exec]
        $c close
    }

    multi_test "Commands are not executed before EXEC" {
        r flushall
        set c [valkey_client]
        r multi
        r set a 1
        assert_equal 0 [$c exists a]
        r exec
        assert_equal 1 [$c exists a]
        $c close
    }

    multi_test "DISCARD" {
        r flushall
        assert_equal OK [r multi]
        assert_equal QUEUED [r set a 1]
        assert_equal OK [r discard]
        assert_equal 0 [r exists a]
        assert_error "ERR EXEC without MULTI" {r exec}
        # the connection works normally afterwards
        assert_equal OK [r set a 2]
        assert_equal 2 [r get a]
    }

    multi_test "EXEC and DISCARD without MULTI" {
        assert_error "ERR EXEC without MULTI" {r exec}
        assert_error "ERR DISCARD without MULTI" {r discard}
        assert_equal PONG [r ping]
    }

    multi_test "MULTI, EXEC and DISCARD arity" {
        assert_error "ERR wrong number of arguments for 'multi' command" {r multi x}
        # an EXEC rejected before running replies EXECABORT even outside MULTI
        assert_error "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command" {r exec x}
        assert_error "ERR wrong number of arguments for 'discard' command" {r discard x}
        assert_error "ERR wrong number of arguments for 'watch' command" {r watch}
        assert_error "ERR wrong number of arguments for 'unwatch' command" {r unwatch x}
    }

    multi_test "EXEC with extra arguments inside MULTI discards the transaction" {
        r flushall
        r multi
        r set a 1
        assert_error "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command" {r exec x}
        assert_error "ERR EXEC without MULTI" {r exec}
        assert_equal 0 [r exists a]
    }

    multi_test "Unknown command while queueing aborts the transaction" {
        r flushall
        r multi
        assert_equal QUEUED [r set a 1]
        assert_error "ERR unknown command 'foo', with args beginning with: " {r foo}
        assert_error "ERR unknown command 'bar', with args beginning with: 'x' 'y' " {r bar x y}
        assert_equal QUEUED [r set b 1]
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 0 [r exists a]
        assert_equal 0 [r exists b]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    multi_test "Wrong arity while queueing aborts the transaction" {
        r flushall
        r multi
        assert_equal QUEUED [r set a 1]
        assert_error "ERR wrong number of arguments for 'set' command" {r set b}
        assert_error "ERR wrong number of arguments for 'get' command" {r get}
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 0 [r exists a]
    }

    multi_test "DISCARD after a queueing error" {
        r flushall
        r multi
        assert_error "ERR unknown command 'foo', with args beginning with: " {r foo}
        assert_equal OK [r discard]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    multi_test "EXECABORT on the wire" {
        set c [multi_raw_client]
        multi_raw $c multi
        assert_equal "-ERR unknown command 'foo', with args beginning with: 'a' " [multi_raw $c foo a]
        assert_equal "-EXECABORT Transaction discarded because of previous errors." [multi_raw $c exec]
        $c close
    }

    multi_test "Runtime errors inside EXEC do not stop the other commands" {
        r flushall
        set c [multi_raw_client]
        multi_raw $c multi
        multi_raw $c set x abc
        multi_raw $c incr x
        multi_raw $c set y 1
        multi_raw $c select 99
        multi_raw $c incr y
        assert_equal {*5 +OK -ERR value is not an integer or out of range +OK -ERR DB index is out of range :2} \
            [multi_raw $c exec]
        $c close
        assert_equal {abc 2} [r mget x y]
    }

    multi_test "MULTI inside MULTI flags the transaction" {
        r flushall
        assert_equal OK [r multi]
        assert_error "ERR Command not allowed inside a transaction" {r multi}
        assert_equal QUEUED [r set a 1]
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 0 [r exists a]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    multi_test "WATCH inside MULTI flags the transaction" {
        r flushall
        assert_equal OK [r multi]
        assert_error "ERR Command not allowed inside a transaction" {r watch a}
        assert_equal QUEUED [r set a 1]
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 0 [r exists a]
    }

    multi_test "UNWATCH inside MULTI is queued" {
        r flushall
        r multi
        assert_equal QUEUED [r unwatch]
        assert_equal {OK} [r exec]
    }

    multi_test "WATCH: no modification, EXEC runs" {
        r flushall
        r set k 1
        assert_equal OK [r watch k]
        r multi
        r incr k
        assert_equal {2} [r exec]
    }

    multi_test "WATCH: another client modifies the key, EXEC returns null" {
        r flushall
        r set k 1
        set c [valkey_client]
        assert_equal OK [r watch k]
        $c set k 2
        r multi
        assert_equal QUEUED [r incr k]
        assert_equal {} [r exec]
        assert_equal 2 [r get k]
        $c close
    }

    multi_test "Aborted EXEC is a null array in RESP2 and a null in RESP3" {
        r flushall
        r set k 1
        set c [multi_raw_client]
        multi_raw $c watch k
        r set k 2
        multi_raw $c multi
        multi_raw $c get k
        assert_equal {*-1} [multi_raw $c exec]
        multi_raw $c hello 3
        multi_raw $c watch k
        r set k 3
        multi_raw $c multi
        multi_raw $c get k
        assert_equal {_} [multi_raw $c exec]
        $c close
    }

    multi_test "WATCH: the key is modified by the same client before MULTI" {
        r flushall
        r set k 1
        r watch k
        r set k 2
        r multi
        r get k
        assert_equal {} [r exec]
    }

    multi_test "WATCH: writing the same value still aborts" {
        r flushall
        r set k v
        set c [valkey_client]
        r watch k
        $c set k v
        r multi
        r get k
        assert_equal {} [r exec]
        $c close
    }

    multi_test "WATCH: a read by another client does not abort" {
        r flushall
        r set k v
        set c [valkey_client]
        r watch k
        $c get k
        $c exists k
        $c set other 1
        r multi
        r get k
        assert_equal {v} [r exec]
        $c close
    }

    multi_test "WATCH: EXPIRE and DEL by another client abort" {
        r flushall
        set c [valkey_client]
        r set k v
        r watch k
        $c expire k 100
        r multi
        r ping
        assert_equal {} [r exec]
        r watch k
        $c del k
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    multi_test "WATCH a missing key that another client then sets" {
        r flushall
        set c [valkey_client]
        r watch nokey
        $c set nokey 1
        r multi
        r set nokey 2
        assert_equal {} [r exec]
        assert_equal 1 [r get nokey]
        $c close
    }

    multi_test "WATCH a missing key that stays missing" {
        r flushall
        set c [valkey_client]
        r watch nokey
        $c set other 1
        $c del nokey
        r multi
        r set nokey 2
        assert_equal {OK} [r exec]
        $c close
    }

    multi_test "WATCH several keys, one of them modified" {
        r flushall
        r mset a 1 b 2 c 3
        set c [valkey_client]
        assert_equal OK [r watch a b]
        assert_equal OK [r watch c]
        $c incr c
        r multi
        r get a
        assert_equal {} [r exec]
        $c close
    }

    multi_test "UNWATCH forgets the watched keys" {
        r flushall
        r set k 1
        set c [valkey_client]
        r watch k
        assert_equal OK [r unwatch]
        $c set k 2
        r multi
        r get k
        assert_equal {2} [r exec]
        $c close
    }

    multi_test "EXEC and DISCARD unwatch the keys" {
        r flushall
        r set k 1
        set c [valkey_client]
        r watch k
        r multi
        r get k
        assert_equal {1} [r exec]
        $c set k 2
        r multi
        r get k
        assert_equal {2} [r exec]

        r watch k
        r multi
        r discard
        $c set k 3
        r multi
        r get k
        assert_equal {3} [r exec]

        r watch k
        $c set k 4
        r multi
        r get k
        assert_equal {} [r exec]
        # the aborted EXEC also unwatched
        $c set k 5
        r multi
        r get k
        assert_equal {5} [r exec]
        $c close
    }

    multi_test "WATCH a key in another database is not touched by a write in this one" {
        r flushall
        set c [valkey_client]
        r select 1
        r set k 1
        r watch k
        $c set k 2
        r multi
        r get k
        assert_equal {1} [r exec]
        r select 0
        $c close
    }

    multi_test "WATCH a key that expires before EXEC" {
        r flushall
        r debug set-active-expire 0
        try {
            # the key must be alive when WATCHed and expired (not deleted) by EXEC
            wait_until_ms [within_ttl 300 {r set k v px $ttl} {r watch k} {r unwatch}]
            r multi
            r ping
            assert_equal {} [r exec]
        } finally {
            r debug set-active-expire 1
        }
    }

    multi_test "WATCH a key that is actively expired before EXEC" {
        r flushall
        within_ttl 300 {r set k v px $ttl} {r watch k} {r unwatch}
        wait_for_condition 100 50 {[r dbsize] == 0}
        r multi
        r ping
        assert_equal {} [r exec]
    }

    multi_test "WATCH a key that was already logically expired" {
        r flushall
        r debug set-active-expire 0
        try {
            r set k v px 10
            after 50
            r watch k
            r multi
            r ping
            assert_equal {PONG} [r exec]
        } finally {
            r debug set-active-expire 1
        }
    }

    multi_test "WATCH of a key already expired: DEL, FLUSHDB, SWAPDB are no change; a new value is" {
        # Valkey 8's rules: the key was logically gone when watched.
        r flushall
        r debug set-active-expire 0
        set other [valkey_client]
        try {
            foreach {what cmd expect} {
                del {del k} {PONG}
                flushdb {flushdb} {PONG}
                swapdb {swapdb 0 1} {PONG}
                set {set k new} {}
            } {
                r set k v px 5
                after 30
                r watch k
                $other {*}$cmd
                r multi
                r ping
                assert_equal $expect [r exec] $what
                if {$what eq "swapdb"} { $other swapdb 0 1 }
                r flushall
            }
        } finally {
            r debug set-active-expire 1
            $other close
        }
    }

    multi_test "FLUSHDB by another client aborts a transaction watching an existing key" {
        r flushall
        set c [valkey_client]
        r set k v
        r watch k
        $c flushdb
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    multi_test "FLUSHDB does not abort a transaction watching a missing key" {
        r flushall
        set c [valkey_client]
        r set other v
        r watch nokey
        $c flushdb
        r multi
        r ping
        assert_equal {PONG} [r exec]
        $c close
    }

    multi_test "FLUSHALL aborts a transaction watching a key in another database" {
        r flushall
        set c [valkey_client]
        r select 3
        r set k v
        r watch k
        $c select 5
        $c flushall
        r multi
        r ping
        assert_equal {} [r exec]
        r select 0
        $c close
    }

    multi_test "FLUSHDB of another database does not abort" {
        r flushall
        set c [valkey_client]
        r set k v
        r watch k
        $c select 1
        $c set x 1
        $c flushdb
        r multi
        r get k
        assert_equal {v} [r exec]
        $c close
    }

    multi_test "SWAPDB aborts a transaction watching a key that exists in either database" {
        r flushall
        set c [valkey_client]
        r set k v
        r watch k
        $c swapdb 0 1
        r multi
        r ping
        assert_equal {} [r exec]

        r flushall
        # missing here, present in the other database
        r select 1
        r set k v
        r select 0
        r watch k
        $c swapdb 0 1
        r multi
        r ping
        assert_equal {} [r exec]
        $c close
    }

    multi_test "SWAPDB does not abort when the watched key is missing in both databases" {
        r flushall
        set c [valkey_client]
        r set other v
        r watch k
        $c swapdb 0 1
        r multi
        r ping
        assert_equal {PONG} [r exec]
        $c close
    }

    multi_test "SWAPDB of two other databases does not abort" {
        r flushall
        set c [valkey_client]
        r set k v
        r watch k
        $c swapdb 1 2
        r multi
        r get k
        assert_equal {v} [r exec]
        $c close
    }

    multi_test "SELECT inside MULTI" {
        r flushall
        r select 0
        r multi
        assert_equal QUEUED [r select 1]
        assert_equal QUEUED [r set k db1]
        assert_equal QUEUED [r select 2]
        assert_equal QUEUED [r set k db2]
        assert_equal {OK OK OK OK} [r exec]
        # the connection stays in the last selected database
        assert_equal db2 [r get k]
        r select 1
        assert_equal db1 [r get k]
        r select 0
        assert_equal 0 [r exists k]
    }

    multi_test "EXEC in RESP3" {
        r flushall
        set c [multi_raw_client]
        multi_raw $c hello 3
        assert_equal "+OK" [multi_raw $c multi]
        assert_equal "+QUEUED" [multi_raw $c set k v]
        assert_equal "+QUEUED" [multi_raw $c get k]
        assert_equal "+QUEUED" [multi_raw $c get nokey]
        assert_equal "+QUEUED" [multi_raw $c incrbyfloat f 1.5]
        assert_equal {*4 +OK $1 v _ $3 1.5} [multi_raw $c exec]
        multi_raw $c multi
        assert_equal "*0" [multi_raw $c exec]
        $c close
    }

    multi_test "EXEC in RESP3 with the client library" {
        r flushall
        set c [valkey_client]
        $c hello 3
        $c multi
        $c set k v
        $c get k
        $c exists k
        assert_equal {OK v 1} [$c exec]
        $c close
    }

    multi_test "Transactions are isolated from other clients" {
        r flushall
        set c [valkey_client]
        r multi
        r set k 1
        $c set k 100
        r incr k
        r incr k
        assert_equal {OK 2 3} [r exec]
        assert_equal 3 [$c get k]
        $c close
    }

    multi_test "Many commands in one transaction" {
        r flushall
        r multi
        for {set i 0} {$i < 500} {incr i} { r incr counter }
        set res [r exec]
        assert_equal 500 [llength $res]
        assert_equal 500 [lindex $res end]
        assert_equal 500 [r get counter]
    }

    multi_test "REPLICAOF inside MULTI: applied at EXEC, the node is a replica after it" {
        start_server {} {
            set other [srv 0 port]
            r -1 multi
            r -1 set multi:before 1
            r -1 replicaof 127.0.0.1 $other
            r -1 set multi:after 2
            assert_equal {OK OK OK} [r -1 exec]
            assert_equal slave [lindex [r -1 role] 0]
            assert_error "READONLY *" {r -1 set multi:later 3}
            r -1 replicaof no one
            assert_equal master [lindex [r -1 role] 0]
        }
    }
}
