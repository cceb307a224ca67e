# Failover (issue 10): manual failover (default, FORCE, TAKEOVER) under a write load from
# redis-py's RedisCluster, automatic failover after kill -9 and after SIGSTOP, the voting rules
# seen from outside, replica migration, cluster-replica-no-failover, and failovers in the
# middle of a slot migration on either side.  Layout: primaries 0, 1, 2 with replicas 3, 4, 5;
# node 6 a second replica of primary 0; node-timeout 3000 ms.

set ::fo_py [file join [file dirname [info script]] .. support cluster_load.py]
set ::nt $::cl::node_timeout

# Background writer (cluster_load.py writes) through node idx; returns a handle.
proc fo_start_writes {idx} {
    set dir [cnode $idx dir]
    set tag [incr ::fo_loads]
    set out [file join $dir fw$tag.out]
    set err [file join $dir fw$tag.err]
    set stop [file join $dir fw$tag.stop]
    file delete -force $out $err $stop
    set pid [exec /usr/bin/python3 $::fo_py writes [cnode $idx port] 100000000 $stop > $out 2> $err &]
    # writing has begun once the first key exists somewhere
    ::cl::deadline_wait 20000 {[fo_key_count fw:0] > 0} {the writer never wrote}
    return [list $pid $out $err $stop]
}

# Stops the writer; returns a dict: writes errors lost kinds samples.
proc fo_stop_writes {h} {
    lassign $h pid out err stop
    close [open $stop w]
    ::cl::deadline_wait 60000 {[file size $out] > 0} {the writer never reported}
    after 100
    set line [string trim [exec cat $out]]
    if {![regexp {^writes (\d+) errors (\d+) lost (\d+) kinds (\S+) clientbug (\d+)$} $line -> n e l k b]} {
        fail "the writer said: $line [exec tail -20 $err]"
    }
    set samples [lsearch -all -inline [split [exec cat $err] "\n"] "SAMPLE *"]
    return [dict create writes $n errors $e lost $l kinds $k clientbug $b samples [join $samples "\n"]]
}

# How many live nodes hold key (replicas included).
proc fo_key_count {key} {
    set n 0
    foreach i [cluster_alive_nodes] {
        set c [cluster_client $i]
        $c readonly
        catch { if {[$c exists $key]} { incr n } }
        $c close
    }
    return $n
}

proc fo_is_primary_with_slots {idx} {
    set me [cluster_self $idx]
    expr {"master" in [dict get $me flags] && [llength [dict get $me slots]] > 0}
}

proc fo_wait_primary {idx timeout_ms} {
    ::cl::deadline_wait $timeout_ms {[fo_is_primary_with_slots $idx]} \
        {node $idx never became a primary with slots: [cn $idx cluster nodes]}
}

# Every live node sees idx as a replica of primary.
proc fo_wait_role_known {idx primary timeout_ms} {
    set pid [cluster_myid $primary]
    foreach o [cluster_alive_nodes] {
        ::cl::deadline_wait $timeout_ms {[dict get [cluster_nodes_line $o $idx] primary] eq $pid} \
            {node $o never saw node $idx replicate node $primary: [cn $o cluster nodes]}
    }
}

# idx replicates primary (in its NODES view and with the replication link up).
proc fo_wait_replica_of {idx primary timeout_ms} {
    set pid [cluster_myid $primary]
    ::cl::deadline_wait $timeout_ms {
        [dict get [cluster_self $idx] primary] eq $pid &&
        [info_field [cn $idx info replication] master_link_status] eq "up"
    } {node $idx never became a replica of node $primary: [cn $idx cluster nodes]}
}

# Every live node sees idx as the owner of `slots` and says ok.
proc fo_wait_agreed {idx slots timeout_ms} {
    foreach o [cluster_alive_nodes] {
        ::cl::deadline_wait $timeout_ms {
            [dict get [cluster_nodes_line $o $idx] slots] eq $slots &&
            [cluster_info_field $o cluster_state] eq "ok"
        } {node $o never saw node $idx own $slots: [cn $o cluster nodes]}
    }
}

proc fo_check_clean {idx} {
    lassign [cluster_cli --cluster check 127.0.0.1:[cnode $idx port]] code out
    assert_equal 0 $code $out
    assert_contains {[OK] All nodes agree about slots configuration.} $out
    assert_contains {[OK] All 16384 slots covered.} $out
    assert_not_contains {[WARNING]} $out
}

# The last 500 lines of node idx's log.
proc fo_log {idx} { ::srv::file_tail [cnode $idx log] 500 }

# What a replica's election depends on, for a failure message that CI's tail keeps: its role,
# its view of its primary's flags, its link, and its last election log lines.
proc fo_election_state {idx primary} {
    set lines {}
    foreach l [split [fo_log $idx] "\n"] {
        if {[regexp -nocase {elect|failover|FAIL|primary} $l]} { lappend lines [string range $l 0 160] }
    }
    set flags {}
    catch { set flags [dict get [cluster_nodes_line $idx $primary] flags] }
    return "role [info_field [cn $idx info replication] role], sees $primary as {$flags},\
        link [info_field [cn $idx info replication] master_link_status], log: [join [lrange $lines end-6 end] { | }]"
}

proc fo_sync_full {idx} { info_field [cn $idx info stats] sync_full }
proc fo_sync_partial {idx} { info_field [cn $idx info stats] sync_partial_ok }

start_cluster {primaries 3 replicas 1 nodes 7 create manual config {enable-debug-command yes}} {

    test "Setup: node 6 is a second replica of primary 0" {
        assert_equal OK [cn 0 cluster meet 127.0.0.1 [cnode 6 port]]
        cluster_wait_known 6 7
        ::cl::deadline_wait 20000 {
            [string match *master* [dict get [cluster_nodes_line 6 0] flags]]
        } {node 6 never saw node 0 as a primary}
        assert_equal OK [cn 6 cluster replicate [cluster_myid 0]]
        fo_wait_replica_of 6 0 20000
        cluster_wait_ok
        cluster_refresh
        assert_equal {3 6} [cluster_replicas_of 0]
        assert_equal {4} [cluster_replicas_of 1]
        assert_equal {5} [cluster_replicas_of 2]
    }

    test "CLUSTER FAILOVER errors" {
        assert_equal "ERR You should send CLUSTER FAILOVER to a replica" \
            [assert_error * {cn 0 cluster failover}]
        assert_equal "ERR syntax error" [assert_error * {cn 4 cluster failover foo}]
        assert_equal "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead." \
            [assert_error * {cn 0 failover}]
        assert_equal "ERR unknown subcommand or wrong number of arguments for 'failover'. Try CLUSTER HELP." \
            [assert_error * {cn 0 cluster failover force takeover}]
    }

    test "Votes: an AUTH_REQUEST in node 4's name, case by case, to primary 2" {
        # Packets on node 2's bus port that claim to come from replica 4 (or primary 0); the
        # voter's log says what it decided. Granted votes go to the real node 4, which ignores
        # them (it runs no election).
        set id4 [cluster_myid 4]
        set id1 [cluster_myid 1]
        set id0 [cluster_myid 0]
        set id5 [cluster_myid 5]
        set id2 [cluster_myid 2]
        set c1 [dict get [cluster_nodes_line 2 1] epoch]
        set c0 [dict get [cluster_nodes_line 2 0] epoch]
        set mine1 [bg_bitmap [list [::cl::slot_range 1 3]]]
        set mine0 [bg_bitmap [list [::cl::slot_range 0 3]]]
        set e [cluster_info_field 2 cluster_current_epoch]
        set cases [list \
            [list [incr e] $c1 $mine1 0 $id4 $id1 "Failover auth denied to $id4 () for epoch $e: its primary is up"] \
            [list [expr {$e - 1}] $c1 $mine1 2 $id4 $id1 "Failover auth denied to $id4 (): reqEpoch ([expr {$e - 1}]) < curEpoch($e)"] \
            [list [incr e] $c1 $mine1 2 $id4 $id1 "Failover auth granted to $id4 () for epoch $e"] \
            [list $e $c1 $mine1 2 $id4 $id1 "Failover auth denied to $id4 (): already voted for epoch $e"] \
            [list [incr e] $c1 $mine1 2 $id4 $id1 "Failover auth denied to $id4 : can't vote about this primary before *"] \
            [list [incr e] 0 $mine0 2 $id5 $id2 "Failover auth denied to $id5 (): slot 0 epoch ($c0) > reqEpoch (0)"] \
            [list [incr e] $c0 $mine0 2 $id0 {} "Failover auth denied to $id0 () for epoch $e: it is a primary node"]]
        foreach case $cases {
            lassign $case cur conf slots mflags sender replicaof expect
            set flags [expr {$replicaof eq {} ? 1 : 2}]
            # a new link each time: the real node 4 reconnecting takes its link back
            set fd [bg_connect 2]
            assert_equal 1 [bg_send $fd [bg_msg type 5 sender $sender replicaof $replicaof \
                                              flags $flags current $cur config $conf slots $slots \
                                              mflags $mflags port [cnode 4 port] \
                                              cport [expr {[cnode 4 port] + 10000}]]]
            ::cl::deadline_wait 5000 {
                [llength [lsearch -all -glob [split [fo_log 2] \n] "*Failover auth*"]] > 0 &&
                [string match "*$expect*" [lindex [lsearch -all -inline -glob [split [fo_log 2] \n] "*Failover auth*"] end]]
            } {voter said: [lindex [lsearch -all -inline -glob [split [fo_log 2] \n] "*Failover auth*"] end], expected: $expect}
            close $fd
        }
        # the vote is on disk
        assert_match "*lastVoteEpoch [expr {$e - 3}]*" [exec cat [cnode 2 nodes_conf]]
        cluster_wait_ok
    }

    test "Manual failover under a write load: no error, no lost write, a held write gets MOVED" {
        set old_epoch [dict get [cluster_self 1] epoch]
        set k [cluster_key_in_slot_of 1 held]
        set slot [cn 1 cluster keyslot $k]
        set h [fo_start_writes 0]
        after 500
        set partial0 [fo_sync_partial 4]
        # The replica asks and then sleeps, so that the primary stays paused long enough for a
        # write to be held there.
        set r [cluster_client 4]
        $r write_raw "[::resp::encode_command cluster failover][::resp::encode_command debug sleep 1]"
        ::cl::deadline_wait 5000 {
            [string match "*Manual failover requested by replica [cluster_myid 4]*" [fo_log 1]]
        } {node 1 never paused}
        set w [cluster_client 1]
        $w deferred 1
        $w set $k v
        assert_equal OK [$r read 10000]
        assert_equal OK [$r read 10000]
        assert_equal "MOVED $slot 127.0.0.1:[cnode 4 port]" [assert_error * {$w read 10000}]
        fo_wait_primary 4 10000
        fo_wait_replica_of 1 4 10000
        fo_wait_agreed 4 [dict get [cluster_self 4] slots] 10000
        fo_wait_role_known 1 4 10000
        after 500
        set rep [fo_stop_writes $h]
        ::testutil::log "  writer: $rep"
        assert_morethan [dict get $rep writes] 100
        assert_equal 0 [dict get $rep errors] [dict get $rep samples]
        assert_equal 0 [dict get $rep lost] [dict get $rep samples]
        assert [expr {[dict get [cluster_self 4] epoch] > $old_epoch}]
        # the old primary continued the new primary's history: no full sync
        assert_morethan [fo_sync_partial 4] $partial0
        assert_equal 0 [fo_sync_full 4]
        assert_match "*Manual failover user request accepted*" [fo_log 4]
        assert_match "*Failover election won*" [fo_log 4]
        assert_match "*Manual failover requested by replica [cluster_myid 4]*" \
            [fo_log 1]
        fo_check_clean 0
    }

    test "CLUSTER FAILOVER FORCE: the replica takes over without the primary's agreement" {
        set before [dict get [cluster_self 4] epoch]
        # beyond Valkey (which sends first): the vote request carries the election's epoch
        # only once it is fsynced
        set strict [expr {"beyond-valkey" ni $::cfg(deny_tags)}]
        if {$strict} { set h [strace_start [cnode 1 pid] write,fsync,fdatasync] }
        assert_equal OK [cn 1 cluster failover force]
        fo_wait_primary 1 10000
        if {$strict} {
            assert_fsync_first [strace_stop $h] "*Starting a failover election for epoch*" \
                {write(*"RCmb*} "a bus message"
        }
        fo_wait_replica_of 4 1 10000
        fo_wait_role_known 4 1 10000
        assert [expr {[dict get [cluster_self 1] epoch] > $before}]
        assert_match "*Forced failover user request accepted*" [fo_log 1]
        assert_no_match "*Manual failover requested*" [fo_log 4]
        fo_wait_agreed 1 [dict get [cluster_self 1] slots] 10000
    }

    test "CLUSTER FAILOVER TAKEOVER: no vote, a new epoch of its own" {
        set before [cluster_info_field 0 cluster_current_epoch]
        set votes [llength [lsearch -all [split [fo_log 0] \n] "*Failover auth granted*"]]
        assert_equal OK [cn 4 cluster failover takeover]
        fo_wait_primary 4 10000
        fo_wait_replica_of 1 4 10000
        assert [expr {[dict get [cluster_self 4] epoch] > $before}]
        assert_match "*Taking over the primary*" [fo_log 4]
        # nobody was asked to vote
        assert_equal $votes [llength [lsearch -all [split [fo_log 0] \n] "*Failover auth granted*"]]
        fo_wait_agreed 4 [dict get [cluster_self 4] slots] 10000
        cluster_wait_ok
    }

    test "kill -9 of a primary with two replicas: one is elected, the other follows it by PSYNC" {
        foreach n {0 3 6} { assert_equal OK [cn $n config set repl-backlog-size 10mb] }
        set k [cluster_key_in_slot_of 0 kill]
        assert_equal OK [cn 0 set $k before]
        assert_equal 2 [cn 0 wait 2 5000]
        set slots [dict get [cluster_self 0] slots]
        set h [fo_start_writes 1]
        after 500
        set t0 [clock milliseconds]
        cluster_kill 0
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [fo_is_primary_with_slots 3] || [fo_is_primary_with_slots 6]
        } {no replica of node 0 was promoted}
        set elapsed [expr {[clock milliseconds] - $t0}]
        set winner [expr {[fo_is_primary_with_slots 3] ? 3 : 6}]
        set other [expr {$winner == 3 ? 6 : 3}]
        ::testutil::log "  node $winner promoted ${elapsed}ms after the kill"
        # FAIL after node-timeout (+ gossip), then at most 1 s of delay plus a rank second
        assert [expr {$elapsed < 3 * $::nt + 3000}] "promotion took ${elapsed}ms"
        assert_equal $slots [dict get [cluster_self $winner] slots]
        fo_wait_replica_of $other $winner 20000
        fo_wait_agreed $winner $slots 20000
        set rep [fo_stop_writes $h]
        ::testutil::log "  writer: $rep"
        # the writer went on after the failover
        assert_morethan [dict get $rep writes] 100
        assert [expr {[dict get $rep kinds] in {none ConnectionError ClusterDownError
                       ConnectionError,ClusterDownError}}] [dict get $rep samples]
        assert_equal before [cn $winner get $k]
        # the sibling continued by partial resync on the winner's second replication id
        assert_equal 0 [fo_sync_full $winner]
        assert_morethan [fo_sync_partial $winner] 0
        assert_match "*Start of election delayed for*" [fo_log $winner]
        set ::fo_winner $winner
        set ::fo_other $other
    }

    test "The killed primary restarts as a replica of the winner" {
        cluster_restart 0
        fo_wait_replica_of 0 $::fo_winner 30000
        assert_equal {} [dict get [cluster_self 0] slots]
        cluster_wait_ok
        cluster_refresh
        assert_equal [list 0 $::fo_other] [cluster_replicas_of $::fo_winner]
        fo_check_clean 1
    }

    test "Replica migration: an orphaned primary gets a replica of the primary that has two" {
        # node 5 leaves primary 2 without a replica. With cluster-migration-barrier 2 the
        # winner's two replicas stay; with 1, the one with the smaller ID moves.
        foreach n [cluster_alive_nodes] { assert_equal OK [cn $n config set cluster-migration-barrier 2] }
        assert_equal 2 [lindex [cn 0 config get cluster-migration-barrier] 1]
        set moving [lindex [lsort [list [cluster_myid 0] [cluster_myid $::fo_other]]] 0]
        set moving [cluster_idx_of_id $moving]
        cluster_kill 5
        cluster_wait_flag 2 5 fail 20000
        # orphaned for more than 5 s: time enough to move if the barrier allowed it
        after 7000
        cluster_refresh
        assert_equal {} [cluster_replicas_of 2]
        assert_equal 2 [llength [cluster_replicas_of $::fo_winner]]
        foreach n [cluster_alive_nodes] { assert_equal OK [cn $n config set cluster-migration-barrier 1] }
        fo_wait_replica_of $moving 2 30000
        assert_match "*Migrating to orphaned primary [cluster_myid 2]*" [fo_log $moving]
        cluster_refresh
        assert_equal [list $moving] [cluster_replicas_of 2]
        assert_equal 1 [llength [cluster_replicas_of $::fo_winner]]
        # the moved replica serves the new shard's data
        set k [cluster_key_in_slot_of 2 mig]
        assert_equal OK [cn 2 set $k v2]
        assert [expr {[cn 2 wait 1 5000] >= 1}]
        set c [cluster_client $moving]
        $c readonly
        assert_equal v2 [$c get $k]
        cluster_restart 5
        fo_wait_replica_of 5 2 30000
        cluster_wait_ok
        fo_check_clean 1
    }

    test "SIGSTOP of a primary past node-timeout: its replica takes over, the old primary drops what it took late" {
        cluster_refresh
        set p 2
        set reps [cluster_replicas_of 2]
        set k [cluster_key_in_slot_of 2 stop]
        assert_equal OK [cn $p set $k acked]
        assert [expr {[cn $p wait 1 5000] >= 1}]
        set w [cluster_client $p]
        $w deferred 1
        exec kill -STOP [cnode $p pid]
        # writes that reach the stopped primary's socket: it reads them when it wakes
        for {set i 0} {$i < 50} {incr i} { $w set late:{$k}:$i v }
        # whichever replica wins (rank: the most data, then the smallest ID)
        set r {}
        ::cl::deadline_wait [expr {6 * $::nt}] {
            [llength [set r [lmap x $reps { if {![fo_is_primary_with_slots $x]} continue; set x }]]] == 1
        } {no replica of node $p was promoted}
        exec kill -CONT [cnode $p pid]
        set taken {}
        for {set i 0} {$i < 50} {incr i} {
            if {![catch {$w read 10000} reply]} { lappend taken $i } else {
                assert_match "MOVED *" $reply
            }
        }
        ::testutil::log "  writes the old primary took after waking: [llength $taken] of 50"
        fo_wait_replica_of $p $r 20000
        cluster_wait_ok
        # the acknowledged write survived; the late ones are nowhere
        assert_equal acked [cn $r get $k]
        foreach i $taken {
            assert_equal 0 [cn $r exists late:{$k}:$i]
        }
        wait_for_condition 50 100 {[cn $p dbsize] == [cn $r dbsize]} else {
            fail "the old primary still differs from the new one"
        }
        set c [cluster_client $p]
        $c readonly
        foreach i $taken { assert_equal 0 [$c exists late:{$k}:$i] }
    }

    test "A replica that missed its primary's last epoch is told it when refused, and wins next time" {
        cluster_refresh
        set p {}
        foreach x [cluster_primaries] {
            if {[llength [cluster_replicas_of $x]] == 1} { set p $x; break }
        }
        set r [lindex [cluster_replicas_of $p] 0]
        set voters [lsearch -all -inline -not -exact [cluster_primaries] $p]
        set idp [cluster_myid $p]
        set e [dict get [cluster_self $p] epoch]
        set x [expr {[cluster_info_field $p cluster_current_epoch] + 5}]
        # The voters hear P claim its slots at epoch x (as after a bump whose pings reached
        # them); its replica never does.
        set ranges {}
        foreach rg [dict get [cluster_self $p] slots] {
            lassign [split $rg -] a b
            if {$b eq {}} { set b $a }
            lappend ranges [list $a $b]
        }
        foreach v $voters {
            set fd [bg_connect $v]
            bg_send $fd [bg_msg sender $idp flags 0x0011 config $x current $x \
                             slots [bg_bitmap $ranges] port [cnode $p port] \
                             cport [expr {[cnode $p port] + 10000}]]
            assert_equal 1 [dict get [bg_parse [bg_read_msg $fd 3000]] type]
            close $fd
            assert_equal $x [dict get [cluster_nodes_line $v $p] epoch]
        }
        assert_equal $e [dict get [cluster_nodes_line $r $p] epoch]
        cluster_kill $p
        # Its first request carries epoch e and every voter refuses it; the refusal tells it x.
        foreach v $voters {
            ::cl::deadline_wait [expr {6 * $::nt}] {
                [string match "*Failover auth denied to [cluster_myid $r]*epoch ($x) > reqEpoch ($e)*" [fo_log $v]]
            } {voter $v never refused node $r's stale request}
        }
        fo_wait_primary $r [expr {10 * $::nt}]
        assert_morethan [dict get [cluster_self $r] epoch] $x
        cluster_restart $p
        fo_wait_replica_of $p $r 30000
        cluster_wait_ok
    }

    test "cluster-replica-validity-factor: a replica cut off for too long does not fail over" {
        cluster_refresh
        set p {}
        foreach x [cluster_primaries] {
            if {[llength [cluster_replicas_of $x]] == 1} { set p $x; break }
        }
        set r [lindex [cluster_replicas_of $p] 0]
        # While r sleeps the others mark it FAIL, so p looks orphaned and a spare replica would
        # migrate to it and win p's election (seen once in a full run): no migration here.
        foreach i [cluster_alive_nodes] { cn $i config set cluster-allow-replica-migration no }
        # Allowed: 1 s (repl-ping-replica-period) + factor 1 x node timeout of data age.
        assert_equal OK [cn $r config set cluster-replica-validity-factor 1]
        # The link dies while the replica is busy for 3 x node timeout; it is freed only once
        # the replica wakes, by when its primary is stopped, so it never comes back. The data
        # age counts from the primary's last bytes, not from the late free: at the wake it is
        # already 3 x node timeout, less the node timeout that counts as the baseline, above
        # the 1 s + 1 x node timeout allowed, even if the others marked the primary FAIL
        # during the sleep and the election is due at once.
        set c [cluster_client $r]
        $c multi
        $c client kill 127.0.0.1:[cnode $p port]
        $c debug sleep [expr {3 * $::nt / 1000.0}]
        $c deferred 1
        $c exec
        after 200
        exec kill -STOP [cnode $p pid]
        assert_equal {OK OK} [$c read]
        try {
            ::cl::deadline_wait [expr {8 * $::nt}] {
                [string match "*Disconnected from primary for longer than allowed*" [fo_log $r]]
            } {node $r never refused to fail over for its data age: [fo_election_state $r $p]}
            assert_equal slave [info_field [cn $r info replication] role]
            # Nobody serves the stopped primary's slots: the cluster is down.
            foreach i [cluster_alive_nodes] {
                if {$i == $p} continue
                cluster_wait_state $i fail [expr {4 * $::nt}]
            }
            assert_equal slave [info_field [cn $r info replication] role]
        } finally {
            exec kill -CONT [cnode $p pid]
            cn $r config set cluster-replica-validity-factor 10
            foreach i [cluster_alive_nodes] {
                if {$i != $p} { cn $i config set cluster-allow-replica-migration yes }
            }
        }
        fo_wait_replica_of $r $p 20000
        cn $p config set cluster-allow-replica-migration yes
        cluster_wait_ok
    }

    test "cluster-replica-no-failover: no election; FAILOVER says to FORCE, and FORCE works" {
        cluster_refresh
        set p [lindex [cluster_primaries] 0]
        set r [lindex [cluster_replicas_of $p] 0]
        set others [lrange [cluster_replicas_of $p] 1 end]
        foreach o $others { assert_equal OK [cn $o config set cluster-replica-no-failover yes] }
        assert_equal OK [cn $r config set cluster-replica-no-failover yes]
        ::cl::deadline_wait 10000 {"nofailover" in [dict get [cluster_nodes_line $p $r] flags]} \
            {node $p never saw the nofailover flag of node $r}
        set slots [dict get [cluster_self $p] slots]
        cluster_kill $p
        cluster_wait_flag $r $p fail 20000
        # time for an election had one been allowed (delay <= 1 s + rank)
        after 4000
        assert_equal 0 [fo_is_primary_with_slots $r]
        assert_equal fail [cluster_info_field $r cluster_state]
        assert_equal "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE" \
            [assert_error * {cn $r cluster failover}]
        assert_equal OK [cn $r cluster failover force]
        fo_wait_primary $r 10000
        assert_equal $slots [dict get [cluster_self $r] slots]
        fo_wait_agreed $r $slots 10000
        assert_equal OK [cn $r config set cluster-replica-no-failover no]
        foreach o $others { assert_equal OK [cn $o config set cluster-replica-no-failover no] }
        cluster_restart $p
        fo_wait_replica_of $p $r 30000
        cluster_wait_ok
        fo_check_clean $r
    }
}
