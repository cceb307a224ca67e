# DEBUG subcommands of issue 30 (point 12), with the replies and errors of Valkey 8.0.1:
# POPULATE, PAUSE-CRON, SET-SKIP-CHECKSUM-VALIDATION, STRINGMATCH-TEST, REPLYBUFFER,
# DICT-RESIZING, LISTPACK, QUICKLIST, HTSTATS, HTSTATS-KEY, the cluster bus switches (their effect on a cluster is in
# tests/cluster/debug_bus_filter.tcl) and the list DEBUG HELP gives. Passes on Valkey 8.0.1 with
# --tags -beyond-valkey: the tagged tests look at our own help text and at STRINGMATCH-TEST,
# which crashes Valkey 8.0.1 (a read past the end of its random pattern).

# DEBUG's reply to an unknown subcommand or a wrong number of arguments.
proc dbg_syntax {sub} {
    return "ERR unknown subcommand or wrong number of arguments for '$sub'. Try DEBUG HELP."
}

# SCAN 0 COUNT 1 ... until the cursor is 0: how many calls (one bucket or more each).
proc dbg_scan_calls {} {
    set cursor 0
    set calls 0
    while 1 {
        set cursor [lindex [r scan $cursor count 1] 0]
        incr calls
        if {$cursor eq "0"} { return $calls }
    }
}

start_server {tags {debug}} {
    test "DEBUG HELP lists the subcommands this node implements" {
        set names {}
        foreach line [r debug help] {
            if {![string match " *" $line]} { lappend names [lindex [split $line " "] 0] }
        }
        assert_equal [lrange {DEBUG AOF-FLUSH-SLEEP CHANGE-REPL-ID CONFIG-REWRITE-FORCE-ALL DIGEST DIGEST-VALUE LOG LOADAOF OBJECT
            DROP-CLUSTER-PACKET-FILTER CLOSE-CLUSTER-LINK-ON-PACKET-DROP SLOT-MIGRATION-HANDOVER-DELAY CONFIG-FSYNC-DELAY SLOT-MIGRATION-WALK-LIMIT SLOT-MIGRATION-LINK POPULATE PROTOCOL REPLICATE RELOAD
            SET-ACTIVE-EXPIRE QUICKLIST-PACKED-THRESHOLD SET-SKIP-CHECKSUM-VALIDATION SLEEP
            SEGFAULT ASSERT STRINGMATCH-TEST LISTPACK QUICKLIST PAUSE-CRON REPLYBUFFER REPLYBUFFER DICT-RESIZING
            HTSTATS HTSTATS-KEY CLUSTERLINK HELP} 0 end] $names
    } {beyond-valkey}

    test "DEBUG POPULATE: key:<n> holding value:<n>, no change counted" {
        r flushall
        set dirty [info_field [r info persistence] rdb_changes_since_last_save]
        assert_equal OK [r debug populate 3]
        assert_equal {key:0 key:1 key:2} [lsort [r keys *]]
        assert_equal {value:0 value:1 value:2} [r mget key:0 key:1 key:2]
        assert_equal $dirty [info_field [r info persistence] rdb_changes_since_last_save]
        assert_equal OK [r debug populate 0]
        assert_equal 3 [r dbsize]
    }

    test "DEBUG POPULATE: prefix, size (cut or zero-padded), existing keys kept" {
        r flushall
        assert_equal OK [r debug populate 2 p 3]
        assert_equal {val val} [r mget p:0 p:1]
        assert_equal OK [r debug populate 1 q 10]
        assert_equal "value:0[string repeat \x00 3]" [r get q:0]
        assert_equal OK [r debug populate 2 z 0]
        assert_equal {value:0 value:1} [r mget z:0 z:1]
        r set key:1 mine
        r rpush key:3 a
        assert_equal OK [r debug populate 5]
        assert_equal {value:0 mine value:2 value:4} [r mget key:0 key:1 key:2 key:4]
        assert_equal list [r type key:3]
        # the name is cut at 127 bytes
        assert_equal OK [r debug populate 1 [string repeat a 200]]
        assert_equal value:0 [r get [string repeat a 127]]
    }

    test "DEBUG POPULATE: errors" {
        assert_error "ERR value is out of range, must be positive" {r debug populate -1}
        assert_error "ERR value is out of range, must be positive" {r debug populate x}
        assert_error "ERR value is out of range, must be positive" {r debug populate 1 p -1}
        assert_error "ERR value is out of range, must be positive" {r debug populate 1 p x}
        assert_error [dbg_syntax populate] {r debug populate}
        assert_error [dbg_syntax POPULATE] {r debug POPULATE 1 p 2 3}
    }

    test "DEBUG PAUSE-CRON: no background expiry while paused" {
        r flushall
        assert_equal OK [r debug pause-cron 1]
        for {set i 0} {$i < 10} {incr i} { r set e$i v px 50 }
        after 400
        assert_equal 10 [r dbsize]
        assert_equal OK [r debug pause-cron 0]
        wait_for_condition 100 50 {[r dbsize] == 0} else { fail "keys never expired" }
        # atoi: a non-number is 0
        assert_equal OK [r debug pause-cron x]
        assert_error [dbg_syntax pause-cron] {r debug pause-cron}
        assert_error [dbg_syntax pause-cron] {r debug pause-cron 1 2}
    }

    test "DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE takes a payload with a wrong checksum" {
        r flushall
        r set src hello
        set payload [r dump src]
        set bad [string range $payload 0 end-1][format %c [expr {([scan [string index $payload end] %c] + 1) % 256}]]
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst 0 $bad}
        assert_equal OK [r debug set-skip-checksum-validation 1]
        assert_equal OK [r restore dst 0 $bad]
        assert_equal hello [r get dst]
        # the version is still checked
        set newer [string range $bad 0 end-10]\xff\xff[string range $bad end-7 end]
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst2 0 $newer}
        assert_equal OK [r debug set-skip-checksum-validation 0]
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore dst3 0 $bad}
        assert_equal OK [r debug set-skip-checksum-validation foo]
        assert_error [dbg_syntax set-skip-checksum-validation] {r debug set-skip-checksum-validation}
    }

    test "DEBUG STRINGMATCH-TEST runs the glob matcher on random input" {
        assert_equal "Apparently the server did not crash: test passed" [r debug stringmatch-test]
        assert_equal PONG [r ping]
    } {beyond-valkey}

    test "DEBUG STRINGMATCH-TEST arguments; STRINGMATCH-LEN and JMAP are not subcommands" {
        assert_error [dbg_syntax stringmatch-test] {r debug stringmatch-test x}
        assert_error [dbg_syntax stringmatch-len] {r debug stringmatch-len}
        assert_error [dbg_syntax jmap] {r debug jmap}
    }

    test "DEBUG REPLYBUFFER: PEAK-RESET-TIME and RESIZING" {
        assert_equal OK [r debug replybuffer peak-reset-time never]
        assert_equal OK [r debug replybuffer peak-reset-time RESET]
        assert_equal OK [r debug replybuffer peak-reset-time 100]
        assert_equal OK [r debug replybuffer peak-reset-time -7]
        assert_error "ERR value is not an integer or out of range" {r debug replybuffer peak-reset-time x}
        assert_equal OK [r debug replybuffer resizing 0]
        assert_equal OK [r debug replybuffer resizing x]
        assert_equal OK [r debug replybuffer resizing 1]
        assert_error [dbg_syntax replybuffer] {r debug replybuffer foo 1}
        assert_error [dbg_syntax replybuffer] {r debug replybuffer resizing}
        assert_error [dbg_syntax replybuffer] {r debug replybuffer}
        assert_equal OK [r debug replybuffer peak-reset-time reset]
    }

    test "DEBUG DICT-RESIZING 0 keeps the key table at its size; 1 lets it grow" {
        r flushall
        assert_equal OK [r debug dict-resizing 0]
        for {set i 0} {$i < 200} {incr i} { r set k$i v }
        # 200 keys in the first bucket (a chain of child buckets): a SCAN of COUNT 1 takes 1 call
        assert_equal 1 [dbg_scan_calls]
        assert_match "*table size: 1\n number of elements: 200*" [r debug htstats 0]
        assert_equal OK [r debug dict-resizing 1]
        r set k200 v
        after 200
        assert_morethan [dbg_scan_calls] 16
        assert_error [dbg_syntax dict-resizing] {r debug dict-resizing}
    }

    test "DEBUG DROP-CLUSTER-PACKET-FILTER and CLOSE-CLUSTER-LINK-ON-PACKET-DROP replies" {
        assert_equal OK [r debug drop-cluster-packet-filter 1]
        assert_equal OK [r debug drop-cluster-packet-filter -1]
        assert_error "ERR value is not an integer or out of range" {r debug drop-cluster-packet-filter x}
        assert_error [dbg_syntax drop-cluster-packet-filter] {r debug drop-cluster-packet-filter}
        assert_equal OK [r debug close-cluster-link-on-packet-drop 1]
        assert_equal OK [r debug close-cluster-link-on-packet-drop x]
        assert_error [dbg_syntax close-cluster-link-on-packet-drop] {r debug close-cluster-link-on-packet-drop}
    }

    test "DEBUG CLUSTERLINK KILL on a standalone node: Valkey 8's error" {
        assert_error "ERR Debug option only available for cluster mode enabled setup!" \
            {r debug clusterlink kill to 0123456789012345678901234567890123456789}
        assert_error [dbg_syntax clusterlink] {r debug clusterlink kill to}
        assert_error [dbg_syntax clusterlink] {r debug clusterlink stop to x}
    }

    test "DEBUG SLOT-MIGRATION-HANDOVER-DELAY and SLOT-MIGRATION-WALK-LIMIT replies" {
        # A negative value once got no reply at all: the client waited forever.
        foreach {sub what} {slot-migration-handover-delay delay slot-migration-walk-limit limit} {
            assert_equal OK [r debug $sub 10]
            assert_equal OK [r debug $sub 0]
            assert_error "ERR $what must not be negative" {r debug $sub -1}
            assert_error "ERR value is not an integer or out of range" {r debug $sub x}
            assert_error [dbg_syntax $sub] {r debug $sub}
        }
        assert_equal PONG [r ping]
    }

    test "DEBUG LISTPACK and QUICKLIST by encoding" {
        r flushall
        r rpush small a b 3
        r hset h f v
        r set s abc
        r config set list-max-listpack-size 4
        r rpush big a b c d e f g h i
        assert_equal quicklist [r object encoding big]
        assert_equal "Listpack structure printed on stdout" [r debug listpack small]
        assert_equal "Listpack structure printed on stdout" [r debug listpack h]
        assert_error "ERR Not a listpack encoded object." {r debug listpack s}
        assert_error "ERR Not a listpack encoded object." {r debug listpack big}
        assert_error "ERR no such key" {r debug listpack nokey}
        assert_equal "Quicklist structure printed on stdout" [r debug quicklist big]
        assert_equal "Quicklist structure printed on stdout" [r debug quicklist big 1]
        assert_error "ERR Not a quicklist encoded object." {r debug quicklist small}
        assert_error "ERR Not a quicklist encoded object." {r debug quicklist small 1}
        assert_error "ERR no such key" {r debug quicklist nokey}
        assert_error [dbg_syntax quicklist] {r debug quicklist big 1 2}
        assert_error [dbg_syntax listpack] {r debug listpack}
        r config set list-max-listpack-size -2
    }

    test "DEBUG QUICKLIST prints the nodes and, with 1, their entries" {
        r flushall
        r config set list-max-listpack-size 2
        r rpush ql a b c
        r debug quicklist ql 1
        r config set list-max-listpack-size -2
        wait_for_condition 50 20 {[string match "*\{quicklist\} nodes:2 entries:3 *" [::srv::file_tail [srv stdout] 20]]} else {
            fail "no quicklist output"
        }
        set want "  {node 0} entries:2 bytes:13 compressed:no\n    \[0\] a\n    \[1\] b\n"
        append want "  {node 1} entries:1 bytes:10 compressed:no\n    \[2\] c"
        set out [::srv::file_tail [srv stdout] 20]
        assert {[string first $want $out] >= 0}
    } {beyond-valkey}

    test "DEBUG QUICKLIST-PACKED-THRESHOLD takes a size up to 4gb" {
        assert_equal OK [r debug quicklist-packed-threshold 1mb]
        assert_error "ERR argument must be a memory value bigger than 1 and smaller than 4gb" {r debug quicklist-packed-threshold 5gb}
        assert_error "ERR argument must be a memory value bigger than 1 and smaller than 4gb" {r debug quicklist-packed-threshold x}
        assert_equal OK [r debug quicklist-packed-threshold 0]
    }

    # The full figures of a table of 4 buckets holding one node, as Valkey 8.0.1 prints them.
    set ::dbg_one_full "Hash table 0 stats (main hash table):\n table size: 4\n number of elements: 1\n different slots: 1\n max chain length: 1\n avg chain length (counted): 1.00\n avg chain length (computed): 1.00\n Chain length distribution:\n   0: 3 (75.00%)\n   1: 1 (25.00%)\n"

    test "DEBUG HTSTATS-KEY: a hash, set or sorted set in a hash table, in Valkey 8's text" {
        r flushall
        r config set hash-max-listpack-entries 0
        r config set set-max-listpack-entries 0
        r config set zset-max-listpack-entries 0
        r hset h a 1
        r sadd s x
        r zadd z 1 x
        foreach k {h s z} {
            assert_equal "Hash table 0 stats (main hash table):\n table size: 4\n number of elements: 1\n" [r debug htstats-key $k]
            assert_equal $::dbg_one_full [r debug htstats-key $k full]
            assert_equal $::dbg_one_full [r debug htstats-key $k FULL ignored]
            # a third argument other than FULL is ignored
            assert_equal [r debug htstats-key $k] [r debug htstats-key $k nope]
        }
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        $c hello 3
        while {[$c read] ne {*0}} {}  ;# HELLO's map, up to its last value (no modules)
        $c debug htstats-key h
        assert_equal "=80" [$c read]
        assert_equal "txt:Hash table 0 stats (main hash table):" [$c read]
        $c close
        r config set hash-max-listpack-entries 128
        r config set set-max-listpack-entries 128
        r config set zset-max-listpack-entries 128
    }

    test "DEBUG HTSTATS-KEY: errors for compact encodings, other types and missing keys" {
        r flushall
        r config set hash-max-listpack-entries 128
        r config set set-max-listpack-entries 128
        r config set zset-max-listpack-entries 128
        set err "ERR The value stored at the specified key is not represented using an hash table"
        r hset h a 1
        r sadd s x
        r sadd si 1
        r zadd z 1 x
        r rpush l a
        r set str v
        foreach k {h s si z l str} { assert_error $err {r debug htstats-key $k} }
        assert_error "ERR no such key" {r debug htstats-key nokey}
        assert_error [dbg_syntax htstats-key] {r debug htstats-key}
    }

    test "DEBUG HTSTATS-KEY: while a table rehashes, its target follows; elements add up" {
        r flushall
        r config set hash-max-listpack-entries 0
        for {set n 1} {$n <= 40} {incr n} {
            r hset h f$n v
            set out [r debug htstats-key h full]
            set sum 0
            foreach {- e} [regexp -all -inline {number of elements: (\d+)} $out] { incr sum $e }
            assert_equal $n $sum $out
            assert_match "Hash table 0 stats (main hash table):\n table size: *" $out
            foreach block [lrange [split [string map {"Hash table " \x01} $out] \x01] 1 end] {
                # the chains of a table add up to its size and to its elements
                regexp {table size: (\d+)} $block - size
                regexp {number of elements: (\d+)} $block - elems
                set buckets 0
                set nodes 0
                foreach {- len cnt} [regexp -all -inline {\n   (\d+): (\d+) \(} $block] {
                    incr buckets $cnt
                    incr nodes [expr {$len * $cnt}]
                }
                assert_equal $size $buckets $block
                assert_equal $elems $nodes $block
                assert_match {[01] stats (*)*} $block
            }
        }
        r config set hash-max-listpack-entries 128
    }

    test "DEBUG HTSTATS: the key and expire tables of a database" {
        r flushall
        assert_equal "\[Dictionary HT\]\n\[Expires HT\]\n" [r debug htstats 0]
        assert_equal "\[Dictionary HT\]\n\[Expires HT\]\n" [r debug htstats 9 full]
        r set k v
        r expire k 100
        # the key table: one bucket (of 7 entries) holding the key
        set key_full "Hash table 0 stats (main hash table):\n table size: 1\n number of elements: 1\n different slots: 1\n max chain length: 1\n avg chain length (counted): 1.00\n avg chain length (computed): 1.00\n Chain length distribution:\n   1: 1 (100.00%)\n"
        assert_equal "\[Dictionary HT\]\n$key_full\[Expires HT\]\n$::dbg_one_full" [r debug htstats 0 full]
        set one "Hash table 0 stats (main hash table):\n table size: 4\n number of elements: 1\n"
        set key_one "Hash table 0 stats (main hash table):\n table size: 1\n number of elements: 1\n"
        assert_equal "\[Dictionary HT\]\n$key_one\[Expires HT\]\n$one" [r debug htstats 0]
        assert_error "ERR Out of range database" {r debug htstats 16}
        assert_error "ERR Out of range database" {r debug htstats -1}
        assert_error "ERR value is not an integer or out of range" {r debug htstats x}
        assert_error [dbg_syntax htstats] {r debug htstats}
    }
}

