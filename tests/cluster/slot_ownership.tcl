# A primary that loses a slot to a newer claim while it still holds keys there (a "dirty"
# slot) deletes them, and the deletion leaves the node as every write does: to its replicas
# and to its AOF, so the keys do not come back when it restarts (as Valkey 8's
# delKeysInSlot propagates them).

start_cluster {primaries 2 replicas 1 create manual config {appendonly yes}} {
    test "Keys of a slot lost to a newer claim are deleted on the replica and in the AOF too" {
        set k [cluster_key_in_slot_of 0 dirty]
        set slot [cn 0 cluster keyslot $k]
        foreach s {a b c} { assert_equal OK [cn 0 set "{$k}$s" $s] }
        assert_equal 1 [cn 0 wait 1 5000]
        assert_equal 3 [cn 2 cluster countkeysinslot $slot]
        # node 1 claims the slot through IMPORTING, which gives it the largest epoch in the same
        # step, so its claim wins (claimed first and bumped after, a packet of node 0 in between
        # could take the slot back)
        assert_equal OK [cn 1 cluster setslot $slot importing [cluster_myid 0]]
        assert_equal OK [cn 1 cluster setslot $slot node [cluster_myid 1]]
        ::cl::deadline_wait 10000 {
            [cluster_slot_owner $slot 0] == 1 && [cn 0 cluster countkeysinslot $slot] == 0
        } {node 0 kept slot $slot or its keys: [cn 0 cluster nodes]}
        assert_equal 0 [cn 0 dbsize]
        ::cl::deadline_wait 10000 {[cn 2 cluster countkeysinslot $slot] == 0} \
            {the replica kept the keys of slot $slot}
        # the deletion is in the AOF: the restarted node loads no key of the slot
        cluster_restart 0
        assert_equal 0 [cn 0 cluster countkeysinslot $slot]
        assert_equal 0 [cn 0 dbsize]
        cluster_wait_ok
    }

    # CLUSTER SETSLOT reaches replicas only, never the AOF (as Valkey 8 propagates it): slot
    # ownership lives in nodes.conf. Replayed at start, a node's old SETSLOTs claimed again, with
    # a new epoch, slots it had given away since; in Valkey 8.0.1's cluster test 04-resharding
    # the claim reached the slots' owners mid-load and they deleted the keys as a newer owner's.
    test "CLUSTER SETSLOT stays out of the AOF: a restarted node claims nothing it gave away" {
        set k [cluster_key_in_slot_of 0 aofslot]
        set slot [cn 0 cluster keyslot $k]
        set id0 [cluster_myid 0]
        set id1 [cluster_myid 1]
        # node 1 imports the slot (SETSLOT NODE on the importing side takes a new epoch), then
        # gives it back to node 0
        foreach {idx args} [list 1 [list importing $id0] 0 [list migrating $id1] \
                                1 [list node $id1] 0 [list node $id1]] {
            assert_equal OK [cn $idx cluster setslot $slot {*}$args]
        }
        ::cl::deadline_wait 10000 {[cluster_slot_owner $slot 0] == 1 && [cluster_slot_owner $slot 2] == 1} \
            {slot $slot not node 1's everywhere}
        foreach {idx args} [list 0 [list importing $id1] 1 [list migrating $id0] \
                                0 [list node $id0] 1 [list node $id0]] {
            assert_equal OK [cn $idx cluster setslot $slot {*}$args]
        }
        ::cl::deadline_wait 10000 {[cluster_slot_owner $slot 1] == 0 && [cluster_slot_owner $slot 2] == 0} \
            {slot $slot not node 0's everywhere}
        assert_equal OK [cn 0 set $k v]
        set aof {}
        foreach f [glob -directory [file join [cnode 1 dir] appendonlydir] *] {
            set fd [open $f rb]
            append aof [read $fd]
            close $fd
        }
        assert_equal 0 [string match -nocase *setslot* $aof]
        # what an AOF of an earlier version holds: that node 1 imported the slot; not replayed
        set epoch [cluster_info_field 1 cluster_my_epoch]
        cluster_stop 1
        set incr [glob -directory [file join [cnode 1 dir] appendonlydir] *.incr.aof]
        set fd [open [lindex $incr 0] ab]
        puts -nonewline $fd [::resp::encode_command cluster setslot $slot importing $id0]
        puts -nonewline $fd [::resp::encode_command cluster setslot $slot node $id1]
        close $fd
        cluster_restart 1
        cluster_wait_ok
        assert_equal $epoch [cluster_info_field 1 cluster_my_epoch]
        assert_equal 0 [cluster_slot_owner $slot 1]
        assert_equal 0 [cluster_slot_owner $slot 0]
        assert_equal v [cn 0 get $k]
    }
}
