# Hash commands: HSET HSETNX HMSET HGET HMGET HDEL HEXISTS HLEN HSTRLEN HKEYS HVALS HGETALL
# HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN, type errors.

proc hash_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [hash_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [hash_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc hash_raw {c args} {
    $c {*}$args
    return [hash_raw_reply $c]
}

proc hash_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

# Each test starts on a fresh cached connection so one failure cannot leak into the next.
proc hash_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body"]
}

# HSCAN the whole hash; returns a flat field/value list (or fields only with NOVALUES).
proc hash_scan_all {key args} {
    set cursor 0
    set out {}
    set calls 0
    while 1 {
        lassign [r hscan $key $cursor {*}$args] cursor items
        lappend out {*}$items
        incr calls
        if {$cursor eq "0"} break
        if {$calls > 100000} { error "HSCAN did not terminate" }
    }
    return $out
}

start_server {tags {hash}} {
    hash_test "HSET creates the key and counts only new fields" {
        r flushall
        assert_equal 2 [r hset h a 1 b 2]
        assert_equal hash [r type h]
        assert_equal 1 [r hset h a 10 c 3]
        assert_equal 0 [r hset h a 11 b 22]
        assert_equal 3 [r hlen h]
        assert_equal 11 [r hget h a]
        assert_equal 22 [r hget h b]
        assert_equal 3 [r hget h c]
    }

    hash_test "HSET with a repeated field in one call keeps the last value" {
        r flushall
        assert_equal 1 [r hset h f 1 f 2 f 3]
        assert_equal 3 [r hget h f]
        assert_equal 1 [r hlen h]
    }

    hash_test "HSET / HMSET arity errors" {
        r flushall
        assert_error "ERR wrong number of arguments for 'hset' command" {r hset h a 1 b}
        assert_error "ERR wrong number of arguments for 'hset' command" {r hset h}
        assert_error "ERR wrong number of arguments for 'hset' command" {r hset h a}
        assert_error "ERR wrong number of arguments for 'hmset' command" {r hmset h a}
        assert_error "ERR wrong number of arguments for 'hmset' command" {r hmset h a 1 b}
        assert_error "ERR wrong number of arguments for 'hsetnx' command" {r hsetnx h a}
        assert_error "ERR wrong number of arguments for 'hget' command" {r hget h}
        assert_error "ERR wrong number of arguments for 'hmget' command" {r hmget h}
        assert_error "ERR wrong number of arguments for 'hdel' command" {r hdel h}
        assert_equal 0 [r exists h]
    }

    hash_test "HMSET replies OK and sets every pair" {
        r flushall
        assert_equal OK [r hmset h a 1 b 2 c 3]
        assert_equal OK [r hmset h a x]
        assert_equal {x 2 3} [r hmget h a b c]
        assert_equal 3 [r hlen h]
    }

    hash_test "HSETNX sets only missing fields" {
        r flushall
        assert_equal 1 [r hsetnx h a 1]
        assert_equal 0 [r hsetnx h a 2]
        assert_equal 1 [r hget h a]
        assert_equal 1 [r hsetnx h b 2]
        assert_equal 2 [r hlen h]
    }

    hash_test "HGET / HMGET of missing fields and keys" {
        r flushall
        r hset h a 1 b 2
        assert_equal {} [r hget h nofield]
        assert_equal {} [r hget nokey a]
        assert_equal {1 {} 2 {}} [r hmget h a x b y]
        assert_equal {{} {}} [r hmget nokey a b]
        set c [hash_raw_client]
        assert_equal {$-1} [hash_raw $c hget h nofield]
        assert_equal {$-1} [hash_raw $c hget nokey nofield]
        assert_equal {*3 $1 1 $-1 $1 2} [hash_raw $c hmget h a x b]
        assert_equal {*2 $-1 $-1} [hash_raw $c hmget nokey a b]
        $c close
    }

    hash_test "HDEL counts removed fields and deletes the empty key" {
        r flushall
        r hset h a 1 b 2 c 3
        assert_equal 0 [r hdel h x]
        assert_equal 1 [r hdel h a a]
        assert_equal 1 [r hdel h b x]
        assert_equal 1 [r exists h]
        assert_equal 1 [r hdel h c]
        assert_equal 0 [r exists h]
        assert_equal 0 [r hdel nokey a]
    }

    hash_test "HEXISTS / HLEN / HSTRLEN" {
        r flushall
        r hset h a hello b "" c 12345 d -1
        assert_equal 1 [r hexists h a]
        assert_equal 1 [r hexists h b]
        assert_equal 0 [r hexists h x]
        assert_equal 0 [r hexists nokey a]
        assert_equal 4 [r hlen h]
        assert_equal 0 [r hlen nokey]
        assert_equal 5 [r hstrlen h a]
        assert_equal 0 [r hstrlen h b]
        assert_equal 5 [r hstrlen h c]
        assert_equal 2 [r hstrlen h d]
        assert_equal 0 [r hstrlen h x]
        assert_equal 0 [r hstrlen nokey a]
    }

    hash_test "HSTRLEN of integer-looking values matches their text length" {
        r flushall
        foreach v {0 -0 007 9223372036854775807 -9223372036854775808 1.5 " 1"} {
            r hset h f $v
            assert_equal [string length $v] [r hstrlen h f] "value '$v'"
            assert_equal $v [r hget h f]
        }
    }

    hash_test "HKEYS / HVALS / HGETALL keep field-value pairing" {
        r flushall
        assert_equal {} [r hkeys nokey]
        assert_equal {} [r hvals nokey]
        assert_equal {} [r hgetall nokey]
        r hset h a 1 b 2 c 3
        assert_equal {a b c} [lsort [r hkeys h]]
        assert_equal {1 2 3} [lsort [r hvals h]]
        set d [r hgetall h]
        assert_equal 6 [llength $d]
        assert_equal {a 1 b 2 c 3} [lsort -stride 2 $d]
        # keys and values come in the same order
        set keys [r hkeys h]
        set vals [r hvals h]
        foreach k $keys v $vals { assert_equal [r hget h $k] $v }
    }

    hash_test "HKEYS / HVALS / HGETALL of a large hash" {
        r flushall
        set expect {}
        for {set i 0} {$i < 600} {incr i} {
            r hset big field:$i value:$i
            lappend expect field:$i value:$i
        }
        assert_equal 600 [r hlen big]
        assert_equal [lsort -stride 2 $expect] [lsort -stride 2 [r hgetall big]]
        assert_equal 600 [llength [r hkeys big]]
        set keys [r hkeys big]
        set vals [r hvals big]
        foreach k $keys v $vals { assert_equal [string map {field value} $k] $v }
    }

    hash_test "HGETALL in RESP3 is a map" {
        r flushall
        r hset h a 1
        set c [hash_raw_client]
        hash_raw $c hello 3
        assert_equal {%1 $1 a $1 1} [hash_raw $c hgetall h]
        assert_equal {%0} [hash_raw $c hgetall nokey]
        assert_equal {*1 $1 a} [hash_raw $c hkeys h]
        $c close
    }

    hash_test "Binary-safe fields and values" {
        r flushall
        set f "a\x00b\r\nc"
        set v "\x00\xff\x01 value"
        r hset h $f $v
        assert_equal $v [r hget h $f]
        assert_equal 1 [r hexists h $f]
        assert_equal 0 [r hexists h "a"]
        assert_equal [string length $v] [r hstrlen h $f]
        assert_equal [list $f $v] [r hgetall h]
    }

    hash_test "HINCRBY on missing keys and fields starts from 0" {
        r flushall
        assert_equal 5 [r hincrby h a 5]
        assert_equal 2 [r hincrby h a -3]
        assert_equal -10 [r hincrby h b -10]
        assert_equal 0 [r hincrby h c 0]
        assert_equal 0 [r hget h c]
        r hset h d 100
        assert_equal 101 [r hincrby h d 1]
        assert_equal 101 [r hget h d]
    }

    hash_test "HINCRBY errors" {
        r flushall
        r hset h s foo e "" sp " 1" fl 1.5 n 10
        assert_error "ERR hash value is not an integer" {r hincrby h s 1}
        assert_error "ERR hash value is not an integer" {r hincrby h e 1}
        assert_error "ERR hash value is not an integer" {r hincrby h sp 1}
        assert_error "ERR hash value is not an integer" {r hincrby h fl 1}
        assert_error "ERR value is not an integer or out of range" {r hincrby h n x}
        assert_error "ERR value is not an integer or out of range" {r hincrby h n 1.5}
        assert_error "ERR value is not an integer or out of range" {r hincrby h n ""}
        assert_error "ERR value is not an integer or out of range" {r hincrby h n 9223372036854775808}
        assert_error "ERR wrong number of arguments for 'hincrby' command" {r hincrby h n}
        assert_equal 10 [r hget h n]
        assert_equal foo [r hget h s]
    }

    hash_test "HINCRBY overflow in both directions" {
        r flushall
        r hset h max 9223372036854775807 min -9223372036854775808
        assert_error "ERR increment or decrement would overflow" {r hincrby h max 1}
        assert_error "ERR increment or decrement would overflow" {r hincrby h min -1}
        assert_error "ERR increment or decrement would overflow" {r hincrby h max 9223372036854775807}
        assert_equal 9223372036854775807 [r hget h max]
        assert_equal -9223372036854775808 [r hget h min]
        assert_equal 9223372036854775806 [r hincrby h max -1]
        assert_equal -1 [r hincrby h min 9223372036854775807]
        assert_equal -9223372036854775808 [r hincrby h new -9223372036854775808]
    }

    hash_test "HINCRBYFLOAT results and formatting" {
        r flushall
        assert_equal 10.5 [r hincrbyfloat h a 10.5]
        assert_equal 10.5 [r hget h a]
        assert_equal 11 [r hincrbyfloat h a 0.5]
        assert_equal 0.1 [r hincrbyfloat h b 0.1]
        assert_equal 0.3 [r hincrbyfloat h b 0.2]
        assert_equal 5000 [r hincrbyfloat h c 5.0e3]
        assert_equal 1.00001 [r hincrbyfloat h d 1.00001]
        r hset h e 1.0
        assert_equal 1 [r hincrbyfloat h e 0]
        assert_equal 1 [r hget h e]
        assert_equal 10000000000000000000000 [r hincrbyfloat h f 10000000000000000000000]
        assert_equal -3 [r hincrbyfloat h g -3]
        r hset h i 7
        assert_equal 4.5 [r hincrbyfloat h i -2.5]
        # long double printed with 17 fractional digits at most: tiny values become 0
        assert_equal 0 [r hincrbyfloat h tiny 1.23e-20]
    }

    hash_test "HINCRBYFLOAT errors" {
        r flushall
        r hset h s foo n 1 e ""
        assert_error "ERR hash value is not a float" {r hincrbyfloat h s 1}
        assert_error "ERR hash value is not a float" {r hincrbyfloat h e 1}
        assert_error "ERR value is not a valid float" {r hincrbyfloat h n x}
        assert_error "ERR value is not a valid float" {r hincrbyfloat h n ""}
        assert_error "ERR value is not a valid float" {r hincrbyfloat h n "1 "}
        assert_error "ERR value is not a valid float" {r hincrbyfloat h n nan}
        assert_error "ERR value is NaN or Infinity" {r hincrbyfloat h n inf}
        assert_error "ERR value is NaN or Infinity" {r hincrbyfloat h n -inf}
        assert_equal 1 [r hget h n]
    }

    hash_test "HRANDFIELD without count" {
        r flushall
        assert_equal {} [r hrandfield nokey]
        r hset h a 1 b 2 c 3
        for {set i 0} {$i < 30} {incr i} {
            assert {[r hrandfield h] in {a b c}}
        }
        set c [hash_raw_client]
        assert_equal {$-1} [hash_raw $c hrandfield nokey]
        assert_equal {*0} [hash_raw $c hrandfield nokey 3]
        assert_equal {*0} [hash_raw $c hrandfield h 0]
        assert_equal {*0} [hash_raw $c hrandfield h 0 withvalues]
        $c close
    }

    hash_test "HRANDFIELD positive count returns distinct fields" {
        r flushall
        r hset h a 1 b 2 c 3 d 4 e 5
        for {set i 0} {$i < 20} {incr i} {
            set res [r hrandfield h 3]
            assert_equal 3 [llength $res]
            assert_equal 3 [llength [lsort -unique $res]]
            foreach f $res { assert {$f in {a b c d e}} }
        }
        assert_equal {a b c d e} [lsort [r hrandfield h 5]]
        assert_equal {a b c d e} [lsort [r hrandfield h 100]]
        assert_equal {} [r hrandfield nokey 5]
    }

    hash_test "HRANDFIELD with a count under a third of the hash draws fields: a rehash moves on" {
        # As SRANDMEMBER's (type_set.tcl): random draws, not a copy of the hash.
        r flushall
        set args {}
        for {set i 0} {$i < 1024} {incr i} { lappend args f$i v$i }
        r hset h {*}$args
        r hset h extra vextra
        assert_match "*rehashing target*" [r debug htstats-key h]
        # only HRANDFIELD runs meanwhile (a lookup would move the rehash on itself)
        set calls 0
        set picks {}
        while {[string match "*rehashing target*" [r debug htstats-key h]] && $calls < 1000} {
            set res [r hrandfield h 10 withvalues]
            assert_equal 20 [llength $res]
            assert_equal 10 [llength [lsort -unique [dict keys $res]]]
            lappend picks {*}$res
            incr calls
        }
        assert_range $calls 1 999
        foreach {f v} $picks { assert_equal [r hget h $f] $v }
        assert_equal 10 [llength [lsort -unique [r hrandfield h 10]]]
        # a count whose triple overflows 64 bits is still a count past the size: every field
        r del h
        r hset h a 1 b 2 c 3 d 4 e 5 f 6 g 7
        assert_equal {a b c d e f g} [lsort [r hrandfield h 6148914691236517206]]
    }

    hash_test "HRANDFIELD negative count may repeat fields" {
        r flushall
        r hset h a 1 b 2
        set res [r hrandfield h -50]
        assert_equal 50 [llength $res]
        foreach f $res { assert {$f in {a b}} }
        assert_equal {a b} [lsort -unique $res]
        assert_equal 1 [llength [r hrandfield h -1]]
        assert_equal {} [r hrandfield nokey -5]
    }

    hash_test "HRANDFIELD WITHVALUES pairs fields with their values" {
        r flushall
        for {set i 0} {$i < 20} {incr i} { r hset h f$i v$i }
        foreach count {5 20 25 -30} {
            set res [r hrandfield h $count withvalues]
            set n [expr {$count < 0 ? -$count : min($count, 20)}]
            assert_equal [expr {2 * $n}] [llength $res] "count $count"
            foreach {f v} $res { assert_equal [string map {f v} $f] $v }
            if {$count > 0} { assert_equal $n [llength [lsort -unique [dict keys $res]]] }
        }
    }

    hash_test "HRANDFIELD on a large hash (hashtable encoding)" {
        r flushall
        for {set i 0} {$i < 500} {incr i} { r hset big f$i $i }
        set res [r hrandfield big 100]
        assert_equal 100 [llength [lsort -unique $res]]
        set res [r hrandfield big 450 withvalues]
        assert_equal 900 [llength $res]
        assert_equal 450 [llength [lsort -unique [dict keys $res]]]
        foreach {f v} $res { assert_equal "f$v" $f }
        assert_equal 500 [llength [r hrandfield big 1000]]
        assert_equal 1000 [llength [r hrandfield big -1000]]
    }

    hash_test "HRANDFIELD WITHVALUES in RESP3 is an array of pairs" {
        r flushall
        r hset h a 1
        set c [hash_raw_client]
        hash_raw $c hello 3
        assert_equal {*1 *2 $1 a $1 1} [hash_raw $c hrandfield h 1 withvalues]
        assert_equal {*2 *2 $1 a $1 1 *2 $1 a $1 1} [hash_raw $c hrandfield h -2 withvalues]
        $c close
    }

    hash_test "HRANDFIELD argument errors" {
        r flushall
        r hset h a 1
        assert_error "ERR value is not an integer or out of range" {r hrandfield h withvalues}
        assert_error "ERR value is not an integer or out of range" {r hrandfield h x}
        assert_error "ERR syntax error" {r hrandfield h 1 withvalues x}
        assert_error "ERR syntax error" {r hrandfield h 1 foo}
        assert_error "ERR value is out of range*" {r hrandfield h -9223372036854775808}
        assert_error "ERR value is out of range*" {r hrandfield h -9223372036854775808 withvalues}
    }

    hash_test "HSCAN of a small hash returns everything in one call" {
        r flushall
        r hset h a 1 b 2 c 3
        lassign [r hscan h 0] cursor items
        assert_equal 0 $cursor
        assert_equal {a 1 b 2 c 3} [lsort -stride 2 $items]
        lassign [r hscan h 0 novalues] cursor items
        assert_equal 0 $cursor
        assert_equal {a b c} [lsort $items]
        assert_equal {0 {}} [r hscan nokey 0]
    }

    hash_test "HSCAN full iteration of a big hash returns every field" {
        r flushall
        set n 1500
        for {set i 0} {$i < $n} {incr i} { r hset big f$i v$i }
        set items [hash_scan_all big count 17]
        set d [dict create]
        foreach {f v} $items {
            assert_equal "v[string range $f 1 end]" $v
            dict set d $f 1
        }
        assert_equal $n [dict size $d]
        set fields [hash_scan_all big novalues]
        assert_equal $n [llength [lsort -unique $fields]]
        foreach f $fields { assert_match {f[0-9]*} $f }
    }

    hash_test "HSCAN MATCH filters fields" {
        r flushall
        for {set i 0} {$i < 300} {incr i} { r hset big a:$i 1 b:$i 2 }
        set items [hash_scan_all big match a:* count 50]
        assert_equal 300 [llength [lsort -unique [dict keys $items]]]
        foreach {f v} $items {
            assert_match a:* $f
            assert_equal 1 $v
        }
        set fields [hash_scan_all big match *:1? novalues]
        assert_equal 20 [llength [lsort -unique $fields]]
        r hset small a:1 1 b:1 2 a:2 3
        lassign [r hscan small 0 match a:*] cursor items
        assert_equal {a:1 1 a:2 3} [lsort -stride 2 $items]
        lassign [r hscan small 0 match zz*] cursor items
        assert_equal {0 {}} [list $cursor $items]
    }

    hash_test "HSCAN argument errors" {
        r flushall
        r hset h a 1
        assert_error "ERR invalid cursor" {r hscan h x}
        assert_error "ERR invalid cursor" {r hscan h -1}
        assert_error "ERR invalid cursor" {r hscan h 18446744073709551616}
        assert_error "ERR syntax error" {r hscan h 0 count 0}
        assert_error "ERR syntax error" {r hscan h 0 count -1}
        assert_error "ERR value is not an integer or out of range" {r hscan h 0 count x}
        assert_error "ERR syntax error" {r hscan h 0 match}
        assert_error "ERR syntax error" {r hscan h 0 foo}
        assert_error "ERR syntax error" {r hscan h 0 novalues x}
    }

    hash_test "Hash commands against a string key are WRONGTYPE" {
        r flushall
        r set str x
        foreach cmd {
            {hset str a 1} {hsetnx str a 1} {hmset str a 1} {hget str a} {hmget str a}
            {hdel str a} {hexists str a} {hlen str} {hstrlen str a} {hkeys str}
            {hvals str} {hgetall str} {hincrby str a 1} {hincrbyfloat str a 1}
            {hrandfield str} {hrandfield str 2} {hscan str 0}
        } {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" \
                [list r {*}$cmd]
        }
        assert_equal x [r get str]
        r hset h a 1
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r get h}
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r lpush h x}
    }

    test "A hash survives DEBUG RELOAD" {
        reconnect
        r flushall
        r hset small a 1 b 2
        for {set i 0} {$i < 300} {incr i} { r hset big f$i v$i }
        set before [csvdump]
        r debug reload
        assert_equal $before [csvdump]
    } {persistence}
}
