# The append-only file: what survives a restart and a kill -9, the multi-part layout and its
# manifest, BGREWRITEAOF, CONFIG SET appendonly, truncated and corrupt files, WAITAOF, and
# interop with redis-server 7.0 (an AOF directory of each loads into the other). Passes on
# Valkey 8.0.1 with --tags -beyond-valkey; the two tagged tests ask more than Valkey gives (the
# offset of a corrupt command; a directory redis-server 7.0 can read: Valkey writes RDB 11).

set ::aof_redis_bin /usr/bin/redis-server

proc aof_dir {} { return [file join [srv dir] appendonlydir] }
proc aof_manifest {} {
    set f [open [file join [aof_dir] appendonly.aof.manifest]]
    set t [read $f]
    close $f
    return $t
}
proc aof_incr_text {} {
    set f [open [lindex [glob -directory [aof_dir] *.incr.aof] 0] rb]
    set t [read $f]
    close $f
    return $t
}
proc aof_files {} { return [lsort [glob -nocomplain -tails -directory [aof_dir] *]] }
# A server started on an AOF directory holding `files` (name content ...) and a manifest with
# `manifest`, expected to refuse the start: returns {exit_code output}.
proc aof_try_start {manifest files {extra ""}} {
    set dir [::srv::make_dir]
    file mkdir [file join $dir appendonlydir]
    write_binary [file join $dir appendonlydir appendonly.aof.manifest] $manifest
    foreach {name content} $files { write_binary [file join $dir appendonlydir $name] $content }
    return [server_try_start "port [::srv::find_free_port]\ndir $dir\nappendonly yes\nsave \"\"\n$extra"]
}
set ::aof_one_incr "file appendonly.aof.1.incr.aof seq 1 type i\n"

# SIGKILL, then start again on the same directory.
proc aof_crash_restart {} {
    catch {exec kill -KILL [srv pid]}
    while {[::srv::alive [srv pid]]} { after 10 }
    restart_server
}
# Every key with its type, TTL presence and contents, per db, sorted.
proc aof_dataset {} {
    set out {}
    foreach db {0 3} {
        r select $db
        foreach k [lsort [r keys *]] {
            lappend out $db $k [r type $k] [expr {[r pttl $k] > 0}] [key_contents 0 $k]
        }
    }
    r select 0
    return $out
}
proc aof_fill {} {
    fill_every_type 0
    r set ttl:key v px 1000000
    r select 3
    r set in:db3 x
    r select 0
    r multi
    r incr tx:counter
    r rpush tx:list a b
    r exec
}

start_server {tags {aof} overrides {appendonly yes appendfsync everysec}} {
    test "appendonly yes: a base file, an incr file and the manifest that names them" {
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_files]
        assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [aof_manifest]
        assert_equal 1 [s aof_enabled]
        assert_equal ok [s aof_last_write_status]
        assert_equal 0 [s aof_rewrite_in_progress]
    }

    test "The incr file holds the writes as commands, SELECT first, transactions wrapped" {
        r set a 1
        r multi
        r set b 2
        r incr a
        r exec
        r multi
        r set c 3
        r exec
        after 50
        set incr [read_binary [file join [aof_dir] appendonly.aof.1.incr.aof]]
        set want "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n"
        append want "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n"
        append want "*2\r\n\$4\r\nincr\r\n\$1\r\na\r\n*1\r\n\$4\r\nEXEC\r\n"
        # A transaction with one write is written without MULTI/EXEC.
        append want "*3\r\n\$3\r\nset\r\n\$1\r\nc\r\n\$1\r\n3\r\n"
        assert_equal $want $incr
        assert_equal [string length $incr] [expr {[s aof_current_size] - [s aof_base_size]}]
    }

    test "A transaction in another db: MULTI before its SELECT, as Valkey 8 writes it" {
        set size [file size [file join [aof_dir] appendonly.aof.1.incr.aof]]
        r select 5
        r multi
        r set d 4
        r flushall
        r exec
        r select 0
        after 50
        set incr [string range [read_binary [file join [aof_dir] appendonly.aof.1.incr.aof]] $size end]
        set want "*1\r\n\$5\r\nMULTI\r\n*2\r\n\$6\r\nSELECT\r\n\$1\r\n5\r\n"
        append want "*3\r\n\$3\r\nset\r\n\$1\r\nd\r\n\$1\r\n4\r\n*1\r\n\$8\r\nflushall\r\n*1\r\n\$4\r\nEXEC\r\n"
        assert_equal $want $incr
        # and it loads: the SELECT runs inside the transaction
        r select 5
        r multi
        r set e 5
        r incr n
        r exec
        r select 0
        r set f 6
        assert_equal OK [r debug loadaof]
        r select 5
        assert_equal {5 1} [r mget e n]
        r select 0
        assert_equal 6 [r get f]
    }

    test "Every type, expires, databases and transactions survive a restart and a kill -9" {
        r flushall
        aof_fill
        set before [aof_dataset]
        restart_server
        assert_equal $before [aof_dataset]
        r set after:restart 1
        after 1200  ;# everysec: synced within a second
        aof_crash_restart
        assert_equal 1 [r get after:restart]
        assert_equal [llength $before] [expr {[llength [aof_dataset]] - 5}]
    }

    test "BGREWRITEAOF: a new base and incr file, the old ones deleted, the data unchanged" {
        set before [aof_dataset]
        assert_equal "Background append only file rewriting started" [r bgrewriteaof]
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrites] == 1} else {
            fail "rewrite did not finish"
        }
        assert_equal ok [s aof_last_bgrewrite_status]
        assert_equal {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof appendonly.aof.manifest} [aof_files]
        assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" [aof_manifest]
        # The base file is a snapshot marked as an AOF base.
        set base [read_binary [file join [aof_dir] appendonly.aof.2.base.rdb]]
        assert_match REDIS001* [string range $base 0 8]
        assert {[string first "aof-base\xc0\x01" $base] > 0}
        r select 3
        r set written:after 1
        r select 0
        restart_server
        # The new incr file starts with its own SELECT: the key is back in db 3.
        r select 3
        assert_equal 1 [r get written:after]
        r del written:after
        r select 0
        assert_equal $before [aof_dataset]
        set files [expr {[file size [file join [aof_dir] appendonly.aof.2.base.rdb]] + [file size [file join [aof_dir] appendonly.aof.2.incr.aof]]}]
        assert_equal $files [s aof_current_size]
    }

    test "BGREWRITEAOF while one runs is refused; during BGSAVE it is scheduled" {
        r config set rdb-key-save-delay 20000
        r bgsave
        assert_equal "Background append only file rewriting scheduled" [r bgrewriteaof]
        assert_equal 1 [s aof_rewrite_scheduled]
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s aof_rewrites] == 1 && [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the scheduled rewrite did not run"
        }
        assert_equal {appendonly.aof.3.base.rdb appendonly.aof.3.incr.aof appendonly.aof.manifest} [aof_files]
    }

    test "DEBUG LOADAOF reloads the data set from the files" {
        r set loadaof:key v
        set before [aof_dataset]
        assert_equal OK [r debug loadaof]
        assert_equal $before [aof_dataset]
    }

    test "DEBUG LOADAOF is not written to the AOF: a second one does not reload itself forever" {
        # The sequence that recursed until the stack overflowed: the first DEBUG LOADAOF
        # reached the incr file, and the second replayed it, which reloaded, which replayed...
        r set foo bar ex 100
        r set foo bar keepttl
        assert_equal OK [r debug loadaof]
        r set foo bar ex 100
        assert_equal bar [r getex foo persist]
        assert_equal OK [r debug loadaof]
        assert_equal -1 [r ttl foo]
        assert_equal bar [r get foo]
        assert_equal 0 [regexp -nocase {debug\r\n\$7\r\nloadaof} [aof_incr_text]]
    }

    test "FLUSHALL that saves (save points set) still reaches the AOF" {
        r config set save "3600 1"
        try {
            r set flush:key v
            set before [regexp -all -nocase {flushall} [aof_incr_text]]
            assert_equal OK [r flushall]
            assert_equal [expr {$before + 1}] [regexp -all -nocase {flushall} [aof_incr_text]]
            aof_crash_restart
            assert_equal 0 [r dbsize]
        } finally {
            r config set save ""
        }
    }

    test "CONFIG SET appendonly no closes the file, yes writes a new base first" {
        assert_equal OK [r config set appendonly no]
        assert_equal 0 [s aof_enabled]
        r set while:off 1
        assert_equal OK [r config set appendonly yes]
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_enabled] == 1 && [s aof_rewrite_scheduled] == 0} else {
            fail "appendonly yes did not finish its rewrite"
        }
        r set while:on 1
        set before [aof_dataset]
        restart_server
        assert_equal $before [aof_dataset]
        assert_equal 1 [r get while:off]
    }
}

# BGREWRITEAOF as Valkey 8 runs it in the cases its aof-multi-part.tcl checks.
start_server {tags {aof} overrides {appendonly yes aof-use-rdb-preamble no}} {
    test "A rewrite is named for the format it was started in, whatever aof-use-rdb-preamble became" {
        r set foo bar
        r config set rdb-key-save-delay 1000000
        r bgrewriteaof
        wait_for_condition 100 10 {[s aof_rewrite_in_progress] == 1} else { fail "no rewrite" }
        r config set aof-use-rdb-preamble yes
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite never ended" }
        assert_equal "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" [aof_manifest]
        assert_match "*SET*foo*bar*" [read_binary [file join [aof_dir] appendonly.aof.2.base.aof]]
    }

    test "BGREWRITEAOF with appendonly no: a base alone, no incremental file, the old ones deleted" {
        r config set appendonly no
        set forks [s total_forks]
        r bgrewriteaof
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite never ended" }
        # every fork counts, an AOF rewrite's too
        assert_equal [expr {$forks + 1}] [s total_forks]
        assert_equal "file appendonly.aof.3.base.rdb seq 3 type b\n" [aof_manifest]
        wait_for_condition 100 50 {[aof_files] eq {appendonly.aof.3.base.rdb appendonly.aof.manifest}} else {
            fail "files left: [aof_files]"
        }
        r set after:off 1
        assert_equal OK [r debug loadaof]
        assert_equal {bar {}} [r mget foo after:off]
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "After 3 failed rewrites in a row, automatic rewrites wait (a minute, then longer)" {
        proc aof_kill_rewrite {} {
            r bgrewriteaof
            wait_for_condition 50 20 {[set child [exec sh -c "pgrep -P [srv pid] || true"]] ne {}} else {
                fail "no rewrite child"
            }
            exec kill -9 $child
            wait_for_condition 100 20 {[s aof_rewrite_in_progress] == 0} else { fail "child not reaped" }
        }
        r config set rdb-key-save-delay 10000000
        r set k v
        for {set i 0} {$i < 3} {incr i} { aof_kill_rewrite }
        assert_equal 3 [s aof_rewrites_consecutive_failures]
        set manifest [aof_manifest]
        # growth far past the threshold: before, a rewrite (and a new incremental file) a second
        r config set auto-aof-rewrite-percentage 1
        r config set auto-aof-rewrite-min-size 1kb
        r set x [string repeat x 2048]
        wait_for_log "*Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes*"
        after 1500
        assert_equal 0 [s aof_rewrite_in_progress]
        assert_equal $manifest [aof_manifest]
        # BGREWRITEAOF is not held back, and a success ends the limit
        r config set rdb-key-save-delay 0
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrites_consecutive_failures] == 0} else {
            fail "BGREWRITEAOF did not succeed"
        }
        r config set auto-aof-rewrite-percentage 0
    }
}

start_server {tags {aof} overrides {appendonly no}} {
    test "appendonly yes whose first rewrite fails: the temp incr file goes, the next try succeeds" {
        r set k v
        r config set rdb-key-save-delay 10000000
        r config set appendonly yes
        wait_for_condition 50 20 {[set child [exec sh -c "pgrep -P [srv pid] || true"]] ne {}} else {
            fail "no rewrite child"
        }
        assert_equal 1 [file exists [file join [aof_dir] temp-appendonly.aof.incr]]
        exec kill -9 $child
        wait_for_log "*Removing the temp incr aof file temp-appendonly.aof.incr in the background*"
        assert_equal 0 [file exists [file join [aof_dir] temp-appendonly.aof.incr]]
        r config set rdb-key-save-delay 0
        r set k2 v2
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0 && [s aof_enabled] == 1 && [s aof_rewrites_consecutive_failures] == 0} else {
            fail "the next try did not succeed"
        }
        assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [aof_manifest]
        r set k3 v3
        # the reload empties the dbs first: the keys come from the base and the incr file
        assert_equal OK [r debug loadaof]
        assert_equal {v v2 v3} [r mget k k2 k3]
    }
}

start_server {tags {aof} overrides {appendonly no}} {
    test "BGREWRITEAOF scheduled with appendonly no (in MULTI, during a BGSAVE) still runs" {
        r set foo bar
        set forks [s total_forks]
        r multi
        r set foo baz
        r bgrewriteaof
        assert_equal {OK {Background append only file rewriting scheduled}} [r exec]
        # before, the cron started scheduled rewrites only with the AOF on: never, here
        wait_for_condition 100 50 {[s total_forks] == $forks + 1 && [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the scheduled rewrite did not run"
        }
        assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\n" [aof_manifest]
        r config set rdb-key-save-delay 1000000
        r bgsave
        assert_equal {Background append only file rewriting scheduled} [r bgrewriteaof]
        assert_equal 1 [s aof_rewrite_scheduled]
        r config set rdb-key-save-delay 0
        exec kill -9 [exec sh -c "pgrep -P [srv pid]"]
        wait_for_condition 100 50 {[s aof_rewrite_scheduled] == 0 && [s aof_rewrite_in_progress] == 0 && [s total_forks] == $forks + 3} else {
            fail "the rewrite scheduled behind the BGSAVE did not run"
        }
        assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\n" [aof_manifest]
        assert_equal OK [r debug loadaof]
        assert_equal baz [r get foo]
    }

    test "CONFIG SET appendonly yes inside MULTI: the first rewrite waits for the cron, no fork in EXEC" {
        r incr counter
        r multi
        r incr counter
        r config set appendonly yes
        r incr counter
        assert_equal {2 OK 3} [r exec]
        assert {[log_contains "*AOF was enabled during a transaction. An AOF background was scheduled to start when possible.*"]}
        wait_for_condition 100 50 {[s aof_enabled] == 1 && [s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "the AOF's first rewrite did not run"
        }
        r incr counter
        assert_equal OK [r debug loadaof]
        assert_equal 4 [r get counter]
        r config set appendonly no
    }
}

start_server {tags {aof} overrides {appendonly no}} {
    test "CONFIG SET appendonly yes while a BGSAVE runs: writes made meanwhile are loaded once" {
        for {set i 0} {$i < 50} {incr i} { r set k$i $i }
        r config set rdb-key-save-delay 20000  ;# about 1 s for the save
        r bgsave
        assert_equal OK [r config set appendonly yes]
        assert_equal OK [r config rewrite]
        assert_equal 1 [s aof_rewrite_scheduled]
        for {set i 0} {$i < 5} {incr i} { r incr counter }
        r config set rdb-key-save-delay 0
        wait_for_condition 200 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0 && [s aof_rewrites] == 1} else {
            fail "the first base was not written"
        }
        r incr counter
        restart_server
        assert_equal 6 [r get counter]
        assert_equal 49 [r get k49]
    }
}

start_server {tags {aof} overrides {appendonly yes appendfsync always}} {
    test "appendfsync always: no acknowledged write is lost to a kill -9" {
        set c [valkey_client]
        for {set i 0} {$i < 500} {incr i} { $c set k$i $i }
        $c close
        aof_crash_restart
        set missing 0
        for {set i 0} {$i < 500} {incr i} { if {[r get k$i] ne $i} { incr missing } }
        assert_equal 0 $missing
    }
}

start_server {tags {aof} overrides {appendonly yes appendfsync always}} {
    # DEBUG AOF-FLUSH-SLEEP (Valkey 8's, for its test of this barrier) holds each AOF write: a
    # reply that left before its write would arrive while the file is still short.
    test "appendfsync always: a write is in the AOF before its reply, even behind a big reply" {
        set aof [lindex [glob -directory [aof_dir] *.incr.aof] 0]
        set rd [valkey_client]
        $rd deferred 1
        for {set i 0} {$i < 3} {incr i} {
            assert_equal OK [r debug aof-flush-sleep 0]
            r del x
            r setrange x [expr {int(rand()*5000000)+10000000}] x
            assert_equal OK [r debug aof-flush-sleep 200000]
            set size1 [file size $aof]
            set t0 [clock milliseconds]
            $rd get x
            $rd incr new_value
            $rd read
            assert_equal [expr {$i + 1}] [$rd read]
            assert_morethan_equal [expr {[clock milliseconds] - $t0}] 200
            assert_morethan [file size $aof] $size1
        }
        $rd close
        assert_equal OK [r debug aof-flush-sleep 0]
    }
}

start_server {tags {aof} overrides {appendonly yes aof-use-rdb-preamble no aof-timestamp-enabled yes}} {
    test "aof-use-rdb-preamble no: the base file is written as commands; timestamps annotate" {
        aof_fill
        set before [aof_dataset]
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrites] == 1 && [s aof_rewrite_in_progress] == 0} else {
            fail "rewrite did not finish"
        }
        assert_equal {appendonly.aof.2.base.aof appendonly.aof.2.incr.aof appendonly.aof.manifest} [aof_files]
        set base [read_binary [file join [aof_dir] appendonly.aof.2.base.aof]]
        assert_match "#TS:*\r\n*2\r\n\$6\r\nSELECT\r\n*" $base
        assert {[string first "PEXPIREAT" $base] > 0}
        after 1100  ;# a new second since the last annotation
        r set stamped 1
        after 50
        assert_match "#TS:*" [read_binary [file join [aof_dir] appendonly.aof.2.incr.aof]]
        restart_server
        r del stamped
        assert_equal $before [aof_dataset]
    }
}

# ---- damaged files ----

start_server {tags {aof} overrides {appendonly yes}} {
    set incr [file join [aof_dir] appendonly.aof.1.incr.aof]

    test "A last command cut short: loaded up to it and the file truncated (aof-load-truncated yes)" {
        r set a 1
        r set b 2
        after 1100
        set whole [read_binary $incr]
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        write_binary $incr "[string range $whole 0 end-3]"
        restart_server
        assert_equal 1 [r get a]
        assert_equal {} [r get b]
        assert {[log_contains "*!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!*"]}
        assert {[log_contains "*AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled*"]}
        # What was cut is gone from the file, so appending goes on cleanly.
        r set c 3
        restart_server
        assert_equal {1 {} 3} [r mget a b c]
    }

    test "An incomplete MULTI at the end of the file is dropped" {
        set whole [read_binary $incr]
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        write_binary $incr "$whole*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nset\r\n\$1\r\nx\r\n\$1\r\n1\r\n"
        restart_server
        assert_equal {} [r get x]
        assert {[log_contains "*Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof*"]}
    }
}

# Hand-written incr files: commands a client does to itself or to the load, which the node
# never writes there, must not take the load (or the node after it) down.
start_server {tags {aof} overrides {appendonly yes}} {
    set incr [file join [aof_dir] appendonly.aof.1.incr.aof]
    proc aof_restart_with_incr {incr text} {
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        write_binary $incr $text
        restart_server
    }

    test "DEBUG LOADAOF inside the AOF is refused while loading: no endless reload" {
        # Before, each replayed DEBUG LOADAOF loaded the file that holds it again, until the
        # stack overflowed at start (redis-server 7.0 dies alike).
        set cmd "*2\r\n\$5\r\nDEBUG\r\n\$7\r\nLOADAOF\r\n"
        aof_restart_with_incr $incr "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n$cmd*1\r\n\$5\r\nMULTI\r\n$cmd*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n*1\r\n\$4\r\nEXEC\r\n*3\r\n\$3\r\nset\r\n\$1\r\nc\r\n\$1\r\n3\r\n"
        assert_equal {1 2 3} [r mget a b c]
        assert {[log_contains "*DEBUG LOADAOF found in the AOF being loaded: refused, the load goes on*"]}
        # The same file again through DEBUG LOADAOF itself.
        assert_equal OK [r debug loadaof]
        assert_equal {1 2 3} [r mget a b c]
        assert_equal PONG [r ping]
    }

    test "An expire that passed while the node was down does not make way for a new key at load" {
        # The AOF of a list given a TTL, then pushed to while it lived (Valkey 8 expires
        # nothing while it loads). Ours deleted the list at the PEXPIREAT and the RPUSH made a
        # new one without the TTL: a key that should have expired came back for good.
        aof_restart_with_incr $incr "*3\r\n\$5\r\nrpush\r\n\$4\r\nlist\r\n\$3\r\nfoo\r\n*3\r\n\$9\r\npexpireat\r\n\$4\r\nlist\r\n\$4\r\n1000\r\n*3\r\n\$5\r\nrpush\r\n\$4\r\nlist\r\n\$3\r\nbar\r\n*3\r\n\$3\r\nset\r\n\$1\r\ns\r\n\$1\r\nv\r\n*5\r\n\$3\r\nset\r\n\$1\r\ns\r\n\$1\r\nw\r\n\$4\r\npxat\r\n\$4\r\n1000\r\n*3\r\n\$6\r\nappend\r\n\$1\r\ns\r\n\$1\r\nx\r\n"
        assert_equal {0 0} [list [r llen list] [r exists s]]
        assert_equal {0 0} [list [r exists list] [r dbsize]]
    }

    test "A BLPOP in the AOF does not leave the loader's client blocked" {
        # Before, the loader's client stayed blocked on the list, and the first push to it
        # served a client that no longer existed: the node aborted.
        aof_restart_with_incr $incr "*3\r\n\$5\r\nBLPOP\r\n\$6\r\nnolist\r\n\$1\r\n0\r\n*2\r\n\$9\r\nSUBSCRIBE\r\n\$2\r\nch\r\n*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$1\r\nv\r\n"
        assert_equal 0 [s blocked_clients]
        assert_equal 1 [r lpush nolist x]
        assert_equal 0 [r publish ch hello]
        assert_equal {x} [r lrange nolist 0 -1]
        assert_equal v [r get k]
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "A key of the AOF's base whose expire passed while the node was down stays expired" {
        # The base (a snapshot preamble) held the list with its TTL; the incr file pushed to
        # it while it lived. Ours left the expired list out of the base's load, and the push
        # made a new one without the TTL.
        r flushall
        r rpush blist a
        r pexpire blist 1500
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0} else { fail "no rewrite" }
        r rpush blist b
        after 100
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        after 1600
        restart_server
        assert_equal {0 0} [list [r exists blist] [r llen blist]]
    }
}

test "A command cut short with aof-load-truncated no stops the start" {
    lassign [aof_try_start $::aof_one_incr {appendonly.aof.1.incr.aof "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n*3\r\n\$3\r\nset\r\n\$1\r\nb"} "aof-load-truncated no\n"] code out
    assert_equal 1 $code
    assert_match "*Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.*" $out
}

test "A corrupt command in the middle stops the start, naming the file and the offset" {
    lassign [aof_try_start $::aof_one_incr {appendonly.aof.1.incr.aof "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\nGARBAGE\r\n*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n"}] code out
    assert_equal 1 $code
    assert_match "*Bad file format reading the append only file appendonly.aof.1.incr.aof at offset 27: make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>*" $out
} {beyond-valkey}

test "Garbage after the last command, even without a line end, stops the start (aof-load-truncated yes)" {
    lassign [aof_try_start $::aof_one_incr {appendonly.aof.1.incr.aof "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n!!!"} "aof-load-truncated yes\n"] code out
    assert_equal 1 $code
    assert_match "*Bad file format reading the append only file appendonly.aof.1.incr.aof*use ./valkey-check-aof --fix <filename.manifest>*" $out
}

test "A damaged manifest stops the start with Valkey's message" {
    foreach {text msg} {
        "file a seq 1\n" "Invalid AOF manifest file format"
        "file a seq 1 type b\nfile b seq 2 type b\n" "Found duplicate base file information"
        "file a seq 2 type i\nfile b seq 1 type i\n" "Found a non-monotonic sequence number"
        "file a seq 1 type x\n" "Unknown AOF file type"
        "" "Found an empty AOF manifest"
        "file ../a seq 1 type i\n" "File can't be a path, just a filename"
    } {
        lassign [aof_try_start $text {}] code out
        assert_equal 1 $code $msg
        assert_match "*$msg*" $out
    }
}

# An AOF from before multi-part files (appendonly.aof in `dir`) moves into the directory as
# its base. The manifest naming it is written before the move, so a start stopped between the
# two (the manifest there, the file still in `dir`) must finish the move, not start empty.
start_server {tags {aof} overrides {appendonly yes}} {
    set old "*3\r\n\$3\r\nset\r\n\$2\r\nk1\r\n\$2\r\nv1\r\n*3\r\n\$3\r\nset\r\n\$2\r\nk2\r\n\$2\r\nv2\r\n"
    proc aof_restart_old_style {old manifest} {
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        file delete -force [aof_dir]
        write_binary [file join [srv dir] appendonly.aof] $old
        if {$manifest ne ""} {
            file mkdir [aof_dir]
            write_binary [file join [aof_dir] appendonly.aof.manifest] $manifest
        }
        restart_server
    }
    foreach {case manifest} {
        "no AOF directory" ""
        "an interrupted upgrade (the manifest written, the file not moved yet)" "file appendonly.aof seq 1 type b\n"
    } {
        test "An old-style appendonly.aof in dir is loaded and moved into the AOF directory: $case" {
            aof_restart_old_style $old $manifest
            assert_equal {v1 v2} [r mget k1 k2]
            assert_equal 0 [file exists [file join [srv dir] appendonly.aof]]
            assert_equal {appendonly.aof appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_files]
            assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [aof_manifest]
            assert {[log_contains "*Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).*"]}
            r set k3 v3
            restart_server
            assert_equal {v1 v2 v3} [r mget k1 k2 k3]
        }
    }
}

test "An unknown command in the AOF stops the start" {
    lassign [aof_try_start $::aof_one_incr {appendonly.aof.1.incr.aof "*1\r\n\$7\r\nNOSUCHC\r\n"}] code out
    assert_equal 1 $code
    assert_match "*Unknown command 'NOSUCHC' reading the append only file appendonly.aof.1.incr.aof*" $out
}

# ---- a full disk ----

start_server {tags {aof} overrides {appendonly no}} {
    test "A full disk: writes get -MISCONF, nothing acknowledged is lost, writing resumes when space returns" {
        set mnt [file join [srv dir] appendonlydir]
        file mkdir $mnt
        if {[catch {exec mount -t tmpfs -o size=256k tmpfs $mnt} e]} {
            skip "needs root to mount a small tmpfs: $e"
        }
        try {
            assert_equal OK [r config set appendonly yes]
            assert_equal OK [r config rewrite]  ;# the restart below keeps the AOF on
            wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0 && [s aof_enabled] == 1} else {
                fail "appendonly yes did not finish"
            }
            set val [string repeat x 10000]
            set acked {}
            set err {}
            for {set i 0} {$i < 200} {incr i} {
                if {[catch {r set k$i $val} e]} {
                    set err $e
                    break
                }
                lappend acked k$i
                after 5
            }
            assert_equal "MISCONF Errors writing to the AOF file: No space left on device" $err
            assert_equal err [s aof_last_write_status]
            assert_equal "MISCONF Errors writing to the AOF file: No space left on device" [assert_error * {r ping}]
            assert_equal $val [r get k0]  ;# reads still work
            exec mount -o remount,size=8m $mnt
            wait_for_condition 100 50 {[s aof_last_write_status] eq "ok"} else { fail "writing did not resume" }
            assert_equal OK [r set after:space 1]
            assert {[log_contains "*AOF write error looks solved, the server can write again.*"]}
            restart_server
            set missing 0
            foreach k $acked { if {[r get $k] ne $val} { incr missing } }
            assert_equal 0 $missing "acknowledged writes lost"
            assert_equal 1 [r get after:space]
        } finally {
            catch {r config set appendonly no}
            catch {exec umount -l $mnt}
        }
    }
}

# ---- a read-only directory ----

start_server {tags {aof} overrides {appendonly no}} {
    test "A read-only appendonlydir: appendonly yes is refused at run time and stops the start" {
        set mnt [file join [srv dir] appendonlydir]
        file mkdir $mnt
        if {[catch {exec mount -t tmpfs -o size=1m tmpfs $mnt} e]} {
            skip "needs root to mount a small tmpfs: $e"
        }
        try {
            exec mount -o remount,ro $mnt
            assert_match "*Can't execute an AOF background rewriting*" \
                [assert_error * {r config set appendonly yes}]
            assert_equal {appendonly no} [r config get appendonly]
            assert_equal 0 [s aof_enabled]
            assert {[log_contains "*Can't open the append-only file*Read-only file system*"]}
            # A start asked to keep an AOF there refuses rather than run without it.
            lassign [server_try_start "port [::srv::find_free_port]\ndir [srv dir]\nsave \"\"\nappendonly yes\n"] code out
            assert_equal 1 $code
            assert_match "*Read-only file system*" $out
        } finally {
            catch {exec umount -l $mnt}
        }
    }
}

# ---- WAITAOF ----

start_server {tags {aof waitaof} overrides {appendonly yes appendfsync everysec repl-diskless-sync-delay 0}} {
    test "WAITAOF: argument errors and appendonly no" {
        assert_equal "ERR value is out of range, value must between 0 and 1" [assert_error * {r waitaof 2 0 0}]
        assert_equal "ERR value is not an integer or out of range" [assert_error * {r waitaof x 0 0}]
        assert_equal "ERR value is out of range, must be positive" [assert_error * {r waitaof 0 -1 0}]
        assert_equal "ERR timeout is negative" [assert_error * {r waitaof 0 0 -1}]
        assert_equal "ERR timeout is not an integer or out of range" [assert_error * {r waitaof 0 0 x}]
        # a deadline past the millisecond clock (Valkey 8)
        assert_equal "ERR timeout is out of range" [assert_error * {r waitaof 0 0 9223372036854775807}]
        assert_equal "ERR timeout is out of range" [assert_error * {r wait 2 9223372036854775807}]
    }

    test "WAITAOF 1 0: the client's writes are on disk (everysec: within a second)" {
        r set k v
        set t0 [clock milliseconds]
        assert_equal {1 0} [r waitaof 1 0 0]
        assert {[clock milliseconds] - $t0 < 1500}
        r config set appendfsync always
        r set k v2
        assert_equal {1 0} [r waitaof 1 0 0]
        r config set appendfsync everysec
        # Inside MULTI nothing blocks.
        r multi
        r set k v3
        r waitaof 1 1 0
        assert_equal {OK {1 0}} [lrange [r exec] 0 1]
    }

    test "WAITAOF waiting for the local sync when the AOF is turned off: its error, not a wait forever" {
        r config set appendfsync no
        set rd [valkey_client]
        $rd deferred 1
        $rd incr foo
        assert_equal 1 [$rd read]
        $rd waitaof 1 0 0
        wait_for_condition 100 20 {[s blocked_clients] == 1} else { fail "WAITAOF did not block" }
        r config set appendonly no
        assert_error "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled." {$rd read}
        assert_equal 0 [s blocked_clients]
        $rd close
        r config set appendonly yes
        r config set appendfsync everysec
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else { fail "no AOF" }
    }

    test "WAITAOF numreplicas counts replicas whose AOF holds the writes on disk" {
        start_server {overrides {appendonly yes}} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[status r master_link_status] eq "up"} else { fail "no link" }
            r -1 set replicated 1
            assert_equal {1 1} [r -1 waitaof 1 1 5000]
            assert_equal "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated." \
                [assert_error * {r waitaof 0 0 0}]
            # A replica without an AOF acknowledges nothing to WAITAOF (WAIT still counts it).
            r config set appendonly no
            r -1 set replicated 2
            assert_equal {1 0} [r -1 waitaof 1 1 1500]
            assert_equal 1 [r -1 wait 1 2000]
            r -1 config set appendonly no
            assert_equal "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled." \
                [assert_error * {r -1 waitaof 1 0 0}]
            assert_equal {0 0} [r -1 waitaof 0 1 100]
        }
    }
}

# A replica that never fsyncs (appendfsync no) acknowledges what a full sync brought once the
# base of its restarted AOF is written; a higher offset of its former primary acknowledges
# nothing of the new one. Before, a WAITAOF waiting for it blocked forever.
start_server {tags {aof repl} overrides {appendonly yes appendfsync always repl-diskless-sync-delay 0}} {
    start_server {tags {aof repl} overrides {appendonly yes appendfsync always repl-diskless-sync-delay 0}} {
        start_server {tags {aof repl} overrides {appendonly yes appendfsync no}} {
            test "WAITAOF: a replica with appendfsync no acknowledges its full sync once its new base is written" {
                # the replica first follows the primary at level -1, and writes it sends stay
                # in its AOF unsynced; that primary's offsets run far ahead of the other's
                r replicaof [srv -1 host] [srv -1 port]
                wait_for_condition 100 50 {[status r master_link_status] eq "up"} else { fail "no link" }
                for {set i 0} {$i < 20} {incr i} { r -1 set old:$i [string repeat x 1000] }
                wait_for_condition 100 50 {[s master_repl_offset] == [s -1 master_repl_offset]} else { fail "not in sync" }
                set rd [valkey_client -2]
                $rd deferred 1
                $rd set boo 22
                assert_equal OK [$rd read]
                $rd waitaof 1 1 0
                wait_for_condition 100 20 {[s -2 blocked_clients] == 1} else { fail "no block" }
                # it moves to the primary at level -2: a full sync, then the rewrite of its AOF
                r replicaof [srv -2 host] [srv -2 port]
                assert_equal {1 1} [$rd read]
                $rd close
                assert_equal 22 [r get boo]
                # and the old primary's higher offset acknowledged nothing of the new stream
                assert_morethan [s -1 master_repl_offset] [s -2 master_repl_offset]
                r -2 set boo 23
                assert_equal {1 0} [r -2 waitaof 1 1 300]
                r config set appendfsync everysec
                assert_equal {1 1} [r -2 waitaof 1 1 3000]
            }
        }
    }
}

# ---- a replica's AOF after a full sync ----

# The data a full sync brings does not pass through the AOF: the AOF starts again from a
# rewrite of it (Valkey 8's restartAOFAfterSYNC). Before, the files kept the replica's old data
# and then the stream, and a replica killed after the sync restarted without its primary's data.
start_server {tags {aof repl} overrides {repl-diskless-sync-delay 0 enable-debug-command yes}} {
    start_server {tags {aof repl} overrides {appendonly yes}} {
        test "A replica with appendonly yes, killed after a full sync, restarts with its primary's data" {
            r set local:key 1
            r -1 debug populate 1000 k 10
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[status r master_link_status] eq "up"} else { fail "no link" }
            wait_for_condition 100 50 {[status r aof_rewrite_in_progress] == 0 &&
                [status r aof_rewrite_scheduled] == 0} else { fail "the AOF never restarted" }
            r -1 set after:sync 1
            assert_equal {0 1} [r -1 waitaof 0 1 5000]
            catch {exec kill -KILL [srv pid]}
            while {[::srv::alive [srv pid]]} { after 10 }
            restart_server
            assert_equal 1001 [r dbsize]
            assert_equal 1 [r get after:sync]
            assert_equal 0 [r exists local:key]
            assert_equal {} [lsort [r keys local:*]]
        }
    }
}

# ---- interop with redis-server 7.0 ----

if {![file executable $::aof_redis_bin]} {
    test "AOF interop with redis-server 7.0" { require_peer $::aof_redis_bin redis-server } {aof interop}
    return
}

set ::aof_tested_server $::cfg(server)
set ::cfg(server) $::aof_redis_bin
try {
    start_server {tags {aof interop} overrides {appendonly yes}} {
        set ::cfg(server) $::aof_tested_server
        start_server {overrides {appendonly yes}} {
            test "An AOF directory written by redis-server 7.0 loads into our node with equal contents" {
                r -1 flushall
                r -1 select 0
                fill_every_type -1
                r -1 set ttl:key v px 1000000
                r -1 bgrewriteaof
                wait_for_condition 100 50 {[info_field [r -1 info persistence] aof_rewrite_in_progress] == 0} else { fail "redis rewrite" }
                r -1 set after:rewrite 1
                r -1 multi
                r -1 incr tx:counter
                r -1 rpush tx:list a b
                r -1 exec
                set theirs {}
                foreach k [lsort [r -1 keys *]] { lappend theirs $k [key_contents -1 $k] }
                catch {exec kill -KILL [srv pid]}
                while {[::srv::alive [srv pid]]} { after 10 }
                after 1100  ;# everysec on the peer
                file delete -force [aof_dir]
                file copy [file join [srv -1 dir] appendonlydir] [aof_dir]
                restart_server
                set ours {}
                foreach k [lsort [r keys *]] { lappend ours $k [key_contents 0 $k] }
                assert_equal $theirs $ours
                assert {[r pttl ttl:key] > 0}
            }

            test "An AOF directory written by our node loads into redis-server 7.0 with equal contents" {
                r flushall
                fill_every_type 0
                r set ttl:key v px 1000000
                r bgrewriteaof
                wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0} else { fail "rewrite" }
                r set after:rewrite 1
                r multi
                r incr tx:counter
                r rpush tx:list a b
                r exec
                set ours {}
                foreach k [lsort [r keys *]] { lappend ours $k [key_contents 0 $k] }
                restart_server  ;# a clean stop syncs the file
                set ::aof_peer_dir [srv -1 dir]
                catch {exec kill -KILL [srv -1 pid]}
                while {[::srv::alive [srv -1 pid]]} { after 10 }
                file delete -force [file join $::aof_peer_dir appendonlydir]
                file copy [aof_dir] [file join $::aof_peer_dir appendonlydir]
                set ::cfg(server) $::aof_redis_bin
                set s [lindex $::srv::stack end-1]
                dict set s client {}
                dict set s pid [::srv::spawn $s]
                lset ::srv::stack end-1 $s
                ::srv::wait_ready $s
                set ::cfg(server) $::aof_tested_server
                set theirs {}
                foreach k [lsort [r -1 keys *]] { lappend theirs $k [key_contents -1 $k] }
                assert_equal $ours $theirs
                assert {[r -1 pttl ttl:key] > 0}
            } {beyond-valkey}
        }
    }
} finally {
    set ::cfg(server) $::aof_tested_server
}
