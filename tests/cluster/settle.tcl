# A cluster settles after every step of a long sequence (issue 26 bug 10, issue 30 point 6):
# slot migrations both ways with clients blocked on keys of the migrating slots, manual
# failovers (one in the middle of a migration), kill -9 of a primary with and without a
# failover before it is back, CLUSTER REPLICATE moves, killed replication links. After each
# step, within a few seconds (node timeout 2 s), every live node must say cluster_state ok,
# know every live node with no fail/fail?/handshake/noaddr flag, show each of them `online`
# in CLUSTER SHARDS, and answer CLUSTER SLOTS with the same bytes.
# Layout: primaries 0, 1, 2 with replicas 3, 4, 5; roles move as the steps go. Replica
# migration is off so that the topology is the one the steps make. No DEBUG command.

set ::st_deadline 5000
# Nodes added later get the same (cluster_add_node would give the defaults). A replica of a
# primary that has written nothing since it started holds offset 0 and shows `loading`, as in
# Valkey 8, until the primary's first PING down the stream, repl-ping-replica-period after
# the primary's start (Valkey's schedule): 1 s here, so that a restarted primary's replica
# settles within the deadline.
set ::st_config {cluster-node-timeout 2000 cluster-allow-replica-migration no repl-ping-replica-period 1}

# {} once the live nodes are settled, else the first thing that is not.
proc st_unsettled {} {
    set alive [cluster_alive_nodes]
    set ids [lsort [lmap i $alive {cluster_myid $i}]]
    set ref {}
    foreach i $alive {
        set st [cluster_info_field $i cluster_state]
        if {$st ne "ok"} { return "node $i: cluster_state $st" }
        set seen {}
        foreach e [cluster_nodes_parsed $i] {
            foreach f {fail fail? handshake noaddr} {
                if {$f in [dict get $e flags]} {
                    return "node $i: flags [join [dict get $e flags] ,] on node\
                            [cluster_idx_of_id [dict get $e id]]"
                }
            }
            lappend seen [dict get $e id]
        }
        if {[lsort $seen] ne $ids} { return "node $i knows {[lsort $seen]}, the live nodes are {$ids}" }
        set listed {}
        foreach shard [cn $i cluster shards] {
            foreach n [dict get $shard nodes] {
                lappend listed [dict get $n id]
                if {[dict get $n health] ne "online"} {
                    return "node $i: CLUSTER SHARDS says node [cluster_idx_of_id [dict get $n id]]\
                            ([dict get $n role], replication-offset [dict get $n replication-offset])\
                            is [dict get $n health]"
                }
            }
        }
        if {[lsort $listed] ne $ids} { return "node $i: CLUSTER SHARDS lists {[lsort $listed]}" }
        set raw [cluster_raw $i {} cluster slots]
        if {$ref eq {}} {
            set ref $raw
            set refidx $i
        } elseif {$raw ne $ref} {
            return "CLUSTER SLOTS of node $i differs from node $refidx's:\n[string map {\r\n " "} $raw]\
                    \nvs\n[string map {\r\n " "} $ref]"
        }
    }
    return {}
}

# Every live node knows the hostname of every live node.
proc st_hostnames_known {} {
    foreach i [cluster_alive_nodes] {
        foreach e [cluster_nodes_parsed $i] {
            set j [cluster_idx_of_id [dict get $e id]]
            if {[dict get $e host] ne "node$j.settle.test"} { return 0 }
        }
    }
    return 1
}

proc st_settled {what} {
    set t0 [clock milliseconds]
    ::cl::deadline_wait $::st_deadline {[set ::st_why [st_unsettled]] eq {}} \
        {not settled after $what: $::st_why}
    ::testutil::log "settled after $what in [expr {[clock milliseconds] - $t0}] ms"
}

# The slot of a fresh key of primary idx (by `prefix`), and the key.
proc st_slot_of {idx prefix} {
    set k [cluster_key_in_slot_of $idx $prefix]
    return [list [cn $idx cluster keyslot $k] $k]
}

proc st_open {slot src dst} {
    assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $src]]
    assert_equal OK [cn $src cluster setslot $slot migrating [cluster_myid $dst]]
}

proc st_move_keys {slot src dst} {
    while {[llength [set keys [cn $src cluster getkeysinslot $slot 100]]]} {
        assert_equal OK [cn $src migrate [cnode $dst host] [cnode $dst port] "" 0 5000 keys {*}$keys]
    }
}

proc st_close {slot src dst} {
    assert_equal OK [cn $dst cluster setslot $slot node [cluster_myid $dst]]
    assert_equal OK [cn $src cluster setslot $slot node [cluster_myid $dst]]
}

proc st_migrate {slot src dst} {
    st_open $slot $src $dst
    st_move_keys $slot $src $dst
    st_close $slot $src $dst
}

# TCP connections matching an ss filter are destroyed (SOCK_DESTROY), as a network fault would.
proc st_kill_sockets {filter} {
    exec ss -K {*}$filter >/dev/null 2>/dev/null
}

proc st_role {idx} { info_field [cn $idx info replication] role }

# idx runs a manual failover of its primary and becomes the primary.
proc st_failover {idx} {
    assert_equal OK [cn $idx cluster failover]
    ::cl::deadline_wait 10000 {[st_role $idx] eq "master"} {node $idx never took over}
}

proc st_blocked {idx n} {
    ::cl::deadline_wait 5000 {[info_field [cn $idx info clients] blocked_clients] == $n} \
        {node $idx: blocked_clients [info_field [cn $idx info clients] blocked_clients], not $n}
}

start_cluster [list primaries 3 replicas 1 create manual config $::st_config] {
    # Who is what, kept up to date by the steps.
    set A 0; set B 1; set C 2; set A2 3; set B2 4; set C2 5

    test "Settled once created, and once every node announces a hostname" {
        st_settled "creation"
        foreach i [cluster_alive_nodes] {
            assert_equal OK [cn $i config set cluster-announce-hostname node$i.settle.test]
            # the node itself shows it at once, as Valkey 8 does (it waited for the next cron)
            assert_equal node$i.settle.test [dict get [cluster_self $i] host] "node $i"
            assert_equal OK [cn $i config rewrite]   ;# restarts keep it
        }
        # the others learn it from the pings
        ::cl::deadline_wait $::st_deadline {[st_hostnames_known]} \
            {the hostnames did not reach every node}
        st_settled "the hostnames"
    }

    test "Migration A to B with a client blocked in BLPOP on a key of the slot" {
        lassign [st_slot_of $A st1] s k
        for {set i 0} {$i < 20} {incr i} { cn $A set "{$k}$i" $i }
        set bl [cluster_client $A]
        $bl deferred 1
        $bl blpop "{$k}list" 0
        st_blocked $A 1
        st_open $s $A $B
        st_move_keys $s $A $B
        st_close $s $A $B
        assert_equal "MOVED $s [cnode $B host]:[cnode $B port]" [assert_error * {$bl read}]
        assert_equal 19 [cn $B get "{$k}19"]
        st_settled "slot $s moved from A to B"
    }

    test "Migration B to A with a client blocked in XREADGROUP on a stream of the slot" {
        lassign [st_slot_of $B st2] s k
        set key "{$k}stream"
        assert_equal 1-1 [cn $B xadd $key 1-1 f v]
        assert_equal OK [cn $B xgroup create $key g $]
        set rd [cluster_client $B]
        $rd deferred 1
        $rd xreadgroup group g c1 block 0 streams $key >
        st_blocked $B 1
        st_open $s $B $A
        st_move_keys $s $B $A
        set ::st_xread [catch {$rd read} ::st_xread_reply]
        st_close $s $B $A
        # the stream left: the woken reader is sent where the key went (as Valkey 8.0.1 does)
        assert_equal [list 1 "ASK $s [cnode $A host]:[cnode $A port]"] [list $::st_xread $::st_xread_reply]
        assert_equal 1 [cn $A xlen $key]
        st_settled "slot $s moved from B to A"
    }

    test "CLUSTER FAILOVER: A's replica takes over" {
        st_failover $A2
        lassign [list $A2 $A] A A2
        st_settled "the manual failover of shard A"
    }

    test "A manual failover of the source in the middle of a migration C to A" {
        lassign [st_slot_of $C st3] s k
        for {set i 0} {$i < 10} {incr i} { cn $C set "{$k}$i" $i }
        st_open $s $C $A
        assert_equal 1 [cn $C wait 1 5000]
        st_failover $C2
        lassign [list $C2 $C] C C2
        # the new primary has the migrating state of its old primary
        assert_equal [list "\[$s->-[cluster_myid $A]\]"] [cluster_open_slots $C]
        st_move_keys $s $C $A
        st_close $s $C $A
        st_settled "slot $s moved from C to A across a failover"
    }

    test "kill -9 of primary B, its replica takes over, B restarts as a replica" {
        cn $B set [cluster_key_in_slot_of $B st4] x
        assert_equal 1 [cn $B wait 1 5000]
        cluster_kill $B
        ::cl::deadline_wait 20000 {[st_role $B2] eq "master"} {node $B2 never took over}
        lassign [list $B2 $B] B B2
        cluster_restart $B2
        st_settled "the restart of the old primary of B"
        assert_equal slave [st_role $B2]
    }

    test "CLUSTER REPLICATE: B's replica moves to A, then A's replica moves to B" {
        assert_equal OK [cn $B2 cluster replicate [cluster_myid $A]]
        st_settled "node $B2 moved to shard A"
        assert_equal OK [cn $A2 cluster replicate [cluster_myid $B]]
        lassign [list $A2 $B2] B2 A2
        st_settled "node $B2 moved to shard B"
    }

    test "Killed replication links, from either side" {
        cn $A client kill type replica
        st_settled "the link of A's replica killed on A"
        cn $B2 client kill type master
        st_settled "the link of B's replica killed on the replica"
        # every bus connection of each node in turn, both ends, reset under it
        foreach i [cluster_alive_nodes] {
            set cport [expr {[cnode $i port] + 10000}]
            st_kill_sockets "( sport = :$cport or dport = :$cport )"
            st_settled "the bus links of node $i reset"
        }
        st_kill_sockets "( sport = :[cnode $C port] or dport = :[cnode $C port] )"
        ::cl::drop_client $C   ;# the test's own connection went too
        st_settled "every connection to C's port reset"
    }

    test "kill -9 of a replica and its restart" {
        cluster_kill $C2
        cluster_restart $C2
        st_settled "the restart of C's replica"
    }

    test "kill -9 of a replica that everyone marks FAIL, and its restart" {
        cluster_kill $A2
        foreach i [cluster_alive_nodes] { cluster_wait_flag $i $A2 fail 20000 }
        cluster_restart $A2
        st_settled "the restart of A's failed replica"
    }

    test "kill -9 of primary A, failover, and a restart long after" {
        cn $A set [cluster_key_in_slot_of $A st6] x
        assert_equal 1 [cn $A wait 1 5000]
        cluster_kill $A
        ::cl::deadline_wait 20000 {[st_role $A2] eq "master"} {node $A2 never took over}
        lassign [list $A2 $A] A A2
        # past the time after which a FAIL primary with slots would be cleared (2 node timeouts)
        foreach i [cluster_alive_nodes] { cluster_wait_flag $i $A2 fail 20000 }
        after 4500
        cluster_restart $A2
        st_settled "the late restart of the old primary of A"
        assert_equal slave [st_role $A2]
    }

    test "A manual failover of the target in the middle of a migration B to A" {
        lassign [st_slot_of $B st7] s k
        for {set i 0} {$i < 10} {incr i} { cn $B set "{$k}$i" $i }
        st_open $s $B $A
        assert_equal 1 [cn $A wait 1 5000]
        st_failover $A2
        lassign [list $A2 $A] A A2
        assert_equal [list "\[$s-<-[cluster_myid $B]\]"] [cluster_open_slots $A]
        st_move_keys $s $B $A
        st_close $s $B $A
        st_settled "slot $s moved from B to A across a failover of the target"
    }

    test "kill -9 of primary C and its restart before anyone notices" {
        cn $C set [cluster_key_in_slot_of $C st5] x
        assert_equal 1 [cn $C wait 1 5000]
        cluster_kill $C
        cluster_restart $C
        st_settled "the quick restart of C"
        assert_equal master [st_role $C]
    }

    test "Migrations both ways between A and B, back to back" {
        set moves {}
        foreach {src dst p} [list $A $B m1 $B $A m2 $A $B m3 $B $A m4] {
            lassign [st_slot_of $src st$p] s k
            cn $src set $k v
            st_migrate $s $src $dst
            lappend moves $s
        }
        st_settled "slots $moves moved"
    }

    test "A node added as a second replica of A, another as a primary given a slot and back" {
        set n1 [cluster_add_node {} $::st_config]
        assert_equal OK [cn $n1 config set cluster-announce-hostname node$n1.settle.test]
        assert_equal OK [cn $n1 cluster meet [cnode $A host] [cnode $A port]]
        cluster_wait_known $n1 7
        st_settled "node $n1 joined"
        assert_equal OK [cn $n1 cluster replicate [cluster_myid $A]]
        st_settled "node $n1 became a replica of A"
        set n2 [cluster_add_node {} $::st_config]
        assert_equal OK [cn $n2 cluster meet [cnode $B host] [cnode $B port]]
        cluster_wait_known $n2 8
        st_settled "node $n2 joined"
        lassign [st_slot_of $B st8] s k
        cn $B set $k v
        st_migrate $s $B $n2
        st_settled "slot $s moved from B to node $n2"
        st_migrate $s $n2 $B
        st_settled "slot $s moved back from node $n2 to B"
        assert_equal OK [cn $n2 cluster replicate [cluster_myid $C]]
        st_settled "node $n2 became a replica of C"
    }

    test "CLUSTER FAILOVER back in every shard" {
        foreach v {A B C} {
            set p [set $v]; set r [set ${v}2]
            st_failover $r
            set $v $r; set ${v}2 $p
            st_settled "the manual failover of shard $v"
        }
    }
}
