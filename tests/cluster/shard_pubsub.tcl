# Shard channels across slot moves: a client subscribed with SSUBSCRIBE to a shard channel whose
# slot stops being served by this node's shard gets a sunsubscribe push for it and leaves the
# channel, as Valkey 8 does; channels in other slots stay. The events: SETSLOT NODE (on the
# primary, and on its replica from the replication stream), another shard's claim heard over the
# bus, DELSLOTS / DELSLOTSRANGE / FLUSHSLOTS, a replica moved to another shard (CLUSTER
# REPLICATE), and a failover (the slots change owner inside the shard: Valkey 8 unsubscribes
# there too). Reply bytes are read raw, RESP2 and RESP3.
# 3 primaries (0-2) with replicas 3-5, built by hand. Written to pass on Valkey 8 as well.

# One reply of a readraw client: its exact bytes (RESP2 and RESP3 aggregates).
proc sp_raw {c {ms 10000}} {
    set line [$c read $ms]
    set out "$line\r\n"
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - > - ~ { for {set i 0} {$i < $n} {incr i} { append out [sp_raw $c $ms] } }
        % { for {set i 0} {$i < 2 * $n} {incr i} { append out [sp_raw $c $ms] } }
        $ - = { if {$n >= 0} { append out [$c read $ms] "\r\n" } }
    }
    return $out
}

# The bytes of a 3-part pub/sub reply: kind, channel and a count (or a message).
proc sp_push {resp kind ch last} {
    set h [expr {$resp == 3 ? ">" : "*"}]
    set out "${h}3\r\n\$[string length $kind]\r\n$kind\r\n\$[string length $ch]\r\n$ch\r\n"
    if {[string is integer -strict $last]} {
        append out ":$last\r\n"
    } else {
        append out "\$[string length $last]\r\n$last\r\n"
    }
    return $out
}

# A raw subscriber on node idx (READONLY first on a replica) to the shard channels given.
proc sp_subscriber {idx resp args} {
    set c [cluster_client $idx]
    $c deferred 1
    $c readraw 1
    if {$resp == 3} { $c hello 3; sp_raw $c }
    if {[cluster_primary_of $idx] ne {}} {
        $c readonly
        assert_equal "+OK\r\n" [sp_raw $c]
    }
    set n 0
    foreach ch $args {
        $c ssubscribe $ch
        assert_equal [sp_push $resp ssubscribe $ch [incr n]] [sp_raw $c]
    }
    return $c
}

# n channels owned by primary idx, each in a slot of its own; returns them sorted by slot.
proc sp_channels {idx prefix n} {
    set out {}
    set slots {}
    for {set i 0} {[llength $out] < $n} {incr i} {
        set ch [cluster_key_in_slot_of $idx $prefix$i]
        set s [cn 0 cluster keyslot $ch]
        if {[dict exists $slots $s]} continue
        dict set slots $s $ch
        lappend out [list $s $ch]
    }
    return [lmap e [lsort -integer -index 0 $out] { lindex $e 1 }]
}
proc sp_slot {ch} { return [cn 0 cluster keyslot $ch] }

# The next thing c receives is a smessage of ch: nothing (no push) came before it.
proc sp_still_subscribed {idx c resp ch} {
    assert_equal 1 [cn $idx spublish $ch still]
    assert_equal [sp_push $resp smessage $ch still] [sp_raw $c]
}

proc sp_wait_owner {slot idx} {
    foreach i [cluster_alive_nodes] {
        ::cl::deadline_wait 20000 {[cluster_slot_owner $slot $i] == $idx} \
            {node $i does not see $idx own slot $slot}
    }
}

start_cluster {primaries 3 replicas 1 create manual} {
    set A 0; set B 1; set C 2; set A2 3; set B2 4; set C2 5
    set idA [cluster_myid $A]; set idB [cluster_myid $B]; set idC [cluster_myid $C]

    test "SETSLOT NODE on the primary: its subscriber and its replica's get sunsubscribe" {
        lassign [sp_channels $A sp-node 2] ch keep
        set s [sp_slot $ch]
        set onA [sp_subscriber $A 2 $ch $keep]
        set onA2 [sp_subscriber $A2 2 $ch]
        assert_equal [list $ch 1] [cn $A pubsub shardnumsub $ch]
        assert_equal OK [cn $B cluster setslot $s importing $idA]
        assert_equal OK [cn $A cluster setslot $s migrating $idB]
        # the primary gives the slot away first (its replica applies it from the stream, before
        # the primary's reply); the target's claim comes after
        assert_equal OK [cn $A cluster setslot $s node $idB]
        assert_equal [sp_push 2 sunsubscribe $ch 1] [sp_raw $onA]
        assert_equal [sp_push 2 sunsubscribe $ch 0] [sp_raw $onA2]
        assert_equal [list $ch 0] [cn $A pubsub shardnumsub $ch]
        assert_equal [list $ch 0] [cn $A2 pubsub shardnumsub $ch]
        assert_equal [list $keep] [cn $A pubsub shardchannels]
        assert_equal {} [cn $A2 pubsub shardchannels]
        assert_equal OK [cn $B cluster setslot $s node $idB]
        sp_wait_owner $s $B
        # the channel of another slot is untouched: its next push is a message
        sp_still_subscribed $A $onA 2 $keep
        # the client that left subscriber mode (RESP2) runs commands again
        $onA2 ping
        assert_equal "+PONG\r\n" [sp_raw $onA2]
        $onA close
        $onA2 close
    }

    test "A slot taken by another shard's claim (bus): primary and replica, RESP3 push" {
        lassign [sp_channels $A sp-claim 2] ch keep
        set s [sp_slot $ch]
        set onA [sp_subscriber $A 3 $ch $keep]
        set onA2 [sp_subscriber $A2 3 $keep $ch]
        # B claims the slot with an epoch above A's: A and its replica lose it through the bus
        cn $B cluster bumpepoch
        assert_equal OK [cn $B cluster setslot $s node $idB]
        assert_equal [sp_push 3 sunsubscribe $ch 1] [sp_raw $onA]
        assert_equal [sp_push 3 sunsubscribe $ch 1] [sp_raw $onA2]
        sp_wait_owner $s $B
        assert_equal [list $keep] [cn $A pubsub shardchannels]
        assert_equal [list $keep] [cn $A2 pubsub shardchannels]
        sp_still_subscribed $A $onA 3 $keep
        assert_equal [sp_push 3 smessage $keep still] [sp_raw $onA2]
        # still a RESP3 client answering commands in between
        $onA ping
        assert_equal "+PONG\r\n" [sp_raw $onA]
        $onA close
        $onA2 close
    }

    test "DELSLOTS and DELSLOTSRANGE: the primary's subscribers of those slots only" {
        lassign [sp_channels $A sp-del 3] ch1 ch2 keep
        set s1 [sp_slot $ch1]; set s2 [sp_slot $ch2]
        set onA [sp_subscriber $A 2 $ch1 $ch2 $keep]
        assert_equal OK [cn $A cluster delslots $s1]
        assert_equal [sp_push 2 sunsubscribe $ch1 2] [sp_raw $onA]
        assert_equal OK [cn $A cluster delslotsrange $s2 $s2]
        assert_equal [sp_push 2 sunsubscribe $ch2 1] [sp_raw $onA]
        assert_equal [list $keep] [cn $A pubsub shardchannels]
        assert_equal OK [cn $A cluster addslots $s1 $s2]
        cluster_wait_ok
        sp_still_subscribed $A $onA 2 $keep
        $onA close
    }

    test "A primary restarted from nodes.conf still unsubscribes (DELSLOTS after the restart)" {
        cluster_restart $A
        cluster_wait_ok
        set ch [lindex [sp_channels $A sp-restart 1] 0]
        set s [sp_slot $ch]
        set onA [sp_subscriber $A 2 $ch]
        assert_equal OK [cn $A cluster delslots $s]
        assert_equal [sp_push 2 sunsubscribe $ch 0] [sp_raw $onA]
        assert_equal OK [cn $A cluster addslots $s]
        cluster_wait_ok
        $onA close
    }

    test "A replica moved to another shard (CLUSTER REPLICATE) leaves its old shard's channels" {
        lassign [sp_channels $C sp-rep 2] ch1 ch2
        set onC2 [sp_subscriber $C2 2 $ch1 $ch2]
        set onC [sp_subscriber $C 2 $ch1]
        assert_equal OK [cn $C2 cluster replicate $idB]
        # in slot order, each with the count that remains
        assert_equal [sp_push 2 sunsubscribe $ch1 1] [sp_raw $onC2]
        assert_equal [sp_push 2 sunsubscribe $ch2 0] [sp_raw $onC2]
        assert_equal {} [cn $C2 pubsub shardchannels]
        # the primary it left keeps its own subscriber
        sp_still_subscribed $C $onC 2 $ch1
        ::cl::deadline_wait 20000 {[dict get [cluster_nodes_line $B $C2] primary] eq $idB} \
            {node $B never saw $C2 as its replica}
        cluster_refresh
        $onC close
        $onC2 close
    }

    test "FLUSHSLOTS: every channel of the node's slots" {
        lassign [sp_channels $C sp-flush 2] ch1 ch2
        set onC [sp_subscriber $C 2 $ch1 $ch2]
        assert_equal OK [cn $C cluster flushslots]
        assert_equal [sp_push 2 sunsubscribe $ch1 1] [sp_raw $onC]
        assert_equal [sp_push 2 sunsubscribe $ch2 0] [sp_raw $onC]
        assert_equal {} [cn $C pubsub shardchannels]
        assert_equal OK [cn $C cluster addslotsrange {*}[::cl::slot_range 2 3]]
        cluster_wait_ok
        $onC close
    }

    test "A failover moves the slots inside the shard: the shard's subscribers are unsubscribed" {
        # B has replicas 4 and 5 now; 4 takes over
        set ch [lindex [sp_channels $B sp-fo 1] 0]
        set onB [sp_subscriber $B 2 $ch]
        set onB2 [sp_subscriber $B2 2 $ch]
        assert_equal OK [cn $B2 cluster failover]
        assert_equal [sp_push 2 sunsubscribe $ch 0] [sp_raw $onB2]
        assert_equal [sp_push 2 sunsubscribe $ch 0] [sp_raw $onB]
        sp_wait_owner [sp_slot $ch] $B2
        cluster_wait_ok
        $onB close
        $onB2 close
    }
}
