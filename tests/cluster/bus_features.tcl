# What travels over the bus besides membership: pub/sub and the announced names.
# Pub/Sub across a cluster: PUBLISH reaches subscribers on every node through the bus;
# SPUBLISH reaches the subscribers of the shard that owns the channel's slot (its primary and
# replicas) and no other shard; shard pub/sub commands route like keys, and a replica serves
# SSUBSCRIBE for its primary's slots without READONLY.

# A subscriber client on node idx, subscribed to `channel` with SUBSCRIBE or SSUBSCRIBE.
proc ps_subscriber {idx kind channel} {
    set c [cluster_client $idx]
    assert_equal [list $kind $channel 1] [$c $kind $channel]
    return $c
}

# The next pushed message of a subscriber, or "none" after timeout_ms.
proc ps_next {c {timeout_ms 3000}} {
    if {[catch {$c read $timeout_ms} m]} { return none }
    return $m
}

# A fake bus port for the MEET test: answers the first message it reads with `reply`.
proc bf_fake_accept {reply fd addr port} {
    fconfigure $fd -translation binary -blocking 0 -buffering none
    set ::bf_fake(buf) ""
    set ::bf_fake(fd) $fd
    fileevent $fd readable [list bf_fake_read $fd $reply]
}
proc bf_fake_read {fd reply} {
    if {[catch {read $fd} d] || ($d eq "" && [eof $fd])} {
        catch {close $fd}
        return
    }
    append ::bf_fake(buf) $d
    if {[string length $::bf_fake(buf)] >= $::bg_hdrlen && !$::bf_fake(answered)} {
        set ::bf_fake(answered) 1
        catch {puts -nonewline $fd $reply; flush $fd}
    }
}

# Whether every bus link of node idx has sent all it queued (CLUSTER LINKS send-buffer-used).
# Node idx has its link to each of the 5 other nodes and nothing waits in any link's queue.
# (Its links to the others are made by its bus cron: after a node was too busy to answer,
# its peers reconnect at once and it remakes its own links a little later.)
proc bf_links_idle {idx} {
    set to 0
    foreach l [cn $idx cluster links] {
        if {[dict get $l send-buffer-used] != 0} { return 0 }
        if {[dict get $l direction] eq "to"} { incr to }
    }
    return [expr {$to == 5}]
}

start_cluster {primaries 3 replicas 1 nodes 6 create manual} {
    test "PUBLISH on one node reaches subscribers on every node" {
        set subs {}
        foreach i {0 1 2 3 4 5} { lappend subs [ps_subscriber $i subscribe news] }
        # every node counts its own subscriber only
        assert_equal 1 [cn 2 publish news hello]
        foreach c $subs { assert_equal {message news hello} [ps_next $c] }
        foreach c $subs { $c close }
    }

    test "INFO clients: two cluster_connections per other node; replica links are not connected_clients" {
        foreach i {0 1 2 3 4 5} {
            set info [cn $i info clients]
            assert_equal 10 [info_field $info cluster_connections] "node $i"
            set list [split [string trim [cn $i client list]] "\n"]
            set replicas [llength [lsearch -all -regexp $list {flags=[^ ]*S}]]
            assert_equal [expr {[llength $list] - $replicas}] [info_field $info connected_clients] "node $i"
        }
        # a primary's replica link is in CLIENT LIST, not in connected_clients
        set p [cluster_slot_owner 0]
        assert_match "*flags=S*" [cn $p client list]
    }

    test "SPUBLISH reaches the shard that owns the channel's slot, and only it" {
        set ch [cluster_key_in_slot_of 1 chan]
        set p [cluster_slot_owner [cn 0 cluster keyslot $ch]]
        set r [lindex [cluster_replicas_of $p] 0]
        # a replica serves SSUBSCRIBE for its primary's slots without READONLY
        set on_primary [ps_subscriber $p ssubscribe $ch]
        set on_replica [ps_subscriber $r ssubscribe $ch]
        # shard channels route like keys: another shard redirects
        set other [expr {($p + 1) % 3}]
        assert_equal "MOVED [cn 0 cluster keyslot $ch] 127.0.0.1:[cnode $p port]" \
            [assert_error * {cn $other spublish $ch x}]
        assert_equal 1 [cn $p spublish $ch hi]
        assert_equal [list smessage $ch hi] [ps_next $on_primary]
        assert_equal [list smessage $ch hi] [ps_next $on_replica]
        # a subscriber of the same channel name in another shard hears nothing: its node
        # refuses the SSUBSCRIBE (the slot is not its shard's)
        assert_match "MOVED *" [assert_error * {cn $other ssubscribe $ch}]
        $on_primary close
        $on_replica close
    }

    test "CONFIG SET cluster-announce-hostname reaches the other nodes (ping extension)" {
        assert_equal OK [cn 1 config set cluster-announce-hostname node-one.example]
        set id [cluster_myid 1]
        ::cl::deadline_wait 10000 {
            [string match "*,node-one.example" [dict get [cluster_nodes_line 0 1] addr]]
        } {node 0 never showed node 1's hostname}
        assert_equal OK [cn 1 config set cluster-announce-hostname ""]
        ::cl::deadline_wait 10000 {
            ![string match "*,*" [dict get [cluster_nodes_line 0 1] addr]]
        } {node 0 kept showing node 1's old hostname}
    }

    # Valkey 8 sends PUBLISH with the 16-byte light header to a node that sets the light-header
    # flag, as ours does. That header names no sender and carries no offset or epochs, so none
    # of it may be taken for the sender's state. A replica is impersonated on a raw link (it is
    # stopped meanwhile, so that its own pings do not repair what a bug would break); the light
    # PUBLISH is one recorded from Valkey 8.0.1.
    test "A light-header PUBLISH is delivered and changes nothing of its sender's state" {
        set r [lindex [cluster_replicas] 0]
        set p [cluster_primary_of $r]
        set o [expr {$p == 0 ? 1 : 0}]
        set sub [ps_subscriber $o subscribe chan]
        exec kill -STOP [cnode $r pid]
        try {
            set fd [bg_connect $o]
            bg_send $fd [bg_msg sender [cluster_myid $r] replicaof [cluster_myid $p] flags 0x0812 \
                             offset 123456 config [dict get [cluster_nodes_line $o $p] epoch] \
                             current [cluster_info_field $o cluster_current_epoch] \
                             port [cnode $r port] cport [expr {[cnode $r port] + 10000}]]
            assert_equal 1 [dict get [bg_parse [bg_read_msg $fd 3000]] type]
            # the bytes a Valkey 8.0.1 primary sent (tests/support/valkey8_packets.tcl)
            bg_send $fd [::v8pkt::bytes light_publish]
            assert_equal {message chan hello} [ps_next $sub]
            # the replica keeps the offset of its last full header: shown, not "loading"
            set seen {}
            foreach sh [cn $o cluster shards] {
                foreach n [dict get $sh nodes] {
                    if {[dict get $n id] eq [cluster_myid $r]} {
                        set seen [list [dict get $n replication-offset] [dict get $n health]]
                    }
                }
            }
            assert_equal {123456 online} $seen
            assert_contains [cluster_myid $r] [cn $o cluster slots]
            close $fd
        } finally {
            exec kill -CONT [cnode $r pid]
            $sub close
        }
        cluster_wait_ok
    }

    # A node that moved is told of with CLUSTER MEET at its new address: the handshake's answer
    # names a node already known, whose address becomes the new one (Valkey 8's
    # nodeUpdateAddressIfNeeded). The node is stopped and a fake answers at the new address,
    # so that only the handshake can teach it.
    test "CLUSTER MEET at a known node's new address: the handshake's answer moves it there" {
        set x [lindex [cluster_replicas] 0]
        set p [cluster_primary_of $x]
        set port [::srv::find_free_port]
        set busport [::srv::find_free_port]
        set reply [bg_msg type 1 sender [cluster_myid $x] replicaof [cluster_myid $p] flags 0x0012 \
                       port $port cport $busport config [dict get [cluster_nodes_line 0 $p] epoch] \
                       current [cluster_info_field 0 cluster_current_epoch]]
        array set ::bf_fake {answered 0 fd {}}
        set srv [socket -server [list bf_fake_accept $reply] -myaddr 127.0.0.1 $busport]
        exec kill -STOP [cnode $x pid]
        try {
            assert_equal OK [cn 0 cluster meet 127.0.0.1 $port $busport]
            set deadline [expr {[clock milliseconds] + 3000}]
            while {[dict get [cluster_nodes_line 0 $x] port] != $port &&
                   [clock milliseconds] < $deadline} {
                update
                after 20
            }
            assert_equal 1 $::bf_fake(answered) "node 0 sent its MEET to the new address"
            set line [cluster_nodes_line 0 $x]
            assert_equal [list $port $busport] [list [dict get $line port] [dict get $line cport]]
            assert_equal 6 [cluster_info_field 0 cluster_known_nodes] "the handshake node is gone"
        } finally {
            exec kill -CONT [cnode $x pid]
            close $srv
            catch {close $::bf_fake(fd)}
        }
        # it speaks again from its real address, and every node has it there
        ::cl::deadline_wait 10000 {
            [dict get [cluster_nodes_line 0 $x] port] == [cnode $x port]
        } {node 0 kept node $x at the fake address: [cn 0 cluster nodes]}
        cluster_wait_ok
    }

    test "cluster-link-sendbuf-limit: a link whose queue passes it (peer stopped) is freed, counted" {
        # A replica is stopped, so nothing fails over. PUBLISHes of 1 MB fill the kernel's
        # buffers towards it, then the link's own queue, which the bus cron checks.
        set r [lindex [cluster_replicas] end]
        regexp {total_cluster_links_buffer_limit_exceeded:(\d+)} [cn 0 cluster info] -> before
        assert_equal OK [cn 0 config set cluster-link-sendbuf-limit 262144]
        set big [string repeat x 1000000]
        exec kill -STOP [cnode $r pid]
        try {
            ::cl::deadline_wait 20000 {
                [cn 0 publish sendbuf $big] == 0 &&
                [regexp {total_cluster_links_buffer_limit_exceeded:(\d+)} [cn 0 cluster info] -> n] &&
                $n > $before
            } {node 0 never freed its link to the stopped node $r}
        } finally {
            exec kill -CONT [cnode $r pid]
            cn 0 config set cluster-link-sendbuf-limit 0
        }
        # the link is made again and the stopped node catches up
        cluster_wait_ok
    }

    test "INFO mem_cluster_links counts the links' buffers: up with a burst of PUBLISH, back to the same figure once sent" {
        # The previous test's megabyte messages drain first (their buffers go once sent).
        ::cl::deadline_wait 10000 {[bf_links_idle 0]} {node 0's links still send: [cn 0 cluster links]}
        set mem [info_field [cn 0 info memory] mem_cluster_links]
        assert_morethan $mem 0
        # Ten 100 KB messages to five peers, queued inside one EXEC: 5 MB in the links' buffers.
        set c [cluster_client 0]
        $c multi
        for {set i 0} {$i < 10} {incr i} { $c publish bf:ch [string repeat x 100000] }
        $c info memory
        set res [$c exec]
        set during [info_field [lindex $res end] mem_cluster_links]
        assert_morethan [expr {$during - $mem}] 1000000
        # An idle link holds no buffer: the figure returns to what it was, not just near it.
        ::cl::deadline_wait 10000 {[info_field [cn 0 info memory] mem_cluster_links] <= $mem} \
            {mem_cluster_links [info_field [cn 0 info memory] mem_cluster_links], before $mem}
        # Received: node 1 publishes, node 0 reads ten 100 KB messages off its links.
        set c1 [cluster_client 1]
        for {set i 0} {$i < 10} {incr i} { $c1 publish bf:ch [string repeat y 100000] }
        $c1 close
        ::cl::deadline_wait 10000 {[info_field [cn 0 info memory] mem_cluster_links] <= $mem} \
            {mem_cluster_links [info_field [cn 0 info memory] mem_cluster_links] after receiving, before $mem}
    }
}
