# CLUSTER FLUSHSLOT (Valkey 9's command), and how a slot that moved away atomically leaves the
# source's replicas and AOF: as one CLUSTER FLUSHSLOT when every replica takes it, as a DEL per
# key when one may not (a Valkey 8 or Redis 7 replica, a tool reading the stream). 2 primaries
# with one replica each (0-1 primaries, 2-3 replicas).

# A raw replica of node idx (announcing `capa slot-import` if capa): its snapshot read and
# skipped, the socket left at the start of the stream.
proc sfl_raw_replica {idx capa} {
    set fd [socket [cnode $idx host] [cnode $idx port]]
    fconfigure $fd -translation binary -blocking 1
    if {$capa} {
        puts -nonewline $fd "REPLCONF capa slot-import\r\n"
        flush $fd
        assert_equal "+OK" [string trimright [gets $fd] "\r"]
    }
    puts -nonewline $fd "PSYNC ? -1\r\n"
    flush $fd
    assert_match "+FULLRESYNC * *" [gets $fd]
    while {[set line [string trimright [gets $fd] "\r"]] eq ""} {}  ;# keepalive newlines
    read $fd [string range $line 1 end]
    return $fd
}

# Objects node idx freed on its lazy-free thread, once nothing is pending there.
proc sfl_freed {idx} {
    ::cl::deadline_wait 5000 {[info_field [cn $idx info memory] lazyfree_pending_objects] == 0} \
        "lazy-free jobs still pending on node $idx"
    return [info_field [cn $idx info memory] lazyfreed_objects]
}

proc sfl_count {needle text} {
    return [regexp -all -- [string map {* \\* $ \\$} $needle] $text]
}

start_cluster {primaries 2 replicas 1 create manual config {enable-debug-command yes}} {
    set A 0; set B 1; set A2 2; set B2 3
    set idA [cluster_myid $A]; set idB [cluster_myid $B]

    test "CLUSTER FLUSHSLOT: errors, then only that slot's keys go, here and on the replica" {
        set tag [cluster_key_in_slot_of $A fs]
        set slot [cn $A cluster keyslot $tag]
        set other [cluster_key_in_slot_of $A other]
        assert_error "ERR Invalid or out of range slot" {cn $A cluster flushslot 16384}
        assert_error "ERR Invalid or out of range slot" {cn $A cluster flushslot -1}
        assert_error "ERR Invalid or out of range slot" {cn $A cluster flushslot abc}
        assert_error "ERR syntax error" {cn $A cluster flushslot $slot LATER}
        assert_error "ERR syntax error" {cn $A cluster flushslot $slot SYNC ASYNC}
        assert_error "ERR wrong number of arguments for 'cluster|flushslot' command" \
            {cn $A cluster flushslot}
        for {set i 0} {$i < 200} {incr i} { cn $A set "{$tag}k$i" $i }
        cn $A zadd "{$tag}z" 1 a 2 b
        cn $A set $other keep
        cluster_wait_replicas_synced $A
        assert_error "READONLY *" {cn $A2 cluster flushslot $slot}
        # A WATCH of a key of the slot fails the EXEC; a tracking client hears of the key.
        set w [cluster_client $A]
        $w watch "{$tag}k1"
        set t [cluster_client $A]
        $t hello 3
        $t client tracking on
        $t get "{$tag}k2"
        # Without SYNC or ASYNC, as lazyfree-lazy-user-flush (yes) says: the keys are freed on
        # the lazy-free thread.
        set freed [sfl_freed $A]
        assert_equal OK [cn $A cluster flushslot $slot]
        assert_equal 0 [cn $A cluster countkeysinslot $slot]
        assert_equal [expr {$freed + 201}] [sfl_freed $A]
        assert_equal keep [cn $A get $other]
        $w multi
        $w set x{$tag} 1
        assert_equal {} [$w exec]
        assert_equal [list invalidate [list "{$tag}k2"]] [$t read]
        ::cl::deadline_wait 5000 {[cn $A2 cluster countkeysinslot $slot] == 0} \
            "the replica kept the slot's keys"
        cn $A2 readonly
        assert_equal keep [cn $A2 get $other]
        cn $A2 readwrite
        # SYNC, and no argument with lazyfree-lazy-user-flush no: freed here, before the reply.
        cn $A config set lazyfree-lazy-user-flush no
        set freed [sfl_freed $A]
        foreach mode {SYNC {}} {
            for {set i 0} {$i < 200} {incr i} { cn $A set "{$tag}k$i" $i }
            assert_equal OK [cn $A cluster flushslot $slot {*}$mode]
            assert_equal 0 [cn $A cluster countkeysinslot $slot]
        }
        assert_equal $freed [sfl_freed $A]
        # ASYNC: gone at once all the same, freed on the thread.
        for {set i 0} {$i < 200} {incr i} { cn $A set "{$tag}k$i" $i }
        assert_equal OK [cn $A cluster flushslot $slot ASYNC]
        assert_equal 0 [cn $A cluster countkeysinslot $slot]
        assert_equal {} [cn $A get "{$tag}k7"]
        assert_equal [expr {$freed + 200}] [sfl_freed $A]
        cn $A config set lazyfree-lazy-user-flush yes
        ::cl::deadline_wait 5000 {[cn $A2 cluster countkeysinslot $slot] == 0} \
            "the replica kept the slot's keys"
        assert_equal [cn $A dbsize] [cn $A2 dbsize]
    }

    test "A slot moved away leaves the replicas as one CLUSTER FLUSHSLOT, not a DEL per key" {
        set tag [cluster_key_in_slot_of $A moved]
        set slot [cn $A cluster keyslot $tag]
        for {set i 0} {$i < 300} {incr i} { cn $A set "{$tag}k$i" $i }
        cn $A rpush "{$tag}big" {*}[lrepeat 3000 x]
        cluster_wait_replicas_synced $A
        set fd [sfl_raw_replica $A 1]
        set freed [sfl_freed $A]
        set freed2 [sfl_freed $A2]
        assert_equal OK [cn $A cluster migrateslots slotsrange $slot $slot node $idB]
        sma_wait_state $A success
        set got [read_for $fd 1000]
        close $fd
        assert_equal 1 [sfl_count "\$9\r\nFLUSHSLOT\r\n\$[string length $slot]\r\n$slot\r\n\$5\r\nASYNC\r\n" $got]
        assert_equal 0 [sfl_count "\r\nDEL\r\n" $got]
        assert_equal 0 [sfl_count "\r\nLPOP\r\n" $got]
        ::cl::deadline_wait 10000 {[cn $A2 cluster countkeysinslot $slot] == 0} \
            "the source's replica kept the slot's keys"
        assert_equal 301 [cn $B cluster countkeysinslot $slot]
        # The slot's table went whole to the lazy-free thread, here and on the replica.
        assert_equal [expr {$freed + 301}] [sfl_freed $A]
        assert_equal [expr {$freed2 + 301}] [sfl_freed $A2]
    }

    test "... and as a DEL per key while a replica that may not take it is attached" {
        set tag [cluster_key_in_slot_of $A deld]
        set slot [cn $A cluster keyslot $tag]
        for {set i 0} {$i < 300} {incr i} { cn $A set "{$tag}k$i" $i }
        cluster_wait_replicas_synced $A
        set fd [sfl_raw_replica $A 0]
        assert_equal OK [cn $A cluster migrateslots slotsrange $slot $slot node $idB]
        sma_wait_state $A success
        set got [read_for $fd 1000]
        close $fd
        assert_equal 0 [sfl_count "FLUSHSLOT" $got]
        assert_equal 300 [sfl_count "\r\nDEL\r\n" $got]
        ::cl::deadline_wait 10000 {[cn $A2 cluster countkeysinslot $slot] == 0} \
            "the source's replica kept the slot's keys"
    }

    test "FLUSHSLOT of a slot being exported fails the job; the target drops what it staged" {
        set tag [cluster_key_in_slot_of $A half]
        set slot [cn $A cluster keyslot $tag]
        for {set i 0} {$i < 400} {incr i} { cn $A set "{$tag}k$i" $i }
        assert_equal OK [cn $A debug slot-migration-walk-limit 100]
        try {
            assert_equal OK [cn $A cluster migrateslots slotsrange $slot $slot node $idB]
            ::cl::deadline_wait 10000 {[dict get [sma_job $A] keys_sent] >= 100} \
                "the walk never began: [sma_job $A]"
            assert_equal OK [cn $A cluster flushslot $slot]
            sma_wait_state $A failed
            assert_equal "Slot $slot was flushed" [dict get [sma_job $A] message]
        } finally {
            cn $A debug slot-migration-walk-limit 0
        }
        ::cl::deadline_wait 10000 {
            [dict get [lindex [cn $B cluster getslotmigrations] end] state] in {failed cancelled}
        } "the target's job never ended: [cn $B cluster getslotmigrations]"
        assert_equal 0 [cn $B cluster countkeysinslot $slot]
        assert_equal 0 [cn $A cluster countkeysinslot $slot]
        assert_equal $A [cluster_slot_owner $slot $B]
    }
}
