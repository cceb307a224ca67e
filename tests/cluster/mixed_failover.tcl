# Failover in a cluster that mixes the tested binary and Debian's redis-server 7.0 (issue 10):
# our replica of a 7.0 primary is elected with 7.0 votes and the 7.0 nodes accept it; a 7.0
# replica of our primary is elected with our votes and our nodes accept it; each old primary
# comes back as a replica of its successor (a 7.0 replica syncs from our node: we write
# snapshot version 10, which 7.0 reads).  Then a manual failover (CLUSTER FAILOVER on the
# replica) each way: no acknowledged write lost, the old primary follows with a partial resync,
# and every node agrees: CLUSTER SLOTS byte for byte, every node online in CLUSTER SHARDS.
# Last, pub/sub across the two kinds: PUBLISH each way, SPUBLISH within a shard each way.
# Layout: primaries 0 (7.0), 1 (7.0), 2 (ours); replicas 3 (ours, of 0), 4 (7.0, of 1),
# 5 (7.0, of 2); node-timeout 3000 ms.

set ::redis7 /usr/bin/redis-server
set ::nt $::cl::node_timeout

# What node idx says about every node: id -> {addr flags-without-myself primary slots}.
proc mf_view {idx} {
    set v {}
    foreach e [cluster_nodes_parsed $idx] {
        set flags [lsearch -all -inline -not [dict get $e flags] myself]
        dict set v [dict get $e id] [list [dict get $e addr] $flags [dict get $e primary] \
                                         [dict get $e slots]]
    }
    return [lsort -stride 2 -index 0 $v]
}

proc mf_agree {} {
    set idxs [cluster_alive_nodes]
    set ref [mf_view [lindex $idxs 0]]
    foreach i $idxs {
        if {[mf_view $i] ne $ref} { return 0 }
        if {[cluster_info_field $i cluster_state] ne "ok"} { return 0 }
    }
    return 1
}

proc mf_wait_agree {} {
    ::cl::deadline_wait 30000 {[mf_agree]} {the nodes disagree: [join [lmap i [cluster_alive_nodes] {
        set x "node $i: [cn $i cluster nodes]"}] "\n"]}
}

proc mf_wait_promoted {idx} {
    ::cl::deadline_wait [expr {6 * $::nt}] {
        [string match "*master*" [dict get [cluster_self $idx] flags]] &&
        [llength [dict get [cluster_self $idx] slots]] > 0
    } {node $idx was never promoted: [cn $idx cluster nodes]}
}

proc mf_wait_replica_of {idx primary} {
    ::cl::deadline_wait 30000 {
        [dict get [cluster_self $idx] primary] eq [cluster_myid $primary] &&
        [info_field [cn $idx info replication] master_link_status] eq "up"
    } {node $idx never became a replica of node $primary: [cn $idx cluster nodes]}
}

# CLUSTER SLOTS (raw reply) identical on every live node, and every live node online in each
# one's CLUSTER SHARDS.  Returns {} when so, else what differs.
proc mf_slots_shards_disagreement {} {
    set idxs [cluster_alive_nodes]
    set ref [cluster_raw [lindex $idxs 0] {} cluster slots]
    foreach i $idxs {
        set raw [cluster_raw $i {} cluster slots]
        if {$raw ne $ref} { return "CLUSTER SLOTS of node $i:\n$raw\nvs node [lindex $idxs 0]:\n$ref" }
        set health {}
        foreach shard [cn $i cluster shards] {
            foreach n [dict get $shard nodes] { lappend health [dict get $n port]=[dict get $n health] }
        }
        set want [lsort [lmap j $idxs { set x [cnode $j port]=online }]]
        if {[lsort $health] ne $want} { return "CLUSTER SHARDS of node $i: [lsort $health]" }
    }
    return {}
}

proc mf_wait_slots_shards_agree {} {
    ::cl::deadline_wait 30000 {[mf_slots_shards_disagreement] eq {}} {[mf_slots_shards_disagreement]}
}

# CLUSTER FAILOVER on replica r of primary p: r is promoted with p's slots, p follows it with a
# partial resync, the write acknowledged before is there and one after reaches p.
proc mf_manual_failover {r p tag} {
    assert_equal [cluster_myid $p] [dict get [cluster_self $r] primary]
    set k [cluster_key_in_slot_of $p $tag]
    assert_equal OK [cn $p set $k before]
    assert_equal 1 [cn $p wait 1 5000]
    set slots [dict get [cluster_self $p] slots]
    assert_equal OK [cn $r cluster failover]
    mf_wait_promoted $r
    mf_wait_replica_of $p $r
    assert_equal $slots [dict get [cluster_self $r] slots]
    mf_wait_agree
    mf_wait_slots_shards_agree
    assert_equal before [cn $r get $k]
    assert_equal OK [cn $r set $k after]
    assert_equal 1 [cn $r wait 1 5000]
    set c [cluster_client $p]
    $c readonly
    assert_equal after [$c get $k]
    assert_match "*Successful partial resynchronization*" [::srv::file_tail [cnode $p log] 100]
    assert_match "*slave0:ip=127.0.0.1,port=[cnode $p port],state=online*" [cn $r info replication]
}

# A subscriber client on node idx (SUBSCRIBE or SSUBSCRIBE), and its next message or "none".
proc mf_subscriber {idx kind channel} {
    set c [cluster_client $idx]
    assert_equal [list $kind $channel 1] [$c $kind $channel]
    return $c
}
proc mf_next {c {timeout_ms 3000}} {
    if {[catch {$c read $timeout_ms} m]} { return none }
    return $m
}

if {![file executable $::redis7]} {
    # the peer is installed by `make test`: without it this file fails, it never skips
    test "Failover in mixed clusters with redis-server 7.0" { require_peer $::redis7 redis-server }
    return
}

start_cluster [list primaries 3 replicas 1 create manual \
                   bins [list 0 $::redis7 1 $::redis7 4 $::redis7 5 $::redis7]] {

    test "Setup: which node runs which server" {
        foreach i {0 1 4 5} { assert_match "7.0.*" [info_field [cn $i info server] redis_version] }
        foreach i {2 3} { assert_equal [cluster_myid $i] [cn $i cluster myid] }
        assert_equal 0 [cluster_primary_of 3]
        assert_equal 2 [cluster_primary_of 5]
    }

    test "kill -9 of a 7.0 primary: our replica is elected with 7.0 votes; the 7.0 nodes accept it" {
        set k [cluster_key_in_slot_of 0 m70]
        assert_equal OK [cn 0 set $k from70]
        assert_equal 1 [cn 0 wait 1 5000]
        set slots [dict get [cluster_self 0] slots]
        cluster_kill 0
        mf_wait_promoted 3
        assert_equal $slots [dict get [cluster_self 3] slots]
        mf_wait_agree
        assert_equal from70 [cn 3 get $k]
        # the 7.0 primaries voted for it
        set granted 0
        foreach i {1 2} {
            if {[string match "*Failover auth granted to [cluster_myid 3]*" [::srv::file_tail [cnode $i log] 300]]} {
                incr granted
            }
        }
        assert_equal 2 $granted
    }

    test "The 7.0 old primary comes back as a replica of ours and loads our snapshot" {
        cluster_restart 0
        mf_wait_replica_of 0 3
        mf_wait_agree
        set k [cluster_key_in_slot_of 3 m70b]
        assert_equal OK [cn 3 set $k ours]
        assert_equal 1 [cn 3 wait 1 5000]
        set c [cluster_client 0]
        $c readonly
        assert_equal ours [$c get $k]
        assert_equal from70 [$c get [cluster_key_in_slot_of 3 m70]]
    }

    test "kill -9 of our primary: its 7.0 replica is elected with our votes; our nodes accept it" {
        set k [cluster_key_in_slot_of 2 ours]
        assert_equal OK [cn 2 set $k fromours]
        assert_equal 1 [cn 2 wait 1 5000]
        set slots [dict get [cluster_self 2] slots]
        cluster_kill 2
        mf_wait_promoted 5
        assert_equal $slots [dict get [cluster_self 5] slots]
        mf_wait_agree
        assert_equal fromours [cn 5 get $k]
        assert_match "*Failover auth granted to [cluster_myid 5]*" [::srv::file_tail [cnode 3 log] 300]
    }

    test "Our old primary comes back as a replica of the 7.0 one" {
        cluster_restart 2
        mf_wait_replica_of 2 5
        mf_wait_agree
        set c [cluster_client 2]
        $c readonly
        assert_equal fromours [$c get [cluster_key_in_slot_of 5 ours]]
        lassign [cluster_cli --cluster check 127.0.0.1:[cnode 3 port]] code out
        assert_equal 0 $code $out
        assert_not_contains {[WARNING]} $out
    }

    test "All nodes agree on CLUSTER SLOTS (byte for byte) and see every node online in CLUSTER SHARDS" {
        mf_wait_slots_shards_agree
    }

    test "CLUSTER FAILOVER on the 7.0 replica of our primary: promoted, ours follows it (partial resync)" {
        # since the tests above: node 3 (ours) is node 0's primary, node 5 (7.0) node 2's
        mf_manual_failover 0 3 mfo70
    }

    test "CLUSTER FAILOVER on our replica of the 7.0 primary: promoted, the 7.0 node follows it (partial resync)" {
        mf_manual_failover 2 5 mfours
    }

    test "Pub/sub across kinds: PUBLISH each way; SPUBLISH reaches the other kind in its shard" {
        # now: node 0 (7.0) is node 3's (ours) primary, node 2 (ours) node 5's (7.0)
        assert_equal [cluster_myid 0] [dict get [cluster_self 3] primary]
        assert_equal [cluster_myid 2] [dict get [cluster_self 5] primary]
        foreach {pub subs} {1 {2 3} 2 {0 1 5}} {
            set cs [lmap i $subs { mf_subscriber $i subscribe mfnews }]
            assert_equal 0 [cn $pub publish mfnews from$pub]
            foreach c $cs i $subs {
                assert_equal [list message mfnews from$pub] [mf_next $c] "PUBLISH on node $pub, subscriber on node $i"
                $c close
            }
        }
        foreach {p r} {0 3 2 5} {
            set ch [cluster_key_in_slot_of $p mfch]
            set cs [lmap i [list $p $r] { mf_subscriber $i ssubscribe $ch }]
            # the count is of the subscribers on the publishing node only
            assert_equal 1 [cn $p spublish $ch sfrom$p]
            foreach c $cs i [list $p $r] {
                assert_equal [list smessage $ch sfrom$p] [mf_next $c] "SPUBLISH on node $p, subscriber on node $i"
                $c close
            }
        }
    }
}
