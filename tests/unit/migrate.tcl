# MIGRATE (and the RESTORE-ASKING it sends in cluster mode): syntax and errors as Valkey 8,
# single and KEYS forms, COPY and REPLACE, TTLs and every type, AUTH/AUTH2, SELECT caching,
# the cached connections, I/O errors and timeouts, hostile targets, the DEL propagated to
# replicas, and Debian's redis-server 7.0 as a target.

set ::mig_redis_bin /usr/bin/redis-server

# The reply of a command, an error as "-<message>", so replies compare exactly.
proc mig_reply {args} {
    if {[catch {uplevel 1 $args} e]} { return "-$e" }
    return $e
}


# Moves every type from `from` to the server on `port` and checks each arrives equal at `to`
# and leaves the source.
proc mig_check_types {from to port} {
    fill_every_type $from
    set before {}
    foreach k $::every_type_keys { dict set before $k [key_contents $from $k] }
    assert_equal OK [r_at $from migrate 127.0.0.1 $port "" 0 10000 KEYS {*}$::every_type_keys]
    foreach k $::every_type_keys {
        assert_equal 0 [r_at $from exists $k] "$k left the source"
        assert_equal [dict get $before $k] [key_contents $to $k] "contents of $k"
    }
}

proc mig_commandstat {level cmd field} {
    set line [info_field [r_at $level info commandstats] cmdstat_$cmd]
    if {$line eq {}} { return 0 }
    if {![regexp "$field=(\\d+)" $line -> v]} { return 0 }
    return $v
}

# A target that misbehaves, in a process of its own (MIGRATE blocks the node it runs on, and
# the test's own client waits for it): it reads a request and then, by mode, answers garbage
# lines, a 10 MB line, or half a reply before closing the connection.
set ::mig_hostile_script {
    lassign $argv port mode
    proc serve {ch addr p} {
        fconfigure $ch -translation binary -blocking 0
        fileevent $ch readable [list answer $ch]
    }
    proc answer {ch} {
        if {[catch {read $ch} data] || [eof $ch]} { catch {close $ch}; return }
        if {$data eq ""} return
        fileevent $ch readable [list drain $ch]
        fconfigure $ch -blocking 1
        catch {
            switch $::mode {
                garbage { puts -nonewline $ch "hello\r\nworld\r\nagain\r\n" }
                long { puts -nonewline $ch "+[string repeat x [expr {10 * 1024 * 1024}]]\r\n" }
                close { puts -nonewline $ch "+O"; flush $ch; close $ch; return }
            }
            flush $ch
        }
        catch {fconfigure $ch -blocking 0}
    }
    proc drain {ch} { if {[catch {read $ch}] || [eof $ch]} { catch {close $ch} } }
    socket -server serve -myaddr 127.0.0.1 $port
    vwait forever
}

proc mig_hostile_start {mode} {
    set port [::srv::find_free_port]
    set path [file join [::srv::make_dir] hostile.tcl]
    set f [open $path w]
    puts $f $::mig_hostile_script
    close $f
    set pid [exec [info nameofexecutable] $path $port $mode &]
    wait_for_condition 100 20 {![::srv::port_free $port]} else { fail "hostile target did not start" }
    return [list $pid $port [file dirname $path]]
}

proc mig_hostile_stop {h} {
    lassign $h pid port dir
    catch {exec kill -KILL $pid}
    file delete -force $dir
}

# The reference build: where this file's deliberate differences from it are skipped.
proc mig_on_valkey {} { return [expr {[s valkey_version] eq "8.0.1"}] }

start_server {tags {migrate}} {
    set tport [srv port]
    start_server {} {
        test "MIGRATE moves one key and replies OK" {
            r -1 flushall
            r set k hello
            assert_equal OK [r migrate 127.0.0.1 $tport k 0 5000]
            assert_equal 0 [r exists k]
            assert_equal hello [r -1 get k]
        }

        # Its payload's 2,000 quicklist nodes were read into a vector reserved anew for each
        # node: every element read so far moved once a node, the target took 16-34 s over the
        # RESTORE, and MIGRATE timed out (as Valkey 8.0.1's "MIGRATE can correctly transfer
        # large values" found).
        test "MIGRATE of a list of 800,000 elements in 2,000 nodes: OK within its timeout, all there" {
            r -1 flushall
            r del big
            for {set j 0} {$j < 40000} {incr j} {
                r rpush big 1 2 3 4 5 6 7 8 9 10 a b c d e f g h i j
            }
            assert_equal 800000 [r llen big]
            assert_equal OK [r migrate 127.0.0.1 $tport big 9 10000]
            r -1 select 9
            assert_equal 800000 [r -1 llen big]
            assert_equal {1 2 3 4 5 6 7 8 9 10 a b c d e f g h i j} [r -1 lrange big 0 19]
            assert_equal {i j} [r -1 lrange big -2 -1]
            assert_equal 0 [r exists big]
            r -1 flushall
            r -1 select 0
        }

        test "MIGRATE syntax and argument errors as Valkey 8" {
            r set k v
            assert_equal "-ERR syntax error" [mig_reply r migrate h 1 k 0 1000 AUTH]
            assert_equal "-ERR syntax error" [mig_reply r migrate h 1 k 0 1000 AUTH2 u]
            assert_equal "-ERR syntax error" [mig_reply r migrate h 1 k 0 1000 foo]
            assert_equal "-ERR syntax error" [mig_reply r migrate h 1 k 0 1000 COPY bar KEYS a]
            assert_equal "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty string" \
                [mig_reply r migrate h 1 k 0 1000 KEYS a]
            assert_equal "-ERR value is not an integer or out of range" [mig_reply r migrate h 1 k x 1000]
            assert_equal "-ERR value is not an integer or out of range" [mig_reply r migrate h 1 k 0 x]
            assert_equal "-ERR value is not an integer or out of range" \
                [mig_reply r migrate h 1 k 0 99999999999999999999]
            assert_equal "-ERR wrong number of arguments for 'migrate' command" \
                [mig_reply r migrate h 1 k 0]
            assert_equal v [r get k]
        }

        test "MIGRATE replies NOKEY when none of the keys exist" {
            assert_equal NOKEY [r migrate 127.0.0.1 $tport nosuch 0 1000]
            assert_equal NOKEY [r migrate 127.0.0.1 $tport "" 0 1000 KEYS no1 no2]
            assert_equal NOKEY [r migrate 127.0.0.1 $tport "" 0 1000 KEYS]
            # Nothing is sent: an unreachable target does not matter.
            assert_equal NOKEY [r migrate nonexistent.invalid 1 nosuch 0 1000 COPY REPLACE AUTH pw]
        }

        test "MIGRATE KEYS moves the keys that exist and skips the missing ones" {
            r -1 flushall
            r flushall
            r mset a 1 b 2 c 3
            assert_equal OK [r migrate 127.0.0.1 $tport "" 0 5000 KEYS a missing b c]
            assert_equal 0 [r dbsize]
            assert_equal {1 2 3} [r -1 mget a b c]
            assert_equal 3 [r -1 dbsize]
        }

        test "MIGRATE COPY keeps the source key; REPLACE overwrites the target's" {
            r -1 flushall
            r set k v1
            assert_equal OK [r migrate 127.0.0.1 $tport k 0 5000 COPY]
            assert_equal v1 [r get k]
            assert_equal v1 [r -1 get k]
            r set k v2
            assert_equal "-ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                [mig_reply r migrate 127.0.0.1 $tport k 0 5000 COPY]
            assert_equal v1 [r -1 get k]
            assert_equal OK [r migrate 127.0.0.1 $tport k 0 5000 COPY REPLACE]
            assert_equal v2 [r get k]
            assert_equal v2 [r -1 get k]
        }

        test "MIGRATE KEYS with a BUSYKEY on the target: the others move, the failed one stays" {
            r -1 flushall
            r flushall
            r mset a 1 b 2 c 3
            r -1 set b old
            assert_equal "-ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                [mig_reply r migrate 127.0.0.1 $tport "" 0 5000 KEYS a b c]
            assert_equal {b} [r keys *]
            assert_equal {1 old 3} [r -1 mget a b c]
            # The first error is the one replied, whichever key it is.
            r mset a 1 c 3
            r -1 del c
            assert_equal "-ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                [mig_reply r migrate 127.0.0.1 $tport "" 0 5000 KEYS a b c]
            assert_equal {a b} [lsort [r keys *]]
            assert_equal OK [r migrate 127.0.0.1 $tport "" 0 5000 REPLACE KEYS a b c]
            assert_equal 0 [r dbsize]
            assert_equal {1 2 3} [r -1 mget a b c]
        }

        test "MIGRATE carries the remaining TTL" {
            r -1 flushall
            r set t v PX 100000
            r set p v
            assert_equal OK [r migrate 127.0.0.1 $tport "" 0 5000 KEYS t p]
            assert_range [r -1 pttl t] 90000 100000
            assert_equal -1 [r -1 pttl p]
        }

        test "MIGRATE moves every type and encoding with equal contents" {
            r -1 flushall
            r flushall
            mig_check_types 0 -1 $tport
            assert_equal intset [r -1 object encoding set:int]
            assert_equal hashtable [r -1 object encoding h:big]
            assert_equal skiplist [r -1 object encoding z:big]
        }

        test "MIGRATE to another db selects it once while it stays the same" {
            r -1 flushall
            set t [valkey_client -1]
            $t select 5
            r -1 config resetstat
            r mset a 1 b 2 c 3 d 4
            assert_equal OK [r migrate 127.0.0.1 $tport a 5 5000]
            assert_equal OK [r migrate 127.0.0.1 $tport b 5 5000]
            assert_equal 1 [mig_commandstat -1 select calls]
            assert_equal {1 2} [$t mget a b]
            assert_equal 0 [r -1 dbsize]
            assert_equal OK [r migrate 127.0.0.1 $tport c 0 5000]
            assert_equal 2 [mig_commandstat -1 select calls]
            # An error from the target makes the db uncertain: SELECT again next time.
            $t set d busy
            assert_match "-ERR Target instance replied with error: BUSYKEY*" \
                [mig_reply r migrate 127.0.0.1 $tport d 5 5000]
            assert_equal 3 [mig_commandstat -1 select calls]
            assert_equal OK [r migrate 127.0.0.1 $tport d 5 5000 REPLACE]
            assert_equal 4 [mig_commandstat -1 select calls]
            assert_equal 4 [$t get d]
            r set e 5
            assert_equal "-ERR Target instance replied with error: ERR DB index is out of range" \
                [mig_reply r migrate 127.0.0.1 $tport "" 99 5000 KEYS nosuch e]
            assert_equal 5 [r get e]
        }

        test "MIGRATE invalidates WATCH and notifies del, as DEL would" {
            r -1 flushall
            r set w v
            set c [valkey_client]
            $c watch w
            set sub [valkey_client]
            $sub deferred 1
            r config set notify-keyspace-events Eg
            $sub psubscribe __keyevent@*__:del
            $sub read
            assert_equal OK [r migrate 127.0.0.1 $tport w 0 5000]
            $c multi
            $c ping
            assert_equal {} [$c exec]
            assert_equal {pmessage __keyevent@*__:del __keyevent@0__:del w} [$sub read]
            r config set notify-keyspace-events ""
        }

        test "RESTORE-ASKING restores as RESTORE does and is flagged asking" {
            r set src v
            set p [r dump src]
            assert_equal OK [r restore-asking ra 0 $p]
            assert_equal v [r get ra]
            assert_equal "-BUSYKEY Target key name already exists." [mig_reply r restore-asking ra 0 $p]
            assert_equal OK [r restore-asking ra 100000 $p REPLACE]
            assert_range [r pttl ra] 90000 100000
            set info [lindex [r command info restore-asking] 0]
            assert_equal {restore-asking -4 {write denyoom asking} 1 1 1} [lrange $info 0 5]
        }
    }
}

start_server {tags {migrate} overrides {requirepass secret}} {
    set tport [srv port]
    start_server {} {
        test "MIGRATE with a password the target rejects keeps the keys" {
            r -1 auth secret
            r mset a 1 b 2 c 3
            assert_equal "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." \
                [mig_reply r migrate 127.0.0.1 $tport c 0 5000 AUTH wrong]
            assert_equal "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." \
                [mig_reply r migrate 127.0.0.1 $tport "" 0 5000 AUTH2 nobody secret KEYS c]
            assert_equal "-ERR Target instance replied with error: NOAUTH Authentication required." \
                [mig_reply r migrate 127.0.0.1 $tport c 0 5000]
            assert_equal 3 [r get c]
            assert_equal 0 [r -1 exists c]
        }

        test "MIGRATE AUTH and AUTH2 to a target with requirepass" {
            assert_equal OK [r migrate 127.0.0.1 $tport a 0 5000 AUTH secret]
            assert_equal OK [r migrate 127.0.0.1 $tport b 0 5000 AUTH2 default secret]
            assert_equal {1 2} [r -1 mget a b]
            assert_equal {c} [r keys *]
            # As on Valkey: the cached link stays authenticated after a failed AUTH, so the
            # target takes the key while the source, seeing the AUTH error, keeps it too.
            assert_equal "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." \
                [mig_reply r migrate 127.0.0.1 $tport c 0 5000 AUTH wrong]
            assert_equal 3 [r get c]
            assert_equal 3 [r -1 get c]
        }
    }
}

start_server {tags {migrate}} {
    set tport [srv port]
    set tpid [srv pid]
    start_server {} {
        test "MIGRATE to a closed port: an I/O error, the key stays" {
            r set k v
            set closed [::srv::find_free_port]
            # As on Valkey 8: a refused connection shows at the first write.
            assert_equal "-IOERR error or timeout writing to target instance" \
                [mig_reply r migrate 127.0.0.1 $closed k 0 1000]
            assert_equal "-IOERR error or timeout connecting to the client" \
                [mig_reply r migrate nonexistent.invalid 6379 k 0 1000]
            assert_equal v [r get k]
            assert_equal 0 [s migrate_cached_sockets]
        }

        test "MIGRATE to a stopped target times out and the node keeps serving" {
            r -1 flushall
            r set k v
            exec kill -STOP $tpid
            try {
                set t0 [clock milliseconds]
                set got [mig_reply r migrate 127.0.0.1 $tport k 0 300]
                set elapsed [expr {[clock milliseconds] - $t0}]
                assert_equal "-IOERR error or timeout reading to target instance" $got
                assert_range $elapsed 250 3000
                assert_equal PONG [r ping]
                assert_equal v [r get k]
                assert_equal 0 [s migrate_cached_sockets]
            } finally {
                exec kill -CONT $tpid
            }
            # The stopped target ran the RESTORE once resumed: the key is there twice now.
            wait_for_condition 100 20 {[r -1 exists k] == 1}
            assert_equal OK [r migrate 127.0.0.1 $tport k 0 5000 REPLACE]
            assert_equal 0 [r exists k]
        }

        foreach mode {garbage long close} {
            test "MIGRATE to a hostile target ($mode) gives an I/O error and keeps the key" {
                if {$mode ne "close" && [mig_on_valkey]} {
                    skip_deliberate "Valkey 8.0.1 takes any line not starting with '-' for success"
                }
                set h [mig_hostile_start $mode]
                set cached [s migrate_cached_sockets]
                try {
                    r set k v
                    set t0 [clock milliseconds]
                    assert_equal "-IOERR error or timeout reading to target instance" \
                        [mig_reply r migrate 127.0.0.1 [lindex $h 1] k 0 2000]
                    assert_lessthan [expr {[clock milliseconds] - $t0}] 1900
                    assert_equal v [r get k]
                    assert_equal PONG [r ping]
                    assert_equal $cached [s migrate_cached_sockets]
                } finally {
                    mig_hostile_stop $h
                }
            }
        }
    }
}

start_server {tags {migrate}} {
    set tport [srv port]
    start_server {} {
        test "migrate_cached_sockets counts the cached connection until 10 s idle" {
            assert_equal 0 [s migrate_cached_sockets]
            r set k v
            assert_equal OK [r migrate 127.0.0.1 $tport k 0 5000]
            assert_equal 1 [s migrate_cached_sockets]
            r set k2 v
            assert_equal OK [r migrate 127.0.0.1 $tport k2 0 5000]
            assert_equal 1 [s migrate_cached_sockets]
            # One connection to the target served both (besides the test's own client).
            assert_equal 2 [info_field [r -1 info clients] connected_clients]
            set since [clock milliseconds]
            wait_for_condition 150 100 {[s migrate_cached_sockets] == 0}
            assert_morethan [expr {[clock milliseconds] - $since}] 9000
            wait_for_condition 100 20 {[info_field [r -1 info clients] connected_clients] == 1}
        }
    }
}

start_server {tags {migrate}} {
    set tport [srv port]
    start_server {} {
        set sport [srv port]
        start_server {} {
            test "Replicas see a DEL of exactly the keys the target took" {
                r replicaof 127.0.0.1 $sport
                wait_for_condition 200 50 {[s master_link_status] eq "up"}
                r -1 mset a 1 b 2 c 3 d 4
                r -2 set b taken
                assert_equal "-ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                    [mig_reply r -1 migrate 127.0.0.1 $tport "" 0 5000 KEYS a b c]
                assert_equal OK [r -1 migrate 127.0.0.1 $tport "" 0 5000 COPY KEYS d]
                r -1 set marker 1
                wait_for_condition 200 20 {[r exists marker]}
                assert_equal {b d marker} [lsort [r keys *]]
                assert_equal {b d marker} [lsort [r -1 keys *]]
            }
        }
    }
}

start_server {tags {migrate}} {
    set tport [srv port]
    start_server {overrides {cluster-enabled yes}} {
        test "In cluster mode MIGRATE sends RESTORE-ASKING" {
            r cluster addslotsrange 0 16383
            wait_for_condition 200 50 {[info_field [r cluster info] cluster_state] eq "ok"}
            r set "{x}1" v
            r set "{x}2" w
            assert_equal OK [r migrate 127.0.0.1 $tport "" 0 5000 KEYS "{x}1" "{x}2"]
            assert_equal 2 [mig_commandstat -1 restore-asking calls]
            assert_equal 0 [mig_commandstat -1 restore calls]
            assert_equal {v w} [r -1 mget "{x}1" "{x}2"]
        }
    }
}

# Debian's redis-server 7.0 as the target (installed by `make test`; missing, this fails).
if {![file executable $::mig_redis_bin]} {
    test "MIGRATE to redis-server 7.0" { require_peer $::mig_redis_bin redis-server } {migrate}
    return
}
set ::mig_tested_server $::cfg(server)
set ::cfg(server) $::mig_redis_bin
try {
    start_server {tags {migrate}} {
        set ::cfg(server) $::mig_tested_server
        set tport [srv port]
        start_server {} {
            test "MIGRATE to redis-server 7.0 moves every type, TTLs and BUSYKEY errors" {
                if {[mig_on_valkey]} {
                    skip_deliberate "Valkey 8.0.1 sends RDB 11 payloads, which Redis 7.0 refuses"
                }
                mig_check_types 0 -1 $tport
                r set t v PX 100000
                assert_equal OK [r migrate 127.0.0.1 $tport t 3 5000]
                set c [valkey_client -1]
                $c select 3
                assert_range [$c pttl t] 90000 100000
                r set s:int 1
                assert_equal "-ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                    [mig_reply r migrate 127.0.0.1 $tport s:int 0 5000]
                assert_equal OK [r migrate 127.0.0.1 $tport s:int 0 5000 REPLACE]
                assert_equal 1 [r -1 get s:int]
            }
        }
    }
} finally {
    set ::cfg(server) $::mig_tested_server
}
