# Which replica wins an election. A replica that is still full-syncing from its primary holds
# none of that primary's history, whatever it held before: it announces offset 0 (as Valkey 8's
# replicationGetReplicaOffset does) and ranks behind every replica in step, so the shard's data
# survives the primary's death. Here the primary that received another primary's last slots
# gets that primary and its replica as new replicas; their full syncs never finish (a slow
# snapshot) when it dies, and its own synced replica must win.

# The replication offset `observer` shows for `subject` in CLUSTER SHARDS.
proc ce_offset {observer subject} {
    foreach sh [cn $observer cluster shards] {
        foreach n [dict get $sh nodes] {
            if {[dict get $n id] eq [cluster_myid $subject]} { return [dict get $n replication-offset] }
        }
    }
    return {}
}

start_cluster {primaries 4 replicas 1 create manual config {cluster-replica-validity-factor 0}} {
    test "An emptied primary and its replica, still syncing from their new primary, lose the election to its synced replica" {
        set id1 [cluster_myid 1]
        # node 0 gets far ahead in offset (writes that leave no keys); node 1 holds keys
        set k0 [cluster_key_in_slot_of 0 big]
        set big [string repeat x 100000]
        for {set i 0} {$i < 10} {incr i} { cn 0 set $k0 $big; cn 0 del $k0 }
        for {set i 0} {$i < 50} {incr i} { assert_equal OK [cn 1 set [cluster_key_in_slot_of 1 k$i] v$i] }
        set k7 [cluster_key_in_slot_of 1 k7]
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal 1 [cn 0 wait 1 5000]
        assert_morethan [info_field [cn 0 info replication] master_repl_offset] \
            [expr {10 * [info_field [cn 1 info replication] master_repl_offset]}]
        # node 1's full syncs from now on take minutes
        cn 1 config set rdb-key-save-delay 5000000
        # node 1 takes every slot of node 0 with the largest epoch: node 0 and its replica 4
        # become replicas of node 1 (nodes 2 and 3, primaries too, make the FAIL quorum)
        set c [cluster_client 1]
        $c deferred 1
        lassign [lindex [dict get [cluster_self 0] slots] 0] range
        lassign [split $range -] first last
        for {set s $first} {$s <= $last} {incr s} { $c cluster setslot $s node $id1 }
        for {set s $first} {$s <= $last} {incr s} { $c read }
        $c close
        set bumped [cn 1 cluster bumpepoch]
        assert_match "BUMPED *" $bumped
        # Every node knows node 1's new epoch before it dies: its replicas ask for votes with
        # it (a replica that missed it asks with the old one and is refused by every voter).
        set e [lindex $bumped 1]
        foreach i {0 2 3 4 5} {
            ::cl::deadline_wait 10000 {[dict get [cluster_nodes_line $i 1] epoch] == $e} \
                {node $i never learned node 1's epoch $e}
        }
        foreach i {0 4} {
            ::cl::deadline_wait 20000 {
                [dict get [cluster_self $i] primary] eq $id1
            } {node $i never became a replica of node 1: [cn $i cluster nodes]}
        }
        # once their full syncs started, both announce offset 0
        ::cl::deadline_wait 30000 {
            [ce_offset 5 0] == 0 && [ce_offset 5 4] == 0
        } {nodes 0 and 4 announce [ce_offset 5 0] and [ce_offset 5 4] while full-syncing}
        assert_morethan [ce_offset 0 5] 0
        cluster_kill 1
        ::cl::deadline_wait 30000 {
            "master" in [dict get [cluster_self 5] flags] ||
            "master" in [dict get [cluster_self 0] flags] || "master" in [dict get [cluster_self 4] flags]
        } {nobody was elected: [cn 5 cluster nodes]}
        assert_contains master [dict get [cluster_self 5] flags] "the synced replica won"
        foreach i {0 4} { assert_contains slave [dict get [cluster_self $i] flags] }
        ::cl::deadline_wait 10000 {
            [cn 5 dbsize] == 50 && [cluster_info_field 5 cluster_state] eq "ok"
        } {node 5 does not serve the shard: [cn 5 cluster nodes]}
        assert_equal v7 [cn 5 get $k7]
    }
}
