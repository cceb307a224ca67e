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

# The aux fields (key=value after the address) of node `id`'s line in idx's nodes.conf, saved
# now, as a dict; and the hostname after the address, as key "hostname".
proc v8_conf_aux {idx id} {
    assert_equal OK [cn $idx cluster saveconfig]
    set fh [open [cnode $idx nodes_conf]]
    set lines [split [read $fh] \n]
    close $fh
    foreach line $lines {
        if {[lindex $line 0] ne $id} continue
        set fields [split [lindex $line 1] ,]
        set d [dict create hostname [lindex $fields 1]]
        foreach f [lrange $fields 2 end] {
            if {[regexp {^([^=]+)=(.*)$} $f -> k v]} { dict set d $k $v }
        }
        return $d
    }
    return {}
}

# A fake bus port: answers the first message it reads with `reply`, keeps the link open.
proc v8_fake_accept {reply fd addr port} {
    fconfigure $fd -translation binary -blocking 0 -buffering none
    lappend ::v8_fake(fds) $fd
    fileevent $fd readable [list v8_fake_read $fd $reply]
}
proc v8_fake_read {fd reply} {
    if {[catch {read $fd} d] || ($d eq "" && [eof $fd])} {
        catch {close $fd}
        return
    }
    if {!$::v8_fake(answered)} {
        set ::v8_fake(answered) 1
        catch {puts -nonewline $fd $reply; flush $fd}
    }
}

start_cluster {primaries 3 replicas 1 create manual} {
    # A vote arriving when no election runs: Valkey 8's clusterProcessPacket only counts it
    # (a count that the next election resets), and the header's currentEpoch (4) is older than
    # ours (6: the six nodes' epochs 1-6), so nothing changes. Replayed from primary 2 (its ID and
    # configEpoch) to a replica, the node an ACK is meant for.
    test "Valkey 8's FAILOVER_AUTH_ACK from a primary when no election runs: nothing changes" {
        set r [lindex [cluster_replicas] 0]
        set ack [::v8pkt::bytes auth_ack]
        set ack [::v8pkt::patch $ack 40 [cluster_myid 2]]
        set ack [::v8pkt::patch $ack 24 [binary format W [dict get [cluster_nodes_line $r 2] epoch]]]
        assert_equal 6 [cluster_info_field $r cluster_current_epoch]
        set before [v8_nodes_view $r]
        set fd [bg_connect $r]
        assert_equal 1 [bg_send $fd $ack]
        # (no "link stays": binding the link to primary 2 replaced its real inbound link, and
        # when it connects again, Valkey 8 frees this one in its turn)
        lassign [bg_read $fd 1 1000] got eof
        assert_equal {} $got "no reply"
        close $fd
        assert_equal 1 [cluster_info_field $r cluster_stats_messages_auth-ack_received]
        assert_equal 6 [cluster_info_field $r cluster_current_epoch]
        assert_equal slave [lindex [cn $r role] 0]
        assert_equal $before [v8_nodes_view $r]
    }

    # Valkey 8 sends SPUBLISH to the nodes of its shard with the light header, which names no
    # sender: the link's node is the sender. Primary 0 is impersonated towards its replica (a
    # PING with its ID, epochs and slots binds the link; it is stopped meanwhile, so that its own
    # link does not take the place of this one), then the recorded SPUBLISH of "chan" (slot 1463,
    # primary 0's) is sent.
    test "Valkey 8's light SPUBLISH reaches an SSUBSCRIBEd client of the replica, nothing else" {
        set r [lindex [cluster_replicas_of 0] 0]
        set sub [cluster_client $r]
        assert_equal {ssubscribe chan 1} [$sub ssubscribe chan]
        set before [v8_nodes_view $r]
        exec kill -STOP [cnode 0 pid]
        try {
            set fd [bg_connect $r]
            bg_send $fd [bg_msg sender [cluster_myid 0] flags 0x0811 \
                             config [dict get [cluster_nodes_line $r 0] epoch] \
                             current [cluster_info_field $r cluster_current_epoch] \
                             slots [bg_bitmap {{0 5460}}] \
                             port [cnode 0 port] cport [expr {[cnode 0 port] + 10000}]]
            assert_equal 1 [dict get [bg_parse [bg_read_msg $fd 3000]] type]
            assert_equal 1 [bg_send $fd [::v8pkt::bytes light_spublish]]
            assert_equal {smessage chan hello} [$sub read 3000]
            lassign [bg_read $fd 1 300] got eof
            assert_equal {} $got "no reply"
            assert_equal 0 $eof "the link stays"
            close $fd
            assert_equal $before [v8_nodes_view $r]
        } finally {
            exec kill -CONT [cnode 0 pid]
            $sub close
        }
        cluster_wait_ok
    }

    # CLUSTER MEET's MEET from a node ours does not know: as Valkey 8's clusterProcessPacket, a
    # node in handshake at the sender's address (its name random until the handshake ends), bound
    # to the link, so that the MEET's gossip is taken too (the sender is trusted because of the
    # message type): the two nodes it names are added with their IDs, addresses and roles. The
    # answer is a PONG. (Nobody listens at those addresses: they are not asserted beyond now.)
    test "Valkey 8's MEET from an unknown node: a handshake node, its gossip's nodes, a PONG" {
        set before [v8_nodes_view 0]
        set known [lmap e [cluster_nodes_parsed 0] { dict get $e id }]
        set fd [bg_connect 0]
        assert_equal 1 [bg_send $fd [::v8pkt::bytes meet]]
        set d [bg_parse [bg_read_msg $fd 3000]]
        assert_equal [list 1 [cluster_myid 0]] [list [dict get $d type] [dict get $d sender]]
        set new {}
        foreach e [cluster_nodes_parsed 0] {
            if {[dict get $e id] in $known} continue
            set id [expr {"handshake" in [dict get $e flags] ? "random" : [dict get $e id]}]
            lappend new [list $id [dict get $e addr] [dict get $e flags] [dict get $e primary] \
                             [dict get $e epoch] [dict get $e slots]]
        }
        close $fd
        assert_equal [lsort [list \
            {random 127.0.0.1:46103@56103 handshake - 0 {}} \
            {5e91b9c0348db24f0f0e988b49f33b2f5af8ecf7 127.0.0.1:46105@56105 slave - 0 {}} \
            {6ac2f11648e620777645cb852ffa1cf46fa43a1a 127.0.0.1:46101@56101 slave - 0 {}}]] \
            [lsort $new]
        set after [lmap e [cluster_nodes_parsed 0] {
            if {[dict get $e id] ni $known} continue
            list [dict get $e id] [dict get $e flags] [dict get $e primary] [dict get $e epoch] [dict get $e slots]
        }]
        assert_equal $before [lsort $after]
    }
}

# UPDATE: Valkey 8's answer to a primary that claims slots a node with a greater configEpoch
# serves. Replayed from primary 2 about itself (its ID, its configEpoch in the header) to primary
# 1: as Valkey 8's clusterProcessPacket, the named node takes the configEpoch (4) and the slots
# (0-5460, primary 0's; its own stay), and the header's currentEpoch (4, over our 3) is adopted.
# Primary 0 is stopped meanwhile: its own pings claim 0-5460 with epoch 1, which primary 1 would
# answer with this very UPDATE.
start_cluster {primaries 3 replicas 0 create manual} {
    test "Valkey 8's UPDATE about a node with a greater configEpoch: it gets the slots and the epoch" {
        set upd [::v8pkt::bytes update]
        set upd [::v8pkt::patch $upd 40 [cluster_myid 2]]
        set upd [::v8pkt::patch $upd 24 [binary format W [dict get [cluster_nodes_line 1 2] epoch]]]
        set upd [::v8pkt::patch $upd 2264 [cluster_myid 2]]
        assert_equal {1 2 3} [lmap i {0 1 2} { dict get [cluster_nodes_line 1 $i] epoch }]
        assert_equal 3 [cluster_info_field 1 cluster_current_epoch]
        set expected {}
        foreach e [v8_nodes_view 1] {
            lassign $e id flags primary epoch slots
            if {$id eq [cluster_myid 0]} { set slots {} }
            if {$id eq [cluster_myid 2]} { set epoch 4; set slots {0-5460 10922-16383} }
            lappend expected [list $id $flags $primary $epoch $slots]
        }
        exec kill -STOP [cnode 0 pid]
        try {
            set fd [bg_connect 1]
            assert_equal 1 [bg_send $fd $upd]
            ::cl::deadline_wait 3000 {
                [dict get [cluster_nodes_line 1 2] epoch] == 4
            } {node 1 took no UPDATE: [cn 1 cluster nodes]}
            lassign [bg_read $fd 1 300] got eof
            assert_equal {} $got "no reply"
            close $fd
            assert_equal $expected [v8_nodes_view 1]
            assert_equal 4 [cluster_info_field 1 cluster_current_epoch]
        } finally {
            exec kill -CONT [cnode 0 pid]
        }
    }
}

# PONG with extensions: the recorded one is a new node's (a primary without slots, epochs 0),
# so it is replayed for a node of that kind, met now (its ID put in), to another node on a raw
# link. As Valkey 8's clusterProcessPingExtensions: the sender's hostname, human nodename and
# shard ID become the PONG's; nothing else changes. The node is stopped meanwhile, so that its
# own pings (no hostname) do not undo it.
start_cluster {primaries 3 replicas 0 nodes 4 create manual} {
    test "Valkey 8's PONG with extensions from a known node: its hostname, nodename and shard ID" {
        assert_equal OK [cn 0 cluster meet [cnode 3 host] [cnode 3 port]]
        cluster_wait_known 1 4
        ::cl::deadline_wait 10000 {
            [dict get [cluster_nodes_line 1 3] flags] eq "master" &&
            [dict get [cluster_nodes_line 1 3] link] eq "connected"
        } {node 1 never saw node 3 as a primary: [cn 1 cluster nodes]}
        set id3 [cluster_myid 3]
        set pong [::v8pkt::patch [::v8pkt::bytes pong_ext] 40 $id3]
        set before [v8_nodes_view 1]
        set aux [v8_conf_aux 1 $id3]
        assert_equal {} [dict get $aux hostname]
        exec kill -STOP [cnode 3 pid]
        try {
            set fd [bg_connect 1]
            assert_equal 1 [bg_send $fd $pong]
            ::cl::deadline_wait 3000 {
                [dict get [cluster_nodes_line 1 3] host] eq "host6.example"
            } {node 1 did not take the hostname: [cn 1 cluster nodes]}
            lassign [bg_read $fd 1 300] got eof
            assert_equal {} $got "no reply to a PONG"
            assert_equal 0 $eof "the link stays"
            close $fd
            set aux [v8_conf_aux 1 $id3]
            assert_equal {host6.example human6 e48f604c1886283b4689fa9f0dde43d22ce95953} \
                [list [dict get $aux hostname] [dict get $aux nodename] [dict get $aux shard-id]]
            assert_equal $before [v8_nodes_view 1]
            assert_equal 3 [cluster_info_field 1 cluster_current_epoch]
        } finally {
            exec kill -CONT [cnode 3 pid]
        }
    }
}
