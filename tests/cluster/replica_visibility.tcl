# Which replicas CLUSTER SLOTS lists and how CLUSTER SHARDS rates them, on every node (the
# primary, the replica itself, a node of another shard), as Valkey 8 decides from the
# replication offset a replica announces: 0 means it holds none of its primary's history yet.
# - A replica receiving its first full sync: left out of CLUSTER SLOTS, "loading" in SHARDS.
# - A replica whose link to its primary is down (the primary refuses it, but is not failing):
#   listed, "online", with the offset its data holds.
# - The same replica restarted from its own dump.rdb: the snapshot recorded its primary's
#   replication ID and offset, so it is still listed and "online" with that offset, and it
#   continues the primary's stream by PSYNC once it is let in.
# - A replica loading a full sync slowly (key-load-delay) serves events between keys, as
#   Valkey 8 does: -LOADING to clients, INFO loading:1, PONGs on the bus (offset 0), so it is
#   out of CLUSTER SLOTS and never flagged failing however long the load.

proc rv_slots_nodes {idx} {
    # The node IDs serving slots 0-8191 in CLUSTER SLOTS of node idx.
    foreach entry [cn $idx cluster slots] {
        if {[lindex $entry 0] == 0} {
            set ids {}
            foreach n [lrange $entry 2 end] { lappend ids [lindex $n 2] }
            return $ids
        }
    }
    return {}
}

# {health offset} of node `id` in CLUSTER SHARDS of node idx.
proc rv_shards_entry {idx id} {
    foreach shard [cn $idx cluster shards] {
        foreach n [dict get $shard nodes] {
            if {[dict get $n id] eq $id} {
                return [list [dict get $n health] [dict get $n replication-offset]]
            }
        }
    }
    return {}
}

proc rv_repl {idx field} { return [info_field [cn $idx info replication] $field] }

start_cluster {primaries 0 nodes 3 create none} {
    # node 0: primary of 0-8191 with data; node 2: primary of 8192-16383; node 1: replica of 0.
    set p [cluster_myid 0]
    set rep [cluster_myid 1]

    test "A replica receiving its first full sync is out of CLUSTER SLOTS and loading in SHARDS, on every node" {
        cn 0 cluster addslotsrange 0 8191
        cn 2 cluster addslotsrange 8192 16383
        foreach i {1 2} { cn $i cluster meet 127.0.0.1 [cnode 0 port] }
        foreach i {0 1 2} { cluster_wait_known $i 3 }
        cn 0 debug populate 5000 key 100
        cn 0 config set rdb-key-save-delay 1000   ;# 1 ms a key: a 5 s snapshot
        assert_equal OK [cn 1 cluster replicate $p]
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {[dict get [cluster_nodes_line $i 1] primary] eq $p} \
                "node $i sees node 1 as a replica of node 0"
        }
        ::cl::deadline_wait 10000 {[rv_repl 1 master_sync_in_progress] == 1} "node 1 syncing"
        after 1200   ;# pings from node 1 in its new role reach everyone
        foreach i {0 1 2} {
            assert_equal [list $p] [rv_slots_nodes $i] "CLUSTER SLOTS of node $i during the sync"
            assert_equal {loading 0} [rv_shards_entry $i $rep] "CLUSTER SHARDS of node $i during the sync"
        }
        assert_equal 1 [rv_repl 1 master_sync_in_progress] "the sync ended before the checks"
        cn 0 config set rdb-key-save-delay 0
        foreach i {0 1 2} {
            ::cl::deadline_wait 20000 {[rv_slots_nodes $i] eq [list $p $rep]} \
                "node $i lists the synced replica"
            assert_equal online [lindex [rv_shards_entry $i $rep] 0] "CLUSTER SHARDS of node $i"
        }
        assert_equal 5000 [cn 1 dbsize]
    }

    test "A replica whose primary link is down (the primary refuses it) stays listed and online" {
        # The primary now asks for a password the replica does not have: the replica cannot
        # get back in, while the primary itself stays up and reachable on the bus.
        cn 0 config set requirepass sekret
        assert_morethan [cn 0 client kill type replica] 0
        ::cl::deadline_wait 10000 {[rv_repl 1 master_link_status] eq "down"} "node 1 link down"
        after 2500   ;# several retries refused, and pings from node 1 meanwhile
        assert_equal down [rv_repl 1 master_link_status]
        assert_equal 0 [rv_repl 1 master_sync_in_progress]
        foreach i {0 1 2} {
            assert_equal [list $p $rep] [rv_slots_nodes $i] "CLUSTER SLOTS of node $i, link down"
            lassign [rv_shards_entry $i $rep] health offset
            assert_equal online $health "CLUSTER SHARDS of node $i, link down"
            assert_morethan $offset 0
        }
    }

    test "Restarted from its dump.rdb with the link still refused: listed, online, its snapshot's offset; then PSYNC continues" {
        assert_equal OK [cn 1 save]
        set saved [rv_repl 1 slave_repl_offset]
        assert_morethan $saved 0
        cluster_restart 1
        assert_equal 5000 [cn 1 dbsize]
        after 2500   ;# refused again; pings from the restarted node reach everyone
        assert_equal down [rv_repl 1 master_link_status]
        foreach i {0 1 2} {
            assert_equal [list $p $rep] [rv_slots_nodes $i] "CLUSTER SLOTS of node $i after the restart"
            assert_equal [list online $saved] [rv_shards_entry $i $rep] \
                "CLUSTER SHARDS of node $i after the restart"
        }
        assert_equal $saved [rv_repl 1 slave_repl_offset]
        set full [info_field [cn 0 info stats] sync_full]
        set partial [info_field [cn 0 info stats] sync_partial_ok]
        cn 0 config set requirepass ""
        ::cl::deadline_wait 10000 {[rv_repl 1 master_link_status] eq "up"} "node 1 back in"
        assert_equal $full [info_field [cn 0 info stats] sync_full] "a full sync after the restart"
        assert_equal [expr {$partial + 1}] [info_field [cn 0 info stats] sync_partial_ok]
        set k after:0
        for {set j 1} {[cn 0 cluster keyslot $k] > 8191} {incr j} { set k after:$j }
        cn 0 set $k 1
        ::cl::deadline_wait 10000 {[cn 1 readonly] eq "OK" && [cn 1 get $k] eq "1"} \
            "the stream reaches node 1"
    }

    test "A replica loading a full sync serves its old data, is out of CLUSTER SLOTS and never failing" {
        # 5100 keys at 2 ms each: 10 s of loading, over 3 node timeouts. The snapshot is parsed
        # as it arrives and swapped in whole at its end (repl/staged_load.h): until then the
        # replica answers from the data it had (Valkey 8 answers -LOADING once the transfer is
        # in; both keep it out of CLUSTER SLOTS, by its replication offset of 0).
        cn 1 config set key-load-delay 2000
        cn 0 config set repl-backlog-size 16384
        set old [cn 1 dbsize]
        set tag t0
        for {set j 1} {[cn 0 cluster keyslot "{$tag}"] > 8191} {incr j} { set tag t$j }
        # The link cut, then more writes than the backlog holds: the replica must sync in full.
        set c [cluster_client 0]
        $c multi
        $c client kill type replica
        for {set j 0} {$j < 100} {incr j} { $c set "{$tag}$j" [string repeat A 1024] }
        $c exec
        ::cl::deadline_wait 10000 {[rv_repl 1 master_sync_in_progress] == 1 &&
                                   [rv_repl 1 master_sync_read_bytes] > 0} \
            "node 1 receiving its full sync"
        assert_equal PONG [cn 1 ping]
        assert_equal $old [cn 1 dbsize]
        assert_equal 0 [info_field [cn 1 info persistence] loading]
        foreach i {0 2} {
            ::cl::deadline_wait 5000 {[rv_slots_nodes $i] eq [list $p]} \
                "node $i hides the syncing replica from CLUSTER SLOTS"
        }
        # Past the node timeout: its PONGs kept it alive everywhere.
        after [expr {2 * $::cl::node_timeout}]
        assert_equal 1 [rv_repl 1 master_sync_in_progress] "the sync ended before the checks"
        assert_equal $old [cn 1 dbsize]
        foreach i {0 2} {
            assert_equal {slave} [dict get [cluster_nodes_line $i 1] flags] "node $i's view of node 1"
        }
        cn 1 config set key-load-delay 0
        ::cl::deadline_wait 20000 {[rv_repl 1 master_link_status] eq "up"} "sync ends"
        foreach i {0 2} {
            ::cl::deadline_wait 10000 {[rv_slots_nodes $i] eq [list $p $rep]} \
                "node $i lists the synced replica"
        }
        assert_equal [cn 0 dbsize] [cn 1 dbsize]
        assert_equal [cn 0 get "{$tag}99"] [cn 1 readonly; cn 1 get "{$tag}99"]
    }
}
