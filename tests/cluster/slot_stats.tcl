# CLUSTER SLOT-STATS with cluster-slot-stats-enabled: the reply shapes (RESP2 and RESP3), the
# argument errors, the order of ORDERBY, and what each command is charged (cpu-usec,
# network-bytes-in, network-bytes-out), with exact byte counts where the rule makes them
# deterministic. Every expectation was observed on Valkey 8.0.1, and this file passes on it.
#
# Nodes 0 and 1 are primaries (slots 0-8191 and 8192-16383), 2 replicates 0, 3 replicates 1.

# The counters of one slot as a dict (key-count cpu-usec network-bytes-in network-bytes-out).
proc ss_stats {idx slot} {
    return [lindex [cn $idx cluster slot-stats slotsrange $slot $slot] 0 1]
}
# network-bytes-in and network-bytes-out of one slot.
proc ss_net {idx slot} {
    set d [ss_stats $idx $slot]
    return [list [dict get $d network-bytes-in] [dict get $d network-bytes-out]]
}
proc ss_cpu {idx slot} { return [dict get [ss_stats $idx $slot] cpu-usec] }
proc ss_len {args} { return [string length [::resp::encode_command {*}$args]] }
proc ss_reset {args} { foreach i $args { assert_equal OK [cn $i config resetstat] } }
# One reply's exact bytes, RESP2 or RESP3 (the client in readraw mode).
proc ss_read_raw {c} {
    set line [$c read]
    set out "$line\r\n"
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        "\$" { if {$n >= 0} { append out [$c read] "\r\n" } }
        "*" - ">" - "~" { for {set i 0} {$i < $n} {incr i} { append out [ss_read_raw $c] } }
        "%" { for {set i 0} {$i < 2 * $n} {incr i} { append out [ss_read_raw $c] } }
    }
    return $out
}
# A raw client: each request's bytes are written as they are, each reply read as bytes.
proc ss_raw_client {idx} {
    set c [cluster_client $idx]
    $c deferred 1
    $c readraw 1
    return $c
}
proc ss_send {c bytes} {
    $c write_raw $bytes
    return [ss_read_raw $c]
}
# The exact reply bytes of one command on a new connection, after the commands of prelude.
proc ss_raw {idx prelude args} {
    set c [ss_raw_client $idx]
    foreach p $prelude { ss_send $c [::resp::encode_command {*}$p] }
    set r [ss_send $c [::resp::encode_command {*}$args]]
    $c close
    return $r
}
proc ss_blocked {idx} { return [info_field [cn $idx info clients] blocked_clients] }

start_cluster {primaries 2 replicas 1 create manual} {
    set k [cluster_key_in_slot_of 0 ss]
    set ks [cn 0 cluster keyslot $k]
    set k2 "{$k}2"
    set other [cluster_key_in_slot_of 0 other]
    set os [cn 0 cluster keyslot $other]

    test "cluster-slot-stats-enabled is no by default: key-count alone, other metrics unknown" {
        assert_equal {cluster-slot-stats-enabled no} [cn 0 config get cluster-slot-stats-enabled]
        assert_equal OK [cn 0 set $k v]
        assert_equal "*1\r\n*2\r\n:$ks\r\n*2\r\n\$9\r\nkey-count\r\n:1\r\n" \
            [ss_raw 0 {} cluster slot-stats slotsrange $ks $ks]
        assert_equal "*1\r\n*2\r\n:$ks\r\n%1\r\n\$9\r\nkey-count\r\n:1\r\n" \
            [ss_raw 0 {{hello 3}} cluster slot-stats slotsrange $ks $ks]
        foreach m {cpu-usec network-bytes-in network-bytes-out} {
            assert_equal "ERR Unrecognized sort metric for ORDERBY." \
                [assert_error * {cn 0 cluster slot-stats orderby $m limit 0}]
        }
        assert_equal {} [cn 0 cluster slot-stats slotsrange 8192 8192]
        foreach i {0 1 2 3} { assert_equal OK [cn $i config set cluster-slot-stats-enabled yes] }
        assert_equal {cluster-slot-stats-enabled yes} [cn 0 config get cluster-slot-stats-enabled]
    }

    test "SLOTSRANGE and ORDERBY replies with the counters, RESP2 and RESP3" {
        ss_reset 0
        set m "\$9\r\nkey-count\r\n:1\r\n\$8\r\ncpu-usec\r\n:0\r\n\$16\r\nnetwork-bytes-in\r\n:0\r\n\$17\r\nnetwork-bytes-out\r\n:0\r\n"
        assert_equal "*1\r\n*2\r\n:$ks\r\n*8\r\n$m" \
            [ss_raw 0 {} cluster slot-stats slotsrange $ks $ks]
        assert_equal "*1\r\n*2\r\n:$ks\r\n%4\r\n$m" \
            [ss_raw 0 {{hello 3}} cluster slot-stats slotsrange $ks $ks]
        assert_equal "*1\r\n*2\r\n:$ks\r\n%4\r\n$m" \
            [ss_raw 0 {{hello 3}} cluster slot-stats orderby key-count limit 1]
        # only the slots of this shard, in slot order
        set r [cn 0 cluster slot-stats slotsrange 8190 8193]
        assert_equal {8190 8191} [lmap e $r {lindex $e 0}]
        assert_equal {key-count 0 cpu-usec 0 network-bytes-in 0 network-bytes-out 0} [lindex $r 0 1]
        assert_equal 8192 [llength [cn 0 cluster slot-stats slotsrange 0 16383]]
        assert_equal {} [cn 0 cluster slot-stats slotsrange 16000 16383]
        # a replica shows its primary's slots
        assert_equal {8190 8191} [lmap e [cn 2 cluster slot-stats slotsrange 8190 8193] {lindex $e 0}]
    }

    test "Argument errors" {
        foreach {args err} {
            {orderby foo} "ERR Unrecognized sort metric for ORDERBY."
            {orderby foo limit 0} "ERR Unrecognized sort metric for ORDERBY."
            {orderby cpu-usec limit 0} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit 16385} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit -1} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit abc} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit 1.5} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby network-bytes-in limit 1 limit 0} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby network-bytes-in limit 1 limit 2} "ERR Multiple filters of the same type are disallowed."
            {orderby network-bytes-out asc desc} "ERR Multiple filters of the same type are disallowed."
            {orderby key-count asc limit 0 asc} "ERR Limit has to lie in between 1 and 16384 (maximum number of slots)."
            {orderby key-count limit} "ERR syntax error"
            {orderby key-count bogus} "ERR syntax error"
            {orderby key-count desc bogus limit 0} "ERR syntax error"
            {slotsrange 5 3} "ERR Start slot number 5 is greater than end slot number 3"
            {slotsrange -1 3} "ERR Invalid or out of range slot"
            {slotsrange 0 16384} "ERR Invalid or out of range slot"
            {slotsrange a 3} "ERR Invalid or out of range slot"
            {slotsrange 1 1.5} "ERR Invalid or out of range slot"
            {slotsrange 0} "ERR unknown subcommand or wrong number of arguments for 'slot-stats'. Try CLUSTER HELP."
            {slotsrange 0 1 2} "ERR unknown subcommand or wrong number of arguments for 'slot-stats'. Try CLUSTER HELP."
            {foo bar} "ERR unknown subcommand or wrong number of arguments for 'slot-stats'. Try CLUSTER HELP."
            {orderby} "ERR wrong number of arguments for 'cluster|slot-stats' command"
        } {
            assert_equal $err [assert_error * {cn 0 cluster slot-stats {*}$args}] $args
        }
    }

    test "A keyed command: its request bytes in, its reply bytes and its stream to the replica out" {
        ss_reset 0 2
        set c [ss_raw_client 0]
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command SET $k v]]
        assert_equal "\$1\r\nv\r\n" [ss_send $c [::resp::encode_command GET $k]]
        # SET: 5 bytes of reply and the command once down the stream to the one replica
        set in [expr {[ss_len SET $k v] + [ss_len GET $k]}]
        assert_equal [list $in [expr {5 + [ss_len SET $k v] + 7}]] [ss_net 0 $ks]
        assert_morethan [ss_cpu 0 $ks] 0
        # inline requests: the line and two bytes for its end, whatever the end
        ss_reset 0
        assert_equal "\$1\r\nv\r\n" [ss_send $c "GET $k\n"]
        assert_equal "\$1\r\nv\r\n" [ss_send $c "\r\n\r\nGET $k\r\n"]
        set n [expr {[string length "GET $k"] + 2}]
        assert_equal [list [expr {2 * $n}] 14] [ss_net 0 $ks]
        # two requests in one write count separately; empty requests count nothing
        ss_reset 0
        $c write_raw "*0\r\n[::resp::encode_command GET $k][::resp::encode_command GET $k]"
        assert_equal "\$1\r\nv\r\n" [ss_read_raw $c]
        assert_equal "\$1\r\nv\r\n" [ss_read_raw $c]
        assert_equal [list [expr {2 * [ss_len GET $k]}] 14] [ss_net 0 $ks]
        # an error reply counts; a reply switched off does not, its request does
        ss_reset 0
        set wt "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
        assert_equal $wt [ss_send $c [::resp::encode_command LPUSH $k x]]
        $c write_raw [::resp::encode_command CLIENT REPLY OFF]
        $c write_raw [::resp::encode_command GET $k]
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command CLIENT REPLY ON]]
        set in [expr {[ss_len LPUSH $k x] + [ss_len GET $k]}]
        assert_equal [list $in [string length $wt]] [ss_net 0 $ks]
        # a key found expired: its deletion's stream to the replica is the command's output
        assert_equal OK [cn 0 debug set-active-expire 0]
        assert_equal OK [cn 0 set $k v px 1]
        after 20
        ss_reset 0
        assert_equal "\$-1\r\n" [ss_send $c [::resp::encode_command GET $k]]
        assert_equal [list [ss_len GET $k] [expr {5 + [ss_len UNLINK $k]}]] [ss_net 0 $ks]
        assert_equal OK [cn 0 debug set-active-expire 1]
        assert_equal OK [cn 0 set $k v]
        $c close
    }

    test "The replica charges the commands it applies from its primary (no reply bytes)" {
        ss_reset 0 2
        assert_equal OK [cn 0 set $k v]
        cluster_wait_replicas_synced 0
        assert_equal [list [ss_len set $k v] 0] [ss_net 2 $ks]
        assert_morethan [ss_cpu 2 $ks] 0
        # a transaction: the queued commands are not charged there, EXEC with its MULTI is
        ss_reset 0 2
        assert_equal OK [cn 0 multi]
        assert_equal QUEUED [cn 0 set $k v]
        assert_equal QUEUED [cn 0 set $k2 w]
        assert_equal {OK OK} [cn 0 exec]
        cluster_wait_replicas_synced 0
        assert_equal [list [expr {[ss_len EXEC] + [ss_len MULTI]}] 0] [ss_net 2 $ks]
        assert_equal 1 [cn 0 del $k2]
    }

    test "Keyless commands charge no slot" {
        ss_reset 0
        assert_equal PONG [cn 0 ping]
        assert_equal OK [cn 0 multi]
        assert_equal QUEUED [cn 0 ping]
        assert_equal PONG [cn 0 exec]
        foreach m {cpu-usec network-bytes-in network-bytes-out} {
            set top [cn 0 cluster slot-stats orderby $m limit 1]
            assert_equal {0 {key-count 0 cpu-usec 0 network-bytes-in 0 network-bytes-out 0}} [lindex $top 0] $m
        }
    }

    test "MULTI/EXEC: queued requests charged when queued, EXEC with MULTI's bytes, replies cumulatively" {
        ss_reset 0
        set c [ss_raw_client 0]
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command MULTI]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command SET $k v]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command GET $k]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command GET $k]]
        assert_equal "*3\r\n+OK\r\n\$1\r\nv\r\n\$1\r\nv\r\n" [ss_send $c [::resp::encode_command EXEC]]
        set in [expr {[ss_len SET $k v] + 2 * [ss_len GET $k] + [ss_len EXEC] + [ss_len MULTI]}]
        # Each command of the transaction adds all the EXEC reply so far (4+5, 4+5+7,
        # 4+5+7+7), then EXEC its whole reply (23): as Valkey 8.0.1 counts. Its one write goes
        # to the replica without MULTI/EXEC.
        set out [expr {9 + 16 + 23 + 23 + [ss_len SET $k v]}]
        assert_equal [list $in $out] [ss_net 0 $ks]
        # a cross-slot transaction: the queued requests count, the refused EXEC not
        ss_reset 0
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command MULTI]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command SET $k v]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command GET $other]]
        assert_equal "-CROSSSLOT Keys in request don't hash to the same slot\r\n" \
            [ss_send $c [::resp::encode_command EXEC]]
        assert_equal [list [ss_len SET $k v] 0] [ss_net 0 $ks]
        assert_equal [list [ss_len GET $other] 0] [ss_net 0 $os]
        # DISCARD: the queued requests count, nothing else
        ss_reset 0
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command MULTI]]
        assert_equal "+QUEUED\r\n" [ss_send $c [::resp::encode_command GET $k]]
        assert_equal "+OK\r\n" [ss_send $c [::resp::encode_command DISCARD]]
        assert_equal [list [ss_len GET $k] 0] [ss_net 0 $ks]
        $c close
    }

    test "Blocking commands: charged when served, the stream of the served command not; a timeout charges CPU only" {
        set l "{$k}list"
        cn 0 del $l
        ss_reset 0
        set c [ss_raw_client 0]
        $c write_raw [::resp::encode_command BLPOP $l 0]
        ::cl::deadline_wait 5000 {[ss_blocked 0] == 1} {BLPOP did not block}
        assert_equal {key-count 1 cpu-usec 0 network-bytes-in 0 network-bytes-out 0} [ss_stats 0 $ks]
        assert_equal 1 [cn 0 rpush $l x]
        set reply [ss_read_raw $c]
        assert_equal "*2\r\n\$[string length $l]\r\n$l\r\n\$1\r\nx\r\n" $reply
        # RPUSH: its reply and its stream; BLPOP: its reply (the LPOP it sends down the stream
        # is not charged, as on Valkey 8.0.1)
        set in [expr {[ss_len BLPOP $l 0] + [ss_len rpush $l x]}]
        set out [expr {4 + [ss_len rpush $l x] + [string length $reply]}]
        assert_equal [list $in $out] [ss_net 0 $ks]
        assert_morethan [ss_cpu 0 $ks] 0
        # a timeout: neither the request nor the null reply count, the CPU time does
        ss_reset 0
        $c write_raw [::resp::encode_command BLPOP $l 0.05]
        assert_equal "*-1\r\n" [ss_read_raw $c]
        assert_equal {0 0} [ss_net 0 $ks]
        assert_morethan [ss_cpu 0 $ks] 0
        $c close
    }

    test "SPUBLISH: each delivery to a subscriber of this node is its channel's slot's output" {
        set ch "{$k}ch"
        foreach {idx resp} {0 2 2 3} {
            ss_reset 0 2
            set s [ss_raw_client $idx]
            if {$resp == 3} { ss_send $s [::resp::encode_command HELLO 3] }
            set sub [ss_send $s [::resp::encode_command SSUBSCRIBE $ch]]
            assert_equal "*3\r\n\$10\r\nssubscribe\r\n\$[string length $ch]\r\n$ch\r\n:1\r\n" \
                [string map {> *} $sub]
            # the count of subscribers of the publisher's node
            assert_equal [expr {$idx == 0}] [cn 0 spublish $ch hello]
            set msg [ss_read_raw $s]
            assert_equal "*3\r\n\$8\r\nsmessage\r\n\$[string length $ch]\r\n$ch\r\n\$5\r\nhello\r\n" \
                [string map {> *} $msg]
            # the publisher's node: its request and reply (shard messages to the replica over
            # the bus are not counted)
            set pub [list [ss_len spublish $ch hello] 4]
            if {$idx == 0} {
                # the subscriber's node is the publisher's: both add up
                assert_equal [list [expr {[ss_len SSUBSCRIBE $ch] + [lindex $pub 0]}] \
                                  [expr {[string length $sub] + 4 + [string length $msg]}]] \
                    [ss_net 0 $ks] "subscriber on node $idx, RESP$resp"
            } else {
                assert_equal $pub [ss_net 0 $ks]
                assert_equal [list [ss_len SSUBSCRIBE $ch] \
                                  [expr {[string length $sub] + [string length $msg]}]] \
                    [ss_net $idx $ks] "subscriber on node $idx, RESP$resp"
            }
            $s close
        }
    }

    test "A redirected request: -ASK and -TRYAGAIN charge its bytes to the slot, CROSSSLOT nothing" {
        ss_reset 0
        assert_equal OK [cn 0 cluster setslot $ks migrating [cluster_myid 1]]
        set c [ss_raw_client 0]
        set miss "{$k}missing"
        assert_match "-ASK $ks *" [ss_send $c [::resp::encode_command GET $miss]]
        assert_match "-TRYAGAIN *" [ss_send $c [::resp::encode_command MGET $k $miss]]
        assert_equal OK [cn 0 cluster setslot $ks stable]
        assert_equal [list [expr {[ss_len GET $miss] + [ss_len MGET $k $miss]}] 0] [ss_net 0 $ks]
        ss_reset 0
        assert_match "-CROSSSLOT *" [ss_send $c [::resp::encode_command MGET $k $other]]
        assert_equal {0 0} [ss_net 0 $ks]
        $c close
    }

    test "ORDERBY: by the metric, ties in slot order either way, LIMIT" {
        ss_reset 0
        assert_equal OK [cn 0 set $other 1]
        assert_equal 1 [cn 0 exists $k]
        assert_equal 1 [cn 0 exists $k]
        # ties (none here, or equal bytes) in slot order
        set a [expr {2 * [ss_len exists $k]}]
        set b [ss_len set $other 1]
        set byin [expr {$a > $b || ($a == $b && $ks < $os) ? [list $ks $os] : [list $os $ks]}]
        set top [cn 0 cluster slot-stats orderby network-bytes-in limit 3]
        assert_equal [concat $byin 0] [lmap e $top {lindex $e 0}]
        set zeros [lmap i {0 1 2 3} {expr {$i in [list $ks $os] ? [continue] : $i}}]
        set asc [cn 0 cluster slot-stats orderby network-bytes-in asc limit 2]
        assert_equal [lrange $zeros 0 1] [lmap e $asc {lindex $e 0}]
        assert_equal 2 [llength [cn 0 cluster slot-stats orderby cpu-usec desc limit 2]]
        assert_equal 8192 [llength [cn 0 cluster slot-stats orderby network-bytes-out]]
        assert_equal $ks [lindex [cn 0 cluster slot-stats orderby key-count limit 1] 0 0]
        cn 0 del $other
    }

    test "Counters: kept but frozen while the setting is off, zeroed by RESETSTAT and when the slot changes owner" {
        ss_reset 0
        assert_equal 1 [cn 0 exists $k]
        set was [ss_net 0 $ks]
        assert_equal [list [ss_len exists $k] 4] $was
        assert_equal OK [cn 0 config set cluster-slot-stats-enabled no]
        assert_equal 1 [cn 0 exists $k]
        assert_equal OK [cn 0 config set cluster-slot-stats-enabled yes]
        assert_equal $was [ss_net 0 $ks]
        assert_equal OK [cn 0 config resetstat]
        assert_equal {key-count 1 cpu-usec 0 network-bytes-in 0 network-bytes-out 0} [ss_stats 0 $ks]
        # SETSLOT NODE to the owner itself starts the slot again
        assert_equal 1 [cn 0 exists $k]
        assert_equal OK [cn 0 cluster setslot $ks node [cluster_myid 0]]
        assert_equal {key-count 1 cpu-usec 0 network-bytes-in 0 network-bytes-out 0} [ss_stats 0 $ks]
        # an empty slot given to node 1: node 0 no longer lists it; node 1's counters start at
        # zero, whatever its -MOVED answers for the slot were
        set e [cluster_key_in_slot_of 0 empty]
        set es [cn 0 cluster keyslot $e]
        assert_equal 0 [cn 0 cluster countkeysinslot $es]
        assert_equal 0 [cn 0 exists $e]
        assert_morethan [lindex [ss_net 0 $es] 0] 0
        assert_match "MOVED $es *" [assert_error * {cn 1 get $e}]
        # each claim goes through IMPORTING, so that it bumps the claimant's config epoch: a
        # claim at a lower epoch could lose to a packet the other node sent before it gave the
        # slot away, and then neither node would own it
        assert_equal OK [cn 1 cluster setslot $es importing [cluster_myid 0]]
        assert_equal OK [cn 1 cluster setslot $es node [cluster_myid 1]]
        assert_equal OK [cn 0 cluster setslot $es node [cluster_myid 1]]
        assert_equal {} [cn 0 cluster slot-stats slotsrange $es $es]
        assert_equal [list $es {key-count 0 cpu-usec 0 network-bytes-in 0 network-bytes-out 0}] \
            [lindex [cn 1 cluster slot-stats slotsrange $es $es] 0]
        # and back
        assert_equal OK [cn 0 cluster setslot $es importing [cluster_myid 1]]
        assert_equal OK [cn 0 cluster setslot $es node [cluster_myid 0]]
        assert_equal OK [cn 1 cluster setslot $es node [cluster_myid 0]]
        cluster_wait_ok
    }
}
