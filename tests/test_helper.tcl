# Test runner.
#
#   tclsh tests/test_helper.tcl [--server PATH] [--jobs N] [--single tests/unit/x.tcl ...]
#                               [--only 'test name glob'] [--tags 'tag -tag'] [--verbose]
#
# Every test file runs in its own worker process (this script with --worker FILE); the
# runner prints one line per test and ends with exactly "N passed, N failed, N skipped"; it
# exits non-zero when anything failed.  Only deliberate skips (skip_deliberate) are counted
# as skipped: any other skip, a test file that aborts or crashes, a server that dies during a
# test, all count as failed.
# Worker records on stdout are lines "@@ <escaped Tcl list {type file name detail}>".

set ::testdir [file dirname [file normalize [info script]]]
set ::rootdir [file dirname $::testdir]

array set ::cfg {
    server {} jobs 2 verbose 0 only {} allow_tags {} deny_tags {} worker {} slot 0
    port_base 21000 port_span 200 file {} file_timeout 600
}
# Several checkouts on one machine may run suites at once: each picks its own port range.
if {[info exists ::env(TEST_PORT_BASE)]} { set ::cfg(port_base) $::env(TEST_PORT_BASE) }
# A nested run (the harness self-test) gets a narrower range inside its parent's.
if {[info exists ::env(TEST_PORT_SPAN)]} { set ::cfg(port_span) $::env(TEST_PORT_SPAN) }
set singles {}
set tagspec {}
for {set i 0} {$i < [llength $argv]} {incr i} {
    set opt [lindex $argv $i]
    set val [lindex $argv [expr {$i + 1}]]
    switch -- $opt {
        --server  { set ::cfg(server) $val; incr i }
        --jobs    { set ::cfg(jobs) $val; incr i }
        --single  { lappend singles $val; incr i }
        --only    { set ::cfg(only) $val; incr i }
        --tags    { append tagspec " $val"; incr i }
        --verbose { set ::cfg(verbose) 1 }
        --worker  { set ::cfg(worker) $val; incr i }
        --slot    { set ::cfg(slot) $val; incr i }
        --timeout { set ::cfg(file_timeout) $val; incr i }
        --help - -h {
            puts "usage: tclsh tests/test_helper.tcl ?--server PATH? ?--jobs N? ?--single FILE ...?"
            puts "       ?--only GLOB? ?--tags 'tag -tag'? ?--verbose? ?--timeout SECONDS?"
            exit 0
        }
        default { puts stderr "unknown option $opt"; exit 2 }
    }
}
foreach t $tagspec {
    if {[string index $t 0] eq "-"} {
        lappend ::cfg(deny_tags) [string range $t 1 end]
    } else {
        lappend ::cfg(allow_tags) $t
    }
}
if {$::cfg(server) eq {}} {
    if {[info exists ::env(VALKEY_SERVER)] && $::env(VALKEY_SERVER) ne {}} {
        set ::cfg(server) $::env(VALKEY_SERVER)
    } else {
        set ::cfg(server) [file join $::rootdir src valkey-server]
    }
}
set ::cfg(server) [file normalize $::cfg(server)]

# ---------------------------------------------------------------- worker mode

proc run_worker {file} {
    set ::cfg(file) [file join {*}[lrange [file split $file] end-1 end]]
    foreach lib {resp util server cluster bus valkey8_packets slot_migration} { source [file join $::testdir support $lib.tcl] }
    cd $::rootdir
    if {[catch {uplevel #0 [list source $file]} err opts]} {
        set info [dict get $opts -errorinfo]
        ::testutil::report_err "(test file aborted)" $info
    }
    # Leftover servers (body aborted by an uncaught error) are stopped here.
    foreach s [lreverse $::srv::stack] { catch {::srv::stop [dict get $s pid]} }
    if {$::testutil::failed == 0} { ::srv::remove_made_dirs }
    ::testutil::emit done {} {}
    flush stdout
    exit 0
}

if {$::cfg(worker) ne {}} {
    run_worker $::cfg(worker)
}

# ---------------------------------------------------------------- runner mode

if {![file executable $::cfg(server)]} {
    puts stderr "server binary not found: $::cfg(server) (use --server or VALKEY_SERVER)"
    exit 2
}

if {[llength $singles]} {
    set files {}
    foreach f $singles { lappend files [file normalize $f] }
} else {
    set files {}
    foreach d {unit integration cluster} {
        lappend files {*}[lsort [glob -nocomplain -directory [file join $::testdir $d] *.tcl]]
    }
}

array set totals {ok 0 err 0 skip 0}
set queue $files
set running {}             ;# chan -> {file slot start pids output done}
set free_slots {}
for {set s 0} {$s < $::cfg(jobs)} {incr s} { lappend free_slots $s }

proc short {file} { return [file join {*}[lrange [file split $file] end-1 end]] }

proc decode {line} {
    return [subst -nocommands -novariables [string range $line 3 end]]
}

proc start_worker {file slot} {
    set cmd [list [info nameofexecutable] [info script] --worker $file --slot $slot \
                 --server $::cfg(server)]
    if {$::cfg(verbose)} { lappend cmd --verbose }
    if {$::cfg(only) ne {}} { lappend cmd --only $::cfg(only) }
    set tags {}
    foreach t $::cfg(allow_tags) { lappend tags $t }
    foreach t $::cfg(deny_tags) { lappend tags -$t }
    if {[llength $tags]} { lappend cmd --tags [join $tags] }
    set chan [open "|[join [lmap a $cmd {list $a}]] 2>@1" r]
    fconfigure $chan -blocking 0 -buffering line -translation lf
    dict set ::running $chan [dict create file $file slot $slot start [clock seconds] \
                                  output {} done 0 pids {}]
    fileevent $chan readable [list worker_readable $chan]
    if {$::cfg(verbose)} { puts "\[start\] [short $file] (worker slot $slot)" }
}

proc worker_readable {chan} {
    while {[gets $chan line] >= 0} {
        if {[string range $line 0 2] eq "@@ "} {
            handle_record $chan [decode $line]
        } else {
            dict with ::running $chan { lappend output $line }
            if {$::cfg(verbose)} { puts "    | $line" }
        }
    }
    if {[eof $chan]} { finish_worker $chan }
}

proc handle_record {chan rec} {
    lassign $rec type file name detail
    switch -- $type {
        ok   { incr ::totals(ok); puts "\[ok\] $file: $name" }
        skip { incr ::totals(skip); puts "\[skip\] $file: $name ($detail)" }
        err  {
            incr ::totals(err)
            puts "\[err\] $file: $name"
            foreach l [split $detail \n] { puts "    $l" }
            lappend ::failures "$file: $name" [lindex [split $detail \n] 0]
        }
        log  { foreach l [split $detail \n] { puts "    $l" } }
        spawn { dict set ::running $chan pids $detail 1 }
        reaped { dict unset ::running $chan pids $detail }
        done { dict set ::running $chan done 1 }
    }
    flush stdout
}

proc finish_worker {chan {reason {}}} {
    set w [dict get $::running $chan]
    fconfigure $chan -blocking 1
    set rc [catch {close $chan} err]
    dict unset ::running $chan
    lappend ::free_slots [dict get $w slot]
    # servers the worker left running (it crashed or was killed)
    foreach p [dict keys [dict get $w pids]] { catch {exec kill -KILL $p} }
    if {![dict get $w done]} {
        incr ::totals(err)
        set why [expr {$reason ne {} ? $reason : "worker exited unexpectedly"}]
        puts "\[err\] [short [dict get $w file]]: (test file crashed: $why)"
        lappend ::failures "[short [dict get $w file]]: (test file crashed)" $why
        foreach l [lrange [dict get $w output] end-40 end] { puts "    | $l" }
        if {$rc} { foreach l [split $err \n] { puts "    $l" } }
    } elseif {$::cfg(verbose)} {
        puts "\[done\] [short [dict get $w file]] in [expr {[clock seconds] - [dict get $w start]}]s"
    }
    schedule
}

proc schedule {} {
    while {[llength $::queue] && [llength $::free_slots]} {
        set file [lindex $::queue 0]
        set ::queue [lrange $::queue 1 end]
        set slot [lindex $::free_slots 0]
        set ::free_slots [lrange $::free_slots 1 end]
        start_worker $file $slot
    }
    if {![llength $::queue] && ![dict size $::running]} { set ::all_done 1 }
}

proc check_timeouts {} {
    dict for {chan w} $::running {
        if {[clock seconds] - [dict get $w start] > $::cfg(file_timeout)} {
            # its servers are killed by finish_worker (from their spawn records)
            foreach p [pid $chan] { catch {exec kill -KILL $p} }
            finish_worker $chan "timeout after $::cfg(file_timeout)s"
        }
    }
    after 1000 check_timeouts
}

set ::all_done 0
set ::failures {}
schedule
after 1000 check_timeouts
if {!$::all_done} { vwait ::all_done }

# CI keeps only the tail of the output: name the failures again just above the totals
if {[llength $::failures]} {
    puts "Failed:"
    foreach {name first} $::failures { puts "  $name\n      $first" }
}
puts "$totals(ok) passed, $totals(err) failed, $totals(skip) skipped"
exit [expr {$totals(err) == 0 ? 0 : 1}]
