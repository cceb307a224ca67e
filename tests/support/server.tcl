# Starting and stopping server processes for tests.
#
#   start_server {?config {k v ...}? ?overrides {k v ...}? ?args {...}? ?tags {...}?
#                 ?keep_persistence 0|1? ?wait_ready 0|1?} body
#   srv ?level? key             ;# level 0 = innermost (default), -1 = enclosing server ...
#                               ;# keys: host port pid dir config_file stdout stderr log client
#   r ?-N? cmd args...          ;# command on a cached client of server -N
#   valkey_client ?-N?          ;# new client object (close it with $c close)
#   valkey_raw ?-N?             ;# new raw socket (binary, blocking) to server -N
#   server_try_start config_text ?args? ?timeout_ms?
#                               ;# start a server expected to exit; returns {exit_code output}
#   restart_server              ;# restart the innermost server with the same config/dir
#   kill_server / server_alive ?level? / reconnect ?level?
#
# Every server gets a fresh /tmp/vtest-* dir with server.conf (defaults below + options +
# port/dir/logfile), server.log, stdout and stderr.  The dir is deleted after the block
# unless a test failed or the server died; ports come from the worker's own range.

namespace eval ::srv {
    variable stack {}        ;# list of dicts, innermost last
    variable next_port 0
}

proc ::srv::port_free {port} {
    if {[catch {socket -server {apply {args {}}} -myaddr 127.0.0.1 $port} s]} { return 0 }
    close $s
    return 1
}

# Ports come from a range owned by this worker (see test_helper --worker-slot), so parallel
# workers never race for the same port.  The cluster bus port (port+10000) is also checked.
proc ::srv::find_free_port {} {
    variable next_port
    set base [expr {$::cfg(port_base) + $::cfg(slot) * $::cfg(port_span)}]
    for {set i 0} {$i < $::cfg(port_span)} {incr i} {
        set port [expr {$base + ($next_port % $::cfg(port_span))}]
        incr next_port
        if {[port_free $port] && [port_free [expr {$port + 10000}]]} { return $port }
    }
    error "no free port in range $base..[expr {$base + $::cfg(port_span) - 1}]"
}

proc ::srv::quote {v} {
    if {$v ne {} && ![regexp {[\s"'\\]} $v]} { return $v }
    return "\"[string map [list \\ \\\\ \" \\\" \n \\n \r \\r \t \\t] $v]\""
}

proc ::srv::alive {pid} {
    if {[catch {open /proc/$pid/stat r} f]} { return 0 }
    set stat [read $f]
    close $f
    # state is the field after the parenthesised command name
    set state [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
    return [expr {$state ne "Z" && $state ne "X"}]
}

proc ::srv::file_tail {path {lines 40}} {
    if {![file exists $path]} { return "" }
    set f [open $path r]
    fconfigure $f -translation binary
    set data [read $f]
    close $f
    return [join [lrange [split [string trimright $data \n] \n] end-[expr {$lines - 1}] end] \n]
}

# The last lines of the server's log, stdout and stderr; for a crash, the start of the
# crash report instead of the (long) end of it.
proc ::srv::log_tail {s {lines 40}} {
    set out ""
    foreach k {log stdout stderr} {
        set all [split [file_tail [dict get $s $k] 100000] \n]
        if {![llength $all]} continue
        set i [lsearch -regexp $all {BUG REPORT START|crashed by signal|AddressSanitizer|Assertion|terminate called|Segmentation}]
        if {$i >= 0} {
            set t [join [lrange $all [expr {max(0, $i - 5)}] [expr {$i + $lines}]] \n]
            append out "---- [dict get $s $k] (crash report)\n$t\n"
        } else {
            set t [join [lrange $all end-[expr {$lines - 1}] end] \n]
            append out "---- [dict get $s $k] (tail)\n$t\n"
        }
    }
    return $out
}

proc ::srv::make_dir {} {
    set base [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}]
    for {set i 0} {1} {incr i} {
        set d [file join $base "vtest-[pid]-[clock milliseconds]-$i"]
        if {![file exists $d]} {
            file mkdir $d
            lappend ::srv::made_dirs $d
            return $d
        }
    }
}

# Every directory the file's tests made, once the file has passed whole (a failure keeps them
# all, for its logs): servers that exited as a test expected, files tests made for themselves.
set ::srv::made_dirs {}
proc ::srv::remove_made_dirs {} {
    foreach d $::srv::made_dirs { catch {file delete -force $d} }
    set ::srv::made_dirs {}
}

# Default directives; test options override them.
proc ::srv::default_config {} {
    return {
        bind 127.0.0.1
        daemonize no
        save ""
        appendonly no
        enable-debug-command yes
        enable-protected-configs yes
    }
}

# Keys user, user:2, user:3 ... are ACL user lines, written as given (rules are words).
proc ::srv::write_config {path conf} {
    set f [open $path w]
    foreach {k v} $conf {
        if {[string match user* $k]} { puts $f "user $v"; continue }
        puts $f "$k [quote $v]"
    }
    close $f
}

proc ::srv::spawn {s} {
    set cmd [list exec $::cfg(server) [dict get $s config_file] {*}[dict get $s args] \
                 > [dict get $s stdout] 2> [dict get $s stderr] &]
    set pid [lindex [eval $cmd] 0]
    ::testutil::emit spawn {} $pid
    return $pid
}

proc ::srv::wait_ready {s {timeout_ms 20000}} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    set pid [dict get $s pid]
    while {[clock milliseconds] < $deadline} {
        if {![alive $pid]} {
            error "server exited during startup\n[log_tail $s]"
        }
        if {![catch {::resp::client [dict get $s host] [dict get $s port] 1000} c]} {
            $c timeout 2000
            set rc [catch {$c ping} reply]
            set ok [expr {$reply eq "PONG" || ($rc && [string match NOAUTH* $reply])}]
            $c close
            if {$ok} return
        }
        after 50
    }
    error "server did not become ready in ${timeout_ms}ms\n[log_tail $s]"
}

proc ::srv::stop {pid {timeout_ms 10000}} {
    ::testutil::emit reaped {} $pid
    if {![alive $pid]} return
    catch {exec kill -TERM $pid}
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[alive $pid] && [clock milliseconds] < $deadline} { after 20 }
    if {[alive $pid]} {
        catch {exec kill -KILL $pid}
        while {[alive $pid]} { after 10 }
    }
}

proc ::srv::close_clients {s} {
    if {[dict exists $s client] && [dict get $s client] ne {}} {
        catch {[dict get $s client] close}
    }
}

proc start_server {options body} {
    set conf [::srv::default_config]
    set extra_args {}
    set tags {}
    set keep_persistence 0
    set wait_ready 1
    foreach {opt val} $options {
        switch -- $opt {
            config - overrides { foreach {k v} $val { dict set conf $k $v } }
            args { set extra_args $val }
            tags { set tags $val }
            keep_persistence { set keep_persistence $val }
            wait_ready { set wait_ready $val }
            default { error "start_server: unknown option '$opt'" }
        }
    }
    set ::test_tags [concat $::test_tags $tags]
    try {
        if {![::testutil::tags_allowed]} {
            return
        }
        set dir [::srv::make_dir]
        set port [::srv::find_free_port]
        dict set conf port $port
        dict set conf dir $dir
        dict set conf logfile [file join $dir server.log]
        set s [dict create host 127.0.0.1 port $port dir $dir \
                   config_file [file join $dir server.conf] \
                   stdout [file join $dir stdout] stderr [file join $dir stderr] \
                   log [file join $dir server.log] args $extra_args client {} \
                   conf $conf]
        ::srv::write_config [dict get $s config_file] $conf
        dict set s pid [::srv::spawn $s]
        if {$wait_ready && [catch {::srv::wait_ready $s} err]} {
            ::srv::stop [dict get $s pid]
            error "start_server: $err\n(server dir kept: $dir)"
        }
        lappend ::srv::stack $s
        set failures_before $::testutil::failed
        set code [catch {uplevel 1 $body} result opts]
        # The body may have restarted the server: pick up the current entry.
        set s [lindex $::srv::stack end]
        set ::srv::stack [lrange $::srv::stack 0 end-1]
        ::srv::close_clients $s
        set died [expr {![::srv::alive [dict get $s pid]]}]
        if {$died && ![dict exists $s expect_exit] && ![dict exists $s died_reported]} {
            ::testutil::report_err "server on port [dict get $s port]" \
                "server process [dict get $s pid] is not running at end of block\n[::srv::log_tail $s]"
        }
        ::srv::stop [dict get $s pid]
        if {$::testutil::failed > $failures_before || $died || $code == 1} {
            if {!$died && $::testutil::failed > $failures_before} {
                ::testutil::log "server log kept in $dir\n[::srv::log_tail $s 20]"
            }
        } elseif {!$keep_persistence} {
            file delete -force $dir
        }
        if {$code == 1} {
            return -code error -errorinfo [dict get $opts -errorinfo] $result
        }
        return $result
    } finally {
        set ::test_tags [lrange $::test_tags 0 end-[llength $tags]]
    }
}

# Restart the innermost server, or the one at `level` (same dir, config file and port).
proc restart_server {{wait_ready 1} {level 0}} {
    set idx [::srv::index $level]
    set s [lindex $::srv::stack $idx]
    ::srv::close_clients $s
    dict set s client {}
    ::srv::stop [dict get $s pid]
    dict set s pid [::srv::spawn $s]
    lset ::srv::stack $idx $s
    if {$wait_ready} { ::srv::wait_ready $s }
}

# Marks the server at `level` as expected to be gone by the end of its block (it exits or
# crashes on purpose), its cached client dropped.
proc expect_server_exit {{level 0}} {
    set idx [::srv::index $level]
    set s [lindex $::srv::stack $idx]
    ::srv::close_clients $s
    dict set s client {}
    dict set s expect_exit 1
    lset ::srv::stack $idx $s
}

# Kill the innermost server (SIGKILL) and mark it as expected to be gone.
proc kill_server {{level 0}} {
    expect_server_exit $level
    set pid [srv $level pid]
    catch {exec kill -KILL $pid}
    while {[::srv::alive $pid]} { after 10 }
}

# The pids of the processes the server at `level` forked and that still run (its snapshot
# or diskless child), from /proc; empty when none.
proc server_children {{level 0}} {
    set pid [srv $level pid]
    if {[catch {open /proc/$pid/task/$pid/children r} f]} { return {} }
    set l [string trim [read $f]]
    close $f
    return $l
}

proc ::srv::index {level} {
    set idx [expr {[llength $::srv::stack] - 1 + $level}]
    if {$level > 0 || $idx < 0} { error "no server at level $level" }
    return $idx
}

proc srv {args} {
    if {[llength $args] == 1} {
        set level 0; set key [lindex $args 0]
    } else {
        lassign $args level key
    }
    set s [lindex $::srv::stack [::srv::index $level]]
    if {$key eq "log"} { return [dict get $s log] }
    return [dict get $s $key]
}

proc server_alive {{level 0}} { return [::srv::alive [srv $level pid]] }

proc ::srv::level_arg {argsvar} {
    upvar 1 $argsvar a
    set level 0
    if {[regexp {^-\d+$} [lindex $a 0]]} {
        set level [lindex $a 0]
        set a [lrange $a 1 end]
    }
    return $level
}

# Clients made inside a test are closed when the test ends (see `test`).
proc valkey_client {args} {
    set level [::srv::level_arg args]
    set c [::resp::client [srv $level host] [srv $level port]]
    if {$::testutil::current_test ne {}} { lappend ::testutil::test_clients $c }
    return $c
}

proc valkey_raw {args} {
    set level [::srv::level_arg args]
    set fd [socket [srv $level host] [srv $level port]]
    fconfigure $fd -translation binary -blocking 1
    return $fd
}

proc r {args} {
    set level [::srv::level_arg args]
    set idx [::srv::index $level]
    set s [lindex $::srv::stack $idx]
    set c [dict get $s client]
    if {$c eq {} || [info commands $c] eq {}} {
        set c [::resp::client [dict get $s host] [dict get $s port]]
        dict set s client $c
        lset ::srv::stack $idx $s
    }
    return [$c {*}$args]
}

# r at a nesting level: 0 is the innermost server, -1 the one around it, ...
proc r_at {level args} {
    if {$level == 0} { return [r {*}$args] }
    return [r $level {*}$args]
}

# Keys of every type and encoding (small and big lists, sets, sorted sets, hashes; int, short,
# long and compressible strings) on the server at a nesting level; their names are in
# $::every_type_keys.
set ::every_type_keys {s:int s:emb s:raw s:lzf l:small l:big set:int set:str set:big z:small
                       z:big h:small h:big h:longval}
proc fill_every_type {level} {
    r_at $level set s:int 12345
    r_at $level set s:emb hello
    r_at $level set s:raw [string repeat x 100]
    r_at $level set s:lzf [string repeat "abcdefgh" 200]
    r_at $level rpush l:small a b c 1 2 3
    for {set i 0} {$i < 2000} {incr i} { r_at $level rpush l:big "element-$i-[string repeat y 20]" }
    r_at $level sadd set:int 1 2 3 -4 100000
    r_at $level sadd set:str a b c
    for {set i 0} {$i < 600} {incr i} { r_at $level sadd set:big "m$i" }
    r_at $level zadd z:small 1 a 2.5 b -3 c
    for {set i 0} {$i < 300} {incr i} { r_at $level zadd z:big [expr {$i * 0.5}] "member$i" }
    r_at $level hset h:small f1 v1 f2 2
    for {set i 0} {$i < 700} {incr i} { r_at $level hset h:big "field$i" "value$i" }
    r_at $level hset h:longval f [string repeat z 100]
}

# The contents of a key on the server at a nesting level, in a canonical, comparable form.
proc key_contents {level key} {
    switch [r_at $level type $key] {
        string { return [r_at $level get $key] }
        list { return [r_at $level lrange $key 0 -1] }
        set { return [lsort [r_at $level smembers $key]] }
        zset { return [r_at $level zrange $key 0 -1 withscores] }
        hash { return [lsort -stride 2 [r_at $level hgetall $key]] }
        default { return "" }
    }
}

# Drop the cached client of server -N (the next `r` reconnects).
proc reconnect {{level 0}} {
    set idx [::srv::index $level]
    set s [lindex $::srv::stack $idx]
    ::srv::close_clients $s
    dict set s client {}
    lset ::srv::stack $idx $s
}

# Start a server that is expected to fail; returns {exit_code output} where output is
# stdout+stderr+logfile.  exit_code is "running" if the server was still up at timeout
# (it is then killed).
proc server_try_start {config_text {extra_args {}} {timeout_ms 5000}} {
    set dir [::srv::make_dir]
    set conffile [file join $dir server.conf]
    set f [open $conffile w]
    puts -nonewline $f $config_text
    close $f
    set out [file join $dir out]
    set rcfile [file join $dir rc]
    set script {"$0" "$@" > "$OUT" 2>&1; echo $? > "$RC"}
    set ::env(OUT) $out
    set ::env(RC) $rcfile
    set pid [exec sh -c $script $::cfg(server) $conffile {*}$extra_args &]
    unset ::env(OUT) ::env(RC)
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {![file exists $rcfile] && [clock milliseconds] < $deadline} { after 20 }
    after 20
    if {[file exists $rcfile]} {
        set code [string trim [::srv::file_tail $rcfile]]
    } else {
        set code running
        # the server is the child of the sh wrapper
        catch {exec pkill -TERM -P $pid}
        after 500
        catch {exec pkill -KILL -P $pid}
        ::srv::stop $pid
    }
    set output [::srv::file_tail $out 1000]
    file delete -force $dir
    return [list $code $output]
}
