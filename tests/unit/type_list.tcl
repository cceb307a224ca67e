# List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LINSERT LREM
# LTRIM LPOS LMOVE RPOPLPUSH LMPOP, type errors, small and large lists.

proc list_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [list_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [list_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc list_raw {c args} {
    $c {*}$args
    return [list_raw_reply $c]
}

proc list_raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

proc list_test {name body} {
    uplevel 1 [list test $name "reconnect\n$body"]
}

set ::list_wrongtype "WRONGTYPE Operation against a key holding the wrong kind of value"

start_server {tags {list}} {
    # Run the main behaviours on a small list (listpack) and a large one (quicklist).
    foreach {kind n} {small 5 large 400} {
        list_test "LPUSH / RPUSH / LLEN / LRANGE order ($kind)" {
            r flushall
            set model {}
            for {set i 0} {$i < $n} {incr i} {
                if {$i % 2} {
                    assert_equal [expr {$i + 1}] [r rpush l r$i]
                    lappend model r$i
                } else {
                    assert_equal [expr {$i + 1}] [r lpush l l$i]
                    set model [linsert $model 0 l$i]
                }
            }
            assert_equal $n [r llen l]
            assert_equal $model [r lrange l 0 -1]
            assert_equal [lrange $model 1 3] [r lrange l 1 3]
            assert_equal [lrange $model end-2 end] [r lrange l -3 -1]
        }

        list_test "LINDEX / LSET across the list ($kind)" {
            r flushall
            set model {}
            for {set i 0} {$i < $n} {incr i} { lappend model v$i }
            r rpush l {*}$model
            for {set i 0} {$i < $n} {incr i 7} {
                assert_equal [lindex $model $i] [r lindex l $i]
                assert_equal [lindex $model end-$i] [r lindex l [expr {-1 - $i}]]
            }
            assert_equal OK [r lset l 0 first]
            assert_equal OK [r lset l -1 last]
            assert_equal OK [r lset l [expr {$n / 2}] middle]
            assert_equal first [r lindex l 0]
            assert_equal last [r lindex l -1]
            assert_equal middle [r lindex l [expr {$n / 2}]]
            assert_equal $n [r llen l]
            assert_equal {} [r lindex l $n]
            assert_equal {} [r lindex l [expr {-$n - 1}]]
        }

        list_test "LINSERT / LREM / LTRIM ($kind)" {
            r flushall
            set model {}
            for {set i 0} {$i < $n} {incr i} { lappend model [expr {$i % 3 == 0 ? "x" : "v$i"}] }
            r rpush l {*}$model
            set pivot v1
            set pos [lsearch -exact $model $pivot]
            assert_equal [expr {$n + 1}] [r linsert l before $pivot B]
            set model [linsert $model $pos B]
            assert_equal [expr {$n + 2}] [r linsert l after $pivot A]
            set model [linsert $model [expr {$pos + 2}] A]
            assert_equal $model [r lrange l 0 -1]
            set nx [llength [lsearch -all -exact $model x]]
            assert_equal 1 [r lrem l 1 x]
            set model [lreplace $model [lsearch -exact $model x] [lsearch -exact $model x]]
            assert_equal $model [r lrange l 0 -1]
            if {$nx > 1} {
                assert_equal 1 [r lrem l -1 x]
                set last [lindex [lsearch -all -exact $model x] end]
                set model [lreplace $model $last $last]
                assert_equal $model [r lrange l 0 -1]
            }
            set rest [llength [lsearch -all -exact $model x]]
            assert_equal $rest [r lrem l 0 x]
            set model [lsearch -all -inline -not -exact $model x]
            assert_equal $model [r lrange l 0 -1]
            assert_equal OK [r ltrim l 1 -2]
            assert_equal [lrange $model 1 end-1] [r lrange l 0 -1]
        }
    }

    list_test "LPUSH / RPUSH with several values" {
        r flushall
        assert_equal 3 [r lpush l a b c]
        assert_equal {c b a} [r lrange l 0 -1]
        assert_equal 5 [r rpush l d e]
        assert_equal {c b a d e} [r lrange l 0 -1]
        assert_equal list [r type l]
    }

    list_test "LPUSHX / RPUSHX only push onto existing lists" {
        r flushall
        assert_equal 0 [r lpushx l a]
        assert_equal 0 [r rpushx l a b]
        assert_equal 0 [r exists l]
        r rpush l m
        assert_equal 3 [r lpushx l b a]
        assert_equal 5 [r rpushx l y z]
        assert_equal {a b m y z} [r lrange l 0 -1]
    }

    list_test "Push arity errors" {
        assert_error "ERR wrong number of arguments for 'lpush' command" {r lpush l}
        assert_error "ERR wrong number of arguments for 'rpush' command" {r rpush l}
        assert_error "ERR wrong number of arguments for 'lpushx' command" {r lpushx l}
        assert_error "ERR wrong number of arguments for 'rpushx' command" {r rpushx l}
    }

    list_test "LPOP / RPOP without count" {
        r flushall
        r rpush l a b c
        assert_equal a [r lpop l]
        assert_equal c [r rpop l]
        assert_equal b [r lpop l]
        assert_equal 0 [r exists l]
        assert_equal {} [r lpop l]
        assert_equal {} [r rpop l]
        set c [list_raw_client]
        assert_equal {$-1} [list_raw $c lpop nokey]
        assert_equal {$-1} [list_raw $c rpop nokey]
        $c close
    }

    list_test "LPOP / RPOP with count" {
        r flushall
        r rpush l a b c d e f
        assert_equal {a b} [r lpop l 2]
        assert_equal {f e} [r rpop l 2]
        assert_equal {c} [r lpop l 1]
        assert_equal {d} [r rpop l 5]
        assert_equal 0 [r exists l]
        r rpush l a b c
        assert_equal {a b c} [r lpop l 10]
        assert_equal 0 [r exists l]
    }

    list_test "LPOP / RPOP count 0 and missing keys on the wire" {
        r flushall
        r rpush l a b
        set c [list_raw_client]
        assert_equal {*0} [list_raw $c lpop l 0]
        assert_equal {*0} [list_raw $c rpop l 0]
        assert_equal {*1 $1 a} [list_raw $c lpop l 1]
        assert_equal {*-1} [list_raw $c lpop nokey 0]
        assert_equal {*-1} [list_raw $c rpop nokey 2]
        list_raw $c hello 3
        assert_equal {_} [list_raw $c lpop nokey 2]
        assert_equal {_} [list_raw $c lpop nokey]
        $c close
        assert_equal {b} [r lrange l 0 -1]
    }

    list_test "LPOP / RPOP count errors" {
        r flushall
        r rpush l a b
        assert_error "ERR value is out of range, must be positive" {r lpop l -1}
        assert_error "ERR value is out of range, must be positive" {r rpop l -1}
        assert_error "ERR value is out of range, must be positive" {r lpop l x}
        assert_error "ERR wrong number of arguments for 'lpop' command" {r lpop l 1 2}
        assert_equal 2 [r llen l]
    }

    list_test "LRANGE index edge cases" {
        r flushall
        r rpush l 1 2 3 4 5
        assert_equal {1 2 3 4 5} [r lrange l -100 100]
        assert_equal {} [r lrange l 3 1]
        assert_equal {4 5} [r lrange l -2 -1]
        assert_equal {5} [r lrange l 4 4]
        assert_equal {} [r lrange l 5 10]
        assert_equal {1} [r lrange l -100 0]
        assert_equal {} [r lrange l -100 -6]
        assert_equal {} [r lrange nokey 0 -1]
        assert_error "ERR value is not an integer or out of range" {r lrange l x 1}
        assert_error "ERR value is not an integer or out of range" {r lrange l 0 1.5}
        set c [list_raw_client]
        assert_equal {*0} [list_raw $c lrange nokey 0 -1]
        assert_equal {*0} [list_raw $c lrange l 3 1]
        $c close
    }

    list_test "LINDEX of missing keys and bad indexes" {
        r flushall
        r rpush l a b c
        assert_equal {} [r lindex nokey 0]
        assert_equal c [r lindex l -1]
        assert_equal a [r lindex l -3]
        assert_equal {} [r lindex l -4]
        assert_equal {} [r lindex l 3]
        assert_error "ERR value is not an integer or out of range" {r lindex l x}
        assert_error "ERR value is not an integer or out of range" {r lindex l 99999999999999999999}
        # the key is looked at first, as Valkey 8: the index of a missing or wrong key is not read
        assert_equal {} [r lindex nokey 99999999999999999999]
        r set str x
        assert_error "WRONGTYPE *" {r lindex str 99999999999999999999}
        assert_error "WRONGTYPE *" {r lindex str x}
        set c [list_raw_client]
        assert_equal {$-1} [list_raw $c lindex l 10]
        $c close
    }

    list_test "LSET errors" {
        r flushall
        assert_error "ERR no such key" {r lset nokey 0 a}
        r rpush l a b c
        assert_error "ERR index out of range" {r lset l 3 x}
        assert_error "ERR index out of range" {r lset l -4 x}
        assert_error "ERR value is not an integer or out of range" {r lset l x x}
        assert_error "ERR value is not an integer or out of range" {r lset l 9223372036854775808 x}
        assert_equal {a b c} [r lrange l 0 -1]
        r set str x
        assert_error $::list_wrongtype {r lset str 0 a}
    }

    list_test "LSET with an index just beyond the 32-bit range" {
        r flushall
        r rpush l a b c
        foreach idx {2147483648 -2147483649 2147483647 -2147483648} {
            assert_error "ERR index out of range" [list r lset l $idx x]
        }
        assert_equal {a b c} [r lrange l 0 -1]
    }

    list_test "LSET with an index of +-2^32 and more is out of range" {
        # The reference Valkey 8.0.1 build truncates the index to 32 bits and overwrites an
        # element; our server must answer the error.  Skip only on that exact build.
        if {[s redis_git_sha1] eq "4fbab574"} { skip_deliberate "Valkey 8.0.1 truncates LSET indexes" }
        r flushall
        r rpush l a b c
        foreach idx {4294967296 -4294967296 4294967297 8589934592 -4294967295 9223372036854775807 -9223372036854775808} {
            assert_error "ERR index out of range" [list r lset l $idx x]
        }
        assert_equal {a b c} [r lrange l 0 -1]
    }

    list_test "LINSERT" {
        r flushall
        r rpush l a b c
        assert_equal 4 [r linsert l before b X]
        assert_equal 5 [r linsert l AFTER c Y]
        assert_equal 6 [r linsert l Before a Z]
        assert_equal {Z a X b c Y} [r lrange l 0 -1]
        assert_equal -1 [r linsert l before nopivot X]
        assert_equal 0 [r linsert nokey before a X]
        assert_equal 0 [r exists nokey]
        # only the first occurrence of the pivot is used
        r rpush d p p
        assert_equal 3 [r linsert d after p N]
        assert_equal {p N p} [r lrange d 0 -1]
        assert_error "ERR syntax error" {r linsert l middle a b}
        assert_error "ERR wrong number of arguments for 'linsert' command" {r linsert l before a}
    }

    list_test "LREM with positive, negative and zero counts" {
        r flushall
        r rpush l a b c a b c a
        assert_equal 0 [r lrem l 0 zz]
        assert_equal 1 [r lrem l 1 a]
        assert_equal {b c a b c a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 a]
        assert_equal {b c a b c} [r lrange l 0 -1]
        assert_equal 2 [r lrem l 0 b]
        assert_equal {c a c} [r lrange l 0 -1]
        assert_equal 2 [r lrem l -5 c]
        assert_equal {a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l 1 a]
        assert_equal 0 [r exists l]
        assert_equal 0 [r lrem nokey 0 a]
        r rpush l 1 2 1
        assert_error "ERR value is not an integer or out of range" {r lrem l x 1}
        # integer-looking elements compare as strings
        assert_equal 0 [r lrem l 0 01]
        assert_equal 2 [r lrem l 0 1]
    }

    list_test "LTRIM" {
        r flushall
        r rpush l 1 2 3 4 5
        assert_equal OK [r ltrim l 1 -2]
        assert_equal {2 3 4} [r lrange l 0 -1]
        assert_equal OK [r ltrim l -100 100]
        assert_equal {2 3 4} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 0 0]
        assert_equal {2} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 5 10]
        assert_equal 0 [r exists l]
        r rpush l 1 2 3
        assert_equal OK [r ltrim l 2 1]
        assert_equal 0 [r exists l]
        assert_equal OK [r ltrim nokey 0 1]
        r rpush l 1 2 3
        assert_error "ERR value is not an integer or out of range" {r ltrim l a 1}
    }

    list_test "LPOS basic, RANK, COUNT, MAXLEN" {
        r flushall
        r rpush l a b c a b c a
        assert_equal 0 [r lpos l a]
        assert_equal 1 [r lpos l b]
        assert_equal {} [r lpos l z]
        assert_equal 3 [r lpos l a rank 2]
        assert_equal 6 [r lpos l a rank -1]
        assert_equal 3 [r lpos l a rank -2]
        assert_equal {} [r lpos l a rank 4]
        assert_equal {0 3 6} [r lpos l a count 0]
        assert_equal {0 3} [r lpos l a count 2]
        assert_equal {6 3 0} [r lpos l a count 0 rank -1]
        assert_equal {3 6} [r lpos l a count 0 rank 2]
        assert_equal {0 3} [r lpos l a count 0 maxlen 4]
        assert_equal {6} [r lpos l a rank -1 maxlen 1]
        assert_equal {} [r lpos l a rank -2 maxlen 3]
        assert_equal {6} [r lpos l a count 1 rank 3]
        assert_equal 0 [r lpos l a maxlen 0]
        assert_equal {} [r lpos l z count 0]
        assert_equal {0 3 6} [r lpos l a count 9223372036854775807]
        assert_equal {} [r lpos l a rank 9223372036854775807]
        assert_equal {} [r lpos l a rank -9223372036854775807]
        # options can be repeated: the last one wins
        assert_equal 3 [r lpos l a rank 1 rank 2]
        assert_equal {0 3} [r lpos l a count 1 count 2]
    }

    list_test "LPOS replies on the wire" {
        r flushall
        r rpush l a b a
        set c [list_raw_client]
        assert_equal {$-1} [list_raw $c lpos l z]
        assert_equal {$-1} [list_raw $c lpos nokey a]
        assert_equal {*0} [list_raw $c lpos nokey a count 2]
        assert_equal {*0} [list_raw $c lpos l z count 0]
        assert_equal {*2 :0 :2} [list_raw $c lpos l a count 0]
        assert_equal {:2} [list_raw $c lpos l a rank 2]
        $c close
    }

    list_test "LPOS errors" {
        r flushall
        r rpush l a b c
        assert_error "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list" {r lpos l a rank 0}
        assert_error "ERR COUNT can't be negative" {r lpos l a count -1}
        assert_error "ERR MAXLEN can't be negative" {r lpos l a maxlen -1}
        assert_error "ERR syntax error" {r lpos l a foo}
        assert_error "ERR syntax error" {r lpos l a rank}
        assert_error "ERR value is not an integer or out of range" {r lpos l a rank x}
        assert_error "ERR value is not an integer or out of range" {r lpos l a rank 1.5}
        # COUNT and MAXLEN use their own message for non-integers too
        assert_error "ERR COUNT can't be negative" {r lpos l a count x}
        assert_error "ERR MAXLEN can't be negative" {r lpos l a maxlen x}
        assert_error "ERR COUNT can't be negative" {r lpos l a count 1.5}
    }

    list_test "LPOS RANK -9223372036854775808 is out of range" {
        r flushall
        r rpush l a b c
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
            {r lpos l a rank -9223372036854775808}
        assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
            {r lpos nokey a rank -9223372036854775808}
    }

    list_test "LMOVE in every direction" {
        r flushall
        r rpush l a b c
        assert_equal c [r lmove l d right left]
        assert_equal a [r lmove l d left left]
        assert_equal b [r lmove l d left right]
        assert_equal {a c b} [r lrange d 0 -1]
        assert_equal 0 [r exists l]
        assert_equal b [r lmove d d right left]
        assert_equal {b a c} [r lrange d 0 -1]
        assert_equal c [r lmove d e RIGHT RIGHT]
        assert_equal {c} [r lrange e 0 -1]
        assert_equal {} [r lmove nokey d left left]
        assert_equal {b a} [r lrange d 0 -1]
        assert_error "ERR syntax error" {r lmove d e up left}
        assert_error "ERR syntax error" {r lmove d e left down}
    }

    list_test "LMOVE rotating a list onto itself" {
        r flushall
        r rpush l a b c
        assert_equal a [r lmove l l left right]
        assert_equal {b c a} [r lrange l 0 -1]
        assert_equal a [r lmove l l right left]
        assert_equal {a b c} [r lrange l 0 -1]
        assert_equal a [r lmove l l left left]
        assert_equal {a b c} [r lrange l 0 -1]
    }

    list_test "LMOVE / RPOPLPUSH with a wrong-type destination change nothing" {
        r flushall
        r rpush l a b
        r set s x
        assert_error $::list_wrongtype {r lmove l s left left}
        assert_error $::list_wrongtype {r rpoplpush l s}
        assert_error $::list_wrongtype {r lmove s l left left}
        assert_equal {a b} [r lrange l 0 -1]
        assert_equal x [r get s]
        # a missing source with a wrong-type destination is not an error
        assert_equal {} [r lmove nokey s left left]
    }

    list_test "RPOPLPUSH" {
        r flushall
        r rpush l a b c
        assert_equal c [r rpoplpush l l]
        assert_equal {c a b} [r lrange l 0 -1]
        assert_equal b [r rpoplpush l m]
        assert_equal a [r rpoplpush l m]
        assert_equal c [r rpoplpush l m]
        assert_equal {c a b} [r lrange m 0 -1]
        assert_equal 0 [r exists l]
        assert_equal {} [r rpoplpush l m]
    }

    list_test "LMPOP" {
        r flushall
        r rpush l1 1 2 3
        r rpush l2 4 5
        assert_equal [list l1 [list 1]] [r lmpop 2 nokey l1 left]
        assert_equal {l1 {3 2}} [r lmpop 2 l1 l2 right count 10]
        assert_equal 0 [r exists l1]
        assert_equal {l2 {4 5}} [r lmpop 2 l1 l2 LEFT COUNT 2]
        assert_equal {} [r lmpop 2 l1 l2 right]
        set c [list_raw_client]
        assert_equal {*-1} [list_raw $c lmpop 1 nokey left]
        r rpush l3 x
        assert_equal {*2 $2 l3 *1 $1 x} [list_raw $c lmpop 1 l3 left]
        list_raw $c hello 3
        assert_equal {_} [list_raw $c lmpop 1 nokey left]
        $c close
    }

    list_test "LMPOP errors" {
        r flushall
        r rpush l a
        r set s x
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count 0}
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count -1}
        assert_error "ERR count should be greater than 0" {r lmpop 1 l left count x}
        assert_error "ERR numkeys should be greater than 0" {r lmpop 0 l left}
        assert_error "ERR numkeys should be greater than 0" {r lmpop -1 l left}
        assert_error "ERR syntax error" {r lmpop 1 l middle}
        assert_error "ERR syntax error" {r lmpop 3 l left}
        assert_error "ERR syntax error" {r lmpop 1 l left count 2 count 3}
        assert_error "ERR syntax error" {r lmpop 1 l left count}
        assert_error "ERR syntax error" {r lmpop 1 l left foo}
        assert_error "ERR wrong number of arguments for 'lmpop' command" {r lmpop 1 l}
        assert_error $::list_wrongtype {r lmpop 2 s l left}
        assert_error $::list_wrongtype {r lmpop 2 nokey s left}
        assert_equal {a} [r lrange l 0 -1]
    }

    list_test "List commands against a string key are WRONGTYPE" {
        r flushall
        r set s x
        foreach cmd {
            {lpush s a} {rpush s a} {lpushx s a} {rpushx s a} {lpop s} {rpop s} {lpop s 2}
            {llen s} {lrange s 0 -1} {lindex s 0} {lset s 0 a} {linsert s before a b}
            {lrem s 0 a} {ltrim s 0 1} {lpos s a} {rpoplpush s d} {lmpop 1 s left}
        } {
            assert_error $::list_wrongtype [list r {*}$cmd]
        }
        assert_equal x [r get s]
        r rpush l a
        assert_error $::list_wrongtype {r get l}
        assert_error $::list_wrongtype {r sadd l a}
    }

    list_test "Binary-safe and large elements" {
        r flushall
        set bin "a\x00b\r\n\xff"
        set big [string repeat x 100000]
        r rpush l $bin $big ""
        assert_equal [list $bin $big ""] [r lrange l 0 -1]
        assert_equal 2 [r lpos l ""]
        assert_equal 1 [r lrem l 0 $big]
        assert_equal $bin [r lpop l]
        assert_equal "" [r lpop l]
    }

    list_test "Random operations agree with a model list" {
        r flushall
        expr {srand(4242)}
        set model {}
        for {set i 0} {$i < 2000} {incr i} {
            set v [expr {int(rand() * 20)}]
            set len [llength $model]
            switch [expr {int(rand() * 9)}] {
                0 { assert_equal [expr {$len + 1}] [r lpush l $v]; set model [linsert $model 0 $v] }
                1 { assert_equal [expr {$len + 1}] [r rpush l $v]; lappend model $v }
                2 {
                    set got [r lpop l]
                    assert_equal [lindex $model 0] $got
                    set model [lrange $model 1 end]
                }
                3 {
                    set got [r rpop l]
                    assert_equal [lindex $model end] $got
                    set model [lrange $model 0 end-1]
                }
                4 {
                    set idx [expr {int(rand() * ($len + 4)) - 2}]
                    set exp [expr {$idx < 0 ? [lindex $model end-[expr {-$idx - 1}]] : [lindex $model $idx]}]
                    assert_equal $exp [r lindex l $idx]
                }
                5 {
                    set cnt [expr {int(rand() * 5) - 2}]
                    set got [r lrem l $cnt $v]
                    set pos [lsearch -all -exact $model $v]
                    if {$cnt > 0} { set pos [lrange $pos 0 [expr {$cnt - 1}]] }
                    if {$cnt < 0} { set pos [lrange $pos end-[expr {-$cnt - 1}] end] }
                    assert_equal [llength $pos] $got
                    foreach p [lreverse $pos] { set model [lreplace $model $p $p] }
                }
                6 {
                    set where [expr {rand() < 0.5 ? "before" : "after"}]
                    set got [r linsert l $where $v X$v]
                    set p [lsearch -exact $model $v]
                    if {$len == 0} {
                        assert_equal 0 $got
                    } elseif {$p < 0} {
                        assert_equal -1 $got
                    } else {
                        if {$where eq "after"} { incr p }
                        set model [linsert $model $p X$v]
                        assert_equal [llength $model] $got
                    }
                }
                7 {
                    if {$len > 30} {
                        r ltrim l 0 20
                        set model [lrange $model 0 20]
                    }
                }
                8 {
                    set p [r lpos l $v]
                    set e [lsearch -exact $model $v]
                    assert_equal [expr {$e < 0 ? {} : $e}] $p
                }
            }
        }
        assert_equal $model [r lrange l 0 -1]
    }
}
