# A cluster of 3 primaries + 3 replicas made by `redis-cli --cluster create`, then what a
# client sees of it: redis-cli's check, CLUSTER INFO / NODES / SLOTS / SHARDS / MYID /
# MYSHARDID, KEYSLOT, COUNTKEYSINSLOT / GETKEYSINSLOT, redis-cli -c following MOVED, READONLY
# reads on a replica, and redis-py's RedisCluster writing and reading 10,000 keys.
# Formats and subcommand replies are Valkey 8's.

proc cr_is_id {s} { return [regexp {^[0-9a-f]{40}$} $s] }

# {start end} of the slot ranges of primary idx as listed in CLUSTER SLOTS (a list of pairs).
proc cr_ranges_of {idx} {
    set out {}
    foreach r [cn 0 cluster slots] {
        if {[lindex $r 2 1] == [cnode $idx port]} { lappend out [lrange $r 0 1] }
    }
    return $out
}

start_cluster {primaries 3 replicas 1 create cli} {

    test "redis-cli --cluster create 3+3 allocates every slot and reports them covered" {
        set out $::cl::create_output
        assert_contains {Performing hash slots allocation on 6 nodes...} $out
        assert_contains {Master[0] -> Slots 0 - 5460} $out
        assert_contains {Master[1] -> Slots 5461 - 10922} $out
        assert_contains {Master[2] -> Slots 10923 - 16383} $out
        assert_contains {[OK] All nodes agree about slots configuration.} $out
        assert_contains {[OK] All 16384 slots covered.} $out
        assert_equal {0 1 2} [cluster_primaries]
        assert_equal {3 4 5} [cluster_replicas]
        foreach p {0 1 2} { assert_equal 1 [llength [cluster_replicas_of $p]] "replicas of $p" }
    }

    test "redis-cli --cluster check is clean (exit code 0) against every node" {
        foreach i {0 3} {
            lassign [cluster_cli --cluster check 127.0.0.1:[cnode $i port]] code out
            assert_equal 0 $code $out
            assert_contains {[OK] All nodes agree about slots configuration.} $out
            assert_contains {[OK] All 16384 slots covered.} $out
            assert_not_contains {[ERR]} $out
            assert_not_contains {[WARNING]} $out
            # one summary line per primary: "<addr> (<id8>...) -> N keys | 5461 slots | 1 slaves."
            assert_equal 3 [regexp -all {slots \| 1 slaves\.} $out] $out
        }
    }

    test "CLUSTER INFO: exact values of the state fields, in order, CRLF line ends" {
        foreach i {0 1 2 3 4 5} {
            set text [cn $i cluster info]
            # every line ends in CRLF: no bare LF, and the text ends with CRLF
            assert_equal "\r\n" [string range $text end-1 end]
            assert_equal 0 [regexp -all {[^\r]\n} $text]
            set lines [split [string map [list "\r\n" "\x01"] [string range $text 0 end-2]] "\x01"]
            assert_equal [list {*}{cluster_state:ok cluster_slots_assigned:16384 cluster_slots_ok:16384
                cluster_slots_pfail:0 cluster_slots_fail:0 cluster_known_nodes:6 cluster_size:3}] \
                [lrange $lines 0 6] "node $i"
            # redis-cli gives the six nodes config epochs 1..6
            assert_equal cluster_current_epoch:6 [lindex $lines 7] "node $i"
            assert_match cluster_my_epoch:* [lindex $lines 8]
            assert_equal total_cluster_links_buffer_limit_exceeded:0 [lindex $lines end]
            # the per-type counters sum to the totals
            foreach dir {sent received} {
                set sum 0
                foreach l $lines {
                    if {[regexp "^cluster_stats_messages_(\[a-z-\]+)_${dir}:(\\d+)\$" $l -> type n]} {
                        assert [expr {$type in {ping pong meet fail publish auth-req auth-ack update mfstart module publishshard}}] $l
                        incr sum $n
                    }
                }
                assert_equal $sum [info_field $text cluster_stats_messages_$dir] "node $i $dir"
                assert_morethan $sum 0
            }
            assert_morethan [info_field $text cluster_stats_messages_ping_sent] 0
            assert_morethan [info_field $text cluster_stats_messages_pong_received] 0
        }
    }

    test "CLUSTER INFO: my_epoch is distinct per primary and a replica shows its primary's" {
        set epochs {}
        foreach p {0 1 2} {
            set e [cluster_info_field $p cluster_my_epoch]
            assert_range $e 1 6
            lappend epochs $e
            foreach r [cluster_replicas_of $p] {
                assert_equal $e [cluster_info_field $r cluster_my_epoch] "replica $r of $p"
            }
        }
        assert_equal 3 [llength [lsort -unique $epochs]]
    }

    test "CLUSTER NODES: six lines of the documented shape, the same view from every node" {
        set views {}
        foreach i {0 1 2 3 4 5} {
            set text [cn $i cluster nodes]
            assert_match "*\n" $text
            assert_no_match "*\r*" $text
            set lines [split [string range $text 0 end-1] "\n"]
            assert_equal 6 [llength $lines]
            set myself 0
            set view {}
            foreach line $lines {
                set w [split $line " "]
                set id [lindex $w 0]
                assert [cr_is_id $id] $line
                set subject [cluster_idx_of_id $id]
                set port [cnode $subject port]
                assert_equal 127.0.0.1:$port@[expr {$port + 10000}] [lindex $w 1] $line
                set flags [split [lindex $w 2] ,]
                assert_equal connected [lindex $w 7] $line
                assert [regexp {^[0-9]+$} [lindex $w 4]] $line
                assert [regexp {^[0-9]+$} [lindex $w 5]] $line
                if {"myself" in $flags} {
                    incr myself
                    assert_equal $i $subject
                    assert_equal {0 0} [lrange $w 4 5] "myself shows no ping/pong: $line"
                    assert_equal myself [lindex $flags 0] $line
                    set flags [lrange $flags 1 end]
                }
                if {$subject < 3} {
                    assert_equal {master} $flags $line
                    assert_equal - [lindex $w 3] $line
                    assert_equal [cr_ranges_of $subject] \
                        [lmap r [lrange $w 8 end] { split $r - }] $line
                    set e [lindex $w 6]
                } else {
                    assert_equal {slave} $flags $line
                    set p [cluster_primary_of $subject]
                    assert_equal [cluster_myid $p] [lindex $w 3] $line
                    assert_equal 8 [llength $w] "a replica lists no slots: $line"
                }
                dict set view $id [list [lindex $w 2] [lindex $w 3] [lindex $w 6] [lrange $w 8 end]]
            }
            assert_equal 1 $myself "node $i"
            # remove "myself," so the views compare equal
            set norm {}
            dict for {id v} $view {
                lset v 0 [string map {myself, {}} [lindex $v 0]]
                dict set norm $id $v
            }
            lappend views [lsort -stride 2 -index 0 $norm]
        }
        assert_equal 1 [llength [lsort -unique $views]] "views differ:\n[join $views \n]"
        # a replica's line carries its primary's config epoch
        set v [lindex $views 0]
        foreach r {3 4 5} {
            set p [cluster_primary_of $r]
            assert_equal [lindex [dict get $v [cluster_myid $p]] 2] [lindex [dict get $v [cluster_myid $r]] 2]
        }
    }

    test "CLUSTER SLOTS: three ranges in slot order, primary then replica, each {ip port id {}}" {
        set expected {}
        foreach range {{0 5460} {5461 10922} {10923 16383}} p {0 1 2} {
            set r [lindex [cluster_replicas_of $p] 0]
            lappend expected [list {*}$range \
                                  [list 127.0.0.1 [cnode $p port] [cluster_myid $p] {}] \
                                  [list 127.0.0.1 [cnode $r port] [cluster_myid $r] {}]]
        }
        foreach i {0 1 2 3 4 5} { assert_equal $expected [cn $i cluster slots] "node $i" }
        # RESP3: the same, the extra field an empty map
        set c [cluster_client 4]
        $c hello 3
        assert_equal $expected [$c cluster slots]
    }

    test "CLUSTER SHARDS: one shard per primary, node maps with the documented fields in order" {
        foreach i {0 5} {
            set shards [cn $i cluster shards]
            assert_equal 3 [llength $shards]
            set seen {}
            foreach sh $shards {
                assert_equal {slots nodes} [dict keys $sh]
                set slots [dict get $sh slots]
                set nodes [dict get $sh nodes]
                assert_equal 2 [llength $nodes]
                set roles {}
                foreach n $nodes {
                    assert_equal {id port ip endpoint role replication-offset health} [dict keys $n]
                    set idx [cluster_idx_of_id [dict get $n id]]
                    assert_equal [cnode $idx port] [dict get $n port]
                    assert_equal 127.0.0.1 [dict get $n ip]
                    assert_equal 127.0.0.1 [dict get $n endpoint]
                    assert_equal online [dict get $n health]
                    assert [regexp {^[0-9]+$} [dict get $n replication-offset]]
                    dict set roles [dict get $n role] $idx
                }
                set p [dict get $roles master]
                assert_equal [cluster_replicas_of $p] [dict get $roles replica]
                assert_equal [concat {*}[cr_ranges_of $p]] $slots
                lappend seen $p
            }
            assert_equal {0 1 2} [lsort $seen]
        }
    }

    test "CLUSTER MYID and MYSHARDID: 40 hex chars; a shard ID shared by a primary and its replica" {
        set shardids {}
        foreach p {0 1 2} {
            set id [cn $p cluster myid]
            assert [cr_is_id $id] $id
            assert_match "$id * myself,*" [lsearch -inline [split [cn $p cluster nodes] \n] "$id *"]
            set sid [cn $p cluster myshardid]
            assert [cr_is_id $sid] $sid
            foreach r [cluster_replicas_of $p] {
                assert_equal $sid [cn $r cluster myshardid] "replica $r of $p"
                assert_not_equal $id [cn $r cluster myid]
            }
            lappend shardids $sid
        }
        assert_equal 3 [llength [lsort -unique $shardids]]
    }

    test "CLUSTER KEYSLOT: CRC16 of the key or of its first non-empty {tag}" {
        foreach {key slot} {
            foo 12182 bar 5061 "" 0 123456789 12739 a 15495 b 3300
            {{}foo} 9500 {foo{}{bar}} 8363 {foo{{bar}}zap} 4015 {foo{bar}{zap}} 5061
            {{user1000}.following} 3443 {{user1000}.followers} 3443 {x{bar}} 5061
        } {
            assert_equal $slot [cn 1 cluster keyslot $key] "key '$key'"
            assert_equal $slot [cn 4 cluster keyslot $key] "key '$key' on a replica"
        }
        # 16383 is the mask: every slot value stays in range
        foreach i {0 1 2 3 4 5 6 7 8 9} {
            assert_range [cn 0 cluster keyslot [randstring 12]] 0 16383
        }
    }

    test "COUNTKEYSINSLOT / GETKEYSINSLOT on the owner and on its replica" {
        set slot [cn 0 cluster keyslot {{ck}a}]
        set owner [cluster_slot_owner $slot]
        foreach k {{{ck}a} {{ck}b} {{ck}c}} { assert_equal OK [cn $owner set $k 1] }
        assert_equal 3 [cn $owner cluster countkeysinslot $slot]
        assert_equal [list "{ck}a" "{ck}b" "{ck}c"] [lsort [cn $owner cluster getkeysinslot $slot 10]]
        assert_equal 2 [llength [cn $owner cluster getkeysinslot $slot 2]]
        assert_equal {} [cn $owner cluster getkeysinslot $slot 0]
        # counted locally: another primary holds none of them
        set other [expr {($owner + 1) % 3}]
        assert_equal 0 [cn $other cluster countkeysinslot $slot]
        assert_equal {} [cn $other cluster getkeysinslot $slot 10]
        # the replica counts its own replicated copy
        assert_equal 1 [cn $owner wait 1 5000]
        set rep [lindex [cluster_replicas_of $owner] 0]
        assert_equal 3 [cn $rep cluster countkeysinslot $slot]
        assert_equal [list "{ck}a" "{ck}b" "{ck}c"] [lsort [cn $rep cluster getkeysinslot $slot 10]]
    }

    test "redis-cli -c follows MOVED: set through one node, get through another" {
        set key cli:foo
        set owner [cluster_key_owner $key]
        set in [expr {($owner + 1) % 3}]
        set out [expr {($owner + 2) % 3}]
        set rc [catch {exec $::cl::cli -c -p [cnode $in port] set $key hello} r]
        assert_equal {0 OK} [list $rc $r]
        set rc [catch {exec $::cl::cli -c -p [cnode $out port] get $key} r]
        assert_equal {0 hello} [list $rc $r]
        assert_equal hello [cn $owner get $key]
        # without -c the redirect is shown, not followed
        set r [exec $::cl::cli -p [cnode $in port] get $key]
        assert_equal "MOVED [cn 0 cluster keyslot $key] 127.0.0.1:[cnode $owner port]" [string trim $r]
    }

    test "READONLY reads on a replica; writes still redirect to the primary" {
        set key ro:key
        set slot [cn 0 cluster keyslot $key]
        set owner [cluster_slot_owner $slot]
        set rep [lindex [cluster_replicas_of $owner] 0]
        assert_equal OK [cn $owner set $key v1]
        assert_equal 1 [cn $owner wait 1 5000]
        set c [cluster_client $rep]
        set moved "MOVED $slot 127.0.0.1:[cnode $owner port]"
        assert_equal $moved [assert_error MOVED* {$c get $key}]
        assert_equal OK [$c readonly]
        assert_equal v1 [$c get $key]
        assert_equal 1 [$c exists $key]
        assert_equal v1 [lindex [$c mget $key] 0]
        assert_equal $moved [assert_error MOVED* {$c set $key v2}]
        assert_equal v1 [cn $owner get $key]
    }

    test "redis-py RedisCluster writes and reads 10,000 keys, also with read_from_replicas" {
        foreach p {0 1 2} { cn $p flushall }
        set script [file join [cnode 0 dir] rc.py]
        set f [open $script w]
        puts $f {
import sys
from redis.cluster import RedisCluster
port, phase, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rc = RedisCluster(host="127.0.0.1", port=port, read_from_replicas=(phase == "replicas"))
if phase == "write":
    for i in range(n):
        assert rc.set("py:%d" % i, "v%d" % i)
bad = [i for i in range(n) if rc.get("py:%d" % i) != ("v%d" % i).encode()]
print("checked %d bad %d" % (n, len(bad)))
}
        close $f
        set out [exec /usr/bin/python3 $script [cnode 1 port] write 10000 2>@1]
        assert_equal "checked 10000 bad 0" [string trim $out]
        set total 0
        foreach p {0 1 2} {
            set n [cn $p dbsize]
            # CRC16 spreads 10,000 keys evenly enough: each third gets well over 2,000
            assert_morethan $n 2000
            incr total $n
            assert_equal 1 [cn $p wait 1 5000]
            assert_equal $n [cn [lindex [cluster_replicas_of $p] 0] dbsize]
        }
        assert_equal 10000 $total
        foreach i {3 4 5} { cn $i config resetstat }
        set out [exec /usr/bin/python3 $script [cnode 2 port] replicas 10000 2>@1]
        assert_equal "checked 10000 bad 0" [string trim $out]
        # the replicas did serve some of those reads
        foreach i {3 4 5} {
            set line [info_field [cn $i info commandstats] cmdstat_get]
            assert [regexp {calls=(\d+)} $line -> calls] $line
            assert_morethan $calls 0
            assert_match "*rejected_calls=0,*" $line
        }
    }
}
