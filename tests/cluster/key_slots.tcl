# Which table a key is looked up in, on a cluster node (issue 26): a command's own keys share
# the slot routing found for them, but a command also looks at other keys (SCAN's and
# RANDOMKEY's, the WATCHed keys at EXEC and FLUSHALL, DEBUG's arguments, a reload, a held
# command and the blocked clients it wakes, eviction), and each of those is in its own slot.
# One node owning every slot; {a} (slot 15495) is the slot of the transactions below, {b}
# (3300) and {c} (7365) are others.

proc ks_setup {} {
    r cluster addslotsrange 0 16383
    wait_for_condition 200 50 {[info_field [r cluster info] cluster_state] eq "ok"}
}

# Runs `cmds` (a list of commands) in one MULTI/EXEC on a client of its own (an error reply
# inside EXEC raises without reading the rest) and returns EXEC's reply.
proc ks_exec {cmds} {
    set c [valkey_client]
    $c multi
    foreach cmd $cmds { assert_equal QUEUED [$c {*}$cmd] $cmd }
    return [$c exec]
}

start_server {tags {cluster} overrides {cluster-enabled yes}} {
    ks_setup
    # Expired keys stay until a command looks at them.
    r debug set-active-expire 0

    test "SCAN and KEYS inside MULTI/EXEC see every slot; SCAN deletes expired keys of others" {
        r flushall
        set want [list {{a}x}]
        for {set i 0} {$i < 20} {incr i} {
            r set key:$i v
            lappend want key:$i
        }
        set want [lsort $want]
        r set "{b}gone" v px 1
        after 20
        set reply [ks_exec [list [list set {{a}x} 1] {scan 0 count 1000} {keys *}]]
        assert_equal [list OK [list 0 $want] $want] \
            [list [lindex $reply 0] [list [lindex $reply 1 0] [lsort [lindex $reply 1 1]]] \
                 [lsort [lindex $reply 2]]]
        assert_equal 21 [r dbsize]
    }

    test "RANDOMKEY inside MULTI/EXEC deletes an expired key of another slot and answers nil" {
        r flushall
        r set "{b}gone" v px 1
        after 20
        assert_equal {{} {}} [ks_exec [list [list get {{a}x}] randomkey]]
        assert_equal 0 [r dbsize]
    }

    test "An expired WATCHed key of another slot aborts EXEC" {
        r flushall
        set c [valkey_client]
        $c set "{b}w" v px 200
        $c watch "{b}w"
        after 300
        $c multi
        $c set "{a}x" 1
        assert_equal {} [$c exec]
        assert_equal {} [r get "{a}x"]
        # a live one of another slot does not
        r set "{b}w" v
        $c watch "{b}w"
        $c multi
        $c set "{a}x" 1
        assert_equal {OK} [$c exec]
    }

    test "FLUSHALL inside MULTI/EXEC aborts another client's EXEC watching another slot's key" {
        r flushall
        r set "{b}w" v
        set w [valkey_client]
        $w watch "{b}w"
        assert_equal {OK OK} [ks_exec [list [list set {{a}x} 1] flushall]]
        assert_equal 0 [r dbsize]
        $w multi
        $w ping
        assert_equal {} [$w exec]
    }

    test "DEBUG OBJECT and DEBUG DIGEST-VALUE inside MULTI/EXEC find a key of another slot" {
        r flushall
        r set "{b}k" v
        set digest [r debug digest-value "{b}k"]
        assert_not_equal [list [string repeat 0 40]] $digest
        set reply [ks_exec [list [list get {{a}x}] [list debug digest-value {{b}k}] \
                           [list debug object {{b}k}]]]
        assert_equal [list {} $digest] [lrange $reply 0 1]
        assert_match "Value at:* encoding:embstr *" [lindex $reply 2]
    }

    test "DEBUG RELOAD inside MULTI/EXEC loads each key into its own slot" {
        r flushall
        r set "{b}k" v
        r set "{c}k" w
        assert_equal {{} OK} [ks_exec [list [list get {{a}x}] {debug reload}]]
        assert_equal {v w} [list [r get "{b}k"] [r get "{c}k"]]
        set counts {}
        foreach tag {a b c} {
            lappend counts [r cluster countkeysinslot [r cluster keyslot "{$tag}"]]
        }
        assert_equal {0 1 1} $counts
    }

    # CLIENT UNPAUSE inside a transaction runs the held commands there and then.
    test "CLIENT UNPAUSE inside MULTI/EXEC: the held LPUSH wakes a BLPOP on a key of another slot" {
        r flushall
        set b [valkey_client]
        $b deferred 1
        $b blpop "{b}l" 0
        wait_for_condition 200 10 {[s blocked_clients] == 1}
        r client pause 100000 write
        set p [valkey_client]
        set pid [$p client id]
        $p deferred 1
        $p lpush "{b}l" x
        wait_for_condition 200 10 {[client_field [r client list id $pid] flags] eq "b"}
        assert_equal {{} OK} [ks_exec [list [list get {{a}x}] {client unpause}]]
        assert_equal 1 [$p read]
        assert_equal 0 [r llen "{b}l"]
        assert_equal [list {{b}l} x] [$b read 5000]
        assert_equal 0 [s blocked_clients]
    }

    test "CLIENT UNPAUSE inside MULTI/EXEC: the held command evicts keys of other slots for real" {
        r flushall
        r config resetstat
        r config set maxmemory-policy allkeys-random
        r set "{b}k" v
        r client pause 100000 write
        r config set maxmemory 1
        set p [valkey_client]
        set pid [$p client id]
        $p deferred 1
        $p set "{c}k" 1
        wait_for_condition 200 10 {[client_field [r client list id $pid] flags] eq "b"}
        try {
            assert_equal {{} OK} [ks_exec [list [list get {{a}x}] {client unpause}]]
            assert_error "OOM *" {$p read}
        } finally {
            r config set maxmemory 0
        }
        assert_equal {0 1} [list [r dbsize] [s evicted_keys]]
    }
}
