# Which replica wins an election. A replica that is still full-syncing from its primary holds
# none of that primary's history, whatever it held before: it announces offset 0 (as Valkey 8's
# replicationGetReplicaOffset does) and ranks behind every replica in step, so the shard's data
# survives the primary's death. Here the primary that received another primary's last slots
# gets that primary and its replica as new replicas, whose full syncs never finish (a slow
# snapshot): they must announce 0, below the primary's own synced replica.

# The replication offset `observer` shows for `subject` in CLUSTER SHARDS.
proc ce_offset {observer subject} {
    foreach sh [cn $observer cluster shards] {
        foreach n [dict get $sh nodes] {
            if {[dict get $n id] eq [cluster_myid $subject]} { return [dict get $n replication-offset] }
        }
    }
    return {}
}

start_cluster {primaries 2 replicas 1 create manual} {
    test "An emptied primary and its replica, syncing from their new primary, announce offset 0 and rank last" {
        set id1 [cluster_myid 1]
        # node 0 gets far ahead in offset (writes that leave no keys); node 1 holds keys
        set k0 [cluster_key_in_slot_of 0 big]
        set big [string repeat x 100000]
        for {set i 0} {$i < 10} {incr i} { cn 0 set $k0 $big; cn 0 del $k0 }
        for {set i 0} {$i < 50} {incr i} { assert_equal OK [cn 1 set [cluster_key_in_slot_of 1 k$i] v$i] }
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal 1 [cn 0 wait 1 5000]
        assert_morethan [info_field [cn 0 info replication] master_repl_offset] \
            [expr {10 * [info_field [cn 1 info replication] master_repl_offset]}]
        # node 1's full syncs from now on take minutes
        cn 1 config set rdb-key-save-delay 5000000
        # node 1 takes every slot of node 0 with the largest epoch: node 0 and its replica 2
        # become replicas of node 1
        set c [cluster_client 1]
        $c deferred 1
        lassign [lindex [dict get [cluster_self 0] slots] 0] range
        lassign [split $range -] first last
        for {set s $first} {$s <= $last} {incr s} { $c cluster setslot $s node $id1 }
        for {set s $first} {$s <= $last} {incr s} { $c read }
        $c close
        assert_match "BUMPED *" [cn 1 cluster bumpepoch]
        foreach i {0 2} {
            ::cl::deadline_wait 20000 {
                [dict get [cluster_self $i] primary] eq $id1
            } {node $i never became a replica of node 1: [cn $i cluster nodes]}
        }
        # from the moment they follow node 1 (another shard), both announce offset 0
        ::cl::deadline_wait 30000 {
            [ce_offset 3 0] == 0 && [ce_offset 3 2] == 0
        } {nodes 0 and 2 announce [ce_offset 3 0] and [ce_offset 3 2] while full-syncing}
        assert_morethan [ce_offset 0 3] 0
        # so node 1's synced replica 3 ranks first (ReplicaRank, tests/cc/election_test.cc)
    }
}
