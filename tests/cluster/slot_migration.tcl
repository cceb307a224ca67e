# Slot migration with replicated migration state: CLUSTER SETSLOT's checks and texts,
# SETSLOT replicated to the replicas before it applies on the primary, and the routing rows
# with open slots (of the decision tables in tests/cc/route_test.cc), sent over real
# connections to each primary and its READONLY replica.  3 primaries with 1 replica each,
# built by hand: 0-2 primaries, 3-5 their replicas; node 6 joins later as a second replica of 0.
# Written to pass on Valkey 8 too, except the tests tagged beyond-valkey (run the reference
# with --tags -beyond-valkey).

# Slot s, migrating from a to b: finished (b already owns it), then moved back to a, the way
# redis-cli moves it; returns once every node sees a own it.
proc sm_finish_and_move_back {s a b} {
    set ida [cluster_myid $a]; set idb [cluster_myid $b]
    assert_equal OK [cn $a cluster setslot $s node $idb]
    assert_equal OK [cn $a cluster setslot $s importing $idb]
    assert_equal OK [cn $b cluster setslot $s migrating $ida]
    assert_equal OK [cn $a cluster setslot $s node $ida]
    assert_equal OK [cn $b cluster setslot $s node $ida]
    foreach i {0 1 2 3 4 5} {
        wait_for_condition 100 50 {[cluster_slot_owner $s $i] == $a} else {
            fail "node $i does not see $a own slot $s"
        }
    }
}

# Commands written to node idx in one write, so that none of another client runs between them;
# returns the first line of each reply.
proc sm_pipeline {idx cmds} {
    set fd [socket 127.0.0.1 [cnode $idx port]]
    fconfigure $fd -translation binary -blocking 1
    set out {}
    foreach cmd $cmds { append out [::resp::encode_command {*}$cmd] }
    puts -nonewline $fd $out
    flush $fd
    set replies {}
    foreach cmd $cmds { gets $fd line; lappend replies [string trimright $line "\r"] }
    close $fd
    return $replies
}

proc sm_wait_tokens {idx expected} {
    wait_for_condition 100 50 {[cluster_open_slots $idx] eq $expected} else {
        fail "node $idx open slots: [cluster_open_slots $idx], expected $expected"
    }
}

# These nodes use epoll (io-uring no): several tests below check, with strace, the order of a
# reply, the bus messages and the fsyncs as write calls, and io_uring sends a reply without a
# write call of its own. On io_uring the reply-before-bus order is checked by its effect in
# tests/cluster/slot_flush.tcl (a handover's reply after the new owner's PONG made the source
# delete the slot's keys one by one).
start_cluster {primaries 3 replicas 1 create manual config {enable-debug-command yes io-uring no}} {
    set A 0; set B 1; set A2 3; set B2 4
    set idA [cluster_myid $A]; set idB [cluster_myid $B]; set idA2 [cluster_myid $A2]
    # A tag whose slot A owns; the keys of the routing rows share it.
    set tag [cluster_key_in_slot_of $A sm]
    set slot [cn $A cluster keyslot $tag]
    set present "{$tag}present"    ;# stays on A
    set moved "{$tag}moved"        ;# lives on B only (moved during the migration)
    set gone "{$tag}gone"          ;# nowhere
    set expiring "{$tag}expiring"  ;# on A, expires during the migration
    set expiring2 "{$tag}expiring2"
    set portA [cnode $A port]; set portB [cnode $B port]

    test "SETSLOT errors: checks of the primary, texts as Valkey 8" {
        set other [cn $A cluster keyslot [cluster_key_in_slot_of $B]]
        set nobody [string repeat 0 40]
        foreach {cmd err} [list \
            [list setslot $slot migrating $nobody] "ERR I don't know about node $nobody" \
            [list setslot $other migrating $idB] "ERR I'm not the owner of hash slot $other" \
            [list setslot $slot migrating $idA2] "ERR Target node is not a master" \
            [list setslot $slot importing $idB] "ERR I'm already the owner of hash slot $slot" \
            [list setslot $other importing $nobody] "ERR I don't know about node $nobody" \
            [list setslot $other importing $idA2] "ERR Target node is not a master" \
            [list setslot $slot node $nobody] "ERR Unknown node $nobody" \
            [list setslot $slot node $idA2] "ERR Target node is not a master" \
            [list setslot $slot bogus $idB] "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP" \
            [list setslot $slot migrating] "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP" \
            [list setslot $slot node] "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP" \
            [list setslot 16384 stable] "ERR Invalid or out of range slot" \
            [list setslot -1 stable] "ERR Invalid or out of range slot" \
            [list setslot x stable] "ERR Invalid or out of range slot" \
            [list setslot $slot stable timeout] "ERR Missing timeout value" \
            [list setslot $slot stable timeout -1] "ERR timeout is negative" \
            [list setslot $slot stable timeout 1.5] "ERR timeout is not an integer or out of range" \
            [list setslot $slot stable timeout 9223372036854775807] "ERR timeout is out of range" \
            [list setslot $slot] "ERR wrong number of arguments for 'cluster|setslot' command" \
        ] {
            assert_equal $err [assert_error * {cn $A cluster {*}$cmd}] $cmd
        }
        # a slot with keys cannot be given away
        cn $A set $present p1
        assert_equal "ERR Can't assign hashslot $slot to a different node while I still hold keys for this hash slot." \
            [assert_error * {cn $A cluster setslot $slot node $idB}]
        # a replica takes SETSLOT only from its primary
        assert_equal "ERR Please use SETSLOT only with masters." \
            [assert_error * {cn $A2 cluster setslot $slot stable}]
        # nothing changed anywhere
        foreach i {0 1 2 3 4 5} { assert_equal {} [cluster_open_slots $i] }
        assert_equal $A [cluster_slot_owner $slot]
    }

    cn $A set $expiring e1
    cn $A set $expiring2 e2
    test "SETSLOT MIGRATING / IMPORTING: the replicas have the open slot when the primary answers" {
        # a client blocked on a key of the slot before it opens (finalising sends it to B)
        set ::sm_blocked [::resp::client 127.0.0.1 [cnode $A port]]  ;# outlives this test
        $::sm_blocked deferred 1
        $::sm_blocked blpop "{$tag}list" 0
        wait_for_condition 50 20 {[string match "*blocked_clients:1*" [cn $A info clients]]} else {
            fail "BLPOP never blocked"
        }
        assert_equal OK [cn $B cluster setslot $slot importing $idA]
        # replicated before it applied: no waiting needed on the replica
        assert_equal [list "\[$slot-<-$idA\]"] [cluster_open_slots $B2]
        assert_equal [list "\[$slot-<-$idA\]"] [cluster_open_slots $B]
        assert_equal OK [cn $A cluster setslot $slot migrating $idB]
        assert_equal [list "\[$slot->-$idB\]"] [cluster_open_slots $A2]
        assert_equal [list "\[$slot->-$idB\]"] [cluster_open_slots $A]
        # open slots are not gossiped: the other shards know nothing of them
        foreach i {2 5} { assert_equal {} [cluster_open_slots $i] }
        # nodes.conf keeps them, on the replica too, on the myself line only
        foreach {i tok} [list $A2 "\[$slot->-$idB\]" $B2 "\[$slot-<-$idA\]"] {
            wait_for_condition 50 20 {[string first $tok [exec cat [cnode $i nodes_conf]]] >= 0} else {
                fail "nodes.conf of node $i lacks $tok"
            }
            foreach line [split [exec cat [cnode $i nodes_conf]] "\n"] {
                if {[string first $tok $line] >= 0} { assert_match "*myself*" $line }
            }
        }
        # the log of the replica names the slot
        assert_match "*Migrating slot $slot to node $idB*" [exec cat [cnode $A2 log]]
    }

    # The state for the rows: present on A, moved on B (written with ASKING, as MIGRATE does),
    # gone nowhere; the replicas have caught up.
    cn $A set $present p1
    set cb [cluster_client $B]
    $cb asking
    $cb set $moved m1
    $cb close
    assert_equal 1 [cn $A wait 1 5000]
    assert_equal 1 [cn $B wait 1 5000]

    set ask "-ASK $slot 127.0.0.1:$portB\r\n"
    set tryagain "-TRYAGAIN Multiple keys request during rehashing of slot\r\n"
    set movedA "-MOVED $slot 127.0.0.1:$portA\r\n"

    test "Source primary and its READONLY replica give the same answer" {
        # {command} {reply of A} {reply of A' with READONLY}
        foreach {cmd onA onA2} [list \
            [list get $present] "\$2\r\np1\r\n" "\$2\r\np1\r\n" \
            [list get $moved] $ask $ask \
            [list get $gone] $ask $ask \
            [list exists $moved] $ask $ask \
            [list mget $present $moved] $tryagain $tryagain \
            [list mget $moved $gone] $ask $ask \
            [list mget $present $present] "*2\r\n\$2\r\np1\r\n\$2\r\np1\r\n" "*2\r\n\$2\r\np1\r\n\$2\r\np1\r\n" \
            [list set $moved x] $ask $ask \
            [list del $present $moved] $tryagain $tryagain \
            [list set $present p1] "+OK\r\n" $movedA \
            [list incr $present] "-ERR value is not an integer or out of range\r\n" $movedA \
        ] {
            assert_equal $onA [cluster_raw $A {} {*}$cmd] "A: $cmd"
            assert_equal $onA2 [cluster_raw $A2 {readonly} {*}$cmd] "A' READONLY: $cmd"
        }
        # without READONLY the replica sends everything to its primary, as before
        foreach cmd [list [list get $present] [list get $moved] [list mget $present $moved]] {
            assert_equal $movedA [cluster_raw $A2 {} {*}$cmd] "A' without READONLY: $cmd"
        }
        # ASKING changes nothing on the source side
        assert_equal $ask [cluster_raw $A2 {readonly asking} get $moved]
        # MIGRATE is local only on the primary: on the replica it is a write like any other
        assert_equal $ask [cluster_raw $A2 {readonly} migrate 127.0.0.1 $portB $moved 0 1000]
        assert_equal $movedA [cluster_raw $A2 {readonly} migrate 127.0.0.1 $portB $present 0 1000]
        # shard pub/sub never counts keys: served by both, READONLY or not
        foreach {idx prelude} [list $A {} $A2 {} $A2 {readonly}] {
            assert_equal ":0\r\n" [cluster_raw $idx $prelude spublish $moved hello] "SPUBLISH on $idx"
        }
        # nothing was written by the refused commands
        assert_equal p1 [cn $A get $present]
        assert_equal 3 [cn $A cluster countkeysinslot $slot] ;# present and the two expiring
    }

    test "A key of the migrating slot that expired is missing: -ASK from the source and its READONLY replica" {
        # Not removed by active expiry: only a lookup can tell that it expired.
        cn $A debug set-active-expire 0
        assert_equal 1 [cn $A pexpire $expiring 50]
        assert_equal 1 [cn $A wait 1 5000]
        after 100
        assert_equal $ask [cluster_raw $A {} get $expiring]
        assert_equal $ask [cluster_raw $A2 {readonly} get $expiring]
        assert_equal $tryagain [cluster_raw $A {} mget $present $expiring]
        assert_equal 3 [cn $A cluster countkeysinslot $slot] "routing removes nothing"
    }

    test "... also when it expired while the node was busy: routing judges expiry as of now" {
        # The GET is read with DEBUG SLEEP and runs right after it: Valkey 8 routes it by the
        # time of its loop's wake-up, before the key expired, and serves a nil.
        set a [string trimright $ask "\r\n"]
        assert_equal 1 [cn $A pexpire $expiring2 50]
        assert_equal 1 [cn $A wait 1 5000]
        assert_equal [list +OK $a] [sm_pipeline $A [list {debug sleep 0.1} [list get $expiring2]]]
        assert_equal [list +OK +OK $a] \
            [sm_pipeline $A2 [list readonly {debug sleep 0.1} [list get $expiring2]]]
        cn $A debug set-active-expire 1
    } {beyond-valkey}

    test "Target primary and its READONLY replica give the same answer" {
        # {prelude on B} {command} {reply of B} {reply of B' with READONLY and the same prelude}
        foreach {prelude cmd onB onB2} [list \
            {} [list get $moved] $movedA $movedA \
            {asking} [list get $moved] "\$2\r\nm1\r\n" "\$2\r\nm1\r\n" \
            {asking} [list get $gone] "\$-1\r\n" "\$-1\r\n" \
            {asking} [list mget $moved $gone] $tryagain $tryagain \
            {asking} [list mget $moved $moved] "*2\r\n\$2\r\nm1\r\n\$2\r\nm1\r\n" "*2\r\n\$2\r\nm1\r\n\$2\r\nm1\r\n" \
            {asking} [list exists $moved $gone] $tryagain $tryagain \
            {asking} [list set $moved m1] "+OK\r\n" "-READONLY You can't write against a read only replica.\r\n" \
            {} [list set $moved m1] $movedA $movedA \
        ] {
            assert_equal $onB [cluster_raw $B $prelude {*}$cmd] "B $prelude: $cmd"
            assert_equal $onB2 [cluster_raw $B2 [concat readonly $prelude] {*}$cmd] "B' READONLY $prelude: $cmd"
        }
        # ASKING without READONLY on the replica: the primary of the slot
        assert_equal $movedA [cluster_raw $B2 {asking} get $moved]
        # RESTORE-ASKING needs no ASKING on the importing primary; its replica refuses the write
        set payload [cn $A dump $present]
        set restored "{$tag}restored"
        assert_equal "+OK\r\n" [cluster_raw $B {} restore-asking $restored 0 $payload]
        assert_equal "-READONLY You can't write against a read only replica.\r\n" \
            [cluster_raw $B2 {readonly} restore-asking $restored 0 $payload replace]
        assert_equal $movedA [cluster_raw $B {} restore $restored 0 $payload replace]
        assert_equal "\$2\r\np1\r\n" [cluster_raw $B {asking} get $restored]
        assert_equal "-BUSYKEY Target key name already exists.\r\n" \
            [cluster_raw $B {} restore-asking $restored 0 $payload]
        # ASKING lasts one command: PING consumes it
        assert_equal $movedA [cluster_raw $B {asking ping} get $moved]
        assert_equal $movedA [cluster_raw $B2 {readonly asking ping} get $moved]
    }

    test "MULTI/EXEC during the migration: queued commands are routed, ASKING lasts the transaction" {
        foreach {idx prelude} [list $A {} $A2 {readonly}] {
            set c [cluster_client $idx]
            foreach p $prelude { $c {*}$p }
            assert_equal OK [$c multi]
            assert_equal "ASK $slot 127.0.0.1:$portB" [assert_error * {$c get $moved}]
            assert_equal QUEUED [$c get $present]
            assert_equal "EXECABORT Transaction discarded because of previous errors." [assert_error * {$c exec}]
        }
        foreach {idx prelude} [list $B {asking} $B2 {readonly asking}] {
            set c [cluster_client $idx]
            foreach p $prelude { $c {*}$p }
            assert_equal OK [$c multi]
            assert_equal QUEUED [$c get $moved]
            assert_equal QUEUED [$c get $moved]
            assert_equal {m1 m1} [$c exec]
        }
    }

    test "A replica attached during the migration learns the open slot from the full sync" {
        set n [cluster_add_node]
        set ::sm_new $n
        cn $n cluster meet 127.0.0.1 $portA
        cluster_wait_known $n 7
        cluster_wait_known $A 7
        assert_equal OK [cn $n cluster replicate $idA]
        wait_for_condition 200 50 {[string match "*master_link_status:up*" [cn $n info replication]]} else {
            fail "node $n never synced with A"
        }
        wait_for_condition 200 50 {[string match "*slave1:*state=online*" [cn $A info replication]]} else {
            fail "A never saw node $n online"
        }
        assert_equal [list "\[$slot->-$idB\]"] [cluster_open_slots $n]
        # and, once it sees the cluster up, it answers like its primary
        cluster_wait_state $n ok
        assert_equal "\$2\r\np1\r\n" [cluster_raw $n {readonly} get $present]
        assert_equal $ask [cluster_raw $n {readonly} get $moved]
    }

    test "Disk snapshots never carry the open slots" {
        cn $A save
        set f [open [file join [cnode $A dir] dump.rdb] rb]
        set bytes [read $f]
        close $f
        assert_equal -1 [string first "cluster-slot-states" $bytes]
    }

    test "SETSLOT that times out on a stopped replica: -NOREPLICAS, nothing applied, replicas brought back" {
        set before [cluster_open_slots $A]
        exec kill -STOP [cnode $A2 pid]
        try {
            assert_equal "NOREPLICAS Not enough good replicas to write." \
                [assert_error * {cn $A cluster setslot $slot stable timeout 300}]
            assert_equal $before [cluster_open_slots $A]
        } finally {
            exec kill -CONT [cnode $A2 pid]
        }
        # the replica that got it late applied it, then the primary's state again
        sm_wait_tokens $A2 $before
        sm_wait_tokens $::sm_new $before
        assert_equal 2 [cn $A wait 2 5000]
        assert_equal $before [cluster_open_slots $A2]
        assert_equal $before [cluster_open_slots $::sm_new]
    } {beyond-valkey}

    test "TIMEOUT 0 waits for the replicas as long as it takes" {
        exec kill -STOP [cnode $A2 pid]
        set c [cluster_client $A]
        $c deferred 1
        try {
            $c cluster setslot $slot stable timeout 0
            after 500
            # still waiting, and the client is blocked (with the BLPOP of the first test)
            assert_match "*blocked_clients:2*" [cn $A info clients]
        } finally {
            exec kill -CONT [cnode $A2 pid]
        }
        assert_equal OK [$c read]
        assert_equal {} [cluster_open_slots $A]
        assert_equal {} [cluster_open_slots $A2]
    }

    test "A SETSLOT that changes nothing here answers at once, replicas stopped or not" {
        exec kill -STOP [cnode $A2 pid]
        try {
            assert_equal OK [cn $A cluster setslot $slot stable]
            assert_equal OK [cn $A cluster setslot $slot node $idA]
        } finally {
            exec kill -CONT [cnode $A2 pid]
        }
        assert_equal {} [cluster_open_slots $A]
    } {beyond-valkey}

    test "Finalising: NODE on the target, then on the source; open slots close everywhere" {
        # the keys still on A leave first (MIGRATE would move them)
        cn $A del $present
        set bl $::sm_blocked
        # blocked all along: the slot is still A's
        assert_match "*blocked_clients:1*" [cn $A info clients]
        assert_equal OK [cn $B cluster setslot $slot node $idB]
        assert_equal {} [cluster_open_slots $B]
        assert_equal {} [cluster_open_slots $B2]
        assert_equal OK [cn $A cluster setslot $slot node $idB]
        assert_equal {} [cluster_open_slots $A]
        assert_equal {} [cluster_open_slots $A2]
        assert_equal {} [cluster_open_slots $::sm_new]
        foreach i {0 1 2 3 4 5} {
            wait_for_condition 100 50 {[cluster_slot_owner $slot $i] == $B} else {
                fail "node $i does not see B own slot $slot"
            }
        }
        # the client blocked on A for a key of the slot is sent to B
        assert_equal "MOVED $slot 127.0.0.1:$portB" [assert_error * {$bl read}]
        assert_equal m1 [cn $B get $moved]
        assert_equal "-MOVED $slot 127.0.0.1:$portB\r\n" [cluster_raw $A2 {readonly} get $moved]
        assert_equal "\$2\r\nm1\r\n" [cluster_raw $B2 {readonly} get $moved]
    }

    test "The target's new epoch reaches the bus and the client only once it is fsynced" {
        # Its pongs announce the claim with the new epoch; a crash before the fsync must not
        # leave the others knowing an epoch the node itself forgot. (Valkey 8 sends both the
        # pongs and the reply first, then fsyncs.)
        set s7 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm7]]
        assert_equal OK [cn $B cluster setslot $s7 importing $idA]
        assert_equal OK [cn $A cluster setslot $s7 migrating $idB]
        # B bumps only when its epoch is not the largest it knows
        assert_match BUMPED* [cn $A cluster bumpepoch]
        set epochA [dict get [cluster_nodes_line $A $A] epoch]
        wait_for_condition 100 50 {[dict get [cluster_nodes_line $B $A] epoch] == $epochA} else {
            fail "B does not know A's epoch $epochA"
        }
        set h [strace_start [cnode $B pid] write,fsync,fdatasync]
        assert_equal OK [cn $B cluster setslot $s7 node $idB]
        # the pongs go after the reply: stop once A has heard the new epoch
        set epochB [dict get [cluster_nodes_line $B $B] epoch]
        wait_for_condition 100 50 {[dict get [cluster_nodes_line $A $B] epoch] == $epochB} else {
            fail "A never heard B's epoch $epochB"
        }
        set calls [strace_stop $h]
        set bump "*ConfigEpoch updated after importing slot $s7*"
        assert_fsync_first $calls $bump {write(*"RCmb*} "a bus message"
        assert_fsync_first $calls $bump {write(*"+OK\\r\\n"*} "the reply"
        sm_finish_and_move_back $s7 $A $B  ;# as the other tests expect
    } {beyond-valkey}

    test "SETSLOT NODE: the reply goes out before the PONG broadcast, which never delays it" {
        # B already has the largest epoch: no bump, no fsync, and the pongs that announce the
        # claim are written after the reply, in the same loop pass.
        set s8 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm8]]
        assert_equal OK [cn $B cluster setslot $s8 importing $idA]
        assert_equal OK [cn $A cluster setslot $s8 migrating $idB]
        # BUMPED, or STILL when it has the largest already
        assert_match {[BS][UT]*} [cn $B cluster bumpepoch]
        set h [strace_start [cnode $B pid] write]
        assert_equal OK [cn $B cluster setslot $s8 node $idB]
        wait_for_condition 100 50 {[cluster_slot_owner $s8 $A] == $B} else {
            fail "A never heard that B owns slot $s8"
        }
        set calls [strace_stop $h]
        set from [lsearch_from $calls 0 "*Assigning slot $s8 to node*"]
        assert {$from >= 0} "no log line of the assignment"
        set ok [lsearch_from $calls $from {write(*"+OK\\r\\n"*}]
        set bus [lsearch_from $calls $from {write(*"RCmb*}]
        set seen [lmap l [lrange $calls $from end] {string range $l 0 90}]
        assert {$ok > 0 && $bus > 0} "reply at $ok, first bus write at $bus:\n[join $seen \n]"
        assert {$ok < $bus} "a bus write before the reply:\n[join $seen \n]"
        sm_finish_and_move_back $s8 $A $B
    }

    test "SETSLOTs pipelined in one write: each goes to the replicas with its GETACK" {
        # The second one runs when the first completes; it used to ask for no ack, and waited
        # for the next loop pass (up to 100 ms) to send the GETACK.
        set slots {}
        foreach k {pl1 pl2 pl3} { lappend slots [cn $A cluster keyslot [cluster_key_in_slot_of $A $k]] }
        set slots [lsort -unique -integer $slots]
        set c [cluster_client $B]
        # the stream leaves by writev (from the replication buffer's blocks)
        set h [strace_start [cnode $B pid] write,writev]
        set cmds ""
        foreach s $slots { append cmds [::resp::encode_command cluster setslot $s importing $idA] }
        $c write_raw $cmds
        foreach s $slots { assert_equal OK [$c read] }
        set calls [strace_stop $h]
        foreach s $slots { assert_equal OK [cn $B cluster setslot $s stable] }
        assert_equal {} [cluster_open_slots $B]
        set stream [lsearch -all -inline -glob -nocase $calls {writev(*setslot*}]
        assert_equal [llength $slots] [llength $stream] \
            "writes of SETSLOT to the replica, in:\n[join [lmap l $calls {string range $l 0 120}] \n]"
        foreach w $stream { assert {[string match -nocase {*setslot*getack*} $w]} "no GETACK: $w" }
    }

    test "A command pipelined behind a blocked one: its nodes.conf change is fsynced before its reply" {
        # It runs when the BLPOP is served; the save used to come after its reply (Valkey 8
        # replies first too).
        assert_match {[BS][UT]*} [cn $B cluster bumpepoch]
        set epochB [dict get [cluster_nodes_line $B $B] epoch]
        wait_for_condition 100 50 {[dict get [cluster_nodes_line $A $B] epoch] == $epochB} else {
            fail "A does not know B's epoch $epochB"
        }
        set key [cluster_key_in_slot_of $A plbl]
        regexp {blocked_clients:(\d+)} [cn $A info clients] -> blocked
        set c [cluster_client $A]
        $c write_raw "[::resp::encode_command blpop $key 0][::resp::encode_command cluster bumpepoch]"
        wait_for_condition 100 50 {
            [string match "*blocked_clients:[expr {$blocked + 1}]\r*" [cn $A info clients]]
        } else {
            fail "the BLPOP did not block"
        }
        set h [strace_start [cnode $A pid] write,fsync,fdatasync]
        assert_equal 1 [cn $A rpush $key v]
        assert_equal [list $key v] [$c read]
        assert_match "BUMPED *" [$c read]
        set calls [strace_stop $h]
        assert_fsync_first $calls * {write(*BUMPED*} "the BUMPEPOCH reply"
    } {beyond-valkey}

    test "The target claims a slot its source gave up without it (auto-claim)" {
        set s2 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm2]]
        assert_equal 0 [cn $A cluster countkeysinslot $s2]
        set epochB [dict get [cluster_nodes_line $B $B] epoch]
        assert_equal OK [cn $B cluster setslot $s2 importing $idA]
        assert_equal OK [cn $A cluster setslot $s2 migrating $idB]
        # the source finalises alone; the target never runs SETSLOT NODE
        assert_equal OK [cn $A cluster setslot $s2 node $idB]
        assert_equal {} [cluster_open_slots $A]
        wait_for_condition 100 50 {[cluster_open_slots $B] eq {}} else {
            fail "B still imports slot $s2: [cluster_open_slots $B]"
        }
        sm_wait_tokens $B2 {}
        foreach i {0 1 2 3 4 5} {
            wait_for_condition 100 50 {[cluster_slot_owner $s2 $i] == $B} else {
                fail "node $i does not see B own slot $s2"
            }
        }
        # its claim carries the greatest config epoch (bumped unless it already was)
        set eB [dict get [cluster_nodes_line $B $B] epoch]
        assert_morethan $eB [expr {$epochB - 1}]
        foreach i {0 2} { assert_morethan $eB [dict get [cluster_nodes_line $B $i] epoch] }
        cluster_wait_ok {0 1 2 3 4 5}
    }

    test "COMMAND DOCS READONLY says what a READONLY replica answers during a migration" {
        set docs [cn $A2 command docs readonly]
        set summary [dict get [lindex $docs 1] summary]
        assert_match "*-ASK for a key moved*-TRYAGAIN*-MOVED*" $summary
    } {beyond-valkey}

    test "FORGET, RESET and ADDSLOTS close open slots; a SETSLOT brings lagging replicas back" {
        set s4 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm4]]
        set n $::sm_new
        # RESET of a replica (the node added above) drops the open slots it mirrored
        assert_equal OK [cn $A cluster setslot $s4 migrating $idB]
        sm_wait_tokens $n [list "\[$s4->-$idB\]"]
        assert_equal OK [cn $n cluster reset]
        assert_equal {} [cluster_open_slots $n]
        assert_equal OK [cn $A cluster setslot $s4 stable]
        # FORGET of the node a slot migrates to closes it here (FORGET is not replicated:
        # the replica keeps it until the primary's next SETSLOT for the slot)
        assert_equal OK [cn $n cluster meet 127.0.0.1 $portA]
        cluster_wait_known $n 7
        set idN [cn $n cluster myid]
        wait_for_condition 100 50 {[string match "*master*" [dict get [cluster_nodes_line $A $n] flags]]} else {
            fail "A does not see node $n as a primary"
        }
        assert_equal OK [cn $A cluster setslot $s4 migrating $idN]
        sm_wait_tokens $A2 [list "\[$s4->-$idN\]"]
        assert_equal OK [cn $A cluster forget $idN]
        assert_equal {} [cluster_open_slots $A]
        assert_equal [list "\[$s4->-$idN\]"] [cluster_open_slots $A2]
        assert_equal OK [cn $A cluster setslot $s4 stable]
        sm_wait_tokens $A2 {}
        # ADDSLOTS of a slot being imported ends the import
        set s5 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm5]]
        assert_equal OK [cn $B cluster setslot $s5 importing $idA]
        assert_equal [list "\[$s5-<-$idA\]"] [cluster_open_slots $B]
        # in one transaction: between two commands a ping from A may claim the freed slot again
        set c [cluster_client $B]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c cluster delslots $s5]
        assert_equal QUEUED [$c cluster addslots $s5]
        assert_equal {OK OK} [$c exec]
        assert_equal {} [cluster_open_slots $B]
    }

    test "A snapshot child does not hold the nodes.conf lock (the node does)" {
        for {set i 0} {$i < 5} {incr i} { cn $A set [cluster_key_in_slot_of $A snap$i] $i }
        cn $A config set rdb-key-save-delay 100000
        try {
            assert_match "*started*" [cn $A bgsave]
            set child {}
            wait_for_condition 50 20 {[set child [exec sh -c "pgrep -P [cnode $A pid] || true"]] ne {}} else {
                fail "no snapshot child"
            }
            set held {}
            foreach fd [glob -nocomplain /proc/$child/fd/*] {
                catch { lappend held [file readlink $fd] }
            }
            assert_equal {} [lsearch -all -inline -glob $held *nodes.conf*]
            set parent {}
            foreach fd [glob -nocomplain /proc/[cnode $A pid]/fd/*] {
                catch { lappend parent [file readlink $fd] }
            }
            # the node itself still has it open (and locked)
            assert_morethan [llength [lsearch -all -inline -glob $parent *nodes.conf*]] 0
        } finally {
            cn $A config set rdb-key-save-delay 0
        }
        wait_for_condition 100 50 {[string match "*rdb_bgsave_in_progress:0*" [cn $A info persistence]]} else {
            fail "the snapshot never ended"
        }
    }

    test "A replica's nodes.conf has the open slots it applied before its snapshot forks" {
        # A replica saves what its primary streams with its next save (up to 100 ms later);
        # a snapshot taken meanwhile must not record an offset past what nodes.conf holds.
        set s6 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm6]]
        set idC [cluster_myid 2]
        assert_equal OK [cn $A cluster setslot $s6 migrating $idB]
        assert_equal OK [cn $A cluster setslot $s6 stable]
        assert_equal OK [cn $A cluster setslot $s6 migrating $idC]
        assert_match "*started*" [cn $A2 bgsave]
        set tok "\[$s6->-$idC\]"
        assert {[string first $tok [exec cat [cnode $A2 nodes_conf]]] >= 0}
        wait_for_condition 100 50 {[string match "*rdb_bgsave_in_progress:0*" [cn $A2 info persistence]]} else {
            fail "the snapshot never ended"
        }
        assert_equal OK [cn $A cluster setslot $s6 stable]
        sm_wait_tokens $A2 {}
    }

    test "CLUSTER SLOT-STATS: key counts of the slots of this shard, on the primary and its replica" {
        # the slot moves of earlier tests (between A and B) are known everywhere: A's own
        # slots are counted twice below, and must not change in between. Node $::sm_new is
        # left out: A forgot it above, and CLUSTER FORGET spreads (the forgotten-node ping
        # extension), so no other node knows it again while it still knows them all (Valkey
        # 8.0.1 too: its node set differs from the others' for good).
        cluster_wait_ok {0 1 2 3 4 5} 10000
        # three slots of A with 3, 1 and 1 keys; the other slots of A hold what earlier tests left
        set k1 [cluster_key_in_slot_of $A st1]
        set s1 [cn $A cluster keyslot $k1]
        for {set i 0} {$i < 3} {incr i} { cn $A set "{$k1}$i" x }
        assert_equal 1 [cn $A wait 1 5000]
        set expect [list [list $s1 [list key-count [cn $A cluster countkeysinslot $s1]]]]
        foreach i [list $A $A2] {
            assert_equal $expect [cn $i cluster slot-stats slotsrange $s1 $s1] "node $i"
        }
        # a range covers only the slots of this shard: none of B's
        set sB [cn $A cluster keyslot [cluster_key_in_slot_of $B]]
        assert_equal {} [cn $A cluster slot-stats slotsrange $sB $sB]
        # ORDERBY key-count: the fullest first, ties in slot order; LIMIT; ASC
        set top [cn $A cluster slot-stats orderby key-count limit 1]
        assert_equal 1 [llength $top]
        set best [lindex $top 0 1 1]
        set all [cn $A cluster slot-stats orderby key-count]
        set owned 0
        foreach r [cn $A cluster slots] {
            if {[lindex $r 2 2] eq $idA} { incr owned [expr {[lindex $r 1] - [lindex $r 0] + 1}] }
        }
        assert_equal $owned [llength $all]
        set prev {}
        foreach e $all {
            set n [lindex $e 1 1]
            assert_equal [cn $A cluster countkeysinslot [lindex $e 0]] $n
            if {$prev ne {}} {
                lassign $prev pn ps
                assert {$pn > $n || ($pn == $n && $ps < [lindex $e 0])} "order at slot [lindex $e 0]"
            }
            set prev [list $n [lindex $e 0]]
        }
        assert_equal $best [lindex $all 0 1 1]
        set asc [cn $A cluster slot-stats orderby key-count asc limit 2]
        assert_equal [lrange [lsort -integer -index 0 [lsearch -all -inline -index 1 $all {key-count 0}]] 0 1] $asc
        # errors, as Valkey 8 with cluster-slot-stats-enabled no
        foreach {args err} {
            {slotsrange 3 1} "ERR Start slot number 3 is greater than end slot number 1"
            {slotsrange 0 16384} "ERR Invalid or out of range slot"
            {orderby cpu-usec} "ERR Unrecognized sort metric for ORDERBY."
            {orderby key-count limit 0} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit 2 limit 3} "ERR Multiple filters of the same type are disallowed."
            {orderby key-count asc desc} "ERR Multiple filters of the same type are disallowed."
            {orderby key-count bogus} "ERR syntax error"
            {slotsrange 1} "ERR unknown subcommand or wrong number of arguments for 'slot-stats'. Try CLUSTER HELP."
            {foo} "ERR wrong number of arguments for 'cluster|slot-stats' command"
        } {
            assert_equal $err [assert_error * {cn $A cluster slot-stats {*}$args}] $args
        }
    }

    test "SETSLOT inside MULTI/EXEC: applied at once, and the replicas get it in the same transaction" {
        set s6 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm6]]
        set c [cluster_client $A]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c cluster setslot $s6 migrating $idB]
        assert_equal {OK} [$c exec]
        assert_equal [list "\[$s6->-$idB\]"] [cluster_open_slots $A]
        sm_wait_tokens $A2 [list "\[$s6->-$idB\]"]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c cluster setslot $s6 stable]
        assert_equal {OK} [$c exec]
        assert_equal {} [cluster_open_slots $A]
        sm_wait_tokens $A2 {}
    } {beyond-valkey}

    test "A replica in the middle of its full sync gets a SETSLOT made meanwhile through the stream" {
        set n [cluster_add_node]
        cn $n cluster meet 127.0.0.1 $portA
        wait_for_condition 200 50 {[string match "*$idA 127.0.0.1:$portA*master*" [cn $n cluster nodes]]} else {
            fail "node $n does not know A"
        }
        for {set i 0} {$i < 10} {incr i} { cn $A set [cluster_key_in_slot_of $A fs$i] $i }
        set s7 [cn $A cluster keyslot [cluster_key_in_slot_of $A sm7]]
        cn $A config set rdb-key-save-delay 200000
        try {
            assert_equal OK [cn $n cluster replicate $idA]
            wait_for_condition 100 50 {[string match "*master_sync_in_progress:1*" [cn $n info replication]]} else {
                fail "no full sync started"
            }
            # the snapshot is being made without the open slot; the stream after it carries it
            assert_equal OK [cn $A cluster setslot $s7 migrating $idB]
        } finally {
            cn $A config set rdb-key-save-delay 0
        }
        wait_for_condition 200 50 {[string match "*master_link_status:up*" [cn $n info replication]]} else {
            fail "node $n never finished its sync"
        }
        sm_wait_tokens $n [list "\[$s7->-$idB\]"]
        assert_equal OK [cn $A cluster setslot $s7 stable]
        sm_wait_tokens $n {}
    }
}
