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
}
