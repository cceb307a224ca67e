# Failure detection and its effects (routing while the cluster is down: rule 4 in
# src/cluster/route.h): a primary killed with SIGKILL is flagged `fail` by every other node
# within 2 × cluster-node-timeout; its uncovered slots put the cluster in the fail state
# (CLUSTERDOWN replies), reads go on with cluster-allow-reads-when-down; restarted from its
# nodes.conf it rejoins with the same id, epochs and slots.  Then the primary that has a
# replica is killed: the replica wins the election and the old primary comes back as its
# replica.  Layout: primaries 0, 1, 2; node 3 replicates primary 0; node-timeout 3000 ms.

set ::nt $::cl::node_timeout

# Milliseconds until every node of `observers` shows `flag` on node `subject`, measured
# from `t0`; fails after `timeout_ms`.  Returns {observer ms ...}.
proc fl_wait_flag_all {observers subject flag t0 timeout_ms} {
    set id [cluster_myid $subject]
    set left $observers
    set seen {}
    set deadline [expr {$t0 + $timeout_ms}]
    while {[llength $left]} {
        foreach o $left {
            foreach e [cluster_nodes_parsed $o] {
                if {[dict get $e id] eq $id && $flag in [dict get $e flags]} {
                    dict set seen $o [expr {[clock milliseconds] - $t0}]
                }
            }
        }
        set left [lmap o $left { if {[dict exists $seen $o]} continue; set o }]
        if {[llength $left] && [clock milliseconds] > $deadline} {
            ::testutil::fail "nodes $left never flagged node $subject '$flag' within ${timeout_ms}ms (seen: $seen)"
        }
        after 20
    }
    return $seen
}

# The configEpoch that node `observer` has for the node with ID `id` ("" if unknown).
proc fl_epoch_seen {observer id} {
    foreach e [cluster_nodes_parsed $observer] {
        if {[dict get $e id] eq $id} { return [dict get $e epoch] }
    }
    return ""
}

start_cluster {primaries 3 nodes 4 create none} {

    test "Setup: 3 primaries by hand, node 3 a replica of primary 0" {
        cluster_create_manual {0 1 2} {{3} {} {}}
        cluster_wait_ok
        cluster_refresh
        assert_equal {0 1 2} [cluster_primaries]
        assert_equal {3} [cluster_replicas_of 0]
        # a key on every primary, all replicated
        foreach p {0 1 2} {
            set ::fkey($p) [cluster_key_in_slot_of $p fk]
            cn $p set $::fkey($p) val$p
        }
        assert_equal 1 [cn 0 wait 1 5000]
    }

    test "kill -9 of a primary: every other node flags it fail within 2 x node-timeout" {
        set t0 [clock milliseconds]
        cluster_kill 2
        set seen [fl_wait_flag_all {0 1 3} 2 fail $t0 [expr {4 * $::nt}]]
        set worst [tcl::mathfunc::max {*}[dict values $seen]]
        ::testutil::log "  fail flag seen after (ms, per observer): $seen"
        assert [expr {$worst <= 2 * $::nt}] "fail took ${worst}ms, bound [expr {2 * $::nt}]ms: $seen"
        # the failed node is shown disconnected, still owning its slots
        foreach o {0 1 3} {
            set e [cluster_nodes_line $o 2]
            assert_equal disconnected [dict get $e link]
            assert_equal {master fail} [dict get $e flags]
            assert_equal {10922-16383} [dict get $e slots]
        }
    }

    test "Uncovered slots: cluster_state:fail with the slot counters of a FAIL owner" {
        foreach o {0 1 3} {
            cluster_wait_state $o fail 5000
            set info [cn $o cluster info]
            foreach {f v} {cluster_state fail cluster_slots_assigned 16384 cluster_slots_ok 10922
                           cluster_slots_pfail 0 cluster_slots_fail 5462 cluster_known_nodes 4
                           cluster_size 3} {
                assert_equal $v [info_field $info $f] "$f on node $o"
            }
        }
    }

    test "Cluster down: keyed commands get -CLUSTERDOWN The cluster is down, keyless ones work" {
        set down "CLUSTERDOWN The cluster is down"
        foreach o {0 1} {
            assert_equal $down [assert_error * {cn $o get $::fkey($o)}] "node $o"
            assert_equal $down [assert_error * {cn $o set $::fkey($o) x}] "node $o"
            assert_equal $down [assert_error * {cn $o get $::fkey(2)}] "node $o"
            # CROSSSLOT is checked before the state
            assert_equal "CROSSSLOT Keys in request don't hash to the same slot" \
                [assert_error * {cn $o mget foo bar}]
            assert_equal PONG [cn $o ping]
            assert_equal 1 [cn $o dbsize]
        }
        set c [cluster_client 3]
        $c readonly
        assert_equal $down [assert_error * {$c get $::fkey(0)}]
    }

    test "cluster-allow-reads-when-down yes: local reads served, writes get the read-only text" {
        foreach o {0 1 3} { cn $o config set cluster-allow-reads-when-down yes }
        try {
            set ro "CLUSTERDOWN The cluster is down and only accepts read commands"
            assert_equal val0 [cn 0 get $::fkey(0)]
            assert_equal val1 [cn 1 get $::fkey(1)]
            assert_equal $ro [assert_error * {cn 0 set $::fkey(0) x}]
            assert_equal $ro [assert_error * {cn 1 del $::fkey(1)}]
            # reads of other nodes' slots follow the normal rules: MOVED, even to the failed node
            set slot2 [cn 0 cluster keyslot $::fkey(2)]
            assert_equal "MOVED $slot2 127.0.0.1:[cnode 2 port]" [assert_error * {cn 0 get $::fkey(2)}]
            set slot1 [cn 0 cluster keyslot $::fkey(1)]
            assert_equal "MOVED $slot1 127.0.0.1:[cnode 1 port]" [assert_error * {cn 0 get $::fkey(1)}]
            # a READONLY replica serves its primary's slots
            set c [cluster_client 3]
            assert_equal OK [$c readonly]
            assert_equal val0 [$c get $::fkey(0)]
            assert_equal $ro [assert_error * {$c set $::fkey(0) x}]
            # a transaction with a write is refused at EXEC
            set c0 [cluster_client 0]
            $c0 multi
            $c0 get $::fkey(0)
            assert_equal $ro [assert_error * {$c0 set $::fkey(0) y}]
            assert_equal "EXECABORT Transaction discarded because of previous errors." [assert_error * {$c0 exec}]
            assert_equal val0 [cn 0 get $::fkey(0)]
        } finally {
            foreach o {0 1 3} { cn $o config set cluster-allow-reads-when-down no }
        }
        assert_equal "CLUSTERDOWN The cluster is down" [assert_error * {cn 0 get $::fkey(0)}]
    }

    test "cluster-require-full-coverage no: the majority is ok again, the failed slots redirect" {
        foreach o {0 1 3} { cn $o config set cluster-require-full-coverage no }
        try {
            foreach o {0 1 3} { cluster_wait_state $o ok [expr {3 * $::nt}] }
            assert_equal OK [cn 0 set $::fkey(0) new0]
            assert_equal new0 [cn 0 get $::fkey(0)]
            set slot2 [cn 0 cluster keyslot $::fkey(2)]
            assert_equal "MOVED $slot2 127.0.0.1:[cnode 2 port]" [assert_error * {cn 1 get $::fkey(2)}]
            assert_equal 5462 [cluster_info_field 1 cluster_slots_fail]
        } finally {
            foreach o {0 1 3} { cn $o config set cluster-require-full-coverage yes }
        }
        # (Valkey 8 re-evaluates the state at the next topology event, not at CONFIG SET:
        # nothing is asserted about the state until node 2 is back)
        assert_equal OK [cn 0 set $::fkey(0) val0]
    }

    test "The killed primary restarts from nodes.conf with the same id, epochs and slots" {
        set id [cluster_myid 2]
        set conf [::srv::file_tail [cnode 2 nodes_conf] 100]
        assert_match "*$id 127.0.0.1:[cnode 2 port]@[expr {[cnode 2 port] + 10000}]*myself,master - 0 0 * connected 10922-16383*" $conf
        assert [regexp {vars currentEpoch (\d+) lastVoteEpoch (\d+)} $conf -> cur_epoch vote_epoch] $conf
        set my_epoch [dict get [cluster_nodes_line 0 2] epoch]
        cluster_restart 2
        assert_equal $id [cn 2 cluster myid]
        set self [cluster_self 2]
        assert_equal $my_epoch [dict get $self epoch]
        assert_equal {10922-16383} [dict get $self slots]
        assert_equal $my_epoch [cluster_info_field 2 cluster_my_epoch]
        assert [expr {[cluster_info_field 2 cluster_current_epoch] >= $cur_epoch}]
        assert_equal 4 [cluster_info_field 2 cluster_known_nodes]
        # everybody clears the FAIL flag and the cluster is ok again
        cluster_wait_ok {} [expr {6 * $::nt}]
        foreach o {0 1 3} {
            assert_equal {master} [dict get [cluster_nodes_line $o 2] flags]
            assert_equal $my_epoch [dict get [cluster_nodes_line $o 2] epoch]
        }
        assert_equal OK [cn 2 set $::fkey(2) back]
    }

    test "Killing the primary that has a replica: the replica is promoted with a new epoch" {
        set old_epochs {}
        foreach i {0 1 2} { lappend old_epochs [dict get [cluster_nodes_line 1 $i] epoch] }
        set t0 [clock milliseconds]
        cluster_kill 0
        set seen [fl_wait_flag_all {1 2 3} 0 fail $t0 [expr {4 * $::nt}]]
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [dict get [cluster_self 3] slots] eq {0-5460}
        } {node 3 was never promoted: [cn 3 cluster nodes]}
        set promoted [expr {[clock milliseconds] - $t0}]
        ::testutil::log "  fail seen after $seen ms; replica owns the slots after ${promoted}ms"
        assert_equal {myself master} [dict get [cluster_self 3] flags]
        set e3 [dict get [cluster_self 3] epoch]
        foreach e $old_epochs { assert [expr {$e3 > $e}] "new epoch $e3 vs $old_epochs" }
        assert_equal master [info_field [cn 3 info replication] role]
        # the other nodes learn it and the cluster is ok without node 0
        foreach o {1 2} {
            ::cl::deadline_wait [expr {3 * $::nt}] {
                [dict get [cluster_nodes_line $o 3] slots] eq {0-5460} &&
                [cluster_info_field $o cluster_state] eq "ok"
            } {node $o never saw node 3 own 0-5460: [cn $o cluster nodes]}
        }
        cluster_wait_state 3 ok [expr {3 * $::nt}]
        # the data replicated before the kill is served by the new primary
        assert_equal val0 [cn 3 get $::fkey(0)]
        assert_equal OK [cn 3 set $::fkey(0) after]
        set slot0 [cn 1 cluster keyslot $::fkey(0)]
        assert_equal "MOVED $slot0 127.0.0.1:[cnode 3 port]" [assert_error * {cn 1 get $::fkey(0)}]
    }

    test "The old primary restarted from nodes.conf rejoins as a replica of its successor" {
        set id [cluster_myid 0]
        cluster_restart 0
        assert_equal $id [cn 0 cluster myid]
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [dict get [cluster_self 0] primary] eq [cluster_myid 3] &&
            [info_field [cn 0 info replication] master_link_status] eq "up"
        } {node 0 never became a replica of node 3: [cn 0 cluster nodes]}
        assert_equal {myself slave} [dict get [cluster_self 0] flags]
        assert_equal {} [dict get [cluster_self 0] slots]
        cluster_wait_ok {} [expr {6 * $::nt}]
        cluster_refresh
        assert_equal {1 2 3} [cluster_primaries]
        assert_equal {0} [cluster_replicas_of 3]
        assert_equal 1 [cn 3 wait 1 5000]
        set c [cluster_client 0]
        $c readonly
        assert_equal after [$c get $::fkey(0)]
    }

    test "A stopping node saves in nodes.conf what it learned last; its restart finds it unlocked" {
        # Node 1 learns node 2's new epoch by gossip (a change it may save up to 100 ms later)
        # and is stopped as soon as it knows.
        set id2 [cluster_myid 2]
        assert_match "BUMPED *" [cn 2 cluster bumpepoch]
        set epoch [dict get [cluster_self 2] epoch]
        ::cl::deadline_wait 5000 {[fl_epoch_seen 1 $id2] == $epoch} \
            {node 1 never learned node 2's epoch $epoch}
        cluster_stop 1
        assert_match "*Saving the cluster configuration file before exiting.*" \
            [::srv::file_tail [cnode 1 log] 20]
        set line [lsearch -inline [split [::srv::file_tail [cnode 1 nodes_conf] 100] \n] "$id2 *"]
        assert_equal $epoch [lindex [split $line " "] 6]
        cluster_restart 1
        assert_equal $epoch [fl_epoch_seen 1 $id2]
    }
}

# The start-up hold of cluster_state (as Valkey 8's clusterUpdateState): a primary restarted
# from its nodes.conf reports fail for its first 2 s, so that the cluster can tell it what
# changed while it was down. A new node (no nodes.conf) has no past to hear about: ours skips
# the hold (Valkey 8 holds it too), which is what lets a freshly created cluster be ok at once.
start_cluster {primaries 1 create none} {
    test "A new node that is given every slot is ok at once; restarted from nodes.conf it holds fail first" {
        assert_equal OK [cn 0 cluster addslotsrange 0 16383]
        # the state is evaluated before the loop sleeps: the next command already sees it
        assert_equal ok [cluster_info_field 0 cluster_state]
        assert_equal OK [cn 0 set k v]
        cluster_restart 0
        assert_equal fail [cluster_info_field 0 cluster_state]
        assert_equal "CLUSTERDOWN The cluster is down" [assert_error * {cn 0 get k}]
        cluster_wait_state 0 ok 5000
        assert_equal OK [cn 0 set k v2]
    } {beyond-valkey}
}

# A node that cannot write nodes.conf (here: a directory in its place, so the rename of each
# new file over it fails). What it only learned from others waits for a later save; a change
# of its own (an epoch, a vote, a role, an open slot) stops it before anyone hears of it, as
# Valkey 8 does: its restart must not forget what it promised. (Valkey 8 also stops for what
# it only learned.)
start_cluster {primaries 2 create manual} {
    test "nodes.conf cannot be written: a learned change is logged, a change of its own stops the node" {
        assert_match "BUMPED *" [cn 0 cluster bumpepoch]
        set epoch0 [dict get [cluster_self 0] epoch]
        ::cl::deadline_wait 5000 {[fl_epoch_seen 1 [cluster_myid 0]] == $epoch0} \
            {node 1 never learned node 0's epoch $epoch0}
        set conf [cnode 0 nodes_conf]
        file delete $conf
        file mkdir $conf
        set id1 [cluster_myid 1]
        assert_match "BUMPED *" [cn 1 cluster bumpepoch]
        set epoch1 [dict get [cluster_self 1] epoch]
        ::cl::deadline_wait 5000 {[fl_epoch_seen 0 $id1] == $epoch1} \
            {node 0 never learned node 1's epoch $epoch1}
        wait_for_condition 100 20 {[string match "*Could not save the cluster config*" [::srv::file_tail [cnode 0 log] 20]]} else {
            fail "node 0 did not log the failed save"
        }
        assert_equal PONG [cn 0 ping]
        # asked to save with nothing of its own pending: an error reply, and it goes on
        assert_match "ERR error saving the cluster node config: *" [assert_error * {cn 0 cluster saveconfig}]
        assert_equal PONG [cn 0 ping]
        # its own new epoch: no BUMPED reply, the node is gone
        set pid [cnode 0 pid]
        assert_match "*" [assert_error * {cn 0 cluster bumpepoch}]
        wait_for_condition 100 20 {![::srv::alive $pid]} else { fail "node 0 still runs" }
        ::cl::drop_client 0
        dict set ::cl::nodes(0) gone exited
        assert_match "*Fatal: can't update cluster config file.*" [::srv::file_tail [cnode 0 log] 20]
        file delete -force $conf
    } {beyond-valkey}
}
