# A primary's replicas are listed in one order on every node, whatever order each node learned
# them in: sorted by node ID, as Valkey 8 keeps them (CLUSTER SHARDS lists a shard's nodes in
# the order each node learned them, in Valkey 8 too: not asserted). A client comparing CLUSTER SLOTS across
# nodes (or a mixed cluster with Valkey 8 nodes) sees the same bytes everywhere.

start_cluster {primaries 1 replicas 0 nodes 3 create none} {
    test "Replicas attached in descending ID order are listed by ascending ID on every node" {
        cn 0 cluster addslotsrange 0 16383
        foreach i {1 2} { cn $i cluster meet 127.0.0.1 [cnode 0 port] }
        foreach i {0 1 2} { cluster_wait_known $i 3 }
        set p [cluster_myid 0]
        set ids [lsort [list [cluster_myid 1] [cluster_myid 2]]]
        set low [cluster_idx_of_id [lindex $ids 0]]
        set high [cluster_idx_of_id [lindex $ids 1]]
        # The larger ID attaches first, and every node learns it before the other.
        assert_equal OK [cn $high cluster replicate $p]
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {[dict get [cluster_nodes_line $i $high] primary] eq $p} \
                "node $i sees node $high as a replica"
        }
        cluster_wait_state 0 ok
        cn 0 set k v
        ::cl::deadline_wait 10000 {[llength [lindex [cn 0 cluster slots] 0]] == 4} \
            "node $high synced"
        assert_equal OK [cn $low cluster replicate $p]
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {[llength [lindex [cn $i cluster slots] 0]] == 5} \
                "node $i lists both replicas in CLUSTER SLOTS"
        }
        foreach i {0 1 2} {
            set entry [lindex [cn $i cluster slots] 0]
            assert_equal $ids [list [lindex $entry 3 2] [lindex $entry 4 2]] "CLUSTER SLOTS on node $i"
            set reps {}
            foreach line [cn $i cluster replicas $p] { lappend reps [lindex [split $line " "] 0] }
            assert_equal $ids $reps "CLUSTER REPLICAS on node $i"
        }
        set raw [cluster_raw 0 {} cluster slots]
        foreach i {1 2} { assert_equal $raw [cluster_raw $i {} cluster slots] "raw CLUSTER SLOTS, node $i" }
    }
}
