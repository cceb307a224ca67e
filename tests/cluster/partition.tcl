# Network partitions (issue 10): every node in its own network namespace on a bridge, cuts
# made with blackhole routes.  A primary cut off from the majority stops taking writes once
# node-timeout passes (-CLUSTERDOWN), the majority promotes its replica, and after healing
# every shard has one primary and every write acknowledged with WAIT 1 on the majority side
# is there; the isolated primary's unacknowledged write is gone.  Layout: primaries 0, 1, 2
# with replicas 3, 4, 5; node-timeout 3000 ms.

set ::nt $::cl::node_timeout

set ::pt_why [cluster_netns_available]
if {$::pt_why ne {}} {
    test "Network partitions in network namespaces" { skip_deliberate "this machine: $::pt_why" }
    return
}

proc pt_primary_count_for {slot} {
    set n 0
    foreach i [cluster_alive_nodes] {
        set me [cluster_self $i]
        if {"master" ni [dict get $me flags]} continue
        foreach r [dict get $me slots] {
            lassign [split $r -] a b
            if {$b eq {}} { set b $a }
            if {$slot >= $a && $slot <= $b} { incr n }
        }
    }
    return $n
}

start_cluster {primaries 3 replicas 1 create manual netns 1} {

    test "Setup: six nodes, each in its own namespace, reached over the bridge" {
        foreach i {0 1 2 3 4 5} {
            assert_match "10.77.*" [cnode $i host]
            assert_equal PONG [cn $i ping]
        }
        assert_equal "[cnode 0 host]:[cnode 0 port]@[expr {[cnode 0 port] + 10000}]" \
            [dict get [cluster_nodes_line 1 0] addr]
    }

    test "A primary cut off from the majority: CLUSTERDOWN after node-timeout; its replica takes over" {
        set ka [cluster_key_in_slot_of 0 before]
        assert_equal OK [cn 0 set $ka acked]
        assert_equal 1 [cn 0 wait 1 5000]
        set slot0 [cn 0 cluster keyslot $ka]
        # keys chosen while every node still agrees on the slot map
        set kl [cluster_key_in_slot_of 0 lost]
        set k3 [cluster_key_in_slot_of 0 maj3]
        set majkeys {}
        foreach p {1 2} {
            for {set i 0} {$i < 20} {incr i} { lappend majkeys $p [cluster_key_in_slot_of $p "maj$i"] v$i }
        }
        set t0 [clock milliseconds]
        foreach o {1 2 3 4 5} { cluster_cut 0 $o }
        # a write the isolated primary still takes, but cannot get acknowledged by a replica
        assert_equal OK [cn 0 set $kl isolated]
        assert_equal 0 [cn 0 wait 1 200]
        ::cl::deadline_wait [expr {4 * $::nt}] {
            [catch {cn 0 set $ka again} e] && [string match "CLUSTERDOWN*" $e]
        } {the isolated primary kept taking writes: [cn 0 cluster info]}
        set down [expr {[clock milliseconds] - $t0}]
        ::testutil::log "  the isolated primary refused writes after ${down}ms"
        assert [expr {$down >= $::nt}] "refused after ${down}ms, before node-timeout"
        assert_equal "CLUSTERDOWN The cluster is down" [assert_error * {cn 0 set $ka again}]
        # the majority side: node 3 is elected
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [llength [dict get [cluster_self 3] slots]] > 0
        } {node 3 was never promoted: [cn 3 cluster nodes]}
        foreach o {1 2 3 4 5} { cluster_wait_state $o ok [expr {3 * $::nt}] }
        # writes on the majority side, acknowledged by a replica where one is reachable
        foreach {p k v} $majkeys { assert_equal OK [cn $p set $k $v] }
        foreach p {1 2} { assert_equal 1 [cn $p wait 1 5000] }
        set ::pt_acked $majkeys
        assert_equal OK [cn 3 set $k3 on3]
        assert_equal acked [cn 3 get $ka]
        set ::pt_keys [list $ka $kl $k3 $slot0]
    }

    test "After healing: one primary per shard, the acknowledged writes kept, the isolated write gone" {
        lassign $::pt_keys ka kl k3 slot0
        cluster_heal
        ::cl::deadline_wait 30000 {
            [dict get [cluster_self 0] primary] eq [cluster_myid 3] &&
            [info_field [cn 0 info replication] master_link_status] eq "up"
        } {node 0 never became a replica of node 3: [cn 0 cluster nodes]}
        cluster_wait_ok
        foreach s [list $slot0 [cn 1 cluster keyslot [lindex $::pt_acked 1]]] {
            assert_equal 1 [pt_primary_count_for $s] "primaries claiming slot $s"
        }
        cluster_refresh
        assert_equal {1 2 3} [cluster_primaries]
        foreach {p k v} $::pt_acked { assert_equal $v [cn $p get $k] }
        assert_equal acked [cn 3 get $ka]
        assert_equal on3 [cn 3 get $k3]
        assert_equal 0 [cn 3 exists $kl]
        set c [cluster_client 0]
        $c readonly
        assert_equal 0 [$c exists $kl]
        assert_equal on3 [$c get $k3]
    }

    test "A one-way cut: a primary whose packets to the others are lost is failed over too" {
        # node 1 still hears everyone, nobody hears node 1
        foreach o {0 2 3 4 5} { cluster_cut_oneway 1 $o }
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [llength [dict get [cluster_self 4] slots]] > 0
        } {node 4 was never promoted: [cn 4 cluster nodes]}
        cluster_heal
        ::cl::deadline_wait 30000 {
            [dict get [cluster_self 1] primary] eq [cluster_myid 4]
        } {node 1 never became a replica of node 4: [cn 1 cluster nodes]}
        cluster_wait_ok
        foreach {p k v} $::pt_acked {
            if {$p == 1} { set p 4 }
            assert_equal $v [cn $p get $k]
        }
    }
}
