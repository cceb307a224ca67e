# Packets recorded from Valkey 8.0.1 nodes (tests/support/valkey8_packets.tcl) replayed on a
# raw bus link to one of our nodes: each must have the effect it has on a Valkey 8 node, and
# no other. Where a packet must come from a node ours knows, its node IDs (and the epochs that
# go with them) are replaced by those of our cluster; every other byte is Valkey's. (The
# light-header PUBLISH is replayed in bus_features.tcl.)

# CLUSTER NODES of idx without the volatile columns (ping/pong times, link state).
proc v8_nodes_view {idx} {
    return [lsort [lmap e [cluster_nodes_parsed $idx] {
        list [dict get $e id] [dict get $e flags] [dict get $e primary] [dict get $e epoch] [dict get $e slots]
    }]]
}

start_cluster {primaries 3 replicas 1 create manual} {
    test "Valkey 8's PING with hostname, nodename and shard-ID extensions: a PONG, nothing learned" {
        set before [v8_nodes_view 0]
        set ping [::v8pkt::bytes ping_ext]
        set sender [string range $ping 40 79]
        set fd [bg_connect 0]
        assert_equal 1 [bg_send $fd $ping]
        set pong [bg_read_msg $fd 3000]
        close $fd
        # an unknown sender's PING is answered, and that is all: it is not a MEET
        set d [bg_parse $pong]
        assert_equal 1 [dict get $d type]
        assert_equal [cluster_myid 0] [dict get $d sender]
        assert_equal 0 [dict get $d extensions]
        assert_not_contains $sender [cn 0 cluster nodes]
        assert_equal $before [v8_nodes_view 0]
    }

    test "Valkey 8's FAILOVER_AUTH_REQUEST and MFSTART from a node ours does not know: ignored" {
        set before [v8_nodes_view 0]
        set fd [bg_connect 0]
        foreach name {auth_request mfstart} {
            assert_equal 1 [bg_send $fd [::v8pkt::bytes $name]]
            lassign [bg_read $fd 1 500] got eof
            assert_equal {} $got "$name: no reply (no vote)"
            assert_equal 0 $eof "$name: the link stays"
        }
        close $fd
        assert_equal $before [v8_nodes_view 0]
        assert_equal PONG [cn 0 ping]
    }

    test "Valkey 8's FAIL, named for two nodes of ours: the named node is marked failing" {
        # sender: primary 1 (with its epoch); the failed node: primary 2
        set fail [::v8pkt::bytes fail]
        set fail [::v8pkt::patch $fail 40 [cluster_myid 1]]
        set fail [::v8pkt::patch $fail 24 [binary format W [dict get [cluster_nodes_line 0 1] epoch]]]
        set fail [::v8pkt::patch $fail 2256 [cluster_myid 2]]
        set fd [bg_connect 0]
        assert_equal 1 [bg_send $fd $fail]
        ::cl::deadline_wait 3000 {
            "fail" in [dict get [cluster_nodes_line 0 2] flags]
        } {node 0 did not mark node 2 failing: [cn 0 cluster nodes]}
        close $fd
        # (Valkey 8 adds each node's human nodename in parentheses after its ID)
        assert_match "*FAIL message received from [cluster_myid 1]* about [cluster_myid 2]*" \
            [::srv::file_tail [cnode 0 log] 300]
        # node 2 is alive: the flag clears (as on Valkey: a primary with slots that answers
        # again) and the cluster is whole
        cluster_wait_ok
        ::cl::deadline_wait 20000 {
            "fail" ni [dict get [cluster_nodes_line 0 2] flags]
        } {node 0 kept node 2 failing: [cn 0 cluster nodes]}
    }
}

# The primary side of a manual failover, started by Valkey 8's MFSTART sent for our primary's
# own replica: writes pause (the replica is told the offset to reach). CLUSTER RESET ends the
# manual failover and its pause at once, as Valkey 8's clusterReset does; the held write is
# answered then, not when the failover would have timed out (5 s).
start_cluster {primaries 1 replicas 1 create manual} {
    test "Valkey 8's MFSTART from our primary's replica pauses its writes; CLUSTER RESET ends the pause" {
        set mf [::v8pkt::bytes mfstart]
        set mf [::v8pkt::patch $mf 40 [cluster_myid 1]]
        set mf [::v8pkt::patch $mf 2128 [cluster_myid 0]]
        set fd [bg_connect 0]
        assert_equal 1 [bg_send $fd $mf]
        wait_for_condition 100 20 {
            [string match "*Manual failover requested by replica [cluster_myid 1]*" \
                 [::srv::file_tail [cnode 0 log] 50]]
        } else { ::testutil::fail "node 0 took no manual failover: [::srv::file_tail [cnode 0 log] 10]" }
        set c [cluster_client 0]
        $c deferred 1
        $c flushall
        assert_equal none [expr {[catch {$c read 500} r] ? "none" : $r}] "the write is held"
        assert_equal OK [cn 0 cluster reset soft]
        assert_equal OK [$c read 2000]
        close $fd
        $c close
    }
}
