# One execution gate and one block/resume mechanism: a role change unblocks blocked clients
# (keys and WAIT alike) with Valkey's error, EXEC is judged by what it queued, and WAIT lives
# in the same registry as BLPOP (timeouts, CLIENT UNBLOCK).

proc wait_blocked {n} {
    wait_for_condition 200 10 {[info_field [r info clients] blocked_clients] == $n} else {
        ::testutil::fail "blocked_clients never reached $n"
    }
}
proc link_up {} {
    wait_for_condition 200 50 {[info_field [r info replication] master_link_status] eq "up"} else {
        ::testutil::fail "the replica's link never came up"
    }
}

set ::unblocked_err "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

start_server {tags {gate repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {gate repl} overrides {repl-diskless-sync-delay 0}} {
        test "Reproduction: a client blocked on BLPOP is unblocked when its node becomes a replica" {
            set c [valkey_client]
            $c deferred 1
            $c blpop l 0
            wait_blocked 1
            r replicaof 127.0.0.1 [srv -1 port]
            assert_equal $::unblocked_err [assert_error * {$c read}]
            assert {[$c eof 2000]}
            link_up
            r -1 rpush l a b c
            wait_for_condition 100 20 {[r llen l] == 3}
            assert_equal {a b c} [r lrange l 0 -1]
            assert_equal {a b c} [r -1 lrange l 0 -1]
            assert_equal 0 [info_field [r info clients] blocked_clients]
        }

        test "A client blocked in WAIT is unblocked the same way" {
            r replicaof no one
            set c [valkey_client]
            $c deferred 1
            $c set k v
            assert_equal OK [$c read]
            $c wait 5 0
            wait_blocked 1
            r replicaof 127.0.0.1 [srv -1 port]
            assert_equal $::unblocked_err [assert_error * {$c read}]
            link_up
        }

        test "EXEC of queued writes on a node that became a replica is refused as a whole" {
            r replicaof no one
            set c [valkey_client]
            $c multi
            assert_equal QUEUED [$c set gate:k v]
            assert_equal QUEUED [$c get gate:k]
            r replicaof 127.0.0.1 [srv -1 port]
            assert_equal "EXECABORT Transaction discarded because of: READONLY You can't write against a read only replica." \
                [assert_error * {$c exec}]
            link_up
            assert_equal {} [r get gate:k]
            # A read-only transaction still runs on the replica.
            $c multi
            $c get gate:k
            assert_equal {{}} [$c exec]
        }
    }
}

start_server {tags {gate}} {
    test "WAIT shares the blocked-client registry: timeout, CLIENT UNBLOCK, blocked_clients" {
        r set k v
        # no replicas: WAIT 1 with a timeout answers 0 when it expires
        assert_equal 0 [r wait 1 50]
        set c [valkey_client]
        $c deferred 1
        $c client id
        set cid [$c read]
        $c wait 1 0
        wait_blocked 1
        assert_match "*flags=b *" [r client list id $cid]
        assert_equal 1 [r client unblock $cid]
        assert_equal 0 [$c read]
        $c wait 1 0
        wait_blocked 1
        assert_equal 1 [r client unblock $cid error]
        assert_equal "UNBLOCKED client unblocked via CLIENT UNBLOCK" [assert_error * {$c read}]
        assert_equal 0 [info_field [r info clients] blocked_clients]
    }
}
