# Replication with Debian's redis-server 7.0 on the other end of the link, both ways:
#   redis 7.0 replica of our primary, and our node as replica of a redis 7.0 primary.
# Each way: full sync (diskless and from disk) of a dataset of every type, then 100,000 seeded
# random writes of every type sent pipelined, then the two datasets compared key by key (type,
# contents, expiry time) in db 0 and db 2; then the link is killed from either side and the
# replica must continue with a partial resync (sync_partial_ok grows, sync_full does not).
# A redis 7.0 replica of ours also syncs again and again while writes flow (its link must come
# up each time: the stream may not follow the payload's end mark in one read).
# Sorted-set scores are compared as doubles: Valkey 8 and Redis 7.0 format them differently.

set ::ri_redis_bin /usr/bin/redis-server
set ::ri_nwrites 100000
set ::ri_nkeys 600      ;# keys per type pool: a few thousand keys in all

# ---------------------------------------------------------------- helpers

proc rl {lvl args} {
    if {$lvl == 0} { return [r {*}$args] }
    return [r $lvl {*}$args]
}
proc rinfo {lvl field} { return [info_field [rl $lvl info] $field] }
proc ri_stat {lvl field} { return [info_field [rl $lvl info stats] $field] }

# The primary (level -1) PINGs its replica now and then, which moves the offset between two
# calls: these take the primary's offset, its slave0 line and both ROLE replies until they
# agree on one offset (primary offset unchanged before and after). Sets ::ri_snap to
# {offset slave0 primary_role replica_role}; returns 1 when consistent.
proc ri_acked_snapshot {} {
    set off [rinfo -1 master_repl_offset]
    set slave0 [rinfo -1 slave0]
    set prole [r -1 role]
    set rrole [r role]
    set off2 [rinfo -1 master_repl_offset]
    set ::ri_snap [list $off $slave0 $prole $rrole]
    return [expr {$off == $off2 && [string match "*,offset=$off,*" $slave0] &&
                  [lindex $prole 2 0 2] == $off && [lindex $rrole 4] == $off}]
}

proc ri_rand {n} { return [expr {int(rand() * $n)}] }
proc ri_pick {lst} { return [lindex $lst [ri_rand [llength $lst]]] }

proc ri_key {type} { return $type:[ri_rand $::ri_nkeys] }
proc ri_val {} {
    set r [ri_rand 10]
    if {$r < 5} { return v[ri_rand 50] }
    if {$r < 8} { return [expr {[ri_rand 1000] - 100}] }
    if {$r < 9} { return [string repeat x [expr {50 + [ri_rand 100]}]] }
    return "b\x00\r\n[ri_rand 9]"
}
proc ri_member {} { return [ri_pick {m a b c d e f g}][ri_rand 40] }
proc ri_score {} {
    if {[ri_rand 20] == 0} { return [ri_pick {-inf +inf 0.1 1e-7 3.5e10 -0}] }
    return [expr {[ri_rand 2000] / 8.0 - 50}]
}

# One random write (keys of each type stay in their pool, so WRONGTYPE is rare).
proc ri_gen {} {
    switch [ri_rand 6] {
        0 {
            set k [ri_key s]
            switch [ri_rand 12] {
                0 - 1 - 2 { return [list set $k [ri_val]] }
                3 { return [list append $k [ri_val]] }
                4 { return [list incrby s:n[ri_rand 50] [expr {[ri_rand 100] - 50}]] }
                5 { return [list incrbyfloat s:f[ri_rand 50] [ri_pick {0.1 1.5 -2.25 3e2}]] }
                6 { return [list setrange $k [ri_rand 20] [ri_val]] }
                7 { return [list getdel $k] }
                8 { return [list set $k [ri_val] EX [expr {100000 + [ri_rand 1000]}]] }
                9 { return [list mset $k [ri_val] [ri_key s] [ri_val]] }
                10 { return [list getset $k [ri_val]] }
                11 { return [list setnx $k [ri_val]] }
            }
        }
        1 {
            set k [ri_key l]
            switch [ri_rand 12] {
                0 - 1 - 2 { return [list rpush $k [ri_val] [ri_val]] }
                3 - 4 { return [list lpush $k [ri_val]] }
                5 { return [list lpop $k] }
                6 { return [list rpop $k [expr {1 + [ri_rand 3]}]] }
                7 { return [list ltrim $k 0 [expr {5 + [ri_rand 30]}]] }
                8 { return [list lset $k 0 [ri_val]] }
                9 { return [list linsert $k BEFORE v[ri_rand 50] [ri_val]] }
                10 { return [list lrem $k 1 v[ri_rand 50]] }
                11 { return [list lmove $k [ri_key l] LEFT RIGHT] }
            }
        }
        2 {
            set k [ri_key h]
            switch [ri_rand 8] {
                0 - 1 - 2 { return [list hset $k f[ri_rand 30] [ri_val]] }
                3 { return [list hset $k f[ri_rand 30] [ri_val] f[ri_rand 200] [ri_val]] }
                4 { return [list hdel $k f[ri_rand 30]] }
                5 { return [list hincrby $k n[ri_rand 5] [ri_rand 100]] }
                6 { return [list hincrbyfloat $k x[ri_rand 5] [ri_pick {0.5 1.25 -3}]] }
                7 { return [list hsetnx $k f[ri_rand 30] [ri_val]] }
            }
        }
        3 {
            set k [ri_key S]
            switch [ri_rand 9] {
                0 - 1 - 2 { return [list sadd $k [ri_member] [ri_rand 100]] }
                3 { return [list sadd $k {*}[lmap x {1 2 3 4 5 6} {ri_member}]] }
                4 { return [list srem $k [ri_member] [ri_rand 100]] }
                5 { return [list spop $k] }
                6 { return [list smove $k [ri_key S] [ri_member]] }
                7 { return [list sunionstore [ri_key S] $k [ri_key S]] }
                8 { return [list sinterstore [ri_key S] $k [ri_key S]] }
            }
        }
        4 {
            set k [ri_key z]
            switch [ri_rand 9] {
                0 - 1 - 2 { return [list zadd $k [ri_score] [ri_member]] }
                3 { return [list zadd $k [ri_score] [ri_member] [ri_score] [ri_member] [ri_score] [ri_member]] }
                4 { return [list zincrby $k [ri_pick {1 0.5 -2 0.1}] [ri_member]] }
                5 { return [list zrem $k [ri_member]] }
                6 { return [list zpopmin $k] }
                7 { return [list zremrangebyscore $k [ri_rand 10] [expr {10 + [ri_rand 10]}]] }
                8 { return [list zunionstore [ri_key z] 2 $k [ri_key z]] }
            }
        }
        5 {
            set t [ri_pick {s l h S z}]
            set k [ri_key $t]
            switch [ri_rand 7] {
                0 - 1 { return [list del $k] }
                2 { return [list expire $k [expr {200000 + [ri_rand 10000]}]] }
                3 { return [list persist $k] }
                4 { return [list rename $k [ri_key $t]] }
                5 { return [list copy $k [ri_key $t] REPLACE] }
                6 { return [list pexpire $k [expr {300000000 + [ri_rand 1000]}]] }
            }
        }
    }
}

# Sends `n` seeded random writes pipelined on a fresh client; about a tenth go to db 2.
proc ri_write_stream {lvl n seed} {
    expr {srand($seed)}
    set c [valkey_client $lvl]
    $c deferred 1
    set db 0
    set pending 0
    for {set i 0} {$i < $n} {incr i} {
        if {[ri_rand 100] == 0} {
            set db [expr {$db == 0 ? 2 : 0}]
            $c select $db
            incr pending
        }
        $c {*}[ri_gen]
        incr pending
        if {$pending >= 2000} {
            for {} {$pending > 0} {incr pending -1} { catch {$c read} }
        }
    }
    for {} {$pending > 0} {incr pending -1} { catch {$c read} }
    $c close
}

# A dataset of every type and encoding (db 0 and db 2), some keys with TTLs.
proc ri_fill {lvl} {
    set c [valkey_client $lvl]
    foreach db {0 2} {
        $c select $db
        $c set s:int 12345
        $c set s:bin "x\x00y\r\n"
        $c set s:long [string repeat abc 500]
        $c rpush l:small a b 1 2
        $c rpush l:big {*}[lmap i [lrepeat 500 0] {string repeat q 30}]
        $c hset h:small a 1 b 2
        set hb {}
        for {set i 0} {$i < 300} {incr i} { lappend hb f$i v$i }
        $c hset h:big {*}$hb
        $c sadd S:int 1 2 3 -7
        $c sadd S:str a b c
        $c sadd S:big {*}[lmap i [lrepeat 300 0] {ri_member}] {*}[lmap i [lrepeat 300 0] {ri_rand 100000}]
        $c zadd z:small 1 a 2.5 b -inf c
        set zb {}
        for {set i 0} {$i < 300} {incr i} { lappend zb [expr {$i / 3.0}] m$i }
        $c zadd z:big {*}$zb
        $c set s:ttl v PX 500000000
        $c expire h:small 400000
    }
    $c select 0
    $c close
}

# Canonical contents of db `db` of a server: a sorted list of {key type ttl-ms contents}.
# Replies are fetched pipelined.
proc ri_canon {lvl db} {
    set c [valkey_client $lvl]
    $c select $db
    set keys [lsort [$c keys *]]
    $c deferred 1
    foreach k $keys { $c type $k; $c pexpiretime $k }
    set types {}
    set exps {}
    foreach k $keys { lappend types [$c read]; lappend exps [$c read] }
    foreach k $keys t $types {
        switch -- $t {
            string { $c get $k }
            list { $c lrange $k 0 -1 }
            set { $c smembers $k }
            hash { $c hgetall $k }
            zset { $c zrange $k 0 -1 withscores }
            default { $c type $k }
        }
    }
    set out {}
    foreach k $keys t $types e $exps {
        set v [$c read]
        switch -- $t {
            set { set v [lsort $v] }
            hash {
                set d {}
                foreach f [lsort [dict keys $v]] { lappend d $f [dict get $v $f] }
                set v $d
            }
            zset {
                set n {}
                foreach {m s} $v {
                    if {[string is double -strict $s]} {
                        set s [format %.17g [expr {double($s)}]]
                    }
                    lappend n $m $s
                }
                set v $n
            }
        }
        lappend out [list $k $t $e $v]
    }
    $c close
    return $out
}

# Compares db 0 and 2 of two servers key by key; fails listing the first differences.
proc ri_compare {a b} {
    foreach db {0 2} {
        set ca [ri_canon $a $db]
        set cb [ri_canon $b $db]
        if {$ca eq $cb} continue
        set diffs {}
        set da [dict create]
        foreach e $ca { dict set da [lindex $e 0] $e }
        set dbb [dict create]
        foreach e $cb { dict set dbb [lindex $e 0] $e }
        foreach k [lsort -unique [concat [dict keys $da] [dict keys $dbb]]] {
            set ea [expr {[dict exists $da $k] ? [dict get $da $k] : "(missing)"}]
            set eb [expr {[dict exists $dbb $k] ? [dict get $dbb $k] : "(missing)"}]
            if {$ea ne $eb} { lappend diffs "db$db $k:\n      [string range $ea 0 200]\n      [string range $eb 0 200]" }
            if {[llength $diffs] >= 5} break
        }
        ::testutil::fail "db $db differs ([llength $ca] / [llength $cb] keys), first differences:\n    [join $diffs "\n    "]"
    }
}

proc ri_wait_link {rep} {
    wait_for_condition 300 50 {[rinfo $rep master_link_status] eq "up"} else {
        ::testutil::fail "replica link never came up\n[::srv::file_tail [srv $rep log] 15]"
    }
}

# The replica has applied everything the primary produced.
proc ri_wait_offsets {pri rep} {
    wait_for_condition 400 50 {
        [rinfo $rep master_link_status] eq "up" &&
        [rinfo $pri master_repl_offset] == [rinfo $rep master_repl_offset]
    } else {
        ::testutil::fail "offsets never met: primary [rinfo $pri master_repl_offset], replica\
            [rinfo $rep master_repl_offset] (link [rinfo $rep master_link_status])\n[::srv::file_tail [srv $rep log] 10]"
    }
}

# Kills the link from one side and checks the replica resumes with a partial resync.
proc ri_kill_and_resume {pri rep side seed} {
    set full [ri_stat $pri sync_full]
    set pok [ri_stat $pri sync_partial_ok]
    if {$side eq "primary"} {
        assert_equal 1 [rl $pri client kill type replica]
    } else {
        assert_equal 1 [rl $rep client kill type master]
    }
    # writes while the link is down land in the backlog
    ri_write_stream $pri 2000 $seed
    wait_for_condition 300 50 {[ri_stat $pri sync_partial_ok] == $pok + 1} else {
        ::testutil::fail "no partial resync (sync_partial_ok [ri_stat $pri sync_partial_ok], was $pok;\
            sync_full [ri_stat $pri sync_full], was $full)\n[::srv::file_tail [srv $rep log] 10]"
    }
    ri_write_stream $pri 2000 [expr {$seed + 1}]
    ri_wait_offsets $pri $rep
    assert_equal $full [ri_stat $pri sync_full] "no full sync"
    ri_compare $pri $rep
}

# ---------------------------------------------------------------- the tests

# The peer is installed by `make test`; without it this file fails (it never skips).
if {![file executable $::ri_redis_bin]} {
    test "Replication interop with redis-server 7.0" { require_peer $::ri_redis_bin redis-server } {repl interop}
    return
}

set ::ri_tested_server $::cfg(server)

# --- redis 7.0 replica of our primary: ours is the outer server (-1), redis the inner (0)
try {
    start_server {tags {repl interop}} {
        set ::cfg(server) $::ri_redis_bin
        start_server {} {
            set ::cfg(server) $::ri_tested_server
            set pport [srv -1 port]

            foreach diskless {yes no} {
                test "redis 7.0 replica of our primary: full sync (repl-diskless-sync $diskless)" {
                    assert_match *7.0.* [info_field [r info server] redis_version]
                    r -1 config set repl-diskless-sync $diskless
                    r -1 flushall
                    ri_fill -1
                    set full [ri_stat -1 sync_full]
                    if {$diskless eq "no"} { r replicaof no one }
                    r replicaof 127.0.0.1 $pport
                    ri_wait_link 0
                    ri_wait_offsets -1 0
                    assert_equal [expr {$full + 1}] [ri_stat -1 sync_full]
                    assert_equal [r -1 dbsize] [r dbsize]
                    ri_compare -1 0
                }
            }

            test "redis 7.0 replica of our primary: $::ri_nwrites pipelined writes streamed" {
                set t0 [clock milliseconds]
                ri_write_stream -1 $::ri_nwrites 7001
                ri_wait_offsets -1 0
                ri_compare -1 0
                assert_morethan [r dbsize] 1000
                ::testutil::log "  (100k writes streamed and compared in [expr {[clock milliseconds] - $t0}] ms)"
            }

            test "redis 7.0 replica of our primary: ROLE, INFO and WAIT see its acks" {
                r -1 set ack:probe 1
                assert_equal 1 [r -1 wait 1 2000]
                wait_for_condition 100 50 {[ri_acked_snapshot]} else {
                    fail "offsets never settled: $::ri_snap"
                }
                lassign $::ri_snap off slave0 prole rrole
                assert_match "ip=127.0.0.1,port=[srv 0 port],state=online,offset=$off,*" $slave0
                assert_equal [list 127.0.0.1 [srv 0 port] $off] [lindex $prole 2 0]
                assert_equal [rinfo -1 master_replid] [rinfo 0 master_replid]
            }

            test "redis-cli 7.0 --rdb fetches a snapshot from our node" {
                set out [file join [srv -1 dir] cli.rdb]
                set rc [catch {exec timeout 10 [require_peer /usr/bin/redis-cli redis-tools] -p $pport --rdb $out 2>@1} msg]
                assert_equal 0 $rc "redis-cli --rdb: $msg"
                set f [open $out rb]
                set head [read $f 9]
                close $f
                assert_equal REDIS0010 $head
            }

            # The stream's first bytes must not follow the payload's end mark in the replica's
            # read: Redis 7.0 looks for the mark at the end of each read, and writes flowing
            # during the sync put a backlog right behind it (before the fix the link stayed
            # down until repl-timeout). Both sides run their default sync settings.
            test "redis 7.0 replica of our primary: full syncs while writes flow, each link comes up" {
                r -1 config set repl-diskless-sync yes
                set bench [require_peer /usr/bin/redis-benchmark redis-tools]
                set pid [exec $bench -p $pport -t set -r 1000 -n 100000000 -c 4 -q > /dev/null 2>@1 &]
                try {
                    foreach round {1 2} {
                        set full [ri_stat -1 sync_full]
                        r replicaof no one
                        r replicaof 127.0.0.1 $pport
                        wait_for_condition 400 50 {[rinfo 0 master_link_status] eq "up"} else {
                            fail "round $round: the link never came up ([rinfo 0 master_sync_in_progress])"
                        }
                        assert_equal [expr {$full + 1}] [ri_stat -1 sync_full]
                    }
                } finally {
                    exec kill $pid
                }
                ri_wait_offsets -1 0
                assert_equal [r -1 dbsize] [r dbsize]
                ri_compare -1 0
            }

            test "redis 7.0 replica of our primary: link killed on ours, partial resync" {
                ri_kill_and_resume -1 0 primary 7100
            }

            test "redis 7.0 replica of our primary: link killed on redis, partial resync" {
                ri_kill_and_resume -1 0 replica 7200
            }
        }
    }
} finally {
    set ::cfg(server) $::ri_tested_server
}

# --- our node as replica of a redis 7.0 primary: redis is the outer server (-1)
set ::cfg(server) $::ri_redis_bin
try {
    start_server {tags {repl interop}} {
        set ::cfg(server) $::ri_tested_server
        start_server {} {
            set pport [srv -1 port]

            foreach diskless {yes no} {
                test "Our replica of a redis 7.0 primary: full sync (repl-diskless-sync $diskless)" {
                    assert_match *7.0.* [info_field [r -1 info server] redis_version]
                    r -1 config set repl-diskless-sync $diskless
                    r -1 flushall
                    ri_fill -1
                    set full [ri_stat -1 sync_full]
                    if {$diskless eq "no"} { r replicaof no one }
                    r replicaof 127.0.0.1 $pport
                    ri_wait_link 0
                    ri_wait_offsets -1 0
                    assert_equal [expr {$full + 1}] [ri_stat -1 sync_full]
                    assert_equal [r -1 dbsize] [r dbsize]
                    ri_compare -1 0
                }
            }

            # A primary sends a bare "\n" every second while its disk snapshot is being made,
            # between +FULLRESYNC and the snapshot's "$<length>" line (the diskless case above
            # has them before +FULLRESYNC, during repl-diskless-sync-delay).
            test "Our replica of a redis 7.0 primary: disk sync while its BGSAVE runs for seconds" {
                r -1 config set repl-diskless-sync no
                r -1 config set rdb-key-save-delay [expr {3000000 / [r -1 dbsize] / 2}]
                set full [ri_stat -1 sync_full]
                r replicaof no one
                set t0 [clock milliseconds]
                r replicaof 127.0.0.1 $pport
                ri_wait_link 0
                set took [expr {[clock milliseconds] - $t0}]
                r -1 config set rdb-key-save-delay 0
                r -1 config set repl-diskless-sync yes
                assert_morethan $took 2000   ;# the snapshot took seconds: newlines came meanwhile
                assert_equal [expr {$full + 1}] [ri_stat -1 sync_full]
                ri_wait_offsets -1 0
                ri_compare -1 0
            }

            test "Our replica of a redis 7.0 primary: $::ri_nwrites pipelined writes streamed" {
                ri_write_stream -1 $::ri_nwrites 8001
                ri_wait_offsets -1 0
                ri_compare -1 0
                assert_morethan [r dbsize] 1000
            }

            test "Our replica of a redis 7.0 primary: ROLE, INFO and WAIT see our acks" {
                r -1 set ack:probe 1
                assert_equal 1 [r -1 wait 1 2000]
                wait_for_condition 100 50 {[ri_acked_snapshot]} else {
                    fail "offsets never settled: $::ri_snap"
                }
                lassign $::ri_snap off slave0 prole rrole
                assert_match "ip=127.0.0.1,port=[srv 0 port],state=online,offset=$off,*" $slave0
                assert_equal [list slave 127.0.0.1 $pport connected $off] $rrole
                assert_equal [rinfo -1 master_replid] [rinfo 0 master_replid]
            }

            test "Our replica of a redis 7.0 primary: link killed on redis, partial resync" {
                ri_kill_and_resume -1 0 primary 8100
            }

            test "Our replica of a redis 7.0 primary: link killed on ours, partial resync" {
                ri_kill_and_resume -1 0 replica 8200
            }

            test "Our replica of a redis 7.0 primary: expiry arrives as the primary's DEL" {
                r -1 debug set-active-expire 0
                r -1 set exp:a v PX 100
                ri_wait_offsets -1 0
                after 200
                assert_equal {} [r get exp:a]
                set n [r dbsize]
                r -1 get exp:a   ;# lazy expiry on redis: DEL propagated
                ri_wait_offsets -1 0
                assert_equal [expr {$n - 1}] [r dbsize]
                r -1 debug set-active-expire 1
            }
        }
    }
} finally {
    set ::cfg(server) $::ri_tested_server
}
