# A full sync that breaks midway, for each repl-diskless-load mode: the primary is killed, or
# it cuts its link to the replica (CLIENT KILL TYPE replica), while the replica receives the
# snapshot. The replica's data must stay exactly as it was (DEBUG DIGEST, values) and be
# served; a later sync that completes replaces it. Every mode parses the snapshot as it arrives
# into staging databases swapped in at its end (repl/staged_load.h), under the snapshot's hash
# seed while the old data keeps its own; as in Valkey 8, on-empty-db writes no file only into a
# node without keys, and disabled always writes one (which becomes dbfilename). Also with
# Debian's redis-server 7.0 as the primary.
# Valkey 8.0.1 passes all but the swapdb cases: it parses a swapdb snapshot straight from the
# socket while it loads (replies -LOADING, INFO shows no master_sync_read_bytes), where ours
# serves the old data meanwhile; both show async_loading:1 until the snapshot is in or the
# transfer breaks, and after the break Valkey 8 also serves the old data untouched.

set ::sa_redis_bin /usr/bin/redis-server

proc sa_info {lvl field} {
    if {$lvl == 0} { return [info_field [r info] $field] }
    return [info_field [r $lvl info] $field]
}

# Data of several types in two databases on the replica-to-be (level 0); returns its digest.
proc sa_seed_replica {} {
    r flushall
    r set old:str keep
    r rpush old:list a b c
    r hset old:hash f1 v1 f2 v2
    r zadd old:zset 1 one 2 two
    r select 3
    r set old:db3 three
    r select 0
    return [r debug digest]
}

proc sa_assert_old_data {digest what} {
    assert_equal $digest [r debug digest] "replica data changed $what"
    assert_equal keep [r get old:str]
    assert_equal {a b c} [r lrange old:list 0 -1]
    assert_equal v2 [r hget old:hash f2]
    assert_equal 4 [r dbsize]
    r select 3
    assert_equal three [r get old:db3]
    r select 0
}

# The primary (level -1) holds 3000 keys and writes its snapshot slowly: 1 ms a key.
proc sa_slow_primary {} {
    r -1 flushall
    r -1 debug populate 3000 new 100
    r -1 config set rdb-key-save-delay 1000
}

# Until the replica (level 0) has received part of the snapshot payload.
proc sa_wait_payload {} {
    wait_for_condition 400 25 {
        [sa_info 0 master_sync_in_progress] == 1 && [sa_info 0 master_sync_read_bytes] > 0
    } else {
        fail "no snapshot payload reached the replica\n[::srv::file_tail [srv 0 log] 15]"
    }
}

# Against redis 7.0 (another DEBUG DIGEST, another DUMP version) the primary's strings are
# compared with MGET.
proc sa_same_data {} {
    if {![string match *7.0.* [sa_info -1 redis_version]]} {
        return [expr {[r debug digest] eq [r -1 debug digest]}]
    }
    if {[r dbsize] != [r -1 dbsize]} { return 0 }
    set keys [r -1 keys *]
    return [expr {[r mget {*}$keys] eq [r -1 mget {*}$keys]}]
}

proc sa_wait_same_data {} {
    wait_for_condition 600 50 {
        [sa_info 0 master_link_status] eq "up" && [sa_same_data]
    } else {
        fail "the replica never got the primary's data\n[::srv::file_tail [srv 0 log] 15]"
    }
}

set ::sa_primary_conf {repl-diskless-sync yes repl-diskless-sync-delay 0}

foreach mode {disabled on-empty-db swapdb} {
    start_server [list tags {repl} overrides $::sa_primary_conf] {
        start_server [list tags {repl} overrides [list repl-diskless-load $mode dbfilename rep.rdb]] {
            test "repl-diskless-load $mode: link cut mid-transfer, old data kept and served; a complete sync replaces it" {
                set digest [sa_seed_replica]
                sa_slow_primary
                set full [sa_info -1 sync_full]
                r replicaof 127.0.0.1 [srv -1 port]
                sa_wait_payload
                sa_assert_old_data $digest "while receiving the snapshot"
                # swapdb serves the old data while the new arrives: INFO says so (Valkey 8's
                # async_loading), the other modes never do.
                assert_equal [expr {$mode eq "swapdb"}] [sa_info 0 async_loading]
                assert_equal 0 [sa_info 0 loading]
                assert_morethan [r -1 client kill type replica] 0
                # The replica reconnects at once and a new (slow) transfer starts: until it ends,
                # the old data is what it serves.
                wait_for_condition 400 25 {[sa_info -1 sync_full] > $full + 1}
                sa_assert_old_data $digest "by the cut transfer"
                assert_no_match "*Finished with success*" [::srv::file_tail [srv 0 log] 200]
                assert_equal {} [glob -nocomplain -directory [srv 0 dir] rep.rdb]
                # Fast snapshots from now on; cut the slow one.
                r -1 config set rdb-key-save-delay 0
                r -1 client kill type replica
                sa_wait_same_data
                assert_equal 3000 [r dbsize]
                assert_equal 0 [r exists old:str]
                assert_equal {} [glob -nocomplain -directory [srv 0 dir] temp-*.rdb]
                assert_equal 0 [sa_info 0 async_loading]
            }
        }
    }

    start_server [list tags {repl} overrides $::sa_primary_conf] {
        start_server [list tags {repl} overrides [list repl-diskless-load $mode]] {
            test "repl-diskless-load $mode: primary killed mid-transfer, old data kept and served; the restarted primary's sync replaces it" {
                set digest [sa_seed_replica]
                sa_slow_primary
                r replicaof 127.0.0.1 [srv -1 port]
                sa_wait_payload
                kill_server -1
                wait_for_condition 200 25 {
                    [sa_info 0 master_link_status] eq "down" && [sa_info 0 master_sync_in_progress] == 0
                }
                assert_equal 0 [sa_info 0 async_loading]
                sa_assert_old_data $digest "by the broken transfer"
                # Still served a while later, as the replica retries the dead primary.
                after 1200
                sa_assert_old_data $digest "while retrying"
                assert_equal {} [glob -nocomplain -directory [srv 0 dir] temp-*.rdb]
                # The primary comes back empty (no save points): one key written, then synced.
                restart_server 1 -1
                r -1 set new:key 1
                sa_wait_same_data
                assert_equal 1 [r dbsize]
                assert_equal 1 [r get new:key]
            }
        }
    }
}

# Which way the snapshot goes in, as Valkey 8 chooses: through a file that becomes
# dbfilename, or parsed from memory.
foreach {mode seeded way} {
    on-empty-db 1 disk
    on-empty-db 0 parser
    swapdb 1 parser
    disabled 0 disk
} {
    start_server [list tags {repl} overrides $::sa_primary_conf] {
        start_server [list tags {repl} overrides [list repl-diskless-load $mode dbfilename rep.rdb]] {
            set what [expr {$seeded ? "a replica with keys" : "an empty replica"}]
            test "repl-diskless-load $mode, $what: the snapshot goes to $way" {
                r -1 debug populate 100 new 10
                if {$seeded} { sa_seed_replica }
                r replicaof 127.0.0.1 [srv -1 port]
                sa_wait_same_data
                assert_match "*receiving streamed RDB from primary with EOF to $way*" \
                    [::srv::file_tail [srv 0 log] 100]
                set file [file exists [file join [srv 0 dir] rep.rdb]]
                assert_equal [expr {$way eq "disk"}] $file "dbfilename written"
            }
        }
    }
}

# One long-lived replica through full syncs in a row, every mode, each cut twice mid-transfer
# and then completed: after each, nothing of a transfer is left behind (no temp file, no
# loading state, the staged data freed: used_memory after the last complete sync is what it
# was after the first).
start_server [list tags {repl} overrides $::sa_primary_conf] {
    start_server [list tags {repl} overrides {dbfilename rep.rdb}] {
        test "One replica, full syncs in a row in every mode, cut and complete: nothing left behind" {
            r -1 flushall
            r -1 debug populate 20000 new 100
            set mem {}
            set i 0
            foreach mode {disabled on-empty-db swapdb disabled swapdb on-empty-db} {
                incr i
                r config set repl-diskless-load $mode
                r -1 config set rdb-key-save-delay 100   ;# 2 s a snapshot
                r -1 debug change-repl-id               ;# the next sync is a full one
                if {$i == 1} {
                    r replicaof 127.0.0.1 [srv -1 port]
                } else {
                    r -1 client kill type replica
                }
                set before {}
                foreach cut {1 2} {
                    sa_wait_payload
                    if {$before eq {}} {
                        # The link is down: the data this replica serves holds still.
                        set before [r debug digest]
                        r -1 set iter $i
                    }
                    assert_equal $before [r debug digest] "sync $i ($mode), cut $cut"
                    set full [sa_info -1 sync_full]
                    r -1 client kill type replica
                    wait_for_condition 400 25 {[sa_info -1 sync_full] > $full}
                }
                r -1 config set rdb-key-save-delay 0
                r -1 client kill type replica
                sa_wait_same_data
                assert_equal $i [r get iter]
                assert_equal {} [glob -nocomplain -directory [srv 0 dir] temp-*.rdb]
                assert_equal 0 [sa_info 0 loading]
                assert_equal 0 [sa_info 0 async_loading]
                wait_for_condition 200 10 {[sa_info 0 lazyfree_pending_objects] == 0}
                lappend mem [sa_info 0 used_memory]
            }
            set first [lindex $mem 0]
            set last [lindex $mem end]
            assert {abs($last - $first) < $first / 20} "used_memory after each sync: $mem"
        }
    }
}

# Our node as the replica of Debian's redis-server 7.0 (its defaults, plus a slow snapshot).
if {![file executable $::sa_redis_bin]} {
    test "Broken full sync from a redis-server 7.0 primary" { require_peer $::sa_redis_bin redis-server } {repl interop}
    return
}
set ::sa_tested_server $::cfg(server)
foreach mode {swapdb disabled} {
    set ::cfg(server) $::sa_redis_bin
    try {
        start_server [list tags {repl interop} overrides {repl-diskless-sync yes}] {
            set ::cfg(server) $::sa_tested_server
            start_server [list tags {repl interop} overrides [list repl-diskless-load $mode]] {
                test "repl-diskless-load $mode, primary redis-server 7.0: link cut mid-transfer, old data kept; a complete sync replaces it" {
                    assert_match *7.0.* [sa_info -1 redis_version]
                    set digest [sa_seed_replica]
                    sa_slow_primary
                    set full [sa_info -1 sync_full]
                    r replicaof 127.0.0.1 [srv -1 port]
                    sa_wait_payload
                    sa_assert_old_data $digest "while receiving the snapshot"
                    assert_morethan [r -1 client kill type replica] 0
                    wait_for_condition 400 25 {
                        [sa_info -1 sync_full] > $full + 1 && [sa_info 0 master_sync_read_bytes] > 0
                    }
                    sa_assert_old_data $digest "by the cut transfer"
                    r -1 config set rdb-key-save-delay 0
                    r -1 client kill type replica
                    sa_wait_same_data
                    assert_equal 3000 [r dbsize]
                    assert_equal 0 [r exists old:str]
                }
            }
        }
    } finally {
        set ::cfg(server) $::sa_tested_server
    }
}
