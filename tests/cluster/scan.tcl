# Portable scan cursors (issue 11; their layout: src/commands/common.h): a SCAN,
# HSCAN, SSCAN or ZSCAN continuation may go to any node of the shard, in any order, and the
# union of the replies holds every element present for the whole scan, while the tables grow
# and shrink; across a kill -9 failover and a replica restart too. A cursor from another shard
# or from before the node's seed changed is refused with a clear error.  Layout: primaries 0,
# 1, 2 with replicas 3, 4, 5; node 6 a second replica of primary 1; hash tables forced (the
# listpack and intset limits at 0) so that element scans really page.

set ::sc_py [file join [file dirname [info script]] .. support cluster_load.py]
set ::sc_foreign "ERR invalid cursor: it was issued by a node with another hash seed (another shard, or this node before its seed changed); start the scan again with cursor 0"

# A client per node, READONLY (so that replicas serve the element scans).
proc sc_client {idx} {
    if {![info exists ::sc_clients($idx)] || [info commands $::sc_clients($idx)] eq {}} {
        set c [::resp::client [cnode $idx host] [cnode $idx port]]
        $c readonly
        set ::sc_clients($idx) $c
    }
    return $::sc_clients($idx)
}
proc sc_drop_clients {} {
    foreach {i c} [array get ::sc_clients] { catch {$c close} }
    array unset ::sc_clients
}

# Sends commands to node idx pipelined; returns nothing (errors raise).
proc sc_pipe {idx cmds} {
    set c [cluster_client $idx]
    $c deferred 1
    foreach cmd $cmds { $c {*}$cmd }
    foreach cmd $cmds { $c read }
    $c close
}

# One scan, continued on `nodes` in `order` (alt: round robin from the first; random).
# kind: scan (args: MATCH pattern) or hscan/sscan/zscan (args: the key). `mutate` is run
# (at level #0) with ::sc_step set, between steps. Returns the distinct elements returned.
proc sc_scan {kind arg nodes order {mutate {}}} {
    set cursor 0
    set step 0
    set seen [dict create]
    while 1 {
        if {$order eq "alt"} {
            set n [lindex $nodes [expr {$step % [llength $nodes]}]]
        } else {
            set n [lindex $nodes [expr {int(rand() * [llength $nodes])}]]
        }
        set c [sc_client $n]
        if {$kind eq "scan"} {
            lassign [$c scan $cursor match $arg count 20] cursor elems
        } else {
            lassign [$c $kind $arg $cursor count 20] cursor elems
        }
        set stride [expr {$kind in {hscan zscan} ? 2 : 1}]
        for {set i 0} {$i < [llength $elems]} {incr i $stride} { dict set seen [lindex $elems $i] 1 }
        incr step
        set ::sc_step $step
        if {$mutate ne {}} { uplevel #0 $mutate }
        if {$cursor == 0} break
    }
    set ::sc_nsteps $step
    return [dict keys $seen]
}

# Continues an element scan (kind: hscan/zscan, pairs; sscan) of key from `cursor` on the
# nodes given, round robin, for `steps` replies (0: to the end); appends the elements to the
# list variable `var`; returns the cursor.
proc sc_steps {kind key cursor nodes steps var} {
    upvar 1 $var got
    set stride [expr {$kind eq "sscan" ? 1 : 2}]
    for {set s 0} {$steps == 0 || $s < $steps} {incr s} {
        set n [lindex $nodes [expr {$s % [llength $nodes]}]]
        lassign [[sc_client $n] $kind $key $cursor count 20] cursor elems
        for {set i 0} {$i < [llength $elems]} {incr i $stride} { lappend got [lindex $elems $i] }
        if {$cursor == 0} break
    }
    return $cursor
}

# Missing elements of `want` in `got` (at most 5 named), "" if none.
proc sc_missing {want got} {
    set g [dict create]
    foreach e $got { dict set g $e 1 }
    set miss {}
    foreach e $want { if {![dict exists $g $e]} { lappend miss $e } }
    if {[llength $miss]} { return "[llength $miss] missing, e.g. [lrange $miss 0 4]" }
    return {}
}

set ::sc_conf {hash-max-listpack-entries 0 set-max-listpack-entries 0 set-max-intset-entries 0
               zset-max-listpack-entries 0}

start_cluster [list primaries 3 replicas 1 nodes 7 create manual config $::sc_conf] {

    test "Setup: node 6 is a second replica of primary 1; every node of a shard has its seed" {
        assert_equal OK [cn 1 cluster meet [cnode 6 host] [cnode 6 port]]
        cluster_wait_known 6 7
        ::cl::deadline_wait 20000 {[string match *master* [dict get [cluster_nodes_line 6 1] flags]]} \
            {node 6 never saw node 1}
        assert_equal OK [cn 6 cluster replicate [cluster_myid 1]]
        ::cl::deadline_wait 20000 {[info_field [cn 6 info replication] master_link_status] eq "up"} \
            {node 6 never synced}
        cluster_wait_ok
        cluster_refresh
        assert_equal {4 6} [cluster_replicas_of 1]
        # a cursor of a primary continues on its replica, not on another shard
        set k [cluster_key_in_slot_of 0 seedprobe]
        sc_pipe 0 [list [list hset $k a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10 k 11 l 12]]
        cluster_wait_replicas_synced 0
        set cur [lindex [cn 0 hscan $k 0 count 2] 0]
        assert [expr {$cur != 0}]
        set r [sc_client 3]
        assert_equal 2 [llength [$r hscan $k $cur]]
        assert_equal $::sc_foreign [assert_error * {cn 2 scan $cur}]
        assert_equal $::sc_foreign [assert_error * {cn 1 scan $cur}]
    }

    test "HSCAN, SSCAN, ZSCAN continued on both nodes of a shard: every element, 10 sets x 3 orders, tables growing and shrinking" {
        set sizes {130 301 517 1000 1337 2049 750 3000 64 1800}
        set r 0
        foreach size $sizes {
            incr r
            set base [cluster_key_in_slot_of 0 el$r]
            foreach {kind type add del} {hscan h {hset} {hdel} sscan s {sadd} {srem} zscan z {zadd} {zrem}} {
                set key "{$base}$type"
                set want {}
                set cmds {}
                for {set i 0} {$i < $size} {incr i} {
                    lappend want e$i
                    switch $type {
                        h { lappend cmds [list hset $key e$i v$i] }
                        s { lappend cmds [list sadd $key e$i] }
                        z { lappend cmds [list zadd $key $i e$i] }
                    }
                }
                sc_pipe 0 $cmds
                cluster_wait_replicas_synced 0
                foreach order {alt alt-rp random} {
                    set nodes [expr {$order eq "alt-rp" ? {3 0} : {0 3}}]
                    set ord [expr {$order eq "random" ? "random" : "alt"}]
                    # grow by 2000 (a rehash) after 3 steps, shrink back after 10
                    set ::sc_mut [list $key $type]
                    set mutate {
                        lassign $::sc_mut k t
                        if {$::sc_step == 3} {
                            set cs {}
                            for {set j 0} {$j < 2000} {incr j} {
                                switch $t { h { lappend cs [list hset $k g$j 1] } s { lappend cs [list sadd $k g$j] } z { lappend cs [list zadd $k 0 g$j] } }
                            }
                            sc_pipe 0 $cs
                        } elseif {$::sc_step == 10} {
                            set cs {}
                            for {set j 0} {$j < 2000} {incr j} {
                                switch $t { h { lappend cs [list hdel $k g$j] } s { lappend cs [list srem $k g$j] } z { lappend cs [list zrem $k g$j] } }
                            }
                            sc_pipe 0 $cs
                        }
                    }
                    set got [sc_scan $kind $key $nodes $ord $mutate]
                    assert_equal {} [sc_missing $want $got] "$kind of $size elements, order $order, $::sc_nsteps steps"
                    # put the table back to its size for the next order
                    cluster_wait_replicas_synced 0
                }
            }
        }
    }

    test "SCAN of the keyspace continued on both nodes of a shard: every key, 10 key sets x 3 orders" {
        set sizes {100 300 600 1000 1500 2000 400 2500 50 1200}
        set r 0
        foreach size $sizes {
            incr r
            # keys over 20 slots of shard 0
            set tags {}
            for {set t 0} {$t < 20} {incr t} { lappend tags [cluster_key_in_slot_of 0 "s$r.$t"] }
            set want {}
            set cmds {}
            for {set i 0} {$i < $size} {incr i} {
                set k "{[lindex $tags [expr {$i % 20}]]}r$r:$i"
                lappend want $k
                lappend cmds [list set $k $i]
            }
            sc_pipe 0 $cmds
            cluster_wait_replicas_synced 0
            foreach order {alt alt-rp random} {
                set nodes [expr {$order eq "alt-rp" ? {3 0} : {0 3}}]
                set ord [expr {$order eq "random" ? "random" : "alt"}]
                set ::sc_grow [list $tags $r]
                set mutate {
                    lassign $::sc_grow tags rr
                    if {$::sc_step == 2 || $::sc_step == 6} {
                        set cs {}
                        for {set j 0} {$j < 1000} {incr j} {
                            set op [expr {$::sc_step == 2 ? "set" : "del"}]
                            set k "{[lindex $tags [expr {$j % 20}]]}grow$rr:$j"
                            lappend cs [expr {$op eq "set" ? [list set $k 1] : [list del $k]}]
                        }
                        sc_pipe 0 $cs
                    }
                }
                set got [sc_scan scan "*r$r:*" $nodes $ord $mutate]
                assert_equal {} [sc_missing $want $got] "SCAN of $size keys, order $order, $::sc_nsteps steps"
                cluster_wait_replicas_synced 0
            }
        }
    }

    test "A scan started on a primary continues on its replicas after a kill -9 failover" {
        set key "{[cluster_key_in_slot_of 1 fo]}h"
        set want {}
        set cmds {}
        for {set i 0} {$i < 3000} {incr i} { lappend want f$i; lappend cmds [list hset $key f$i $i] }
        sc_pipe 1 $cmds
        cluster_wait_replicas_synced 1
        # a few steps on the primary
        set got {}
        set cursor [sc_steps hscan $key 0 1 5 got]
        assert [expr {$cursor != 0}]
        cluster_kill 1
        ::cl::deadline_wait 30000 {
            [llength [dict get [cluster_self 4] slots]] || [llength [dict get [cluster_self 6] slots]]
        } {no replica of node 1 was promoted}
        set winner [expr {[llength [dict get [cluster_self 4] slots]] ? 4 : 6}]
        set other [expr {$winner == 4 ? 6 : 4}]
        ::cl::deadline_wait 20000 {
            [dict get [cluster_self $other] primary] eq [cluster_myid $winner] &&
            [info_field [cn $other info replication] master_link_status] eq "up"
        } {node $other never followed node $winner}
        sc_drop_clients
        sc_steps hscan $key $cursor [list $winner $other] 0 got
        assert_equal {} [sc_missing $want $got]
        set ::sc_dead 1
    }

    test "A scan continues on a replica restarted from its dump.rdb" {
        set key "{[cluster_key_in_slot_of 0 rs]}z"
        set want {}
        set cmds {}
        for {set i 0} {$i < 2000} {incr i} { lappend want m$i; lappend cmds [list zadd $key $i m$i] }
        sc_pipe 0 $cmds
        cluster_wait_replicas_synced 0
        set got {}
        set cursor [sc_steps zscan $key 0 0 5 got]
        assert_equal OK [cn 3 save]
        cluster_restart 3
        sc_drop_clients
        ::cl::deadline_wait 20000 {[info_field [cn 3 info replication] master_link_status] eq "up"} \
            {node 3 never resynced}
        sc_steps zscan $key $cursor 3 0 got
        assert_equal {} [sc_missing $want $got]
    }

    test "A cursor from before a node's seed changed (it moved to another shard) is refused" {
        set cur [lindex [cn 3 scan 0 count 5] 0]
        assert [expr {$cur != 0}]
        assert_equal OK [cn 3 cluster replicate [cluster_myid 2]]
        ::cl::deadline_wait 20000 {
            [dict get [cluster_self 3] primary] eq [cluster_myid 2] &&
            [info_field [cn 3 info replication] master_link_status] eq "up"
        } {node 3 never synced with node 2}
        assert_equal $::sc_foreign [assert_error * {cn 3 scan $cur}]
        # and cursors of its new shard continue there
        set cur2 [lindex [cn 2 scan 0 count 5] 0]
        assert_equal 2 [llength [cn 3 scan $cur2 count 5]]
    }

    test "redis-py's RedisCluster(read_from_replicas=True) scans return every element" {
        set out [exec /usr/bin/python3 $::sc_py scan [cnode 0 port] 3000 2>/dev/null]
        assert_equal "keys 3000 hash 3000 set 3000 zset 3000" [string trim $out]
    }
}
