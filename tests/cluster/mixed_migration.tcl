# Slot migration in a mixed cluster of the tested binary and Debian's redis-server 7.0
# (the routing rows of the decision tables in tests/cc/route_test.cc, with open slots):
#   1. a 7.0 primary migrates a slot holding keys of every type (some with TTLs) to one of our
#      primaries by hand -- SETSLOT IMPORTING on the target, MIGRATING on the source,
#      GETKEYSINSLOT + MIGRATE ... KEYS (7.0 sends RESTORE-ASKING to us), SETSLOT NODE on the
#      target then on the source -- and the slot comes back the same way (we send RESTORE-ASKING
#      to 7.0, which reads our version-10 payloads).  Exact redirects from both primaries at
#      each step, values and TTLs after each move, agreement and `redis-cli --cluster check`.
#      A stream goes along only if the tested node has streams (none yet: skipped deliberately);
#   2. our READONLY replica of the migrating 7.0 primary behaves like a 7.0 replica (a 7.0
#      primary replicates no SETSLOT): no open-slot tokens, reads of its primary's slots served
#      (nil for keys already moved: Redis 7.0's answer, not an ASK), MOVED to the new owner once
#      the migration is finalised.  A 7.0 replica of the same primary answers every row too, as
#      the oracle.  Our node attached with CLUSTER REPLICATE mid-migration has no open slots;
#   3. our primary with a 7.0 replica: SETSLOT answers +OK without waiting for it (7.0 sends no
#      REPLCONF version, so it is never eligible), that replica's replication stays healthy and
#      error-free, a full sync while our primary has an open slot loads, and MIGRATE's DEL
#      reaches it.
# Nodes: 0 = 7.0 primary (0-5460), 1 = our primary (5461-10922), 2 = 7.0 primary (10923-16383),
# 3 = our replica of 0, 4 = 7.0 replica of 1, 5 = our replica of 2, 6 = 7.0 replica of 0 (joins
# in the first test), 7 = ours, attached to 0 in the middle of the migration.

set ::redis7 /usr/bin/redis-server

if {![file executable $::redis7]} {
    # the peer is installed by `make test`: without it this file fails, it never skips
    test "Mixed-cluster slot migration with redis-server 7.0" { require_peer $::redis7 redis-server }
    return
}

# ---------------------------------------------------------------- helpers

proc mm_bulk {v} { return "\$[string length $v]\r\n$v\r\n" }
proc mm_moved {idx} { return "-MOVED $::mm(slot) 127.0.0.1:[cnode $idx port]\r\n" }
proc mm_ask {idx} { return "-ASK $::mm(slot) 127.0.0.1:[cnode $idx port]\r\n" }
set ::mm_tryagain "-TRYAGAIN Multiple keys request during rehashing of slot\r\n"
set ::mm_nil "\$-1\r\n"

# rows: {prelude command expected-raw-reply ...}, asserted on every node of idxs.
proc mm_rows {idxs rows what} {
    foreach idx $idxs {
        foreach {prelude cmd want} $rows {
            assert_equal $want [cluster_raw $idx $prelude {*}$cmd] "$what, node $idx, $prelude $cmd"
        }
    }
}

# A command on node idx's cached client, after ASKING or READONLY when mode says so.
proc mm_on {idx mode args} {
    switch -- $mode {
        asking { assert_equal OK [cn $idx asking] }
        readonly { assert_equal OK [cn $idx readonly] }
    }
    return [cn $idx {*}$args]
}

# What node idx holds under key: {type value pexpiretime}; hashes and sets sorted (the two
# servers may iterate them differently), zset scores chosen to print alike in both.
proc mm_value {idx key {mode plain}} {
    set t [mm_on $idx $mode type $key]
    switch -- $t {
        string { set v [mm_on $idx $mode get $key] }
        list { set v [mm_on $idx $mode lrange $key 0 -1] }
        hash { set v [lsort -stride 2 -index 0 [mm_on $idx $mode hgetall $key]] }
        set { set v [lsort [mm_on $idx $mode smembers $key]] }
        zset { set v [mm_on $idx $mode zrange $key 0 -1 withscores] }
        stream {
            set info [mm_on $idx $mode xinfo stream $key]
            set groups [mm_on $idx $mode xinfo groups $key]
            if {$mode eq "readonly"} {
                # a replica of a 7.0 primary learns groups from the XCLAIM / XGROUP SETID that
                # 7.0 propagates: Valkey 8 leaves entries-read unknown there
                set groups [lmap g $groups { dict remove $g entries-read lag }]
            }
            set v [list [mm_on $idx $mode xrange $key - +] [dict get $info length] \
                       [dict get $info last-generated-id] [dict get $info max-deleted-entry-id] \
                       [dict get $info entries-added] $groups [mm_on $idx $mode xpending $key g]]
        }
        none { set v {} }
        default { set v "unexpected type $t" }
    }
    return [list $t $v [mm_on $idx $mode pexpiretime $key]]
}

# Every key of `keys` on node idx has the type and value of the original; its expire time is
# the original's, or (a TTL goes as the remaining time) a little later, never earlier.
proc mm_assert_keys {idx keys {mode plain}} {
    foreach k $keys {
        lassign [dict get $::mm(orig) $k] t v exp
        lassign [mm_value $idx $k $mode] t2 v2 exp2
        assert_equal $t $t2 "type of $k on node $idx"
        assert_equal $v $v2 "value of $k on node $idx"
        if {$exp == -1} {
            assert_equal -1 $exp2 "expire time of $k on node $idx"
        } elseif {!($exp2 >= $exp && $exp2 <= $exp + 60000)} {
            fail "expire time of $k on node $idx: $exp2, original $exp"
        }
    }
}

# A replica holds exactly what its primary holds (expire times included: they replicate as
# absolute times).
proc mm_assert_same {primary replica keys} {
    foreach k $keys {
        assert_equal [mm_value $primary $k readonly] [mm_value $replica $k readonly] \
            "$k on replica $replica vs primary $primary"
    }
}

proc mm_with_stopped {idx body} {
    exec kill -STOP [cnode $idx pid]
    try {
        uplevel 1 $body
    } finally {
        exec kill -CONT [cnode $idx pid]
    }
}

proc mm_wait_owner {idxs owner} {
    foreach i $idxs {
        wait_for_condition 200 50 {[cluster_slot_owner $::mm(slot) $i] eq $owner} else {
            fail "node $i sees slot $::mm(slot) owned by node [cluster_slot_owner $::mm(slot) $i], not $owner"
        }
    }
}

proc mm_wait_link_up {idx} {
    wait_for_condition 200 50 {
        [info_field [cn $idx info replication] master_link_status] eq "up"
    } else {
        fail "node $idx: replication link never up:\n[cn $idx info replication]"
    }
}

# Moves every key of the slot from src to tgt with MIGRATE ... KEYS, 20 at a time.
proc mm_migrate_rest {src tgt} {
    for {set i 0} {$i < 50} {incr i} {
        set ks [cn $src cluster getkeysinslot $::mm(slot) 20]
        if {![llength $ks]} return
        assert_equal OK [cn $src migrate 127.0.0.1 [cnode $tgt port] "" 0 5000 keys {*}$ks]
    }
    fail "node $src still holds keys of slot $::mm(slot)"
}

# Rows of the source primary of the migration (src -> tgt) once the first batch moved:
# `moved`, `moved2` on tgt, `present` still on src, `gone` nowhere.
proc mm_source_rows {src tgt} {
    set ask [mm_ask $tgt]
    set pv [mm_bulk $::mm(pv)]
    mm_rows $src [list \
        {} [list get $::mm(present)] $pv \
        {} [list get $::mm(moved)] $ask \
        {} [list get $::mm(gone)] $ask \
        {} [list exists $::mm(moved)] $ask \
        {} [list type $::mm(list)] $ask \
        {} [list mget $::mm(present) $::mm(moved)] $::mm_tryagain \
        {} [list mget $::mm(moved) $::mm(moved2)] $ask \
        {} [list mget $::mm(present) $::mm(present)] "*2\r\n$pv$pv" \
        {} [list del $::mm(present) $::mm(moved)] $::mm_tryagain \
        {} [list set $::mm(moved) x] $ask \
        {asking} [list get $::mm(moved)] $ask \
    ] "source"
}

# Rows of the target primary, same state.
proc mm_target_rows {src tgt} {
    set mv [mm_bulk $::mm(mv)]
    set mv2 [mm_bulk $::mm(mv2)]
    mm_rows $tgt [list \
        {} [list get $::mm(moved)] [mm_moved $src] \
        {} [list get $::mm(present)] [mm_moved $src] \
        {asking} [list get $::mm(moved)] $mv \
        {asking} [list get $::mm(present)] $::mm_nil \
        {asking} [list get $::mm(gone)] $::mm_nil \
        {asking} [list type $::mm(list)] "+list\r\n" \
        {asking} [list mget $::mm(moved) $::mm(moved2)] "*2\r\n$mv$mv2" \
        {asking} [list mget $::mm(moved) $::mm(moved)] "*2\r\n$mv$mv" \
        {asking} [list exists $::mm(moved) $::mm(moved2)] ":2\r\n" \
        {asking} [list mget $::mm(moved) $::mm(present)] $::mm_tryagain \
        {asking} [list mget $::mm(moved) $::mm(gone)] $::mm_tryagain \
        {asking ping} [list get $::mm(moved)] [mm_moved $src] \
    ] "target"
}

# Nodes outside the migration send everything to the owner.
proc mm_bystander_rows {idxs owner} {
    mm_rows $idxs [list \
        {} [list get $::mm(moved)] [mm_moved $owner] \
        {} [list get $::mm(present)] [mm_moved $owner] \
        {readonly} [list get $::mm(moved)] [mm_moved $owner] \
        {asking} [list get $::mm(moved)] [mm_moved $owner] \
    ] "bystander"
}

# ---------------------------------------------------------------- the cluster

start_cluster [list primaries 3 replicas 1 nodes 8 create manual \
                   bins [list 0 $::redis7 2 $::redis7 4 $::redis7 6 $::redis7]] {
    set id0 [cluster_myid 0]
    set id1 [cluster_myid 1]
    set all {0 1 2 3 4 5 6 7}
    set tag [cluster_key_in_slot_of 0 mm]
    set slot [cn 0 cluster keyslot $tag]
    set ::mm(slot) $slot
    set ::mm(present) "{$tag}s:49"
    set ::mm(pv) v49
    set ::mm(moved) "{$tag}s:0"
    set ::mm(mv) v0
    set ::mm(moved2) "{$tag}s:1"
    set ::mm(mv2) v1
    set ::mm(gone) "{$tag}nosuch"
    set ::mm(list) "{$tag}list"
    # a key of our primary's own slots, for writes after SETSLOT
    set k1 [cluster_key_in_slot_of 1 mm1]

    set keys {}
    for {set i 0} {$i < 50} {incr i} { lappend keys "{$tag}s:$i" }
    foreach n {big ttl:0 ttl:1 ttl:2 ttl:3 ttl:4 list biglist hash bighash hashttl set iset bigset
               zset bigzset} {
        lappend keys "{$tag}$n"
    }
    # the first batch: 10 strings and the most varied of the rest
    set batch1 {}
    for {set i 0} {$i < 10} {incr i} { lappend batch1 "{$tag}s:$i" }
    foreach n {ttl:0 ttl:1 list hashttl bigzset biglist big} { lappend batch1 "{$tag}$n" }
    # A stream (with a consumer group) goes along only if the tested node has streams: a 7.0
    # primary holding one cannot even be replicated by a node without them.
    set ::mm(streams) [expr {[llength [cn 1 command info xadd]] && [lindex [cn 1 command info xadd] 0] ne {}}]
    if {$::mm(streams)} {
        lappend keys "{$tag}stream"
        lappend batch1 "{$tag}stream"
    }
    set nkeys [llength $keys]

    test "Setup: 7.0 replica 6 joins primary 0; keys of every type in one slot of the 7.0 primary" {
        foreach i {0 2 4 6} { assert_match "*redis_version:7.0.*" [cn $i info server] "node $i" }
        foreach i {1 3 5 7} { assert_no_match "*redis_version:7.0.*" [cn $i info server] }
        assert_equal OK [cn 6 cluster meet 127.0.0.1 [cnode 0 port]]
        foreach i {0 1 2 3 4 5 6} { cluster_wait_known $i 7 }
        wait_for_condition 200 50 {[string match *master* [dict get [cluster_nodes_line 6 0] flags]]} else {
            fail "node 6 never saw node 0 as a primary"
        }
        assert_equal OK [cn 6 cluster replicate $id0]
        cluster_wait_ok {0 1 2 3 4 5 6}

        for {set i 0} {$i < 50} {incr i} { assert_equal OK [cn 0 set "{$tag}s:$i" v$i] }
        assert_equal OK [cn 0 set "{$tag}big" [string repeat "0123456789abcdef" 1500]]
        for {set i 0} {$i < 5} {incr i} {
            assert_equal OK [cn 0 set "{$tag}ttl:$i" t$i px [expr {3600000 + $i * 1000}]]
        }
        cn 0 rpush "{$tag}list" a b c 1 2 3
        set l {}
        for {set i 0} {$i < 300} {incr i} { lappend l e$i-[string repeat x 40] }
        cn 0 rpush "{$tag}biglist" {*}$l
        cn 0 hset "{$tag}hash" f1 v1 f2 v2 n 10
        set h {}
        for {set i 0} {$i < 200} {incr i} { lappend h f$i [string repeat v 70]$i }
        cn 0 hset "{$tag}bighash" {*}$h
        cn 0 hset "{$tag}hashttl" a 1 b 2
        set at [expr {[clock milliseconds] + 7200000}]
        assert_equal 1 [cn 0 pexpireat "{$tag}hashttl" $at]
        cn 0 sadd "{$tag}set" x y z
        cn 0 sadd "{$tag}iset" 1 2 3 100000
        set m {}
        for {set i 0} {$i < 200} {incr i} { lappend m m$i }
        cn 0 sadd "{$tag}bigset" {*}$m
        cn 0 zadd "{$tag}zset" 1 a 2.5 b -3 c
        set z {}
        for {set i 0} {$i < 200} {incr i} { lappend z $i member$i }
        cn 0 zadd "{$tag}bigzset" {*}$z
        if {$::mm(streams)} {
            cn 0 xadd "{$tag}stream" 1-1 f v
            cn 0 xadd "{$tag}stream" 2-1 f w
            cn 0 xadd "{$tag}stream" 3-1 f x
            assert_equal 1 [cn 0 xdel "{$tag}stream" 2-1]
            assert_equal OK [cn 0 xgroup create "{$tag}stream" g 0]
            cn 0 xreadgroup group g alice count 2 streams "{$tag}stream" >
            assert_equal 1 [cn 0 xack "{$tag}stream" g 1-1]
        }

        assert_equal $nkeys [cn 0 cluster countkeysinslot $slot]
        assert_equal $nkeys [cn 0 dbsize]
        set ::mm(orig) {}
        foreach k $keys { dict set ::mm(orig) $k [mm_value 0 $k] }
        assert_equal [list hash {a 1 b 2} $at] [dict get $::mm(orig) "{$tag}hashttl"]
        assert_equal {zset {c -3 a 1 b 2.5}} [lrange [dict get $::mm(orig) "{$tag}zset"] 0 1]
        assert_equal 2 [cn 0 wait 2 5000]
        # our replica of the 7.0 primary holds the same, expire times included
        mm_assert_same 0 3 $keys
        mm_assert_same 0 6 $keys
        assert_equal $id0 [dict get [cluster_nodes_line 3 3] primary]
    }

    test "1: a stream with a consumer group is among the moved keys" {
        if {!$::mm(streams)} { skip_deliberate "the tested node has no streams (no XADD): no stream key in the slot" }
        assert_equal stream [lindex [dict get $::mm(orig) "{$tag}stream"] 0]
    }

    test "1+3: our target opens the slot (IMPORTING): +OK with its only replica, a 7.0, stopped; that replica stays healthy" {
        set errs_before [regexp -all {== CRITICAL ==} [exec cat [cnode 4 log]]]
        # With the default timeout (2000 ms), a primary waiting for the 7.0 replica would
        # answer -NOREPLICAS: it must not wait for a replica that sent no REPLCONF version.
        mm_with_stopped 4 {
            catch {cn 1 cluster setslot $slot importing $id0} r
        }
        # (opened anyway, so that a failure here does not stop the migration below)
        if {$r ne "OK"} { catch {cn 1 cluster setslot $slot importing $id0} }
        assert_equal OK $r "SETSLOT IMPORTING on our primary while its 7.0 replica is stopped"
        assert_equal [list "\[$slot-<-$id0\]"] [cluster_open_slots 1]
        # writes after the SETSLOT reach the 7.0 replica
        assert_equal OK [cn 1 set $k1 after-importing]
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal [mm_bulk after-importing] [cluster_raw 4 {readonly} get $k1]
        assert_equal up [info_field [cn 4 info replication] master_link_status]
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
        # nothing in the stream made the 7.0 replica answer its primary with an error (Valkey 8
        # streams SETSLOT only when some replica is eligible: none is here)
        set log [exec cat [cnode 4 log]]
        assert_equal $errs_before [regexp -all {== CRITICAL ==} $log] \
            "7.0 replica log: [lsearch -all -inline [split $log \n] *CRITICAL*]"
    }

    test "1: the 7.0 source opens the slot (MIGRATING); redirects before any key moved" {
        assert_equal OK [cn 0 cluster setslot $slot migrating $id1]
        assert_equal [list "\[$slot->-$id1\]"] [cluster_open_slots 0]
        assert_equal [list "\[$slot-<-$id0\]"] [cluster_open_slots 1]
        set pv [mm_bulk $::mm(pv)]
        set mv [mm_bulk $::mm(mv)]
        mm_rows 0 [list \
            {} [list get $::mm(present)] $pv \
            {} [list mget $::mm(present) $::mm(moved)] "*2\r\n$pv$mv" \
            {} [list get $::mm(gone)] [mm_ask 1] \
            {} [list mget $::mm(present) $::mm(gone)] $::mm_tryagain \
        ] "7.0 source, nothing moved"
        mm_rows 1 [list \
            {} [list get $::mm(present)] [mm_moved 0] \
            {asking} [list get $::mm(present)] $::mm_nil \
            {asking} [list mget $::mm(present) $::mm(moved)] $::mm_tryagain \
        ] "our target, nothing moved"
        mm_bystander_rows {2 5} 0
        # 2: neither replica of the 7.0 primary has open slots
        foreach i {3 6} { assert_equal {} [cluster_open_slots $i] "node $i" }
    }

    test "1: the 7.0 source MIGRATEs a first batch to us (RESTORE-ASKING): ASK, TRYAGAIN, ASKING on our target; values and TTLs" {
        assert_equal OK [cn 0 migrate 127.0.0.1 [cnode 1 port] "" 0 5000 keys {*}$batch1]
        assert_equal [expr {$nkeys - [llength $batch1]}] [cn 0 cluster countkeysinslot $slot]
        assert_equal [llength $batch1] [cn 1 cluster countkeysinslot $slot]
        mm_source_rows 0 1
        mm_target_rows 0 1
        mm_bystander_rows {2 5} 0
        mm_assert_keys 1 $batch1 asking
        # what stayed on the source is untouched
        mm_assert_keys 0 [lrange $keys 10 49]
        # the open slots are unchanged on both sides
        assert_equal [list "\[$slot->-$id1\]"] [cluster_open_slots 0]
        assert_equal [list "\[$slot-<-$id0\]"] [cluster_open_slots 1]
        # 3: the restored keys reach our primary's 7.0 replica
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal [lsort $batch1] [lsort [cn 4 cluster getkeysinslot $slot 100]]
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
    }

    test "2: our READONLY replica of the migrating 7.0 primary answers like its 7.0 replica (no open slot, nil for moved keys)" {
        assert_equal 2 [cn 0 wait 2 5000]
        set pv [mm_bulk $::mm(pv)]
        set rows [list \
            {readonly} [list get $::mm(present)] $pv \
            {readonly} [list get $::mm(moved)] $::mm_nil \
            {readonly} [list get $::mm(gone)] $::mm_nil \
            {readonly} [list mget $::mm(present) $::mm(moved)] "*2\r\n$pv$::mm_nil" \
            {readonly} [list exists $::mm(present) $::mm(moved)] ":1\r\n" \
            {readonly} [list type $::mm(list)] "+none\r\n" \
            {readonly asking} [list get $::mm(moved)] $::mm_nil \
            {readonly} [list set $::mm(moved) x] [mm_moved 0] \
            {readonly} [list del $::mm(present)] [mm_moved 0] \
            {} [list get $::mm(present)] [mm_moved 0] \
            {} [list get $::mm(moved)] [mm_moved 0] \
        ]
        # node 6 is Redis 7.0's own replica: the oracle for each row
        mm_rows {6 3} $rows "replica of the 7.0 source"
        foreach i {3 6} {
            assert_equal {} [cluster_open_slots $i] "node $i"
            assert_equal [expr {$nkeys - [llength $batch1]}] [cn $i cluster countkeysinslot $slot]
        }
        cn 3 cluster saveconfig
        assert_equal {} [regexp -all -inline {\[[0-9]+-[<>]-} [exec cat [cnode 3 nodes_conf]]]
    }

    test "2: our node attached (CLUSTER REPLICATE) to the 7.0 primary mid-migration keeps no open slots" {
        assert_equal OK [cn 7 cluster meet 127.0.0.1 [cnode 0 port]]
        foreach i $all { cluster_wait_known $i 8 }
        wait_for_condition 200 50 {[string match *master* [dict get [cluster_nodes_line 7 0] flags]]} else {
            fail "node 7 never saw node 0 as a primary"
        }
        # an open slot of its own before, to be sure nothing brings one back
        assert_equal OK [cn 7 cluster setslot $slot importing $id0]
        assert_equal [list "\[$slot-<-$id0\]"] [cluster_open_slots 7]
        set full [info_field [cn 0 info stats] sync_full]
        assert_equal OK [cn 7 cluster replicate $id0]
        assert_equal {} [cluster_open_slots 7]
        mm_wait_link_up 7
        assert_equal [expr {$full + 1}] [info_field [cn 0 info stats] sync_full]
        assert_equal 3 [cn 0 wait 3 5000]
        assert_equal {} [cluster_open_slots 7]
        cluster_wait_state 7 ok
        set pv [mm_bulk $::mm(pv)]
        mm_rows {6 7} [list \
            {readonly} [list get $::mm(present)] $pv \
            {readonly} [list get $::mm(moved)] $::mm_nil \
            {readonly} [list mget $::mm(present) $::mm(moved)] "*2\r\n$pv$::mm_nil" \
            {readonly asking} [list get $::mm(moved)] $::mm_nil \
            {readonly} [list set $::mm(present) x] [mm_moved 0] \
        ] "replica attached mid-migration"
        assert_equal [cn 0 dbsize] [cn 7 dbsize]
        mm_assert_same 0 7 [lrange $keys 10 49]
        cn 7 cluster saveconfig
        assert_equal {} [regexp -all -inline {\[[0-9]+-[<>]-} [exec cat [cnode 7 nodes_conf]]]
        foreach i $all { assert_equal 0 [cluster_slot_owner $slot $i] "node $i" }
    }

    test "1: the rest moves to us; SETSLOT NODE on our target, then on the 7.0 source; every node agrees" {
        mm_migrate_rest 0 1
        assert_equal 0 [cn 0 cluster countkeysinslot $slot]
        assert_equal $nkeys [cn 1 cluster countkeysinslot $slot]
        # everything moved, the slot still open: the source sends every key to the target
        mm_rows 0 [list \
            {} [list get $::mm(present)] [mm_ask 1] \
            {} [list mget $::mm(present) $::mm(moved)] [mm_ask 1] \
        ] "7.0 source, all moved"
        mm_rows 1 [list \
            {asking} [list mget $::mm(present) $::mm(moved)] "*2\r\n[mm_bulk $::mm(pv)][mm_bulk $::mm(mv)]" \
        ] "our target, all moved"
        mm_assert_keys 1 $keys asking
        assert_equal OK [cn 1 cluster setslot $slot node $id1]
        assert_equal {} [cluster_open_slots 1]
        assert_equal OK [cn 0 cluster setslot $slot node $id1]
        assert_equal {} [cluster_open_slots 0]
        mm_wait_owner $all 1
        cluster_wait_ok $all
        lassign [cluster_cli --cluster check 127.0.0.1:[cnode 0 port]] code out
        assert_equal 0 $code $out
        assert_contains {[OK] All nodes agree about slots configuration.} $out
        assert_not_contains {[WARNING]} $out
        mm_assert_keys 1 $keys
        mm_bystander_rows {0 2 5} 1
        assert_equal [mm_bulk $::mm(pv)] [cluster_raw 1 {} get $::mm(present)]
        assert_equal $nkeys [cn 1 cluster countkeysinslot $slot]
        assert_equal 0 [cn 0 dbsize]
        # 3: the 7.0 replica of our primary holds the same, expire times included
        assert_equal 1 [cn 1 wait 1 5000]
        mm_assert_same 1 4 $keys
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
    }

    test "2: after the 7.0 primary's migration, its READONLY replicas (ours and 7.0) answer MOVED to the new owner" {
        assert_equal 3 [cn 0 wait 3 5000]
        set rows [list \
            {readonly} [list get $::mm(moved)] [mm_moved 1] \
            {readonly} [list get $::mm(present)] [mm_moved 1] \
            {readonly} [list get $::mm(gone)] [mm_moved 1] \
            {readonly asking} [list get $::mm(moved)] [mm_moved 1] \
            {} [list get $::mm(moved)] [mm_moved 1] \
        ]
        mm_rows {6 3 7} $rows "replica of the former owner"
        foreach i {3 6 7} {
            assert_equal {} [cluster_open_slots $i] "node $i"
            assert_equal 0 [cn $i cluster countkeysinslot $slot] "node $i"
            assert_equal 0 [cn $i dbsize] "node $i"
        }
    }

    test "1+3: back from us to 7.0: IMPORTING on 7.0, MIGRATING on ours (+OK with its 7.0 replica stopped); redirects" {
        assert_equal OK [cn 0 cluster setslot $slot importing $id1]
        mm_with_stopped 4 {
            catch {cn 1 cluster setslot $slot migrating $id0} r
        }
        if {$r ne "OK"} { catch {cn 1 cluster setslot $slot migrating $id0} }
        assert_equal OK $r "SETSLOT MIGRATING on our primary while its 7.0 replica is stopped"
        assert_equal [list "\[$slot-<-$id1\]"] [cluster_open_slots 0]
        assert_equal [list "\[$slot->-$id0\]"] [cluster_open_slots 1]
        foreach i {3 6 7} { assert_equal {} [cluster_open_slots $i] "node $i" }
        set pv [mm_bulk $::mm(pv)]
        mm_rows 1 [list \
            {} [list get $::mm(present)] $pv \
            {} [list get $::mm(gone)] [mm_ask 0] \
            {} [list mget $::mm(present) $::mm(gone)] $::mm_tryagain \
        ] "our source, nothing moved"
        mm_rows 0 [list \
            {} [list get $::mm(present)] [mm_moved 1] \
            {asking} [list get $::mm(present)] $::mm_nil \
        ] "7.0 target, nothing moved"
    }

    test "3: a 7.0 replica full-syncing from our primary while it migrates a slot loads the snapshot" {
        set full [info_field [cn 1 info stats] sync_full]
        cluster_restart 4
        mm_wait_link_up 4
        assert_equal [expr {$full + 1}] [info_field [cn 1 info stats] sync_full]
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
        assert_equal $nkeys [cn 4 cluster countkeysinslot $slot]
        set log [exec cat [cnode 4 log]]
        assert_equal 2 [regexp -all {MASTER <-> REPLICA sync: Finished with success} $log]
        # the open slot stays ours: the replica's view has none (7.0 ignores the aux field)
        assert_equal {} [cluster_open_slots 4]
        assert_equal [list "\[$slot->-$id0\]"] [cluster_open_slots 1]
        mm_assert_same 1 4 [list $::mm(present) "{$tag}bighash" "{$tag}hashttl" "{$tag}ttl:3"]
    }

    test "1: our MIGRATE sends RESTORE-ASKING to the 7.0 target: ASK, TRYAGAIN from us, ASKING on 7.0; values and TTLs" {
        assert_equal OK [cn 1 migrate 127.0.0.1 [cnode 0 port] "" 0 5000 keys {*}$batch1]
        assert_equal [llength $batch1] [cn 0 cluster countkeysinslot $slot]
        assert_equal [expr {$nkeys - [llength $batch1]}] [cn 1 cluster countkeysinslot $slot]
        mm_source_rows 1 0
        mm_target_rows 1 0
        mm_bystander_rows {2 5} 1
        mm_assert_keys 0 $batch1 asking
        mm_assert_keys 1 [lrange $keys 10 49]
        # 2: the target's replicas have no importing state: READONLY reads go to the owner
        assert_equal 3 [cn 0 wait 3 5000]
        mm_rows {6 3 7} [list \
            {readonly} [list get $::mm(moved)] [mm_moved 1] \
            {readonly asking} [list get $::mm(moved)] [mm_moved 1] \
            {readonly} [list get $::mm(present)] [mm_moved 1] \
        ] "replica of the 7.0 target"
        foreach i {3 6 7} {
            assert_equal {} [cluster_open_slots $i] "node $i"
            assert_equal [llength $batch1] [cn $i cluster countkeysinslot $slot] "node $i"
        }
        # 3: MIGRATE's DEL of the moved keys reaches our primary's 7.0 replica
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal [expr {$nkeys - [llength $batch1]}] [cn 4 cluster countkeysinslot $slot]
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
    }

    test "1: the rest moves back; SETSLOT NODE on the 7.0 target, then on ours; all agree, redis-cli check clean, no key lost" {
        mm_migrate_rest 1 0
        assert_equal 0 [cn 1 cluster countkeysinslot $slot]
        assert_equal $nkeys [cn 0 cluster countkeysinslot $slot]
        mm_rows 1 [list {} [list get $::mm(present)] [mm_ask 0]] "our source, all moved"
        mm_assert_keys 0 $keys asking
        assert_equal OK [cn 0 cluster setslot $slot node $id0]
        assert_equal {} [cluster_open_slots 0]
        assert_equal OK [cn 1 cluster setslot $slot node $id0]
        assert_equal {} [cluster_open_slots 1]
        mm_wait_owner $all 0
        cluster_wait_ok $all
        foreach i $all { assert_equal {} [cluster_open_slots $i] "node $i" }
        lassign [cluster_cli --cluster check 127.0.0.1:[cnode 1 port]] code out
        assert_equal 0 $code $out
        assert_contains {[OK] All nodes agree about slots configuration.} $out
        assert_contains {[OK] All 16384 slots covered.} $out
        assert_not_contains {[WARNING]} $out
        # no key lost, none duplicated, every value and TTL intact
        mm_assert_keys 0 $keys
        assert_equal $nkeys [cn 0 dbsize]
        assert_equal 1 [cn 1 dbsize]
        assert_equal 0 [cn 2 dbsize]
        mm_bystander_rows {1 2 4 5} 0
        assert_equal [mm_bulk $::mm(pv)] [cluster_raw 0 {} get $::mm(present)]
        assert_equal 3 [cn 0 wait 3 5000]
        foreach i {3 6 7} { mm_assert_same 0 $i $keys }
    }

    test "3: our primary's 7.0 replica afterwards: link up, same data, offsets equal, writes arrive, no error logged" {
        assert_equal OK [cn 1 set $k1 after-migration]
        assert_equal 1 [cn 1 wait 1 5000]
        assert_equal [mm_bulk after-migration] [cluster_raw 4 {readonly} get $k1]
        assert_equal up [info_field [cn 4 info replication] master_link_status]
        assert_equal [cn 1 dbsize] [cn 4 dbsize]
        assert_equal 0 [cn 4 cluster countkeysinslot $slot]
        wait_for_condition 100 50 {
            [info_field [cn 4 info replication] slave_repl_offset] ==
            [info_field [cn 1 info replication] master_repl_offset]
        } else {
            fail "7.0 replica offset [info_field [cn 4 info replication] slave_repl_offset], primary [info_field [cn 1 info replication] master_repl_offset]"
        }
        set log [exec cat [cnode 4 log]]
        assert_equal {} [lsearch -all -inline [split $log \n] *CRITICAL*]
        assert_match "*slave0:ip=127.0.0.1,port=[cnode 4 port],state=online*" [cn 1 info replication]
    }
}
