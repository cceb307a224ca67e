# Snapshots: SAVE, BGSAVE (SCHEDULE, in MULTI, while one runs), save points, restart with every
# type, encoding and TTL, DEBUG RELOAD, INFO persistence, SHUTDOWN/SIGTERM saves, a failing
# save (MISCONF), truncated and damaged files refused at start, and interoperation with
# Debian's redis-server 7.0 in both directions.

set ::pers_redis_bin /usr/bin/redis-server
set ::pers_far 4102444800000 ;# 2100-01-01 in ms

# Every type in every encoding (the same commands on both servers), in db 0 and db 9.
proc pers_fill {c} {
    $c select 0
    $c set int 12345
    $c set neg -42
    $c set emb "hello world"
    $c set raw [string repeat "abcdefghij" 10]
    $c set lzf [string repeat "z" 20000]
    $c set bin "a\x00b\xffc\r\n"
    $c set empty ""
    $c rpush list1 a b c 1 2 3
    for {set i 0} {$i < 600} {incr i} { $c rpush list2 "element-$i" }
    $c rpush list3 [string repeat "q" 10000] x y
    $c sadd iset 1 2 3 -5 100000
    $c sadd lpset a b c d
    for {set i 0} {$i < 200} {incr i} { $c sadd htset "member-$i" }
    for {set i 0} {$i < 600} {incr i} { $c sadd bigiset $i }
    $c zadd zlp 1 a 2.5 b -3 c 0 d
    for {set i 0} {$i < 200} {incr i} { $c zadd zsl [expr {$i * 0.5 - 20}] "m$i" }
    $c zadd zsl inf top -inf bottom
    $c hset hlp f1 v1 f2 2 f3 3.5
    for {set i 0} {$i < 600} {incr i} { $c hset hht "field-$i" "value-$i" }
    $c hset hlong f [string repeat "v" 100]
    foreach k {emb list1 iset zlp hlp hht} { $c pexpireat $k $::pers_far }
    $c select 9
    $c set nine 9
    $c rpush nlist x
    $c pexpireat nine [expr {$::pers_far + 1}]
    $c select 0
}

# Contents of dbs 0 and 9: key, type, value (scores normalised), expire time.
proc pers_dump {c} {
    set out {}
    foreach db {0 9} {
        $c select $db
        foreach key [lsort [$c keys *]] {
            set type [$c type $key]
            switch -- $type {
                string { set v [$c get $key] }
                list { set v [$c lrange $key 0 -1] }
                set { set v [lsort [$c smembers $key]] }
                hash {
                    set d [$c hgetall $key]
                    set v {}
                    foreach f [lsort [dict keys $d]] { lappend v $f [dict get $d $f] }
                }
                zset {
                    set v {}
                    foreach {m s} [$c zrange $key 0 -1 withscores] {
                        if {[string is double -strict $s]} { set s [format %.17g $s] }
                        lappend v $m $s
                    }
                }
                default { set v ? }
            }
            lappend out [list $db $key $type $v [$c pexpiretime $key]]
        }
    }
    $c select 0
    return $out
}

# OBJECT ENCODING of every key of dbs 0 and 9.
proc pers_encodings {c} {
    set out {}
    foreach db {0 9} {
        $c select $db
        foreach key [lsort [$c keys *]] { lappend out $db $key [$c object encoding $key] }
    }
    $c select 0
    return $out
}

# Encodings redis 7.0 shares with Valkey 8 (7.0 has no listpack lists or sets).
proc pers_common_encodings {c} {
    set out {}
    foreach key {int neg emb raw iset bigiset zlp zsl hlp hht hlong} {
        lappend out $key [$c object encoding $key]
    }
    return $out
}

proc pers_wait_bgsave {} {
    wait_for_condition 600 50 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0} else {
        ::testutil::fail "BGSAVE still in progress"
    }
}

proc pers_count_log {pattern} {
    set n 0
    foreach line [split [::srv::file_tail [srv log] 100000] \n] {
        if {[string match $pattern $line]} { incr n }
    }
    return $n
}

proc pers_wait_exit {pid} {
    wait_for_condition 200 50 {![::srv::alive $pid]} else { ::testutil::fail "server did not exit" }
}

start_server {tags {persistence}} {
    test "SAVE then restart keeps every type, encoding and TTL" {
        r flushall
        pers_fill r
        set before [pers_dump r]
        set enc [pers_encodings r]
        assert_equal OK [r save]
        assert_equal 0 [info_field [r info persistence] rdb_changes_since_last_save]
        assert {[file exists [file join [srv dir] dump.rdb]]}
        restart_server
        assert_equal $before [pers_dump r]
        assert_equal $enc [pers_encodings r]
        wait_for_log "*Done loading RDB, keys loaded: 21, keys expired: 0.*"
        assert {[log_contains "*DB loaded from disk: * seconds*"]}
        assert {[log_contains "*Loading RDB produced by *"]}
        # The snapshot is loaded before the node accepts connections.
        set log [::srv::file_tail [srv log] 100000]
        assert {[string last "DB loaded from disk" $log] < [string last "Ready to accept connections" $log]}
        set info [r info persistence]
        assert_equal 21 [info_field $info rdb_last_load_keys_loaded]
        assert_equal 0 [info_field $info rdb_last_load_keys_expired]
    }

    test "LASTSAVE and INFO persistence after SAVE" {
        r set k v
        assert_equal 1 [info_field [r info persistence] rdb_changes_since_last_save]
        set saves [info_field [r info persistence] rdb_saves]
        after 1100
        set t0 [r lastsave]
        r save
        set info [r info persistence]
        assert {[r lastsave] > $t0}
        assert_equal [r lastsave] [info_field $info rdb_last_save_time]
        assert_equal 0 [info_field $info rdb_changes_since_last_save]
        assert_equal [expr {$saves + 1}] [info_field $info rdb_saves]
        assert_equal 0 [info_field $info rdb_bgsave_in_progress]
        assert_equal ok [info_field $info rdb_last_bgsave_status]
        assert_equal -1 [info_field $info rdb_current_bgsave_time_sec]
        assert_equal 0 [info_field $info loading]
        assert_match "*DB saved on disk*" [::srv::file_tail [srv log] 5]
    }

    test "BGSAVE forks a child; a second BGSAVE or a SAVE is refused while it runs" {
        r flushall
        for {set i 0} {$i < 10} {incr i} { r set key$i $i }
        set forks [info_field [r info stats] total_forks]
        set t0 [r lastsave]
        # LASTSAVE counts seconds: let one pass so that the save's is later
        wait_for_condition 30 50 {[clock seconds] > $t0}
        # The child sleeps per key (1 s in all). The checks below hold only while it runs,
        # so their replies are kept and judged after making sure it still ran at the end; on
        # a machine too busy for that, the whole round runs again with a 10 s child.
        for {set try 0} {1} {incr try} {
            r config set rdb-key-save-delay [expr {$try ? 1000000 : 100000}]
            assert_equal "Background saving started" [r bgsave]
            set replies {}
            foreach cmd {{bgsave} {bgsave schedule} {save}} {
                catch {r {*}$cmd} e
                lappend replies $e
            }
            set info [r info persistence]
            # A write while the child runs is still a change after the save.
            r set during 1
            set running [info_field [r info persistence] rdb_bgsave_in_progress]
            r config set rdb-key-save-delay 0
            if {$running || $try} break
            pers_wait_bgsave
            r del during
        }
        assert_equal 1 $running "the child ended before the checks were done, twice"
        assert_equal [lrepeat 3 "ERR Background save already in progress"] $replies
        assert_equal 1 [info_field $info rdb_bgsave_in_progress]
        assert_equal 10 [info_field $info current_save_keys_total]
        assert {[info_field $info rdb_current_bgsave_time_sec] >= 0}
        pers_wait_bgsave
        set info [r info persistence]
        assert_equal ok [info_field $info rdb_last_bgsave_status]
        assert_equal 1 [info_field $info rdb_changes_since_last_save]
        assert {[info_field $info rdb_last_bgsave_time_sec] >= 0}
        assert {[r lastsave] > $t0}
        set stats [r info stats]
        assert_equal [expr {$forks + 1 + $try}] [info_field $stats total_forks]
        assert {[info_field $stats latest_fork_usec] > 0}
        wait_for_log "*Background saving started by pid *"
        wait_for_log "*Background saving terminated with success*"
        assert {[log_contains "*:C * DB saved on disk*"]}
        assert_error "ERR syntax error" {r bgsave foo}
        restart_server
        assert_equal 10 [r dbsize]
        assert_equal 7 [r get key7]
    }

    test "A BGSAVE's end is seen when its child exits, not at the next cron tick" {
        # With the cron paused, only the child's exit itself (a pidfd in the event loop) can
        # tell the node the save ended.
        set n [pers_count_log "*Background saving terminated with success*"]
        assert_equal OK [r debug pause-cron 1]
        assert_equal "Background saving started" [r bgsave]
        wait_for_condition 100 50 {[info_field [r info persistence] rdb_bgsave_in_progress] == 0} else {
            r debug pause-cron 0
            fail "the end of the BGSAVE was not seen with the cron paused"
        }
        assert_equal OK [r debug pause-cron 0]
        assert_equal ok [info_field [r info persistence] rdb_last_bgsave_status]
        assert_equal [expr {$n + 1}] [pers_count_log "*Background saving terminated with success*"]
    }

    test "BGSAVE SCHEDULE starts at once when idle; BGSAVE inside MULTI is scheduled" {
        set n [pers_count_log "*Background saving started by pid*"]
        assert_equal "Background saving started" [r bgsave schedule]
        pers_wait_bgsave
        r multi
        r bgsave
        assert_equal {{Background saving scheduled}} [r exec]
        wait_for_condition 100 50 {[pers_count_log "*Background saving started by pid*"] == $n + 2}
        pers_wait_bgsave
        assert_equal ok [info_field [r info persistence] rdb_last_bgsave_status]
    }

    test "Save points start a BGSAVE from cron" {
        set n [pers_count_log "*Background saving terminated with success*"]
        r config set save "1 1"
        r set sp 1
        wait_for_log "*1 changes in 1 seconds. Saving...*"
        wait_for_condition 100 50 {[pers_count_log "*Background saving terminated with success*"] > $n}
        r config set save ""
        assert_equal 0 [info_field [r info persistence] rdb_changes_since_last_save]
    }

    test "Changes counted by FLUSHALL and FLUSHDB: the keys removed, 0 after FLUSHALL's save" {
        r flushall
        r config set save "3600 1"
        r set a 1
        r flushall
        # the save FLUSHALL makes with save points leaves nothing unsaved, as in Valkey 8
        assert_equal 0 [info_field [r info persistence] rdb_changes_since_last_save]
        r config set save ""
        r flushall
        r flushdb
        assert_equal 0 [info_field [r info persistence] rdb_changes_since_last_save]
        r set a 1
        r set b 2
        r flushdb
        assert_equal 4 [info_field [r info persistence] rdb_changes_since_last_save]
        r save
    }

    test "DEBUG RELOAD keeps data, TTLs and encodings" {
        r flushall
        pers_fill r
        # Converted types stay converted (their contents call for it).
        r hset hconv f [string repeat x 100]
        r sadd sconv [string repeat y 100]
        set before [pers_dump r]
        set enc [pers_encodings r]
        assert_equal OK [r debug reload]
        assert_equal $before [pers_dump r]
        assert_equal $enc [pers_encodings r]
        assert_equal hashtable [r object encoding hconv]
        assert_equal hashtable [r object encoding sconv]
        wait_for_log "*DB reloaded by DEBUG RELOAD*"
        assert_equal 0 [info_field [r info persistence] rdb_changes_since_last_save]
    }

    test "DEBUG RELOAD options: NOSAVE, NOFLUSH, MERGE" {
        r flushall
        r set a 1
        r set b 2
        r save
        r set a changed
        r set c 3
        # NOSAVE: back to the file's contents.
        assert_equal OK [r debug reload nosave]
        assert_equal {1 2 {}} [list [r get a] [r get b] [r get c]]
        # NOFLUSH without MERGE: the file's keys collide with the live ones.
        assert_error "ERR Error trying to load the RDB dump, check server logs." {r debug reload nosave noflush}
        assert_equal {1 2} [list [r get a] [r get b]]
        # NOFLUSH MERGE: the file wins on conflicts, other live keys stay.
        r set a live
        r set d 4
        assert_equal OK [r debug reload nosave noflush merge]
        assert_equal {1 2 4} [list [r get a] [r get b] [r get d]]
        assert_error "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options." {r debug reload foo}
    }

    test "Loading fires no keyspace 'new' events" {
        r flushall
        r set a 1
        r rpush l x
        r save
        r flushall
        r config set notify-keyspace-events EAn
        set c [valkey_client]
        $c deferred 1
        $c psubscribe *
        $c read
        r debug reload nosave
        r set marker 1
        $c ping
        set events {}
        while 1 {
            set m [$c read]
            if {$m eq {pong {}}} break
            lappend events [lindex $m 3]
        }
        r config set notify-keyspace-events ""
        assert_equal 2 [r exists a l]
        foreach e $events { assert_equal marker $e "only the marker's events: $events" }
    }

    test "Keys already expired at load are skipped and counted" {
        r flushall
        r debug set-active-expire 0
        r set soon v px 200
        r set later v px 600000
        r set keep v
        r save
        after 400
        restart_server
        assert_equal {0 1 1} [list [r exists soon] [r exists later] [r exists keep]]
        wait_for_log "*Done loading RDB, keys loaded: 2, keys expired: 1.*"
        assert_equal 1 [info_field [r info persistence] rdb_last_load_keys_expired]
    }

    test "FLUSHALL with save points writes the empty dataset" {
        r set x 1
        r save
        r config set save "3600 1"
        r flushall
        r config set save ""
        restart_server
        assert_equal 0 [r dbsize]
    }
}

start_server {tags {persistence}} {
    test "SHUTDOWN saves when save points are configured" {
        r config set save "3600 1"
        r set s1 v
        set pid [srv pid]
        catch {r shutdown}
        pers_wait_exit $pid
        assert {[log_contains "*Saving the final RDB snapshot before exiting.*"]}
        # A standalone node has no nodes.conf to save on the way out.
        assert {![log_contains "*cluster config*"]}
        restart_server
        assert_equal v [r get s1]
    }

    test "SHUTDOWN NOSAVE does not save; SHUTDOWN SAVE saves without save points" {
        r config set save "3600 1"
        r set s2 v
        set pid [srv pid]
        catch {r shutdown nosave}
        pers_wait_exit $pid
        restart_server
        assert_equal 0 [r exists s2]
        r config set save ""
        r set s3 v
        set pid [srv pid]
        catch {r shutdown save}
        pers_wait_exit $pid
        restart_server
        assert_equal v [r get s3]
    }

    test "SIGTERM saves when save points are configured" {
        r config set save "3600 1"
        r set s4 v
        set pid [srv pid]
        exec kill -TERM $pid
        pers_wait_exit $pid
        restart_server
        assert_equal v [r get s4]
    }

    test "SHUTDOWN kills a running BGSAVE child" {
        r config set save ""
        for {set i 0} {$i < 20} {incr i} { r set k$i $i }
        r config set rdb-key-save-delay 1000000
        r bgsave
        set pid [srv pid]
        catch {r shutdown nosave}
        pers_wait_exit $pid
        assert {[log_contains "*There is a child saving an .rdb. Killing it!*"]}
        assert_equal {} [glob -nocomplain -directory [srv dir] temp-*.rdb]
        restart_server
    }

    test "A failing BGSAVE: status err, MISCONF for writes and PING, SHUTDOWN refused" {
        r config set save "3600 1"
        set target [file join [srv dir] dump.rdb]
        file delete -force $target
        file mkdir [file join $target blocker]
        assert_equal "Background saving started" [r bgsave]
        pers_wait_bgsave
        assert_equal err [info_field [r info persistence] rdb_last_bgsave_status]
        wait_for_log "*Background saving error*"
        assert_error "MISCONF Valkey is configured to save RDB snapshots*Please check the Valkey logs for details about the RDB error." {r set a b}
        r config set extended-redis-compatibility yes
        assert_error "MISCONF Redis is configured to save RDB snapshots*Please check the Redis logs for details about the RDB error." {r set a b}
        r config set extended-redis-compatibility no
        assert_error "MISCONF *" {r ping}
        assert_equal {} [r get a]
        r multi
        assert_error "MISCONF *" {r set a b}
        assert_error "EXECABORT *" {r exec}
        r config set stop-writes-on-bgsave-error no
        assert_equal OK [r set a b]
        r config set stop-writes-on-bgsave-error yes
        assert_error "ERR*" {r save}
        assert_error "ERR Errors trying to SHUTDOWN. Check logs." {r shutdown}
        assert {[server_alive]}
        wait_for_log "*Error trying to save the DB, can't exit.*"
        file delete -force $target
        assert_equal "Background saving started" [r bgsave]
        pers_wait_bgsave
        assert_equal ok [info_field [r info persistence] rdb_last_bgsave_status]
        assert_equal OK [r set a c]
        r config set save ""
    }

    test "CONFIG rdbcompression / rdbchecksum / stop-writes-on-bgsave-error / rdb-key-save-delay" {
        assert_equal {rdbcompression yes} [r config get rdbcompression]
        assert_equal {rdbchecksum yes} [r config get rdbchecksum]
        assert_equal {stop-writes-on-bgsave-error yes} [r config get stop-writes-on-bgsave-error]
        r flushall
        r set big [string repeat a 10000]
        r config set rdbcompression no
        r save
        set plain [file size [file join [srv dir] dump.rdb]]
        r config set rdbcompression yes
        r save
        set packed [file size [file join [srv dir] dump.rdb]]
        assert {$plain > 10000 && $packed < 1000}
        # Immutable in Valkey 8: only the config file sets it (next test).
        assert_error "ERR CONFIG SET failed (possibly related to argument 'rdbchecksum') - can't set immutable config" {
            r config set rdbchecksum no
        }
    }
}

start_server {tags {persistence} overrides {rdbchecksum no}} {
    test "rdbchecksum no: snapshots end with a zero checksum and still load" {
        r set big [string repeat a 10000]
        r save
        set data [read_binary [file join [srv dir] dump.rdb]]
        assert_equal [string repeat \x00 8] [string range $data end-7 end]
        assert_equal OK [r debug reload nosave]
        assert_equal 10000 [r strlen big]
    }
}

start_server {tags {persistence}} {
    test "A BGSAVE child whose node is killed with SIGKILL stops and never replaces dump.rdb" {
        for {set i 0} {$i < 100} {incr i} { r set k$i $i }
        r save
        set dump [file join [srv dir] dump.rdb]
        set before [read_binary $dump]
        file stat $dump st
        set ino $st(ino)
        set mtime $st(mtime)
        r set extra 1  ;# a snapshot taken now differs from the file
        r config set rdb-key-save-delay 100000  ;# 0.1 s per key: about 10 s for the save
        assert_equal "Background saving started" [r bgsave]
        set child [server_children]
        assert_equal 1 [llength $child] "one snapshot child: '$child'"
        set tmp [file join [srv dir] temp-$child.rdb]
        wait_for_condition 100 20 {[file exists $tmp]} else {
            ::testutil::fail "the child never created $tmp"
        }
        kill_server
        # Without the parent-death signal the child would save for ~10 s, then rename.
        wait_for_condition 100 50 {![::srv::alive $child]} else {
            ::testutil::fail "the snapshot child $child still runs 5 s after its node died"
        }
        assert_equal $before [read_binary $dump] "dump.rdb content changed"
        file stat $dump st
        assert_equal $ino $st(ino) "dump.rdb was replaced"
        assert_equal $mtime $st(mtime)
        # As when the node itself stops a child: its temp file is removed.
        assert_equal {} [glob -nocomplain -directory [srv dir] temp-*.rdb]
        restart_server
        assert_equal 100 [r dbsize]
        assert_equal {} [r get extra]
    }
}

start_server {tags {persistence}} {
    test "Truncated or damaged dump.rdb: the node refuses to start with a clear message" {
        r flushall
        pers_fill r
        r save
        set good [read_binary [file join [srv dir] dump.rdb]]
        set dir [::srv::make_dir]
        set port [::srv::find_free_port]
        set conf "port $port\ndir $dir\nsave \"\"\nbind 127.0.0.1\n"

        # Truncated in the middle.
        write_binary [file join $dir dump.rdb] [string range $good 0 [expr {[string length $good] / 2}]]
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Error reading the RDB file dump.rdb at offset*" $out
        assert_match "*truncated or corrupt*" $out
        assert_match "*Fatal error loading the DB, check server logs. Exiting.*" $out
        assert_no_match "*Ready to accept connections*" $out

        # Cut just before the checksum.
        write_binary [file join $dir dump.rdb] [string range $good 0 end-5]
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Short read*Unexpected EOF*" $out

        # One bit flipped inside a string value: the checksum catches it.
        set at [expr {[string first "hello world" $good] + 3}]
        set bad [string replace $good $at $at [format %c [expr {[scan [string index $good $at] %c] ^ 1}]]]
        write_binary [file join $dir dump.rdb] $bad
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Wrong RDB checksum expected*" $out
        assert_match "*Fatal error loading the DB*" $out

        # The checksum itself overwritten: Valkey 8's lines, the data's sum first, the file's
        # second, and "RDB CRC error".
        binary scan [string range $good end-7 end] w sum
        write_binary [file join $dir dump.rdb] "[string range $good 0 end-8]foobar00"
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Wrong RDB checksum expected: ([format %llx [expr {$sum & 0xffffffffffffffff}]]) but got (30307261626f6f66). Aborting now.*RDB CRC error*Fatal error loading the DB*" $out

        # A flipped type byte is refused as bad data.
        set at [string first "\x00\x03int" $good]
        assert {$at > 0}
        set bad [string replace $good $at $at "\x63"]
        write_binary [file join $dir dump.rdb] $bad
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Unknown RDB encoding type 99*" $out

        # Not a snapshot at all.
        write_binary [file join $dir dump.rdb] "hello, I am not a snapshot"
        lassign [server_try_start $conf] code out
        assert_equal 1 $code $out
        assert_match "*Wrong signature*" $out
        file delete -force $dir
    }
}

start_server {tags {persistence} overrides {enable-debug-command yes}} {
    test "SHUTDOWN ABORT cancels a SIGTERM the cron has not run yet; without one it is an error" {
        assert_error "ERR No shutdown in progress." {r shutdown abort}
        r debug pause-cron 1
        set pid [srv pid]
        exec kill -TERM $pid
        after 50
        assert_equal OK [r shutdown abort]
        assert {[log_contains "*Shutdown manually aborted.*"]}
        r debug pause-cron 0
        after 300
        assert_equal PONG [r ping]
        assert_error "ERR No shutdown in progress." {r shutdown abort}
    }
}

# ---------------------------------------------------------------- interop with redis 7.0

# The peer is installed by `make test`; without it this file fails (it never skips).
if {![file executable $::pers_redis_bin]} {
    test "Snapshot interop with redis-server 7.0" { require_peer $::pers_redis_bin redis-server } {persistence interop}
    return
}

set ::pers_tested_server $::cfg(server)
set ::cfg(server) $::pers_redis_bin
try {
    # Outer server: redis-server 7.0 (level -1); inner: the server under test (level 0).
    start_server {tags {persistence interop}} {
        set ::cfg(server) $::pers_tested_server
        start_server {} {
            test "Both servers are up: redis-server 7.0 and the server under test" {
                assert_match *7.0.* [info_field [r -1 info server] redis_version]
                assert_equal PONG [r ping]
            }

            test "A dump.rdb written by our node loads into redis-server 7.0 with equal contents" {
                r flushall
                r -1 flushall
                pers_fill r
                set ours [pers_dump r]
                set enc [pers_common_encodings r]
                r save
                file copy -force [file join [srv 0 dir] dump.rdb] [file join [srv -1 dir] dump.rdb]
                assert_equal OK [r -1 debug reload nosave]
                assert_equal $ours [pers_dump [valkey_client -1]]
                assert_equal $enc [pers_common_encodings [valkey_client -1]]
                # Lists are quicklists in redis 7.0 whatever their size.
                assert_equal quicklist [r -1 object encoding list1]
            }

            test "A dump.rdb written by our node with BGSAVE and without compression also loads" {
                r config set rdbcompression no
                r bgsave
                pers_wait_bgsave
                r config set rdbcompression yes
                r -1 flushall
                file copy -force [file join [srv 0 dir] dump.rdb] [file join [srv -1 dir] dump.rdb]
                assert_equal OK [r -1 debug reload nosave]
                assert_equal [pers_dump r] [pers_dump [valkey_client -1]]
            }

            test "A dump.rdb written by redis-server 7.0 loads into our node with equal contents" {
                r flushall
                r -1 flushall
                pers_fill [valkey_client -1]
                set theirs [pers_dump [valkey_client -1]]
                set enc [pers_common_encodings [valkey_client -1]]
                r -1 save
                file copy -force [file join [srv -1 dir] dump.rdb] [file join [srv 0 dir] dump.rdb]
                assert_equal OK [r debug reload nosave]
                assert_equal $theirs [pers_dump r]
                assert_equal $enc [pers_common_encodings r]
                assert_equal listpack [r object encoding list1]
                assert_equal listpack [r object encoding list2]
                assert_equal quicklist [r object encoding list3]
                # And at start-up.
                restart_server
                assert_equal $theirs [pers_dump r]
                wait_for_log "*Loading RDB produced by Redis version 7.0.*"
                wait_for_log "*Done loading RDB, keys loaded: 21, keys expired: 0.*"
            }

            test "redis-server 7.0 snapshots with compact encodings of old-style thresholds load" {
                # Small thresholds make redis 7.0 write plain (non-listpack) types too.
                set rc [valkey_client -1]
                $rc config set hash-max-listpack-entries 1 zset-max-listpack-entries 1 set-max-intset-entries 1 list-max-listpack-size 1
                $rc flushall
                pers_fill $rc
                set theirs [pers_dump $rc]
                $rc save
                $rc config set hash-max-listpack-entries 128 zset-max-listpack-entries 128 set-max-intset-entries 512 list-max-listpack-size -2
                file copy -force [file join [srv -1 dir] dump.rdb] [file join [srv 0 dir] dump.rdb]
                assert_equal OK [r debug reload nosave]
                assert_equal $theirs [pers_dump r]
                # Our node picks the encodings its own thresholds call for.
                assert_equal listpack [r object encoding hlp]
                assert_equal intset [r object encoding iset]
            }
        }
    }
} finally {
    set ::cfg(server) $::pers_tested_server
}
