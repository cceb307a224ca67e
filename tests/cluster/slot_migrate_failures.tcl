# Atomic slot migration under failures, one case per row: a node killed, a shard failing over,
# the target partitioned or flushed, each while a job is half done (DEBUG
# SLOT-MIGRATION-WALK-LIMIT stops the source's walk after some keys). Afterwards each case
# asserts: every node agrees on one owner for the slot, every acknowledged write (the keys set
# before and during the job) is readable from that owner, the other shard holds none of the
# slot's keys, and no import is left running. Every node lives in a network namespace so that
# the partition can be cut. Layout: primaries 0, 1, 2 with replicas 3, 4, 5; node-timeout
# 3000 ms.

set ::smf_why [cluster_netns_available]
if {$::smf_why ne {}} {
    test "Atomic slot migration failures (network namespaces)" { skip_deliberate "this machine: $::smf_why" }
    return
}

# A tag in a slot of node idx (its name in tagvar), n keys {tag}k0.. = i there; returns the
# slot.
proc smf_fill {idx tagvar n} {
    upvar 1 $tagvar tag
    set tag [cluster_key_in_slot_of $idx $tagvar]
    for {set i 0} {$i < $n} {incr i} { assert_equal OK [cn $idx set "{$tag}k$i" $i] }
    return [cn $idx cluster keyslot "{$tag}"]
}

# Starts a job of slot from src to dst that stops after `sent` keys, and waits until it did.
proc smf_start_stopped {src dst slot sent} {
    assert_equal OK [cn $src debug slot-migration-walk-limit $sent]
    assert_equal OK [cn $src cluster migrateslots slotsrange $slot $slot node [cluster_myid $dst]]
    ::cl::deadline_wait 10000 {[dict get [sma_job $src] keys_sent] >= $sent} \
        "the job never sent $sent keys: [sma_job $src]"
    assert_equal snapshotting [dict get [sma_job $src] state]
}

# Lets the stopped walk go on; the job must succeed.
proc smf_release_and_succeed {src} {
    assert_equal OK [cn $src debug slot-migration-walk-limit 0]
    sma_wait_state $src {success failed}
    assert_equal success [dict get [sma_job $src] state] [dict get [sma_job $src] message]
}

# Writes during the job: {tag}w0..w9, each acknowledged by the source.
proc smf_write_during {src tag} {
    for {set i 0} {$i < 10} {incr i} { assert_equal OK [cn $src set "{$tag}w$i" w$i] }
}

# The case's end state: `owner` serves the slot in every live node's view, holds the n keys
# and the 10 written during the job, no other primary holds a key of the slot, and no node
# runs an import.
proc smf_assert_end {slot owner tag n} {
    cluster_wait_ok
    sma_wait_owner [list $slot] $owner
    assert_equal [expr {$n + 10}] [cn $owner cluster countkeysinslot $slot]
    assert_equal [expr {$n - 1}] [cn $owner get "{$tag}k[expr {$n - 1}]"]
    assert_equal w9 [cn $owner get "{$tag}w9"]
    foreach i [cluster_alive_nodes] {
        if {$i != $owner && "master" in [dict get [cluster_self $i] flags]} {
            assert_equal 0 [cn $i cluster countkeysinslot $slot] "node $i"
        }
        foreach j [cn $i cluster getslotmigrations] {
            assert {[dict get $j state] ni {connecting reading-establish-response snapshotting replicating failover-paused receiving-snapshot occurring-on-primary}}
        }
    }
    foreach i [cluster_alive_nodes] { catch {cn $i debug slot-migration-walk-limit 0} }
}

start_cluster {primaries 3 replicas 1 create manual netns 1 config {enable-debug-command yes}} {
    set A 0; set B 1; set A2 3; set B2 4

    test "The target is cut off for less than the resume window: the job resumes and completes" {
        set slot [smf_fill $A smfr 500]
        smf_start_stopped $A $B $slot 200
        smf_write_during $A $smfr
        cluster_cut $A $B
        try {
            # writes go on: forwarded, kept for the new connection
            for {set i 0} {$i < 10} {incr i} { assert_equal [expr {$i + 1}] [cn $A incr "{$smfr}k$i"] }
            # silent for the node timeout (3 s), then the source tries new connections
            ::cl::deadline_wait 10000 {[string match "*resuming*" [dict get [sma_job $A] message]]} \
                "the source never noticed the partition: [sma_job $A]"
            after 1000
        } finally {
            cluster_heal
        }
        ::cl::deadline_wait 10000 {[dict get [sma_job $A] resumes] >= 1} \
            "the job did not resume: [sma_job $A]"
        smf_release_and_succeed $A
        for {set i 0} {$i < 10} {incr i} { assert_equal [expr {$i + 1}] [cn $B get "{$smfr}k$i"] }
        for {set i 0} {$i < 10} {incr i} { assert_equal OK [cn $B set "{$smfr}k$i" $i] }
        smf_assert_end $slot $B $smfr 500
    }

    test "The target is cut off past the resume window: the job fails, the slot stays" {
        set slot [smf_fill $A smfp 500]
        smf_start_stopped $A $B $slot 200
        smf_write_during $A $smfp
        # only the link between the two primaries: the rest of the cluster sees both
        cluster_cut $A $B
        try {
            # writes go on: forwarded, never answered
            for {set i 0} {$i < 10} {incr i} { assert_equal OK [cn $A set "{$smfp}k$i" $i] }
            sma_wait_state $A failed 20000
        } finally {
            cluster_heal
        }
        assert_match "Connection to the target node lost and not resumed within 3000 ms: Target node did not answer for * ms; resuming*" \
            [dict get [sma_job $A] message]
        # the target drops what it staged once it sees the connection gone
        ::cl::deadline_wait 30000 {
            [dict get [lindex [cn $B cluster getslotmigrations] end] state] ni {receiving-snapshot}
        } "the target's import never ended: [cn $B cluster getslotmigrations]"
        smf_assert_end $slot $A $smfp 500
    }

    # A replica killed mid-move, restarted after it: the job completes; the source's replica
    # ends with none of the slot's keys, the target's with all of them.
    foreach {whose victim primary kept} [list source $A2 $A 0 target $B2 $B 510] {
        test "The $whose's replica is killed mid-move: the job completes; restarted, it has $kept keys of the slot" {
            set slot [smf_fill $A smfr 500]
            cluster_wait_replicas_synced $A
            smf_start_stopped $A $B $slot 200
            cluster_kill $victim
            smf_write_during $A $smfr
            smf_release_and_succeed $A
            cluster_restart $victim
            cluster_wait_replicas_synced $primary 30000
            assert_equal $kept [cn $victim cluster countkeysinslot $slot]
            smf_assert_end $slot $B $smfr 500
        }
    }

    test "FLUSHALL on the target mid-move: its own keys go, the moving slot arrives whole" {
        set slot [smf_fill $A smff 500]
        set own [cluster_key_in_slot_of $B smffown]
        assert_equal OK [cn $B set $own mine]
        smf_start_stopped $A $B $slot 200
        assert_equal OK [cn $B flushall]
        smf_write_during $A $smff
        smf_release_and_succeed $A
        assert_equal 0 [cn $B exists $own]
        smf_assert_end $slot $B $smff 500
    }

    test "The source's shard fails over mid-move (CLUSTER FAILOVER): the job fails, the new primary has the slot whole" {
        set slot [smf_fill $A smfo 500]
        cluster_wait_replicas_synced $A
        smf_start_stopped $A $B $slot 200
        smf_write_during $A $smfo
        assert_equal 1 [cn $A wait 1 5000]
        assert_equal OK [cn $A2 cluster failover]
        ::cl::deadline_wait 20000 {"master" in [dict get [cluster_self $A2] flags]} \
            "node $A2 was never promoted"
        sma_wait_state $A failed 20000
        assert_equal "I was demoted to a replica" [dict get [sma_job $A] message]
        smf_assert_end $slot $A2 $smfo 500
        # the shard's roles as they were, for the next case
        assert_equal OK [cn $A cluster failover]
        ::cl::deadline_wait 20000 {"master" in [dict get [cluster_self $A] flags]} \
            "node $A was never promoted back"
        cluster_wait_ok
    }

    test "The source killed before it freed a moved slot restarts with its keys: it deletes them" {
        # The source frees a moved slot's keys in slices, each DEL to its AOF as it goes; a
        # kill in between leaves keys of a slot another node owns in its AOF. At start a
        # primary deletes such keys, as Valkey 8 does. The AOF of before the move stands in for
        # the one a kill leaves.
        assert_equal OK [cn $A config set appendonly yes]
        assert_equal OK [cn $A config rewrite]  ;# the restart loads the AOF
        ::cl::deadline_wait 20000 {[info_field [cn $A info persistence] aof_rewrite_in_progress] == 0 &&
                                    [info_field [cn $A info persistence] aof_enabled] == 1} \
            "the AOF never came on"
        set slot [smf_fill $A smfa 500]
        smf_write_during $A $smfa
        after 1500  ;# appendfsync everysec
        set aofdir [file join [cnode $A dir] appendonlydir]
        file delete -force $aofdir.before
        file copy $aofdir $aofdir.before
        assert_equal OK [cn $A cluster migrateslots slotsrange $slot $slot node [cluster_myid $B]]
        sma_wait_state $A {success failed}
        assert_equal success [dict get [sma_job $A] state] [dict get [sma_job $A] message]
        sma_wait_owner [list $slot] $B
        cluster_kill $A
        file delete -force $aofdir
        file rename $aofdir.before $aofdir
        cluster_restart $A
        assert_equal 0 [cn $A cluster countkeysinslot $slot]
        assert_match "*I have keys for slot $slot, but the slot is assigned to another node. Deleting keys in the slot.*" \
            [exec cat [cnode $A log]]
        smf_assert_end $slot $B $smfa 500
        assert_equal OK [cn $A config set appendonly no]
        assert_equal OK [cn $A config rewrite]
    }

    test "The target's primary is killed mid-move: its replica takes over with nothing staged; the slot stays" {
        set slot [smf_fill $A smfk 500]
        smf_start_stopped $A $B $slot 200
        smf_write_during $A $smfk
        cluster_kill $B
        sma_wait_state $A failed 20000
        ::cl::deadline_wait 30000 {"master" in [dict get [cluster_self $B2] flags]} \
            "node $B2 was never promoted"
        assert_equal 0 [cn $B2 cluster countkeysinslot $slot]
        # back as its replica, it has none either
        cluster_restart $B
        smf_assert_end $slot $A $smfk 500
        cluster_wait_replicas_synced $B2 30000
        assert_equal 0 [cn $B cluster countkeysinslot $slot]
    }
}
