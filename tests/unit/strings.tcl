# String commands: GET SET (all options) SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET
# MSETNX APPEND STRLEN GETRANGE SETRANGE INCR* DECR* INCRBYFLOAT, encodings, binary safety.

# One whole reply of a readraw client, its raw lines joined by spaces.
proc str_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [str_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [str_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

# Send one command on a raw client and return its raw reply.
proc str_raw {c args} {
    $c {*}$args
    return [str_raw_reply $c]
}

proc str_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

start_server {tags {strings}} {
    test "SET and GET a simple value" {
        r flushall
        assert_equal OK [r set foo bar]
        assert_equal bar [r get foo]
        assert_equal OK [r set foo baz]
        assert_equal baz [r get foo]
        assert_equal {} [r get nokey]
    }

    test "GET of a missing key is a null bulk, of an empty string an empty bulk" {
        r flushall
        set c [str_raw_client]
        assert_equal {$-1} [str_raw $c get nokey]
        str_raw $c set empty ""
        assert_equal {$0 } [str_raw $c get empty]
        assert_equal {+OK} [str_raw $c set k v]
        $c close
    }

    test "GET and SET arity errors" {
        assert_error "ERR wrong number of arguments for 'get' command" {r get}
        assert_error "ERR wrong number of arguments for 'get' command" {r get a b}
        assert_error "ERR wrong number of arguments for 'set' command" {r set a}
        assert_error "ERR wrong number of arguments for 'set' command" {r set}
    }

    test "SET with EX, PX, EXAT and PXAT sets the TTL" {
        r flushall
        assert_equal OK [r set k v ex 100]
        assert_range [r ttl k] 98 100
        assert_equal OK [r set k v px 100000]
        assert_range [r pttl k] 98000 100000
        set at [expr {[clock seconds] + 200}]
        assert_equal OK [r set k v exat $at]
        assert_equal $at [r expiretime k]
        set pat [expr {[clock milliseconds] + 300000}]
        assert_equal OK [r set k v pxat $pat]
        assert_equal $pat [r pexpiretime k]
        assert_equal v [r get k]
    }

    test "SET options are case insensitive" {
        r flushall
        assert_equal OK [r set k v Ex 100 nX]
        assert_range [r ttl k] 98 100
        assert_equal v [r set k w xx GeT]
        assert_equal -1 [r ttl k]
    }

    test "SET NX and XX" {
        r flushall
        assert_equal {} [r set k v xx]
        assert_equal 0 [r exists k]
        assert_equal OK [r set k v nx]
        assert_equal {} [r set k w nx]
        assert_equal v [r get k]
        assert_equal OK [r set k w xx]
        assert_equal w [r get k]
    }

    test "SET NX / XX that does not set replies a null bulk" {
        r flushall
        set c [str_raw_client]
        str_raw $c set k v
        assert_equal {$-1} [str_raw $c set k v nx]
        assert_equal {$-1} [str_raw $c set k2 v xx]
        $c close
    }

    test "SET KEEPTTL keeps the TTL, plain SET clears it" {
        r flushall
        r set k v ex 100
        assert_equal OK [r set k v2 keepttl]
        assert_range [r ttl k] 98 100
        assert_equal v2 [r get k]
        assert_equal OK [r set k v3]
        assert_equal -1 [r ttl k]
        assert_equal OK [r set k v4 keepttl]
        assert_equal -1 [r ttl k]
        assert_equal OK [r set newkey v keepttl]
        assert_equal -1 [r ttl newkey]
    }

    # SET over a value of the same length and encoding writes it in place (db::OverwriteString):
    # nothing of it may show. Each row: the old value and its SET options, the new value and
    # its options; the key must read, encode, expire and weigh as a key set fresh that way.
    test "SET over a value of the same size: the key is as one set anew" {
        r flushall
        set long1 [string repeat a 100]
        set long2 [string repeat b 100]
        foreach {old oldopts new newopts} [list \
                abc {} xyz {} \
                abc {ex 100} xyz {} \
                abc {ex 100} xyz {keepttl} \
                abc {} xyz {keepttl} \
                12 {} 34 {} \
                -9000000000 {} 9000000000 {} \
                12 {} ab {} \
                ab {} 12 {} \
                07 {} 08 {} \
                $long1 {} $long2 {} \
                $long1 {px 100000} $long2 {keepttl} \
                abc {} xyz {get} \
                abc {} xyz {xx}] {
            r del k f
            r set k $old {*}$oldopts
            r set k $new {*}$newopts
            if {"keepttl" in $newopts} {
                r set f $new {*}$oldopts
            } else {
                r set f $new {*}[lsearch -all -inline -not -regexp $newopts {^(get|xx)$}]
            }
            set row "$old $oldopts -> $new $newopts"
            assert_equal $new [r get k] $row
            assert_equal [r object encoding f] [r object encoding k] $row
            assert_equal [expr {[r pttl f] > 0}] [expr {[r pttl k] > 0}] $row
            assert_equal [r memory usage f] [r memory usage k] $row
        }
    }

    test "SET GET returns the old value" {
        r flushall
        assert_equal {} [r set k v1 get]
        assert_equal v1 [r get k]
        assert_equal v1 [r set k v2 get]
        assert_equal v2 [r get k]
        assert_equal v2 [r set k v3 get ex 100]
        assert_range [r ttl k] 98 100
        assert_equal v3 [r set k v4 keepttl get]
        assert_range [r ttl k] 98 100
    }

    test "SET GET combined with NX and XX" {
        r flushall
        # NX GET on a missing key: sets it and returns null
        assert_equal {} [r set k v nx get]
        assert_equal v [r get k]
        # NX GET on an existing key: does not set, returns the current value
        assert_equal v [r set k w nx get]
        assert_equal v [r get k]
        # XX GET on an existing key: sets it, returns the old value
        assert_equal v [r set k x xx get]
        assert_equal x [r get k]
        # XX GET on a missing key: does nothing, returns null
        assert_equal {} [r set missing y xx get]
        assert_equal 0 [r exists missing]
    }

    test "SET with incompatible options is a syntax error" {
        r flushall
        foreach opts {
            {nx xx} {xx nx} {ex 10 px 10} {px 10 ex 10} {ex 10 exat 10} {px 10 pxat 10}
            {exat 10 pxat 10} {keepttl ex 10} {ex 10 keepttl} {keepttl px 10}
            {keepttl exat 10} {keepttl pxat 10} {ex} {px} {exat} {pxat} {foo} {ex 10 foo}
            {ex 10 px} {get foo}
        } {
            assert_error "ERR syntax error" {r set k v {*}$opts}
        }
        assert_equal 0 [r exists k]
    }

    test "SET accepts a repeated option" {
        r flushall
        assert_equal OK [r set k v ex 100 ex 200]
        assert_range [r ttl k] 198 200
        assert_equal {} [r set k w nx nx]
        assert_equal v [r set k w get get]
        assert_equal OK [r set k x xx xx keepttl keepttl]
        assert_equal x [r get k]
    }

    test "SET with an invalid expire time" {
        r flushall
        foreach opts {
            {ex 0} {ex -1} {px 0} {px -1} {exat 0} {exat -1} {pxat 0} {pxat -100}
            {ex 9223372036854775807} {px 9223372036854775807} {exat 9223372036854775807}
            {ex 9223372036854775} {exat 9223372036854776} {ex 9223372036854774}
            {ex -9223372036854775808}
        } {
            assert_error "ERR invalid expire time in 'set' command" {r set k v {*}$opts}
        }
        assert_error "ERR value is not an integer or out of range" {r set k v ex abc}
        assert_error "ERR value is not an integer or out of range" {r set k v px 1.5}
        assert_error "ERR value is not an integer or out of range" {r set k v ex 9223372036854775808}
        assert_equal 0 [r exists k]
    }

    test "SET with a far but valid expire time" {
        r flushall
        assert_equal OK [r set k v pxat 9223372036854775807]
        assert_equal 9223372036854775807 [r pexpiretime k]
        assert_equal OK [r set k v exat 9223372036854775]
        assert_equal 9223372036854775 [r expiretime k]
        assert_equal v [r get k]
    }

    test "SETNX" {
        r flushall
        assert_equal 1 [r setnx k v]
        assert_equal 0 [r setnx k w]
        assert_equal v [r get k]
        r set t v ex 100
        assert_equal 0 [r setnx t x]
        assert_range [r ttl t] 98 100
        assert_error "ERR wrong number of arguments for 'setnx' command" {r setnx k}
    }

    test "SETEX and PSETEX" {
        r flushall
        assert_equal OK [r setex k 100 v]
        assert_equal v [r get k]
        assert_range [r ttl k] 98 100
        assert_equal OK [r psetex p 100000 v]
        assert_range [r pttl p] 98000 100000
        # SETEX on an existing key with a TTL replaces value and TTL
        assert_equal OK [r setex k 50 w]
        assert_equal w [r get k]
        assert_range [r ttl k] 48 50
    }

    test "SETEX and PSETEX errors" {
        r flushall
        assert_error "ERR invalid expire time in 'setex' command" {r setex k 0 v}
        assert_error "ERR invalid expire time in 'setex' command" {r setex k -5 v}
        assert_error "ERR invalid expire time in 'setex' command" {r setex k 9223372036854775807 v}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex k 0 v}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex k -1 v}
        assert_error "ERR value is not an integer or out of range" {r setex k abc v}
        assert_error "ERR value is not an integer or out of range" {r psetex k 1.5 v}
        assert_error "ERR wrong number of arguments for 'setex' command" {r setex k 10}
        assert_error "ERR wrong number of arguments for 'psetex' command" {r psetex k 10 v x}
        assert_equal 0 [r exists k]
    }

    test "GETSET" {
        r flushall
        assert_equal {} [r getset k v]
        assert_equal v [r get k]
        assert_equal v [r getset k w]
        assert_equal w [r get k]
        r set t x ex 100
        assert_equal x [r getset t y]
        assert_equal -1 [r ttl t]
        assert_error "ERR wrong number of arguments for 'getset' command" {r getset k}
    }

    test "GETDEL" {
        r flushall
        r set k v ex 100
        assert_equal v [r getdel k]
        assert_equal 0 [r exists k]
        assert_equal {} [r getdel k]
        assert_error "ERR wrong number of arguments for 'getdel' command" {r getdel}
        assert_error "ERR wrong number of arguments for 'getdel' command" {r getdel a b}
    }

    test "GETEX without options does not touch the TTL" {
        r flushall
        r set k v ex 100
        assert_equal v [r getex k]
        assert_range [r ttl k] 98 100
        r set p v
        assert_equal v [r getex p]
        assert_equal -1 [r ttl p]
        assert_equal {} [r getex nokey]
    }

    test "GETEX EX, PX, EXAT, PXAT and PERSIST" {
        r flushall
        r set k v
        assert_equal v [r getex k ex 100]
        assert_range [r ttl k] 98 100
        assert_equal v [r getex k px 200000]
        assert_range [r pttl k] 198000 200000
        set at [expr {[clock seconds] + 300}]
        assert_equal v [r getex k exat $at]
        assert_equal $at [r expiretime k]
        set pat [expr {[clock milliseconds] + 400000}]
        assert_equal v [r getex k pxat $pat]
        assert_equal $pat [r pexpiretime k]
        assert_equal v [r getex k persist]
        assert_equal -1 [r ttl k]
        assert_equal v [r getex k PERSIST]
        assert_equal -1 [r ttl k]
    }

    test "GETEX with a past EXAT deletes the key" {
        r flushall
        r set k v
        assert_equal v [r getex k exat 1]
        assert_equal 0 [r exists k]
        r set k v
        assert_equal v [r getex k pxat 1]
        assert_equal 0 [r exists k]
    }

    test "GETEX errors" {
        r flushall
        r set k v
        assert_error "ERR syntax error" {r getex k persist ex 10}
        assert_error "ERR syntax error" {r getex k ex 10 persist}
        assert_error "ERR syntax error" {r getex k ex 10 px 10}
        assert_error "ERR syntax error" {r getex k foo}
        assert_error "ERR syntax error" {r getex k ex}
        assert_error "ERR syntax error" {r getex k keepttl}
        assert_error "ERR syntax error" {r getex k nx}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k ex 0}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k ex -1}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k px 0}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k ex 9223372036854775807}
        assert_error "ERR invalid expire time in 'getex' command" {r getex k px 9223372036854775807}
        assert_error "ERR value is not an integer or out of range" {r getex k ex abc}
        assert_error "ERR wrong number of arguments for 'getex' command" {r getex}
        assert_equal v [r get k]
        assert_equal -1 [r ttl k]
    }

    test "GETEX on a missing key checks the syntax but not the expire value" {
        r flushall
        assert_equal {} [r getex nokey ex 0]
        assert_equal {} [r getex nokey ex -1]
        assert_equal {} [r getex nokey ex abc]
        assert_equal {} [r getex nokey persist]
        assert_error "ERR syntax error" {r getex nokey foo}
        assert_error "ERR syntax error" {r getex nokey ex 1 persist}
    }

    test "MGET with present and missing keys" {
        r flushall
        r set a 1
        r set c 3
        assert_equal {1 {} 3 {}} [r mget a b c d]
        assert_equal {1 1} [r mget a a]
        assert_error "ERR wrong number of arguments for 'mget' command" {r mget}
        set c [str_raw_client]
        assert_equal {*3 $1 1 $-1 $1 3} [str_raw $c mget a b c]
        $c close
    }

    test "MSET and MSETNX" {
        r flushall
        assert_equal OK [r mset a 1 b 2 c 3]
        assert_equal {1 2 3} [r mget a b c]
        assert_equal OK [r mset a 10 a 11]
        assert_equal 11 [r get a]
        assert_equal 0 [r msetnx a 5 z 6]
        assert_equal {11 {}} [r mget a z]
        assert_equal 1 [r msetnx x 1 y 2]
        assert_equal {1 2} [r mget x y]
        # repeated key in MSETNX: the last value wins
        assert_equal 1 [r msetnx n 1 n 2]
        assert_equal 2 [r get n]
    }

    test "MSET clears the TTL of overwritten keys" {
        r flushall
        r set a 1 ex 100
        r mset a 2 b 3
        assert_equal -1 [r ttl a]
        assert_equal 2 [r get a]
    }

    test "MSET and MSETNX with an odd number of arguments" {
        r flushall
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset a 1 b}
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset a}
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset}
        assert_error "ERR wrong number of arguments for 'msetnx' command" {r msetnx a 1 b}
        assert_error "ERR wrong number of arguments for 'msetnx' command" {r msetnx}
        assert_equal 0 [r dbsize]
    }

    test "APPEND and STRLEN" {
        r flushall
        assert_equal 3 [r append k abc]
        assert_equal 6 [r append k def]
        assert_equal abcdef [r get k]
        assert_equal 6 [r strlen k]
        assert_equal 0 [r strlen nokey]
        assert_equal 6 [r append k ""]
        assert_equal 0 [r append e ""]
        assert_equal 1 [r exists e]
        assert_equal "" [r get e]
        r set n 12345
        assert_equal 5 [r strlen n]
        assert_equal 7 [r append n 67]
        assert_equal 1234567 [r get n]
        assert_error "ERR wrong number of arguments for 'append' command" {r append k}
        assert_error "ERR wrong number of arguments for 'strlen' command" {r strlen}
    }

    test "APPEND keeps the TTL" {
        r flushall
        r set k a ex 100
        r append k b
        assert_range [r ttl k] 98 100
        assert_equal ab [r get k]
    }

    test "GETRANGE" {
        r flushall
        r set s "Hello World"
        set cases {
            {0 4} Hello   {-5 -1} World   {0 -1} {Hello World}   {-100 -1} {Hello World}
            {5 100} { World}   {100 200} {}   {-1 -5} {}   {3 2} {}   {-1 0} {}
            {0 0} H   {-1 -1} d   {-100 -100} H   {-100 0} H   {0 -100} H   {10 10} d
            {11 11} {}   {6 -1} World
        }
        foreach {range expected} $cases {
            assert_equal $expected [r getrange s {*}$range] "GETRANGE s $range"
        }
        assert_equal "" [r getrange nokey 0 -1]
        r set n 12345
        assert_equal 23 [r getrange n 1 2]
        assert_equal 12345 [r getrange n 0 -1]
        assert_equal 5 [r getrange n -1 100]
        assert_equal ell [r substr s 1 3]
    }

    test "GETRANGE on a missing key is an empty bulk, not null" {
        r flushall
        set c [str_raw_client]
        assert_equal {$0 } [str_raw $c getrange nokey 0 -1]
        $c close
    }

    test "GETRANGE errors" {
        r flushall
        r set s abc
        assert_error "ERR value is not an integer or out of range" {r getrange s a 1}
        assert_error "ERR value is not an integer or out of range" {r getrange s 0 9223372036854775808}
        assert_error "ERR value is not an integer or out of range" {r getrange s 0 1.5}
        assert_error "ERR wrong number of arguments for 'getrange' command" {r getrange s 0}
    }

    test "SETRANGE writes inside and past the end" {
        r flushall
        r set k "Hello World"
        # "Valkey" is one byte longer than "World"
        assert_equal 12 [r setrange k 6 Valkey]
        assert_equal "Hello Valkey" [r get k]
        assert_equal 12 [r setrange k 0 J]
        assert_equal "Jello Valkey" [r get k]
        assert_equal 14 [r setrange k 12 !!]
        assert_equal "Jello Valkey!!" [r get k]
    }

    test "SETRANGE pads with zero bytes" {
        r flushall
        assert_equal 7 [r setrange k 5 ab]
        assert_equal "\x00\x00\x00\x00\x00ab" [r get k]
        r set s abc
        assert_equal 6 [r setrange s 5 x]
        assert_equal "abc\x00\x00x" [r get s]
    }

    test "SETRANGE with an empty value" {
        r flushall
        assert_equal 0 [r setrange e 0 ""]
        assert_equal 0 [r exists e]
        assert_equal 0 [r setrange e 10 ""]
        assert_equal 0 [r exists e]
        r set k abc
        assert_equal 3 [r setrange k 1 ""]
        assert_equal 3 [r setrange k 100 ""]
        assert_equal abc [r get k]
        # an empty value is never checked against the size limit
        assert_equal 3 [r setrange k 600000000 ""]
    }

    test "SETRANGE errors" {
        r flushall
        r set k abc
        assert_error "ERR offset is out of range" {r setrange k -1 x}
        assert_error "ERR offset is out of range" {r setrange nokey -1 x}
        assert_error "ERR value is not an integer or out of range" {r setrange k abc x}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange k 536870912 x}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange nokey 536870912 x}
        assert_error "ERR wrong number of arguments for 'setrange' command" {r setrange k 0}
        assert_equal abc [r get k]
        assert_equal 0 [r exists nokey]
    }

    test "SETRANGE and APPEND honour proto-max-bulk-len" {
        r flushall
        r config set proto-max-bulk-len 1048576
        try {
            assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange k 1048576 x}
            assert_equal 1048576 [r setrange k 1048575 x]
            assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r append k y}
            assert_equal 1048576 [r strlen k]
        } finally {
            r config set proto-max-bulk-len 536870912
            r flushall
        }
    }

    test "INCR, DECR, INCRBY, DECRBY" {
        r flushall
        assert_equal 1 [r incr k]
        assert_equal 2 [r incr k]
        assert_equal 1 [r decr k]
        assert_equal 11 [r incrby k 10]
        assert_equal -9 [r decrby k 20]
        assert_equal -9 [r get k]
        assert_equal -1 [r decr d]
        assert_equal 5 [r incrby i 5]
        assert_equal -5 [r decrby j 5]
        assert_equal 5 [r incrby i 0]
        assert_equal 100 [r incrby i 95]
    }

    test "INCR keeps the TTL" {
        r flushall
        r set k 5 ex 100
        assert_equal 6 [r incr k]
        assert_range [r ttl k] 98 100
    }

    test "INCR on values that are not canonical integers" {
        r flushall
        foreach v {abc "" " 1" "1 " "+1" "01" "00" "1.0" "1e3" "0x10" "-0" "9223372036854775808"
                   "-9223372036854775809" "1a"} {
            r set k $v
            assert_error "ERR value is not an integer or out of range" {r incr k}
            assert_equal $v [r get k]
        }
    }

    test "INCRBY with an invalid increment" {
        r flushall
        r set k 5
        foreach inc {abc 1.5 "" " 1" 9223372036854775808 0x10} {
            assert_error "ERR value is not an integer or out of range" {r incrby k $inc}
            assert_error "ERR value is not an integer or out of range" {r decrby k $inc}
        }
        assert_equal 5 [r get k]
    }

    test "INCR / DECR overflow" {
        r flushall
        r set k 9223372036854775807
        assert_error "ERR increment or decrement would overflow" {r incr k}
        assert_error "ERR increment or decrement would overflow" {r incrby k 1}
        assert_equal 9223372036854775806 [r decr k]
        r set k -9223372036854775808
        assert_error "ERR increment or decrement would overflow" {r decr k}
        assert_error "ERR increment or decrement would overflow" {r incrby k -1}
        assert_error "ERR increment or decrement would overflow" {r decrby k 1}
        assert_equal -9223372036854775808 [r get k]
        assert_error "ERR decrement would overflow" {r decrby k -9223372036854775808}
        r set j 5
        assert_error "ERR decrement would overflow" {r decrby j -9223372036854775808}
        assert_equal 5 [r get j]
        r set m 0
        assert_equal -9223372036854775807 [r decrby m 9223372036854775807]
        assert_equal -9223372036854775808 [r decr m]
    }

    test "INCR arity errors" {
        assert_error "ERR wrong number of arguments for 'incr' command" {r incr}
        assert_error "ERR wrong number of arguments for 'incr' command" {r incr a b}
        assert_error "ERR wrong number of arguments for 'incrby' command" {r incrby a}
        assert_error "ERR wrong number of arguments for 'decrby' command" {r decrby a}
        assert_error "ERR wrong number of arguments for 'decr' command" {r decr}
    }

    test "INCRBYFLOAT results and formatting" {
        r flushall
        assert_equal 1.1 [r incrbyfloat g 1.1]
        r set f 10.5
        assert_equal 10.6 [r incrbyfloat f 0.1]
        r set f 3.0e3
        assert_equal 3000 [r incrbyfloat f 0]
        assert_equal 3000 [r get f]
        assert_equal 5000 [r incrbyfloat x 5.0e3]
        assert_equal 0.1 [r incrbyfloat y 0.1]
        assert_equal 0.3 [r incrbyfloat y 0.2]
        assert_equal 0.00000015 [r incrbyfloat z 1.5e-7]
        assert_equal 100000000000000000 [r incrbyfloat big 1e17]
        r set h 1
        assert_equal 0 [r incrbyfloat h -1]
        assert_equal 0 [r incrbyfloat h 0.0]
        assert_equal -0.5 [r incrbyfloat h -0.5]
        foreach {inc expected} {
            1e-20 0   5e-18 0   -0.0 0   0.333333333333333333333 0.33333333333333333
            123456789.123456789 123456789.12345678899873747   -1e17 -100000000000000000
            1e20 100000000000000000000   1.23456789012345678901 1.23456789012345679
            3.0000000000000001 3.0000000000000001
        } {
            r del t
            assert_equal $expected [r incrbyfloat t $inc] "INCRBYFLOAT t $inc"
        }
        r set i 5
        assert_equal 5.5 [r incrbyfloat i 0.5]
        assert_equal 5 [r incrbyfloat i -0.5]
    }

    test "INCRBYFLOAT refuses a value with an embedded NUL" {
        # found by the differential test: SETRANGE past the end pads with NUL bytes
        r flushall
        r setrange s 2 v11
        assert_error "ERR value is not a valid float" {r incrbyfloat s 1}
        r set n "1\x002"
        assert_error "ERR value is not a valid float" {r incrbyfloat n 1}
        assert_error "ERR value is not a valid float" {r incrbyfloat x "1\x00"}
        assert_error "ERR value is not a valid float" {r hincrbyfloat h f "1\x00"}
        assert_equal "\x00\x00v11" [r get s]
    }

    test "INCRBYFLOAT accepts hexadecimal and huge long double values" {
        r flushall
        r set h 0x10
        assert_equal 17 [r incrbyfloat h 1]
        assert_equal 33 [r incrbyfloat h 0x10]
        set big [r incrbyfloat g 1e400]
        assert_equal 401 [string length $big]
        assert_equal 10000000000000000000281880683947586514586453433629052038625910693539685534008629862039363994848324160522094053927317616200295822777259255734023828976593340661017797447434546173917862448116674971723778943824391593338047470675026246684401359237513603830343735485505244955964979021825038280091068414947402456898653040951017512658092615827588920183472511643316591362664138176309734806343732497430221946880 $big
    }

    test "INCRBYFLOAT errors" {
        r flushall
        r set s abc
        assert_error "ERR value is not a valid float" {r incrbyfloat s 1}
        foreach v {"1.1+" " 1.1" "1.1 " "" "1,5"} {
            r set v $v
            assert_error "ERR value is not a valid float" {r incrbyfloat v 1}
            assert_equal $v [r get v]
        }
        r set k 1
        foreach inc {"1.1+" " 1.1" "1.1 " abc "" nan 1e5000} {
            assert_error "ERR value is not a valid float" {r incrbyfloat k $inc}
        }
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat k inf}
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat k -inf}
        r set n inf
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat n 1}
        assert_equal 1 [r get k]
        assert_error "ERR wrong number of arguments for 'incrbyfloat' command" {r incrbyfloat k}
    }

    test "INCRBYFLOAT keeps the TTL" {
        r flushall
        r set k 1.5 ex 100
        assert_equal 2 [r incrbyfloat k 0.5]
        assert_range [r ttl k] 98 100
    }

    test "OBJECT ENCODING of integers" {
        r flushall
        foreach v {0 123 -1 9999 10000 -9223372036854775808 9223372036854775807} {
            r set k $v
            assert_encoding int k
        }
        foreach v {9223372036854775808 01 " 5" "+5" "-0" "1.5" "1e3"} {
            r set k $v
            assert_encoding embstr k
        }
    }

    test "OBJECT ENCODING embstr up to 44 bytes, raw above" {
        r flushall
        r set k [string repeat x 44]
        assert_encoding embstr k
        r set k [string repeat x 45]
        assert_encoding raw k
        r set k ""
        assert_encoding embstr k
        r set k [string repeat 1 44]
        assert_encoding embstr k
    }

    test "APPEND and SETRANGE make the string raw" {
        r flushall
        r set a 12
        r append a 3
        assert_encoding raw a
        assert_equal 123 [r get a]
        r set b abc
        r append b d
        assert_encoding raw b
        r set c abc
        r setrange c 0 x
        assert_encoding raw c
        r setrange d 0 x
        assert_encoding raw d
        # APPEND to a missing key creates a plain string; the next APPEND makes it raw
        r append e x
        assert_encoding embstr e
        r append e y
        assert_encoding raw e
    }

    test "INCR yields an int, INCRBYFLOAT an embstr" {
        r flushall
        r set a 12
        r append a 3
        assert_encoding raw a
        assert_equal 124 [r incr a]
        assert_encoding int a
        r incr n
        assert_encoding int n
        r set f 5
        r incrbyfloat f 1
        assert_encoding embstr f
        assert_equal 6 [r get f]
    }

    test "Binary-safe values" {
        r flushall
        set bin "a\x00b\r\nc\xff\x00"
        r set k $bin
        assert_equal $bin [r get k]
        assert_equal 8 [r strlen k]
        assert_equal "b\r\nc" [r getrange k 2 5]
        r append k "\r\n\x00"
        assert_equal "$bin\r\n\x00" [r get k]
        r set "key\x00with\r\nnul" v
        assert_equal v [r get "key\x00with\r\nnul"]
        assert_equal {} [r get "key"]
        r mset "x\x00" 1 "x\x00\x00" 2
        assert_equal {1 2} [r mget "x\x00" "x\x00\x00"]
        set all [string repeat "\x00\r\n\xff" 300]
        r set big $all
        assert_equal $all [r get big]
        assert_equal 1200 [r strlen big]
    }

    test "Large value round trip" {
        r flushall
        set v [string repeat "0123456789" 100000]
        r set k $v
        assert_equal $v [r get k]
        assert_equal 1000000 [r strlen k]
    }
}

start_server {tags {strings needs-types}} {
    test "WRONGTYPE errors from string commands on a list" {
        r flushall
        r rpush l a b
        set wt "WRONGTYPE Operation against a key holding the wrong kind of value"
        foreach cmd {
            {get l} {append l x} {strlen l} {incr l} {decr l} {incrby l 1} {decrby l 1}
            {incrbyfloat l 1} {getrange l 0 -1} {setrange l 0 x} {getset l x} {getdel l}
            {getex l} {getex l persist} {set l x get} {substr l 0 1}
        } {
            assert_error $wt {r {*}$cmd}
        }
        assert_equal list [r type l]
    }

    test "Commands that replace or skip other types" {
        r flushall
        r rpush l a
        assert_equal {{} {}} [r mget l nokey]
        assert_equal 0 [r setnx l x]
        assert_equal 0 [r msetnx l x y z]
        assert_equal {} [r set l x nx]
        assert_equal list [r type l]
        assert_equal OK [r set l x]
        assert_equal string [r type l]
        r rpush l2 a
        assert_equal OK [r mset l2 v]
        assert_equal v [r get l2]
        r rpush l3 a
        assert_equal OK [r setex l3 100 v]
        assert_equal v [r get l3]
    }
}

# LCS (issue 12): a session of commands with the replies Valkey 8.0.1 gave to it (recorded
# facts): the string, LEN, IDX with MINMATCHLEN and WITHMATCHLEN, missing keys, integer-encoded
# values, the wrong-type and option errors.
set ::lcs_session {
    flushall {ok OK}
    {set key1 ohmytext} {ok OK}
    {set key2 mynewtext} {ok OK}
    {lcs key1 key2} {ok mytext}
    {lcs key1 key2 len} {ok 6}
    {lcs key1 key2 idx} {ok {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}}
    {lcs key1 key2 idx minmatchlen 4} {ok {matches {{{4 7} {5 8}}} len 6}}
    {lcs key1 key2 idx minmatchlen 4 withmatchlen} {ok {matches {{{4 7} {5 8} 4}} len 6}}
    {lcs key1 key2 idx withmatchlen} {ok {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6}}
    {lcs key1 key2 len idx} {err {ERR If you want both the length and indexes, please just use IDX.}}
    {lcs key1 key2 foo} {err {ERR syntax error}}
    {lcs key1 key2 minmatchlen} {err {ERR syntax error}}
    {lcs key1 key2 idx minmatchlen x} {err {ERR value is not an integer or out of range}}
    {lcs key1 key2 idx minmatchlen -5} {ok {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}}
    {lcs key1 nokey} {ok {}}
    {lcs key1 nokey idx} {ok {matches {} len 0}}
    {lcs nokey nokey2 len} {ok 0}
    {set a ABCBDAB} {ok OK}
    {set b BDCABA} {ok OK}
    {lcs a b} {ok BDAB}
    {lcs a b idx withmatchlen} {ok {matches {{{5 6} {3 4} 2} {{3 4} {0 1} 2}} len 4}}
    {set n 12345} {ok OK}
    {set m 1234567} {ok OK}
    {lcs n m idx} {ok {matches {{{0 4} {0 4}}} len 5}}
    {lpush l x} {ok 1}
    {lcs key1 l} {err {ERR The specified keys must contain string values}}
    {lcs l key1 len} {err {ERR The specified keys must contain string values}}
    {set x abcabcabcabcxyz} {ok OK}
    {set y xyzabcab} {ok OK}
    {lcs x y idx withmatchlen} {ok {matches {{{6 10} {3 7} 5}} len 5}}
    {lcs y x idx} {ok {matches {{{3 7} {6 10}}} len 5}}
}

start_server {tags {string lcs}} {
    test "LCS: every reply of the session as Valkey 8" {
        set n 0
        foreach {line expect} $::lcs_session {
            if {[catch {r {*}$line} reply]} { set got [list err $reply] } else { set got [list ok $reply] }
            assert_equal $expect $got $line
            incr n
        }
        assert_equal 31 $n
    }

    test "LCS refuses a table larger than proto-max-bulk-len, and its keys are read-only" {
        r set big1 [string repeat a 3000]
        r set big2 [string repeat b 3000]
        r config set proto-max-bulk-len 1mb
        assert_equal "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len" \
            [assert_error * {r lcs big1 big2}]
        r config set proto-max-bulk-len 512mb
        assert_equal 0 [r lcs big1 big2 len]
        assert_equal {{a {RO access}} {b {RO access}}} [r command getkeysandflags lcs a b]
        assert_equal "ERR wrong number of arguments for 'lcs' command" [assert_error * {r lcs a}]
    }
}
