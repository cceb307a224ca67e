# Hash seeds and scan cursors outside cluster mode (issue 11; cursor layout:
# src/commands/common.h): a replica takes its primary's seed in the full sync so cursors
# continue across the two; the hash-seed directive (Valkey 9) gives nodes the same seed by
# configuration and is never replaced by a primary's; a restart from dump.rdb keeps the seed;
# a cursor from another seed, a Redis 7.0 server's included, is refused with the
# foreign-cursor error.

set ::ss_foreign "ERR invalid cursor: it was issued by a node with another hash seed (another shard, or this node before its seed changed); start the scan again with cursor 0"
set ::ss_redis7 /usr/bin/redis-server

proc ss_fill_hash {lvl key n} {
    set c [valkey_client $lvl]
    $c deferred 1
    for {set i 0} {$i < $n} {incr i} { $c hset $key f$i $i }
    for {set i 0} {$i < $n} {incr i} { $c read }
    $c close
}

# HSCAN of key alternating between the servers at levels `lvls`; the distinct fields seen.
proc ss_hscan_alternating {key lvls} {
    set cursor 0
    set step 0
    set seen [dict create]
    while 1 {
        set lvl [lindex $lvls [expr {$step % [llength $lvls]}]]
        lassign [r_at $lvl hscan $key $cursor count 10] cursor elems
        foreach {f v} $elems { dict set seen $f 1 }
        incr step
        if {$cursor == 0} break
    }
    return [dict size $seen]
}

proc ss_wait_synced {} {
    wait_for_condition 200 50 {
        [info_field [r info replication] master_link_status] eq "up" &&
        [info_field [r info replication] master_repl_offset] == [info_field [r -1 info replication] master_repl_offset]
    } else { fail "the replica never caught up" }
}

set ::ss_conf {repl-diskless-sync-delay 0 hash-max-listpack-entries 0}

start_server [list tags {repl} overrides $::ss_conf] {
    start_server [list overrides $::ss_conf] {
        test "A replica takes its primary's seed: HSCAN continued on either returns every field" {
            ss_fill_hash -1 h 2000
            r replicaof 127.0.0.1 [srv -1 port]
            ss_wait_synced
            assert_equal 2000 [ss_hscan_alternating h {-1 0}]
            assert_equal 2000 [ss_hscan_alternating h {0 -1}]
        }

        test "The primary's seed survives its restart from dump.rdb: an old cursor goes on" {
            set cur [lindex [r -1 hscan h 0 count 10] 0]
            assert_equal OK [r -1 save]
            r replicaof no one
            # restart the outer server (the primary) in place
            set s [lindex $::srv::stack end-1]
            ::srv::stop [dict get $s pid]
            dict set s pid [::srv::spawn $s]
            dict set s client {}
            lset ::srv::stack end-1 $s
            ::srv::wait_ready $s
            assert_equal 2000 [r -1 hlen h]
            assert_equal 2 [llength [r -1 hscan h $cur count 10]]
            # and still the replica's: both kept the one seed
            assert_equal 2 [llength [r hscan h $cur count 10]]
        }
    }
}

start_server [list tags {repl} overrides [concat $::ss_conf {hash-seed shard-a}]] {
    start_server [list overrides [concat $::ss_conf {hash-seed shard-a}]] {
        test "hash-seed: shown by CONFIG GET by its name, immutable, left out of patterns" {
            assert_equal {hash-seed shard-a} [r config get hash-seed]
            assert_match "*can't set immutable config*" [assert_error * {r config set hash-seed x}]
            # Valkey 8 has no such directive: a tool that sets back all CONFIG GET * lists
            # (as Valkey 8's own introspection test does) must not meet an immutable one
            assert_equal {} [r config get hash-s*]
            assert_equal -1 [lsearch [r config get *] hash-seed]
        }

        test "hash-seed: two unrelated nodes with the same value continue each other's cursors" {
            ss_fill_hash -1 h 1500
            ss_fill_hash 0 h 1500
            assert_equal 1500 [ss_hscan_alternating h {-1 0}]
        }
    }
    start_server [list overrides [concat $::ss_conf {hash-seed other}]] {
        test "hash-seed on a replica: the primary's seed never replaces it, so the primary's cursors are refused" {
            r replicaof 127.0.0.1 [srv -1 port]
            ss_wait_synced
            assert_equal 1500 [r hlen h]
            set cur [lindex [r -1 hscan h 0 count 10] 0]
            assert_equal $::ss_foreign [assert_error * {r hscan h $cur}]
            assert_equal $::ss_foreign [assert_error * {r scan $cur}]
            # its own cursors work, and 0 always starts
            set own [lindex [r hscan h 0 count 10] 0]
            assert_equal 2 [llength [r hscan h $own count 10]]
        }
    }
}

if {![file executable $::ss_redis7]} {
    test "A Redis 7.0 cursor is refused" { require_peer $::ss_redis7 redis-server }
} else {
    start_server [list overrides $::ss_conf] {
        set ::ss_tested $::cfg(server)
        set ::cfg(server) $::ss_redis7
        try {
            start_server [list overrides $::ss_conf] {
                test "A cursor from a Redis 7.0 server is refused, not answered with part of a scan" {
                    assert_match 7.0.* [info_field [r info server] redis_version]
                    ss_fill_hash 0 h 500
                    ss_fill_hash -1 h 500
                    set cur [lindex [r hscan h 0 count 10] 0]
                    assert [expr {$cur != 0}]
                    assert_equal $::ss_foreign [assert_error * {r -1 hscan h $cur}]
                }
            }
        } finally {
            set ::cfg(server) $::ss_tested
        }
    }
}
