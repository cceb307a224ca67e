# Set commands: SADD SREM SISMEMBER SMISMEMBER SMEMBERS SCARD SPOP SRANDMEMBER SMOVE SINTER
# SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN, type errors.

proc set_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [set_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [set_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc set_raw {c args} {
    $c {*}$args
    return [set_raw_reply $c]
}

proc set_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

proc set_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body"]
}

proc set_scan_all {key args} {
    set cursor 0
    set out {}
    set calls 0
    while 1 {
        lassign [r sscan $key $cursor {*}$args] cursor items
        lappend out {*}$items
        if {$cursor eq "0"} break
        if {[incr calls] > 100000} { error "SSCAN did not terminate" }
    }
    return $out
}

set ::set_wrongtype "WRONGTYPE Operation against a key holding the wrong kind of value"

start_server {tags {set}} {
    # The same behaviours for integer members (intset), short strings (listpack) and a large
    # set (hashtable).
    foreach {kind prefix n} {intset "" 20 listpack m 20 hashtable member: 300} {
        set_test "SADD / SREM / SCARD / SISMEMBER / SMEMBERS ($kind)" {
            r flushall
            set all {}
            for {set i 0} {$i < $n} {incr i} { lappend all $prefix$i }
            assert_equal $n [r sadd s {*}$all]
            assert_equal 0 [r sadd s {*}$all]
            assert_equal set [r type s]
            assert_equal $n [r scard s]
            assert_equal [lsort $all] [lsort [r smembers s]]
            assert_equal 1 [r sismember s ${prefix}0]
            assert_equal 0 [r sismember s ${prefix}x]
            assert_equal 0 [r sismember s $prefix$n]
            assert_equal 2 [r srem s ${prefix}0 ${prefix}1 ${prefix}x]
            assert_equal [expr {$n - 2}] [r scard s]
            assert_equal 0 [r sismember s ${prefix}0]
            assert_equal {0 1 0} [r smismember s ${prefix}0 ${prefix}2 nope]
            assert_equal [expr {$n - 2}] [r srem s {*}$all]
            assert_equal 0 [r exists s]
        }

        set_test "SPOP with count removes distinct members ($kind)" {
            r flushall
            set all {}
            for {set i 0} {$i < $n} {incr i} { lappend all $prefix$i }
            r sadd s {*}$all
            set popped [r spop s 5]
            assert_equal 5 [llength [lsort -unique $popped]]
            foreach m $popped {
                assert {$m in $all}
                assert_equal 0 [r sismember s $m]
            }
            assert_equal [expr {$n - 5}] [r scard s]
            set one [r spop s]
            assert {$one in $all && $one ni $popped}
            set rest [r spop s [expr {$n * 2}]]
            assert_equal [expr {$n - 6}] [llength $rest]
            assert_equal [lsort $all] [lsort [concat $popped [list $one] $rest]]
            assert_equal 0 [r exists s]
        }

        set_test "SRANDMEMBER properties ($kind)" {
            r flushall
            set all {}
            for {set i 0} {$i < $n} {incr i} { lappend all $prefix$i }
            r sadd s {*}$all
            for {set i 0} {$i < 10} {incr i} { assert {[r srandmember s] in $all} }
            set res [r srandmember s 7]
            assert_equal 7 [llength [lsort -unique $res]]
            foreach m $res { assert {$m in $all} }
            assert_equal [lsort $all] [lsort [r srandmember s [expr {$n + 10}]]]
            assert_equal [lsort $all] [lsort [r srandmember s $n]]
            set res [r srandmember s [expr {-3 * $n}]]
            assert_equal [expr {3 * $n}] [llength $res]
            foreach m $res { assert {$m in $all} }
            assert_equal $n [r scard s]
        }

        set_test "SSCAN returns every member ($kind)" {
            r flushall
            set all {}
            for {set i 0} {$i < $n} {incr i} { lappend all $prefix$i }
            r sadd s {*}$all
            set got [set_scan_all s count 7]
            assert_equal [lsort $all] [lsort -unique $got]
        }
    }

    set_test "SRANDMEMBER with a count under a third of the set draws members: a rehash moves on" {
        # As Valkey 8: a small count draws random members until it has that many distinct ones,
        # and each draw moves a running rehash on; it copied the whole set before (88 ms for 5
        # members of a set of 1M), and a rehash left running stayed so under such reads.
        r flushall
        set all {}
        for {set i 0} {$i < 1024} {incr i} { lappend all m:$i }
        r sadd s {*}$all
        r sadd s extra
        lappend all extra
        assert_match "*rehashing target*" [r debug htstats-key s]
        set calls 0
        while {[string match "*rehashing target*" [r debug htstats-key s]] && $calls < 1000} {
            set res [r srandmember s 10]
            assert_equal 10 [llength [lsort -unique $res]]
            foreach m $res { assert {$m in $all} }
            incr calls
        }
        assert_range $calls 1 999
        # every member is drawn in time, and a count of a third or more still gives distinct ones
        set seen {}
        for {set i 0} {$i < 3000 && [llength $seen] < 1025} {incr i} {
            set seen [lsort -unique [concat $seen [r srandmember s 100]]]
        }
        assert_equal [lsort $all] $seen
        assert_equal 400 [llength [lsort -unique [r srandmember s 400]]]
        assert_equal 1025 [r scard s]
        # a count whose triple overflows 64 bits is still a count past the size: the whole set
        r del s
        r sadd s a b c d e f g
        assert_equal {a b c d e f g} [lsort [r srandmember s 6148914691236517206]]
    }

    set_test "SADD / SREM arity and duplicates in one call" {
        r flushall
        assert_equal 2 [r sadd s a a b b a]
        assert_equal 2 [r scard s]
        assert_equal 1 [r srem s a a]
        assert_error "ERR wrong number of arguments for 'sadd' command" {r sadd s}
        assert_error "ERR wrong number of arguments for 'srem' command" {r srem s}
        assert_error "ERR wrong number of arguments for 'smismember' command" {r smismember s}
    }

    set_test "Members compare as strings, integers are canonical only when canonical" {
        r flushall
        assert_equal 3 [r sadd s 1 01 +1]
        assert_equal 1 [r sismember s 01]
        assert_equal 0 [r sismember s 1.0]
        assert_equal {+1 01 1} [lsort [r smembers s]]
        assert_equal 2 [r sadd n -9223372036854775808 9223372036854775807]
        assert_equal 1 [r sadd n 9223372036854775808]
        assert_equal {-9223372036854775808 9223372036854775807 9223372036854775808} [lsort [r smembers n]]
    }

    set_test "Missing keys behave as empty sets" {
        r flushall
        assert_equal 0 [r sismember nokey a]
        assert_equal {0 0} [r smismember nokey a b]
        assert_equal {} [r smembers nokey]
        assert_equal 0 [r scard nokey]
        assert_equal 0 [r srem nokey a]
        assert_equal {0 {}} [r sscan nokey 0]
        set c [set_raw_client]
        assert_equal {*0} [set_raw $c smembers nokey]
        assert_equal {$-1} [set_raw $c spop nokey]
        assert_equal {*0} [set_raw $c spop nokey 0]
        assert_equal {*0} [set_raw $c spop nokey 3]
        assert_equal {$-1} [set_raw $c srandmember nokey]
        assert_equal {*0} [set_raw $c srandmember nokey 5]
        assert_equal {*0} [set_raw $c srandmember nokey -5]
        $c close
    }

    set_test "SMEMBERS in RESP3 is a set" {
        r flushall
        r sadd s a
        set c [set_raw_client]
        set_raw $c hello 3
        assert_equal {~1 $1 a} [set_raw $c smembers s]
        assert_equal {~0} [set_raw $c smembers nokey]
        assert_equal {~1 $1 a} [set_raw $c sinter s]
        assert_equal {~1 $1 a} [set_raw $c sunion s nokey]
        assert_equal {~1 $1 a} [set_raw $c sdiff s nokey]
        assert_equal {*1 $1 a} [set_raw $c srandmember s 1]
        $c close
    }

    set_test "SPOP / SRANDMEMBER count 0 and errors" {
        r flushall
        r sadd s 1 2 3
        set c [set_raw_client]
        assert_equal {*0} [set_raw $c spop s 0]
        assert_equal {*0} [set_raw $c srandmember s 0]
        $c close
        assert_error "ERR value is out of range, must be positive" {r spop s -1}
        assert_error "ERR value is out of range, must be positive" {r spop s x}
        assert_error "ERR syntax error" {r spop s 1 2}
        assert_error "ERR value is not an integer or out of range" {r srandmember s x}
        assert_error "ERR syntax error" {r srandmember s 1 2}
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
            {r srandmember s -9223372036854775808}
        assert_equal 3 [r scard s]
    }

    set_test "SMOVE" {
        r flushall
        r sadd src a b c
        r sadd dst c
        assert_equal 1 [r smove src dst a]
        assert_equal {b c} [lsort [r smembers src]]
        assert_equal {a c} [lsort [r smembers dst]]
        # already in the destination: removed from the source only
        assert_equal 1 [r smove src dst c]
        assert_equal {b} [r smembers src]
        assert_equal {a c} [lsort [r smembers dst]]
        assert_equal 0 [r smove src dst nope]
        assert_equal 0 [r smove nokey dst a]
        # same source and destination
        assert_equal 1 [r smove dst dst a]
        assert_equal 0 [r smove dst dst nope]
        assert_equal {a c} [lsort [r smembers dst]]
        # moving the last member deletes the source and can create the destination
        assert_equal 1 [r smove src fresh b]
        assert_equal 0 [r exists src]
        assert_equal {b} [r smembers fresh]
    }

    set_test "SMOVE touches a WATCHed destination only when it adds the member" {
        r flushall
        r sadd src a b
        r sadd dst a
        set other [valkey_client]
        # `a` is in dst already: dst is unchanged and the transaction watching it runs
        r watch dst
        r multi
        r sadd dst c
        assert_equal 1 [$other smove src dst a]
        assert_equal {1} [r exec]
        assert_equal {a c} [lsort [r smembers dst]]
        # `b` is added to dst: the transaction is aborted
        r watch dst
        r multi
        r sadd dst d
        assert_equal 1 [$other smove src dst b]
        assert_equal {} [r exec]
        assert_equal {a b c} [lsort [r smembers dst]]
        # the source changed either way
        r sadd src a x
        r watch src
        r multi
        r sadd src y
        assert_equal 1 [$other smove src dst a]
        assert_equal {} [r exec]
        $other close
    }

    set_test "SMOVE type errors" {
        r flushall
        r sadd s a b
        r set str x
        assert_error $::set_wrongtype {r smove s str a}
        assert_error $::set_wrongtype {r smove str s a}
        assert_equal {a b} [lsort [r smembers s]]
        assert_equal x [r get str]
    }

    set_test "SINTER / SUNION / SDIFF" {
        r flushall
        r sadd a 1 2 3 4 x
        r sadd b 3 4 5 x y
        r sadd c 4 x z
        assert_equal {3 4 x} [lsort [r sinter a b]]
        assert_equal {4 x} [lsort [r sinter a b c]]
        assert_equal {1 2 3 4 5 x y z} [lsort [r sunion a b c]]
        assert_equal {1 2} [lsort [r sdiff a b]]
        assert_equal {1 2 3} [lsort [r sdiff a c]]
        assert_equal {1 2} [lsort [r sdiff a b c]]
        assert_equal {1 2 3 4 x} [lsort [r sinter a]]
        assert_equal {} [r sinter a nokey]
        assert_equal {} [r sinter nokey a]
        assert_equal {1 2 3 4 x} [lsort [r sunion a nokey]]
        assert_equal {1 2 3 4 x} [lsort [r sdiff a nokey]]
        assert_equal {} [r sdiff nokey a]
        assert_equal {} [r sdiff a a]
    }

    set_test "SINTER / SUNION / SDIFF with a wrong-type key" {
        r flushall
        r sadd s a
        r set str x
        assert_error $::set_wrongtype {r sinter s str}
        assert_error $::set_wrongtype {r sinter nokey str}
        assert_error $::set_wrongtype {r sunion nokey str}
        assert_error $::set_wrongtype {r sdiff s str}
        assert_error $::set_wrongtype {r sdiff nokey str}
        assert_error $::set_wrongtype {r sinterstore d s str}
        assert_error $::set_wrongtype {r sunionstore d s str}
        assert_error $::set_wrongtype {r sdiffstore d s str}
        assert_error $::set_wrongtype {r sintercard 2 s str}
        assert_equal 0 [r exists d]
    }

    set_test "SINTERSTORE / SUNIONSTORE / SDIFFSTORE" {
        r flushall
        r sadd a 1 2 3 x
        r sadd b 2 3 4 y
        assert_equal 2 [r sinterstore d a b]
        assert_equal {2 3} [lsort [r smembers d]]
        assert_equal 6 [r sunionstore d a b]
        assert_equal {1 2 3 4 x y} [lsort [r smembers d]]
        assert_equal 2 [r sdiffstore d a b]
        assert_equal {1 x} [lsort [r smembers d]]
        # the destination can be one of the sources
        assert_equal 4 [r sunionstore a a d]
        assert_equal {1 2 3 x} [lsort [r smembers a]]
        assert_equal 2 [r sinterstore a a b]
        assert_equal {2 3} [lsort [r smembers a]]
    }

    set_test "Store forms with an empty result delete the destination" {
        r flushall
        r sadd a 1
        r sadd b 2
        r sadd d old
        assert_equal 0 [r sinterstore d a b]
        assert_equal 0 [r exists d]
        r sadd d old
        assert_equal 0 [r sdiffstore d a a]
        assert_equal 0 [r exists d]
        r sadd d old
        assert_equal 0 [r sunionstore d nokey]
        assert_equal 0 [r exists d]
        r sadd d old
        assert_equal 0 [r sinterstore d nokey]
        assert_equal 0 [r exists d]
    }

    set_test "Store forms overwrite a destination of another type" {
        r flushall
        r sadd a 1 2
        r set d x
        assert_equal 2 [r sunionstore d a]
        assert_equal set [r type d]
        r set d x
        assert_equal 2 [r sinterstore d a]
        assert_equal set [r type d]
        r del d
        r rpush d x
        assert_equal 2 [r sdiffstore d a]
        assert_equal set [r type d]
        r set d x
        r expire d 100
        r sunionstore d a
        assert_equal -1 [r ttl d]
    }

    set_test "SINTERCARD with and without LIMIT" {
        r flushall
        r sadd a 1 2 3 4 5
        r sadd b 2 3 4 5 6
        assert_equal 4 [r sintercard 2 a b]
        assert_equal 5 [r sintercard 1 a]
        assert_equal 2 [r sintercard 2 a b limit 2]
        assert_equal 4 [r sintercard 2 a b limit 0]
        assert_equal 4 [r sintercard 2 a b limit 10]
        assert_equal 0 [r sintercard 2 a nokey]
        assert_equal 0 [r sintercard 2 nokey a limit 1]
        assert_equal 3 [r sintercard 2 a b limit 1 limit 3]
    }

    set_test "SINTERCARD errors" {
        r flushall
        r sadd a 1
        assert_error "ERR numkeys should be greater than 0" {r sintercard 0 a}
        assert_error "ERR numkeys should be greater than 0" {r sintercard x a}
        assert_error "ERR Number of keys can't be greater than number of args" {r sintercard 2 a}
        assert_error "ERR LIMIT can't be negative" {r sintercard 1 a limit -1}
        assert_error "ERR LIMIT can't be negative" {r sintercard 1 a limit x}
        assert_error "ERR syntax error" {r sintercard 1 a foo}
        assert_error "ERR syntax error" {r sintercard 1 a limit}
    }

    set_test "Set algebra on mixed encodings agrees with a model" {
        r flushall
        expr {srand(777)}
        set models {}
        foreach k {ia ib la lb ha hb} {
            set m {}
            set big [expr {[string index $k 0] eq "h" ? 400 : 30}]
            for {set i 0} {$i < $big} {incr i} {
                set v [expr {int(rand() * 60)}]
                if {[string index $k 0] ne "i"} { set v "v$v" }
                if {rand() < 0.3} { set v [expr {int(rand() * 60)}] }
                lappend m $v
            }
            r sadd $k {*}$m
            dict set models $k [lsort -unique $m]
        }
        set keys [dict keys $models]
        foreach x $keys {
            foreach y $keys {
                set mx [dict get $models $x]
                set my [dict get $models $y]
                set inter [lmap v $mx { expr {$v in $my ? $v : [continue]} }]
                set diff [lmap v $mx { expr {$v ni $my ? $v : [continue]} }]
                set union [lsort -unique [concat $mx $my]]
                assert_equal [lsort $inter] [lsort [r sinter $x $y]] "sinter $x $y"
                assert_equal [llength $inter] [r sintercard 2 $x $y]
                assert_equal [lsort $diff] [lsort [r sdiff $x $y]] "sdiff $x $y"
                assert_equal $union [lsort [r sunion $x $y]] "sunion $x $y"
                assert_equal [llength $union] [r sunionstore dst $x $y]
                assert_equal $union [lsort [r smembers dst]]
            }
        }
    }

    set_test "SSCAN MATCH and COUNT" {
        r flushall
        for {set i 0} {$i < 300} {incr i} { r sadd big a:$i b:$i }
        set got [set_scan_all big match a:* count 20]
        assert_equal 300 [llength [lsort -unique $got]]
        foreach m $got { assert_match a:* $m }
        r sadd small 1 2 3 10 11
        lassign [r sscan small 0 match 1*] cursor items
        assert_equal 0 $cursor
        assert_equal {1 10 11} [lsort $items]
    }

    set_test "SSCAN errors" {
        r flushall
        r sadd s a
        assert_error "ERR invalid cursor" {r sscan s x}
        assert_error "ERR syntax error" {r sscan s 0 count 0}
        assert_error "ERR syntax error" {r sscan s 0 foo}
        assert_error "ERR NOVALUES option can only be used in HSCAN" {r sscan s 0 novalues}
    }

    set_test "Set commands against a string key are WRONGTYPE" {
        r flushall
        r set str x
        foreach cmd {
            {sadd str a} {srem str a} {sismember str a} {smismember str a} {smembers str}
            {scard str} {spop str} {spop str 2} {srandmember str} {srandmember str 2}
            {sscan str 0} {sinter str} {sunion str} {sdiff str} {sintercard 1 str}
        } {
            assert_error $::set_wrongtype [list r {*}$cmd]
        }
        assert_equal x [r get str]
    }
}

start_server {tags {set repl}} {
    test "SPOP with a count of the whole set: the set's own order, then one UNLINK (or DEL) downstream" {
        r sadd si 5 3 9 1 7
        assert_equal {1 3 5 7 9} [r spop si 10]
        # Strings: Valkey answers in the order of a fresh hash table (its seed): any order.
        r sadd sl a c b
        assert_equal {a b c} [lsort [r spop sl 3]]
        assert_equal 0 [r exists si sl]
    }

    test "What SPOP sends to replicas: SREM of what was popped, 1024 members at most each" {
        r flushall
        r sadd one x
        r sadd two a b c
        for {set i 0} {$i < 2100} {incr i} { r sadd big m$i }
        set tap [repl_tap_open]
        set popped [r spop one]
        r spop two 3
        r config set lazyfree-lazy-server-del no
        r sadd two a b
        r spop two 5
        r config set lazyfree-lazy-server-del yes
        set many [r spop big 2050]
        assert_equal {SELECT 0} [repl_tap_next $tap]
        assert_equal "SREM one $popped" [repl_tap_next $tap]
        assert_equal {UNLINK two} [repl_tap_next $tap]
        assert_equal {sadd two a b} [repl_tap_next $tap]
        assert_equal {DEL two} [repl_tap_next $tap]
        assert_equal {MULTI} [repl_tap_next $tap]
        set srems {}
        for {set i 0} {$i < 3} {incr i} { lappend srems [repl_tap_next $tap] }
        assert_equal {EXEC} [repl_tap_next $tap]
        assert_equal {1026 1026 4} [lmap c $srems {llength $c}]
        set removed {}
        foreach c $srems { lappend removed {*}[lrange $c 2 end] }
        assert_equal [lsort $many] [lsort $removed]
        close $tap
        assert_equal 50 [r scard big]
    }
}
