# Open slots of a node killed with kill -9 and restarted from its nodes.conf (issue 26, bug 9).
# A replica's open slots are its primary's: the full sync (cluster-slot-states) and the
# replicated SETSLOT stream carry them. A restarted node without a snapshot recording its
# primary's history (and a restarted primary) has no replication history, so its first sync
# is a full one; until it is done, the open slots of its own nodes.conf must not show, nor
# route, nor be what redis-cli reads. A replica restarted from its own dump.rdb continues its
# primary's stream by PSYNC and keeps them, as Valkey 8 does.
# To look at that moment, the primary holds the full sync back (repl-diskless-sync-delay).
# Layout: primaries 0, 1, 2 with replicas 3, 4, 5; node-timeout 3000 ms.

set ::nt $::cl::node_timeout

proc osr_wait_tokens {idx expected} {
    ::cl::deadline_wait 10000 {[cluster_open_slots $idx] eq $expected} \
        {node $idx open slots: [cluster_open_slots $idx], expected $expected}
}

proc osr_wait_primary {idx} {
    ::cl::deadline_wait [expr {6 * $::nt}] {
        "master" in [dict get [cluster_self $idx] flags] && [llength [dict get [cluster_self $idx] slots]]
    } {node $idx was never promoted: [cn $idx cluster nodes]}
}

proc osr_link {idx} { return [info_field [cn $idx info replication] master_link_status] }

proc osr_wait_link_up {idx} {
    ::cl::deadline_wait 20000 {[osr_link $idx] eq "up"} {node $idx never synced: [osr_link $idx]}
}

# Whether the nodes.conf on disk of node idx holds text (the open slot token of its myself line).
proc osr_conf_has {idx text} {
    set f [open [cnode $idx nodes_conf]]
    set s [read $f]
    close $f
    return [expr {[string first $text $s] >= 0}]
}

# The primary idx starts no full sync for a long while (its replicas wait), or again at once.
proc osr_hold_syncs {idx} { assert_equal OK [cn $idx config set repl-diskless-sync-delay 60] }
proc osr_release_syncs {idx} { assert_equal OK [cn $idx config set repl-diskless-sync-delay 0] }

proc osr_check_clean {} {
    foreach i [cluster_alive_nodes] { osr_wait_tokens $i {} }
    set via [lindex [cluster_alive_nodes] 0]
    lassign [cluster_cli --cluster check 127.0.0.1:[cnode $via port]] code out
    assert_equal 0 $code $out
    assert_not_contains {[WARNING]} $out
}

# Keys {tag}0..n-1 set to v<i> on primary idx.
proc osr_fill {idx tag n} {
    for {set i 0} {$i < $n} {incr i} { assert_equal OK [cn $idx set "{$tag}$i" v$i] }
}

start_cluster {primaries 3 replicas 1 create manual} {

    test "The source dies mid-migration, its successor closes the slot, the source restarts: no open slot while it waits for its full sync" {
        set tag osra
        set slot [cn 0 cluster keyslot "{$tag}"]
        set src [cluster_slot_owner $slot]
        set dst [expr {($src + 1) % 3}]
        set rep [lindex [cluster_replicas_of $src] 0]
        set dst_id [cluster_myid $dst]
        osr_fill $src $tag 10
        assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $src]]
        assert_equal OK [cn $src cluster setslot $slot migrating $dst_id]
        assert_equal 1 [cn $src wait 1 5000]
        assert_equal [list "\[$slot->-$dst_id\]"] [cluster_open_slots $rep]
        # a primary's own SETSLOT is on disk before it answers
        assert [osr_conf_has $src "\[$slot->-$dst_id\]"]
        cluster_kill $src
        osr_wait_primary $rep
        set ::osr_a [list $src $rep]
        osr_wait_tokens $dst [list "\[$slot-<-[cluster_myid $rep]\]"]
        # the new primary abandons the migration while the old one is down
        assert_equal OK [cn $rep cluster setslot $slot stable]
        assert_equal OK [cn $dst cluster setslot $slot stable]
        osr_wait_tokens $rep {}
        osr_wait_tokens $dst {}
        osr_hold_syncs $rep
        cluster_restart $src
        ::cl::deadline_wait 30000 {[dict get [cluster_self $src] primary] eq [cluster_myid $rep]} \
            {node $src never became a replica of its successor: [cluster_self $src]}
        # read before releasing the sync, asserted after (a failure leaves the cluster usable)
        set self [cluster_self $src]
        set link [osr_link $src]
        set tokens [cluster_open_slots $src]
        osr_release_syncs $rep
        assert_equal "down" $link "node $src had already synced"
        assert_equal {myself slave} [dict get $self flags]
        assert_equal {} $tokens "node $src shows the MIGRATING of its own nodes.conf"
        osr_wait_link_up $src
        assert_equal {} [cluster_open_slots $src]
        osr_check_clean
        cluster_refresh
        assert_equal $rep [cluster_slot_owner $slot]
        assert_equal v9 [cn $rep get "{$tag}9"]
    }

    test "The source dies during a live migration and restarts: after its full sync it mirrors its successor's MIGRATING, redirects alike, and --cluster fix closes the slot everywhere" {
        lassign $::osr_a a_replica a_primary
        cluster_refresh
        # another shard's primary, migrating to the first test's shard
        set src [lindex [lsearch -all -inline -not -exact [cluster_primaries] $a_primary] 0]
        set dst $a_primary
        set tag [cluster_key_in_slot_of $src osrb]
        set slot [cn $src cluster keyslot $tag]
        set rep [lindex [cluster_replicas_of $src] 0]
        set dst_id [cluster_myid $dst]
        osr_fill $src $tag 20
        assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $src]]
        assert_equal OK [cn $src cluster setslot $slot migrating $dst_id]
        set keys {}
        for {set i 0} {$i < 10} {incr i} { lappend keys "{$tag}$i" }
        assert_equal OK [cn $src migrate 127.0.0.1 [cnode $dst port] "" 0 5000 keys {*}$keys]
        assert_equal 1 [cn $src wait 1 5000]
        cluster_kill $src
        osr_wait_primary $rep
        set ::osr_b [list $src $rep]
        set rep_id [cluster_myid $rep]
        osr_wait_tokens $dst [list "\[$slot-<-$rep_id\]"]
        assert_equal [list "\[$slot->-$dst_id\]"] [cluster_open_slots $rep]
        cluster_restart $src
        ::cl::deadline_wait 30000 {[dict get [cluster_self $src] primary] eq $rep_id} \
            {node $src never became a replica of its successor: [cluster_self $src]}
        osr_wait_link_up $src
        # its primary's open slot, from the full sync
        osr_wait_tokens $src [list "\[$slot->-$dst_id\]"]
        assert_equal {myself slave} [dict get [cluster_self $src] flags]
        # a READONLY replica redirects like its primary: a moved key is asked of the target
        set ask "ASK $slot 127.0.0.1:[cnode $dst port]"
        assert_equal $ask [assert_error * {cn $rep get "{$tag}0"}]
        set c [cluster_client $src]
        assert_equal OK [$c readonly]
        assert_equal $ask [assert_error * {$c get "{$tag}0"}]
        assert_equal v15 [$c get "{$tag}15"]
        lassign [cluster_cli --cluster fix 127.0.0.1:[cnode $rep port] --cluster-yes] code out
        assert_equal 0 $code $out
        osr_check_clean
        # every key in one place: on the slot's owner, none left elsewhere
        cluster_refresh
        set owner [cluster_slot_owner $slot]
        for {set i 0} {$i < 20} {incr i} { assert_equal v$i [cn $owner get "{$tag}$i"] }
        foreach p [cluster_primaries] {
            if {$p != $owner} { assert_equal {} [cn $p cluster getkeysinslot $slot 100] "node $p" }
        }
    }

    test "A replica dies with an open slot, its primary closes it, the replica restarts: no open slot while it waits for its full sync" {
        lassign $::osr_b replica primary
        cluster_refresh
        set tag [cluster_key_in_slot_of $primary osrc]
        set slot [cn $primary cluster keyslot $tag]
        set dst [lindex [lsearch -all -inline -not -exact [cluster_primaries] $primary] 0]
        set dst_id [cluster_myid $dst]
        assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $primary]]
        # answered once the replica applied it
        assert_equal OK [cn $primary cluster setslot $slot migrating $dst_id]
        assert_equal [list "\[$slot->-$dst_id\]"] [cluster_open_slots $replica]
        # a replica saves its primary's open slots with its next save, at most 100 ms later
        ::cl::deadline_wait 5000 {[osr_conf_has $replica "\[$slot->-$dst_id\]"]} \
            {the open slot never reached node $replica's nodes.conf}
        cluster_kill $replica
        # alone, the primary applies it at once (there is no replica to stream it to), once it
        # saw the replica's link close
        ::cl::deadline_wait 5000 {[info_field [cn $primary info replication] connected_slaves] == 0} \
            {node $primary still counts its killed replica}
        assert_equal OK [cn $primary cluster setslot $slot stable]
        assert_equal OK [cn $dst cluster setslot $slot stable]
        osr_wait_tokens $primary {}
        osr_wait_tokens $dst {}
        osr_hold_syncs $primary
        # Without a snapshot of its own: the dump.rdb its disk-based full sync left records
        # the primary's history, which a restarted replica continues by PSYNC, keeping the
        # open slots of its nodes.conf as the stream brings them up to date
        # (replica_visibility.tcl restarts a replica from its snapshot).
        file delete [file join [cnode $replica dir] dump.rdb]
        cluster_restart $replica
        set self [cluster_self $replica]
        set link [osr_link $replica]
        set tokens [cluster_open_slots $replica]
        osr_release_syncs $primary
        assert_equal "down" $link "node $replica had already synced"
        assert_equal {myself slave} [dict get $self flags]
        assert_equal [cluster_myid $primary] [dict get $self primary]
        assert_equal {} $tokens "node $replica shows the MIGRATING of its own nodes.conf"
        osr_wait_link_up $replica
        assert_equal {} [cluster_open_slots $replica]
        osr_check_clean
    }

    test "A replica restarted from its own dump.rdb keeps the open slot of its nodes.conf and continues by PSYNC" {
        lassign $::osr_b replica primary
        cluster_refresh
        set tag [cluster_key_in_slot_of $primary osrd]
        set slot [cn $primary cluster keyslot $tag]
        set dst [lindex [lsearch -all -inline -not -exact [cluster_primaries] $primary] 0]
        set dst_id [cluster_myid $dst]
        set token "\[$slot->-$dst_id\]"
        # SETSLOT waits only for replicas the primary counts online (as Valkey 8's does): the
        # replica's sync of the previous test must have ended on both sides.
        osr_wait_link_up $replica
        ::cl::deadline_wait 10000 {[string match "*slave0:*state=online*" [cn $primary info replication]]} \
            {node $primary never saw its replica online: [cn $primary info replication]}
        assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $primary]]
        assert_equal OK [cn $primary cluster setslot $slot migrating $dst_id]
        assert_equal [list $token] [cluster_open_slots $replica]
        ::cl::deadline_wait 5000 {[osr_conf_has $replica $token]} \
            {the open slot never reached node $replica's nodes.conf}
        # its snapshot records the primary's history up to after the MIGRATING
        assert_equal OK [cn $replica save]
        cluster_kill $replica
        osr_hold_syncs $primary   ;# a full sync would not come: only PSYNC brings the link up
        cluster_restart $replica
        set tokens [cluster_open_slots $replica]
        osr_wait_link_up $replica
        osr_release_syncs $primary
        assert_equal [list $token] $tokens "node $replica dropped its MIGRATING at restart"
        assert_equal [list $token] [cluster_open_slots $replica]
        # the stream goes on: the slot closed on its primary closes on it
        assert_equal OK [cn $primary cluster setslot $slot stable]
        assert_equal OK [cn $dst cluster setslot $slot stable]
        osr_wait_tokens $replica {}
        osr_check_clean
    }
}
