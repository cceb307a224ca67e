# OBJECT ENCODING of every type, the conversions between encodings, the CONFIG SET thresholds
# that drive them, and MEMORY USAGE.

proc enc_test {name body} {
    uplevel 1 [list test $name "reconnect\nenc_defaults\n$body"]
}

# Valkey 8 defaults for the thresholds.
proc enc_defaults {} {
    r config set hash-max-listpack-entries 512 hash-max-listpack-value 64
    r config set set-max-intset-entries 512 set-max-listpack-entries 128 set-max-listpack-value 64
    r config set zset-max-listpack-entries 128 zset-max-listpack-value 64
    r config set list-max-listpack-size -2
}

start_server {tags {encodings}} {
    enc_test "Default thresholds" {
        assert_equal {hash-max-listpack-entries 512} [r config get hash-max-listpack-entries]
        assert_equal {hash-max-listpack-value 64} [r config get hash-max-listpack-value]
        assert_equal {set-max-intset-entries 512} [r config get set-max-intset-entries]
        assert_equal {set-max-listpack-entries 128} [r config get set-max-listpack-entries]
        assert_equal {set-max-listpack-value 64} [r config get set-max-listpack-value]
        assert_equal {zset-max-listpack-entries 128} [r config get zset-max-listpack-entries]
        assert_equal {zset-max-listpack-value 64} [r config get zset-max-listpack-value]
        assert_equal {list-max-listpack-size -2} [r config get list-max-listpack-size]
    }

    enc_test "The old ziplist names are aliases of the listpack thresholds" {
        r config set hash-max-ziplist-entries 100
        assert_equal {hash-max-listpack-entries 100} [r config get hash-max-listpack-entries]
        assert_equal {hash-max-ziplist-entries 100} [r config get hash-max-ziplist-entries]
        r config set zset-max-ziplist-value 30
        assert_equal {zset-max-listpack-value 30} [r config get zset-max-listpack-value]
        r config set list-max-ziplist-size 7
        assert_equal {list-max-listpack-size 7} [r config get list-max-listpack-size]
    }

    enc_test "OBJECT ENCODING of strings and of a missing key" {
        r flushall
        r set i 123
        assert_equal int [r object encoding i]
        r set e abc
        assert_equal embstr [r object encoding e]
        r set r [string repeat x 45]
        assert_equal raw [r object encoding r]
        r set r [string repeat x 44]
        assert_equal embstr [r object encoding r]
        assert_equal {} [r object encoding nokey]
        assert_error "ERR unknown subcommand 'foo'. Try OBJECT HELP." {r object foo i}
    }

    enc_test "Hash: listpack until hash-max-listpack-entries, then hashtable" {
        r flushall
        for {set i 1} {$i <= 512} {incr i} { r hset h f$i v }
        assert_equal listpack [r object encoding h]
        r hset h f513 v
        assert_equal hashtable [r object encoding h]
        # no conversion back when it shrinks
        for {set i 1} {$i <= 510} {incr i} { r hdel h f$i }
        assert_equal 3 [r hlen h]
        assert_equal hashtable [r object encoding h]
    }

    enc_test "Hash: a value or field longer than hash-max-listpack-value converts" {
        r flushall
        r hset h f [string repeat x 64]
        assert_equal listpack [r object encoding h]
        r hset h g [string repeat x 65]
        assert_equal hashtable [r object encoding h]
        r hdel h g
        assert_equal hashtable [r object encoding h]
        r hset h2 [string repeat k 65] v
        assert_equal hashtable [r object encoding h2]
        r hset h3 a 1
        r hsetnx h3 b [string repeat x 100]
        assert_equal hashtable [r object encoding h3]
        r hset h4 a 1
        r hincrbyfloat h4 a 1.5
        assert_equal listpack [r object encoding h4]
    }

    enc_test "Hash: CONFIG SET of the thresholds applies to later writes" {
        r flushall
        r config set hash-max-listpack-entries 4
        r hset h a 1 b 2 c 3 d 4
        assert_equal listpack [r object encoding h]
        r hset h e 5
        assert_equal hashtable [r object encoding h]
        r config set hash-max-listpack-value 5
        r hset h2 a 12345
        assert_equal listpack [r object encoding h2]
        r hset h2 b 123456
        assert_equal hashtable [r object encoding h2]
        r config set hash-max-listpack-entries 0
        r hset h3 a 1
        assert_equal hashtable [r object encoding h3]
        # the data is unchanged by the conversions
        assert_equal {a 1 b 2 c 3 d 4 e 5} [lsort -stride 2 [r hgetall h]]
        assert_equal {a 12345 b 123456} [lsort -stride 2 [r hgetall h2]]
    }

    enc_test "Set: intset until set-max-intset-entries, then hashtable" {
        r flushall
        for {set i 1} {$i <= 512} {incr i} { r sadd s $i }
        assert_equal intset [r object encoding s]
        r sadd s 513
        assert_equal hashtable [r object encoding s]
        assert_equal 513 [r scard s]
    }

    enc_test "Set: intset becomes listpack when a small set gets a non-integer" {
        r flushall
        r sadd s 1 2 3
        assert_equal intset [r object encoding s]
        r sadd s a
        assert_equal listpack [r object encoding s]
        r srem s a
        assert_equal listpack [r object encoding s]
        assert_equal {1 2 3} [lsort [r smembers s]]
        r sadd n -9223372036854775808 9223372036854775807
        assert_equal intset [r object encoding n]
        r sadd n 9223372036854775808
        assert_equal listpack [r object encoding n]
        r sadd b 1 [string repeat 9 30]
        assert_equal listpack [r object encoding b]
    }

    enc_test "Set: a large intset becomes hashtable when it gets a non-integer" {
        r flushall
        for {set i 1} {$i <= 200} {incr i} { r sadd s $i }
        assert_equal intset [r object encoding s]
        r sadd s x
        assert_equal hashtable [r object encoding s]
        assert_equal 201 [r scard s]
    }

    enc_test "Set: listpack until set-max-listpack-entries / -value, then hashtable" {
        r flushall
        for {set i 1} {$i <= 128} {incr i} { r sadd s m$i }
        assert_equal listpack [r object encoding s]
        r sadd s m129
        assert_equal hashtable [r object encoding s]
        r sadd v [string repeat x 64]
        assert_equal listpack [r object encoding v]
        r sadd v [string repeat x 65]
        assert_equal hashtable [r object encoding v]
        for {set i 1} {$i <= 125} {incr i} { r srem s m$i }
        assert_equal hashtable [r object encoding s]
    }

    enc_test "Set: CONFIG SET of the thresholds" {
        r flushall
        r config set set-max-intset-entries 3
        r sadd s 1 2 3
        assert_equal intset [r object encoding s]
        # an intset growing past its limit becomes a hashtable ...
        r sadd s 4
        assert_equal hashtable [r object encoding s]
        assert_equal {1 2 3 4} [lsort [r smembers s]]
        # ... but a new set created with more integers than the limit starts as a listpack
        r sadd n 1 2 3 4
        assert_equal listpack [r object encoding n]
        r config set set-max-intset-entries 512 set-max-listpack-entries 4
        r sadd u a b c d
        assert_equal listpack [r object encoding u]
        r sadd u e
        assert_equal hashtable [r object encoding u]
        r sadd w 1 2 3 4 5 6
        assert_equal intset [r object encoding w]
        r sadd w x
        assert_equal hashtable [r object encoding w]
        r config set set-max-listpack-entries 128 set-max-listpack-value 3
        r sadd t abc
        assert_equal listpack [r object encoding t]
        r sadd t abcd
        assert_equal hashtable [r object encoding t]
    }

    enc_test "Set: one SADD of many members judges by their number, not the set's size plus them" {
        # Valkey 8: a set of 1 given 512 integers (one a duplicate) is an intset of 512; a
        # listpack of 1 given 128 strings (one a duplicate) a listpack of 128.
        r flushall
        r sadd si 1
        set args {}
        for {set i 0} {$i < 512} {incr i} { lappend args $i }
        assert_equal 511 [r sadd si {*}$args]
        assert_equal intset [r object encoding si]
        assert_equal 1 [r sadd si 512]
        assert_equal hashtable [r object encoding si]
        r sadd sl a
        set args {a}
        for {set i 1} {$i < 128} {incr i} { lappend args m$i }
        assert_equal 127 [r sadd sl {*}$args]
        assert_equal listpack [r object encoding sl]
        assert_equal 128 [r scard sl]
    }

    enc_test "Set: SMOVE creates the destination in the member's encoding and converts a small one" {
        r flushall
        for {set i 0} {$i < 300} {incr i} { r sadd src m$i }
        r sadd src 7 abc
        assert_equal hashtable [r object encoding src]
        # a new destination takes the encoding of the one member moved into it
        assert_equal 1 [r smove src ints 7]
        assert_equal intset [r object encoding ints]
        assert_equal 1 [r smove src strs abc]
        assert_equal listpack [r object encoding strs]
        # an intset destination given a string member becomes a listpack while small
        assert_equal 1 [r smove src ints m1]
        assert_equal listpack [r object encoding ints]
        assert_equal {7 m1} [lsort [r smembers ints]]
        # and a listpack past set-max-listpack-entries becomes a hashtable
        r config set set-max-listpack-entries 3
        r sadd strs x y
        assert_equal 1 [r smove src strs m2]
        assert_equal hashtable [r object encoding strs]
    }

    enc_test "Set: store commands choose the encoding of the result" {
        r flushall
        r sadd a 1 2 3
        r sadd b x y 3
        r sunionstore d a b
        assert_equal listpack [r object encoding d]
        r sinterstore d a b
        assert_equal intset [r object encoding d]
        r sdiffstore d a b
        assert_equal intset [r object encoding d]
        for {set i 0} {$i < 300} {incr i} { r sadd big m$i }
        r sinterstore d big b
        assert_equal 0 [r exists d]
        r sadd big x
        r sinterstore d big b
        assert_equal listpack [r object encoding d]
    }

    enc_test "Sorted set: listpack until zset-max-listpack-entries / -value, then skiplist" {
        r flushall
        for {set i 1} {$i <= 128} {incr i} { r zadd z $i m$i }
        assert_equal listpack [r object encoding z]
        r zadd z 0 m129
        assert_equal skiplist [r object encoding z]
        r zremrangebyrank z 0 -3
        assert_equal 2 [r zcard z]
        assert_equal skiplist [r object encoding z]
        r zadd v 1 [string repeat x 64]
        assert_equal listpack [r object encoding v]
        r zadd v 1 [string repeat x 65]
        assert_equal skiplist [r object encoding v]
        r zadd w 1 a
        r zincrby w 1 [string repeat x 65]
        assert_equal skiplist [r object encoding w]
    }

    enc_test "Sorted set: store commands produce a listpack when the result is small" {
        r flushall
        for {set i 1} {$i <= 129} {incr i} { r zadd z $i m$i }
        assert_equal skiplist [r object encoding z]
        assert_equal 10 [r zrangestore d z 0 9]
        assert_equal listpack [r object encoding d]
        assert_equal 129 [r zunionstore d 1 z]
        assert_equal skiplist [r object encoding d]
        assert_equal 5 [r zrangestore d z 1 5 byscore]
        assert_equal listpack [r object encoding d]
        r zadd y 1 m1 2 m2
        assert_equal 2 [r zinterstore d 2 z y]
        assert_equal listpack [r object encoding d]
    }

    enc_test "Sorted set: CONFIG SET of the thresholds" {
        r flushall
        r config set zset-max-listpack-entries 2
        r zadd z 1 a 2 b
        assert_equal listpack [r object encoding z]
        r zadd z 3 c
        assert_equal skiplist [r object encoding z]
        r config set zset-max-listpack-entries 0
        r zadd one 1 a
        assert_equal skiplist [r object encoding one]
        r config set zset-max-listpack-entries 128 zset-max-listpack-value 2
        r zadd v 1 ab
        assert_equal listpack [r object encoding v]
        r zadd v 1 abc
        assert_equal skiplist [r object encoding v]
        assert_equal {a 1 b 2 c 3} [r zrange z 0 -1 withscores]
    }

    enc_test "List: listpack, quicklist past list-max-listpack-size entries, back after shrinking" {
        r flushall
        r config set list-max-listpack-size 4
        r rpush l a b c d
        assert_equal listpack [r object encoding l]
        r rpush l e
        assert_equal quicklist [r object encoding l]
        r rpop l
        r rpop l
        assert_equal quicklist [r object encoding l]
        r rpop l
        assert_equal listpack [r object encoding l]
        assert_equal {a b} [r lrange l 0 -1]
    }

    enc_test "List: LTRIM and LREM shrink a quicklist back to listpack" {
        r flushall
        r config set list-max-listpack-size 10
        for {set i 0} {$i < 30} {incr i} { r rpush l $i }
        assert_equal quicklist [r object encoding l]
        r ltrim l 0 5
        assert_equal quicklist [r object encoding l]
        r ltrim l 0 4
        assert_equal listpack [r object encoding l]
        assert_equal {0 1 2 3 4} [r lrange l 0 -1]
        for {set i 0} {$i < 30} {incr i} { r rpush m [expr {$i % 2}] }
        r lrem m 0 1
        assert_equal quicklist [r object encoding m]
        r lrem m 10 0
        assert_equal 5 [r llen m]
        assert_equal listpack [r object encoding m]
    }

    enc_test "List: size-based thresholds (negative list-max-listpack-size)" {
        r flushall
        set v [string repeat x 100]
        r config set list-max-listpack-size -1
        for {set i 0} {$i < 35} {incr i} { r rpush l $v }
        assert_equal listpack [r object encoding l]
        for {set i 0} {$i < 10} {incr i} { r rpush l $v }
        assert_equal quicklist [r object encoding l]
        r ltrim l 0 24
        assert_equal quicklist [r object encoding l]
        r ltrim l 0 14
        assert_equal listpack [r object encoding l]
        r config set list-max-listpack-size -2
        for {set i 0} {$i < 70} {incr i} { r rpush m $v }
        assert_equal listpack [r object encoding m]
        for {set i 0} {$i < 20} {incr i} { r rpush m $v }
        assert_equal quicklist [r object encoding m]
        # one element bigger than the limit
        r rpush big [string repeat x 9000]
        assert_equal quicklist [r object encoding big]
    }

    enc_test "List: a one-entry limit" {
        r flushall
        r config set list-max-listpack-size 1
        r rpush l a
        assert_equal listpack [r object encoding l]
        r rpush l b
        assert_equal quicklist [r object encoding l]
    }

    enc_test "List: LMOVE and LINSERT into a list at the threshold convert it" {
        r flushall
        r config set list-max-listpack-size 3
        r rpush src a b c
        r rpush dst x y z
        r lmove src dst left right
        assert_equal quicklist [r object encoding dst]
        r rpush l2 1 2 3
        r linsert l2 before 2 X
        assert_equal quicklist [r object encoding l2]
        assert_equal {1 X 2 3} [r lrange l2 0 -1]
        # LSET is judged as an append of its value (Valkey 8): a listpack at the limit converts,
        # even when the index is out of range
        r rpush l3 1 2 3
        r lset l3 0 X
        assert_equal quicklist [r object encoding l3]
        r rpush l4 1 2 3
        assert_error "ERR index out of range" {r lset l4 5 X}
        assert_equal quicklist [r object encoding l4]
        # one change for a move (Valkey counts LMOVE once)
        set d [s rdb_changes_since_last_save]
        r lmove src dst left left
        assert_equal [expr {$d + 1}] [s rdb_changes_since_last_save]
    }

    test "Encodings after DEBUG RELOAD" {
        reconnect
        enc_defaults
        r flushall
        r set s 12345
        r hset h a 1
        r sadd i 1 2
        r sadd p a b
        r zadd z 1 a
        r rpush l a
        r debug reload
        assert_equal int [r object encoding s]
        assert_equal listpack [r object encoding h]
        assert_equal intset [r object encoding i]
        assert_equal listpack [r object encoding p]
        assert_equal listpack [r object encoding z]
        assert_equal listpack [r object encoding l]
    } {persistence}

    enc_test "MEMORY USAGE returns an integer for every type" {
        r flushall
        r set str hello
        r set int 12345
        r set raw [string repeat x 200]
        r rpush list a b c
        r hset hash a 1
        r sadd intset 1 2 3
        r sadd lpset a b
        r zadd zset 1 a
        for {set i 0} {$i < 600} {incr i} {
            r rpush biglist v$i
            r hset bighash f$i v$i
            r sadd bigset m$i
            r zadd bigzset $i m$i
        }
        foreach key {str int raw list hash intset lpset zset biglist bighash bigset bigzset} {
            set n [r memory usage $key]
            assert {[string is integer -strict $n] && $n > 0} "MEMORY USAGE $key = '$n'"
        }
        assert {[r memory usage bighash] > [r memory usage hash]}
        assert {[r memory usage raw] > 200}
        assert {[string is integer -strict [r memory usage bigzset samples 0]]}
        assert_equal {} [r memory usage nokey]
        assert_error "ERR value is not an integer or out of range" {r memory usage str samples x}
        assert_error "ERR syntax error" {r memory usage str foo}
    }
}

start_server {tags {types}} {
    test "list-compress-depth compresses inner quicklist nodes: same contents, less memory" {
        r config set list-max-listpack-size 16
        r config set list-compress-depth 0
        for {set i 0} {$i < 3000} {incr i} { r rpush plain "element-[expr {$i % 50}]-[string repeat x 30]" }
        r config set list-compress-depth 1
        for {set i 0} {$i < 3000} {incr i} { r rpush packed "element-[expr {$i % 50}]-[string repeat x 30]" }
        assert_equal quicklist [r object encoding packed]
        assert_equal [r lrange plain 0 -1] [r lrange packed 0 -1]
        assert_equal [r lindex plain 1500] [r lindex packed 1500]
        set plain_mem [r memory usage plain]
        set packed_mem [r memory usage packed]
        assert {$packed_mem * 2 < $plain_mem}
        # Edits in the middle of a compressed list.
        r lset packed 1500 changed
        r linsert packed before changed inserted
        assert_equal {inserted changed} [r lrange packed 1500 1501]
        assert_equal 1 [r lrem packed 1 changed]
        r ltrim packed 100 -100
        assert_equal 2801 [r llen packed]
        assert_equal [r lrange plain 100 1499] [r lrange packed 0 1399]
        r debug reload
        assert_equal 2801 [r llen packed]
        assert_equal inserted [r lindex packed 1400]
    }
}
