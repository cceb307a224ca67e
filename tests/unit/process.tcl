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
