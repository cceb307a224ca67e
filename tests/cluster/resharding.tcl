# Real tools and a real client during slot migration (issue 9): redis-cli --cluster reshard,
# rebalance and fix on a 3+3 cluster of our nodes, while redis-py's RedisCluster reads with
# read_from_replicas=True and writes. Every read must return the value written before the run
# (replicas redirect moved keys with ASK instead of answering nil), no error may reach the
# application, and no acknowledged write may be lost. The same run on redis-server 7.0 nodes
# is logged for contrast, not asserted.

set ::rs_py [file join [file dirname [info script]] .. support cluster_load.py]
set ::redis7 /usr/bin/redis-server

proc rs_fill {idx n} {
    set out [exec /usr/bin/python3 $::rs_py fill [cnode $idx port] $n 2>@1]
    assert_equal "filled $n" [string trim $out]
}

# Starts the client load in the background; returns a handle for rs_stop_load.
proc rs_start_load {idx n} {
    set dir [cnode $idx dir]
    set tag [incr ::rs_loads]
    set out [file join $dir load$tag.out]
    set err [file join $dir load$tag.err]
    set stop [file join $dir load$tag.stop]
    file delete -force $out $err $stop
    set pid [exec /usr/bin/python3 $::rs_py run [cnode $idx port] $n $stop > $out 2> $err &]
    # Running once it has read 100 keys (a fixed wait was too short on a loaded machine).
    ::cl::deadline_wait 30000 {[file exists $stop.running]} {the load never ran: [exec cat $err]}
    return [list $pid $out $err $stop]
}

# Stops the load; returns its report as a dict (reads wrong errors writes lost) plus `samples`.
proc rs_stop_load {h} {
    lassign $h pid out err stop
    close [open $stop w]
    ::cl::deadline_wait 60000 {[file size $out] > 0} {the client load never reported}
    after 200
    set line [string trim [exec cat $out]]
    if {![regexp {^reads (\d+) wrong (\d+) errors (\d+) clientbug (\d+) writes (\d+) lost (\d+)$} \
              $line -> r w e b n l]} {
        fail "client load said: $line [exec cat $err]"
    }
    set samples [lsearch -all -inline [split [exec cat $err] "\n"] "SAMPLE *"]
    return [dict create reads $r wrong $w errors $e clientbug $b writes $n lost $l \
                samples [join $samples "\n"]]
}

proc rs_assert_clean_load {rep} {
    assert_morethan [dict get $rep reads] 100
    assert_morethan [dict get $rep writes] 10
    assert_equal 0 [dict get $rep wrong] [dict get $rep samples]
    assert_equal 0 [dict get $rep errors] [dict get $rep samples]
    assert_equal 0 [dict get $rep lost]
}

proc rs_check_clean {idx} {
    lassign [cluster_cli --cluster check 127.0.0.1:[cnode $idx port]] code out
    assert_equal 0 $code $out
    assert_contains {[OK] All nodes agree about slots configuration.} $out
    assert_contains {[OK] All 16384 slots covered.} $out
    assert_not_contains {[WARNING]} $out
}

proc rs_total_keys {} {
    set n 0
    foreach p [cluster_primaries] { incr n [cn $p dbsize] }
    return $n
}

# Slots owned by primary idx, from CLUSTER SLOTS.
proc rs_slot_count {idx} {
    set n 0
    foreach r [cn $idx cluster slots] {
        if {[lindex $r 2 2] eq [cluster_myid $idx]} { incr n [expr {[lindex $r 1] - [lindex $r 0] + 1}] }
    }
    return $n
}

proc rs_reshard {from to slots} {
    return [cluster_cli --cluster reshard 127.0.0.1:[cnode $from port] \
                --cluster-from [cluster_myid $from] --cluster-to [cluster_myid $to] \
                --cluster-slots $slots --cluster-yes]
}

# Keys {tag}0..n-1 = index on primary src; the slot opened towards dst and a third of the keys
# moved (a migration caught in the middle: every third key, so that moved keys are read from
# the primary and from the replica by redis-py's round robin). Returns the slot.
proc rs_half_migrated {src dst tag n} {
    set slot [cn $src cluster keyslot "{$tag}"]
    for {set i 0} {$i < $n} {incr i} { cn $src set "{$tag}$i" $i }
    assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $src]]
    assert_equal OK [cn $src cluster setslot $slot migrating [cluster_myid $dst]]
    set half {}
    for {set i 0} {$i < $n} {incr i 3} { lappend half "{$tag}$i" }
    assert_equal OK [cn $src migrate 127.0.0.1 [cnode $dst port] "" 0 5000 keys {*}$half]
    foreach p [list $src $dst] { cn $p wait 1 5000 }
    return $slot
}

# Moves the rest of the keys and gives the slot to dst (target first), then empties the cluster.
proc rs_finish_half {src dst tag n slot} {
    set rest {}
    for {set i 0} {$i < $n} {incr i} { if {$i % 3} { lappend rest "{$tag}$i" } }
    assert_equal OK [cn $src migrate 127.0.0.1 [cnode $dst port] "" 0 5000 keys {*}$rest]
    assert_equal OK [cn $dst cluster setslot $slot node [cluster_myid $dst]]
    assert_equal OK [cn $src cluster setslot $slot node [cluster_myid $dst]]
    foreach p {0 1 2} { cn $p flushall }
    cluster_wait_ok
}

# redis-py with read_from_replicas reads every key of a half-migrated slot (four rounds, so
# each key is read from the primary and from its replica).
proc rs_tagread {idx n tag} {
    set out [exec /usr/bin/python3 $::rs_py tagread [cnode $idx port] $n $tag 2>/dev/null]
    regexp {reads (\d+) wrong (\d+) errors (\d+)} $out -> r w e
    return [list $r $w $e $out]
}

set ::rs_keys 20000

start_cluster {primaries 3 replicas 1 create cli} {

    test "redis-py read_from_replicas in the middle of a migration: every read right (replicas answer ASK)" {
        set src [cluster_slot_owner [cn 0 cluster keyslot {{mid}}]]
        set dst [expr {($src + 1) % 3}]
        set slot [rs_half_migrated $src $dst mid 200]
        lassign [rs_tagread 0 200 mid] reads wrong errors out
        assert_equal 800 $reads $out
        assert_equal 0 $wrong $out
        assert_equal 0 $errors $out
        # the source's replica did redirect moved keys
        set rep [lindex [cluster_replicas_of $src] 0]
        assert_match "*errorstat_ASK:count=*" [cn $rep info errorstats]
        # ...and served the others itself
        assert_match "*cmdstat_get:calls=*" [cn $rep info commandstats]
        rs_finish_half $src $dst mid 200 $slot
    }

    test "redis-cli --cluster reshard of 2000 slots under read_from_replicas load: no wrong read, no error, no write lost" {
        rs_fill 0 $::rs_keys
        foreach p {0 1 2} { assert_equal 1 [cn $p wait 1 5000] }
        set before [rs_slot_count 0]
        set h [rs_start_load 1 $::rs_keys]
        lassign [rs_reshard 0 1 2000] code out
        set rep [rs_stop_load $h]
        assert_equal 0 $code $out
        ::testutil::log "reshard under load (ours): $rep"
        rs_assert_clean_load $rep
        cluster_wait_ok
        rs_check_clean 2
        assert_equal [expr {$::rs_keys + [dict get $rep writes]}] [rs_total_keys]
        assert_equal [expr {$before - 2000}] [rs_slot_count 0]
        # no open slot left anywhere, replicas included
        foreach i {0 1 2 3 4 5} {
            assert_no_match {*\[*-[<>]-*} [cn $i cluster nodes]
        }
    }

    test "redis-cli --cluster rebalance under the same load evens the slots out" {
        set h [rs_start_load 2 $::rs_keys]
        lassign [cluster_cli --cluster rebalance 127.0.0.1:[cnode 0 port]] code out
        set rep [rs_stop_load $h]
        assert_equal 0 $code $out
        assert_contains {Rebalancing across 3 nodes} $out
        ::testutil::log "rebalance under load (ours): $rep"
        rs_assert_clean_load $rep
        cluster_wait_ok
        rs_check_clean 0
        foreach p {0 1 2} {
            set n [rs_slot_count $p]
            assert {$n >= 5400 && $n <= 5520} "primary $p has $n slots"
        }
        # every key written before and during both runs is still there
        set fixed 0
        foreach p {0 1 2} { incr fixed [llength [cn $p keys rs:*]] }
        assert_equal $::rs_keys $fixed
    }

    test "redis-cli --cluster fix finishes a slot left half-migrated by an interrupted reshard" {
        set src [cluster_slot_owner [cn 0 cluster keyslot {{fix}}]]
        set dst [expr {($src + 1) % 3}]
        set slot [cn 0 cluster keyslot {{fix}}]
        for {set i 0} {$i < 100} {incr i} { cn $src set "{fix}$i" $i }
        # what a reshard does before it is killed: both sides open, half of the keys moved
        assert_equal OK [cn $dst cluster setslot $slot importing [cluster_myid $src]]
        assert_equal OK [cn $src cluster setslot $slot migrating [cluster_myid $dst]]
        set half {}
        for {set i 0} {$i < 50} {incr i} { lappend half "{fix}$i" }
        assert_equal OK [cn $src migrate 127.0.0.1 [cnode $dst port] "" 0 5000 keys {*}$half]
        assert_equal 50 [llength [cn $src keys "{fix}*"]]
        assert_equal 50 [llength [cn $dst keys "{fix}*"]]
        lassign [cluster_cli --cluster check 127.0.0.1:[cnode 0 port]] code out
        assert_contains "open slot" [string tolower $out]
        set h [rs_start_load 0 $::rs_keys]
        lassign [cluster_cli --cluster fix 127.0.0.1:[cnode 0 port] --cluster-yes] code out
        set rep [rs_stop_load $h]
        assert_equal 0 $code $out
        rs_assert_clean_load $rep
        cluster_wait_ok
        rs_check_clean 0
        # one owner, every key there exactly once, with its value
        set owner [cluster_slot_owner $slot]
        assert_equal 100 [llength [cn $owner keys "{fix}*"]]
        foreach p {0 1 2} {
            if {$p != $owner} { assert_equal 0 [cn $p cluster countkeysinslot $slot] }
        }
        for {set i 0} {$i < 100} {incr i} { assert_equal $i [cn $owner get "{fix}$i"] }
        foreach i {0 1 2 3 4 5} {
            assert_no_match {*\[*-[<>]-*} [cn $i cluster nodes]
        }
    }
}

# The same reshard on redis-server 7.0: its replicas answer nil for keys already moved.
if {[file executable $::redis7]} {
    start_cluster [list primaries 3 replicas 1 create cli \
                       bins [list 0 $::redis7 1 $::redis7 2 $::redis7 3 $::redis7 4 $::redis7 5 $::redis7]] {
        test "Contrast: redis-server 7.0 replicas answer nil in the middle of a migration (logged)" {
            set src [cluster_slot_owner [cn 0 cluster keyslot {{mid}}]]
            set dst [expr {($src + 1) % 3}]
            set slot [rs_half_migrated $src $dst mid 200]
            lassign [rs_tagread 0 200 mid] reads wrong errors out
            rs_finish_half $src $dst mid 200 $slot
            ::testutil::log "half-migrated slot (redis-server 7.0): $out"
            puts "    redis-server 7.0, half-migrated slot: $reads reads, $wrong wrong, $errors errors"
        }

        test "Contrast: the same reshard on redis-server 7.0 nodes (logged, not asserted)" {
            rs_fill 0 $::rs_keys
            foreach p {0 1 2} { cn $p wait 1 5000 }
            set h [rs_start_load 1 $::rs_keys]
            lassign [rs_reshard 0 1 2000] code out
            set rep [rs_stop_load $h]
            assert_equal 0 $code $out
            ::testutil::log "reshard under load (redis-server 7.0): $rep"
            puts "    redis-server 7.0 during the same reshard: [dict get $rep reads] reads,\
                  [dict get $rep wrong] wrong, [dict get $rep errors] errors"
        }
    }
}
