# RESTORE of payloads in the encodings of Redis before 7.0, which Valkey 8.0.1 still loads:
# list ziplist (type 10), set intset (11), zset ziplist (12), hash ziplist (13), quicklist of
# ziplists (14) and hash zipmap (9, Redis 2.4 and older). The payloads are built here from the
# format's facts (ziplist and zipmap layouts, snapshot string lengths, the DUMP trailer). Every
# expected reply was read from Valkey 8.0.1; the file passes on it.

# A ziplist entry: previous entry size, then a string (under 64 bytes) or an integer in the
# smallest encoding that holds it.
proc oldenc_zl_entry {prev v} {
    set out [binary format c $prev]
    if {[string is entier -strict $v] && $v >= -(1 << 63) && $v < (1 << 63)} {
        if {$v >= 0 && $v <= 12} { return $out[binary format c [expr {0xF1 + $v}]] }
        if {$v >= -128 && $v < 128} { return $out\xfe[binary format c $v] }
        if {$v >= -32768 && $v < 32768} { return $out\xc0[binary format s $v] }
        if {$v >= -(1 << 23) && $v < (1 << 23)} { return $out\xf0[string range [binary format i $v] 0 2] }
        if {$v >= -(1 << 31) && $v < (1 << 31)} { return $out\xd0[binary format i $v] }
        return $out\xe0[binary format w $v]
    }
    return $out[binary format c [string length $v]]$v
}

# [total bytes u32][offset of the last entry u32][count u16] entries 0xFF, little endian.
proc oldenc_ziplist {vals} {
    set body {}
    set prev 0
    set tail 10
    foreach v $vals {
        set tail [expr {10 + [string length $body]}]
        set e [oldenc_zl_entry $prev $v]
        append body $e
        set prev [string length $e]
    }
    set total [expr {10 + [string length $body] + 1}]
    return [binary format iis $total $tail [llength $vals]]$body\xff
}

# [pair count] then [key len]key[value len][free]value[free bytes], then 0xFF.
proc oldenc_zipmap {pairs {count {}}} {
    if {$count eq {}} { set count [expr {[llength $pairs] / 2}] }
    set out [binary format c $count]
    foreach {k v} $pairs {
        append out [binary format c [string length $k]]$k[binary format cc [string length $v] 0]$v
    }
    return $out\xff
}

# A snapshot string of under 16384 bytes.
proc oldenc_str {s} {
    set n [string length $s]
    if {$n < 64} { return [binary format c $n]$s }
    return [binary format cc [expr {0x40 | ($n >> 8)}] [expr {$n & 0xff}]]$s
}

# A DUMP payload: type, value, RDB version 9 (the last that wrote these types), CRC64.
proc oldenc_payload {type value} {
    return [with_crc [binary format c $type]$value[binary format s 9]]
}

start_server {tags {dump}} {
    test "RESTORE of a list ziplist (type 10) with every integer width" {
        set items {a 5 bcd -300 100000 1099511627776 200 -9000000 12 0 -1}
        set p [oldenc_payload 10 [oldenc_str [oldenc_ziplist $items]]]
        assert_equal OK [r restore l 0 $p]
        assert_equal list [r type l]
        assert_equal $items [r lrange l 0 -1]
        assert_equal {12 x a} [list [r lpush l x] {*}[r lrange l 0 1]]
    }

    test "RESTORE of a quicklist of ziplists (type 14)" {
        set v [binary format c 2][oldenc_str [oldenc_ziplist {a b}]][oldenc_str [oldenc_ziplist {1 2}]]
        assert_equal OK [r restore q 0 [oldenc_payload 14 $v]]
        assert_equal {a b 1 2} [r lrange q 0 -1]
    }

    test "RESTORE of a zset ziplist (type 12) and a hash ziplist (type 13)" {
        set p [oldenc_payload 12 [oldenc_str [oldenc_ziplist {m3 -7 m1 1 m2 2.5}]]]
        assert_equal OK [r restore z 0 $p]
        assert_equal {m3 -7 m1 1 m2 2.5} [r zrange z 0 -1 withscores]
        assert_equal listpack [r object encoding z]
        set p [oldenc_payload 13 [oldenc_str [oldenc_ziplist {f1 v1 f2 12 f3 x}]]]
        assert_equal OK [r restore h 0 $p]
        assert_equal {f1 v1 f2 12 f3 x} [r hgetall h]
        assert_equal listpack [r object encoding h]
    }

    test "RESTORE of a set intset (type 11)" {
        # [encoding u32: 2 bytes per element][count u32] then sorted int16s
        set p [oldenc_payload 11 [oldenc_str [binary format iisss 2 3 -2 1 3]]]
        assert_equal OK [r restore s 0 $p]
        assert_equal {-2 1 3} [lsort -integer [r smembers s]]
        assert_equal intset [r object encoding s]
    }

    test "RESTORE of a hash zipmap (type 9): known or unknown count, free bytes, long values" {
        assert_equal OK [r restore zm1 0 [oldenc_payload 9 [oldenc_str [oldenc_zipmap {f1 v1 f2 v2}]]]]
        assert_equal {f1 v1 f2 v2} [r hgetall zm1]
        assert_equal listpack [r object encoding zm1]
        # count 254: unknown, found by walking to the end
        assert_equal OK [r restore zm2 0 [oldenc_payload 9 [oldenc_str [oldenc_zipmap {a b} 254]]]]
        assert_equal {a b} [r hgetall zm2]
        # a value followed by 3 free bytes
        set zm [binary format cc 1 1]k[binary format cc 2 3]vvXYZ\xff
        assert_equal OK [r restore zm3 0 [oldenc_payload 9 [oldenc_str $zm]]]
        assert_equal {k vv} [r hgetall zm3]
        # a 300-byte value: length 0xFE then u32; past hash-max-listpack-value
        set long [string repeat v 300]
        set zm [binary format cc 1 1]k\xfe[binary format ic 300 0]$long\xff
        assert_equal OK [r restore zm4 0 [oldenc_payload 9 [oldenc_str $zm]]]
        assert_equal [list k $long] [r hgetall zm4]
        assert_equal hashtable [r object encoding zm4]
    }

    test "RESTORE refuses malformed zipmaps and ziplists, creating nothing" {
        set bad [list \
            [oldenc_zipmap {a b} 3] \
            [oldenc_zipmap {a b}]\x00 \
            [oldenc_zipmap {a b a c}] \
            \x00\xff \
            [string range [oldenc_zipmap {a b}] 0 end-1] \
            [binary format cc 1 254][binary format i 3]key[binary format cc 1 0]v\xff \
        ]
        foreach zm $bad {
            assert_error "ERR Bad data format" {r restore bad 0 [oldenc_payload 9 [oldenc_str $zm]]}
        }
        set zl [oldenc_ziplist {a b c}]
        set zl [string replace $zl 8 8 [binary format c 4]]  ;# the count says 4
        assert_error "ERR Bad data format" {r restore bad 0 [oldenc_payload 10 [oldenc_str $zl]]}
        assert_equal 0 [r exists bad]
    }

    test "A refused RESTORE payload names the damaged encoding in the log, in Valkey's words" {
        # ours checks every payload; Valkey 8 only when it sanitizes them. Both log at verbose.
        r config set sanitize-dump-payload yes
        r config set loglevel verbose
        assert_error "ERR Bad data format" {r restore bad 0 [oldenc_payload 9 [oldenc_str [oldenc_zipmap {a b} 3]]]}
        wait_for_log "*Zipmap integrity check failed*"
        set zl [oldenc_ziplist {a 1 b 2}]
        set zl [string replace $zl 8 8 [binary format c 5]]  ;# an odd count of a sorted set
        assert_error "ERR Bad data format" {r restore bad 0 [oldenc_payload 12 [oldenc_str $zl]]}
        wait_for_log "*Zset ziplist integrity check failed*"
        r config set sanitize-dump-payload no
        r config set loglevel notice
    }
}

# The same zipmap in a snapshot, as Redis 2.4 and older wrote them (RDB version 4, without a
# checksum): Valkey 8 loads it, converting it to a listpack or, past the limits, a hashtable.
# Ours refused the file ("has type hash-zipmap, which this node does not support") and did not
# start.
proc oldenc_rdb {pairs_by_key} {
    set out REDIS0004\xfe\x00
    foreach {key pairs} $pairs_by_key {
        append out \x09[oldenc_str $key][oldenc_str [oldenc_zipmap $pairs]]
    }
    return $out\xff
}

start_server {tags {dump}} {
    test "A snapshot of Redis 2.4 holding zipmap hashes (type 9) loads, as listpack or hashtable" {
        set long [string repeat x 100]
        set rdb [oldenc_rdb [list zm1 {f1 v1 f2 v2} zm2 [list small v long $long]]]
        set dir [lindex [r config get dir] 1]
        set name [lindex [r config get dbfilename] 1]
        r config set save ""
        set f [open [file join $dir $name] wb]
        puts -nonewline $f $rdb
        close $f
        r debug reload nosave
        assert_equal {f1 v1 f2 v2} [r hgetall zm1]
        assert_equal listpack [r object encoding zm1]
        assert_equal $long [r hget zm2 long]
        assert_equal hashtable [r object encoding zm2]   ;# a value past hash-max-listpack-value
        assert_equal 2 [r dbsize]
    }
}

# A snapshot of RDB version 11 without a checksum (8 zero bytes) holding records {type key
# value ...}, each value in its type's bytes; a record with an expire is {252 ms type key value}.
proc oldenc_rdb11 {records} {
    set out REDIS0011\xfe\x00
    foreach rec $records {
        if {[lindex $rec 0] == 252} {
            append out \xfc[binary format w [lindex $rec 1]]
            set rec [lrange $rec 2 end]
        }
        lassign $rec type key value
        append out [binary format c $type][oldenc_str $key]$value
    }
    return $out\xff[string repeat \x00 8]
}

start_server {tags {dump}} {
    # Bugs of old servers (Redis issue #8453) left lists, sets, sorted sets and hashes of no
    # element in snapshots. Valkey 8 skips them with a notice and loads the rest; ours refused
    # the file ("Bad data reading the value of key") and did not start. A DUMP payload of one
    # is still refused, as Valkey 8 refuses it.
    test "A snapshot holding empty keys of every encoding loads without them" {
        set zl [oldenc_str [oldenc_ziplist {}]]
        set lp [oldenc_str \x07\x00\x00\x00\x00\x00\xff]
        set later [expr {[clock milliseconds] + 3600000}]
        set records [list \
            [list 1 list \x00] [list 2 set \x00] [list 3 zset \x00] [list 5 zset2 \x00] \
            [list 4 hash \x00] [list 10 list_ziplist $zl] [list 12 zset_ziplist $zl] \
            [list 13 hash_ziplist $zl] [list 14 quicklist \x00] [list 14 quicklist_empty_node \x01$zl] \
            [list 18 quicklist2_empty_node \x01\x02$lp] [list 16 hash_listpack $lp] \
            [list 17 zset_listpack $lp] [list 20 set_listpack $lp] \
            [list 252 $later 4 hash_with_ttl \x00] [list 0 kept [oldenc_str v]] \
            [list 252 $later 0 kept_with_ttl [oldenc_str w]]]
        r config set save ""
        write_binary [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]] \
            [oldenc_rdb11 $records]
        r debug reload nosave
        assert_equal 2 [r dbsize]
        assert_equal v [r get kept]
        assert_equal w [r get kept_with_ttl]
        assert_range [r ttl kept_with_ttl] 3500 3600
        assert_equal 0 [r exists list set zset hash quicklist set_listpack hash_with_ttl]
        assert_equal 2 [s rdb_last_load_keys_loaded]
        assert {[log_contains "*rdbLoadObject skipping empty key: zset_ziplist*"]}
        # ten named, then only counted
        assert {[log_contains "*rdbLoadObject skipping empty key: quicklist_empty_node*"]}
        assert {![log_contains "*rdbLoadObject skipping empty key: quicklist2_empty_node*"]}
        assert {[log_contains "*Done loading RDB, keys loaded: 2, keys expired: 0, empty keys skipped: 15.*"]}
    }

    test "RESTORE of an empty list, set, sorted set or hash: Bad data format" {
        foreach {type value} [list 1 \x00 2 \x00 3 \x00 4 \x00 10 [oldenc_str [oldenc_ziplist {}]] \
                                  13 [oldenc_str [oldenc_ziplist {}]] 14 \x00] {
            assert_error "ERR Bad data format" {r restore k$type 0 [oldenc_payload $type $value]}
        }
        assert_equal 0 [r exists k1 k2 k3 k4 k10 k13 k14]
    }
}

# A listpack of strings under 64 bytes and integers 0-127: [total u32][count u16] entries 0xFF.
proc oldenc_listpack {entries} {
    set body {}
    foreach e $entries {
        if {[string is entier -strict $e] && $e >= 0 && $e < 128 && $e eq [expr {$e}]} {
            append body [binary format cc $e 1]
        } else {
            set n [string length $e]
            append body [binary format c [expr {0x80 | $n}]]$e[binary format c [expr {$n + 1}]]
        }
    }
    return [binary format is [expr {7 + [string length $body]}] [llength $entries]]$body\xff
}

start_server {tags {dump}} {
    # Sorted sets and hashes in listpacks are built from the listpack's entries as they are
    # read. Scores written in other forms than ours ("1.50", "1e1") are taken by value, as
    # Valkey 8 reads them.
    test "A snapshot's listpack sorted sets and hashes load as written, scores in any form" {
        set records [list \
            [list 17 z [oldenc_str [oldenc_listpack {d 0.0000001 b 1.50 f 2.5 e 7 a 1e1 g 12.25}]]] \
            [list 16 h [oldenc_str [oldenc_listpack {f1 v1 n 5 f2 {} 100 x}]]] \
            [list 20 s [oldenc_str [oldenc_listpack {m1 5 m2 {} 100}]]]]
        r config set save ""
        write_binary [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]] \
            [oldenc_rdb11 $records]
        r debug reload nosave
        assert_equal {d 1e-7 b 1.5 f 2.5 e 7 a 10 g 12.25} [r zrange z 0 -1 withscores]
        assert_equal 1.5 [r zscore z b]
        assert_equal 3 [r zrank z e]
        assert_equal {g a} [r zrevrangebyscore z +inf 8]
        assert_equal listpack [r object encoding z]
        assert_equal {f1 v1 n 5 f2 {} 100 x} [r hgetall h]
        assert_equal 6 [r hincrby h n 1]
        assert_equal listpack [r object encoding h]
        assert_equal {{} 100 5 m1 m2} [lsort [r smembers s]]
        assert_equal 1 [r sismember s 5]
        assert_equal listpack [r object encoding s]
        # and back: what is written loads the same
        r debug reload
        assert_equal {d 1e-7 b 1.5 f 2.5 e 7 a 10 g 12.25} [r zrange z 0 -1 withscores]
        assert_equal {f1 v1 n 6 f2 {} 100 x} [r hgetall h]
        assert_equal {{} 100 5 m1 m2} [lsort [r smembers s]]
    }

    # Where ours checks more than Valkey 8, which trusts a snapshot's listpacks (with
    # sanitize-dump-payload no, its default) and would serve these out of order or twice.
    test "A listpack sorted set out of order is put in order; a member or field twice, a damaged node refuses the file" {
        set path [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]]
        r flushall
        write_binary $path [oldenc_rdb11 [list \
            [list 17 z [oldenc_str [oldenc_listpack {c 3 a 1 d 3 b 2}]]]]]
        r debug reload nosave
        assert_equal {a 1 b 2 c 3 d 3} [r zrange z 0 -1 withscores]
        assert_equal 2 [r zrank z c]
        foreach rec [list [list 17 z2 [oldenc_str [oldenc_listpack {a 1 b 2 a 3}]]] \
                          [list 16 h2 [oldenc_str [oldenc_listpack {f 1 g 2 f 3}]]] \
                          [list 16 h3 [oldenc_str [oldenc_listpack {f 1 g}]]] \
                          [list 20 s4 [oldenc_str [oldenc_listpack {a 1 b 1}]]] \
                          [list 18 l4 \x01\x02[oldenc_str \x09\x00\x00\x00\x01\x00\x81a\xff]]] {
            # (l4: a list node whose entry has no back length)
            write_binary $path [oldenc_rdb11 [list $rec]]
            assert_error "*Error trying to load the RDB dump*" {r debug reload nosave}
            assert {[log_contains "*Bad data reading the value of key '[lindex $rec 1]'*"]}
        }
    }
}

start_server {tags {dump}} {
    # A quicklist's listpack nodes are taken as they are (each checked), as Valkey 8 keeps them,
    # instead of pushing their elements one by one.
    test "A snapshot's list nodes load as they are: one, several that fit one, several that do not" {
        set path [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]]
        set node {x {return \x02[oldenc_str [oldenc_listpack $x]]}}
        set big {}
        for {set n 0} {$n < 3} {incr n} {
            set e {}
            for {set i 0} {$i < 100} {incr i} { lappend e [format "n%d-%05d-%s" $n $i [string repeat v 50]] }
            lappend big $e
        }
        set plain [string repeat p 70]
        r config set save ""
        write_binary $path [oldenc_rdb11 [list \
            [list 18 one \x01[apply $node {a b 1 2}]] \
            [list 18 several \x03[apply $node {a b}][apply $node {c}][apply $node {d 7}]] \
            [list 18 with_empty \x02[apply $node {}][apply $node {e f}]] \
            [list 18 big \x03[apply $node [lindex $big 0]][apply $node [lindex $big 1]][apply $node [lindex $big 2]]] \
            [list 18 with_plain \x03[apply $node {a b}]\x01[oldenc_str $plain][apply $node {c}]]]]
        r debug reload nosave
        assert_equal {a b 1 2} [r lrange one 0 -1]
        assert_equal listpack [r object encoding one]
        assert_equal {a b c d 7} [r lrange several 0 -1]
        assert_equal quicklist [r object encoding several]  ;# nodes kept, as Valkey 8 keeps them
        assert_equal {e f} [r lrange with_empty 0 -1]
        assert_equal [concat {*}$big] [r lrange big 0 -1]
        assert_equal quicklist [r object encoding big]
        assert_equal [lindex $big 1 0] [r lindex big 100]
        assert_equal [list a b $plain c] [r lrange with_plain 0 -1]
        # the nodes taken are ordinary nodes: pushed to, popped, and written back the same
        assert_equal 301 [r rpush big tail]
        assert_equal [lindex $big 0 0] [r lpop big]
        assert_equal OK [r lset big 150 mid]
        set want [lrange [concat {*}$big tail] 1 end]
        lset want 150 mid
        r debug reload
        assert_equal $want [r lrange big 0 -1]
        assert_equal {a b 1 2} [r lrange one 0 -1]
    }

    test "A node bigger than list-max-listpack-size is kept, and every list command works on it" {
        # Written by a server with a bigger limit: 14 KB in one node, past the default 8 KB.
        set path [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]]
        set e {}
        for {set i 0} {$i < 250} {incr i} { lappend e [format "%05d-%s" $i [string repeat v 50]] }
        write_binary $path [oldenc_rdb11 [list [list 18 big \x01\x02[oldenc_str [oldenc_listpack $e]]]]]
        r debug reload nosave
        assert_equal quicklist [r object encoding big]
        assert_equal $e [r lrange big 0 -1]
        set want $e
        assert_equal 251 [r linsert big before [lindex $e 200] mid]
        set want [linsert $want 200 mid]
        assert_equal OK [r lset big 220 x220]
        lset want 220 x220
        assert_equal 1 [r lrem big 0 [lindex $e 10]]
        set want [lreplace $want 10 10]
        assert_equal OK [r ltrim big 5 -5]
        set want [lrange $want 5 end-4]
        r rpush big t1 t2
        r lpush big h1
        set want [concat h1 $want t1 t2]
        assert_equal $want [r lrange big 0 -1]
        assert_equal [lindex $want 150] [r lindex big 150]
        assert_equal 2 [r lpos big [lindex $want 2]]
        r debug reload
        assert_equal $want [r lrange big 0 -1]
        r config set list-compress-depth 1
        r debug reload
        assert_equal $want [r lrange big 0 -1]
        assert_equal [lindex $want 200] [r lindex big 200]
        r config set list-compress-depth 0
    }
}
