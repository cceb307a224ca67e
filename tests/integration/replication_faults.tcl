# Replication faults on the replica side: a corrupt or truncated snapshot from the primary is
# rejected whole (the old data stays served, the replica retries), garbage on the link after the
# sync is dropped with a log line, a primary killed with SIGKILL in the middle of a full sync
# leaves the replica retrying; plus the legacy SYNC / no-EOF-capability forms of full sync.
#
# The misbehaving primaries are a small Tcl program (written below, run as its own process so
# that it serves while the test waits): it answers the handshake (+PONG, +OK ...), then sends
# what its mode says after +FULLRESYNC, and logs each connection and command to a file.

set ::rf_fake_src {
    lassign $argv port mode payload_file logfile
    set lf [open $logfile a]
    fconfigure $lf -buffering line
    proc log {s} { puts $::lf $s }
    set f [open $payload_file rb]
    set ::payload [read $f]
    close $f
    set ::nconn 0
    set ::replid [string repeat 5a 20]

    proc accept {fd addr p} {
        incr ::nconn
        log "conn $::nconn"
        fconfigure $fd -translation binary -blocking 0 -buffering none
        set ::buf($fd) ""
        set ::conn($fd) $::nconn
        fileevent $fd readable [list onread $fd]
    }
    proc drop {fd} {
        catch {fileevent $fd readable {}}
        catch {close $fd}
        unset -nocomplain ::buf($fd) ::conn($fd)
    }
    proc onread {fd} {
        if {[catch {read $fd} data]} { log "closed-by-peer"; drop $fd; return }
        if {$data eq "" && [eof $fd]} { log "closed-by-peer"; drop $fd; return }
        append ::buf($fd) $data
        while {[info exists ::buf($fd)] && [set cmd [parse $fd]] ne {}} { handle $fd $cmd }
    }
    # One RESP multibulk command off the buffer, or {} when incomplete.
    proc parse {fd} {
        set b $::buf($fd)
        if {[string index $b 0] ne "*"} {
            set nl [string first "\r\n" $b]
            if {$nl < 0} { return {} }
            set ::buf($fd) [string range $b [expr {$nl + 2}] end]
            return [list inline [string range $b 0 [expr {$nl - 1}]]]
        }
        set nl [string first "\r\n" $b]
        if {$nl < 0} { return {} }
        set n [string range $b 1 [expr {$nl - 1}]]
        set pos [expr {$nl + 2}]
        set args {}
        for {set i 0} {$i < $n} {incr i} {
            set nl [string first "\r\n" $b $pos]
            if {$nl < 0} { return {} }
            set len [string range $b [expr {$pos + 1}] [expr {$nl - 1}]]
            set start [expr {$nl + 2}]
            if {[string length $b] < $start + $len + 2} { return {} }
            lappend args [string range $b $start [expr {$start + $len - 1}]]
            set pos [expr {$start + $len + 2}]
        }
        set ::buf($fd) [string range $b $pos end]
        return $args
    }
    proc send {fd bytes} {
        fconfigure $fd -blocking 1
        catch {puts -nonewline $fd $bytes; flush $fd}
        catch {fconfigure $fd -blocking 0}
    }
    proc handle {fd cmd} {
        set name [string tolower [lindex $cmd 0]]
        if {$name eq "replconf" && [string tolower [lindex $cmd 1]] eq "ack"} {
            log "ack [lindex $cmd 2]"
            return
        }
        log "cmd $cmd"
        # a keepalive newline ahead of every handshake reply, in a write of its own
        if {[string match newlines* $::mode]} { send $fd "\n"; after 20 }
        switch -- $name {
            ping { send $fd "+PONG\r\n" }
            auth - replconf { send $fd "+OK\r\n" }
            psync - sync { fullsync $fd }
            default { send $fd "-ERR fake primary\r\n" }
        }
    }
    proc fullsync {fd} {
        set n $::conn($fd)
        if {[string match newlines* $::mode]} {
            # as a primary waiting out repl-diskless-sync-delay: a newline a second (here
            # faster), one in the same write as the reply
            send $fd "\n"; after 50; send $fd "\n"; after 50
            send $fd "\n+FULLRESYNC $::replid 0\r\n"
        } else {
            send $fd "+FULLRESYNC $::replid 0\r\n"
        }
        set p $::payload
        set len [string length $p]
        switch -- $::mode {
            newlines - newlines_eof {
                # as a primary making a disk snapshot: newlines until the "$" line
                send $fd "\n"; after 50; send $fd "\n"; after 50
                if {$::mode eq "newlines"} {
                    send $fd "\n\$$len\r\n$p"
                } else {
                    set mark [string repeat 0123456789 4]
                    send $fd "\n\$EOF:$mark\r\n$p$mark"
                }
                send $fd "*3\r\n\$3\r\nSET\r\n\$6\r\nfake:$n\r\n\$2\r\nok\r\n"
            }
            corrupt {
                send $fd "\$10\r\nREDIS0010x"
            }
            corrupt_crc {
                # a whole snapshot with one byte of its body changed: the checksum fails
                set i [expr {$len / 2}]
                set c [expr {([scan [string index $p $i] %c] + 1) % 256}]
                send $fd "\$$len\r\n[string replace $p $i $i [format %c $c]]"
            }
            truncated {
                send $fd "\$$len\r\n[string range $p 0 [expr {$len / 2}]]"
                after 100
                drop $fd
            }
            truncated_eof {
                set mark [string repeat 0123456789 4]
                send $fd "\$EOF:$mark\r\n[string range $p 0 [expr {$len / 2}]]"
                after 100
                drop $fd
            }
            bad_then_hold {
                # a valid header, then a record type that does not exist; the rest never comes
                send $fd "\$$len\r\n[string range $p 0 8]\x08[string repeat x 100]"
            }
            hold {
                # nothing after +FULLRESYNC: the snapshot's "$" line has not come yet
            }
            partial {
                # the start of a real snapshot: the replica parses what arrives and waits
                send $fd "\$1000\r\n[string range $p 0 299]"
            }
            partial_eof {
                send $fd "\$EOF:[string repeat 0123456789 4]\r\n[string range $p 0 99]"
            }
            garbage {
                send $fd "\$$len\r\n$p"
                send $fd "*3\r\n\$3\r\nSET\r\n\$6\r\nfake:$n\r\n\$2\r\nok\r\n"
                if {$n == 1} {
                    # not RESP: the replica must drop the link, not apply it
                    send $fd "*2\r\n\$3\r\nDEL\r\nxyz\r\n\$\x00\x01\x02garbage\r\n"
                }
            }
        }
    }
    socket -server accept -myaddr 127.0.0.1 $port
    log "listening"
    vwait forever
}

# Starts the fake primary on a free port; returns {pid port logfile}.
proc rf_fake_start {mode payload_file} {
    set dir [::srv::make_dir]
    set script [file join $dir fake_primary.tcl]
    set f [open $script w]
    puts $f $::rf_fake_src
    close $f
    set port [::srv::find_free_port]
    set logf [file join $dir fake.log]
    set pid [exec [info nameofexecutable] $script $port $mode $payload_file $logf &]
    for {set i 0} {$i < 200} {incr i} {
        if {[file exists $logf] && [string match *listening* [::srv::file_tail $logf]]} break
        after 20
    }
    return [list $pid $port $logf $dir]
}

proc rf_fake_stop {fake} {
    lassign $fake pid port logf dir
    catch {exec kill -TERM $pid}
    catch {exec kill -KILL $pid}
    file delete -force $dir
}

proc rf_fake_log {fake} { return [::srv::file_tail [lindex $fake 2] 1000] }
proc rf_fake_conns {fake} { return [regexp -all -line {^conn } [rf_fake_log $fake]] }

# The replica's old data, kept while syncs fail.
proc rf_seed_old_data {} {
    r flushall
    r set old:str keep
    r rpush old:list a b c
    r hset old:hash f v
    return [r debug digest]
}

# Reads one CRLF-terminated line from a raw socket within timeout_ms ({} on timeout).
proc rf_read_line {fd {timeout_ms 3000}} {
    fconfigure $fd -blocking 0
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    set line {}
    while {[clock milliseconds] < $deadline} {
        set ch [read $fd 1]
        if {$ch eq ""} {
            if {[eof $fd]} break
            after 5
            continue
        }
        append line $ch
        if {[string range $line end-1 end] eq "\r\n"} {
            return [string range $line 0 end-2]
        }
    }
    return $line
}

# ---------------------------------------------------------------- a snapshot to replay

set ::rf_snapshot_file {}
start_server {tags {repl faults}} {
    r set snap:str hello
    r rpush snap:list x y z
    r sadd snap:set 1 2 3
    r zadd snap:zset 1 a 2 b
    r hset snap:hash f v
    # Uncompressed, so that the file is longer than the 300 bytes the partial modes send.
    r set snap:long [string repeat "abcdefghij" 60]
    r config set rdbcompression no
    r save
    set f [open [file join [srv dir] dump.rdb] rb]
    set snap [read $f]
    close $f
    set ::rf_snapshot_file [file join [::srv::make_dir] snapshot.rdb]
    set f [open $::rf_snapshot_file wb]
    puts -nonewline $f $snap
    close $f
}

# ---------------------------------------------------------------- faults on the snapshot

start_server {tags {repl faults} overrides {replica-serve-stale-data yes}} {
    foreach {mode what} {
        corrupt       "a corrupt snapshot (\$10 REDIS0010x)"
        corrupt_crc   "a snapshot with a bad checksum"
        truncated     "a snapshot truncated, then the link closed"
        truncated_eof "an EOF-marked snapshot truncated, then the link closed"
        bad_then_hold "a snapshot malformed in its first bytes, its rest never sent"
    } {
        test "Replica receiving $what: sync aborted, old data served, retries" {
            set digest [rf_seed_old_data]
            set fake [rf_fake_start $mode $::rf_snapshot_file]
            try {
                r replicaof 127.0.0.1 [lindex $fake 1]
                # two attempts at least: the first failed and the replica retried
                wait_for_condition 200 50 {[rf_fake_conns $fake] >= 2} else {
                    ::testutil::fail "no retry; fake primary saw:\n[rf_fake_log $fake]\nreplica log:\n[::srv::file_tail [srv log] 15]"
                }
                assert_match "*cmd PSYNC*" [rf_fake_log $fake]
                assert {[server_alive]} "replica died"
                assert_equal down [status r master_link_status]
                assert_equal $digest [r debug digest] "old data changed"
                assert_equal keep [r get old:str]
                assert_equal {a b c} [r lrange old:list 0 -1]
                assert_equal 0 [r exists snap:str]
                assert_equal slave [lindex [r role] 0]
            } finally {
                catch {r replicaof no one}
                rf_fake_stop $fake
            }
            assert_equal keep [r get old:str]
        }
    }

    foreach mode {newlines newlines_eof} {
        test "Replica of a primary that sends keepalive newlines at every step ($mode)" {
            rf_seed_old_data
            set fake [rf_fake_start $mode $::rf_snapshot_file]
            try {
                r replicaof 127.0.0.1 [lindex $fake 1]
                wait_for_condition 200 50 {[r exists fake:1]} else {
                    ::testutil::fail "fake primary saw:\n[rf_fake_log $fake]\nreplica log:\n[::srv::file_tail [srv log] 15]"
                }
                assert_equal up [status r master_link_status]
                assert_equal ok [r get fake:1]
                assert_equal hello [r get snap:str]
                assert_equal 0 [r exists old:str]
                assert_equal 1 [rf_fake_conns $fake] "one connection: no handshake was dropped"
                assert_equal 0 [string match "*Unexpected reply*" [::srv::file_tail [srv log] 100000]]
            } finally {
                catch {r replicaof no one}
                rf_fake_stop $fake
            }
        }
    }

    test "A primary that refuses connections is retried once a second, not at every tick" {
        # A port nothing listens on (taken and released at once).
        set l [socket -server {apply {{fd args} {close $fd}}} -myaddr 127.0.0.1 0]
        set port [lindex [fconfigure $l -sockname] 2]
        close $l
        set log [srv log]
        set before [llength [regexp -all -inline {sync started} [::srv::file_tail $log 100000]]]
        r replicaof 127.0.0.1 $port
        after 3500
        set attempts [expr {[llength [regexp -all -inline {sync started} [::srv::file_tail $log 100000]]] - $before}]
        r replicaof no one
        # The first at once, then one a second (as Valkey 8): 4 in 3.5 s, give or take a tick.
        # Retrying at every 100 ms tick made 35, with a warning line each.
        assert_range $attempts 3 5
    }

    test "Garbage on the link after a good sync: link dropped with a log line, node keeps running" {
        rf_seed_old_data
        set fake [rf_fake_start garbage $::rf_snapshot_file]
        try {
            r replicaof 127.0.0.1 [lindex $fake 1]
            # first connection: snapshot, SET fake:1, garbage -> dropped; the second one
            # resyncs cleanly (SET fake:2) and stays up.
            wait_for_condition 200 50 {[rf_fake_conns $fake] >= 2 && [r exists fake:2]} else {
                ::testutil::fail "fake primary saw:\n[rf_fake_log $fake]\nreplica log:\n[::srv::file_tail [srv log] 15]"
            }
            assert {[server_alive]}
            assert_equal hello [r get snap:str]
            assert_equal {x y z} [r lrange snap:list 0 -1]
            assert_equal 0 [r exists old:str] "the good snapshot replaced the old data"
            assert_equal ok [r get fake:2]
            wait_for_condition 100 50 {[status r master_link_status] eq "up"}
            assert_equal 0 [r exists xyz]
            # the log says why the link was dropped
            set logged [string match "*Protocol error*" [::srv::file_tail [srv log] 100000]]
            assert_equal 1 $logged "no log line (at the default loglevel) names the protocol\
                error from the primary; last lines:\n[::srv::file_tail [srv log] 4]"
        } finally {
            catch {r replicaof no one}
            rf_fake_stop $fake
        }
    }
}

# ---------------------------------------------------------------- primary killed mid-sync

start_server {tags {repl faults} overrides {replica-serve-stale-data yes}} {
    start_server {overrides {repl-diskless-sync-delay 0 repl-diskless-sync yes}} {
        # replica = -1, primary = 0
        test "Primary killed with SIGKILL during a full sync: replica keeps old data and retries" {
            r -1 flushall
            r -1 set old:str keep
            set old_digest [r -1 debug digest]
            # 200k keys of 200 incompressible bytes: a snapshot of ~45 MB, more than the
            # socket buffers hold while the replica is stopped
            set c [valkey_client]
            $c deferred 1
            set pool [randstring 8192 alnum]
            for {set i 0} {$i < 2000} {incr i} {
                set args {}
                for {set j 0} {$j < 100} {incr j} {
                    set off [expr {($i * 100 + $j) * 37 % 7900}]
                    lappend args big:[expr {$i * 100 + $j}] [string range $pool $off [expr {$off + 199}]]
                }
                $c mset {*}$args
            }
            for {set i 0} {$i < 2000} {incr i} { $c read }
            assert_equal 200000 [r dbsize]
            set rpid [srv -1 pid]
            r -1 replicaof 127.0.0.1 [srv 0 port]
            wait_for_log "*Starting BGSAVE for SYNC*" 500 10 0
            # hold the replica so the transfer cannot finish, then kill the primary
            exec kill -STOP $rpid
            after 300
            kill_server 0
            exec kill -CONT $rpid
            assert {[server_alive -1]} "replica died"
            wait_for_condition 100 50 {[info_field [r -1 info replication] master_link_status] eq "down" &&
                [info_field [r -1 info replication] master_sync_in_progress] == 0}
            set log [::srv::file_tail [srv -1 log] 200]
            assert_no_match "*Finished with success*" $log
            assert_equal $old_digest [r -1 debug digest] "old data changed by a half sync"
            assert_equal keep [r -1 get old:str]
            # it keeps trying to reach the primary
            set re {REPLICA sync started|Unable to connect to PRIMARY|Error condition on socket for SYNC}
            set n [regexp -all $re [::srv::file_tail [srv -1 log] 100000]]
            wait_for_condition 100 50 {
                [regexp -all $re [::srv::file_tail [srv -1 log] 100000]] > $n + 1
            }
            assert {[server_alive -1]}
        }

        test "The restarted primary is picked up by the retrying replica" {
            restart_server
            r set back 1
            wait_for_condition 200 50 {[info_field [r -1 info replication] master_link_status] eq "up"}
            wait_for_condition 100 50 {[r -1 debug digest] eq [r debug digest]}
            assert_equal 1 [r -1 get back]
            assert_equal 0 [r -1 exists old:str]
        }
    }
}

# ---------------------------------------------------------------- repl-timeout on both sides

start_server {tags {repl faults} overrides {repl-diskless-sync-delay 0 repl-timeout 2 repl-ping-replica-period 1}} {
    start_server {overrides {repl-timeout 2}} {
        # primary = -1, replica = 0
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 200 50 {[status r master_link_status] eq "up"}

        test "A stopped primary: the replica drops the link after repl-timeout, resumes partially" {
            r -1 set before 1
            wait_for_condition 100 50 {[r get before] eq 1}
            set pok [info_field [r -1 info stats] sync_partial_ok]
            set full [info_field [r -1 info stats] sync_full]
            set ppid [srv -1 pid]
            exec kill -STOP $ppid
            try {
                wait_for_condition 100 100 {[status r master_link_status] eq "down"}
            } finally {
                exec kill -CONT $ppid
            }
            wait_for_condition 200 50 {[status r master_link_status] eq "up"}
            assert_match "*PRIMARY timeout: no data nor PING received...*" [::srv::file_tail [srv log] 50]
            r -1 set after 1
            wait_for_condition 100 50 {[r get after] eq 1}
            assert_equal [expr {$pok + 1}] [info_field [r -1 info stats] sync_partial_ok]
            assert_equal $full [info_field [r -1 info stats] sync_full]
        }

        test "A stopped replica: the primary drops it after repl-timeout" {
            assert_equal 1 [info_field [r -1 info replication] connected_slaves]
            set rpid [srv 0 pid]
            exec kill -STOP $rpid
            try {
                wait_for_condition 60 100 {
                    [info_field [r -1 info replication] connected_slaves] == 0
                } else {
                    ::testutil::fail "replica still listed after 6 s (repl-timeout 2): [info_field [r -1 info replication] slave0]"
                }
            } finally {
                exec kill -CONT $rpid
            }
            wait_for_condition 200 50 {[status r master_link_status] eq "up"}
        }
    }
}

# The replica's repl-timeout in the handshake (a primary that accepts and never answers) and
# in a transfer (a fake primary that stops after +FULLRESYNC): Valkey 8's log line for each.
start_server {tags {repl faults} overrides {repl-timeout 2}} {
    test "repl-timeout in the handshake and in a transfer: Valkey 8's log lines, then a retry" {
        set l [socket -server {apply {{fd args} {}}} -myaddr 127.0.0.1 0]
        set port [lindex [fconfigure $l -sockname] 2]
        try {
            r replicaof 127.0.0.1 $port
            wait_for_condition 100 100 {
                [string match "*Timeout connecting to the PRIMARY...*" [::srv::file_tail [srv log] 50]]
            } else { ::testutil::fail "no handshake timeout:\n[::srv::file_tail [srv log] 10]" }
        } finally {
            r replicaof no one
            close $l
        }
        set fake [rf_fake_start hold $::rf_snapshot_file]
        try {
            r replicaof 127.0.0.1 [lindex $fake 1]
            wait_for_condition 100 100 {[rf_fake_conns $fake] >= 2} else {
                ::testutil::fail "no retry; fake primary saw:\n[rf_fake_log $fake]"
            }
            assert_match "*Timeout receiving bulk data from PRIMARY... If the problem persists try to set the 'repl-timeout' parameter in valkey.conf to a larger value.*" [::srv::file_tail [srv log] 50]
        } finally {
            catch {r replicaof no one}
            rf_fake_stop $fake
        }
    }
}

# ---------------------------------------------------------------- INFO during a transfer

# INFO replication of a replica in the middle of a full sync, from a fake primary that stops
# at a known point: the master_sync_* fields Valkey 8 prints while the transfer runs, with
# its values (total -1 before the "$" line, 0 for the EOF-marked form, perc by its formula).
start_server {tags {repl faults}} {
    foreach {mode total read perc} {
        hold        -1   0   -0.00
        partial     1000 300 30.00
        partial_eof 0    100 0.00
    } {
        test "INFO replication while a full sync is received ($mode): master_sync_* fields" {
            set fake [rf_fake_start $mode $::rf_snapshot_file]
            try {
                r replicaof 127.0.0.1 [lindex $fake 1]
                wait_for_condition 200 10 {
                    [status r master_sync_in_progress] == 1 &&
                    [status r master_sync_read_bytes] == $read
                } else {
                    ::testutil::fail "no transfer state; fake primary saw:\n[rf_fake_log $fake]"
                }
                set ri [r info replication]
                assert_equal $total [info_field $ri master_sync_total_bytes]
                assert_equal $read [info_field $ri master_sync_read_bytes]
                assert_equal [expr {$total - $read}] [info_field $ri master_sync_left_bytes]
                assert_equal $perc [info_field $ri master_sync_perc]
                assert_range [info_field $ri master_sync_last_io_seconds_ago] 0 1
                # Valkey 8's order: after the offsets and the (dual channel) buffer fields,
                # before master_link_down_since_seconds.
                set names {}
                foreach l [split $ri \r\n] {
                    if {[regexp {^([a-z_]+):} $l -> n]} { lappend names $n }
                }
                set from [lsearch $names master_sync_in_progress]
                set valkey8 {master_sync_in_progress slave_read_repl_offset slave_repl_offset
                    replicas_repl_buffer_size replicas_repl_buffer_peak master_sync_total_bytes
                    master_sync_read_bytes master_sync_left_bytes master_sync_perc
                    master_sync_last_io_seconds_ago master_link_down_since_seconds
                    slave_priority}
                assert_equal [join $valkey8 " "] [join [lrange $names $from $from+11] " "]
            } finally {
                catch {r replicaof no one}
                rf_fake_stop $fake
            }
            set ri [r info replication]
            assert_equal {} [info_field $ri master_sync_total_bytes]
            assert_equal {} [info_field $ri master_sync_in_progress]
        }
    }
}

# ---------------------------------------------------------------- legacy full-sync forms

start_server {tags {repl faults} overrides {repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    r set legacy 1
    test "SYNC (no PSYNC) gets the snapshot without a +FULLRESYNC line" {
        set fd [valkey_raw]
        puts -nonewline $fd "*3\r\n\$8\r\nREPLCONF\r\n\$4\r\ncapa\r\n\$3\r\neof\r\n"
        flush $fd
        assert_equal +OK [rf_read_line $fd]
        puts -nonewline $fd "*1\r\n\$4\r\nSYNC\r\n"
        flush $fd
        set line [rf_read_line $fd]
        while {$line eq "\n" || $line eq ""} { set line [string trimleft [rf_read_line $fd] \n] }
        close $fd
        assert_match {$*} $line "first line after SYNC"
    }

    test "A replica without capa eof gets a \$<length> snapshot even with repl-diskless-sync yes" {
        set fd [valkey_raw]
        puts -nonewline $fd "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
        flush $fd
        assert_match "+FULLRESYNC *" [rf_read_line $fd]
        set line [string trimleft [rf_read_line $fd 5000] \n]
        close $fd
        assert_match {$[0-9]*} $line "snapshot preamble"
        assert_no_match {$EOF:*} $line
    }
}

# ---------------------------------------------------------------- a replica link misused

# After SYNC/PSYNC the link carries our stream one way: a command sent over it that replies
# would put the reply inside the stream (a replica speaking the protocol sends REPLCONF ACK
# only), so the replica is dropped, and it may not touch the keyspace (a replica is exempt
# from CLIENT PAUSE). Valkey 8's replies and log lines; its tests pass on ours.
proc rf_log_count {pattern} {
    set n 0
    foreach line [split [::srv::file_tail [srv log] 100000] \n] {
        if {[string match "*$pattern*" $line]} { incr n }
    }
    return $n
}

start_server {tags {repl faults} overrides {repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    r set foo bar
    foreach {sync cmd name} {SYNC PING ping  PSYNC {SLOWLOG GET} slowlog|get  PSYNC {GET foo} get
                             PSYNC {SET foo other} set} {
        test "A replica link that sends $cmd after $sync is dropped, its reply never sent" {
            set synced [rf_log_count "Synchronization with replica * succeeded"]
            set fd [valkey_raw]
            puts -nonewline $fd [expr {$sync eq "SYNC" ? "SYNC\r\n" : "PSYNC ? -1\r\n"}]
            flush $fd
            wait_for_condition 100 20 {[rf_log_count "Synchronization with replica * succeeded"] > $synced}
            read_for $fd 100   ;# the snapshot
            puts -nonewline $fd "$cmd\r\n"
            flush $fd
            assert [closed_by_peer $fd 3000] "the replica is disconnected"
            close $fd
            wait_for_log "*Replica generated a reply to command '$name', disconnecting it: id=*"
            if {$name in {get set}} {
                wait_for_log "*== CRITICAL == This primary is sending an error to its replica: 'Replica can't interact with the keyspace' after processing the command '$name'*"
            }
            assert_equal bar [r get foo]
            assert_equal PONG [r ping]
            wait_for_condition 100 20 {[s connected_slaves] == 0}
        }
    }

    test "PSYNC with an offset that is not a number: an error, and no replica" {
        set full [s sync_full]
        set fd [valkey_raw]
        puts -nonewline $fd "PSYNC replid offset_str\r\nPING\r\n"
        flush $fd
        assert_equal "-ERR value is not an integer or out of range" [rf_read_line $fd]
        assert_equal "+PONG" [rf_read_line $fd]
        close $fd
        wait_for_log "*Replica * asks for synchronization but with a wrong offset*"
        assert_equal 0 [s connected_slaves]
        assert_equal $full [s sync_full]
    }

    test "SYNC or PSYNC behind a reply not yet sent is refused" {
        set fd [valkey_raw]
        puts -nonewline $fd "PING\r\nPSYNC ? -1\r\n"
        flush $fd
        assert_equal "+PONG" [rf_read_line $fd]
        assert_equal "-ERR SYNC and PSYNC are invalid with pending output" [rf_read_line $fd]
        close $fd
        assert_equal 0 [s connected_slaves]
    }
}

# A diskless transfer ends when the child's last bytes have been read from its pipe and sent,
# whether the child was reaped before that or after. Reaped first (its exit and the pipe's end
# seen in one loop pass), the end came only with the next write to that replica: the
# replication PING, here once an hour. Ten transfers of a few MB, each read as fast as it comes.
start_server {tags {repl faults} overrides {repl-diskless-sync yes repl-diskless-sync-delay 0
                                           repl-ping-replica-period 3600}} {
    test "A diskless transfer ends with its last bytes, whenever the child is reaped" {
        r debug populate 50000 fast 64
        for {set i 0} {$i < 10} {incr i} {
            set fd [valkey_raw]
            puts -nonewline $fd "*3\r\n\$8\r\nREPLCONF\r\n\$4\r\ncapa\r\n\$3\r\neof\r\n"
            flush $fd
            assert_equal +OK [rf_read_line $fd]
            puts -nonewline $fd "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
            flush $fd
            assert_match "+FULLRESYNC *" [rf_read_line $fd]
            set line [string trimleft [rf_read_line $fd 5000] \n]
            assert_match {$EOF:*} $line
            set mark [string range $line 5 end]
            set tail {}
            set got 0
            set deadline [expr {[clock milliseconds] + 30000}]
            while {$tail ne $mark} {
                if {[clock milliseconds] > $deadline} { fail "transfer $i: no end mark after $got bytes" }
                set chunk [read $fd 1048576]
                if {$chunk eq ""} {
                    if {[eof $fd]} { fail "transfer $i: link closed after $got bytes" }
                    after 1
                    continue
                }
                incr got [string length $chunk]
                set tail [string range "$tail$chunk" end-39 end]
            }
            assert_morethan $got 1000000
            wait_for_condition 100 50 {
                [string match "*slave0:*state=online*" [r info replication]]
            } else {
                fail "transfer $i: the replica never went online: [r info replication]"
            }
            close $fd
            wait_for_condition 100 10 {[s connected_slaves] == 0} else { fail "replica not gone" }
        }
    }
}

if {$::rf_snapshot_file ne {}} { file delete -force [file dirname $::rf_snapshot_file] }
