# What a node announces about itself, changed at run time: the client addresses of each family
# (checked by CONFIG SET as Valkey 8 checks them, and given to each client in its own family),
# the client port, and the human node name in the log lines about other nodes, in Valkey 8's
# form. 3 primaries listening on 127.0.0.1 and ::1.

set ::nt $::cl::node_timeout

# The first line of the reply to a command sent on a new connection to host:port.
proc an_raw {host port args} {
    set fd [socket $host $port]
    fconfigure $fd -translation binary -blocking 1
    puts -nonewline $fd [::resp::encode_command {*}$args]
    flush $fd
    gets $fd line
    close $fd
    return [string trimright $line "\r"]
}

# The CLUSTER SLOTS entry of the range starting at `first`, asked over host (an IPv6 client
# gets the announced IPv6 addresses).
proc an_slots_ip {host port first} {
    set c [::resp::client $host $port]
    set r [$c cluster slots]
    $c close
    foreach e $r { if {[lindex $e 0] == $first} { return [lindex $e 2 0] } }
    return {}
}

start_cluster {primaries 3 replicas 0 config {bind {127.0.0.1 ::1}}} {
    set p0 [cnode 0 port]; set p1 [cnode 1 port]
    set key [cluster_key_in_slot_of 1 an]
    set slot [cn 0 cluster keyslot $key]
    set first1 [lindex [split [lindex [dict get [cluster_self 1] slots] 0] -] 0]

    test "CONFIG SET cluster-announce-client-ipv4/-ipv6 refuses an address of another family" {
        foreach {name value err} {
            cluster-announce-client-ipv4 1.2.3 "Invalid IPv4 address"
            cluster-announce-client-ipv4 ::1 "Invalid IPv4 address"
            cluster-announce-client-ipv4 host.example "Invalid IPv4 address"
            cluster-announce-client-ipv6 1.2.3.4 "Invalid IPv6 address"
            cluster-announce-client-ipv6 fd00:::1 "Invalid IPv6 address"
        } {
            assert_equal "-ERR CONFIG SET failed (possibly related to argument '$name') - $err" \
                [an_raw 127.0.0.1 $p0 config set $name $value] "$name $value"
        }
        assert_equal {} [lindex [cn 0 config get cluster-announce-client-ipv4] 1]
        foreach {name value} {
            cluster-announce-client-ipv4 10.1.2.3 cluster-announce-client-ipv6 fd00::7
            cluster-announce-client-ipv4 {} cluster-announce-client-ipv6 {}
        } {
            assert_equal OK [cn 0 config set $name $value]
            assert_equal $value [lindex [cn 0 config get $name] 1]
        }
    }

    test "CONFIG SET cluster-announce-hostname / -human-nodename refuse what Valkey 8 refuses" {
        foreach {name value err} [list \
            cluster-announce-hostname [string repeat x 256] "Hostnames must be less than 256 characters" \
            cluster-announce-hostname "?.com" "Hostnames may only contain alphanumeric characters, hyphens or dots" \
            cluster-announce-hostname "a_b" "Hostnames may only contain alphanumeric characters, hyphens or dots" \
            cluster-announce-human-nodename "n{1}" "Announced human node name contained invalid character" \
            cluster-announce-human-nodename "a@b" "Announced human node name contained invalid character" \
        ] {
            assert_equal "-ERR CONFIG SET failed (possibly related to argument '$name') - $err" \
                [an_raw 127.0.0.1 $p0 config set $name $value] "$name $value"
            assert_equal {} [lindex [cn 0 config get $name] 1]
        }
        # Not a valid hostname, but within the allowed characters (Valkey 8 takes it too).
        set h "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
        foreach {name value} [list cluster-announce-hostname [string repeat x 255] \
                                  cluster-announce-hostname $h \
                                  cluster-announce-human-nodename "node-1.a_b,c:d" \
                                  cluster-announce-hostname {} cluster-announce-human-nodename {}] {
            assert_equal OK [cn 0 config set $name $value]
            assert_equal $value [lindex [cn 0 config get $name] 1]
        }
    }

    test "MOVED and CLUSTER SLOTS give each client the announced address of its own family" {
        cn 1 config set cluster-announce-client-ipv4 10.0.0.1
        cn 1 config set cluster-announce-client-ipv6 fd00::1
        # (both: a ping between the two CONFIG SETs may carry the first alone)
        ::cl::deadline_wait 10000 {
            [an_slots_ip 127.0.0.1 $p0 $first1] eq "10.0.0.1" && [an_slots_ip ::1 $p0 $first1] eq "fd00::1"
        } {node 0 never learned node 1's announced client addresses}
        assert_equal "-MOVED $slot 10.0.0.1:$p1" [an_raw 127.0.0.1 $p0 get $key]
        assert_equal "-MOVED $slot fd00::1:$p1" [an_raw ::1 $p0 get $key]
        assert_equal fd00::1 [an_slots_ip ::1 $p0 $first1]
        # on the node itself too
        assert_equal fd00::1 [an_slots_ip ::1 $p1 $first1]
        cn 1 config set cluster-announce-client-ipv6 {}
        ::cl::deadline_wait 10000 {[an_raw ::1 $p0 get $key] eq "-MOVED $slot 127.0.0.1:$p1"} \
            {node 0 still redirects IPv6 clients to the withdrawn address}
        assert_equal "-MOVED $slot 10.0.0.1:$p1" [an_raw 127.0.0.1 $p0 get $key]
        cn 1 config set cluster-announce-client-ipv4 {}
        ::cl::deadline_wait 10000 {[an_raw 127.0.0.1 $p0 get $key] eq "-MOVED $slot 127.0.0.1:$p1"} \
            {node 0 still redirects IPv4 clients to the withdrawn address}
    }

    test "cluster-announce-port and -bus-port changed at run time show in CLUSTER NODES everywhere" {
        set cport [dict get [cluster_self 1] cport]
        cn 1 config set cluster-announce-port 12345
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {[dict get [cluster_nodes_line $i 1] port] == 12345} \
                {node $i does not show node 1's announced port}
        }
        # a bus port nothing listens on: shown at once, then the real one again
        set free [expr {$cport + 7}]
        cn 1 config set cluster-announce-bus-port $free
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {[dict get [cluster_nodes_line $i 1] cport] == $free} \
                {node $i does not show node 1's announced bus port}
        }
        cn 1 config set cluster-announce-bus-port 0
        cn 1 config set cluster-announce-port 0
        foreach i {0 1 2} {
            ::cl::deadline_wait 10000 {
                [dict get [cluster_nodes_line $i 1] port] == $p1 &&
                [dict get [cluster_nodes_line $i 1] cport] == $cport
            } {node $i does not show node 1's real ports again}
        }
        cluster_wait_ok
    }

    test "Log lines about other nodes carry their human node names, in Valkey 8's form" {
        foreach i {0 1 2} { cn $i config set cluster-announce-human-nodename nodename-$i }
        foreach i {0 1} {
            foreach j {0 1 2} {
                if {$i == $j} continue
                ::cl::deadline_wait 10000 {
                    [string match "*nodename=nodename-$j*" [exec cat [cnode $i nodes_conf]]]
                } {node $i never learned node $j's human name}
            }
        }
        set id0 [cluster_myid 0]; set id1 [cluster_myid 1]; set id2 [cluster_myid 2]
        assert_equal OK [cn 2 config rewrite]  ;# node 2 keeps its name across the restart
        cluster_kill 2
        # node 1's report reaches node 0, and the other way round
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [string match "*Node $id1 (nodename-1) reported node $id2 (nodename-2) as not reachable.*" \
                 [exec cat [cnode 0 log]]]
        } {node 0 did not log node 1's report about node 2}
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [string match "*Marking node $id2 (nodename-2) as failing (quorum reached).*" \
                 [exec cat [cnode 0 log]]] ||
            [string match "*FAIL message received from $id1 (nodename-1) about $id2 (nodename-2)*" \
                 [exec cat [cnode 0 log]]]
        } {node 0 never logged node 2's failure with the names}
        cluster_restart 2
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [string match "*Clear FAIL state for node $id2 (nodename-2):*" [exec cat [cnode 0 log]]]
        } {node 0 never cleared node 2's FAIL with its name}
        cluster_wait_ok
    }
}
