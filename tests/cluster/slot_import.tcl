# Atomic slot migration, the target's side: CLUSTER SYNCSLOTS ESTABLISH / RESTORE / APPLY /
# HANDOVER / ABORT, as a source drives them over a client connection, and CLUSTER
# GETSLOTMIGRATIONS. 2 primaries (A: 0-8191, B: 8192-16383) with a replica each; the test
# plays the source A: it makes the payloads with DUMP on A and sends them to B. Staged keys
# must stay invisible on B and its replica until the handover, then be there with their values
# and TTLs. The AOF of B (appendonly yes, fsync always) must replay a finished import and drop
# an unfinished one. Beyond Valkey 8 (whose nodes do not know SYNCSLOTS: every command here
# answers "unknown subcommand" there).

proc si_name {} {
    set s {}
    for {set i 0} {$i < 40} {incr i} { append s [format %x [expr {int(rand() * 16)}]] }
    return $s
}

# The field of one job in CLUSTER GETSLOTMIGRATIONS of node idx ({} if no such job).
proc si_job_field {idx name field} {
    foreach job [cn $idx cluster getslotmigrations] {
        if {[dict get $job name] eq $name} { return [dict get $job $field] }
    }
    return {}
}

# Nothing of slot `slot` (or any key) visible on node idx: DBSIZE, KEYS, SCAN, RANDOMKEY,
# COUNTKEYSINSLOT, GETKEYSINSLOT, INFO keyspace, DEBUG DIGEST; `dbsize` keys are expected
# in db 0 (from earlier tests), none of this slot.
proc si_assert_invisible {idx slot dbsize} {
    set c [cluster_client $idx]
    $c readonly
    assert_equal $dbsize [$c dbsize] "node $idx DBSIZE"
    assert_equal 0 [$c cluster countkeysinslot $slot] "node $idx COUNTKEYSINSLOT $slot"
    assert_equal {} [$c cluster getkeysinslot $slot 100] "node $idx GETKEYSINSLOT $slot"
    set keys [$c keys *]
    assert_equal $dbsize [llength $keys] "node $idx KEYS *"
    foreach k $keys { assert_not_equal $slot [$c cluster keyslot $k] }
    if {$dbsize == 0} {
        assert_equal {0 {}} [$c scan 0 count 1000] "node $idx SCAN"
        assert_equal {} [$c randomkey] "node $idx RANDOMKEY"
        assert_no_match "*db0:*" [$c info keyspace]
        assert_equal [string repeat 0 40] [$c debug digest] "node $idx DEBUG DIGEST"
    } else {
        assert_match "*db0:keys=$dbsize,*" [$c info keyspace]
    }
}

start_cluster {primaries 2 replicas 1 create manual config {enable-debug-command yes appendonly yes appendfsync always}} {
    set A 0; set B 1; set AR 2; set BR 3
    set idA [cluster_myid $A]; set idB [cluster_myid $B]; set idAR [cluster_myid $AR]

    # Three slots of A, each with a hash tag of its own.
    set tags {}; set slots {}
    foreach p {si1 si2 si3 si4 si5} {
        set t [cluster_key_in_slot_of $A $p]
        lappend tags $t; lappend slots [cn $A cluster keyslot $t]
    }
    lassign $tags t1 t2 t3 t4 t5
    lassign $slots s1 s2 s3 s4 s5

    test "SYNCSLOTS ESTABLISH errors: each rule, exact replies" {
        set c [cluster_client $B]
        set n [si_name]
        set nobody [string repeat 0 40]
        set last [expr {16383}]
        foreach {args err} [list \
            [list $nobody $s1 $s1] "ERR Unknown source node $nobody" \
            [list $idAR $s1 $s1] "ERR Source node $idAR is not a primary" \
            [list $idA x $s1] "ERR Invalid or out of range slot" \
            [list $idA $s1 16384] "ERR Invalid or out of range slot" \
            [list $idA 10 9] "ERR start slot number 10 is greater than end slot number 9" \
            [list $idA 8191 8192] "ERR I'm already the owner of hash slot 8192" \
        ] {
            assert_equal $err [catch {$c cluster syncslots establish $n {*}$args} e; set e] $args
        }
        assert_error "ERR wrong number of arguments*" {$c cluster syncslots establish $n $idA $s1}
        # A slot of neither: B gives up one of its own in its view only.
        assert_equal OK [cn $B cluster delslots $last]
        assert_error "ERR Hash slot $last is not owned by the source node $idA" {
            $c cluster syncslots establish $n $idA $last $last
        }
        assert_equal OK [cn $B cluster addslots $last]
        # Legacy open slots.
        assert_equal OK [cn $B cluster setslot $s1 importing $idA]
        assert_equal "ERR Hash slot $s1 is migrating or importing (CLUSTER SETSLOT) on this node" \
            [catch {$c cluster syncslots establish $n $idA $s1 $s1} e; set e]
        assert_equal OK [cn $B cluster setslot $s1 stable]
        # A slot already in a job, a name in use.
        assert_equal OK [$c cluster syncslots establish $n $idA $s1 $s1]
        set n2 [si_name]
        assert_equal "ERR Hash slot $s1 is already being imported by job $n" \
            [catch {$c cluster syncslots establish $n2 $idA $s2 $s2 $s1 $s1} e; set e]
        assert_equal "ERR Slot migration job $n already exists" \
            [catch {$c cluster syncslots establish $n $idA $s2 $s2} e; set e]
        assert_equal OK [$c cluster syncslots abort $n]
        assert_equal "ERR Slot import job $n is not running (cancelled)" \
            [catch {$c cluster syncslots abort $n} e; set e]
        assert_equal "ERR No slot import job named $n2" \
            [catch {$c cluster syncslots abort $n2} e; set e]
        # Only a primary imports; SYNCSLOTS may not be queued in MULTI.
        set r [cluster_client $BR]
        assert_equal "ERR Slots can only be imported by a primary" \
            [catch {$r cluster syncslots establish $n2 $idA $s1 $s1} e; set e]
        $c multi
        assert_error "ERR Command not allowed inside a transaction" {
            $c cluster syncslots establish $n2 $idA $s1 $s1
        }
        $c discard
        # Keys and commands an import refuses.
        assert_equal OK [$c cluster syncslots establish $n2 $idA $s1 $s1]
        assert_equal "ERR Key's hash slot $s2 is not imported by job $n2" \
            [catch {$c cluster syncslots restore $n2 "{$t2}k" -1 [cn $A dump nosuchkey]} e; set e]
        assert_equal "ERR Key's hash slot $s2 is not imported by job $n2" \
            [catch {$c cluster syncslots apply $n2 set "{$t2}k" v} e; set e]
        assert_equal "ERR SYNCSLOTS APPLY needs a command with keys" \
            [catch {$c cluster syncslots apply $n2 flushall} e; set e]
        assert_equal "ERR SYNCSLOTS APPLY takes the write commands of keys only, not 'get'" \
            [catch {$c cluster syncslots apply $n2 get "{$t1}k"} e; set e]
        assert_equal "ERR SYNCSLOTS APPLY cannot run 'move'" \
            [catch {$c cluster syncslots apply $n2 move "{$t1}k" 1} e; set e]
        # RESTORE takes several keys: all or none of them are staged (COPY answers 0 for a key
        # not staged).
        assert_equal OK [cn $A set "{$t1}src" v]
        set p [cn $A dump "{$t1}src"]
        assert_error "ERR wrong number of arguments*" {
            $c cluster syncslots restore $n2 "{$t1}a" -1 $p "{$t1}b"
        }
        assert_equal "ERR Key's hash slot $s2 is not imported by job $n2" \
            [catch {$c cluster syncslots restore $n2 "{$t1}a" -1 $p "{$t2}k" -1 $p} e; set e]
        assert_equal 0 [$c cluster syncslots apply $n2 copy "{$t1}a" "{$t1}a2"]
        assert_equal OK [$c cluster syncslots restore $n2 "{$t1}a" -1 $p "{$t1}b" 1000 $p]
        assert_equal 1 [$c cluster syncslots apply $n2 copy "{$t1}a" "{$t1}a2"]
        assert_equal 1 [$c cluster syncslots apply $n2 copy "{$t1}b" "{$t1}b2"]
        assert_equal 1 [cn $A del "{$t1}src"]
        # COPY within the staging db (it once looked its destination up among the served dbs
        # by the staging db's id, and the node died).
        assert_equal OK [$c cluster syncslots apply $n2 set "{$t1}k" v]
        assert_equal 1 [$c cluster syncslots apply $n2 copy "{$t1}k" "{$t1}k2"]
        assert_equal 0 [$c cluster syncslots apply $n2 copy "{$t1}nokey" "{$t1}k3"]
        assert_equal 0 [$c cluster syncslots apply $n2 copy "{$t1}k" "{$t1}k2"]
        assert_equal 0 [cn $B cluster countkeysinslot $s1]
        assert_equal OK [$c cluster syncslots abort $n2]
        # What a job's rules cannot see: a replica that would miss the staged keys (Debian's
        # redis-server 7.0, replicating from B: it ignores CLUSTER SYNCSLOTS, and would lack the
        # slots after the handover), and memory.
        set n3 [si_name]
        set ours $::cfg(server)
        set ::cfg(server) [require_peer /usr/bin/redis-server redis-server]
        try {
            start_server {} {
                set ::cfg(server) $ours
                assert_equal OK [r replicaof [cnode $B host] [cnode $B port]]
                wait_for_condition 100 100 {
                    [string match "*master_link_status:up*" [r info replication]]
                } else { fail "redis-server never synced from node $B" }
                # named by its listening port, as INFO replication lists it
                assert_equal "ERR Replica 127.0.0.1:[srv 0 port] of this node cannot stage slot imports (not a node of this kind)" \
                    [catch {$c cluster syncslots establish $n3 $idA $s1 $s1} e; set e]
            }
        } finally {
            set ::cfg(server) $ours
        }
        wait_for_condition 100 100 {
            [info_field [cn $B info replication] connected_slaves] == 1
        } else { fail "node $B still counts the gone replica" }
        assert_equal OK [cn $B config set maxmemory 1]
        assert_equal "ERR Not enough memory to import slots: used_memory is at maxmemory" \
            [catch {$c cluster syncslots establish $n3 $idA $s1 $s1} e; set e]
        assert_equal OK [cn $B config set maxmemory 0]
        assert_equal OK [$c cluster syncslots establish $n3 $idA $s1 $s1]
        assert_equal OK [$c cluster syncslots abort $n3]
    }

    test "Staged keys are invisible on the target and its replica until HANDOVER" {
        # The source's data, of several types, with and without TTL.
        cn $A set "{$t1}str" hello
        cn $A hset "{$t1}h" f1 v1 f2 v2
        cn $A rpush "{$t1}l" a b c
        cn $A sadd "{$t1}set" x y
        cn $A zadd "{$t1}z" 1 m 2.5 n
        cn $A set "{$t1}ttl" v px 1000000
        cn $A xadd "{$t1}st" 1-1 f v
        set abs [cn $A pexpiretime "{$t1}ttl"]
        set name [si_name]
        # The source's connection lives on into the next test (closing it would end the job).
        set ::si_src [::resp::client [cnode $B host] [cnode $B port]]
        set c $::si_src
        assert_equal OK [$c cluster syncslots establish $name $idA $s1 $s1 $s2 $s2]
        foreach k {str h l set z st} {
            assert_equal OK [$c cluster syncslots restore $name "{$t1}$k" -1 [cn $A dump "{$t1}$k"]]
        }
        assert_equal OK [$c cluster syncslots restore $name "{$t1}ttl" $abs [cn $A dump "{$t1}ttl"]]
        # An already expired one: staged as it is, deleted by the source's DEL later.
        assert_equal OK [$c cluster syncslots restore $name "{$t1}old" 1000 [cn $A dump "{$t1}str"]]
        foreach k {str h l set z ttl st} { cn $A del "{$t1}$k" }
        # Writes the source propagated, each with the command's own reply.
        set abs2 [expr {[clock milliseconds] + 2000000}]
        assert_equal OK [$c cluster syncslots apply $name set "{$t1}a" 1]
        assert_equal 1 [$c cluster syncslots apply $name del "{$t1}str"]
        assert_equal 1 [$c cluster syncslots apply $name hset "{$t1}h" f3 v3]
        assert_equal 1 [$c cluster syncslots apply $name pexpireat "{$t1}h" $abs2]
        assert_equal 1.5 [$c cluster syncslots apply $name incrbyfloat "{$t1}f" 1.5]
        assert_equal OK [$c cluster syncslots apply $name rename "{$t1}l" "{$t1}l2"]
        assert_equal OK [$c cluster syncslots apply $name set "{$t1}ex" v ex 1000]
        assert_equal OK [$c cluster syncslots apply $name set "{$t2}other" w]
        # The expired staged key is found, not deleted (its TTL is the source's business).
        assert_equal 1 [$c cluster syncslots apply $name del "{$t1}old"]
        # SIZEHINT: a value coming in pieces gets its whole table at once (checked after the
        # handover); a key not there is left alone.
        assert_equal OK [$c cluster syncslots sizehint $name "{$t1}z" 100000]
        assert_equal OK [$c cluster syncslots sizehint $name "{$t1}none" 100000]
        assert_error "ERR Invalid element count" {$c cluster syncslots sizehint $name "{$t1}z" -1}
        assert_error "ERR Key's hash slot $s3 is not imported by job $name" \
            {$c cluster syncslots sizehint $name "{$t3}z" 10}
        assert_error "ERR wrong number of arguments*" {$c cluster syncslots sizehint $name "{$t1}z"}
        assert_equal receiving-snapshot [si_job_field $B $name state]
        assert_equal IMPORT [si_job_field $B $name operation]
        assert_equal "$s1-$s1 $s2-$s2" [si_job_field $B $name slot_ranges]
        assert_equal $idA [si_job_field $B $name source_node]
        assert_equal $idB [si_job_field $B $name target_node]
        cluster_wait_replicas_synced $B
        assert_equal occurring-on-primary [si_job_field $BR $name state]
        foreach idx [list $B $BR] {
            si_assert_invisible $idx $s1 0
            si_assert_invisible $idx $s2 0
        }
        # A GET on B is still redirected to A, which does not have the keys any more.
        assert_error "MOVED $s1 *" {cn $B get "{$t1}a"}
        set ::si_name1 $name
        set ::si_abs [list $abs $abs2]
    }

    test "HANDOVER: the target owns the slots, everywhere, with the staged keys" {
        set name $::si_name1
        lassign $::si_abs abs abs2
        set c $::si_src
        set epoch_before [dict get [cluster_self $B] epoch]
        assert_equal OK [$c cluster syncslots handover $name]
        assert_morethan [dict get [cluster_self $B] epoch] $epoch_before
        assert_equal $B [cluster_slot_owner $s1 $B]
        assert_equal $B [cluster_slot_owner $s2 $B]
        # A accepts B's newer claim within 5 s; so do the replicas.
        foreach idx [list $A $AR $BR] {
            wait_for_condition 50 100 {
                [cluster_slot_owner $s1 $idx] == $B && [cluster_slot_owner $s2 $idx] == $B
            } else { fail "node $idx does not see B own slots $s1 and $s2" }
        }
        assert_equal success [si_job_field $B $name state]
        cluster_wait_replicas_synced $B
        assert_equal success [si_job_field $BR $name state]
        set r [cluster_client $BR]
        $r readonly
        foreach cl [list $c $r] {
            assert_equal 1 [$cl get "{$t1}a"]
            assert_equal {} [$cl get "{$t1}str"]
            assert_equal {f1 v1 f2 v2 f3 v3} [$cl hgetall "{$t1}h"]
            assert_equal $abs2 [$cl pexpiretime "{$t1}h"]
            assert_equal 1.5 [$cl get "{$t1}f"]
            assert_equal 0 [$cl exists "{$t1}l"]
            assert_equal {a b c} [$cl lrange "{$t1}l2" 0 -1]
            assert_equal {x y} [lsort [$cl smembers "{$t1}set"]]
            assert_equal {m 1 n 2.5} [$cl zrange "{$t1}z" 0 -1 withscores]
            assert_equal v [$cl get "{$t1}ttl"]
            assert_equal $abs [$cl pexpiretime "{$t1}ttl"]
            assert_equal -1 [$cl pexpiretime "{$t1}a"]
            assert_equal {{1-1 {f v}}} [$cl xrange "{$t1}st" - +]
            assert_equal 0 [$cl exists "{$t1}old"]
            assert_equal w [$cl get "{$t2}other"]
        }
        # The hinted sorted set: a table for 100000 members, here and on the replica.
        foreach cl [list $c $r] {
            assert_equal skiplist [$cl object encoding "{$t1}z"]
            assert_match "*table size: 131072*" [$cl debug htstats-key "{$t1}z"]
        }
        # SET EX left as an absolute time: the replica expires it at the same instant.
        assert_equal [$c pexpiretime "{$t1}ex"] [$r pexpiretime "{$t1}ex"]
        assert_morethan [$c pexpiretime "{$t1}ex"] 0
        assert_equal 9 [$c cluster countkeysinslot $s1]
        assert_equal 10 [$c dbsize]
        assert_equal 10 [$r dbsize]
        assert_equal [$c debug digest] [$r debug digest]
    }

    test "ABORT drops what was staged, on the target and its replica" {
        set c [cluster_client $B]
        set name [si_name]
        cn $A set "{$t3}k" v
        assert_equal OK [$c cluster syncslots establish $name $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots restore $name "{$t3}k" -1 [cn $A dump "{$t3}k"]]
        assert_equal OK [$c cluster syncslots apply $name set "{$t3}k2" v2]
        # A slot under an import takes no legacy migration state meanwhile.
        assert_error "ERR Slot $s3 is in an atomic slot migration*" \
            {cn $B cluster setslot $s3 importing $idA}
        assert_equal OK [$c cluster syncslots abort $name]
        assert_equal cancelled [si_job_field $B $name state]
        cluster_wait_replicas_synced $B
        assert_equal cancelled [si_job_field $BR $name state]
        assert_equal $A [cluster_slot_owner $s3 $B]
        foreach idx [list $B $BR] { si_assert_invisible $idx $s3 10 }
        # The slot is free for a new job, which starts empty.
        set name2 [si_name]
        assert_equal OK [$c cluster syncslots establish $name2 $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots abort $name2]
    }

    test "The source's connection closes before HANDOVER: RESUME on a new one says what was taken" {
        set c [cluster_client $B]
        set name [si_name]
        assert_equal OK [$c cluster syncslots establish $name $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots restore $name "{$t3}k" -1 [cn $A dump "{$t3}k"]]
        assert_equal OK [$c cluster syncslots apply $name set "{$t3}k2" v2]
        assert_error "*WRONGTYPE*" {$c cluster syncslots apply $name lpush "{$t3}k2" x}
        $c close
        wait_for_condition 50 100 {[string match "*waiting for it to resume" [si_job_field $B $name message]]} else {
            fail "B did not notice the closed connection: [si_job_field $B $name message]"
        }
        assert_equal receiving-snapshot [si_job_field $B $name state]
        set c2 [cluster_client $B]
        assert_error "ERR Slot import job $name is not from node [string repeat 0 40]" \
            {$c2 cluster syncslots resume $name [string repeat 0 40]}
        assert_error "ERR No slot import job named nosuchjob" \
            {$c2 cluster syncslots resume nosuchjob $idA}
        # Three requests taken (an error is taken too): the source sends again what follows.
        assert_equal 3 [$c2 cluster syncslots resume $name $idA]
        # RESERVE (a big slot's walk begins: its staged table is sized) is one more.
        assert_error "ERR Hash slot $s1 is not imported by job $name" \
            {$c2 cluster syncslots reserve $name $s1 100000}
        assert_error "ERR Invalid key count" {$c2 cluster syncslots reserve $name $s3 -1}
        assert_error "ERR Invalid or out of range slot" {$c2 cluster syncslots reserve $name 16384 1}
        assert_equal OK [$c2 cluster syncslots reserve $name $s3 100000]
        $c2 close
        set c2 [cluster_client $B]
        assert_equal 7 [$c2 cluster syncslots resume $name $idA]
        assert_equal {} [si_job_field $B $name message]
        assert_equal OK [$c2 cluster syncslots apply $name set "{$t3}k3" v3]
        # A second connection resuming takes the job from the first, which is closed.
        set c3 [cluster_client $B]
        assert_equal 8 [$c3 cluster syncslots resume $name $idA]
        assert_error "*" {$c2 ping}
        si_assert_invisible $B $s3 10
        assert_equal OK [$c3 cluster syncslots abort $name]
    }

    test "... and without a RESUME within twice the node timeout and a second, the job ends" {
        set c [cluster_client $B]
        set name [si_name]
        assert_equal OK [$c cluster syncslots establish $name $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots apply $name set "{$t3}k2" v2]
        $c close
        set closed [clock milliseconds]
        wait_for_condition 100 100 {[si_job_field $B $name state] eq "failed"} else {
            fail "B did not end the job of a closed connection"
        }
        # node timeout 3000 ms here: 7 s, give or take a cron tick
        assert {[clock milliseconds] - $closed >= 6900}
        assert_equal "the source's connection closed before the handover and it did not resume" \
            [si_job_field $B $name message]
        cluster_wait_replicas_synced $B
        assert_equal cancelled [si_job_field $BR $name state]
        foreach idx [list $B $BR] { si_assert_invisible $idx $s3 10 }
        assert_equal $A [cluster_slot_owner $s3 $B]
    }

    test "A new ESTABLISH of a job's slots from its source on another connection replaces it" {
        # As after a partition: the source gave the old job up, its connection not seen closed.
        set c [cluster_client $B]
        set name [si_name]
        assert_equal OK [$c cluster syncslots establish $name $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots apply $name set "{$t3}k2" v2]
        set c2 [cluster_client $B]
        set name2 [si_name]
        assert_equal OK [$c2 cluster syncslots establish $name2 $idA $s3 $s3]
        assert_equal cancelled [si_job_field $B $name state]
        assert_equal "replaced by a new import of its slots" [si_job_field $B $name message]
        assert_equal receiving-snapshot [si_job_field $B $name2 state]
        assert_equal OK [$c2 cluster syncslots abort $name2]
        cluster_wait_replicas_synced $B
        foreach idx [list $B $BR] { si_assert_invisible $idx $s3 10 }
    }

    test "An AOF rewrite waits for a running import, on the target and on its replica" {
        # A rewritten AOF cannot carry staged keys: on the target the job used to fail; on its
        # replica the new base would miss ESTABLISH and what was staged, and a restart from it
        # would replay a HANDOVER of a job it never saw.
        set c [cluster_client $B]
        set name [si_name]
        assert_equal OK [$c cluster syncslots establish $name $idA $s3 $s3]
        assert_equal OK [$c cluster syncslots apply $name set "{$t3}k2" v2]
        cluster_wait_replicas_synced $B
        foreach idx [list $B $BR] {
            set before [info_field [cn $idx info persistence] aof_rewrites]
            assert_equal "Background append only file rewriting scheduled" [cn $idx bgrewriteaof]
            after 300
            assert_equal 1 [info_field [cn $idx info persistence] aof_rewrite_scheduled] "node $idx"
            assert_equal $before [info_field [cn $idx info persistence] aof_rewrites] "node $idx"
            dict set rewrites $idx $before
        }
        assert_equal receiving-snapshot [si_job_field $B $name state]
        assert_equal OK [$c cluster syncslots abort $name]
        foreach idx [list $B $BR] {
            set before [dict get $rewrites $idx]
            wait_for_condition 100 100 {
                [info_field [cn $idx info persistence] aof_rewrites] > $before &&
                [info_field [cn $idx info persistence] aof_rewrite_in_progress] == 0
            } else {
                fail "node $idx never ran the scheduled rewrite"
            }
        }
        assert_equal cancelled [si_job_field $B $name state]
        assert_equal "aborted by the source" [si_job_field $B $name message]
    }

    test "AOF: a restart replays the finished import and drops an unfinished one" {
        lassign $::si_abs abs abs2
        set c [cluster_client $B]
        set name [si_name]
        cn $A set "{$t4}src" payload
        assert_equal OK [$c cluster syncslots establish $name $idA $s4 $s4]
        assert_equal OK [$c cluster syncslots restore $name "{$t4}k2" -1 [cn $A dump "{$t4}src"]]
        assert_equal OK [$c cluster syncslots apply $name set "{$t4}k" v]
        # Killed: nothing after these in its AOF (appendfsync always), no ABORT.
        cluster_kill $B
        cluster_restart $B
        cluster_wait_state $B ok
        assert_equal failed [si_job_field $B $name state]
        assert_equal "unfinished when the AOF load ended" [si_job_field $B $name message]
        assert_equal 0 [cn $B cluster countkeysinslot $s4]
        assert_equal $A [cluster_slot_owner $s4 $B]
        assert_equal $B [cluster_slot_owner $s1 $B]
        assert_equal 10 [cn $B dbsize]
        assert_equal 1 [cn $B get "{$t1}a"]
        assert_equal {f1 v1 f2 v2 f3 v3} [cn $B hgetall "{$t1}h"]
        assert_equal $abs [cn $B pexpiretime "{$t1}ttl"]
        assert_equal $abs2 [cn $B pexpiretime "{$t1}h"]
        assert_equal w [cn $B get "{$t2}other"]
        # The replica, resynced from the restarted primary, dropped the job too.
        wait_for_condition 100 100 {[si_job_field $BR $name state] eq "failed"} else {
            fail "B's replica kept the unfinished job"
        }
        cluster_wait_replicas_synced $B
        assert_equal 10 [cn $BR dbsize]
        assert_equal 0 [cn $BR cluster countkeysinslot $s4]
    }

    test "HANDOVER on a slow disk: the target serves on while its claim is fsynced; the slots' writes, the reply and the claim wait" {
        set c [cluster_client $B]
        set name [si_name]
        cn $A set "{$t5}k" v
        assert_equal OK [$c cluster syncslots establish $name $idA $s5 $s5]
        assert_equal OK [$c cluster syncslots restore $name "{$t5}k" -1 [cn $A dump "{$t5}k"]]
        assert_equal OK [cn $B debug config-fsync-delay 2000]
        $c deferred 1
        $c cluster syncslots handover $name
        set t0 [clock milliseconds]
        after 300
        # B's loop runs: it answers at once and serves the moved key...
        set t [clock milliseconds]
        assert_equal PONG [cn $B ping]
        assert_lessthan [expr {[clock milliseconds] - $t}] 300
        assert_equal v [cn $B get "{$t5}k"]
        # ...but holds a write to the slot,
        set w [socket [cnode $B host] [cnode $B port]]
        fconfigure $w -translation binary
        puts -nonewline $w "SET {$t5}k w2\r\n"
        flush $w
        assert_equal {} [read_for $w 300]
        # and no other node has heard of the claim, though B's pings went on.
        foreach idx [list $A $AR $BR] { assert_equal $A [cluster_slot_owner $s5 $idx] "node $idx" }
        assert_equal receiving-snapshot [si_job_field $B $name state]
        # Once on disk: the reply, then the held write, then the claim everywhere.
        assert_equal OK [$c read]
        assert_morethan_equal [expr {[clock milliseconds] - $t0}] 1900
        assert_equal "+OK\r\n" [read_for $w 500]
        close $w
        assert_equal w2 [cn $B get "{$t5}k"]
        assert_equal success [si_job_field $B $name state]
        foreach idx [list $A $AR $BR] {
            wait_for_condition 50 100 {[cluster_slot_owner $s5 $idx] == $B} else {
                fail "node $idx does not see B own slot $s5"
            }
        }
        assert_equal OK [cn $B debug config-fsync-delay 0]
        $c close
        cluster_wait_replicas_synced $B
        cn $BR readonly
        assert_equal w2 [cn $BR get "{$t5}k"]
        cn $BR readwrite
    }
}
