# A primary's shutdown (SHUTDOWN or SIGTERM) waits, as Valkey 8's does, up to shutdown-timeout
# seconds for its replicas to acknowledge its offset, holding client writes meanwhile, so that
# what it acknowledged reaches them before it exits; NOW skips the wait, ABORT ends it, and the
# first rewrite of an AOF just turned on keeps the node from exiting unless FORCE.

proc sd_wait_exit {level} {
    wait_for_condition 200 50 {![::srv::alive [srv $level pid]]} else {
        ::testutil::fail "the primary did not exit\n[::srv::file_tail [srv $level log] 15]"
    }
}
# The replica (level 0) in sync, then stopped, and a write on the primary (level -1) it lacks.
proc sd_replica_stopped_behind {} {
    sd_pair_synced
    exec kill -STOP [srv pid]
    r -1 incr k
}
# A primary (level -1) and its replica (level 0), in sync.
proc sd_pair_synced {} {
    r replicaof [srv -1 host] [srv -1 port]
    wait_for_condition 200 50 {[info_field [r info replication] master_link_status] eq "up"} else {
        ::testutil::fail "the replica never synced"
    }
    r -1 set k 1
    wait_for_condition 200 50 {[r get k] eq 1} else { ::testutil::fail "k never reached the replica" }
}

foreach how {sigterm shutdown} {
    start_server {tags {repl shutdown} overrides {save "" repl-diskless-sync-delay 0}} {
        start_server {tags {repl shutdown}} {
            test "$how: the primary waits for a stopped replica, holding writes, and exits once it caught up" {
                sd_replica_stopped_behind
                try {
                    if {$how eq "sigterm"} {
                        exec kill -TERM [srv -1 pid]
                    } else {
                        set sd [valkey_client -1]
                        $sd deferred 1
                        $sd shutdown
                    }
                    wait_for_condition 100 20 {
                        [regexp {shutdown_in_milliseconds:(\d+)} [r -1 info server] -> ms] && $ms > 0
                    } else { ::testutil::fail "no shutdown under way" }
                    # a write is held, not refused: it would not reach the replica
                    set w [valkey_client -1]
                    $w deferred 1
                    $w set held 1
                    after 200
                    assert_equal PONG [r -1 ping]
                    assert_equal 1 [r -1 exists k]
                    assert_equal 0 [r -1 exists held]
                } finally {
                    exec kill -CONT [srv pid]
                }
                expect_server_exit -1
                sd_wait_exit -1
                assert_equal 2 [r get k]
                assert_equal 0 [r exists held]
                set log [::srv::file_tail [srv -1 log] 100]
                assert_match "*Waiting for replicas before shutting down.*1 of 1 replicas are in sync when shutting down.*ready to exit, bye bye*" $log
                assert_no_match "*Lagging replica*" $log
            }
        }
    }
}

start_server {tags {repl shutdown} overrides {save "" repl-diskless-sync-delay 0 shutdown-timeout 1}} {
    start_server {tags {repl shutdown}} {
        test "shutdown-timeout: a replica still behind when it ends is logged as lagging, and the primary exits" {
            sd_replica_stopped_behind
            try {
                set t0 [clock milliseconds]
                exec kill -TERM [srv -1 pid]
                expect_server_exit -1
                sd_wait_exit -1
                assert_morethan [expr {[clock milliseconds] - $t0}] 900
            } finally {
                exec kill -CONT [srv pid]
            }
            set log [::srv::file_tail [srv -1 log] 100]
            assert_match "*Lagging replica 127.0.0.1:[srv port] reported offset * behind master, lag=*, state=online.*0 of 1 replicas are in sync when shutting down.*" $log
        }
    }
}

start_server {tags {repl shutdown} overrides {save "" repl-diskless-sync-delay 0}} {
    start_server {tags {repl shutdown}} {
        test "SHUTDOWN ABORT ends the wait: waiting SHUTDOWN clients get an error, held writes run; CLIENT UNBLOCK cannot end it" {
            sd_replica_stopped_behind
            try {
                set a [valkey_client -1]
                set b [valkey_client -1]
                $a deferred 1
                $b deferred 1
                $a shutdown
                $b shutdown
                wait_for_condition 100 20 {[info_field [r -1 info clients] blocked_clients] == 2} else {
                    ::testutil::fail "the SHUTDOWN clients are not waiting"
                }
                set w [valkey_client -1]
                $w deferred 1
                $w set held 1
                after 100
                set id [lindex [regexp -inline {id=(\d+)[^\n]*cmd=shutdown} [r -1 client list]] 1]
                assert_equal 0 [r -1 client unblock $id]
                assert_equal OK [r -1 shutdown abort]
                foreach c [list $a $b] {
                    assert_error "ERR Errors trying to SHUTDOWN. Check logs." {$c read}
                }
                assert_equal OK [$w read]
                assert_equal 1 [r -1 get held]
                assert_error "ERR No shutdown in progress." {r -1 shutdown abort}
            } finally {
                exec kill -CONT [srv pid]
            }
            assert {[log_contains "*Shutdown manually aborted.*" -1]}
        }

        test "SHUTDOWN NOW does not wait for a stopped replica" {
            set waits [regexp -all {Waiting for replicas} [::srv::file_tail [srv -1 log] 100000]]
            exec kill -STOP [srv pid]
            try {
                r -1 incr k
                set t0 [clock milliseconds]
                catch {r -1 shutdown now}
                expect_server_exit -1
                sd_wait_exit -1
                assert_lessthan [expr {[clock milliseconds] - $t0}] 5000
            } finally {
                exec kill -CONT [srv pid]
            }
            assert_equal $waits [regexp -all {Waiting for replicas} [::srv::file_tail [srv -1 log] 100000]]
        }
    }
}

start_server {tags {shutdown aof} overrides {save ""}} {
    test "The first rewrite of an AOF just turned on keeps SHUTDOWN from exiting; FORCE exits" {
        r set k v
        r config set rdb-key-save-delay 10000000
        r config set appendonly yes
        wait_for_condition 100 20 {[info_field [r info persistence] aof_rewrite_in_progress] == 1} else {
            ::testutil::fail "no AOF rewrite started"
        }
        assert_error "ERR Errors trying to SHUTDOWN. Check logs." {r shutdown nosave}
        assert {[log_contains "*Writing initial AOF, can't exit.*Errors trying to shut down the server. Check the logs for more information.*"]}
        assert_equal v [r get k]
        catch {r shutdown nosave force}
        expect_server_exit 0
        sd_wait_exit 0
        assert {[log_contains "*Writing initial AOF. Exit anyway.*"]}
    }
}

start_server {tags {shutdown} overrides {save {900 1}}} {
    test "SIGINT again during the final save exits at once and removes the save's temp file" {
        for {set i 0} {$i < 20} {incr i} { r set $i $i }
        r config set rdb-key-save-delay 100000  ;# 2 s for the save
        set pid [srv pid]
        set temp [file join [srv dir] temp-$pid.rdb]
        exec kill -INT $pid
        wait_for_condition 100 10 {[file exists $temp]} else { fail "no final save started" }
        exec kill -INT $pid
        expect_server_exit 0
        sd_wait_exit 0
        assert_equal 0 [file exists $temp]
        assert_equal 0 [file exists [file join [srv dir] dump.rdb]]
        assert {[log_contains "*signal-handler (*) You insist... exiting now.*"]}
    }
}

# shutdown-on-sigint / shutdown-on-sigterm: SHUTDOWN's flags for a shutdown by signal.
# Writes a key, sends the signal, waits for the exit; whether dump.rdb exists then.
proc sd_signal_and_exit {sig} {
    r set k v
    exec kill -$sig [srv pid]
    expect_server_exit 0
    sd_wait_exit 0
    return [file exists [file join [srv dir] dump.rdb]]
}

start_server {tags {shutdown}} {
    test "shutdown-on-sigint/-sigterm: Valkey 8's words, written back in its order" {
        assert_equal {shutdown-on-sigint default} [r config get shutdown-on-sigint]
        assert_equal OK [r config set shutdown-on-sigint "force NOSAVE now"]
        assert_equal {shutdown-on-sigint {nosave now force}} [r config get shutdown-on-sigint]
        assert_equal OK [r config set shutdown-on-sigint default]
        assert_equal {shutdown-on-sigint default} [r config get shutdown-on-sigint]
        assert_error "*shutdown options SAVE and NOSAVE can't be used simultaneously*" {r config set shutdown-on-sigterm "save nosave"}
        assert_error "*argument(s) must be one of the following: default, save, nosave, now, force*" \
            {r config set shutdown-on-sigterm "now later"}
        assert_error "*argument(s) must be one of the following*" {r config set shutdown-on-sigterm "later now x"}
        assert_equal {shutdown-on-sigterm default} [r config get shutdown-on-sigterm]
    }
}

start_server {tags {shutdown} overrides {save "" shutdown-on-sigterm save}} {
    test "shutdown-on-sigterm save: SIGTERM saves without save points" {
        assert_equal 1 [sd_signal_and_exit TERM]
        assert {[log_contains "*DB saved on disk*"]}
    }
}

start_server {tags {shutdown} overrides {save {900 1} shutdown-on-sigint nosave}} {
    test "shutdown-on-sigint nosave: SIGINT exits without the save its save points would make" {
        assert_equal 0 [sd_signal_and_exit INT]
    }
}
