# valkey-check-aof and valkey-check-rdb: the server binary run under those names (src/main.cc,
# the links `make` puts beside it), as Valkey 8 ships them. The operator's runbook the server's
# own log gives ("use ./valkey-check-aof --fix <filename.manifest>") works end to end: the start
# refused, the check, the fix, the start. Passes on Valkey 8.0.1 (--server) with
# --tags -beyond-valkey (the tagged test: Valkey's ok_up_to_line counts the lines it read past
# the valid part, ours is the line where the valid part ends).

set ::tool_dir [file dirname $::cfg(server)]

# Runs a tool with `input` on its standard input: {exit_code output}.
proc run_tool {tool input args} {
    set code 0
    if {[catch {exec [file join $::tool_dir $tool] {*}$args << $input 2>@1} out opts]} {
        set code 1
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} { set code [lindex $ec 2] }
        regsub {\n?child process exited abnormally$} $out {} out
    }
    return [list $code $out]
}
proc check_cmd {args} {
    set s "*[llength $args]\r\n"
    foreach a $args { append s "\$[string length $a]\r\n$a\r\n" }
    return $s
}

# ---- valkey-check-rdb ----

start_server {tags {check-tools} overrides {save ""}} {
    test "valkey-check-rdb: a snapshot this node saved, with Valkey's report" {
        r set a 1
        r set b 2 ex 1000
        r select 3
        r hset h f v
        r select 0
        r save
        set path [file join [srv dir] dump.rdb]
        set size [file size $path]
        lassign [run_tool valkey-check-rdb "" $path] code out
        assert_equal 0 $code $out
        set lines [split [string trimright $out \n] \n]
        assert_equal "\[offset 0\] Checking RDB file $path" [lindex $lines 0]
        assert_match "*\n\\\[offset *\\\] AUX FIELD redis-bits = '64'\n*" $out
        assert_match "*\n\\\[offset *\\\] Selecting DB ID 0\n*\\\] Selecting DB ID 3\n*" $out
        assert_equal [list "\[offset $size\] Checksum OK" "\[offset $size\] \\o/ RDB looks OK! \\o/" \
            {[info] 3 keys read} {[info] 1 expires} {[info] 0 already expired}] [lrange $lines end-4 end]
    }

    test "valkey-check-rdb: a cut-short snapshot is refused" {
        set path [file join [srv dir] dump.rdb]
        set cut [file join [srv dir] cut.rdb]
        write_binary $cut [string range [read_binary $path] 0 end-20]
        lassign [run_tool valkey-check-rdb "" $cut] code out
        assert_equal 1 $code $out
        assert_match "*\n--- RDB ERROR DETECTED ---\n\\\[offset *\\\] Unexpected EOF*" $out
        assert_no_match "*looks OK*" $out
    }

    test "valkey-check-rdb: a damaged value and a damaged checksum are refused" {
        set data [read_binary [file join [srv dir] dump.rdb]]
        # the checksum, the file's last 8 bytes
        set bad [file join [srv dir] bad.rdb]
        write_binary $bad "[string range $data 0 end-8]\x01\x02\x03\x04\x05\x06\x07\x08"
        lassign [run_tool valkey-check-rdb "" $bad] code out
        assert_equal 1 $code $out
        assert_match "*--- RDB ERROR DETECTED ---*" $out
        # the hash's listpack header claims more bytes than it has (checksum off: the value's
        # own check must find it)
        set at [string first "\x10\x01h" $data]
        assert {$at > 0}
        set lp [expr {$at + 4}]
        set hacked [string replace $data $lp $lp [format %c [expr {[scan [string index $data $lp] %c] + 1}]]]
        write_binary $bad "[string range $hacked 0 end-8][string repeat \x00 8]"
        lassign [run_tool valkey-check-rdb "" $bad] code out
        assert_equal 1 $code $out
        assert_match "*--- RDB ERROR DETECTED ---*key 'h'*" $out
    }
}

test "valkey-check-rdb: usage, version and a missing file" {
    lassign [run_tool valkey-check-rdb ""] code out
    assert_equal 1 $code
    assert_match "Usage: *valkey-check-rdb <rdb-file-name>" $out
    lassign [run_tool valkey-check-rdb "" --version] code out
    assert_equal 0 $code
    assert_match "valkey-check-rdb v=8.*" $out
    lassign [run_tool valkey-check-rdb "" /nonexistent/dump.rdb] code out
    assert_equal 1 $code
}

# ---- valkey-check-aof ----

start_server {tags {check-tools} overrides {appendonly yes aof-use-rdb-preamble yes}} {
    test "valkey-check-aof: a live multi-part AOF (snapshot base, incr file with a transaction) is valid" {
        r set a 1
        r rpush l x y z
        r bgrewriteaof
        wait_for_condition 100 50 {[s aof_rewrite_in_progress] == 0 && [s aof_rewrite_scheduled] == 0} else {
            fail "no rewrite"
        }
        r multi
        r incr counter
        r set b 2
        r exec
        r set c 3
        set manifest [file join [srv dir] appendonlydir appendonly.aof.manifest]
        lassign [run_tool valkey-check-aof "" $manifest] code out
        assert_equal 0 $code $out
        assert_match "Start checking Multi Part AOF\nStart to check BASE AOF (RDB format).\n\\\[offset 0\\\] Checking RDB file *appendonly.aof.2.base.rdb\n*\\\\o/ RDB looks OK! \\\\o/\n\\\[info\\\] 2 keys read\n*RDB preamble is OK, proceeding with AOF tail...\n*BASE AOF appendonly.aof.2.base.rdb is valid\nStart to check INCR files.\n*INCR AOF appendonly.aof.2.incr.aof is valid\nAll AOF files and manifest are valid" $out
        set incr [file join [srv dir] appendonlydir appendonly.aof.2.incr.aof]
        set size [file size $incr]
        assert_match "*AOF analyzed: filename=appendonly.aof.2.incr.aof, size=$size, ok_up_to=$size, ok_up_to_line=*, diff=0\n*" $out
    }
}

start_server {tags {check-tools} overrides {appendonly yes aof-load-truncated no}} {
    set incr [file join [srv dir] appendonlydir appendonly.aof.1.incr.aof]
    set manifest [file join [srv dir] appendonlydir appendonly.aof.manifest]

    test "The runbook: a start refused on a cut-short AOF, valkey-check-aof --fix, the start" {
        r set a 1
        r set b 2
        kill_server
        set whole [read_binary $incr]
        set good [expr {[string length $whole] - [string length [check_cmd set b 2]]}]
        write_binary $incr [string range $whole 0 end-3]
        restart_server 0
        wait_for_condition 100 50 {![::srv::alive [srv pid]]} else { fail "the server started" }
        assert {[log_contains "*use ./valkey-check-aof --fix <filename.manifest>*"]}

        lassign [run_tool valkey-check-aof "" $manifest] code out
        assert_equal 1 $code $out
        assert_match "*AOF appendonly.aof.1.incr.aof is not valid. Use the --fix option to try fixing it.*" $out
        assert_match "*AOF analyzed: filename=appendonly.aof.1.incr.aof, size=[expr {[string length $whole] - 3}], ok_up_to=$good, *" $out

        # a "no" leaves the file as it was
        lassign [run_tool valkey-check-aof "n\n" --fix $manifest] code out
        assert_equal 1 $code $out
        assert_match "*Continue? \\\[y/N\\\]: Aborting...*" $out
        assert_equal [string range $whole 0 end-3] [read_binary $incr]

        lassign [run_tool valkey-check-aof "y\n" --fix $manifest] code out
        assert_equal 0 $code $out
        assert_match "*This will shrink the AOF appendonly.aof.1.incr.aof from [expr {[string length $whole] - 3}] bytes, with [expr {[string length $whole] - 3 - $good}] bytes, to $good bytes\n*Successfully truncated AOF appendonly.aof.1.incr.aof\nAll AOF files and manifest are valid" $out
        assert_equal [string range $whole 0 [expr {$good - 1}]] [read_binary $incr]

        restart_server
        assert_equal {1 {}} [r mget a b]
    }

    # The server killed, `tail` appended to its incr file: the check finds the fault (`why`)
    # and the valid part ending where the tail starts; --fix cuts exactly the tail; the server
    # starts again.
    proc check_fix_tail {incr manifest tail why} {
        kill_server
        set whole [read_binary $incr]
        write_binary $incr "$whole$tail"
        lassign [run_tool valkey-check-aof "" $manifest] code out
        assert_equal 1 $code $out
        assert_match "*$why*\n*ok_up_to=[string length $whole], *" $out
        lassign [run_tool valkey-check-aof "y\n" --fix $manifest] code out
        assert_equal 0 $code $out
        assert_equal $whole [read_binary $incr]
        restart_server
    }

    test "valkey-check-aof: garbage after the last command is a format error, cut at it" {
        r set c 3
        check_fix_tail $incr $manifest "!!!" "AOF appendonly.aof.1.incr.aof format error"
        assert_equal {1 {} 3} [r mget a b c]
    }

    test "valkey-check-aof: a transaction without its EXEC is cut before its MULTI" {
        check_fix_tail $incr $manifest "[check_cmd multi][check_cmd set d 4]" \
            "Reached EOF before reading EXEC for MULTI"
        assert_equal {1 {} 3 {}} [r mget a b c d]
    }

    test "valkey-check-aof: the line of the valid part's end" {
        kill_server
        set whole [read_binary $incr]
        # three commands of 3 arguments: 7 lines each
        write_binary $incr "[check_cmd set a 1][check_cmd set b 2][check_cmd set c 3]!!!"
        lassign [run_tool valkey-check-aof "" $manifest] code out
        assert_equal 1 $code $out
        assert_match "*ok_up_to_line=22,*" $out
        write_binary $incr $whole
        restart_server
    } {beyond-valkey}
}

test "valkey-check-aof: --fix truncates only the last file of a manifest" {
    set dir [::srv::make_dir]
    set base "[check_cmd set foo hello][check_cmd multi][check_cmd set bar world]"
    write_binary [file join $dir b.aof] $base
    write_binary [file join $dir i.aof] [check_cmd set x 1]
    write_binary [file join $dir m.manifest] "file b.aof seq 1 type b\nfile i.aof seq 1 type i\n"
    lassign [run_tool valkey-check-aof "" [file join $dir m.manifest]] code out
    assert_equal 1 $code $out
    assert_match "*AOF b.aof is not valid*" $out
    lassign [run_tool valkey-check-aof "y\n" --fix [file join $dir m.manifest]] code out
    assert_equal 1 $code $out
    assert_match "*Failed to truncate AOF b.aof because it is not the last file*" $out
    assert_equal $base [read_binary [file join $dir b.aof]]
    file delete -force $dir
}

test "valkey-check-aof: --truncate-to-timestamp cuts the last file at the first later #TS" {
    set dir [::srv::make_dir]
    set f [file join $dir a.aof]
    set text "#TS:1628217470\r\n[check_cmd set foo1 bar1]#TS:1628217471\r\n[check_cmd set foo2 bar2]#TS:1628217472\r\n[check_cmd set foo3 bar3]"
    write_binary $f $text
    lassign [run_tool valkey-check-aof "" --truncate-to-timestamp 1628217472 $f] code out
    assert_equal 0 $code $out
    assert_equal "Start checking Old-Style AOF\nTruncate nothing in AOF $f to timestamp 1628217472\nAOF $f is valid" $out
    lassign [run_tool valkey-check-aof "" --truncate-to-timestamp 1628217471 $f] code out
    assert_equal 0 $code $out
    assert_equal "Start checking Old-Style AOF\nSuccessfully truncated AOF $f to timestamp 1628217471" $out
    assert_equal [string range $text 0 [expr {[string first "#TS:1628217472" $text] - 1}]] [read_binary $f]
    lassign [run_tool valkey-check-aof "" --truncate-to-timestamp 1628217469 $f] code out
    assert_equal 1 $code $out
    assert_equal "Start checking Old-Style AOF\nAOF $f has nothing before timestamp 1628217469, aborting..." $out
    assert_equal 1 [string match "*foo2*" [read_binary $f]]

    # not the last file of a manifest: refused, nothing cut
    write_binary [file join $dir b.aof] $text
    write_binary [file join $dir i.aof] [check_cmd set x 1]
    write_binary [file join $dir m.manifest] "file b.aof seq 1 type b\nfile i.aof seq 1 type i\n"
    lassign [run_tool valkey-check-aof "" --truncate-to-timestamp 1628217471 [file join $dir m.manifest]] code out
    assert_equal 1 $code $out
    assert_match "*Failed to truncate AOF *b.aof to timestamp 1628217471 to offset * because it is not the last file.*" $out
    assert_equal $text [read_binary [file join $dir b.aof]]
    file delete -force $dir
}

test "valkey-check-aof: usage, a bad timestamp, a damaged manifest" {
    lassign [run_tool valkey-check-aof ""] code out
    assert_equal 1 $code
    assert_match "Usage: *valkey-check-aof \\\[--fix|--truncate-to-timestamp \$timestamp\\\] <file.manifest|file.aof>" $out
    lassign [run_tool valkey-check-aof "" --truncate-to-timestamp soon x.aof] code out
    assert_equal {1 {Invalid timestamp, aborting...}} [list $code $out]
    set dir [::srv::make_dir]
    write_binary [file join $dir m.manifest] "file a.aof seq 1 type b\nfile b.aof seq 1 type i\n!!!\n"
    lassign [run_tool valkey-check-aof "" [file join $dir m.manifest]] code out
    assert_equal 1 $code
    assert_match "Start checking Multi Part AOF\n*Invalid AOF manifest file format*" $out
    file delete -force $dir
}
