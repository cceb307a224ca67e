# Starting, creating and stopping clusters of server processes for tests/cluster/*.tcl.
#
#   start_cluster {?primaries P? ?replicas R? ?nodes N? ?create cli|manual|none?
#                  ?config {k v ...}? ?bins {idx path ...}? ?tags {...}? ?netns 0|1?} body
#       starts N nodes (default P*(1+R)) with cluster-enabled yes, each in its own temp dir
#       with its own nodes.conf; creates a cluster of P primaries with R replicas each from
#       the first P*(1+R) nodes (`redis-cli --cluster create`, or by hand with MEET /
#       ADDSLOTSRANGE / REPLICATE), waits until every node reports cluster_state:ok and all
#       agree, runs body, then stops every node.  Dirs and log tails are kept on failure.
#       Nodes are numbered 0..N-1; nodes past P*(1+R) are left alone (empty, unmet).
#       bins gives another binary for some nodes (default: the server under test).
#       netns 1 puts every node in its own network namespace, on a bridge of its own subnet
#       (node idx at 10.77.<n>.<idx+1>, the tests at .254); check cluster_netns_available
#       first.  Then:
#   cluster_cut a b             ;# no packet between nodes a and b, either way
#   cluster_cut_oneway a b      ;# packets from a to b are dropped (b still reaches a)
#   cluster_heal                ;# every cut removed
#   cn idx cmd args...          ;# command on node idx through a cached client
#   cluster_client idx          ;# new client to node idx (closed at the end of the test)
#   cnode idx key               ;# node field: port host pid dir bin log conf_file nodes_conf
#   cluster_node_count / cluster_alive_nodes
#   cluster_myid idx            ;# CLUSTER MYID (cached; refreshed by cluster_refresh)
#   cluster_idx_of_port port / cluster_idx_of_id id
#   cluster_refresh             ;# re-read roles from the nodes (after failovers etc.)
#   cluster_primaries / cluster_replicas / cluster_replicas_of idx / cluster_primary_of idx
#   cluster_slot_owner slot ?via? / cluster_key_owner key ?via?   ;# idx of the owning primary
#   cluster_key_in_slot_of idx ?prefix?  ;# a key whose slot primary idx owns
#   cluster_wait_ok ?idxs? ?timeout_ms?  ;# cluster_state:ok everywhere + agreement
#   cluster_wait_state idx state ?timeout_ms?
#   cluster_wait_known idx n ?timeout_ms?   ;# idx knows n nodes, none in handshake
#   cluster_wait_flag observer subject flag ?timeout_ms?   ;# flag in observer's NODES line
#   cluster_wait_replicas_synced idx  ;# idx's replicas reached its replication offset
#   cluster_kill idx            ;# SIGKILL (expected to be gone)
#   cluster_stop idx            ;# SIGTERM
#   cluster_restart idx         ;# start again from the same dir, config and nodes.conf
#   cluster_add_node ?bin? ?config?   ;# one more node (torn down with the block); returns idx
#   cluster_create_cli idxs replicas  ;# `redis-cli --cluster create ... --cluster-yes`
#   cluster_create_manual primaries replica_lists   ;# MEET / SET-CONFIG-EPOCH / ADDSLOTSRANGE / REPLICATE
#   cluster_info_field idx field      ;# one field of CLUSTER INFO
#   cluster_nodes_parsed idx          ;# CLUSTER NODES as a list of dicts
#                                     ;#   (id addr ip port cport host flags primary ping pong epoch link slots)
#   cluster_nodes_line idx subject    ;# the parsed entry for subject idx as seen by idx
#   cluster_cli ?args?                ;# run redis-cli, returns {exit_code output}
#   cluster_raw idx prelude cmd args...  ;# exact reply bytes (RESP2) of cmd on a fresh
#                                     ;#   connection, after the commands of prelude
#                                     ;#   (e.g. {readonly asking}), whose replies are dropped
#   cluster_self idx                  ;# the myself entry of idx's CLUSTER NODES (parsed dict)
#   cluster_open_slots idx            ;# open-slot tokens ([slot->-id] / [slot-<-id]) of idx's
#                                     ;#   myself line in CLUSTER NODES

namespace eval ::cl {
    variable nodes          ;# array: idx -> dict
    array set nodes {}
    variable count 0
    variable node_timeout 3000
    variable cli [expr {[auto_execok redis-cli] ne {} ? [lindex [auto_execok redis-cli] 0] : "redis-cli"}]
    variable topo {}        ;# dict idx -> {id role primary}
    variable netns {}       ;# when nodes live in network namespaces: dict prefix subnet bridge
}

# Directives every cluster node gets; start_cluster's config overrides them.
proc ::cl::default_config {} {
    return [list cluster-enabled yes cluster-config-file nodes.conf \
                cluster-node-timeout $::cl::node_timeout repl-ping-replica-period 1 \
                repl-diskless-sync-delay 0]
}

proc ::cl::spawn_node {idx} {
    variable nodes
    set n $nodes($idx)
    set prefix {}
    if {[dict exists $n netns]} { set prefix [list ip netns exec [dict get $n netns]] }
    set pid [lindex [exec {*}$prefix [dict get $n bin] [dict get $n conf_file] \
                         > [dict get $n stdout] 2>> [dict get $n stderr] &] 0]
    ::testutil::emit spawn {} $pid
    dict set n pid $pid
    dict set n client {}
    dict unset n gone
    set nodes($idx) $n
    return $pid
}

proc ::cl::srvdict {idx} {
    return $::cl::nodes($idx)
}

proc ::cl::new_node {bin conf} {
    variable nodes
    variable count
    variable netns
    set idx $count
    incr count
    set dir [::srv::make_dir]
    set port [::srv::find_free_port]
    set c [::srv::default_config]
    foreach {k v} [default_config] { dict set c $k $v }
    foreach {k v} $conf { dict set c $k $v }
    dict set c port $port
    dict set c dir $dir
    dict set c logfile [file join $dir server.log]
    set host 127.0.0.1
    if {$netns ne {}} {
        set host [::cl::netns_add_node $idx]
        dict set c bind $host
        dict set c protected-mode no   ;# the tests reach it over the bridge, not loopback
    }
    set n [dict create idx $idx host $host port $port dir $dir bin $bin \
               conf_file [file join $dir server.conf] stdout [file join $dir stdout] \
               stderr [file join $dir stderr] log [file join $dir server.log] \
               nodes_conf [file join $dir nodes.conf] conf $c client {} pid 0]
    if {$netns ne {}} { dict set n netns [dict get $netns prefix]$idx }
    ::srv::write_config [dict get $n conf_file] $c
    set nodes($idx) $n
    spawn_node $idx
    return $idx
}

proc ::cl::wait_ready {idx {timeout_ms 20000}} {
    set n $::cl::nodes($idx)
    if {[catch {::srv::wait_ready $n $timeout_ms} err]} {
        error "cluster node $idx (port [dict get $n port], [dict get $n bin]): $err"
    }
}

proc cluster_add_node {{bin {}} {conf {}}} {
    if {$bin eq {}} { set bin $::cfg(server) }
    set idx [::cl::new_node $bin $conf]
    ::cl::wait_ready $idx
    return $idx
}

proc cnode {idx key} {
    if {![info exists ::cl::nodes($idx)]} { error "no cluster node $idx" }
    return [dict get $::cl::nodes($idx) $key]
}

proc cluster_node_count {} { return $::cl::count }

proc cluster_alive_nodes {} {
    set out {}
    for {set i 0} {$i < $::cl::count} {incr i} {
        if {![dict exists $::cl::nodes($i) gone]} { lappend out $i }
    }
    return $out
}

proc cn {idx args} {
    set n $::cl::nodes($idx)
    set c [dict get $n client]
    if {$c eq {} || [info commands $c] eq {}} {
        set c [::resp::client [dict get $n host] [dict get $n port]]
        dict set ::cl::nodes($idx) client $c
    }
    # A connection that failed or timed out is dropped: a reply arriving late would answer the
    # next command, and a client the node holds would hold every later test's commands too.
    if {[catch {$c {*}$args} res opts]} {
        if {[string match "I/O error*" $res]} { ::cl::drop_client $idx }
        return -options $opts $res
    }
    return $res
}

proc cluster_client {idx} {
    set c [::resp::client [cnode $idx host] [cnode $idx port]]
    if {$::testutil::current_test ne {}} { lappend ::testutil::test_clients $c }
    return $c
}

proc ::cl::drop_client {idx} {
    set c [dict get $::cl::nodes($idx) client]
    if {$c ne {}} { catch {$c close} }
    dict set ::cl::nodes($idx) client {}
}

proc cluster_kill {idx} {
    ::cl::drop_client $idx
    set pid [cnode $idx pid]
    catch {exec kill -KILL $pid}
    while {[::srv::alive $pid]} { after 10 }
    ::testutil::emit reaped {} $pid
    dict set ::cl::nodes($idx) gone killed
}

proc cluster_stop {idx} {
    ::cl::drop_client $idx
    ::srv::stop [cnode $idx pid]
    dict set ::cl::nodes($idx) gone stopped
}

proc cluster_restart {idx} {
    if {![dict exists $::cl::nodes($idx) gone]} { cluster_stop $idx }
    ::cl::spawn_node $idx
    ::cl::wait_ready $idx
}

proc cluster_info_field {idx field} {
    return [info_field [cn $idx cluster info] $field]
}

# CLUSTER NODES of node idx as a list of dicts.
proc cluster_nodes_parsed {idx} {
    set out {}
    foreach line [split [string trim [cn $idx cluster nodes]] \n] {
        set w [split [string trim $line] " "]
        set addr [lindex $w 1]
        regexp {^(.*):(\d+)@(\d+)(?:,(.*))?$} $addr -> ip port cport host
        lappend out [dict create id [lindex $w 0] addr $addr ip $ip port $port cport $cport \
                         host $host flags [split [lindex $w 2] ,] primary [lindex $w 3] \
                         ping [lindex $w 4] pong [lindex $w 5] epoch [lindex $w 6] \
                         link [lindex $w 7] slots [lrange $w 8 end]]
    }
    return $out
}

proc cluster_myid {idx} {
    if {![dict exists $::cl::nodes($idx) id]} {
        dict set ::cl::nodes($idx) id [cn $idx cluster myid]
    }
    return [dict get $::cl::nodes($idx) id]
}

proc cluster_idx_of_port {port} {
    for {set i 0} {$i < $::cl::count} {incr i} {
        if {[cnode $i port] == $port} { return $i }
    }
    error "no cluster node on port $port"
}

proc cluster_idx_of_id {id} {
    for {set i 0} {$i < $::cl::count} {incr i} {
        if {[dict exists $::cl::nodes($i) id] && [dict get $::cl::nodes($i) id] eq $id} {
            return $i
        }
    }
    error "no cluster node with id $id"
}

# The entry for node `subject` in the CLUSTER NODES of node `observer` ({} if absent).
proc cluster_nodes_line {observer subject} {
    set id [cluster_myid $subject]
    foreach e [cluster_nodes_parsed $observer] {
        if {[dict get $e id] eq $id} { return $e }
    }
    return {}
}

# Re-read node ids and roles (from each live node's own view of itself).
proc cluster_refresh {} {
    set ::cl::topo {}
    foreach i [cluster_alive_nodes] {
        dict set ::cl::nodes($i) id [cn $i cluster myid]
    }
    foreach i [cluster_alive_nodes] {
        foreach e [cluster_nodes_parsed $i] {
            if {"myself" ni [dict get $e flags]} continue
            set role [expr {"slave" in [dict get $e flags] ? "replica" : "primary"}]
            set p {}
            if {$role eq "replica"} {
                catch {set p [cluster_idx_of_id [dict get $e primary]]}
            }
            dict set ::cl::topo $i [dict create role $role primary $p \
                                        slots [dict get $e slots]]
        }
    }
}

proc cluster_primaries {} {
    set out {}
    dict for {i t} $::cl::topo {
        if {[dict get $t role] eq "primary" && [llength [dict get $t slots]]} { lappend out $i }
    }
    return [lsort -integer $out]
}

proc cluster_replicas {} {
    set out {}
    dict for {i t} $::cl::topo { if {[dict get $t role] eq "replica"} { lappend out $i } }
    return [lsort -integer $out]
}

proc cluster_replicas_of {idx} {
    set out {}
    dict for {i t} $::cl::topo {
        if {[dict get $t role] eq "replica" && [dict get $t primary] eq $idx} { lappend out $i }
    }
    return [lsort -integer $out]
}

proc cluster_primary_of {idx} { return [dict get $::cl::topo $idx primary] }

# Index of the primary that owns `slot` according to node `via` (default: first live node).
proc cluster_slot_owner {slot {via {}}} {
    if {$via eq {}} { set via [lindex [cluster_alive_nodes] 0] }
    foreach r [cn $via cluster slots] {
        if {$slot >= [lindex $r 0] && $slot <= [lindex $r 1]} {
            return [cluster_idx_of_port [lindex $r 2 1]]
        }
    }
    return {}
}

proc cluster_key_owner {key {via {}}} {
    if {$via eq {}} { set via [lindex [cluster_alive_nodes] 0] }
    return [cluster_slot_owner [cn $via cluster keyslot $key] $via]
}

# A key whose slot is owned by primary idx.
proc cluster_key_in_slot_of {idx {prefix key}} {
    set via [lindex [cluster_alive_nodes] 0]
    set ranges {}
    foreach r [cn $via cluster slots] {
        if {[cluster_idx_of_port [lindex $r 2 1]] == $idx} { lappend ranges [lrange $r 0 1] }
    }
    for {set i 0} {$i < 100000} {incr i} {
        set k $prefix:$i
        set s [cn $via cluster keyslot $k]
        foreach r $ranges {
            if {$s >= [lindex $r 0] && $s <= [lindex $r 1]} { return $k }
        }
    }
    error "no key found for node $idx"
}

# ---------------------------------------------------------------- waiting

proc ::cl::deadline_wait {timeout_ms cond what} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while 1 {
        if {![catch {uplevel 1 [list expr $cond]} ok] && $ok} { return }
        if {[clock milliseconds] > $deadline} {
            catch {uplevel 1 [list subst $what]} msg
            ::testutil::fail "$msg (not within ${timeout_ms}ms)"
        }
        after 50
    }
}

proc cluster_wait_state {idx state {timeout_ms 20000}} {
    ::cl::deadline_wait $timeout_ms {[cluster_info_field $idx cluster_state] eq $state} \
        {node $idx never reached cluster_state:$state: [cluster_info_field $idx cluster_state]}
}

proc cluster_wait_known {idx n {timeout_ms 20000}} {
    ::cl::deadline_wait $timeout_ms {
        [cluster_info_field $idx cluster_known_nodes] == $n &&
        ![string match *handshake* [cn $idx cluster nodes]]
    } {node $idx never knew $n nodes:\n[cn $idx cluster nodes]}
}

# Waits until every replica of primary idx (per cluster_refresh) has everything idx has, by
# replication offset: WAIT would not do when the writes came on other connections.
proc cluster_wait_replicas_synced {idx {timeout_ms 10000}} {
    set off [info_field [cn $idx info replication] master_repl_offset]
    foreach r [cluster_replicas_of $idx] {
        ::cl::deadline_wait $timeout_ms {
            [info_field [cn $r info replication] slave_repl_offset] >= $off
        } {replica $r never reached offset $off of node $idx}
    }
}

proc cluster_wait_flag {observer subject flag {timeout_ms 20000}} {
    ::cl::deadline_wait $timeout_ms {
        $flag in [dict get [cluster_nodes_line $observer $subject] flags]
    } {node $observer never saw flag $flag on node $subject:\n[cn $observer cluster nodes]}
}

# The slot map of node idx: {start end primary-port} per range.
proc ::cl::slot_map {idx} {
    set m {}
    foreach r [cn $idx cluster slots] { lappend m [list {*}[lrange $r 0 1] [lindex $r 2 1]] }
    return [lsort -integer -index 0 $m]
}

# Cluster agreement: every node (of idxs) is ok, knows the same set of nodes with no
# handshake/fail flags, has the same slot map, and each replica's link is up.
proc ::cl::agreed {idxs} { return [expr {[::cl::disagreement $idxs] eq {}}] }

# {} when the nodes of idxs agree (as ::cl::agreed), else the first condition that does not
# hold, naming the node.
proc ::cl::disagreement {idxs} {
    set ref {}
    set refnodes {}
    set refidx {}
    foreach i $idxs {
        set st [cluster_info_field $i cluster_state]
        if {$st ne "ok"} { return "node $i: cluster_state $st" }
        set ids {}
        foreach e [cluster_nodes_parsed $i] {
            foreach f {handshake fail fail? noaddr} {
                if {$f in [dict get $e flags]} {
                    return "node $i: node [dict get $e id] has flag $f"
                }
            }
            lappend ids [dict get $e id]
        }
        set ids [lsort $ids]
        set m [slot_map $i]
        if {$ref eq {}} { set ref $m; set refnodes $ids; set refidx $i }
        if {$ids ne $refnodes} { return "node $i knows nodes {$ids}, node $refidx {$refnodes}" }
        if {$m ne $ref} { return "node $i slot map {$m}, node $refidx {$ref}" }
        set role [info_field [cn $i info replication] role]
        if {$role eq "slave"} {
            set link [info_field [cn $i info replication] master_link_status]
            if {$link ne "up"} { return "node $i: master_link_status $link" }
        }
    }
    return {}
}

proc cluster_wait_ok {{idxs {}} {timeout_ms 30000}} {
    if {$idxs eq {}} { set idxs [cluster_alive_nodes] }
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[set why [::cl::disagreement $idxs]] ne {}} {
        if {[clock milliseconds] > $deadline} {
            set msg "cluster never became ok and consistent within ${timeout_ms}ms ($why)"
            foreach i $idxs {
                catch {
                    append msg "\n-- node $i (port [cnode $i port]): [cluster_info_field $i cluster_state]\n"
                    append msg [cn $i cluster nodes]
                }
            }
            ::testutil::fail $msg
        }
        after 50
    }
}

# Waits until node idx is ok and its CLUSTER SLOTS lists `n` replicas in each range (the
# replicas' offsets reached the primaries).
proc ::cl::wait_slots_replicas {idxs n {timeout_ms 20000}} {
    ::cl::deadline_wait $timeout_ms {[::cl::all_ranges_have $idxs $n]} \
        "CLUSTER SLOTS never listed $n replicas per range"
}
proc ::cl::all_ranges_have {idxs n} {
    foreach i $idxs {
        foreach r [cn $i cluster slots] {
            if {[llength $r] != 3 + $n} { return 0 }
        }
    }
    return 1
}

# ---------------------------------------------------------------- creation

proc cluster_cli {args} {
    set rc [catch {exec $::cl::cli {*}$args 2>@1} out opts]
    regsub -all {\x1b\[[0-9;]*m} $out {} out
    set code 0
    if {$rc} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} { set code [lindex $ec 2] } else { set code 1 }
    }
    return [list $code $out]
}

proc cluster_create_cli {idxs replicas} {
    set addrs {}
    foreach i $idxs { lappend addrs [cnode $i host]:[cnode $i port] }
    lassign [cluster_cli --cluster create {*}$addrs --cluster-replicas $replicas --cluster-yes] \
        code out
    if {$code != 0} { error "redis-cli --cluster create failed (exit $code):\n$out" }
    set ::cl::create_output $out
    return $out
}

# The slot range [start end] of primary i of p.
proc ::cl::slot_range {i p} {
    set start [expr {($i * 16384) / $p}]
    set end [expr {(($i + 1) * 16384) / $p - 1}]
    return [list $start $end]
}

# primaries: list of idxs; replica_lists: for each primary, a list of replica idxs.
proc cluster_create_manual {primaries replica_lists} {
    set all [concat $primaries {*}$replica_lists]
    set epoch 0
    foreach i $all { cn $i cluster set-config-epoch [incr epoch] }
    set first [lindex $all 0]
    foreach i [lrange $all 1 end] {
        set r [cn $first cluster meet [cnode $i host] [cnode $i port]]
        if {$r ne "OK"} { error "CLUSTER MEET answered $r" }
    }
    foreach i $all { cluster_wait_known $i [llength $all] }
    set p [llength $primaries]
    for {set k 0} {$k < $p} {incr k} {
        cn [lindex $primaries $k] cluster addslotsrange {*}[::cl::slot_range $k $p]
    }
    for {set k 0} {$k < $p} {incr k} {
        set pid [cluster_myid [lindex $primaries $k]]
        foreach rep [lindex $replica_lists $k] {
            # the replica must have learned that the primary is a primary
            ::cl::deadline_wait 20000 {
                [string match *master* [dict get [cluster_nodes_line $rep [lindex $primaries $k]] flags]]
            } {node $rep never saw its primary-to-be}
            set r [cn $rep cluster replicate $pid]
            if {$r ne "OK"} { error "CLUSTER REPLICATE answered $r" }
        }
    }
}

# ---------------------------------------------------------------- teardown

proc ::cl::teardown {keep} {
    variable nodes
    variable count
    set tails {}
    for {set i 0} {$i < $count} {incr i} {
        set n $nodes($i)
        ::cl::drop_client $i
        set died [expr {![dict exists $n gone] && ![::srv::alive [dict get $n pid]]}]
        if {$died} {
            ::testutil::report_err "cluster node $i (port [dict get $n port])" \
                "node process [dict get $n pid] is not running at end of block\n[::srv::log_tail $n]"
            set keep 1
        }
        if {![dict exists $n gone]} {
            ::testutil::emit reaped {} [dict get $n pid]
            catch {exec kill -TERM [dict get $n pid]}
        }
    }
    # all were asked to stop at once; wait for each, SIGKILL after 10 s
    set deadline [expr {[clock milliseconds] + 10000}]
    for {set i 0} {$i < $count} {incr i} {
        set pid [dict get $nodes($i) pid]
        while {[::srv::alive $pid] && [clock milliseconds] < $deadline} { after 10 }
        if {[::srv::alive $pid]} {
            catch {exec kill -KILL $pid}
            while {[::srv::alive $pid]} { after 10 }
        }
    }
    for {set i 0} {$i < $count} {incr i} {
        set n $nodes($i)
        if {$keep} {
            append tails "node $i port [dict get $n port] dir kept: [dict get $n dir]\n"
            append tails [::srv::log_tail $n 10]
        } else {
            file delete -force [dict get $n dir]
        }
    }
    if {$keep && $tails ne {}} { ::testutil::log $tails }
    array unset nodes
    array set nodes {}
    set count 0
    set ::cl::topo {}
}

proc start_cluster {options body} {
    set p 3; set r 0; set total {}; set create cli; set conf {}; set bins {}; set tags {}
    set netns 0
    foreach {opt val} $options {
        switch -- $opt {
            primaries { set p $val }
            replicas { set r $val }
            nodes { set total $val }
            create { set create $val }
            config { set conf $val }
            bins { set bins $val }
            tags { set tags $val }
            netns { set netns $val }
            default { error "start_cluster: unknown option '$opt'" }
        }
    }
    set members [expr {$p * (1 + $r)}]
    if {$total eq {}} { set total $members }
    if {$::cl::count} { error "start_cluster: blocks do not nest" }
    set ::test_tags [concat $::test_tags $tags]
    try {
        if {![::testutil::tags_allowed]} return
        set failures_before $::testutil::failed
        set code [catch {
            if {$netns} { ::cl::netns_setup }
            for {set i 0} {$i < $total} {incr i} {
                set bin $::cfg(server)
                if {[dict exists $bins $i]} { set bin [dict get $bins $i] }
                ::cl::new_node $bin $conf
            }
            for {set i 0} {$i < $total} {incr i} { ::cl::wait_ready $i }
            set idxs {}
            for {set i 0} {$i < $members} {incr i} { lappend idxs $i }
            switch -- $create {
                cli { if {$p > 0} { cluster_create_cli $idxs $r } }
                manual {
                    set prim [lrange $idxs 0 [expr {$p - 1}]]
                    set reps {}
                    for {set k 0} {$k < $p} {incr k} {
                        set l {}
                        for {set j 0} {$j < $r} {incr j} { lappend l [expr {$p + $k * $r + $j}] }
                        lappend reps $l
                    }
                    cluster_create_manual $prim $reps
                }
                none {}
                default { error "start_cluster: create must be cli, manual or none" }
            }
            if {$create ne "none" && $p > 0} {
                cluster_wait_ok $idxs
                ::cl::wait_slots_replicas $idxs $r
            }
            for {set i 0} {$i < $total} {incr i} { cluster_myid $i }
            cluster_refresh
        } result opts]
        if {$code == 0} {
            set code [catch {uplevel 1 $body} result opts]
        } else {
            # setup failed: report it once, as a test, so the file shows why nothing ran
            ::testutil::report_err "(cluster setup)" $result
            set code 0
        }
        set keep [expr {$::testutil::failed > $failures_before || $code == 1}]
        ::cl::teardown $keep
        ::cl::netns_teardown
        if {$code == 1} {
            return -code error -errorinfo [dict get $opts -errorinfo] $result
        }
        return $result
    } finally {
        set ::test_tags [lrange $::test_tags 0 end-[llength $tags]]
    }
}

# assert_contains needle text: text holds needle verbatim (no glob characters).
proc assert_contains {needle text {detail {}}} {
    if {[string first $needle $text] < 0} {
        set m "expected to contain: '$needle'\n                 got: '$text'"
        if {$detail ne {}} { append m "\n  detail: $detail" }
        ::testutil::fail $m
    }
}
proc assert_not_contains {needle text} {
    if {[string first $needle $text] >= 0} {
        ::testutil::fail "expected not to contain: '$needle'\n                     got: '$text'"
    }
}

# Whether node idx knows CLUSTER <sub> (an implementation may not have every subcommand yet:
# tests of the missing ones are skipped deliberately, naming what is missing).
proc cluster_has_subcommand {idx sub} {
    # A bogus argument: a known subcommand answers a syntax or arity error and does nothing.
    if {[catch {cn $idx cluster $sub no-such-argument} e] &&
        [string match "*unknown subcommand*" $e]} {
        return 0
    }
    return 1
}

# One reply read raw (RESP2), nested arrays included: its exact bytes.
proc ::cl::read_raw {c} {
    set line [$c read]
    set out "$line\r\n"
    switch -- [string index $line 0] {
        "\$" { if {[string range $line 1 end] >= 0} { append out [$c read] "\r\n" } }
        "*" {
            set n [string range $line 1 end]
            for {set i 0} {$i < $n} {incr i} { append out [::cl::read_raw $c] }
        }
    }
    return $out
}

proc cluster_raw {idx prelude args} {
    set c [cluster_client $idx]
    $c deferred 1
    $c readraw 1
    foreach p $prelude { $c {*}$p; ::cl::read_raw $c }
    $c {*}$args
    set r [::cl::read_raw $c]
    $c close
    return $r
}

proc cluster_open_slots {idx} {
    foreach line [split [cn $idx cluster nodes] "\n"] {
        if {[lsearch -exact [split [lindex [split $line " "] 2] ,] myself] >= 0} {
            return [regexp -all -inline {\[[0-9]+-[<>]-[0-9a-f]{40}\]} $line]
        }
    }
    return {}
}

proc cluster_self {idx} {
    foreach e [cluster_nodes_parsed $idx] {
        if {"myself" in [dict get $e flags]} { return $e }
    }
}

# ---------------------------------------------------------------- network namespaces

# "" if this machine lets the tests make network namespaces and veth pairs, else why not.
proc cluster_netns_available {} {
    if {[info exists ::cl::netns_probe]} { return $::cl::netns_probe }
    set ns vkprobe[pid]
    if {[catch {exec ip netns add $ns 2>@1} e]} {
        set ::cl::netns_probe "cannot create a network namespace: $e"
    } elseif {[catch {exec ip link add vkp[pid]a type veth peer name vkp[pid]b 2>@1} e]} {
        set ::cl::netns_probe "cannot create a veth pair: $e"
        catch {exec ip netns del $ns}
    } else {
        catch {exec ip link del vkp[pid]a}
        catch {exec ip netns del $ns}
        set ::cl::netns_probe {}
    }
    return $::cl::netns_probe
}

# A bridge with the tests' address on a subnet of this process (parallel test files differ).
proc ::cl::netns_setup {} {
    set n [expr {[pid] % 250}]
    set bridge vkbr[pid]
    set ::cl::netns [dict create prefix vkns[pid]n subnet 10.77.$n bridge $bridge nodes {}]
    exec ip link add $bridge type bridge
    exec ip addr add 10.77.$n.254/24 dev $bridge
    exec ip link set $bridge up
}

# Namespace, veth pair and address of node idx; returns the address.
proc ::cl::netns_add_node {idx} {
    set ns [dict get $::cl::netns prefix]$idx
    set subnet [dict get $::cl::netns subnet]
    set outer vk[pid]o$idx
    set ip $subnet.[expr {$idx + 1}]
    exec ip netns add $ns
    exec ip link add $outer type veth peer name eth0 netns $ns
    exec ip link set $outer master [dict get $::cl::netns bridge]
    exec ip link set $outer up
    exec ip netns exec $ns ip addr add $ip/24 dev eth0
    exec ip netns exec $ns ip link set eth0 up
    exec ip netns exec $ns ip link set lo up
    dict lappend ::cl::netns nodes $idx
    return $ip
}

proc ::cl::netns_teardown {} {
    if {$::cl::netns eq {}} return
    foreach idx [dict get $::cl::netns nodes] {
        catch {exec ip link del vk[pid]o$idx}
        catch {exec ip netns del [dict get $::cl::netns prefix]$idx}
    }
    catch {exec ip link del [dict get $::cl::netns bridge]}
    set ::cl::netns {}
}

# Packets from node a to node b are dropped: a blackhole route in a's namespace.
proc cluster_cut_oneway {a b} {
    exec ip netns exec [cnode $a netns] ip route replace blackhole [cnode $b host]/32
}

proc cluster_cut {a b} {
    cluster_cut_oneway $a $b
    cluster_cut_oneway $b $a
}

proc cluster_heal {} {
    foreach i [dict get $::cl::netns nodes] {
        foreach j [dict get $::cl::netns nodes] {
            if {$i != $j} { catch {exec ip netns exec [cnode $i netns] ip route del blackhole [cnode $j host]/32 2>@1} }
        }
    }
}
