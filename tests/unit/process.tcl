# Process-level directives: unixsocket, daemonize with pidfile, logfile with the start-up
# banner, protected mode.

start_server {tags {process}} {
    test "unixsocket: clients connect over the Unix socket" {
        set path [file join [srv 0 dir] node.sock]
        r config get unixsocket
        # The socket path is immutable: start a second node with it.
        set port [::srv::find_free_port]
        set pid [exec [file normalize $::cfg(server)] --port $port --unixsocket $path \
                     --unixsocketperm 700 --save {} --logfile [file join [srv 0 dir] sock.log] &]
        wait_for_condition 100 20 {[file exists $path]}
        assert_equal PONG [exec redis-cli -s $path ping]
        assert_equal OK [exec redis-cli -s $path set k v]
        assert_equal v [exec redis-cli -p $port get k]
        assert_match {*flags=U*} [exec redis-cli -s $path client info]
        assert_equal 700 [lindex [exec redis-cli -s $path config get unixsocketperm] 1]
        file stat $path st
        assert_equal 0700 [format %04o [expr {$st(mode) & 0777}]]
        catch {exec redis-cli -s $path shutdown nosave}
        wait_for_condition 100 20 {![file exists $path]}
    }
}

# The names of a process's threads.
proc thread_names {pid} {
    set names {}
    foreach f [glob -nocomplain /proc/$pid/task/*/comm] {
        if {[catch {set fd [open $f]}]} continue  ;# a thread that just ended
        lappend names [string trim [read $fd]]
        close $fd
    }
    return $names
}

start_server {tags {process}} {
    test "jemalloc-bg-thread: freed pages go back from jemalloc's own thread, on by default and switched by CONFIG SET" {
        assert_equal {jemalloc-bg-thread yes} [r config get jemalloc-bg-thread]
        assert {[lsearch [thread_names [srv pid]] jemalloc_bg_thd] >= 0}
        r config set jemalloc-bg-thread no
        wait_for_condition 100 20 {[lsearch [thread_names [srv pid]] jemalloc_bg_thd] < 0}
        assert_equal {jemalloc-bg-thread no} [r config get jemalloc-bg-thread]
        r config set jemalloc-bg-thread yes
        wait_for_condition 100 20 {[lsearch [thread_names [srv pid]] jemalloc_bg_thd] >= 0}
    }
}

# /proc/PID/cmdline as one string: the title, its padding dropped.
proc proc_title {pid} {
    set fd [open /proc/$pid/cmdline rb]
    set raw [read $fd]
    close $fd
    return [string trimright [string map [list "\0" " "] $raw]]
}

start_server {tags {process}} {
    test "Process title: Valkey 8's template by default, CONFIG SET proc-title-template, a child's title" {
        set pid [srv pid]
        assert_equal {proc-title-template {{title} {listen-addr} {server-mode}}} [r config get proc-title-template]
        assert_equal "$::cfg(server) 127.0.0.1:[srv port]" [proc_title $pid]
        r config set proc-title-template "TEST {title} {listen-addr} {port} {tls-port} {unixsocket} {config-file} \{\{x\}"
        assert_equal "TEST $::cfg(server) 127.0.0.1:[srv port] [srv port] 0  [file normalize [srv config_file]] {x}" [proc_title $pid]
        foreach bad [list "\{invalid-var\}" "\{port" "x \{" "   "] {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables" \
                {r config set proc-title-template $bad}
        }
        r config set proc-title-template "{title} on {port}"
        assert_equal "$::cfg(server) on [srv port]" [proc_title $pid]
        # a forked child says what it does; the environment still reads whole in the children
        r debug populate 1000
        r config set rdb-key-save-delay 2000
        r bgsave
        wait_for_condition 100 20 {[set child [exec sh -c "pgrep -P $pid || true"]] ne {}} else { fail "no child" }
        assert_equal "valkey-rdb-bgsave on [srv port]" [proc_title $child]
        r config set rdb-key-save-delay 0
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0} else { fail "save never ended" }
        assert_equal "$::cfg(server) on [srv port]" [proc_title $pid]
        r config set proc-title-template "{title} {listen-addr} {server-mode}"
    }
}

start_server {tags {process} config {jemalloc-bg-thread no}} {
    test "jemalloc-bg-thread no in the config file: no purging thread" {
        assert_equal {jemalloc-bg-thread no} [r config get jemalloc-bg-thread]
        assert {[lsearch [thread_names [srv pid]] jemalloc_bg_thd] < 0}
    }
}

start_server {tags {process}} {
    test "daemonize yes writes the pidfile, detaches, and SHUTDOWN removes the pidfile" {
        set dir [srv 0 dir]
        set pidfile [file join $dir node.pid]
        set port [::srv::find_free_port]
        exec [file normalize $::cfg(server)] --port $port --daemonize yes --pidfile $pidfile \
            --save {} --logfile [file join $dir daemon.log]
        # exec returned: the parent exited, the daemon runs on.
        wait_for_condition 100 20 {[file exists $pidfile]}
        set fd [open $pidfile]
        set pid [string trim [read $fd]]
        close $fd
        assert {[string is integer -strict $pid]}
        assert {[file exists /proc/$pid]}
        assert_equal PONG [exec redis-cli -p $port ping]
        assert_equal $pid [info_field [exec redis-cli -p $port info server] process_id]
        # jemalloc's purging thread is started in the daemon, after the fork that detached it.
        assert {[lsearch [thread_names $pid] jemalloc_bg_thd] >= 0}
        catch {exec redis-cli -p $port shutdown nosave}
        wait_for_condition 100 20 {![file exists /proc/$pid]}
        assert {![file exists $pidfile]}
    }

    test "logfile gets the start-up lines; always-show-logo prints the banner with the PID" {
        set dir [srv 0 dir]
        set log [file join $dir logo.log]
        set port [::srv::find_free_port]
        set pid [exec [file normalize $::cfg(server)] --port $port --always-show-logo yes \
                     --save {} --logfile $log &]
        wait_for_condition 100 20 {![catch {exec redis-cli -p $port ping}]}
        set fd [open $log]
        set text [read $fd]
        close $fd
        assert_match "* PID: $pid*" $text
        assert_match "*Running in standalone mode*" $text
        assert_match "*Server initialized*" $text
        assert_match "*Ready to accept connections tcp*" $text
        # Valkey's line format: pid:role dd Mon yyyy hh:mm:ss.mmm <level> message
        assert {[regexp "\n$pid:M \\d\\d \\w\\w\\w \\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\* Server initialized" $text]}
        catch {exec redis-cli -p $port shutdown nosave}
    }
}

# Protected mode needs a non-loopback address of this host to be meaningful.
set ::other_ip {}
catch {
    foreach ip [split [exec hostname -I]] {
        if {[string match *.*.*.* $ip] && ![string match 127.* $ip]} { set ::other_ip $ip; break }
    }
}

start_server {tags {process}} {
    test "Without a config file the node binds every interface, as Valkey 8; bind \"\" closes TCP" {
        set port [::srv::find_free_port]
        set dir [srv 0 dir]
        set pid [exec sh -c "cd $dir && exec [file normalize $::cfg(server)] --port $port --save '' --logfile nobind.log" &]
        try {
            wait_for_condition 100 20 {![catch {exec redis-cli -p $port ping}]} else { fail "no start" }
            assert_equal "bind\n* -::*" [exec redis-cli -p $port config get bind]
            # on every IPv4 address: the wildcard socket is the listener
            set fd [open /proc/net/tcp]
            set table [read $fd]
            close $fd
            assert_match "*00000000:[format %04X $port] 00000000:0000 0A*" $table
            assert_equal OK [exec redis-cli -p $port config set bind ""]
            wait_for_condition 50 20 {[catch {exec redis-cli -p $port ping}]} else { fail "still listening" }
        } finally {
            catch {exec kill $pid}
        }
    }
}

start_server {tags {process} config {bind {* -::*} protected-mode yes}} {
    test "protected mode refuses non-loopback clients while no password is set" {
        if {$::other_ip eq {}} { skip_deliberate "no non-loopback IPv4 address on this host" }
        set s [socket $::other_ip [srv 0 port]]
        fconfigure $s -translation binary
        puts -nonewline $s "PING\r\n"
        flush $s
        set line [gets $s]
        close $s
        assert_match {-DENIED Running in protected mode*} $line
        # Loopback is still served, and a password opens the node up.
        assert_equal PONG [r ping]
        r config set requirepass secret
        set s [socket $::other_ip [srv 0 port]]
        fconfigure $s -translation binary
        puts -nonewline $s "*2\r\n\$4\r\nAUTH\r\n\$6\r\nsecret\r\n*1\r\n\$4\r\nPING\r\n"
        flush $s
        assert_equal "+OK\r" [gets $s]
        assert_equal "+PONG\r" [gets $s]
        close $s
        r auth secret
        r config set requirepass {}
    }
}

# oom-score-adj: the node writes /proc/<pid>/oom_score_adj for its role (primary, replica) and
# for its forked children, relative to its own value when first applied or absolute, and puts
# that value back when turned off.
proc oom_of {pid} {
    set f [open /proc/$pid/oom_score_adj r]
    set v [string trim [read $f]]
    close $f
    return $v
}
proc oom_set {pid v} {
    set f [open /proc/$pid/oom_score_adj w]
    puts $f $v
    close $f
}

start_server {tags {process oom}} {
    test "oom-score-adj: defaults, value checks and CONFIG GET" {
        assert_equal {oom-score-adj no} [r config get oom-score-adj]
        assert_equal {oom-score-adj-values {0 200 800}} [r config get oom-score-adj-values]
        assert_error "*Invalid oom-score-adj-values, elements must be between -2000 and 2000.*" \
            {r config set oom-score-adj-values "0 0 2001"}
        assert_error "*Invalid oom-score-adj-values, elements must be between -2000 and 2000.*" \
            {r config set oom-score-adj-values "0 x 1"}
        assert_error "*wrong number of arguments*" {r config set oom-score-adj-values "1 2"}
        assert_error "*argument(s) must be one of the following: no, yes, relative, absolute*" \
            {r config set oom-score-adj maybe}
        assert_equal {oom-score-adj-values {0 200 800}} [r config get oom-score-adj-values]
        # values set while it is off leave the process alone
        set pid [srv pid]
        set before [oom_of $pid]
        r config set oom-score-adj-values "7 8 9"
        assert_equal $before [oom_of $pid]
    }

    test "oom-score-adj relative: primary, replica and child values over the first value" {
        set pid [srv pid]
        set base [oom_of $pid]
        r config set oom-score-adj-values "10 40 90" oom-score-adj relative
        assert_equal {oom-score-adj yes} [r config get oom-score-adj]
        assert_equal [expr {$base + 10}] [oom_of $pid]
        r config set oom-score-adj-values "12 40 90"
        assert_equal [expr {$base + 12}] [oom_of $pid]
        set dead [::srv::find_free_port]
        r replicaof 127.0.0.1 $dead
        assert_equal [expr {$base + 40}] [oom_of $pid]
        r replicaof no one
        assert_equal [expr {$base + 12}] [oom_of $pid]
        # a snapshot child takes the third value
        r set k v
        r config set rdb-key-save-delay 1000000
        r bgsave
        wait_for_condition 50 20 {[set child [exec sh -c "pgrep -P $pid || true"]] ne {}} else {
            fail "no snapshot child"
        }
        wait_for_condition 50 20 {[oom_of $child] == $base + 90} else {
            fail "child oom_score_adj [oom_of $child], expected [expr {$base + 90}]"
        }
        catch {exec kill -9 $child}
        r config set rdb-key-save-delay 0
        wait_for_condition 50 20 {[s rdb_bgsave_in_progress] == 0}
        # off: the value it had before the first adjustment comes back
        r config set oom-score-adj no
        assert_equal $base [oom_of $pid]
    }

    test "oom-score-adj absolute, and the value found when turned on is the one restored" {
        set pid [srv pid]
        set own [expr {[oom_of $pid] + 3}]
        oom_set $pid $own
        r config set oom-score-adj-values "5 5 5" oom-score-adj yes
        assert_equal [expr {$own + 5}] [oom_of $pid]
        r config set oom-score-adj-values "[expr {$own + 7}] 900 950" oom-score-adj absolute
        assert_equal [expr {$own + 7}] [oom_of $pid]
        assert_equal {oom-score-adj absolute} [r config get oom-score-adj]
        # past 1000 it is clamped
        r config set oom-score-adj-values "1500 1500 1500"
        assert_equal 1000 [oom_of $pid]
        r config set oom-score-adj no
        assert_equal $own [oom_of $pid]
    }

    test "oom-score-adj: a value the process may not take fails the CONFIG SET, which is undone" {
        # Lowering oom_score_adj needs CAP_SYS_RESOURCE: without it the write fails and so does
        # CONFIG SET (the setting stays off); with it, the value is taken. Either is checked.
        set pid [srv pid]
        set own [oom_of $pid]
        r config set oom-score-adj-values "-1000 -1000 -1000"
        if {[catch {r config set oom-score-adj absolute} e]} {
            assert_match "*Failed to set current oom_score_adj. Check server logs.*" $e
            assert_equal {oom-score-adj no} [r config get oom-score-adj]
            assert_equal $own [oom_of $pid]
            assert {[log_contains "*Unable to write oom_score_adj: Permission denied*"]}
        } else {
            assert_equal -1000 [oom_of $pid]
            r config set oom-score-adj no
            assert_equal $own [oom_of $pid]
        }
        r config set oom-score-adj-values "0 200 800"
    }

    test "oom-score-adj: CONFIG REWRITE writes both directives" {
        r config set oom-score-adj-values "1 2 3" oom-score-adj yes
        r config rewrite
        set conf [read [set f [open [srv config_file]]]]
        close $f
        assert_match "*\noom-score-adj yes\n*" $conf
        assert_match "*\noom-score-adj-values 1 2 3\n*" $conf
        r config set oom-score-adj no
    }
}
