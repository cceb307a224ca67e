# CLUSTER subcommands: replies and exact error texts, as Valkey 8 gives them (MEET, epochs,
# FORGET, formats).  Primaries 0, 1, 2 built by hand with node 3 replicating primary 0; nodes
# 4 and 5 start alone and are used for the commands that change a node's own configuration.
# A standalone server checks the cluster-disabled replies.

set ::nt $::cl::node_timeout

proc cm_is_id {s} { return [regexp {^[0-9a-f]{40}$} $s] }


start_cluster {primaries 3 nodes 6 create none} {

    test "Setup: primaries 0-2 by hand with SET-CONFIG-EPOCH 1..4, node 3 replicates 0" {
        cluster_create_manual {0 1 2} {{3} {} {}}
        cluster_wait_ok {0 1 2 3}
        cluster_refresh
        assert_equal {3} [cluster_replicas_of 0]
        # the epochs given by hand survive: primaries 1, 2, 3; the replica shows its primary's
        foreach i {0 1 2 3} e {1 2 3 1} {
            assert_equal $e [cluster_info_field $i cluster_my_epoch] "node $i"
            assert_equal 4 [cluster_info_field $i cluster_current_epoch] "node $i"
        }
    }

    test "CLUSTER MEET: invalid addresses and ports, exact errors" {
        foreach {args err} {
            {999.1.1.1 7000} {ERR Invalid node address specified: 999.1.1.1:7000}
            {localhost 7000} {ERR Invalid node address specified: localhost:7000}
            {127.0.0.1 0} {ERR Invalid node address specified: 127.0.0.1:0}
            {127.0.0.1 70000} {ERR Invalid node address specified: 127.0.0.1:70000}
            {127.0.0.1 7000 0} {ERR Invalid node address specified: 127.0.0.1:7000}
            {127.0.0.1 abc} {ERR Invalid base port specified: abc}
            {127.0.0.1 7000 abc} {ERR Invalid bus port specified: abc}
            {127.0.0.1} {ERR wrong number of arguments for 'cluster|meet' command}
        } {
            assert_equal $err [assert_error * {cn 5 cluster meet {*}$args}] "MEET $args"
        }
        assert_equal 1 [cluster_info_field 5 cluster_known_nodes]
    }

    test "CLUSTER MEET of an address nobody answers: a handshake node that expires" {
        # port 1 has no listener; a second MEET of the same pending address is still OK
        assert_equal OK [cn 5 cluster meet 127.0.0.1 1]
        assert_equal OK [cn 5 cluster meet 127.0.0.1 1]
        set hs [lsearch -all -inline [split [cn 5 cluster nodes] \n] "*handshake*"]
        assert_equal 1 [llength $hs] [cn 5 cluster nodes]
        assert_match "* 127.0.0.1:1@10001 handshake - *" [lindex $hs 0]
        assert_equal 2 [cluster_info_field 5 cluster_known_nodes]
        # deleted after max(node-timeout, 1000) ms
        ::cl::deadline_wait [expr {3 * $::nt}] {
            [cluster_info_field 5 cluster_known_nodes] == 1
        } {the handshake node never expired: [cn 5 cluster nodes]}
    }

    test "CLUSTER FORGET: myself, unknown, my primary" {
        assert_equal "ERR I tried hard but I can't forget myself..." \
            [assert_error * {cn 0 cluster forget [cluster_myid 0]}]
        set unknown [string repeat 0 40]
        assert_equal "ERR Unknown node $unknown" [assert_error * {cn 0 cluster forget $unknown}]
        assert_equal "ERR Unknown node abc" [assert_error * {cn 0 cluster forget abc}]
        assert_equal "ERR Can't forget my master!" [assert_error * {cn 3 cluster forget [cluster_myid 0]}]
        assert_equal "ERR wrong number of arguments for 'cluster|forget' command" \
            [assert_error * {cn 0 cluster forget}]
    }

    test "CLUSTER FORGET of a member on every node removes it for good; a second FORGET is OK" {
        assert_equal OK [cn 0 cluster meet 127.0.0.1 [cnode 4 port]]
        foreach i {0 1 2 3 4} { cluster_wait_known $i 5 }
        set id4 [cluster_myid 4]
        foreach i {0 1 2 3} { assert_equal OK [cn $i cluster forget $id4] }
        foreach i {0 1 2 3} {
            assert_equal 4 [cluster_info_field $i cluster_known_nodes]
            assert_no_match "*$id4*" [cn $i cluster nodes]
        }
        # node 4 goes on pinging; none of its messages brings it back
        set sent [cluster_info_field 4 cluster_stats_messages_ping_sent]
        ::cl::deadline_wait [expr {4 * $::nt}] {
            [cluster_info_field 4 cluster_stats_messages_ping_sent] >= $sent + 6
        } {node 4 stopped pinging}
        foreach i {0 1 2 3} {
            assert_equal 4 [cluster_info_field $i cluster_known_nodes] "node $i"
        }
        # the id is on the blacklist: forgetting it again is OK
        assert_equal OK [cn 0 cluster forget $id4]
    }

    test "CLUSTER RESET HARD: new node id and shard id, epochs zero, alone" {
        set id [cluster_myid 4]
        set sid [cn 4 cluster myshardid]
        assert_equal OK [cn 4 cluster reset hard]
        set nid [cn 4 cluster myid]
        assert [cm_is_id $nid] $nid
        assert_not_equal $id $nid
        assert_not_equal $sid [cn 4 cluster myshardid]
        foreach {f v} {cluster_state fail cluster_slots_assigned 0 cluster_known_nodes 1
                       cluster_size 0 cluster_current_epoch 0 cluster_my_epoch 0} {
            assert_equal $v [cluster_info_field 4 $f] $f
        }
        # the IP it learned stays
        assert_equal "$nid 127.0.0.1:[cnode 4 port]@[expr {[cnode 4 port] + 10000}] myself,master - 0 0 0 connected\n" \
            [cn 4 cluster nodes]
        dict set ::cl::nodes(4) id $nid
    }

    test "CLUSTER SET-CONFIG-EPOCH and BUMPEPOCH on a node alone" {
        set n 5
        assert_equal "ERR Invalid config epoch specified: -1" [assert_error * {cn $n cluster set-config-epoch -1}]
        assert_equal "ERR value is not an integer or out of range" [assert_error * {cn $n cluster set-config-epoch abc}]
        assert_equal "BUMPED 1" [cn $n cluster bumpepoch]
        assert_equal "STILL 1" [cn $n cluster bumpepoch]
        assert_equal "ERR Node config epoch is already non-zero" [assert_error * {cn $n cluster set-config-epoch 9}]
        assert_equal OK [cn $n cluster reset hard]
        assert_equal OK [cn $n cluster set-config-epoch 7]
        assert_equal 7 [cluster_info_field $n cluster_my_epoch]
        assert_equal 7 [cluster_info_field $n cluster_current_epoch]
        assert_equal "ERR Node config epoch is already non-zero" [assert_error * {cn $n cluster set-config-epoch 8}]
        assert_equal "STILL 7" [cn $n cluster bumpepoch]
        # RESET SOFT keeps the id and the epochs
        set id [cn $n cluster myid]
        assert_equal OK [cn $n cluster reset soft]
        assert_equal $id [cn $n cluster myid]
        assert_equal 7 [cluster_info_field $n cluster_my_epoch]
        assert_equal OK [cn $n cluster reset]
        assert_equal $id [cn $n cluster myid]
        assert_equal "ERR syntax error" [assert_error * {cn $n cluster reset foo}]
        assert_equal OK [cn $n cluster reset hard]
        assert_equal 0 [cluster_info_field $n cluster_my_epoch]
        dict set ::cl::nodes($n) id [cn $n cluster myid]
    }

    test "CLUSTER SET-CONFIG-EPOCH is refused once other nodes are known" {
        assert_equal "ERR The user can assign a config epoch only when the node does not know any other node." \
            [assert_error * {cn 1 cluster set-config-epoch 50}]
    }

    test "CLUSTER BUMPEPOCH in a cluster: BUMPED to currentEpoch+1 when not the maximum, then STILL" {
        assert_equal "BUMPED 5" [cn 1 cluster bumpepoch]
        assert_equal "STILL 5" [cn 1 cluster bumpepoch]
        assert_equal 5 [cluster_info_field 1 cluster_my_epoch]
        # the others learn the new epoch through the bus
        foreach i {0 2 3} {
            ::cl::deadline_wait [expr {3 * $::nt}] {
                [cluster_info_field $i cluster_current_epoch] == 5 &&
                [dict get [cluster_nodes_line $i 1] epoch] == 5
            } {node $i never learned epoch 5 of node 1: [cn $i cluster nodes]}
        }
        # the holder of the highest epoch stays where it is
        assert_equal "STILL 5" [cn 1 cluster bumpepoch]
    }

    # Valkey 8 bumps past the largest epoch it knows, currentEpoch included: a claim made at a
    # config epoch below a newer currentEpoch could lose to a rival claim not yet heard of.
    test "CLUSTER BUMPEPOCH counts currentEpoch: the sole holder of the largest config epoch bumps past it" {
        # node 3 (a replica: nothing of its header moves slots or roles) tells node 1 of
        # currentEpoch 9, as after an election elsewhere
        set fd [bg_connect 1]
        bg_send $fd [bg_msg sender [cluster_myid 3] replicaof [cluster_myid 0] flags 0x0812 \
                         config 1 current 9 port [cnode 3 port] cport [expr {[cnode 3 port] + 10000}]]
        assert_equal 1 [dict get [bg_parse [bg_read_msg $fd 3000]] type]
        close $fd
        assert_equal 9 [cluster_info_field 1 cluster_current_epoch]
        assert_equal 5 [cluster_info_field 1 cluster_my_epoch]
        assert_equal "BUMPED 10" [cn 1 cluster bumpepoch]
        assert_equal "STILL 10" [cn 1 cluster bumpepoch]
        foreach i {0 2 3} {
            ::cl::deadline_wait [expr {3 * $::nt}] {
                [dict get [cluster_nodes_line $i 1] epoch] == 10
            } {node $i never learned epoch 10 of node 1: [cn $i cluster nodes]}
        }
    }

    test "CLUSTER ADDSLOTS / ADDSLOTSRANGE errors; all arguments are checked before any change" {
        set n 5
        assert_equal OK [cn $n cluster addslots 100 101]
        foreach {args err} {
            {100} {ERR Slot 100 is already busy}
            {102 100} {ERR Slot 100 is already busy}
            {16384} {ERR Invalid or out of range slot}
            {-1} {ERR Invalid or out of range slot}
            {abc} {ERR Invalid or out of range slot}
            {200 200} {ERR Slot 200 specified multiple times}
            {300 301 300} {ERR Slot 300 specified multiple times}
        } {
            assert_equal $err [assert_error * {cn $n cluster addslots {*}$args}] "ADDSLOTS $args"
        }
        assert_equal "ERR wrong number of arguments for 'cluster|addslots' command" \
            [assert_error * {cn $n cluster addslots}]
        foreach {args err} {
            {500 400} {ERR start slot number 500 is greater than end slot number 400}
            {10 20 15 25} {ERR Slot 15 specified multiple times}
            {99 100} {ERR Slot 100 is already busy}
            {0 16384} {ERR Invalid or out of range slot}
            {1} {ERR wrong number of arguments for 'cluster|addslotsrange' command}
            {1 2 3} {ERR wrong number of arguments for 'cluster|addslotsrange' command}
        } {
            assert_equal $err [assert_error * {cn $n cluster addslotsrange {*}$args}] "ADDSLOTSRANGE $args"
        }
        # none of the failed calls added anything
        assert_equal {100-101} [dict get [cluster_self $n] slots]
        assert_equal OK [cn $n cluster addslotsrange 1000 1009 2000 2000]
        assert_equal {100-101 1000-1009 2000} [dict get [cluster_self $n] slots]
        assert_equal 13 [cluster_info_field $n cluster_slots_assigned]
        # in the cluster: a slot another node owns is busy
        assert_equal "ERR Slot 6000 is already busy" [assert_error * {cn 0 cluster addslots 6000}]
    }

    test "CLUSTER DELSLOTS / DELSLOTSRANGE / FLUSHSLOTS" {
        set n 5
        foreach {args err} {
            {5000} {ERR Slot 5000 is already unassigned}
            {101 5000} {ERR Slot 5000 is already unassigned}
            {100 100} {ERR Slot 100 specified multiple times}
            {16384} {ERR Invalid or out of range slot}
        } {
            assert_equal $err [assert_error * {cn $n cluster delslots {*}$args}] "DELSLOTS $args"
        }
        assert_equal {100-101 1000-1009 2000} [dict get [cluster_self $n] slots]
        assert_equal OK [cn $n cluster delslots 100]
        assert_equal "ERR start slot number 1009 is greater than end slot number 1000" \
            [assert_error * {cn $n cluster delslotsrange 1009 1000}]
        assert_equal "ERR Slot 999 is already unassigned" [assert_error * {cn $n cluster delslotsrange 999 1000}]
        assert_equal OK [cn $n cluster delslotsrange 1000 1004]
        assert_equal {101 1005-1009 2000} [dict get [cluster_self $n] slots]
        assert_equal OK [cn $n cluster flushslots]
        assert_equal {} [dict get [cluster_self $n] slots]
        assert_equal 0 [cluster_info_field $n cluster_slots_assigned]
        # FLUSHSLOTS (and RESET) refuse a primary holding keys; nothing changes
        set k [cluster_key_in_slot_of 0 fs]
        cn 0 set $k 1
        assert_equal "ERR DB must be empty to perform CLUSTER FLUSHSLOTS." [assert_error * {cn 0 cluster flushslots}]
        assert_equal "ERR CLUSTER RESET can't be called with master nodes containing keys" \
            [assert_error * {cn 0 cluster reset}]
        assert_equal "ERR CLUSTER RESET can't be called with master nodes containing keys" \
            [assert_error * {cn 0 cluster reset hard}]
        assert_equal {0-5460} [dict get [cluster_self 0] slots]
        cn 0 del $k
        # a slot nobody serves makes the cluster fail here (full coverage); back when served
        cluster_wait_state 0 ok
        assert_equal OK [cn 0 cluster delslots 5460]
        assert_equal fail [cluster_info_field 0 cluster_state]
        assert_equal 16383 [cluster_info_field 0 cluster_slots_assigned]
        assert_equal OK [cn 0 cluster addslots 5460]
        assert_equal ok [cluster_info_field 0 cluster_state]
    }

    test "CLUSTER COUNT-FAILURE-REPORTS" {
        foreach i {1 2 3} { assert_equal 0 [cn 0 cluster count-failure-reports [cluster_myid $i]] }
        assert_equal "ERR Unknown node abc" [assert_error * {cn 0 cluster count-failure-reports abc}]
    }

    test "CLUSTER REPLICAS / SLAVES: the replica's NODES line; errors" {
        set line [lsearch -inline [split [cn 1 cluster nodes] \n] "[cluster_myid 3] *"]
        set r [cn 1 cluster replicas [cluster_myid 0]]
        assert_equal 1 [llength $r]
        assert_no_match "*\n*" [lindex $r 0]
        # ping/pong times move; the rest of the line is the same
        assert_equal [lreplace [split $line] 4 5] [lreplace [split [lindex $r 0]] 4 5]
        assert_equal $r [cn 1 cluster slaves [cluster_myid 0]]
        assert_equal {} [cn 0 cluster replicas [cluster_myid 2]]
        assert_equal "ERR The specified node is not a master" \
            [assert_error * {cn 0 cluster replicas [cluster_myid 3]}]
        assert_equal "ERR Unknown node abc" [assert_error * {cn 0 cluster replicas abc}]
    }

    test "CLUSTER REPLICATE errors" {
        assert_equal "ERR Unknown node abc" [assert_error * {cn 1 cluster replicate abc}]
        assert_equal "ERR Can't replicate myself" [assert_error * {cn 1 cluster replicate [cluster_myid 1]}]
        assert_equal "ERR I can only replicate a master, not a replica." \
            [assert_error * {cn 1 cluster replicate [cluster_myid 3]}]
        assert_equal "ERR To set a master the node must be empty and without assigned slots." \
            [assert_error * {cn 1 cluster replicate [cluster_myid 2]}]
    }

    test "CLUSTER FAILOVER errors" {
        assert_equal "ERR You should send CLUSTER FAILOVER to a replica" [assert_error * {cn 0 cluster failover}]
        assert_equal "ERR syntax error" [assert_error * {cn 3 cluster failover foo}]
    }

    test "CLUSTER SETSLOT errors" {
        assert_equal "ERR Please use SETSLOT only with masters." [assert_error * {cn 3 cluster setslot 1 stable}]
        assert_equal "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP" \
            [assert_error * {cn 0 cluster setslot 1 foo}]
        assert_equal "ERR Invalid or out of range slot" [assert_error * {cn 0 cluster setslot 16384 stable}]
    }

    test "CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT / KEYSLOT argument errors" {
        assert_equal "ERR Invalid slot" [assert_error * {cn 0 cluster countkeysinslot 16384}]
        assert_equal "ERR Invalid slot" [assert_error * {cn 0 cluster countkeysinslot -1}]
        assert_equal "ERR value is not an integer or out of range" [assert_error * {cn 0 cluster countkeysinslot abc}]
        assert_equal "ERR Invalid slot or number of keys" [assert_error * {cn 0 cluster getkeysinslot 16384 1}]
        assert_equal "ERR Invalid slot or number of keys" [assert_error * {cn 0 cluster getkeysinslot 1 -1}]
        assert_equal "ERR value is not an integer or out of range" [assert_error * {cn 0 cluster getkeysinslot 1 abc}]
        assert_equal "ERR wrong number of arguments for 'cluster|keyslot' command" [assert_error * {cn 0 cluster keyslot}]
        assert_equal 0 [cn 0 cluster countkeysinslot 16383]
    }

    test "CLUSTER SAVECONFIG writes nodes.conf: one line per node and the vars line" {
        assert_equal OK [cn 1 cluster saveconfig]
        set lines [split [string trim [::srv::file_tail [cnode 1 nodes_conf] 100]] \n]
        assert_equal 5 [llength $lines]
        assert_match "vars currentEpoch 10 lastVoteEpoch *" [lindex $lines end]
        set self [lsearch -inline $lines "[cluster_myid 1] *"]
        assert_match "[cluster_myid 1] 127.0.0.1:[cnode 1 port]@[expr {[cnode 1 port] + 10000}]* myself,master - 0 0 10 connected 5461-10921" $self
        foreach i {0 2 3} { assert_equal 1 [llength [lsearch -all $lines "[cluster_myid $i] *"]] }
    }

    test "CLUSTER HELP: the first line and the list of subcommands" {
        set help [cn 0 cluster help]
        assert_equal "CLUSTER <subcommand> \[<arg> \[value\] \[opt\] ...\]. Subcommands are:" [lindex $help 0]
        set names {}
        foreach l [lrange $help 1 end] {
            if {[regexp {^([A-Z][A-Z-]*)} $l -> n]} { lappend names $n }
        }
        set expected {ADDSLOTS ADDSLOTSRANGE BUMPEPOCH COUNT-FAILURE-REPORTS COUNTKEYSINSLOT
            DELSLOTS DELSLOTSRANGE FAILOVER FLUSHSLOT FLUSHSLOTS FORGET GETKEYSINSLOT HELP INFO KEYSLOT LINKS
            MEET MYID MYSHARDID NODES REPLICAS REPLICATE RESET SAVECONFIG SET-CONFIG-EPOCH SETSLOT
            SHARDS SLOT-STATS SLOTS}
        # SLOT-STATS (Valkey 8.0) is not implemented yet, and not in our help either.
        foreach sub {SLOT-STATS} {
            if {![cluster_has_subcommand 0 [string tolower $sub]]} {
                ::testutil::log "CLUSTER $sub is not implemented yet"
                set expected [lsearch -all -inline -not $expected $sub]
            }
        }
        assert_equal [lsort $expected] [lsort $names]
        assert_equal "ERR unknown subcommand 'foo'. Try CLUSTER HELP." [assert_error * {cn 0 cluster foo}]
    }

    test "CLUSTER LINKS: one outbound and one inbound link per peer, with the documented fields" {
        set peers {}
        foreach i {1 2 3} { lappend peers [cluster_myid $i] }
        ::cl::deadline_wait [expr {3 * $::nt}] {[llength [cn 0 cluster links]] == 6} \
            {node 0 has [llength [cn 0 cluster links]] links}
        set dirs {}
        foreach l [cn 0 cluster links] {
            assert_equal {direction node create-time events send-buffer-allocated send-buffer-used} \
                [dict keys $l]
            assert [expr {[dict get $l node] in $peers}] $l
            assert [expr {[dict get $l events] in {{} r w rw}}] $l
            assert [regexp {^[0-9]+$} [dict get $l create-time]] $l
            assert [regexp {^[0-9]+$} [dict get $l send-buffer-allocated]] $l
            assert [regexp {^[0-9]+$} [dict get $l send-buffer-used]] $l
            lappend dirs [list [dict get $l node] [dict get $l direction]]
        }
        set expected {}
        foreach p $peers { lappend expected [list $p from] [list $p to] }
        assert_equal [lsort $expected] [lsort $dirs]
        # RESP3: maps
        set c [cluster_client 0]
        $c hello 3
        assert_equal 6 [llength [$c cluster links]]
        # a node alone has none
        assert_equal {} [cn 5 cluster links]
    }

    test "CLUSTER MYID / MYSHARDID / INFO on a node alone" {
        assert [cm_is_id [cn 5 cluster myid]]
        assert [cm_is_id [cn 5 cluster myshardid]]
        assert_not_equal [cn 5 cluster myid] [cn 5 cluster myshardid]
        assert_equal "cluster_state:fail\r\ncluster_slots_assigned:0\r\ncluster_slots_ok:0\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:1\r\ncluster_size:0\r\ncluster_current_epoch:0\r\ncluster_my_epoch:0\r\n" \
            [string range [cn 5 cluster info] 0 [expr {[string first cluster_stats [cn 5 cluster info]] - 1}]]
    }
}

start_server {} {
    test "Standalone server: CLUSTER and ASKING are refused, READONLY/READWRITE accepted" {
        set off "ERR This instance has cluster support disabled"
        foreach sub {info nodes slots shards myid {keyslot foo} {meet 127.0.0.1 7000} {addslots 1}} {
            assert_equal $off [assert_error * {r cluster {*}$sub}] "CLUSTER $sub"
        }
        assert_equal $off [assert_error * {r asking}]
        assert_equal OK [r readonly]
        assert_equal OK [r readwrite]
        assert_equal 0 [info_field [r info cluster] cluster_enabled]
    }
}
