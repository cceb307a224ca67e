# DEBUG DROP-CLUSTER-PACKET-FILTER and CLOSE-CLUSTER-LINK-ON-PACKET-DROP (issue 30): a node
# told to drop received PINGs (type 0) answers none of them (it counts them as received), so
# the others' PINGs to it stay unanswered (CLUSTER NODES keeps their ping-sent time). It is not
# flagged failing: its own PINGs still reach the others, and received data keeps a node from
# PFAIL (Valkey 8's data_received rule; one filter holds one type, so PING and PONG cannot both
# be dropped). -1 ends the filter. With CLOSE-CLUSTER-LINK-ON-PACKET-DROP 1 each dropped
# message also closes its link.
# DEBUG CLUSTERLINK KILL closes the links with one peer, outbound (TO), inbound (FROM) or both
# (ALL); the bus makes them again.

set ::nt $::cl::node_timeout

# Node `observer`'s field `key` (flags, ping, pong...) for node `subject`.
proc dbf_field {observer subject key} {
    set id [cluster_myid $subject]
    foreach e [cluster_nodes_parsed $observer] {
        if {[dict get $e id] eq $id} { return [dict get $e $key] }
    }
    return ""
}

# Milliseconds node `observer` has waited for node `subject`'s PONG (0: none awaited).
proc dbf_waiting {observer subject} {
    set sent [dbf_field $observer $subject ping]
    if {$sent == 0} { return 0 }
    return [expr {[clock milliseconds] - $sent}]
}

# {direction create-time ...} of node `observer`'s links with node id `peer` (CLUSTER LINKS).
proc dbf_link_times {observer peer} {
    set times {}
    foreach l [cn $observer cluster links] {
        if {[dict get $l node] eq $peer} { dict set times [dict get $l direction] [dict get $l create-time] }
    }
    return $times
}

# Whether every link direction in `dirs` was made after the one in `before`.
proc dbf_all_newer {now before dirs} {
    foreach d $dirs {
        if {![dict exists $now $d] || [dict get $now $d] <= [dict get $before $d]} { return 0 }
    }
    return 1
}

start_cluster {primaries 3 replicas 0 config {enable-debug-command yes}} {
    test "DROP-CLUSTER-PACKET-FILTER 0: PINGs are counted, then dropped unanswered" {
        assert_equal OK [cn 0 debug drop-cluster-packet-filter 0]
        set pongs [cluster_info_field 0 cluster_stats_messages_pong_sent]
        ::cl::deadline_wait [expr {2 * $::nt}] \
            {[dbf_waiting 1 0] > $::nt / 2 && [dbf_waiting 2 0] > $::nt / 2} \
            {nodes 1 and 2 got answers from node 0}
        assert_equal $pongs [cluster_info_field 0 cluster_stats_messages_pong_sent]
        # still known as alive: its own PINGs arrive
        assert_equal {master} [dbf_field 1 0 flags]
        assert_equal {master} [dbf_field 2 0 flags]
    }

    test "DROP-CLUSTER-PACKET-FILTER -1 ends the filter; the cluster stayed ok" {
        # The PINGs dropped are not sent again (the sender waits for their PONG, and its link
        # stays up while node 0's own PINGs arrive), as in Valkey 8.
        assert_equal OK [cn 0 debug drop-cluster-packet-filter -1]
        cluster_wait_ok
    }

    test "CLOSE-CLUSTER-LINK-ON-PACKET-DROP 1: a dropped message closes its link" {
        assert_equal OK [cn 1 debug close-cluster-link-on-packet-drop 1]
        assert_equal OK [cn 1 debug drop-cluster-packet-filter 0]
        ::cl::deadline_wait [expr {2 * $::nt}] \
            {[string match "*Closing link for matching packet type 0*" [::srv::file_tail [cnode 1 log] 200]]} \
            {no link closed on node 1}
        assert_equal OK [cn 1 debug drop-cluster-packet-filter -1]
        assert_equal OK [cn 1 debug close-cluster-link-on-packet-drop 0]
        cluster_wait_ok
    }

    test "DEBUG CLUSTERLINK KILL: errors" {
        set me [cluster_myid 0]
        assert_error "ERR Unknown node [string repeat a 40]" \
            {cn 0 debug clusterlink kill to [string repeat a 40]}
        assert_error "ERR Cannot free cluster link(s) to myself" {cn 0 debug clusterlink kill all $me}
        assert_error "ERR Unknown direction both" \
            {cn 0 debug clusterlink kill both [cluster_myid 1]}
    }

    foreach {dir gone kept} {to to from  from from to  all {to from} {}} {
        test "DEBUG CLUSTERLINK KILL [string toupper $dir]: node 0's $dir link with node 1 is made again" {
            set peer [cluster_myid 1]
            ::cl::deadline_wait [expr {2 * $::nt}] {[dict size [dbf_link_times 0 $peer]] == 2} \
                {node 0's links with node 1: [dbf_link_times 0 $peer]}
            set before [dbf_link_times 0 $peer]
            assert_equal OK [cn 0 debug clusterlink kill $dir $peer]
            ::cl::deadline_wait [expr {2 * $::nt}] {
                [dict size [dbf_link_times 0 $peer]] == 2 &&
                [dbf_all_newer [dbf_link_times 0 $peer] $before $gone]
            } {node 0's links with node 1: [dbf_link_times 0 $peer], before $before}
            set after [dbf_link_times 0 $peer]
            foreach d $kept { assert_equal [dict get $before $d] [dict get $after $d] "$d link" }
            cluster_wait_ok
        }
    }
}
