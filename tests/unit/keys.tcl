# Keyspace commands: DEL UNLINK EXISTS TYPE RENAME RENAMENX KEYS SCAN RANDOMKEY DBSIZE FLUSHDB
# FLUSHALL SELECT SWAPDB MOVE COPY TOUCH OBJECT COMMAND GETKEYS.

proc keys_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [keys_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [keys_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc keys_raw {c args} {
    $c {*}$args
    return [keys_raw_reply $c]
}

proc keys_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

# Full SCAN iteration with extra options; returns the sorted unique keys seen.
proc keys_scan_all {args} {
    set cursor 0
    set seen {}
    set rounds 0
    while 1 {
        lassign [r scan $cursor {*}$args] cursor keys
        lappend seen {*}$keys
        incr rounds
        if {$cursor eq "0"} break
        if {$rounds > 100000} { error "SCAN did not terminate" }
    }
    return [lsort -unique $seen]
}

# Every test starts on a fresh cached connection (database 0), so that a failed test that
# left another database selected cannot leak into the next one.
proc keys_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body"]
}

start_server {tags {keys}} {
    keys_test "DEL and UNLINK return the number of removed keys" {
        r flushall
        r mset a 1 b 2 c 3 d 4
        assert_equal 2 [r del a b nokey]
        assert_equal 1 [r del c c c]
        assert_equal 0 [r del a]
        assert_equal 1 [r unlink d nokey d]
        assert_equal 0 [r unlink d]
        assert_equal 0 [r dbsize]
        assert_error "ERR wrong number of arguments for 'del' command" {r del}
        assert_error "ERR wrong number of arguments for 'unlink' command" {r unlink}
    }

    keys_test "EXISTS counts repeated keys" {
        r flushall
        r set a 1
        r set b 2
        assert_equal 1 [r exists a]
        assert_equal 0 [r exists nokey]
        assert_equal 3 [r exists a a a]
        assert_equal 4 [r exists a b nokey a b]
        assert_error "ERR wrong number of arguments for 'exists' command" {r exists}
    }

    keys_test "TYPE of strings and missing keys" {
        r flushall
        r set s v
        r set i 12
        assert_equal string [r type s]
        assert_equal string [r type i]
        assert_equal none [r type nokey]
        set c [keys_raw_client]
        assert_equal "+string" [keys_raw $c type s]
        assert_equal "+none" [keys_raw $c type nokey]
        $c close
        assert_error "ERR wrong number of arguments for 'type' command" {r type}
    }

    keys_test "RENAME moves value and TTL" {
        r flushall
        r set a v ex 100
        assert_equal OK [r rename a b]
        assert_equal 0 [r exists a]
        assert_equal v [r get b]
        assert_range [r ttl b] 98 100
    }

    keys_test "RENAME over an existing key replaces its value and TTL" {
        r flushall
        r set src s
        r set dst d ex 100
        assert_equal OK [r rename src dst]
        assert_equal s [r get dst]
        assert_equal -1 [r ttl dst]
        assert_equal 1 [r dbsize]
    }

    keys_test "RENAME and RENAMENX errors and same-name renames" {
        r flushall
        assert_error "ERR no such key" {r rename nokey x}
        assert_error "ERR no such key" {r renamenx nokey x}
        assert_error "ERR no such key" {r rename nokey nokey}
        r set a 1 ex 100
        assert_equal OK [r rename a a]
        assert_equal 1 [r get a]
        assert_range [r ttl a] 98 100
        assert_equal 0 [r renamenx a a]
        assert_equal 1 [r get a]
        assert_error "ERR wrong number of arguments for 'rename' command" {r rename a}
        assert_error "ERR wrong number of arguments for 'renamenx' command" {r renamenx a b c}
    }

    keys_test "RENAMENX" {
        r flushall
        r set a 1
        r set c 2
        assert_equal 0 [r renamenx a c]
        assert_equal {1 2} [r mget a c]
        assert_equal 1 [r renamenx a b]
        assert_equal {{} 1} [r mget a b]
    }

    keys_test "KEYS with glob patterns" {
        r flushall
        foreach k {a b c d ab abc a* a? x\[y\] hello hallo hxllo hllo heeeello h\\llo} {
            r set $k 1
        }
        assert_equal [lsort {a b c d ab abc a* a? x[y] hello hallo hxllo hllo heeeello h\\llo}] \
            [lsort [r keys *]]
        set cases {
            h?llo        {h\\llo hallo hello hxllo}
            h*llo        {h\\llo hallo heeeello hello hllo hxllo}
            h\[ae\]llo   {hallo hello}
            h\[^e\]llo   {h\\llo hallo hxllo}
            h\[a-b\]llo  {hallo}
            h\[b-a\]llo  {hallo}
            \[a-c\]      {a b c}
            \[^a\]       {b c d}
            ?            {a b c d}
            ??           {a* a? ab}
            a*           {a a* a? ab abc}
            a\\*         {a*}
            a\\?         {a?}
            x\\\[y\\\]   {x[y]}
            h\\\\llo     {h\\llo}
            nomatch*     {}
            abc          {abc}
        }
        foreach {pattern expected} $cases {
            assert_equal [lsort $expected] [lsort [r keys $pattern]] "KEYS $pattern"
        }
        assert_error "ERR wrong number of arguments for 'keys' command" {r keys}
    }

    keys_test "KEYS with unusual and malformed patterns" {
        r flushall
        foreach k [list "\[" a "a\\" "\]" ba - b] { r set $k 1 }
        # pattern -> matching keys, as Tcl strings (so backslashes are explicit)
        set cases [list \
            "\[a"       [list a] \
            "a\\"       [list "a\\"] \
            "\[\]"      [list] \
            "*a*"       [list a "a\\" ba] \
            "\[\[\]"    [list "\["] \
            "\[\\\]\]"  [list "\]"] \
            "\[-a\]"    [list - a] \
            "\[\\-\]"   [list -] \
            "\\a"       [list a] \
            "\[^\]"     [list - "\[" "\]" a b] \
            "**a"       [list a ba] \
            "\[a\\"     [list a] \
            "a\\\\"     [list "a\\"] \
            "\[a-c\\"   [list a b] \
            "\[a-\]"    [list "\]" a] \
        ]
        foreach {pattern expected} $cases {
            assert_equal [lsort $expected] [lsort [r keys $pattern]] "KEYS $pattern"
        }
    }

    keys_test "KEYS in an empty database" {
        r flushall
        assert_equal {} [r keys *]
        set c [keys_raw_client]
        assert_equal "*0" [keys_raw $c keys *]
        $c close
    }

    keys_test "SCAN reply shape" {
        r flushall
        set c [keys_raw_client]
        assert_equal {*2 $1 0 *0} [keys_raw $c scan 0]
        keys_raw $c set k v
        assert_equal {*2 $1 0 *1 $1 k} [keys_raw $c scan 0]
        $c close
    }

    keys_test "SCAN returns every key of a 1000-key database" {
        r flushall
        set cmd {}
        for {set i 0} {$i < 1000} {incr i} { lappend cmd key:$i $i }
        r mset {*}$cmd
        set seen [keys_scan_all]
        assert_equal 1000 [llength $seen]
        set expected {}
        for {set i 0} {$i < 1000} {incr i} { lappend expected key:$i }
        assert_equal [lsort $expected] $seen
        assert_equal 1000 [llength [keys_scan_all count 100]]
        assert_equal 1000 [llength [keys_scan_all count 1]]
    }

    keys_test "SCAN COUNT bounds the work of one call" {
        # the 1000 keys of the previous test are still there
        lassign [r scan 0 count 5] cursor keys
        assert_not_equal 0 $cursor
        assert_range [llength $keys] 1 20
        lassign [r scan 0 count 10000] cursor keys
        assert_equal 0 $cursor
        assert_equal 1000 [llength $keys]
    }

    keys_test "SCAN MATCH" {
        set seen [keys_scan_all match key:1*]
        # key:1, key:10..19, key:100..199
        assert_equal 111 [llength $seen]
        assert_equal {} [keys_scan_all match nomatch*]
        assert_equal {key:5} [keys_scan_all match key:5]
        assert_equal {key:42} [keys_scan_all match key:42 count 1000]
        assert_equal 10 [llength [keys_scan_all match key:?]]
    }

    keys_test "SCAN TYPE" {
        assert_equal 1000 [llength [keys_scan_all type string]]
        assert_equal 1000 [llength [keys_scan_all type STRING]]
        assert_equal {} [keys_scan_all type list]
        assert_equal {} [keys_scan_all type hash]
        assert_equal {} [keys_scan_all type zset]
        assert_equal {} [keys_scan_all type set]
        assert_equal {} [keys_scan_all type stream]
        assert_equal 111 [llength [keys_scan_all type string match key:9*]]
        assert_equal {key:7} [keys_scan_all match key:7 type string]
    }

    keys_test "SCAN TYPE over logically expired keys: never returned, deleted, counted as expired" {
        r debug set-active-expire 0
        r del lx1 lx2 live
        r rpush lx1 a
        r rpush lx2 a
        r rpush live a
        r pexpire lx1 1
        r pexpire lx2 1
        # an expired key of another type is left alone by a SCAN TYPE list (Valkey 8)
        r set sx1 a px 1
        after 20
        set before [s expired_keys]
        set size [r dbsize]
        assert_equal {live} [keys_scan_all type list]
        assert_equal 2 [expr {[s expired_keys] - $before}]
        assert_equal [expr {$size - 2}] [r dbsize]
        assert_equal 0 [r exists lx1 lx2]
        r debug set-active-expire 1
        r del live sx1
    }

    keys_test "SCAN errors" {
        assert_error "ERR unknown type name 'foo'" {r scan 0 type foo}
        assert_error "ERR unknown type name 'foo'" {r scan 0 type foo match a*}
        assert_error "ERR unknown type name 'none'" {r scan 0 type none}
        assert_error "ERR syntax error" {r scan 0 count 0}
        assert_error "ERR syntax error" {r scan 0 count -1}
        assert_error "ERR value is not an integer or out of range" {r scan 0 count abc}
        assert_error "ERR syntax error" {r scan 0 match}
        assert_error "ERR syntax error" {r scan 0 count}
        assert_error "ERR syntax error" {r scan 0 type}
        assert_error "ERR syntax error" {r scan 0 foo bar}
        assert_error "ERR invalid cursor" {r scan abc}
        assert_error "ERR invalid cursor" {r scan -1}
        assert_error "ERR invalid cursor" {r scan 18446744073709551616}
        assert_error "ERR invalid cursor" {r scan 1.5}
        assert_error "ERR wrong number of arguments for 'scan' command" {r scan}
    }

    keys_test "KEYS and SCAN MATCH with a pattern of many stars end at once on a long key" {
        # A naive backtracking matcher takes exponential time on this (Valkey bounds it).
        r flushall
        r set [string repeat a 300] 1
        set pattern "[string repeat a* 40]b"
        assert_equal {} [r keys $pattern]
        assert_equal {0 {}} [r scan 0 match $pattern count 100]
    }

    keys_test "EXPIRE checks its options before its time, as Valkey" {
        r set k v
        assert_equal "ERR NX and XX, GT or LT options at the same time are not compatible" \
            [assert_error * {r expire k abc nx xx}]
        assert_equal "ERR GT and LT options at the same time are not compatible" \
            [assert_error * {r pexpire k abc gt lt}]
        assert_equal "ERR Unsupported option foo" [assert_error * {r expire k abc foo}]
        assert_equal "ERR value is not an integer or out of range" [assert_error * {r expire k abc nx}]
    }

    # Valkey and Redis take any 64-bit number as a position (all bits set: the last bucket).
    # Ours carry the fingerprint of the hash seed that issued them (src/commands/common.h).
    test "SCAN refuses a cursor this node's seed did not issue, never a partial scan" {
        r flushall
        for {set i 0} {$i < 50} {incr i} { r set k$i v }
        set foreign "ERR invalid cursor: it was issued by a node with another hash seed (another shard, or this node before its seed changed); start the scan again with cursor 0"
        foreach cur {18446744073709551615 1 12345 9223372036854775807} {
            assert_equal $foreign [assert_error * {r scan $cur}]
            assert_equal $foreign [assert_error * {r hscan h $cur}]
        }
        # its own cursors continue, below 2^63, and 0 always starts over
        lassign [r scan 0 count 5] cursor keys
        assert [expr {$cursor > 0 && $cursor < 9223372036854775808}]
        set all $keys
        while {$cursor != 0} {
            lassign [r scan $cursor count 5] cursor keys
            lappend all {*}$keys
        }
        assert_equal 50 [llength [lsort -unique $all]]
    } {beyond-valkey}

    keys_test "RANDOMKEY" {
        r flushall
        assert_equal {} [r randomkey]
        set c [keys_raw_client]
        assert_equal {$-1} [keys_raw $c randomkey]
        $c close
        r set only 1
        assert_equal only [r randomkey]
        r mset a 1 b 2 c 3
        set seen {}
        for {set i 0} {$i < 200} {incr i} { dict set seen [r randomkey] 1 }
        assert_equal {a b c only} [lsort [dict keys $seen]]
        assert_error "ERR wrong number of arguments for 'randomkey' command" {r randomkey x}
    }

    keys_test "DBSIZE" {
        r flushall
        assert_equal 0 [r dbsize]
        r mset a 1 b 2
        assert_equal 2 [r dbsize]
        r del a
        assert_equal 1 [r dbsize]
        r select 1
        assert_equal 0 [r dbsize]
        r select 0
        assert_error "ERR wrong number of arguments for 'dbsize' command" {r dbsize x}
    }

    keys_test "FLUSHDB empties only the selected database" {
        r flushall
        r set a 1
        r select 1
        r set b 2
        assert_equal OK [r flushdb]
        assert_equal 0 [r dbsize]
        r select 0
        assert_equal 1 [r dbsize]
        assert_equal OK [r flushdb sync]
        assert_equal 0 [r dbsize]
        r set c 3
        assert_equal OK [r flushdb async]
        assert_equal 0 [r dbsize]
        r set d 4
        assert_equal OK [r flushdb SYNC]
        assert_equal 0 [r dbsize]
    }

    keys_test "FLUSHALL empties every database" {
        r set a 1
        r select 3
        r set b 2
        assert_equal OK [r flushall]
        assert_equal 0 [r dbsize]
        r select 0
        assert_equal 0 [r dbsize]
        r set a 1
        assert_equal OK [r flushall async]
        assert_equal 0 [r dbsize]
        r set a 1
        assert_equal OK [r flushall sync]
        assert_equal 0 [r dbsize]
    }

    keys_test "FLUSHDB and FLUSHALL argument errors" {
        r set keep 1
        assert_error "ERR syntax error" {r flushdb foo}
        assert_error "ERR syntax error" {r flushdb sync async}
        assert_error "ERR syntax error" {r flushdb sync extra}
        assert_error "ERR syntax error" {r flushall foo}
        assert_error "ERR syntax error" {r flushall sync async}
        assert_equal 1 [r exists keep]
    }

    keys_test "SELECT" {
        r flushall
        r set k db0
        assert_equal OK [r select 1]
        assert_equal {} [r get k]
        r set k db1
        assert_equal OK [r select 15]
        r set k db15
        r select 0
        assert_equal db0 [r get k]
        r select 1
        assert_equal db1 [r get k]
        r select 0
        assert_error "ERR DB index is out of range" {r select 16}
        assert_error "ERR DB index is out of range" {r select -1}
        assert_error "ERR value is not an integer or out of range" {r select abc}
        assert_error "ERR value is not an integer or out of range" {r select 1.5}
        assert_error "ERR wrong number of arguments for 'select' command" {r select}
        assert_equal db0 [r get k]
    }

    keys_test "SWAPDB swaps contents and TTLs" {
        r flushall
        r set a db0 ex 100
        r set only0 1
        r select 1
        r set a db1
        r set only1 1
        r select 0
        assert_equal OK [r swapdb 0 1]
        assert_equal db1 [r get a]
        assert_equal -1 [r ttl a]
        assert_equal 1 [r exists only1]
        assert_equal 0 [r exists only0]
        r select 1
        assert_equal db0 [r get a]
        assert_range [r ttl a] 98 100
        assert_equal 1 [r exists only0]
        r select 0
        assert_equal OK [r swapdb 0 0]
        assert_equal db1 [r get a]
    }

    keys_test "SWAPDB is seen by clients that selected the swapped database" {
        r flushall
        r set k from0
        set c [valkey_client]
        $c select 2
        assert_equal {} [$c get k]
        assert_equal OK [r swapdb 0 2]
        assert_equal from0 [$c get k]
        assert_equal {} [r get k]
        assert_equal OK [r swapdb 2 0]
        assert_equal from0 [r get k]
        $c close
    }

    keys_test "SWAPDB errors" {
        assert_error "ERR invalid first DB index" {r swapdb a 0}
        assert_error "ERR invalid second DB index" {r swapdb 0 abc}
        assert_error "ERR invalid first DB index" {r swapdb a b}
        assert_error "ERR DB index is out of range" {r swapdb 0 16}
        assert_error "ERR DB index is out of range" {r swapdb -1 0}
        assert_error "ERR wrong number of arguments for 'swapdb' command" {r swapdb 0}
    }

    keys_test "MOVE" {
        r flushall
        r set a v ex 100
        assert_equal 1 [r move a 1]
        assert_equal 0 [r exists a]
        r select 1
        assert_equal v [r get a]
        assert_range [r ttl a] 98 100
        r select 0
        assert_equal 0 [r move nokey 1]
        # the key already exists in the target database
        r set a other
        assert_equal 0 [r move a 1]
        assert_equal other [r get a]
        r select 1
        assert_equal v [r get a]
        r select 0
    }

    keys_test "MOVE errors" {
        r flushall
        r set a v
        assert_error "ERR source and destination objects are the same" {r move a 0}
        assert_error "ERR DB index is out of range" {r move a 16}
        assert_error "ERR DB index is out of range" {r move a -1}
        assert_error "ERR value is not an integer or out of range" {r move a abc}
        assert_error "ERR wrong number of arguments for 'move' command" {r move a}
        assert_equal v [r get a]
    }

    keys_test "COPY" {
        r flushall
        r set a v ex 100
        assert_equal 1 [r copy a b]
        assert_equal {v v} [r mget a b]
        assert_range [r ttl b] 98 100
        r set b other
        assert_equal 0 [r copy a b]
        assert_equal other [r get b]
        assert_equal 1 [r copy a b replace]
        assert_equal v [r get b]
        assert_range [r ttl b] 98 100
        assert_equal 0 [r copy nokey x]
        assert_equal 0 [r exists x]
        # REPLACE over a key with a TTL by a key without one removes it
        r set c plain
        assert_equal 1 [r copy c b REPLACE]
        assert_equal -1 [r ttl b]
    }

    keys_test "COPY to another database" {
        r flushall
        r set a v
        assert_equal 1 [r copy a b db 1]
        assert_equal 0 [r exists b]
        assert_equal 1 [r copy a a db 1]
        assert_equal 0 [r copy a a db 1]
        assert_equal 1 [r copy a a db 1 replace]
        r select 1
        assert_equal {v v} [r mget a b]
        r select 0
        assert_equal 1 [r copy a b replace db 1]
    }

    keys_test "COPY copies the value, not a shared reference" {
        r flushall
        r set a hello
        r copy a b
        r append a world
        assert_equal hello [r get b]
        r set n 10
        r copy n m
        r incr n
        assert_equal 10 [r get m]
    }

    keys_test "COPY errors" {
        r flushall
        r set a v
        assert_error "ERR source and destination objects are the same" {r copy a a}
        assert_error "ERR source and destination objects are the same" {r copy a a db 0}
        assert_error "ERR DB index is out of range" {r copy a b db 16}
        assert_error "ERR value is not an integer or out of range" {r copy a b db abc}
        assert_error "ERR syntax error" {r copy a b foo}
        assert_error "ERR syntax error" {r copy a b db}
        assert_error "ERR wrong number of arguments for 'copy' command" {r copy a}
        assert_equal 1 [r dbsize]
    }

    keys_test "TOUCH" {
        r flushall
        r mset a 1 b 2
        assert_equal 2 [r touch a b nokey]
        assert_equal 3 [r touch a a a]
        assert_equal 0 [r touch nokey]
        assert_error "ERR wrong number of arguments for 'touch' command" {r touch}
    }

    keys_test "OBJECT ENCODING, REFCOUNT and IDLETIME of a missing key are null" {
        r flushall
        assert_equal {} [r object encoding nokey]
        assert_equal {} [r object refcount nokey]
        assert_equal {} [r object idletime nokey]
        set c [keys_raw_client]
        assert_equal {$-1} [keys_raw $c object encoding nokey]
        assert_equal {$-1} [keys_raw $c object refcount nokey]
        $c close
    }

    keys_test "OBJECT REFCOUNT: shared small integers" {
        r flushall
        r set small 0
        assert_equal 2147483647 [r object refcount small]
        r set small 9999
        assert_equal 2147483647 [r object refcount small]
        r set big 10000
        assert_equal 1 [r object refcount big]
        r set neg -1
        assert_equal 1 [r object refcount neg]
        r set s hello
        assert_equal 1 [r object refcount s]
        # not shared while maxmemory is set with an LRU or LFU policy (Valkey 8)
        r config set maxmemory 1073741824
        foreach {policy refcount} {allkeys-lru 1 volatile-lfu 1 allkeys-random 2147483647} {
            r config set maxmemory-policy $policy
            assert_equal $refcount [r object refcount small] $policy
        }
        r config set maxmemory 0
        r config set maxmemory-policy allkeys-lfu
        assert_equal 2147483647 [r object refcount small]
        r config set maxmemory-policy noeviction
    }

    keys_test "OBJECT IDLETIME grows and access resets it; TTL, TYPE, EXISTS are no access" {
        r flushall
        r set k v
        # the LRU clock counts whole seconds: a second may tick between two commands
        assert_range [r object idletime k] 0 1
        wait_for_condition 60 100 {[r object idletime k] >= 2}
        # OBJECT itself does not touch the key, nor do TTL, PTTL, EXPIRETIME, TYPE and EXISTS
        # (Valkey 8's LOOKUP_NOTOUCH); TOUCH and GET do
        r ttl k
        r pttl k
        r expiretime k
        r type k
        r exists k
        assert_morethan [r object idletime k] 1
        r touch k
        assert_range [r object idletime k] 0 1
        wait_for_condition 60 100 {[r object idletime k] >= 2}
        r get k
        assert_range [r object idletime k] 0 1
    }

    # A write is an access (Valkey 8's lookupKeyWrite touches): a key written and never read is
    # not the idlest for allkeys-lru. Commands that change a value where it is.
    keys_test "A write resets OBJECT IDLETIME as a read does" {
        r flushall
        r rpush l a
        r sadd s a
        r hset h f v
        r zadd z 1 a
        r set n 1
        wait_for_condition 60 100 {[r object idletime n] >= 2}
        r rpush l b
        r sadd s b
        r hset h f2 v
        r zadd z 2 b
        r incr n
        foreach k {l s h z n} { assert_equal 1 [expr {[r object idletime $k] <= 1}] $k }
    }

    keys_test "CLIENT NO-TOUCH on: reads leave the access time alone, TOUCH still touches; flag T" {
        r flushall
        r set k v
        set c [valkey_client]
        assert_equal OK [$c client no-touch on]
        assert_match {*flags=T *} [$c client info]
        wait_for_condition 60 100 {[r object idletime k] >= 2}
        assert_equal v [$c get k]
        assert_morethan [r object idletime k] 1
        assert_equal 1 [$c touch k]
        assert_range [r object idletime k] 0 1
        wait_for_condition 60 100 {[r object idletime k] >= 2}
        assert_equal OK [$c client no-touch off]
        assert_match {*flags=N *} [$c client info]
        assert_equal v [$c get k]
        assert_range [r object idletime k] 0 1
        assert_error "ERR syntax error" {$c client no-touch maybe}
        $c close
    }

    keys_test "OBJECT FREQ needs an LFU policy" {
        r flushall
        r set k v
        assert_error "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust." {r object freq k}
        r config set maxmemory-policy allkeys-lfu
        # no decay, so a minute boundary between two commands changes nothing
        r config set lfu-decay-time 0
        try {
            r set f v
            assert_equal 5 [r object freq f]
            r get f
            assert_equal 6 [r object freq f]
            assert_equal {} [r object freq nokey]
            assert_error "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust." {r object idletime f}
        } finally {
            r config set maxmemory-policy noeviction
            r config set lfu-decay-time 1
        }
    }


    # A new value for a key is not a new key: it keeps the LFU counter (each write's lookup
    # counts one access), as Valkey 8's dbSetValue keeps the old object's LRU field. A key
    # added anew (RENAME, MOVE, COPY, a new key) starts at 5. Every figure recorded
    # from Valkey 8.0.1 (maxmemory set: it then shares no integer objects).
    keys_test "A key's LFU counter survives a new value; a key made anew starts again" {
        r flushall
        r config set maxmemory-policy allkeys-lfu maxmemory 1gb lfu-log-factor 0 lfu-decay-time 0
        try {
            foreach {cmds key freq} {
                {{set k v}}                       k 5
                {{get k}}                         k 6
                {{set k w}}                       k 7
                {{append k x}}                    k 8
                {{setrange k 0 abc}}              k 9
                {{set n 10} {incr n}}             n 6
                {{incrbyfloat n 1.5}}             n 7
                {{sadd s1 a} {set dst x} {sunionstore dst s1}} dst 6
                {{set k v px 100000}}             k 10
                {{set k v keepttl}}               k 11
                {{getset k z}}                    k 13
                {{set k 5} {decrby k 3}}          k 15
                {{getex k ex 100}}                k 16
                {{persist k}}                     k 17
                {{mset k 1}}                      k 18
                {{msetnx zz 1}}                   zz 5
                {{lpush l a} {lpush l b}}         l 6
                {{copy k l replace}}              l 5
                {{set big 1} {set big 2}}         big 6
                {{setex big 100 3}}               big 7
                {{psetex big 100000 4}}           big 8
                {{set big abc} {set big x get}}   big 11
                {{sadd s2 q} {sinterstore s2 s1}} s2 6
                {{set r1 v} {get r1} {rename r1 r2}} r2 5
                {{get r2} {set r3 v} {rename r2 r3}} r3 5
                {{get r3} {renamenx r3 r4}}       r4 5
                {{set c1 v} {get c1} {copy c1 c2}} c1 7
                {}                                c2 5
                {{set m v} {get m} {move m 1} {select 1}} m 5
            } {
                foreach cmd $cmds { r {*}$cmd }
                assert_equal $freq [r object freq $key] "after $cmds"
            }
            r select 0
        } finally {
            r config set maxmemory-policy noeviction maxmemory 0 lfu-log-factor 10 lfu-decay-time 1
        }
    }

    # Commands that read a key before they write it count a keyspace hit or miss, as Valkey
    # 8's do (GETSET and SET ... GET read as GET does; COPY reads its source); SET, RENAME and
    # other writes count none. Hits/misses after each, recorded from Valkey 8.0.1.
    keys_test "GETSET, SET ... GET and COPY count keyspace hits and misses; plain writes none" {
        r flushall
        r config resetstat
        r set k v
        foreach {cmd want} {
            {getset k w}    1/0
            {getset nk w}   1/1
            {set k x get}   2/1
            {set nk2 x get} 2/2
            {copy k k2}     3/2
            {copy nokey k3} 3/3
            {set k y}       3/3
            {rename k k9}   3/3
            {getdel k9}     4/3
            {getex k9}      4/4
        } {
            r {*}$cmd
            assert_equal $want "[s keyspace_hits]/[s keyspace_misses]" $cmd
        }
    }

    # Issue 27: RESTORE ... FREQ sets the LFU counter under an LFU policy (OBJECT FREQ), and is
    # accepted but unused under another; a payload whose absolute TTL is past replaces an
    # existing key by nothing: the key is deleted and the stream gets DEL or UNLINK as
    # lazyfree-lazy-server-del says, not the RESTORE.
    keys_test "RESTORE FREQ sets the LFU counter; RESTORE REPLACE of an expired payload deletes the key and propagates DEL or UNLINK" {
        r flushall
        r set src v
        set payload [r dump src]
        r config set maxmemory-policy allkeys-lfu
        r config set lfu-decay-time 0
        try {
            assert_equal OK [r restore f 0 $payload freq 100]
            assert_equal 100 [r object freq f]
            assert_equal OK [r restore f 0 $payload replace freq 7]
            assert_equal 7 [r object freq f]
            assert_equal OK [r restore f2 0 $payload freq 0]
            assert_equal 0 [r object freq f2]
        } finally {
            r config set maxmemory-policy noeviction
            r config set lfu-decay-time 1
        }
        set lazy [lindex [r config get lazyfree-lazy-server-del] 1]
        set tap [repl_tap_open]
        try {
            r set before 1
            assert_equal {select 0} [string tolower [repl_tap_next $tap]]
            assert_equal {set before 1} [repl_tap_next $tap]
            r set k v
            r set k2 v
            r config set lazyfree-lazy-server-del yes
            assert_equal OK [r restore k 1000 $payload replace absttl]
            assert_equal 0 [r exists k]
            r config set lazyfree-lazy-server-del no
            assert_equal OK [r restore k2 1000 $payload replace absttl]
            assert_equal 0 [r exists k2]
            # nothing to delete: nothing propagated
            assert_equal OK [r restore k3 1000 $payload absttl]
            assert_equal 0 [r exists k3]
            assert_error "BUSYKEY *" {r restore before 1000 $payload absttl}
            r set marker 1
            set stream {}
            for {set i 0} {$i < 5} {incr i} { lappend stream [repl_tap_next $tap] }
            assert_equal {{set k v} {set k2 v} {UNLINK k} {DEL k2} {set marker 1}} $stream
        } finally {
            close $tap
            r config set lazyfree-lazy-server-del $lazy
        }
    }
    keys_test "OBJECT HELP and errors" {
        set help [r object help]
        assert_equal 15 [llength $help]
        assert_equal {OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
        foreach line {{ENCODING <key>} {FREQ <key>} {IDLETIME <key>} {REFCOUNT <key>} HELP} {
            assert {[lsearch -exact $help $line] >= 0} "'$line' in OBJECT HELP"
        }
        assert_equal {Print this help.} [string trim [lindex $help end]]
        assert_error "ERR unknown subcommand 'foo'. Try OBJECT HELP." {r object foo k}
        assert_error "ERR wrong number of arguments for 'object' command" {r object}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" {r object encoding}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" {r object encoding a b}
    }

    keys_test "COMMAND GETKEYS" {
        assert_equal {a} [r command getkeys set a b]
        assert_equal {a} [r command getkeys get a]
        assert_equal {a b} [r command getkeys mset a 1 b 2]
        assert_equal {a b c} [r command getkeys del a b c]
        assert_equal {x y} [r command getkeys rename x y]
        assert_equal {a b} [r command getkeys copy a b db 1]
        assert_equal {k} [r command getkeys object encoding k]
        assert_equal {a b} [r command getkeys mget a b]
        assert_equal {k} [r command getkeys GETEX k persist]
        assert_error "ERR Invalid number of arguments specified for command" {r command getkeys get}
        assert_error "ERR Invalid number of arguments specified for command" {r command getkeys mset a}
        assert_error "ERR The command has no key arguments" {r command getkeys ping}
        assert_error "ERR Invalid command specified" {r command getkeys foo a}
        assert_error "ERR wrong number of arguments for 'command|getkeys' command" {r command getkeys}
    }
}
