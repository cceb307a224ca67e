# A cluster replica that restarts loads its own data before its link to its primary does
# anything. nodes.conf names the primary before the data is loaded, and a load serves events
# between keys (every 1,024 commands of an AOF): a link started then took its handshake on
# mid-load, synced in full, and the rest of the replica's AOF was replayed on top of the
# primary's snapshot, so its commands landed twice (Valkey 8.0.1's cluster test 04-resharding
# found it: "Master and slave data digest are different").

start_cluster {primaries 1 replicas 1 create manual config {appendonly yes appendfsync no enable-debug-command yes key-load-delay 50}} {
    test "A restarted replica's AOF is loaded before it syncs, not replayed on its primary's data" {
        set k [cluster_key_in_slot_of 0 rs]
        # 20,000 commands in the replica's AOF: with key-load-delay its load at start takes
        # about a second and serves events 19 times. The primary's snapshot is one small key,
        # parsed as soon as it arrives.
        set c [cluster_client 0]
        $c deferred 1
        for {set i 0} {$i < 20000} {incr i} { $c incr $k }
        for {set i 0} {$i < 20000} {incr i} { $c read }
        $c close
        assert_equal 1 [cn 0 wait 1 5000]
        cluster_restart 1
        ::cl::deadline_wait 20000 {
            [info_field [cn 1 info replication] master_link_status] eq "up" &&
            [info_field [cn 1 info replication] slave_repl_offset] ==
            [info_field [cn 0 info replication] master_repl_offset]
        } {node 1 never caught up: [cn 1 info replication]}
        cn 1 readonly
        assert_equal 20000 [cn 1 get $k]
        assert_equal [cn 0 debug digest] [cn 1 debug digest]
        # what is written after the restart reaches it once, too
        assert_equal 20001 [cn 0 incr $k]
        assert_equal 1 [cn 0 wait 1 5000]
        assert_equal 20001 [cn 1 get $k]
    }
}
