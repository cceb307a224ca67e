# The primary's side of a diskless full sync (repl-diskless-sync yes): a forked child writes the
# snapshot into a pipe and the node passes it on to every replica of the transfer at once.
# - The snapshot is written as configured (rdbcompression, rdbchecksum, the LFU counters), as
#   a file would be.
# - A replica that stops reading would hold the child, and so every other replica, for good:
#   after repl-timeout without taking a byte it is dropped ("Disconnecting timedout replica
#   (full sync)"), as Valkey 8 drops it, and the others complete.
# - The child is killed once no replica reads it ("last replica dropped, killing fork child"),
#   by FLUSHALL (the replicas sync again, with the flushed data), and a child killed by anyone
#   is collected; a disk snapshot made for replicas alone goes too once none waits for it.
# - After an EOF-marked payload (diskless, or a disk snapshot sent as it is written) the
#   stream waits for the replica's first REPLCONF ACK, so no stream byte follows the mark in
#   the replica's read (Redis 7.0 then missed the mark and waited for repl-timeout).
# Valkey 8's log lines throughout, as its tests and operators' log watchers look for them.
# Checked by hand on Valkey 8.0.1: the same lines and outcomes.

# A replica made of a socket: asks for a full sync and reads only when the test says.
proc dl_fake_replica {{eof 1} {level 0}} {
    set fd [valkey_raw $level]
    if {$eof} {
        # its reply first: a primary refuses PSYNC while a reply is pending
        puts -nonewline $fd "REPLCONF capa eof capa psync2\r\n"
        flush $fd
        assert_equal "+OK" [string trim [gets $fd]]
    }
    puts -nonewline $fd "PSYNC ? -1\r\n"
    flush $fd
    return $fd
}

# The payload of an EOF-marked transfer read whole from `fd` (the preamble and mark removed).
proc dl_read_payload {fd timeout_ms} {
    set got {}
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    fconfigure $fd -blocking 0
    while {[clock milliseconds] < $deadline} {
        append got [read $fd]
        if {[regexp {\$EOF:([0-9a-f]{40})\r\n} $got all mark]} {
            set start [expr {[string first $all $got] + [string length $all]}]
            set end [string first $mark $got $start]
            if {$end >= 0} { return [string range $got $start [expr {$end - 1}]] }
        }
        after 10
    }
    fail "no whole EOF-marked payload within $timeout_ms ms ([string length $got] bytes read)"
}

proc dl_child_pid {{level 0}} {
    set pids [server_children $level]
    assert_equal 1 [llength $pids] "one forked child"
    return [lindex $pids 0]
}

proc dl_transfers_started {level} {
    return [regexp -all {Background RDB transfer started by pid} \
                [::srv::file_tail [srv $level log] 100000]]
}

# A replica finds the end of an EOF-marked payload by its last 40 bytes: stream bytes glued
# to the mark would hide it, and the replica would wait until repl-timeout (Redis 7.0 reads
# 16 KB at a time and looks at the end of each read). So the stream starts at the replica's
# first REPLCONF ACK, as Valkey 8 does; the log names the replica by its listening port.
proc dl_stream_waits_for_ack {port diskless} {
    set fd [valkey_raw]
    puts -nonewline $fd "REPLCONF listening-port $port\r\nREPLCONF capa eof capa psync2\r\n"
    flush $fd
    assert_equal "+OK" [string trim [gets $fd]]
    assert_equal "+OK" [string trim [gets $fd]]
    puts -nonewline $fd "PSYNC ? -1\r\n"
    flush $fd
    fconfigure $fd -blocking 0
    set got {}
    wait_for_condition 100 50 {
        [append got [read $fd]] ne {} &&
        [regexp {\$EOF:([0-9a-f]{40})\r\n(.*)} $got all mark payload] &&
        [set end [string first $mark $payload]] >= 0
    }
    set rest [string range $payload [expr {$end + 40}] end]
    if {$diskless} {
        wait_for_log "*Streamed RDB transfer with replica 127.0.0.1:$port succeeded (socket). Waiting for REPLCONF ACK from replica to enable streaming*"
    }
    wait_for_log "*Synchronization with replica 127.0.0.1:$port succeeded*"
    assert_equal 1 [log_contains "*Replica 127.0.0.1:$port asks for synchronization*"]
    r set held v
    after 300
    append rest [read $fd]
    assert_equal {} $rest "nothing after the mark before the ACK"
    assert_match "*,state=online,*" [s slave0]
    puts -nonewline $fd "REPLCONF ACK 0\r\n"
    flush $fd
    wait_for_condition 100 50 {[string first "\$4\r\nheld\r\n" [append rest [read $fd]]] >= 0}
    assert_match "\*2\r\n\$6\r\nSELECT\r\n*\*3\r\n\$3\r\nset\r\n\$4\r\nheld\r\n\$1\r\nv\r\n" $rest
    close $fd
    wait_for_condition 100 50 {[s connected_slaves] == 0}
    r del held
}

start_server {tags {repl} overrides {repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    test "A diskless sync's snapshot is written as configured: rdbcompression" {
        r set big [string repeat x 200000]
        set fd [dl_fake_replica]
        set packed [dl_read_payload $fd 5000]
        close $fd
        # LZF packs the run: the value is not there as it is
        assert_lessthan [string length $packed] 20000
        assert_equal -1 [string first [string repeat x 200000] $packed]
        assert_not_equal [string repeat \x00 8] [string range $packed end-7 end] "a checksum"

        r config set rdbcompression no
        set fd [dl_fake_replica]
        set plain [dl_read_payload $fd 5000]
        close $fd
        assert_morethan [string first [string repeat x 200000] $plain] 0
        r config set rdbcompression yes
        wait_for_condition 100 50 {[s connected_slaves] == 0 && [s rdb_bgsave_in_progress] == 0}
        r del big
    }

    test "After a diskless payload the stream waits for the replica's first REPLCONF ACK" {
        dl_stream_waits_for_ack 12345 1
    }

    test "After a disk snapshot sent as it is written (EOF-marked) the same" {
        r config set repl-diskless-sync no
        dl_stream_waits_for_ack 12346 0
        r config set repl-diskless-sync yes
    }

    start_server {overrides {rdbchecksum no repl-diskless-sync yes repl-diskless-sync-delay 0}} {
        test "A diskless sync's snapshot is written as configured: rdbchecksum no" {
            r set k v
            set fd [dl_fake_replica]
            set payload [dl_read_payload $fd 5000]
            close $fd
            assert_equal [string repeat \x00 8] [string range $payload end-7 end]
        }
    }

    # lfu-decay-time 0 on both: a counter decays by one each minute boundary crossed, and the
    # sync may cross one between the reads
    start_server {overrides {maxmemory-policy allkeys-lfu lfu-decay-time 0}} {
        test "A diskless sync carries the keys' LFU counters" {
            r -1 config set maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0
            r -1 set hot v
            for {set i 0} {$i < 100} {incr i} { r -1 get hot }
            set freq [r -1 object freq hot]
            assert_morethan $freq 50
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[s master_link_status] eq "up"}
            assert_equal $freq [r object freq hot]
            r replicaof no one
            r -1 config set maxmemory-policy noeviction lfu-decay-time 1
            wait_for_condition 100 50 {[s -1 connected_slaves] == 0}
        }
    }
}

start_server {tags {repl} overrides {repl-diskless-sync yes repl-diskless-sync-delay 60
                                     repl-diskless-sync-max-replicas 2 rdbcompression no}} {
    r debug populate 4000 key 10000   ;# a 40 MB snapshot: more than the sockets hold
    start_server {} {
        test "A replica that stops reading a diskless transfer is dropped after repl-timeout; the other completes" {
            r -1 config set repl-timeout 2
            set stuck [dl_fake_replica 1 -1]   ;# never read
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_log "*Disconnecting timedout replica (full sync)*" 200 50 -1
            wait_for_condition 200 50 {[s master_link_status] eq "up"}
            assert_equal 4000 [r dbsize]
            assert_equal [r -1 debug digest] [r debug digest]
            assert [log_contains "*Diskless rdb transfer, done reading from pipe, 1 replicas still up*" -1]
            assert [log_contains "*Background RDB transfer terminated with success*" -1]
            close $stuck
            r replicaof no one
            r -1 config set repl-timeout 60
            wait_for_condition 100 50 {[s -1 connected_slaves] == 0}
        }
    }

    test "The diskless child is killed once its last replica is gone" {
        r config set repl-diskless-sync-delay 0 rdb-key-save-delay 10000   ;# 40 s of snapshot
        set fd [dl_fake_replica]
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 1}
        wait_for_log "*Background RDB transfer started by pid * to pipe through parent process*"
        set child [dl_child_pid]
        assert_match "*\$EOF:*" [read_for $fd 300]
        close $fd
        wait_for_log "*Diskless rdb transfer, last replica dropped, killing fork child.*"
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0}
        wait_for_log "*Background RDB transfer terminated by signal 10*"
        assert ![file exists /proc/$child] "the child is gone"
        assert_equal ok [s rdb_last_bgsave_status]
    }

    test "A diskless child killed by a signal is collected and its replicas dropped" {
        set fd [dl_fake_replica]
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 1}
        exec kill -9 [dl_child_pid]
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0}
        wait_for_log "*Background RDB transfer terminated by signal 9*"
        wait_for_log "*SYNC failed. BGSAVE child returned an error*"
        assert [closed_by_peer $fd 2000] "the primary closed the link"
        close $fd
        wait_for_condition 100 20 {[s connected_slaves] == 0}
    }

    start_server {} {
        test "FLUSHALL kills a diskless transfer's child; the replica syncs again, with the flushed data" {
            set started [dl_transfers_started -1]
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[s -1 rdb_bgsave_in_progress] == 1}
            set first [dl_child_pid -1]
            r -1 flushall
            # a new child for the replica that asks again; this one has nothing to save
            wait_for_condition 200 50 {[s master_link_status] eq "up"}
            assert_equal 0 [r dbsize]
            assert ![file exists /proc/$first] "the first child is gone"
            assert_equal [expr {$started + 2}] [dl_transfers_started -1]
            r replicaof no one
            r -1 config set rdb-key-save-delay 0
        }
    }
}

# A disk snapshot started for replicas: with no save points, nobody keeps the file.
start_server {tags {repl} overrides {repl-diskless-sync no}} {
    for {set i 0} {$i < 10} {incr i} { r set k$i $i }
    r config set rdb-key-save-delay 1000000   ;# 10 s of snapshot
    test "A disk snapshot for replicas alone is killed once no replica waits for it" {
        set a [dl_fake_replica 0]   ;# waits for the whole file
        set b [dl_fake_replica 1]   ;# reads it while it is written
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 1 && [s connected_slaves] == 2}
        close $a
        after 300
        assert_equal 1 [s rdb_bgsave_in_progress] "b still waits"
        close $b
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0}
        wait_for_log "*Background saving terminated by signal 10*"
        assert_equal ok [s rdb_last_bgsave_status]
        assert_equal {} [glob -nocomplain -directory [srv dir] temp-*.rdb]
    }

    test "With save points the snapshot goes on when its replicas leave" {
        r config set save "900 1"
        set a [dl_fake_replica 0]
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 1 && [s connected_slaves] == 1}
        close $a
        wait_for_condition 100 20 {[s connected_slaves] == 0}
        after 300
        assert_equal 1 [s rdb_bgsave_in_progress]
        r config set save ""
        r config set rdb-key-save-delay 0
        catch {exec kill -9 [dl_child_pid]}
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0}
    }
}
