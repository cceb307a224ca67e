# Standalone coordinated failover (issue 10): FAILOVER [TO host port [FORCE]] [TIMEOUT ms] |
# ABORT.  The primary pauses writes until a replica acknowledged its whole stream, then the
# two swap roles with PSYNC ... FAILOVER; the old primary continues by partial resync.
# Errors and INFO master_failover_state as Valkey 8.

proc fs_info {lvl field} { return [info_field [r_at $lvl info] $field] }

proc fs_wait_role {lvl role} {
    wait_for_condition 200 50 {[lindex [r_at $lvl role] 0] eq $role} else {
        ::testutil::fail "server at level $lvl never became $role: [r_at $lvl role]"
    }
}

proc fs_wait_link_up {lvl} {
    wait_for_condition 200 50 {[fs_info $lvl master_link_status] eq "up"} else {
        ::testutil::fail "server at level $lvl never got its link up"
    }
}

proc fs_wait_state {lvl state} {
    wait_for_condition 200 50 {[fs_info $lvl master_failover_state] eq $state} else {
        ::testutil::fail "failover state at level $lvl: [fs_info $lvl master_failover_state], not $state"
    }
}

# Level 0 replicates level lvl and has everything it has.
proc fs_sync {lvl} {
    wait_for_condition 200 50 {
        [fs_info 0 master_link_status] eq "up" &&
        [fs_info 0 master_repl_offset] == [fs_info $lvl master_repl_offset]
    } else { ::testutil::fail "the replica never caught up" }
}

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        test "FAILOVER errors" {
            assert_equal "ERR No failover in progress." [assert_error * {r -1 failover abort}]
            assert_equal "ERR FAILOVER requires connected replicas." [assert_error * {r -1 failover}]
            assert_equal "ERR syntax error" [assert_error * {r -1 failover foo}]
            assert_equal "ERR syntax error" [assert_error * {r -1 failover timeout 10 timeout 20}]
            assert_equal "ERR FAILOVER timeout must be greater than 0" [assert_error * {r -1 failover timeout 0}]
            assert_equal "ERR value is not an integer or out of range" [assert_error * {r -1 failover timeout x}]
            assert_equal "ERR value is not an integer or out of range" [assert_error * {r -1 failover to 127.0.0.1 x}]
            r replicaof 127.0.0.1 [srv -1 port]
            fs_wait_link_up 0
            assert_equal "ERR FAILOVER is not valid when server is a replica." [assert_error * {r failover}]
            assert_equal "ERR FAILOVER with force option requires both a timeout and target HOST and IP." \
                [assert_error * {r -1 failover force}]
            assert_equal "ERR FAILOVER with force option requires both a timeout and target HOST and IP." \
                [assert_error * {r -1 failover to 127.0.0.1 [srv 0 port] force}]
            assert_equal "ERR FAILOVER target HOST and PORT is not a replica." \
                [assert_error * {r -1 failover to 127.0.0.1 1}]
            assert_equal no-failover [fs_info -1 master_failover_state]
        }

        test "FAILOVER to any replica: the roles swap, no write is lost, a partial resync follows" {
            for {set i 0} {$i < 100} {incr i} { r -1 set k$i v$i }
            fs_sync -1
            set ok0 [fs_info 0 sync_partial_ok]
            assert_equal OK [r -1 failover]
            fs_wait_role 0 master
            fs_wait_role -1 slave
            fs_wait_state -1 no-failover
            assert_equal no-failover [fs_info 0 master_failover_state]
            assert_equal [srv 0 port] [fs_info -1 master_port]
            wait_for_condition 200 50 {[fs_info -1 master_link_status] eq "up"} else { fail "link" }
            assert_equal [expr {$ok0 + 1}] [fs_info 0 sync_partial_ok]
            assert_equal v99 [r get k99]
            assert_equal OK [r set after 1]
            wait_for_condition 100 50 {[r -1 get after] eq 1} else { fail "not replicated back" }
            assert_match "*Failover target 127.0.0.1:[srv 0 port] is synced, failing over.*" \
                [::srv::file_tail [srv -1 log] 50]
            assert_match "*PRIMARY MODE enabled (failover request from*" [::srv::file_tail [srv 0 log] 50]
        }

        test "A write held by the failover pause is answered once the primary moved" {
            # level 0 is the primary now; make its replica sleep so that the pause lasts
            set w [valkey_client 0]
            $w deferred 1
            set c [valkey_raw -1]
            puts -nonewline $c "*3\r\n\$5\r\nDEBUG\r\n\$5\r\nSLEEP\r\n\$3\r\n0.8\r\n"
            flush $c
            assert_equal OK [r failover to 127.0.0.1 [srv -1 port]]
            assert_equal waiting-for-sync [fs_info 0 master_failover_state]
            $w set held 1
            assert_error "I/O error: timeout*" {$w read 200}
            assert_equal "READONLY You can't write against a read only replica." \
                [assert_error * {$w read 10000}]
            close $c
            fs_wait_role -1 master
            fs_wait_role 0 slave
            assert_equal 0 [r -1 exists held]
        }

        test "TIMEOUT without FORCE: a replica that never catches up aborts the failover" {
            # level -1 is the primary again; stop its replica
            fs_wait_link_up 0
            set pid [srv 0 pid]
            exec kill -STOP $pid
            r -1 set behind 1
            assert_equal OK [r -1 failover timeout 500]
            wait_for_condition 100 50 {[fs_info -1 master_failover_state] eq "no-failover"} else {
                fail "the failover never ended"
            }
            exec kill -CONT $pid
            assert_equal master [lindex [r -1 role] 0]
            assert_match "*aborted: Replica never caught up before timeout*" [::srv::file_tail [srv -1 log] 20]
            # writes flow again
            assert_equal OK [r -1 set unpaused 1]
        }

        test "ABORT while waiting for the replica: the primary resumes" {
            fs_sync -1
            set pid [srv 0 pid]
            exec kill -STOP $pid
            r -1 set behind2 1
            assert_equal OK [r -1 failover]
            assert_equal waiting-for-sync [fs_info -1 master_failover_state]
            assert_equal "ERR FAILOVER already in progress." [assert_error * {r -1 failover}]
            assert_equal "ERR REPLICAOF not allowed while failing over." \
                [assert_error * {r -1 replicaof 127.0.0.1 1}]
            assert_equal OK [r -1 failover abort]
            assert_equal no-failover [fs_info -1 master_failover_state]
            exec kill -CONT $pid
            assert_equal OK [r -1 set resumed 1]
            assert_match "*FAILOVER to any replica aborted: Failover manually aborted*" [::srv::file_tail [srv -1 log] 20]
        }

        test "FORCE with TIMEOUT: the primary hands over even though the target lags" {
            fs_sync -1
            set pid [srv 0 pid]
            exec kill -STOP $pid
            r -1 set lag 1
            assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port] timeout 300 force]
            after 600
            assert_equal failover-in-progress [fs_info -1 master_failover_state]
            exec kill -CONT $pid
            fs_wait_role 0 master
            fs_wait_state -1 no-failover
            fs_wait_role -1 slave
            assert_match "*time out exceeded, failing over.*" [::srv::file_tail [srv -1 log] 30]
            # FORCE may lose what the target never received; the new primary takes writes
            assert_equal OK [r set afterforce 1]
            wait_for_condition 100 50 {[r -1 get afterforce] eq 1} else { fail "not replicated" }
        }

        test "CLIENT CAPA redirect during failover-in-progress: held, then -REDIRECT to the new primary" {
            # Roles now: level 0 primary, level -1 its replica. Back the other way, the target
            # stopped, so that the handover waits in failover-in-progress.
            fs_wait_link_up -1
            set pid [srv -1 pid]
            exec kill -STOP $pid
            r set lag2 1
            assert_equal OK [r failover to 127.0.0.1 [srv -1 port] timeout 100 force]
            fs_wait_state 0 failover-in-progress
            set c [valkey_client 0]
            assert_equal OK [$c client capa redirect]
            $c deferred 1
            $c set held 1
            # both nodes may be replicas now: a -REDIRECT could send it back and forth
            wait_for_condition 100 20 {[fs_info 0 blocked_clients] == 1} else {
                fail "the client was not held"
            }
            exec kill -CONT $pid
            fs_wait_state 0 no-failover
            fs_wait_role -1 master
            assert_error "REDIRECT 127.0.0.1:[srv -1 port]" {$c read}
        }
    }
}
