# While a node loads its data (the snapshot at start, DEBUG RELOAD) it serves events between
# keys, as Valkey 8 does: clients get -LOADING unless their command is flagged loading (INFO,
# CONFIG...), INFO shows loading:1, and nothing it runs meanwhile may cost the data being
# loaded: SHUTDOWN does not save over the file, DEBUG RELOAD is refused, an AOF switched on
# waits for the load's end. key-load-delay (microseconds per key) makes the load last;
# loading-process-events-interval-bytes 1024 serves events often.

# A client of the innermost server once it accepts connections (it loads meanwhile).
proc ld_client {} {
    set c {}
    wait_for_condition 200 10 {![catch {valkey_client} c]} else {
        fail "the server never accepted a connection"
    }
    $c timeout 10000
    return $c
}

proc ld_loading {c} { return [info_field [$c info persistence] loading] }

proc ld_wait_loaded {c} {
    wait_for_condition 1000 20 {[ld_loading $c] == 0} else { fail "the load never ended" }
}

set ::ld_err "LOADING Valkey is loading the dataset in memory"

start_server {tags {loading} overrides {enable-debug-command yes key-load-delay 500
        loading-process-events-interval-bytes 1024 save {}}} {
    # 4000 keys at 500 us each: 2 s of loading.
    r debug populate 4000 k 100
    r save
    set ::ld_digest [r debug digest]

    test "Loading the snapshot at start: -LOADING, INFO loading:1, then the data" {
        restart_server 0
        set c [ld_client]
        assert_equal 1 [ld_loading $c]
        assert_error $::ld_err {$c get k:1}
        assert_error $::ld_err {$c ping}
        assert_error $::ld_err {$c dbsize}
        # commands flagged loading run
        assert_equal {key-load-delay 500} [$c config get key-load-delay]
        # CONFIG SET too, but not of what the load reads (dir, repl-diskless-load), as
        # Valkey 8 (an AOF switched on waits for the load: below)
        assert_equal OK [$c config set loglevel notice]
        assert_error $::ld_err {$c config set dir /nonexistent}
        assert_error $::ld_err {$c config set loglevel debug repl-diskless-load swapdb}
        assert_equal {repl-diskless-load disabled} [$c config get repl-diskless-load]
        assert_equal {loglevel notice} [$c config get loglevel]
        assert_equal 0 [info_field [$c info persistence] async_loading]
        # Valkey 8's progress fields: the file's size, what is loaded, the estimate.
        set size [file size [file join [srv dir] dump.rdb]]
        wait_for_condition 100 20 {[info_field [$c info persistence] loading_loaded_bytes] > 0}
        set ri [$c info persistence]
        assert_equal $size [info_field $ri loading_total_bytes]
        set loaded [info_field $ri loading_loaded_bytes]
        assert_range $loaded 1 [expr {$size - 1}]
        assert_equal [format %.2f [expr {100.0 * $loaded / $size}]] [info_field $ri loading_loaded_perc]
        assert_range [info_field $ri loading_start_time] [expr {[clock seconds] - 10}] [clock seconds]
        assert_morethan [info_field $ri loading_rdb_used_mem] 0
        assert_morethan [expr {[info_field $ri loading_eta_seconds] + 1}] 0
        ld_wait_loaded $c
        assert_equal {} [info_field [$c info persistence] loading_total_bytes]
        assert_equal 4000 [$c dbsize]
        assert_equal $::ld_digest [$c debug digest]
        $c close
    }

    test "SHUTDOWN while loading does not save the half-loaded data over the snapshot" {
        restart_server 0
        set c [ld_client]
        assert_equal 1 [ld_loading $c]
        catch {$c shutdown}
        wait_for_condition 200 20 {![server_alive]} else { fail "SHUTDOWN did not stop the node" }
        restart_server 1
        assert_equal 4000 [r dbsize]
        assert_equal $::ld_digest [r debug digest]
    }

    test "DEBUG RELOAD while loading is refused; the reload's own client is answered at its end" {
        set a [valkey_client]
        $a deferred 1
        $a debug reload
        set b [valkey_client]
        wait_for_condition 200 10 {[ld_loading $b] == 1} else { fail "DEBUG RELOAD never loaded" }
        assert_error $::ld_err {$b debug reload}
        assert_error $::ld_err {$b get k:1}
        assert_equal OK [$a read]
        assert_equal 0 [ld_loading $b]
        assert_equal $::ld_digest [$b debug digest]
        $a close
        $b close
    }

    test "An AOF switched on while loading starts after the load, with every loaded key" {
        restart_server 0
        set c [ld_client]
        assert_equal 1 [ld_loading $c]
        assert_equal OK [$c config set appendonly yes]
        assert_equal 1 [info_field [$c info persistence] aof_rewrite_scheduled]
        ld_wait_loaded $c
        wait_for_condition 500 20 {
            [info_field [$c info persistence] aof_rewrite_scheduled] == 0 &&
            [info_field [$c info persistence] aof_rewrite_in_progress] == 0
        } else { fail "the AOF never started" }
        $c config set key-load-delay 0
        $c debug loadaof
        assert_equal 4000 [$c dbsize]
        assert_equal $::ld_digest [$c debug digest]
        $c config set appendonly no
        $c close
    }
}

# A replica with repl-diskless-load swapdb loads its full sync beside its data and serves that
# data meanwhile (Valkey 8's async loading): reads answer from the old data, INFO shows
# async_loading:1 and loading:0, commands flagged no-async-loading (SAVE, REPLICAOF...) wait
# with -LOADING. Our nodes take their primary's hash seed with a full sync (so SCAN cursors
# hold across the shard): when it differs from the one the old data was hashed with (a first
# sync from that primary), the load's slices run under the new seed and the node between them
# under the old one (repl/staged_load.h), so the old data is still served.
proc ld_swapdb_replica {} {
    r replicaof 127.0.0.1 [srv -1 port]
    wait_for_condition 500 10 {[info_field [r info persistence] async_loading] == 1} else {
        fail "the replica never loaded beside its data"
    }
}

proc ld_swapdb_loaded {} {
    r config set key-load-delay 0
    wait_for_condition 500 20 {[info_field [r info persistence] async_loading] == 0 &&
        [info_field [r info persistence] loading] == 0 &&
        [info_field [r info replication] master_link_status] eq "up"} else {
        fail "the load never ended"
    }
    assert_equal 3000 [r dbsize]
    assert_equal [r -1 debug digest] [r debug digest]
}

set ::ld_primary {repl-diskless-sync yes repl-diskless-sync-delay 0 enable-debug-command yes}
set ::ld_replica {repl-diskless-load swapdb loading-process-events-interval-bytes 1024
    enable-debug-command yes}

start_server [list tags {loading repl} overrides $::ld_primary] {
    start_server [list tags {loading repl} overrides $::ld_replica] {
        test "swapdb: the old data is served while a full sync of the same primary loads" {
            # A first sync (of nothing) gives the replica its primary's hash seed.
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 500 10 {[info_field [r info replication] master_link_status] eq "up"} else {
                fail "no first sync"
            }
            r replicaof no one
            r set old:str keep
            r -1 debug populate 3000 new 100
            r -1 debug change-repl-id   ;# the next sync is a full one
            r config set key-load-delay 1000
            ld_swapdb_replica
            assert_equal 0 [info_field [r info persistence] loading]
            assert_equal keep [r get old:str]
            assert_equal 1 [r dbsize]
            assert_error $::ld_err {r save}
            assert_error $::ld_err {r replicaof no one}
            ld_swapdb_loaded
        }
    }
}

start_server [list tags {loading repl} overrides $::ld_primary] {
    start_server [list tags {loading repl} overrides $::ld_replica] {
        test "swapdb: a first sync from a primary of another hash seed serves the old data while it loads" {
            r set old:str keep
            r rpush old:list a b c
            r -1 debug populate 3000 new 100
            r config set key-load-delay 1000
            ld_swapdb_replica
            assert_equal 0 [info_field [r info persistence] loading]
            assert_equal keep [r get old:str]
            assert_equal {a b c} [r lrange old:list 0 -1]
            assert_equal {0 {old:list old:str}} [list [lindex [r scan 0 count 100] 0] [lsort [lindex [r scan 0 count 100] 1]]]
            assert_equal 2 [r dbsize]
            ld_swapdb_loaded
            # The primary's seed came with the data: a cursor of one node is one of the other
            # (the same buckets; a chain's order may differ).
            set c1 [lindex [r -1 scan 0 count 10] 0]
            set a [r -1 scan $c1 count 10]
            set b [r scan $c1 count 10]
            assert_equal [lindex $a 0] [lindex $b 0]
            assert_equal [lsort [lindex $a 1]] [lsort [lindex $b 1]]
        }
    }
}

# The AOF's commands load the same way: served every 1024 commands (outside a transaction),
# key-load-delay per command.
start_server {tags {loading aof} overrides {enable-debug-command yes appendonly yes
        aof-use-rdb-preamble no key-load-delay 500 save {}}} {
    test "Loading the AOF at start: -LOADING, INFO loading:1, then the data" {
        r debug populate 4000 k 100
        r bgrewriteaof
        wait_for_condition 500 20 {[info_field [r info persistence] aof_rewrite_in_progress] == 0} else {
            fail "the AOF rewrite never ended"
        }
        set digest [r debug digest]
        restart_server 0
        set c [ld_client]
        wait_for_condition 200 10 {[ld_loading $c] == 1} else { fail "no AOF load seen" }
        assert_error $::ld_err {$c get k:1}
        # The progress counts every file of the AOF directory.
        set size 0
        foreach f [glob -directory [file join [srv dir] appendonlydir] *.aof *.rdb] {
            incr size [file size $f]
        }
        set ri [$c info persistence]
        assert_equal $size [info_field $ri loading_total_bytes]
        assert_range [info_field $ri loading_loaded_bytes] 0 $size
        ld_wait_loaded $c
        assert_equal 4000 [$c dbsize]
        assert_equal $digest [$c debug digest]
        $c close
    }
}

# A replica loading a long snapshot sends its primary a newline every second (as Valkey 8's
# replicas do), and a primary counts a replica's newline as an acknowledgement: the load may
# last longer than repl-timeout without the primary dropping the replica. The snapshot is
# parsed as it arrives: the primary has sent it all long before the parse ends.
start_server [list tags {loading repl} overrides [concat $::ld_primary {repl-timeout 2}]] {
    start_server [list tags {loading repl} overrides {key-load-delay 1000
            loading-process-events-interval-bytes 1024 enable-debug-command yes}] {
        test "A load longer than repl-timeout: the replica stays attached, one full sync" {
            r -1 debug populate 6000 new 100   ;# 6 s of loading, three repl-timeouts
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 500 10 {[info_field [r info replication] master_sync_in_progress] == 1} else {
                fail "the load never started"
            }
            wait_for_condition 100 20 {[llength [regexp -all -inline {Synchronization with replica [0-9.:]+ succeeded} [::srv::file_tail [srv -1 log] 200]]] == 1} else {
                fail "the primary never sent the whole snapshot"
            }
            after 4000   ;# two repl-timeouts after the primary counts the replica online
            assert_equal 1 [info_field [r info replication] master_sync_in_progress]
            wait_for_condition 1000 20 {[info_field [r info replication] master_sync_in_progress] == 0} else {
                fail "the load never ended"
            }
            wait_for_condition 200 20 {[info_field [r info replication] master_link_status] eq "up"} else {
                fail "the link never came up"
            }
            assert_equal 1 [info_field [r -1 info stats] sync_full]
            assert_no_match "*timedout replica*" [::srv::file_tail [srv -1 log] 200]
            assert_equal 6000 [r dbsize]
        }
    }
}
