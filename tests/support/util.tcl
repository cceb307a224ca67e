# Test definitions, assertions and small helpers.
#
#   test name body                   ;# one test; failures/errors are reported, never fatal
#   tags {t ...} body                ;# run body with extra tags (filtered by --tags)
#   skip_deliberate reason           ;# inside a test: skip it on purpose (counted as skipped)
#   skip reason                      ;# a skip nobody decided on: counted as a failure
#   fail msg                         ;# fail the current test, from any call depth
#   require_peer path package        ;# fail unless an interop peer binary is installed
#   assert expr | assert_equal exp got ?detail? | assert_not_equal a b
#   assert_match pattern got | assert_no_match pattern got | assert_error pattern body
#   assert_range value min max | assert_morethan v min | assert_lessthan v max
#   assert_type type key | assert_encoding enc key
#   wait_for_condition maxtries delay_ms cond ?else? else_script
#   within_ttl ms setup body ?undo?  ;# body while a key set with a TTL is surely alive
#   wait_until_ms clock_ms           ;# until the client clock has passed clock_ms
#   status client field | s ?-N? field  ;# INFO field of a client / of server -N
#   info_field info_text field       ;# field of an INFO reply text
#   debug_sleep seconds | csvdump ?client? | log_contains pattern ?level?
#   wait_for_log pattern ?tries? ?delay? ?level?

namespace eval ::testutil {
    variable passed 0
    variable failed 0
    variable skipped 0
    variable current_test {}
    variable test_clients {}
    variable test_failures {}   ;# messages of every fail in the current test, caught or not
}
set ::test_tags {}

# ---- reporting (records are read by the runner; see test_helper.tcl) ----

proc ::testutil::emit {type name {detail {}}} {
    set rec [list $type $::cfg(file) $name $detail]
    puts stdout "@@ [string map [list \\ \\\\ \n \\n \r \\r] $rec]"
    flush stdout
}
proc ::testutil::report_ok {name} { variable passed; incr passed; emit ok $name }
proc ::testutil::report_err {name detail} { variable failed; incr failed; emit err $name $detail }
proc ::testutil::report_skip {name reason} { variable skipped; incr skipped; emit skip $name $reason }
proc ::testutil::log {text} { emit log {} $text }

proc ::testutil::tags_allowed {} {
    foreach t $::cfg(deny_tags) { if {$t in $::test_tags} { return 0 } }
    foreach t $::cfg(allow_tags) { if {$t ni $::test_tags} { return 0 } }
    return 1
}

proc tags {tags body} {
    set ::test_tags [concat $::test_tags $tags]
    try {
        uplevel 1 $body
    } finally {
        set ::test_tags [lrange $::test_tags 0 end-[llength $tags]]
    }
}

# For files whose tests share one long-lived server (as users' servers live): once the test's
# own clients are gone, nothing is left blocked, waiting on a key, or WATCHing one (INFO
# clients), so a scenario that leaves state behind fails itself rather than a later one.
proc assert_server_idle {} {
    foreach c $::testutil::test_clients { catch {$c close} }
    set ::testutil::test_clients {}
    set fields {blocked_clients total_blocking_keys watching_clients total_watched_keys}
    wait_for_condition 200 10 {
        [s blocked_clients] == 0 && [s total_blocking_keys] == 0 &&
        [s watching_clients] == 0 && [s total_watched_keys] == 0
    } else {
        set left {}
        foreach f $fields { lappend left "$f [s $f]" }
        ::testutil::fail "left behind: [join $left {, }]"
    }
}

proc test {name body args} {
    if {[llength $args]} {
        # optional trailing tag list: test name body {tags}
        return [uplevel 1 [list tags [lindex $args 0] [list test $name $body]]]
    }
    if {![::testutil::tags_allowed]} return
    if {$::cfg(only) ne {} && ![string match $::cfg(only) $name]} return
    set ::testutil::current_test $name
    set ::testutil::test_clients {}
    set ::testutil::test_failures {}
    set start [clock milliseconds]
    set code [catch {uplevel 1 $body} msg opts]
    set ms [expr {[clock milliseconds] - $start}]
    set failures $::testutil::test_failures
    # A server that died during the test fails it, and its log goes with any other failure.
    set dead [::testutil::dead_server]
    set died [expr {$dead ne {} ? "\nserver died\n$dead" : {}}]
    set ec [expr {$code == 1 ? [dict get $opts -errorcode] : {}}]
    if {$code == 1 && [lindex $ec 0] eq "ASSERTION"} {
        # A failed check counts even if something between it and the body caught the error.
        ::testutil::report_err $name $msg$died
    } elseif {[llength $failures]} {
        ::testutil::report_err $name "[join $failures \n]\n(this failure was caught inside the test; it still fails it)$died"
    } elseif {$code == 1 && [lindex $ec 0] eq "TESTSKIP" && $dead eq {}} {
        if {[lindex $ec 1] eq "deliberate"} {
            ::testutil::report_skip $name $msg
        } else {
            ::testutil::report_err $name "skipped without being marked deliberate (skip_deliberate): $msg"
        }
    } elseif {$code == 1} {
        set info [dict get $opts -errorinfo]
        if {!$::cfg(verbose)} { set info [::testutil::short_errorinfo $msg $info] }
        ::testutil::report_err $name "exception: $info$died"
    } elseif {$code == 3 || $code == 4} {
        ::testutil::report_err $name "[expr {$code == 3 ? "break" : "continue"}] outside a loop ended the test body$died"
    } elseif {$code != 0 && $code != 2} {
        ::testutil::report_err $name "test body ended with return code $code: $msg$died"
    } elseif {$dead ne {}} {
        ::testutil::report_err $name [string range $died 1 end]
    } else {
        ::testutil::report_ok $name
        if {$::cfg(verbose)} { ::testutil::log "  ($name: ${ms}ms)" }
    }
    set ::testutil::current_test {}
    set ::testutil::test_failures {}
    foreach c $::testutil::test_clients { catch {$c close} }
    set ::testutil::test_clients {}
    return
}

# A server of the stack that died without the test expecting it: marks it reported and
# returns the tail of its log; empty when all are alive.
proc ::testutil::dead_server {} {
    for {set i [expr {[llength $::srv::stack] - 1}]} {$i >= 0} {incr i -1} {
        set s [lindex $::srv::stack $i]
        if {[dict exists $s expect_exit] || [dict exists $s died_reported]} continue
        if {[::srv::alive [dict get $s pid]]} continue
        lset ::srv::stack $i [dict replace $s died_reported 1]
        return "server on port [dict get $s port] (pid [dict get $s pid]) is gone\n[::srv::log_tail $s]"
    }
    return {}
}

# The error message plus the command of the test body that raised it.
proc ::testutil::short_errorinfo {msg info} {
    set lines [split $info \n]
    set idx [lsearch -exact -all $lines {"uplevel 1 $body"}]
    if {![llength $idx]} { return $msg }
    set i [lindex $idx end]
    set where {}
    for {set j [expr {$i - 1}]} {$j > 0} {incr j -1} {
        if {[string match {*("uplevel" body line *} [lindex $lines $j]]} {
            set where "[string trim [lindex $lines [expr {$j - 1}]]] [string trim [lindex $lines $j]]"
            break
        }
    }
    return "$msg\n    at: $where"
}

# A skip someone decided on (the reason says why the test cannot apply here).
proc skip_deliberate {reason} {
    return -code error -errorcode {TESTSKIP deliberate} $reason
}

# Any other skip fails the test: a missing tool or peer is a broken setup, not a pass.
proc skip {reason} {
    return -code error -errorcode {TESTSKIP undecided} $reason
}

# ---- assertions ----

# Fails the current test from any call depth: raises an error in the caller, and records the
# message so that a `catch` between the check and the test body cannot turn it into a pass.
proc ::testutil::fail {msg} {
    if {$::testutil::current_test ne {}} { lappend ::testutil::test_failures $msg }
    return -code error -errorcode ASSERTION $msg
}
proc fail {msg} {
    if {$::testutil::current_test ne {}} { lappend ::testutil::test_failures $msg }
    return -code error -errorcode ASSERTION $msg
}

# Whether the other end closed socket `fd` within timeout_ms (what it sent is read and dropped).
proc closed_by_peer {fd timeout_ms} {
    fconfigure $fd -blocking 0
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[clock milliseconds] < $deadline} {
        if {[catch {read $fd}] || [eof $fd]} { return 1 }
        after 10
    }
    return 0
}

# What a raw socket receives within ms milliseconds (a replication stream, say); the socket
# stays open and in its blocking mode.
proc read_for {fd ms} {
    set blocking [fconfigure $fd -blocking]
    fconfigure $fd -blocking 0
    set got {}
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        append got [read $fd]
        after 20
    }
    fconfigure $fd -blocking $blocking
    return $got
}

# An interoperation peer (redis-server, redis-cli ...) that `make test` installs: missing, it
# is a broken setup and fails the test that needs it.
proc require_peer {path package} {
    if {![file executable $path]} {
        ::testutil::fail "$path is missing: install the Debian package '$package' (make test does)"
    }
    return $path
}

proc assert {cond {detail {}}} {
    if {![uplevel 1 [list expr $cond]]} {
        set m "assertion failed: $cond"
        catch {append m " (evaluated: [uplevel 1 [list subst -nocommands $cond]])"}
        if {$detail ne {}} { append m " -- $detail" }
        ::testutil::fail $m
    }
}

proc assert_equal {expected got {detail {}}} {
    if {$expected ne $got} {
        set m "expected: '$expected'\n     got: '$got'"
        if {$detail ne {}} { append m "\n  detail: $detail" }
        ::testutil::fail $m
    }
}

proc assert_not_equal {a b {detail {}}} {
    if {$a eq $b} { ::testutil::fail "expected something other than '$a' $detail" }
}

proc assert_match {pattern got {detail {}}} {
    if {![string match $pattern $got]} {
        set m "expected to match: '$pattern'\n                got: '$got'"
        if {$detail ne {}} { append m "\n  detail: $detail" }
        ::testutil::fail $m
    }
}

proc assert_no_match {pattern got} {
    if {[string match $pattern $got]} { ::testutil::fail "'$got' should not match '$pattern'" }
}

proc assert_error {pattern body} {
    if {[catch {uplevel 1 $body} err]} {
        if {![string match $pattern $err]} {
            ::testutil::fail "expected error matching: '$pattern'\n                   got error: '$err'"
        }
        return $err
    }
    ::testutil::fail "expected error matching '$pattern' but got a reply: '$err'"
}

proc assert_range {value min max} {
    if {!([string is double -strict $value] && $value >= $min && $value <= $max)} {
        ::testutil::fail "expected $value in range \[$min, $max\]"
    }
}
proc assert_morethan {value min} {
    if {!([string is double -strict $value] && $value > $min)} {
        ::testutil::fail "expected $value > $min"
    }
}
proc assert_morethan_equal {value min} {
    if {!([string is double -strict $value] && $value >= $min)} {
        ::testutil::fail "expected $value >= $min"
    }
}
proc assert_lessthan {value max} {
    if {!([string is double -strict $value] && $value < $max)} {
        ::testutil::fail "expected $value < $max"
    }
}
proc assert_type {type key} { assert_equal $type [r type $key] "type of $key" }
proc assert_encoding {enc key} { assert_equal $enc [r object encoding $key] "encoding of $key" }

# ---- waiting ----

# wait_for_condition maxtries delay_ms cond ?else? else_script
proc wait_for_condition {maxtries delay cond args} {
    if {[lindex $args 0] eq "else"} { set args [lrange $args 1 end] }
    set else_script [lindex $args 0]
    while {$maxtries > 0} {
        if {[uplevel 1 [list expr $cond]]} return
        incr maxtries -1
        after $delay
    }
    if {$else_script eq {}} { ::testutil::fail "condition never became true: $cond" }
    uplevel 1 $else_script
}

# Short TTLs on a busy machine: runs `setup` (which sets a key with a TTL of $ttl ms; the
# caller's variable ttl is set) and then `body`, and checks that body was done before the
# TTL could have run out. If it was not, it runs `undo` and tries again with a TTL ten times
# longer. Returns the client clock (ms) after which the key has surely expired.
proc within_ttl {start_ttl setup body {undo {}}} {
    upvar 1 ttl ttl
    set ttl $start_ttl
    for {set try 0} {$try < 3} {incr try} {
        set t0 [clock milliseconds]
        uplevel 1 $setup
        set t1 [clock milliseconds]
        uplevel 1 $body
        if {[clock milliseconds] - $t0 < $ttl} { return [expr {$t1 + $ttl}] }
        uplevel 1 $undo
        set ttl [expr {$ttl * 10}]
    }
    ::testutil::fail "the machine is too busy: [expr {$ttl / 10}] ms were not enough for: $body"
}

proc wait_until_ms {t} {
    while {[clock milliseconds] <= $t} { after [expr {min(50, $t + 1 - [clock milliseconds])}] }
}

# ---- INFO helpers ----

proc info_field {info field} {
    foreach line [split $info "\r\n"] {
        if {[string match "$field:*" $line]} {
            return [string range $line [expr {[string length $field] + 1}] end]
        }
    }
    return {}
}

# status client field: `client` is `r` or a client object.
proc status {client field} {
    return [info_field [uplevel 1 [list $client info]] $field]
}

# s ?-N? field: INFO field of server -N via its cached client.
proc s {args} {
    set level [::srv::level_arg args]
    if {$level == 0} { set info [r info] } else { set info [r $level info] }
    return [info_field $info [lindex $args 0]]
}

proc debug_sleep {seconds} { r debug sleep $seconds }

# The value of field `f` in a CLIENT LIST / CLIENT INFO line (or a log line quoting one).
proc client_field {line f} {
    if {![regexp "(?:^| )$f=(\\S*)" $line -> v]} { error "no field $f in: $line" }
    return $v
}

# ---- log helpers ----

proc log_contains {pattern {level 0}} {
    set text [::srv::file_tail [srv $level log] 100000]
    return [string match $pattern $text]
}

proc wait_for_log {pattern {tries 100} {delay 50} {level 0}} {
    while {$tries > 0} {
        if {[log_contains $pattern $level]} return
        incr tries -1
        after $delay
    }
    ::testutil::fail "log never matched '$pattern'"
}

# ---- files, bytes as they are ----

proc read_binary {path} {
    set f [open $path rb]
    set d [read $f]
    close $f
    return $d
}

proc write_binary {path data} {
    set f [open $path wb]
    puts -nonewline $f $data
    close $f
}

# ---- dataset dump: one CSV line per key, sorted ----

proc csvdump {{client r}} {
    set out {}
    foreach key [lsort [$client keys *]] {
        set type [$client type $key]
        set line [list $key $type]
        switch -- $type {
            string { lappend line [$client get $key] }
            list { lappend line {*}[$client lrange $key 0 -1] }
            set { lappend line {*}[lsort [$client smembers $key]] }
            hash {
                set d [$client hgetall $key]
                foreach f [lsort [dict keys $d]] { lappend line $f [dict get $d $f] }
            }
            zset { lappend line {*}[$client zrange $key 0 -1 withscores] }
            default { lappend line ? }
        }
        set quoted {}
        foreach field $line { lappend quoted "\"[string map {\" \"\"} $field]\"" }
        append out [join $quoted ,] \n
    }
    return $out
}

# Random bytes/strings.
proc randstring {len {alphabet alnum}} {
    set s {}
    switch -- $alphabet {
        binary { for {set i 0} {$i < $len} {incr i} { append s [format %c [expr {int(rand()*256)}]] } }
        alnum {
            set chars abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
            for {set i 0} {$i < $len} {incr i} { append s [string index $chars [expr {int(rand()*62)}]] }
        }
    }
    return $s
}

# ---- The replication stream as a replica sees it ----
# repl_tap_open ?-N?: a raw replica of server -N (PSYNC ? -1, no capa eof: the snapshot comes
# as $<len>), positioned after the snapshot. repl_tap_next reads the next propagated command
# as a list, skipping PING (the primary's keepalive).
proc ::testutil::tap_read {fd n timeout_ms} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    set buf {}
    while {[string length $buf] < $n} {
        set chunk [read $fd [expr {$n - [string length $buf]}]]
        if {$chunk eq ""} {
            if {[eof $fd]} { error "replication stream closed" }
            if {[clock milliseconds] > $deadline} { error "replication stream: timeout" }
            after 5
            continue
        }
        append buf $chunk
    }
    return $buf
}
proc ::testutil::tap_line {fd timeout_ms} {
    set line {}
    while {[string range $line end-1 end] ne "\r\n"} {
        append line [::testutil::tap_read $fd 1 $timeout_ms]
    }
    return [string range $line 0 end-2]
}
proc repl_tap_open {args} {
    set fd [valkey_raw {*}$args]
    fconfigure $fd -blocking 0
    puts -nonewline $fd "*3\r\n\$5\r\nPSYNC\r\n\$1\r\n?\r\n\$2\r\n-1\r\n"
    flush $fd
    set line [::testutil::tap_line $fd 5000]
    if {![string match "+FULLRESYNC *" $line]} { error "unexpected PSYNC reply: $line" }
    # Newlines keep the link alive while the snapshot is made.
    set line [string trimleft [::testutil::tap_line $fd 10000] "\n"]
    if {![string match {$*} $line]} { error "unexpected snapshot preamble: $line" }
    ::testutil::tap_read $fd [string range $line 1 end] 10000
    return $fd
}
proc repl_tap_next {fd {timeout_ms 5000}} {
    while 1 {
        set head [::testutil::tap_line $fd $timeout_ms]
        if {[string index $head 0] ne "*"} { error "unexpected stream line: $head" }
        set cmd {}
        for {set i 0} {$i < [string range $head 1 end]} {incr i} {
            set len [string range [::testutil::tap_line $fd $timeout_ms] 1 end]
            lappend cmd [::testutil::tap_read $fd $len $timeout_ms]
            ::testutil::tap_read $fd 2 $timeout_ms
        }
        if {[string toupper [lindex $cmd 0]] ne "PING"} { return $cmd }
    }
}

# The system calls of a process's main thread (strace, a test dependency), for tests that
# assert an order between a log line, an fsync and a socket write. strace_start returns a
# handle once attached; strace_stop detaches and returns the calls, one per element.
proc strace_start {pid calls} {
    set out /tmp/vtest-strace-[pid]-$pid-[clock milliseconds]
    set tracer [exec strace -q -s 200 -e trace=$calls -o $out -p $pid 2>/dev/null &]
    wait_for_condition 200 10 {[strace_tracer_of $pid] == $tracer} else {
        catch {exec kill $tracer}
        fail "strace could not attach to $pid"
    }
    return [list $tracer $out]
}

proc strace_tracer_of {pid} {
    set f [open /proc/$pid/status]
    set s [read $f]
    close $f
    regexp {TracerPid:\s*(\d+)} $s -> t
    return $t
}

proc strace_stop {handle} {
    lassign $handle tracer out
    exec kill -INT $tracer
    # gone, or a zombie of this process: either way it has detached and written all
    wait_for_condition 200 10 {![::srv::alive $tracer]} else { fail "strace did not stop" }
    set f [open $out]
    set lines [split [read $f] "\n"]
    close $f
    file delete $out
    return $lines
}

# Index of the first element of `lines` at or after `from` that matches glob `pattern`, -1 if
# none.
proc lsearch_from {lines from pattern} {
    set i [lsearch -glob [lrange $lines $from end] $pattern]
    return [expr {$i < 0 ? -1 : $i + $from}]
}

# Asserts that in `calls` (from strace_stop), after the first call matching glob `mark`, an
# fsync comes before the first write matching glob `write` (`what` names it in a failure).
proc assert_fsync_first {calls mark write what} {
    set from [lsearch_from $calls 0 $mark]
    assert {$from >= 0} "no call matches $mark"
    set sync [lsearch_from $calls $from {f*sync(*}]
    set w [lsearch_from $calls $from $write]
    set seen [lmap l [lrange $calls $from end] {string range $l 0 90}]
    assert {$sync > 0 && $w > 0} "fsync at $sync, $what at $w:\n[join $seen \n]"
    assert {$sync < $w} "$what before the fsync:\n[join $seen \n]"
}

# CRC-64/Jones as DUMP payloads use it (reflected, poly 0xad93d23594c935a9), to craft payloads
# by hand (with_crc appends it, little endian).
proc crc64_jones {data} {
    set poly 0x95AC9329AC4BC9B5
    set mask 0xFFFFFFFFFFFFFFFF
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {$crc ^ $b}]
        for {set i 0} {$i < 8} {incr i} {
            if {$crc & 1} {
                set crc [expr {(($crc >> 1) ^ $poly) & $mask}]
            } else {
                set crc [expr {$crc >> 1}]
            }
        }
    }
    return $crc
}

proc with_crc {body} {
    set crc [crc64_jones $body]
    return "$body[binary format w $crc]"
}
