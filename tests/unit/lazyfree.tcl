# Lazy free: UNLINK, DEL (lazyfree-lazy-user-del), FLUSHALL/FLUSHDB (ASYNC, SYNC,
# lazyfree-lazy-user-flush) and expiry (lazyfree-lazy-expire) free big values on the lazy-free
# thread, as Valkey 8 does by default; INFO lazyfree_pending_objects and lazyfreed_objects say
# so. All scenarios run in sequence on one server, each ending with nothing left pending.

proc lf_freed {} { return [s lazyfreed_objects] }

proc lf_settle {} {
    wait_for_condition 200 10 {[s lazyfree_pending_objects] == 0} else {
        fail "lazy-free jobs still pending: [s lazyfree_pending_objects]"
    }
}

# A set kept in a hash table (no intset, no listpack) of n members.
proc lf_table_set {key n} {
    set members {}
    for {set i 0} {$i < $n} {incr i} { lappend members m$i }
    r sadd $key {*}$members
    assert_equal hashtable [r object encoding $key]
}

start_server {tags {lazyfree} config {set-max-intset-entries 0 set-max-listpack-entries 0}} {
    test "UNLINK frees a value of more than 64 elements on the lazy-free thread, a smaller one in place" {
        r config resetstat
        assert_equal 0 [lf_freed]
        assert_equal 0 [s lazyfree_pending_objects]
        # Valkey's rule: an effort (elements of a table) over 64 goes to the thread.
        lf_table_set s64 64
        lf_table_set s65 65
        r set str [string repeat x 100000]
        assert_equal 2 [r unlink s64 str]
        lf_settle
        assert_equal 0 [lf_freed]
        assert_equal 1 [r unlink s65]
        lf_settle
        assert_equal 1 [lf_freed]
        assert_equal 0 [r exists s64 s65 str]
    }

    test "The memory a big UNLINKed value held comes back to used_memory" {
        r flushall sync
        set base [s used_memory]
        set members {}
        for {set i 0} {$i < 20000} {incr i} { lappend members member:$i }
        r zadd z {*}[concat {*}[lmap m $members {list 1 $m}]]
        assert_equal skiplist [r object encoding z]
        set full [s used_memory]
        assert_morethan [expr {$full - $base}] 1000000
        set freed [lf_freed]
        assert_equal 1 [r unlink z]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        # What the thread freed is out of used_memory: back to where it was, give or take
        # the bookkeeping of one job.
        assert_lessthan [expr {[s used_memory] - $base}] 16384
    }

    test "DEL follows lazyfree-lazy-user-del" {
        assert_equal {lazyfree-lazy-user-del yes} [r config get lazyfree-lazy-user-del]
        set freed [lf_freed]
        lf_table_set a 100
        assert_equal 1 [r del a]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        r config set lazyfree-lazy-user-del no
        lf_table_set a 100
        assert_equal 1 [r del a]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        r config set lazyfree-lazy-user-del yes
        assert_equal 0 [r exists a]
    }

    test "FLUSHALL and FLUSHDB: ASYNC and lazyfree-lazy-user-flush free the keys on the thread, SYNC in place" {
        assert_equal {lazyfree-lazy-user-flush yes} [r config get lazyfree-lazy-user-flush]
        r debug populate 1000
        set freed [lf_freed]
        assert_equal OK [r flushall sync]
        lf_settle
        assert_equal $freed [lf_freed]
        r debug populate 1000
        assert_equal OK [r flushdb]
        assert_equal 0 [r dbsize]
        lf_settle
        incr freed 1000
        assert_equal $freed [lf_freed]
        r config set lazyfree-lazy-user-flush no
        r debug populate 1000
        assert_equal OK [r flushall]
        lf_settle
        assert_equal $freed [lf_freed]
        r debug populate 500
        assert_equal OK [r flushall async]
        assert_equal 0 [r dbsize]
        lf_settle
        incr freed 500
        assert_equal $freed [lf_freed]
        r config set lazyfree-lazy-user-flush yes
        assert_error {ERR syntax error*} {r flushall lazy}
        assert_error {ERR syntax error*} {r flushdb async sync}
    }

    test "used_memory after FLUSHALL ASYNC is what FLUSHALL SYNC leaves" {
        r flushall sync
        r debug populate 20000 key 100
        r flushall sync
        set after_sync [s used_memory]
        r debug populate 20000 key 100
        assert_morethan [expr {[s used_memory] - $after_sync}] 2000000
        r flushall async
        lf_settle
        assert_lessthan [expr {abs([s used_memory] - $after_sync)}] 16384
    }

    test "A big key that expires is freed on the lazy-free thread (lazyfree-lazy-expire), a small one in place" {
        assert_equal {lazyfree-lazy-expire yes} [r config get lazyfree-lazy-expire]
        set freed [lf_freed]
        lf_table_set e 100
        r set small v
        r pexpire e 1
        r pexpire small 1
        after 10
        # Found expired by the lookup, or by active expiry before it: freed either way.
        assert_equal 0 [r exists e small]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        r config set lazyfree-lazy-expire no
        lf_table_set e 100
        r pexpire e 1
        after 10
        assert_equal 0 [r exists e]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        r config set lazyfree-lazy-expire yes
    }

    test "A big value a write replaces is freed on the lazy-free thread (lazyfree-lazy-server-del)" {
        assert_equal {lazyfree-lazy-server-del yes} [r config get lazyfree-lazy-server-del]
        set freed [lf_freed]
        lf_table_set r 100
        assert_equal OK [r set r plain]
        lf_settle
        assert_equal [expr {$freed + 1}] [lf_freed]
        # A STORE into an existing key replaces it the same way.
        r del r
        lf_table_set r 100
        lf_table_set src 10
        assert_equal 10 [r sunionstore r src]
        lf_settle
        assert_equal [expr {$freed + 2}] [lf_freed]
        r config set lazyfree-lazy-server-del no
        r set r plain
        r del r
        lf_table_set r 100
        assert_equal OK [r set r plain]
        lf_settle
        assert_equal [expr {$freed + 2}] [lf_freed]
        r config set lazyfree-lazy-server-del yes
        assert_equal plain [r get r]
        r del r src
    }

    test "RENAME, COPY REPLACE and RESTORE REPLACE over a big value, and EXPIRE in the past of one, free it on the thread" {
        set freed [lf_freed]
        lf_table_set dst 100
        r set src v
        assert_equal OK [r rename src dst]
        lf_settle
        assert_equal [incr freed] [lf_freed]
        lf_table_set dst2 100
        assert_equal 1 [r copy dst dst2 replace]
        lf_settle
        assert_equal [incr freed] [lf_freed]
        set payload [r dump dst]
        r del dst2
        lf_table_set dst2 100
        assert_equal OK [r restore dst2 0 $payload replace]
        lf_settle
        assert_equal [incr freed] [lf_freed]
        lf_table_set e 100
        assert_equal 1 [r expire e -1]
        assert_equal 0 [r exists e]
        lf_settle
        assert_equal [incr freed] [lf_freed]
        r del dst dst2
    }

    test "CONFIG RESETSTAT zeroes lazyfreed_objects; INFO memory shows both fields" {
        assert_morethan [lf_freed] 0
        r config resetstat
        set info [r info memory]
        assert_equal 0 [info_field $info lazyfreed_objects]
        assert_equal 0 [info_field $info lazyfree_pending_objects]
        assert_equal 0 [r dbsize]
    }
}
