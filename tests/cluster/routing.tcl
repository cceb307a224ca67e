# Routing of client commands in a stable cluster (no slot migration), end to end: the order
# of checks (src/cluster/route.h), the non-migration rows of the decision tables for a primary
# and a replica (tests/cc/route_test.cc), MULTI/EXEC, reply bytes, plus ASKING with no
# migration, READWRITE, and error statistics.  3 primaries + 1 replica each, built by hand
# (MEET / ADDSLOTSRANGE / REPLICATE), and a 7th node left alone, with no slots.

# A key served by primary p, and one more key served by p in another slot.
proc rt_key {p {prefix rt}} { return [cluster_key_in_slot_of $p $prefix] }
proc rt_slot {key} { return [cn 0 cluster keyslot $key] }
proc rt_moved {key} {
    set slot [rt_slot $key]
    return "MOVED $slot 127.0.0.1:[cnode [cluster_slot_owner $slot] port]"
}

# The exact first reply line for a command sent on a raw socket to node idx.
proc rt_raw_line {idx args} {
    set fd [socket 127.0.0.1 [cnode $idx port]]
    fconfigure $fd -translation binary -blocking 1
    puts -nonewline $fd [::resp::encode_command {*}$args]
    flush $fd
    gets $fd line
    close $fd
    return "$line\n"
}

start_cluster {primaries 3 replicas 1 nodes 7 create manual} {
    set ::free 6   ;# the node that never met the others

    test "Manual creation: primaries 0-2 with replicas 3-5, node 6 alone" {
        assert_equal {0 1 2} [cluster_primaries]
        foreach p {0 1 2} { assert_equal [expr {$p + 3}] [cluster_replicas_of $p] }
        assert_equal {{0 5460} {5461 10921} {10922 16383}} \
            [lmap r [cn 0 cluster slots] { lrange $r 0 1 }]
        assert_equal 1 [cluster_info_field $::free cluster_known_nodes]
    }

    test "The owner serves reads and writes of its slots" {
        foreach p {0 1 2} {
            set k [rt_key $p]
            assert_equal OK [cn $p set $k v$p]
            assert_equal v$p [cn $p get $k]
            assert_equal 1 [cn $p exists $k]
            assert_equal 1 [cn $p del $k]
        }
    }

    test "A primary that does not own the slot answers -MOVED <slot> <ip>:<port>, reads and writes" {
        foreach owner {0 1 2} {
            set k [rt_key $owner]
            set slot [rt_slot $k]
            set moved "MOVED $slot 127.0.0.1:[cnode $owner port]"
            foreach other {0 1 2} {
                if {$other == $owner} continue
                foreach cmd [list [list get $k] [list set $k x] [list incr $k] \
                                 [list lpush $k a] [list exists $k] [list mget $k $k]] {
                    assert_equal $moved [assert_error * {cn $other {*}$cmd}] "$cmd on $other"
                }
            }
        }
        # nothing was written anywhere
        foreach p {0 1 2} { assert_equal 0 [cn $p dbsize] }
    }

    test "MOVED reply bytes on the wire, and the same error in RESP3" {
        assert_equal "-MOVED 12182 127.0.0.1:[cnode [cluster_slot_owner 12182] port]\r\n" \
            [rt_raw_line [expr {([cluster_slot_owner 12182] + 1) % 3}] get foo]
        set c [cluster_client [expr {([cluster_slot_owner 5061] + 2) % 3}]]
        $c hello 3
        assert_equal [rt_moved bar] [assert_error * {$c get bar}]
    }

    test "cluster-preferred-endpoint-type changes the MOVED endpoint (ip, unknown-endpoint, hostname)" {
        set owner [cluster_slot_owner 12182]
        set other [expr {($owner + 1) % 3}]
        set port [cnode $owner port]
        try {
            cn $other config set cluster-preferred-endpoint-type unknown-endpoint
            assert_equal "MOVED 12182 :$port" [assert_error * {cn $other get foo}]
            # CLUSTER SLOTS: a null endpoint and the ip in the extra map
            set entry {}
            foreach x [cn $other cluster slots] {
                if {[lindex $x 2 2] eq [cluster_myid $owner]} { set entry [lindex $x 2] }
            }
            assert_equal [list {} $port [cluster_myid $owner] {ip 127.0.0.1}] $entry
            cn $other config set cluster-preferred-endpoint-type hostname
            assert_equal "MOVED 12182 ?:$port" [assert_error * {cn $other get foo}]
        } finally {
            cn $other config set cluster-preferred-endpoint-type ip
        }
        assert_equal "MOVED 12182 127.0.0.1:$port" [assert_error * {cn $other get foo}]
    }

    test "Keys of different slots: -CROSSSLOT on every node, before any MOVED" {
        set cross "CROSSSLOT Keys in request don't hash to the same slot"
        # foo 12182 and bar 5061 live on different primaries
        foreach i {0 1 2 3 4 5} {
            foreach cmd {{mset foo 1 bar 2} {mget foo bar} {del foo bar} {exists foo bar}
                         {rename foo bar} {sunionstore foo bar} {lmove foo bar left right}} {
                assert_equal $cross [assert_error * {cn $i {*}$cmd}] "$cmd on node $i"
            }
        }
        # two slots owned by the same node are still two slots
        set p [cluster_slot_owner 15495]     ;# key a
        set k2 [rt_key $p]
        assert_not_equal 15495 [rt_slot $k2]
        assert_equal $cross [assert_error * {cn $p mset a 1 $k2 2}]
        assert_equal 0 [cn $p exists a]
    }

    test "Keys of one slot through a hash tag are served together by the owner" {
        set p [cluster_slot_owner [rt_slot {{user1}}]]
        assert_equal OK [cn $p mset {{user1}a} 1 {{user1}b} 2]
        assert_equal {1 2} [cn $p mget {{user1}a} {{user1}b}]
        assert_equal OK [cn $p rename {{user1}a} {{user1}c}]
        assert_equal 2 [cn $p del {{user1}b} {{user1}c}]
        # and redirected together by the others
        foreach o {0 1 2} {
            if {$o == $p} continue
            assert_equal [rt_moved {{user1}a}] [assert_error * {cn $o mget {{user1}a} {{user1}b}}]
        }
    }

    test "Keyless commands are served locally by every node, replicas without READONLY included" {
        set p [cluster_slot_owner 12182]
        cn $p set foo local
        assert_equal 1 [cn $p wait 1 5000]
        foreach i {0 1 2 3 4 5 6} {
            set c [cluster_client $i]
            assert_equal PONG [$c ping]
            assert_equal hi [$c echo hi]
            set mine [expr {$i == $p || $i == $p + 3}]
            assert_equal $mine [$c dbsize] "node $i"
            assert_equal [expr {$mine ? "foo" : ""}] [$c keys *] "node $i"
            assert_equal [list 0 [expr {$mine ? "foo" : ""}]] [$c scan 0] "node $i"
            assert_equal [expr {$mine ? "foo" : ""}] [$c randomkey] "node $i"
            assert_equal 2 [llength [$c time]]
            assert_match "*cluster_enabled:1*" [$c info cluster]
            assert_match "cluster_state:*" [$c cluster info]
        }
        cn $p del foo
    }

    test "A slot no node serves: -CLUSTERDOWN Hash slot not served, which beats CROSSSLOT" {
        set f $::free
        set nsv "CLUSTERDOWN Hash slot not served"
        assert_equal $nsv [assert_error * {cn $f get foo}]
        assert_equal $nsv [assert_error * {cn $f set foo 1}]
        assert_equal $nsv [assert_error * {cn $f mset foo 1 bar 2}]
        assert_equal "-$nsv\r\n" [rt_raw_line $f get foo]
        # keyless commands still work there
        assert_equal PONG [cn $f ping]
        assert_equal 0 [cn $f dbsize]
    }

    test "A replica without READONLY redirects reads and writes to its primary" {
        foreach p {0 1 2} {
            set r [expr {$p + 3}]
            set k [rt_key $p]
            set moved "MOVED [rt_slot $k] 127.0.0.1:[cnode $p port]"
            foreach cmd [list [list get $k] [list set $k 1] [list exists $k] [list strlen $k] \
                             [list mget $k] [list del $k]] {
                assert_equal $moved [assert_error * {cn $r {*}$cmd}] "$cmd on replica $r"
            }
            # a key of another shard goes to that shard's primary
            set o [expr {($p + 1) % 3}]
            set k2 [rt_key $o]
            assert_equal "MOVED [rt_slot $k2] 127.0.0.1:[cnode $o port]" [assert_error * {cn $r get $k2}]
        }
    }

    test "READONLY replica: reads of its primary's slots served, writes MOVED, other shards MOVED" {
        foreach p {0 1 2} {
            set r [expr {$p + 3}]
            set k [rt_key $p]
            cn $p set $k val$p
            cn $p rpush "{$k}l" a b c
            assert_equal 1 [cn $p wait 1 5000]
            set c [cluster_client $r]
            assert_equal OK [$c readonly]
            assert_equal val$p [$c get $k]
            assert_equal 1 [$c exists $k]
            assert_equal 4 [$c strlen $k]
            assert_equal val$p [lindex [$c mget $k] 0]
            set moved "MOVED [rt_slot $k] 127.0.0.1:[cnode $p port]"
            foreach cmd [list [list set $k 1] [list del $k] [list incr $k] [list append $k x]] {
                assert_equal $moved [assert_error * {$c {*}$cmd}] "$cmd on READONLY replica $r"
            }
            set o [expr {($p + 1) % 3}]
            set k2 [rt_key $o]
            assert_equal "MOVED [rt_slot $k2] 127.0.0.1:[cnode $o port]" [assert_error * {$c get $k2}]
            assert_equal val$p [cn $p get $k]
            cn $p del $k "{$k}l"
        }
    }

    test "READWRITE and RESET end READONLY: reads redirect again" {
        set k [rt_key 1]
        cn 1 set $k v
        assert_equal 1 [cn 1 wait 1 5000]
        set moved "MOVED [rt_slot $k] 127.0.0.1:[cnode 1 port]"
        set c [cluster_client 4]
        assert_equal OK [$c readonly]
        assert_equal v [$c get $k]
        assert_equal OK [$c readwrite]
        assert_equal $moved [assert_error * {$c get $k}]
        assert_equal OK [$c readonly]
        assert_equal v [$c get $k]
        assert_equal RESET [$c reset]
        assert_equal $moved [assert_error * {$c get $k}]
        # READONLY / READWRITE are accepted by primaries too and change nothing there
        set c0 [cluster_client 1]
        assert_equal OK [$c0 readonly]
        assert_equal v [$c0 get $k]
        assert_equal OK [$c0 set $k w]
        assert_equal OK [$c0 readwrite]
        assert_equal $moved [assert_error * {cn 0 get $k}]
        cn 1 del $k
    }

    test "MULTI: a queued command for another node's slot errors instead of QUEUED, EXEC aborts" {
        set k [rt_key 0]
        set foreign [rt_key 1]
        set c [cluster_client 0]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c set $k 1]
        assert_equal [rt_moved $foreign] [assert_error * {$c get $foreign}]
        assert_equal QUEUED [$c incr "{$k}n"]
        assert_equal "EXECABORT Transaction discarded because of previous errors." \
            [assert_error * {$c exec}]
        assert_equal 0 [cn 0 exists $k]
        # CROSSSLOT in a queued command also flags the transaction
        assert_equal OK [$c multi]
        assert_equal "CROSSSLOT Keys in request don't hash to the same slot" \
            [assert_error * {$c mset foo 1 bar 2}]
        assert_equal "EXECABORT Transaction discarded because of previous errors." \
            [assert_error * {$c exec}]
    }

    test "MULTI: queued commands in two slots of the same node fail at EXEC with CROSSSLOT" {
        set k1 [rt_key 2 x]
        set k2 [rt_key 2 y]
        set i 0
        while {[rt_slot $k2] == [rt_slot $k1]} { set k2 [rt_key 2 y[incr i]] }
        set c [cluster_client 2]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c set $k1 1]
        assert_equal QUEUED [$c set $k2 2]
        assert_equal "CROSSSLOT Keys in request don't hash to the same slot" [assert_error * {$c exec}]
        assert_equal 0 [cn 2 exists $k1]
        assert_equal 0 [cn 2 exists $k2]
        # the connection is out of MULTI afterwards
        assert_equal PONG [$c ping]
        # one slot: served
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c set "{t}$k1" 1]
        assert_equal QUEUED [$c get "{t}$k1:other"]
        set p [cluster_slot_owner [rt_slot "{t}$k1"]]
        if {$p == 2} {
            assert_equal {OK {}} [$c exec]
            cn 2 del "{t}$k1"
        } else {
            # {t} lives elsewhere: the first queued command already errored
            catch {$c exec}
        }
    }

    test "MULTI/EXEC on a replica: reads only with READONLY, a write aborts the transaction" {
        set k [rt_key 0 m]
        cn 0 set $k one
        assert_equal 1 [cn 0 wait 1 5000]
        set moved "MOVED [rt_slot $k] 127.0.0.1:[cnode 0 port]"
        set c [cluster_client 3]
        # without READONLY even reads are redirected
        assert_equal OK [$c multi]
        assert_equal $moved [assert_error * {$c get $k}]
        assert_equal "EXECABORT Transaction discarded because of previous errors." [assert_error * {$c exec}]
        assert_equal OK [$c readonly]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c get $k]
        assert_equal QUEUED [$c strlen $k]
        assert_equal {one 3} [$c exec]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c get $k]
        assert_equal $moved [assert_error * {$c set $k two}]
        assert_equal "EXECABORT Transaction discarded because of previous errors." [assert_error * {$c exec}]
        assert_equal one [cn 0 get $k]
        cn 0 del $k
    }

    test "ASKING with no migration: the owner serves, others still answer MOVED" {
        set k [rt_key 1 ask]
        cn 1 set $k v
        set c [cluster_client 0]
        assert_equal OK [$c asking]
        assert_equal [rt_moved $k] [assert_error * {$c get $k}]
        set c1 [cluster_client 1]
        assert_equal OK [$c1 asking]
        assert_equal v [$c1 get $k]
        # a replica with ASKING but without READONLY redirects too
        set c4 [cluster_client 4]
        assert_equal OK [$c4 asking]
        assert_equal [rt_moved $k] [assert_error * {$c4 get $k}]
        assert_equal OK [$c4 asking]
        assert_equal [rt_moved $k] [assert_error * {$c4 set $k w}]
        cn 1 del $k
    }

    test "Declared keys of EVAL route like commands" {
        if {[catch {cn 0 eval {return 1} 0} e] && [string match "*unknown command*" $e]} {
            skip_deliberate "the server has no scripting yet"
        }
        set k [rt_key 2 ev]
        assert_equal [rt_moved $k] \
            [assert_error * {cn 0 eval {return redis.call('get', KEYS[1])} 1 $k}]
        assert_equal "CROSSSLOT Keys in request don't hash to the same slot" \
            [assert_error * {cn 0 eval {return 1} 2 foo bar}]
        if {[catch {cn 2 eval {return redis.call('set', KEYS[1], 'x')} 1 $k} e]} {
            # a node without scripting answers its one error, once routing let the call through
            assert_match "ERR scripting is not supported by this node*" $e
        } else {
            assert_equal OK $e
            assert_equal x [cn 2 get $k]
            cn 2 del $k
        }
    }

    test "Redirects count in errorstats under their first word and as rejected calls" {
        set k [rt_key 1 st]
        cn 0 config resetstat
        catch {cn 0 get $k}
        catch {cn 0 set $k 1}
        catch {cn 0 get $k}
        catch {cn 0 mget foo bar}
        set es [cn 0 info errorstats]
        assert_equal count=3 [info_field $es errorstat_MOVED]
        assert_equal count=1 [info_field $es errorstat_CROSSSLOT]
        assert_equal 4 [info_field [cn 0 info stats] total_error_replies]
        set cs [cn 0 info commandstats]
        assert_match "calls=0,*,rejected_calls=2,failed_calls=0" [info_field $cs cmdstat_get]
        assert_match "calls=0,*,rejected_calls=1,failed_calls=0" [info_field $cs cmdstat_set]
        assert_match "calls=0,*,rejected_calls=1,failed_calls=0" [info_field $cs cmdstat_mget]
        # on the replica too
        cn 4 config resetstat
        catch {cn 4 get $k}
        assert_equal count=1 [info_field [cn 4 info errorstats] errorstat_MOVED]
        # and CLUSTERDOWN on the slotless node
        cn $::free config resetstat
        catch {cn $::free get $k}
        assert_equal count=1 [info_field [cn $::free info errorstats] errorstat_CLUSTERDOWN]
    }

    test "SORT: BY and GET patterns only within the sorted key's slot" {
        set k "{srt}:list"
        set o [cluster_key_owner $k]
        cn $o rpush $k 2 1
        assert_equal "ERR BY option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots." \
            [assert_error * {cn $o sort $k by w_*}]
        assert_equal "ERR GET option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots." \
            [assert_error * {cn $o sort $k get w_*}]
        cn $o set "{srt}:w_1" 20
        cn $o set "{srt}:w_2" 10
        assert_equal {2 1} [cn $o sort $k by "{srt}:w_*"]
        assert_equal {2 10 1 20} [cn $o sort $k by "{srt}:w_*" get # get "{srt}:w_*"]
        assert_equal {1 2} [cn $o sort $k by nosort desc]
        assert_equal {1 2} [cn $o sort $k get #]
        cn $o del $k "{srt}:w_1" "{srt}:w_2"
    }
}
