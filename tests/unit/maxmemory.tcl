# maxmemory and eviction: every maxmemory-policy, the -OOM verdict (MULTI included), what
# evictions propagate and notify, the replica's replica-ignore-maxmemory, CLIENT PAUSE, the INFO
# fields and the config checks. Written to pass on Valkey 8 as well.

# Writes keys prefix:from .. prefix:to-1 with values of `size` bytes (and a TTL in seconds when
# ttl > 0), pipelined. Returns the number of -OOM replies.
proc mm_fill {prefix from to size {ttl 0}} {
    set c [valkey_client]
    $c deferred 1
    set val [string repeat x $size]
    for {set i $from} {$i < $to} {incr i} {
        if {$ttl > 0} { $c set $prefix:$i $val ex $ttl } else { $c set $prefix:$i $val }
    }
    set oom 0
    for {set i $from} {$i < $to} {incr i} {
        if {[catch {$c read} e]} {
            if {![string match "OOM *" $e]} { error $e }
            incr oom
        }
    }
    $c close
    return $oom
}

# Writes 1000-byte values one by one until a write is refused; returns the error.
proc mm_set_until_oom {prefix} {
    set val [string repeat x 1000]
    for {set i 0} {$i < 100000} {incr i} {
        if {[catch {r set $prefix:$i $val} e]} { return $e }
    }
    return "never refused"
}

# How many of prefix:from .. prefix:to-1 exist.
proc mm_count {prefix from to} {
    set n 0
    for {set i $from} {$i < $to} {incr i} { incr n [r exists $prefix:$i] }
    return $n
}

# Reads each key `times` times (LRU/LFU access), pipelined.
proc mm_touch {prefix from to times} {
    set c [valkey_client]
    $c deferred 1
    for {set t 0} {$t < $times} {incr t} {
        for {set i $from} {$i < $to} {incr i} { $c get $prefix:$i }
    }
    for {set t 0} {$t < $times} {incr t} {
        for {set i $from} {$i < $to} {incr i} { $c read }
    }
    $c close
}

# Sets maxmemory `extra` bytes above the memory in use now.
# The limit `extra` bytes above what is used once what an earlier FLUSHALL (lazy by default)
# handed to the lazy-free thread is freed: measured before, the limit would hold that too.
proc mm_limit_above_used {extra} {
    wait_for_condition 500 10 {[s lazyfree_pending_objects] == 0} else {
        fail "lazy free still pending: [s lazyfree_pending_objects] objects"
    }
    set limit [expr {[s used_memory] + $extra}]
    r config set maxmemory $limit
    return $limit
}

proc mm_reset {policy} {
    r config set maxmemory 0
    r flushall
    r config set maxmemory-policy $policy
    r config set maxmemory-samples 10
    r config resetstat
}

start_server {tags {maxmemory}} {
    test "maxmemory directives: values and errors as Valkey 8" {
        foreach {name value err} {
            maxmemory-policy foo "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"
            maxmemory-samples 0 "argument must be between 1 and 64 inclusive"
            maxmemory-samples 65 "argument must be between 1 and 64 inclusive"
            maxmemory-eviction-tenacity 101 "argument must be between 0 and 100 inclusive"
            lfu-log-factor -1 "argument must be between 0 and 2147483647 inclusive"
            lfu-decay-time -1 "argument must be between 0 and 2147483647 inclusive"
        } {
            assert_equal "ERR CONFIG SET failed (possibly related to argument '$name') - $err" \
                [assert_error * {r config set $name $value}]
        }
        foreach {name value} {
            maxmemory-policy noeviction maxmemory-samples 5 maxmemory-eviction-tenacity 10
            lfu-log-factor 10 lfu-decay-time 1 replica-ignore-maxmemory yes
            slave-ignore-maxmemory yes lazyfree-lazy-eviction yes maxmemory 0
        } {
            assert_equal [list $name $value] [r config get $name]
        }
        foreach p {volatile-lru volatile-lfu volatile-random volatile-ttl allkeys-lru allkeys-lfu allkeys-random noeviction} {
            assert_equal OK [r config set maxmemory-policy [string toupper $p]]
            assert_equal [list maxmemory-policy $p] [r config get maxmemory-policy]
            assert_equal $p [s maxmemory_policy]
        }
        r config set maxmemory 100mb
        assert_equal 104857600 [s maxmemory]
        assert_equal 100.00M [s maxmemory_human]
        r config set maxmemory 0
    }

    test "noeviction: over the limit, commands that use memory get -OOM; reads, DEL and DISCARD run" {
        mm_reset noeviction
        r set keep v
        mm_limit_above_used 500000
        assert {[mm_fill k 0 2000 1000] > 0}
        # Well below the memory in use now (the pipelining client's buffers are gone).
        r config set maxmemory [expr {[s used_memory] - 200000}]
        assert_equal "OOM command not allowed when used memory > 'maxmemory'." \
            [assert_error * {r set another v}]
        assert_equal "OOM command not allowed when used memory > 'maxmemory'." \
            [assert_error * {r lpush l a}]
        assert_equal v [r get keep]
        assert_equal 1 [r exists keep]
        assert_equal 0 [s evicted_keys]
        assert {[s current_eviction_exceeded_time] >= 0}
        # Inside MULTI a read is queued and a write refused, so EXEC aborts; reads alone run.
        assert_equal OK [r multi]
        assert_equal QUEUED [r get keep]
        assert_equal "OOM command not allowed when used memory > 'maxmemory'." \
            [assert_error * {r set keep w}]
        assert_equal "EXECABORT Transaction discarded because of previous errors." \
            [assert_error * {r exec}]
        assert_equal OK [r multi]
        assert_equal QUEUED [r get keep]
        assert_equal {v} [r exec]
        assert_equal OK [r multi]
        assert_equal OK [r discard]
        # DEL frees memory and writes work again.
        for {set i 0} {$i < 2000} {incr i} { r del k:$i }
        assert_equal OK [r set another v]
        r config set maxmemory 0
    }

    test "EXEC of a transaction that queued a write fails when memory ran out meanwhile" {
        mm_reset noeviction
        mm_fill k 0 500 1000
        assert_equal OK [r multi]
        assert_equal QUEUED [r set x y]
        set c [valkey_client]
        $c config set maxmemory [expr {[info_field [$c info memory] used_memory] - 200000}]
        assert_equal "EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'." \
            [assert_error * {r exec}]
        $c config set maxmemory 0
        $c close
        assert_equal 0 [r exists x]
    }

    test "allkeys-lru: the keys used last survive, the ones idle longest are evicted" {
        mm_reset allkeys-lru
        mm_fill cold 0 2000 1000
        mm_fill hot 0 200 1000
        # The LRU clock counts seconds: let the cold keys age.
        after 2100
        mm_touch hot 0 200 1
        mm_limit_above_used 1000000
        assert_equal 0 [mm_fill new 0 2000 1000]
        assert {[s evicted_keys] > 500}
        assert_equal 200 [mm_count hot 0 200]
        assert {[mm_count cold 0 2000] < 1600}
        assert {[s used_memory] <= [lindex [r config get maxmemory] 1] + 50000}
    }

    test "allkeys-lfu: the keys used most survive" {
        mm_reset allkeys-lfu
        mm_fill cold 0 2000 1000
        mm_fill hot 0 100 1000
        mm_touch hot 0 100 60
        assert {[r object freq hot:7] > 5}
        mm_limit_above_used 1000000
        assert_equal 0 [mm_fill new 0 2000 1000]
        assert {[s evicted_keys] > 500}
        assert_equal 100 [mm_count hot 0 100]
        r config set maxmemory 0
    }

    test "volatile-ttl: the nearest expire goes first, keys without TTL never; then -OOM" {
        mm_reset volatile-ttl
        mm_fill persistent 0 500 1000
        mm_fill soon 0 500 1000 1000
        mm_fill late 0 500 1000 100000
        mm_limit_above_used 300000
        assert_equal 0 [mm_fill new 0 450 1000]
        assert {[s evicted_keys] > 100}
        assert {[mm_count soon 0 500] < 450}
        # Sampling is approximate (as in Valkey): a later expire may rarely go first.
        assert {[mm_count late 0 500] >= 495}
        assert_equal 500 [mm_count persistent 0 500]
        # More than the volatile keys can free: they all go, then writes are refused.
        assert {[mm_fill more 0 2000 1000] > 0}
        assert_equal 0 [mm_count soon 0 500]
        assert_equal 0 [mm_count late 0 500]
        assert_equal 500 [mm_count persistent 0 500]
        assert_equal "OOM command not allowed when used memory > 'maxmemory'." \
            [mm_set_until_oom one-more]
        r config set maxmemory 0
    }

    test "volatile-lru and volatile-random evict only keys with an expire" {
        foreach policy {volatile-lru volatile-random volatile-lfu} {
            mm_reset $policy
            mm_fill persistent 0 500 1000
            mm_fill vol 0 1000 1000 100000
            mm_limit_above_used 300000
            assert_equal 0 [mm_fill new 0 600 1000] $policy
            assert {[s evicted_keys] > 100} $policy
            assert_equal 500 [mm_count persistent 0 500] $policy
            assert {[mm_count vol 0 1000] < 950} $policy
        }
        r config set maxmemory 0
    }

    test "allkeys-random frees memory down to the limit" {
        mm_reset allkeys-random
        mm_fill a 0 3000 1000
        set limit [mm_limit_above_used 200000]
        assert_equal 0 [mm_fill b 0 2000 1000]
        assert {[s evicted_keys] > 1000}
        assert {[s used_memory] <= $limit + 50000}
        r config set maxmemory 0
    }

    test "A key table does not grow its buckets past maxmemory below a load of 1.618" {
        # As Valkey 8's dictExpandAllowed: the 5121st key of a table of 512 buckets (10 keys a
        # bucket) would make it allocate 64 KB of buckets, and the node evicted hundreds of keys
        # to hold them (660 of 4,098 with the chained table of 4,096 buckets this replaced). It
        # waits instead, until a load of 1.618 or room under the limit.
        mm_reset allkeys-random
        r debug populate 5119 "" 1
        r info
        r info
        mm_limit_above_used 10240
        r set k0 v0
        r set k1 v1
        r set k2 v2
        assert_equal 5122 [r dbsize]
        assert_equal 0 [s evicted_keys]
        assert_match "*Dictionary HT*table size: 512\n number of elements: 5122*" [r debug htstats 0]
        # the same for the set of keys with an expire past 97% of its slots (4096 slots hold
        # 3968; the key table, of 512 buckets, does not grow meanwhile)
        r config set maxmemory 0
        r flushall
        r debug htstats 0
        for {set i 0} {$i < 3960} {incr i} { r set x$i v px 1000000 }
        assert_match "*Expires HT*table size: 4096*" [r debug htstats 0]
        mm_limit_above_used 10240
        for {set i 0} {$i < 20} {incr i} { r set y$i v px 1000000 }
        assert_equal 0 [s evicted_keys]
        assert_equal 3980 [r dbsize]
        assert_match "*Expires HT*table size: 4096*number of elements: 3980*" [r debug htstats 0]
        # without the limit the tables grow again
        r config set maxmemory 0
        for {set i 0} {$i < 7000} {incr i} { r set z$i v }
        assert_match "*Dictionary HT*table size: 2048\n*Expires HT*" [r debug htstats 0]
    }

    test "Evictions propagate as UNLINK (lazyfree-lazy-eviction yes) or DEL, and count" {
        mm_reset allkeys-random
        r set k1 v
        set tap [repl_tap_open]
        r config set maxmemory 1
        wait_for_condition 50 20 {[r dbsize] == 0} else { fail "k1 not evicted" }
        r config set maxmemory 0
        r config set lazyfree-lazy-eviction no
        r set k2 v
        r config set maxmemory 1
        wait_for_condition 50 20 {[r dbsize] == 0} else { fail "k2 not evicted" }
        r config set maxmemory 0
        r config set lazyfree-lazy-eviction yes
        assert_equal {SELECT 0} [repl_tap_next $tap]
        assert_equal {UNLINK k1} [repl_tap_next $tap]
        assert_equal {set k2 v} [repl_tap_next $tap]
        assert_equal {DEL k2} [repl_tap_next $tap]
        close $tap
        assert_equal 2 [s evicted_keys]
        assert {[s total_eviction_exceeded_time] >= [s current_eviction_exceeded_time]}
    }

    tags {beyond-valkey} {
        test "current_eviction_exceeded_time stops when maxmemory goes back to 0" {
            # Valkey 8 keeps counting it until a later eviction round ends under a limit.
            mm_reset allkeys-random
            r set k v
            r config set maxmemory 1
            wait_for_condition 50 20 {[r dbsize] == 0} else { fail "k not evicted" }
            after 20
            r config set maxmemory 0
            assert_equal 0 [s current_eviction_exceeded_time]
            set total [s total_eviction_exceeded_time]
            assert {$total >= 20}
            after 50
            assert_equal $total [s total_eviction_exceeded_time]
        }
    }

    test "CLIENT PAUSE WRITE holds evictions until it ends" {
        mm_reset allkeys-random
        r set k v
        r client pause 60000 write
        r config set maxmemory 1
        after 300
        assert_equal 1 [r dbsize]
        assert_equal 0 [s evicted_keys]
        r client unpause
        # The next command evicts before it runs.
        assert_equal 0 [r dbsize]
        assert_equal 1 [s evicted_keys]
        r config set maxmemory 0
    }

    test "INFO: eviction fields" {
        foreach f {evicted_keys total_eviction_exceeded_time current_eviction_exceeded_time} {
            assert_match {[0-9]*} [s $f] $f
        }
        foreach f {mem_not_counted_for_evict maxmemory maxmemory_human maxmemory_policy} {
            assert {[s $f] ne {}} $f
        }
    }
}

start_server {tags {maxmemory repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "A replica ignores maxmemory (replica-ignore-maxmemory yes) and applies its primary's evictions" {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[status r master_link_status] eq "up"} else { fail "no link" }
            r -1 config set maxmemory-policy allkeys-random
            r -1 mset a 1 b 2 c 3
            wait_for_condition 100 20 {[r dbsize] == 3} else { fail "not replicated" }
            r config set maxmemory 1
            r config set maxmemory-policy allkeys-random
            after 300
            assert_equal 3 [r dbsize]
            assert_equal 0 [s evicted_keys]
            # The primary evicts; the replica follows through the stream.
            r -1 config set maxmemory 1
            wait_for_condition 100 20 {[r -1 dbsize] == 0} else { fail "primary kept keys" }
            wait_for_condition 100 20 {[r dbsize] == 0} else { fail "replica kept keys" }
            assert_equal 0 [s evicted_keys]
            assert_equal 3 [s -1 evicted_keys]
            r -1 config set maxmemory 0
            # replica-ignore-maxmemory no: the replica evicts by itself.
            r -1 mset a 1 b 2 c 3
            wait_for_condition 100 20 {[r dbsize] == 3} else { fail "not replicated" }
            r config set replica-ignore-maxmemory no
            wait_for_condition 100 20 {[r dbsize] == 0} else { fail "replica did not evict" }
            assert_equal 3 [s evicted_keys]
            assert_equal 3 [r -1 dbsize]
        }
    }
}

# The inner server becomes a replica of the outer one, which holds 100 keys of 100 KB.
proc mm_replica_of_10mb_primary {} {
    for {set j 0} {$j < 100} {incr j} { r -1 setrange key:$j 100000 x }
    r replicaof [srv -1 host] [srv -1 port]
    wait_for_condition 100 50 {[status r master_link_status] eq "up"} else { fail "no link" }
}

# What a stopped replica is owed is not data: INFO mem_clients_slaves shows it (as Valkey 8),
# mem_not_counted_for_evict leaves it out at its allocated size, and no key is evicted for it.
start_server {tags {maxmemory repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "A stopped replica's output: mem_clients_slaves, not counted for eviction" {
            mm_replica_of_10mb_primary
            r -1 config set client-output-buffer-limit "replica 0 0 0"
            r -1 config set maxmemory-policy allkeys-random
            # The backlog fills to its size first, as in Valkey 8 (its blocks come as the stream
            # does; they count as data would): 2 MB through a 1 MB backlog, the replica reading.
            r -1 config set repl-backlog-size 1mb
            for {set k 0} {$k < 2000} {incr k} { r -1 setrange key:0 0 [string repeat A 1000] }
            wait_for_condition 100 50 {[s -1 master_repl_offset] == [s master_repl_offset]}
            assert_morethan_equal [s -1 repl_backlog_histlen] 1048576
            set used [s -1 used_memory]
            set limit [expr {$used - [s -1 mem_not_counted_for_evict] + 262144}]
            r -1 config set maxmemory $limit
            set pid [srv 0 pid]
            exec kill -STOP $pid
            try {
                set c [valkey_client -1]
                # 20 MB of writes that do not grow the data: more than the kernel buffers take
                for {set k 0} {$k < 20000} {incr k} { $c setrange key:0 0 [string repeat A 1000] }
                $c close
                set backlog [lindex [r -1 config get repl-backlog-size] 1]
                set mem [r -1 info memory]
                set owed [info_field $mem mem_clients_slaves]
                assert_morethan $owed 2000000
                # all of it but an allowance for the backlog's block headers (64 bytes a 16 KB
                # block of the backlog's size), as Valkey 8 reckons it
                assert_equal [expr {$owed - ($backlog / 16384 + 1) * 64}] \
                    [info_field $mem mem_not_counted_for_evict]
                # the backlog apart, both in the replication buffers (Valkey 8's fields)
                # (Valkey 8 adds the few hundred bytes of its index of the blocks)
                assert_morethan_equal [info_field $mem mem_replication_backlog] $backlog
                assert_lessthan [info_field $mem mem_replication_backlog] [expr {$backlog + 1024}]
                # (the replica's own output before its stream, a few bytes, is in its share too)
                set tot [info_field $mem mem_total_replication_buffers]
                assert_morethan_equal [expr {$backlog + $owed}] $tot
                assert_lessthan [expr {$backlog + $owed - $tot}] 1024
                assert_equal 100 [r -1 dbsize]
                assert_equal 0 [s -1 evicted_keys]
            } finally {
                exec kill -CONT $pid
            }
            r -1 config set maxmemory 0
            wait_for_condition 100 50 {[s -1 mem_clients_slaves] < 1000000} else {
                fail "the replica's output never drained"
            }
        }
    }
}

# A replica link costs little once its sync is done: the room its snapshot passed through
# (64 KB chunks) went with the transfer; it stayed for the link's life (85 KB counted as data
# by eviction, found by Valkey 8.0.1's "replica buffer don't induce eviction").
start_server {tags {maxmemory repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "A synced replica link holds no snapshot buffer: dropping it frees little" {
            mm_replica_of_10mb_primary
            set mem [r -1 info memory]
            set before [expr {[info_field $mem used_memory] - [info_field $mem mem_not_counted_for_evict]}]
            r replicaof no one
            wait_for_condition 100 50 {[s -1 connected_slaves] == 0}
            set mem [r -1 info memory]
            set after [expr {[info_field $mem used_memory] - [info_field $mem mem_not_counted_for_evict]}]
            assert_lessthan [expr {$before - $after}] 40000
        }
    }
}

# lfu-decay-time 0: a minute boundary between SET and OBJECT FREQ would take one off
start_server {tags {maxmemory} overrides {maxmemory 100mb maxmemory-policy allkeys-lfu
                                          lfu-decay-time 0}} {
    test "maxmemory in the config file is enforced from the start" {
        assert_equal {maxmemory 104857600} [r config get maxmemory]
        assert_equal allkeys-lfu [s maxmemory_policy]
        r set k v
        assert_equal 5 [r object freq k]
    }
}

start_server {tags {maxmemory} overrides {maxmemory 1000}} {
    test "A maxmemory below 1MB is logged as a warning at start" {
        assert {[log_contains "*WARNING: You specified a maxmemory value that is less than 1MB (current value is 1000 bytes). Are you sure this is what you really want?*"]}
    }
}

start_server {tags {maxmemory}} {
    test "A slow reader's output counts at its size in omem and used_memory, not a doubled capacity" {
        r config set client-output-buffer-limit "normal 0 0 0"
        r del l
        for {set i 0} {$i < 100} {incr i} { r rpush l [string repeat x 20]$i }
        set before [s used_memory]
        set fd [valkey_raw]
        set cmd "*4\r\n\$6\r\nLRANGE\r\n\$1\r\nl\r\n\$1\r\n0\r\n\$2\r\n-1\r\n"
        puts -nonewline $fd [string repeat $cmd 10000]
        flush $fd
        # Until the node has answered all of them (what it holds stops growing).
        set last -1
        set omem -2
        for {set i 0} {$i < 100 && $omem != $last} {incr i} {
            after 100
            set last $omem
            set line [lsearch -inline [split [r client list] \n] "*cmd=lrange*"]
            if {![regexp {omem=(\d+)} $line -> omem]} { set omem -2 }
        }
        assert_equal $last $omem "the slow reader's output never settled"
        regexp {obl=(\d+)} $line -> obl
        regexp {oll=(\d+)} $line -> oll
        set grew [expr {[s used_memory] - $before}]
        assert_morethan $obl 10000000
        assert_morethan $oll 0
        # Blocks of output hold their bytes (plus the block being written, the one being filled
        # and the buffer of the next reply: at most about 1 MB), and used_memory grows by about
        # that much. A doubled capacity would be up to twice the pending bytes.
        assert {$omem <= $obl + 1100000} "omem $omem for $obl pending bytes"
        assert {$grew <= $omem * 1.1 + 1048576} "used_memory grew $grew for omem $omem"
        close $fd
        r config set client-output-buffer-limit "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60"
    } {beyond-valkey}
}

start_server {tags {maxmemory client-eviction}} {
    test "maxmemory-clients: values and errors as Valkey 8" {
        foreach {v err} {
            abc "argument must be a memory or percent value"
            -5 "argument must be a memory or percent value"
            101% "percentage argument must be less or equal to 100"
        } {
            assert_equal "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - $err" \
                [assert_error * {r config set maxmemory-clients $v}]
        }
        foreach {v shown} {10% 10% 1mb 1048576 0 0} {
            r config set maxmemory-clients $v
            assert_equal [list maxmemory-clients $shown] [r config get maxmemory-clients]
        }
    }

    # A raw client that asks for a large reply many times and reads nothing.
    proc mm_hog {{no_evict 0}} {
        set fd [valkey_raw]
        if {$no_evict} {
            puts -nonewline $fd "CLIENT NO-EVICT on\r\n"
        }
        puts -nonewline $fd [string repeat "GET big\r\n" 100]
        flush $fd
        return $fd
    }
    proc mm_closed {fd} {
        fconfigure $fd -blocking 0
        for {set i 0} {$i < 200} {incr i} {
            read $fd
            if {[eof $fd]} { return 1 }
            after 10
        }
        return 0
    }

    test "maxmemory-clients: the client holding the most memory is closed, others stay" {
        r config set maxmemory-clients 1mb
        r set big [string repeat x 100000]
        set evicted [s evicted_clients]
        set fd [mm_hog]
        wait_for_condition 100 20 {[s evicted_clients] == $evicted + 1} else { fail "not evicted" }
        assert_equal 1 [mm_closed $fd]
        close $fd
        assert {[log_contains "*Evicting client: id=*"]}
        assert_equal PONG [r ping]
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients: an unfinished big argument is held in a buffer of its size" {
        # As Valkey 8 (client-eviction.tcl's "decrease maxmemory-clients" case): ten clients
        # each part-way through a 300 KB argument fit a 4 MB limit. The buffer grew by doubling
        # before, to 512 KB each, and two of them were closed.
        r config set maxmemory-clients 4mb
        set evicted [s evicted_clients]
        set n 314572
        set fds {}
        for {set j 0} {$j < 10} {incr j} {
            set fd [valkey_raw]
            puts -nonewline $fd "CLIENT SETNAME big$j\r\n*2\r\n\$$n\r\n[string repeat v $n]"
            flush $fd
            lappend fds $fd
            wait_for_condition 200 10 {
                [regexp [format {name=big%d .*qbuf=([0-9]+)} $j] [r client list] -> q] && $q >= $n
            } else { fail "big$j's argument did not arrive" }
        }
        set lines [lsearch -all -inline [split [string trim [r client list]] "\r\n"] *name=big*]
        assert_equal 10 [llength $lines]
        foreach line $lines {
            assert_equal 2 [client_field $line qbuf-free]
            assert_range [client_field $line tot-mem] $n [expr {$n + 16384}]
        }
        assert_equal $evicted [s evicted_clients]
        r config set maxmemory-clients 2mb
        wait_for_condition 100 20 {[s evicted_clients] > $evicted} else { fail "none closed" }
        set left [llength [lsearch -all [split [string trim [r client list]] "\r\n"] *name=big*]]
        assert {$left > 0 && $left < 10}
        foreach fd $fds { close $fd }
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients: a CLIENT NO-EVICT client stays, its memory still counts" {
        r config set maxmemory-clients 1mb
        set evicted [s evicted_clients]
        set kept [mm_hog 1]
        set other [mm_hog]
        wait_for_condition 100 20 {[mm_closed $other]} else { fail "the other client stayed" }
        close $other
        assert_equal 0 [mm_closed $kept]
        close $kept
        reconnect  ;# over the limit, our own client may have gone too
        assert {[s evicted_clients] >= $evicted + 1}
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients: WATCHed keys, subscriptions and tracking prefixes count, so such a client is closed too" {
        # As Valkey 8: their entries count towards the client's memory.
        r config set maxmemory-clients 200000
        foreach cmd {watch psubscribe subscribe} {
            set evicted [s evicted_clients]
            set c [valkey_client]
            set closed 0
            for {set j 0} {$j < 200000 && !$closed} {incr j} {
                if {[catch {$c $cmd k$j} e]} { set closed 1 }
            }
            assert_equal 1 $closed "$cmd: the client was never closed"
            assert_morethan [s evicted_clients] $evicted
            catch {$c close}
        }
        # BCAST prefixes count too (before, a client added them without bound, never closed)
        set evicted [s evicted_clients]
        set c [valkey_client]
        set closed 0
        for {set j 0} {$j < 200000 && !$closed} {incr j} {
            if {[catch {$c client tracking on bcast prefix [format a%09s $j] prefix [format b%09s $j]} e]} {
                set closed 1
            }
        }
        assert_equal 1 $closed "tracking prefixes: the client was never closed"
        assert_morethan [s evicted_clients] $evicted
        catch {$c close}
        r config set maxmemory-clients 0
    }

    test "maxmemory-clients as a percentage of maxmemory 0 is no limit" {
        r config set maxmemory-clients 1%
        set evicted [s evicted_clients]
        set fd [mm_hog]
        after 500
        assert_equal $evicted [s evicted_clients]
        close $fd
        r config set maxmemory-clients 0
    }
}

# Eviction measures what a deletion gives back, not the invalidations it sends: counted, 10
# tracking clients' messages about a 1 KB key name outweighed the key, and each eviction
# called for another until the data set was gone.
start_server {tags {maxmemory tracking}} {
    test "Tracking invalidations do not make eviction drain the data set" {
        r config set maxmemory-policy allkeys-lru
        set clients {}
        for {set j 0} {$j < 10} {incr j} {
            set c [valkey_client]
            $c hello 3
            $c client tracking on
            $c deferred 1
            lappend clients $c
        }
        for {set j 0} {$j < 300} {incr j} {
            set key $j[string repeat x 1000]
            r set $key x
            foreach c $clients {
                $c get $key
                $c read
            }
        }
        after 1100
        r config set maxmemory [expr {[s used_memory] - 40000}]
        set evicted [s evicted_keys]
        assert_range [r dbsize] 200 299
        assert_range $evicted 1 100
        r config set maxmemory 0
        foreach c $clients { $c close }
    }
}
