# SLOWLOG and MONITOR: what is recorded and shown, the secrets they hide, and their errors.
# Written to pass on Valkey 8 as well.

# Lines a MONITOR client received so far, without the "+<time> [db addr] " prefix (db kept).
proc mon_lines {fd} {
    after 100
    set out {}
    foreach l [split [read $fd] "\n"] {
        set l [string trimright $l "\r"]
        if {$l eq ""} continue
        if {![regexp {^\+\d+\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\] (.*)$} $l -> db cmd]} {
            error "unexpected MONITOR line: $l"
        }
        lappend out "$db $cmd"
    }
    return $out
}

start_server {tags {observe}} {
    test "SLOWLOG: entries newest first with id, time, duration, arguments, peer and name" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r client setname logged
        r set k [string repeat x 200]
        set args {}
        for {set i 1} {$i <= 40} {incr i} { lappend args $i }
        r rpush l {*}$args
        set e [r slowlog get 3]
        assert_equal 3 [llength $e]
        lassign [lindex $e 0] id t dur argv peer name
        assert_equal [list rpush l {*}[lrange $args 0 28] "... (11 more arguments)"] $argv
        assert_match {127.0.0.1:*} $peer
        assert_equal logged $name
        assert {$dur >= 0 && abs($t - [clock seconds]) <= 2}
        assert_equal [list set k "[string repeat x 128]... (72 more bytes)"] [lindex $e 1 3]
        assert_equal {client setname logged} [lindex $e 2 3]
        assert_equal [expr {$id - 1}] [lindex $e 1 0]
        r client setname ""
    }

    test "SLOWLOG times each pipelined command on its own" {
        # One write: the PING after a 500 ms command is not charged its time (a command in a
        # pipeline starts where the one before it ended, not where it started). The threshold
        # leaves room for a slow machine's hiccup during the PING itself.
        r config set slowlog-log-slower-than 300000
        r slowlog reset
        set c [valkey_client]
        $c write_raw "[::resp::encode_command DEBUG SLEEP 0.5][::resp::encode_command PING]"
        assert_equal OK [$c read]
        assert_equal PONG [$c read]
        $c close
        set e [r slowlog get]
        r config set slowlog-log-slower-than 0
        assert_equal 1 [llength $e]
        assert_equal {DEBUG SLEEP 0.5} [lindex $e 0 3]
        assert {[lindex $e 0 2] >= 500000}
    }

    test "SLOWLOG hides passwords" {
        r slowlog reset
        catch {r auth someuser somepass}
        r config set requirepass ""
        set e [r slowlog get 2]
        assert_equal {config set requirepass (redacted)} [lindex $e 0 3]
        assert_equal {auth (redacted) (redacted)} [lindex $e 1 3]
    }

    test "SLOWLOG hides ACL user names and rules, and every sensitive CONFIG SET value, failed calls too" {
        r slowlog reset
        catch {r acl setuser "slow user" +get +set}
        r acl setuser slowuser on >secret +get
        r acl getuser slowuser
        r acl deluser slowuser nouser
        foreach c {primaryuser masteruser primaryauth masterauth tls-key-file-pass tls-client-key-file-pass} {
            catch {r config set $c ""}
        }
        r config set maxmemory-policy noeviction
        set got {}
        foreach e [r slowlog get 20] { lappend got [lindex $e 3] }
        assert_equal [list {config set maxmemory-policy noeviction} \
            {config set tls-client-key-file-pass (redacted)} {config set tls-key-file-pass (redacted)} \
            {config set masterauth (redacted)} {config set primaryauth (redacted)} \
            {config set masteruser (redacted)} {config set primaryuser (redacted)} \
            {acl deluser (redacted) (redacted)} {acl getuser (redacted)} \
            {acl setuser (redacted) (redacted) (redacted) (redacted)} \
            {acl setuser (redacted) (redacted) (redacted)} {slowlog reset}] $got
    }

    test "SLOWLOG: LEN, RESET, GET counts, the threshold and the max length" {
        r slowlog reset
        assert_equal 1 [r slowlog len]  ;# the RESET itself, with a threshold of 0
        r config set slowlog-max-len 3
        for {set i 0} {$i < 10} {incr i} { r ping }
        assert_equal 3 [r slowlog len]
        assert_equal 3 [llength [r slowlog get -1]]
        assert_equal 2 [llength [r slowlog get 2]]
        assert_equal 0 [llength [r slowlog get 0]]
        r config set slowlog-log-slower-than -1
        r slowlog reset
        r ping
        assert_equal 0 [r slowlog len]
        r config set slowlog-log-slower-than 10000
        r config set slowlog-max-len 128
        r debug sleep 0.02
        assert_equal {debug sleep 0.02} [lindex [r slowlog get 1] 0 3]
    }

    test "SLOWLOG errors" {
        assert_equal "ERR count should be greater than or equal to -1" [assert_error * {r slowlog get -2}]
        assert_equal "ERR count should be greater than or equal to -1" [assert_error * {r slowlog get x}]
        assert_equal "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP." [assert_error * {r slowlog get 1 2}]
        assert_equal "ERR unknown subcommand 'foo'. Try SLOWLOG HELP." [assert_error * {r slowlog foo}]
        assert_match "SLOWLOG <subcommand> *" [lindex [r slowlog help] 0]
    }

    test "MONITOR shows each command with its db and peer, quoted, after it ran" {
        set fd [valkey_raw]
        puts -nonewline $fd "MONITOR\r\n"
        flush $fd
        fconfigure $fd -blocking 0
        after 50
        assert_equal "+OK" [string trim [gets $fd]]
        r set a "x y\"z"
        r select 3
        r ping
        r select 0
        r multi
        r set b 1
        r get b
        r exec
        r blpop nolist 0.05
        assert_equal [list {0 "set" "a" "x y\"z"} {3 "select" "3"} {3 "ping"} {0 "select" "0"} \
                          {0 "multi"} {0 "set" "b" "1"} {0 "get" "b"} {0 "exec"} \
                          {0 "blpop" "nolist" "0.05"}] [mon_lines $fd]
        close $fd
    }

    test "MONITOR hides passwords and administrative commands" {
        set fd [valkey_raw]
        puts -nonewline $fd "MONITOR\r\n"
        flush $fd
        fconfigure $fd -blocking 0
        after 50
        gets $fd
        catch {r auth someuser somepass}
        catch {r hello 3 auth someuser somepass}
        r hello 2
        r config get maxmemory
        r slowlog len
        r debug sleep 0
        r echo done
        assert_equal [list {0 "auth" "(redacted)" "(redacted)"} \
                          {0 "hello" "3" "auth" "(redacted)" "(redacted)"} {0 "hello" "2"} \
                          {0 "echo" "done"}] [mon_lines $fd]
        close $fd
    }

    test "MONITOR inside MULTI is refused at EXEC; CLIENT LIST shows the O flag" {
        r multi
        r monitor
        catch {r exec} e
        assert_match "*MONITOR isn't allowed for DENY BLOCKING client*" $e
        set fd [valkey_raw]
        puts -nonewline $fd "CLIENT SETNAME watcher\r\nMONITOR\r\n"
        flush $fd
        after 100
        assert_match "*name=watcher * flags=O *" [r client list]
        close $fd
    }
}

start_server {tags {observe}} {
    test "LATENCY: a command at or above latency-monitor-threshold is a spike of its event" {
        set vals {}
        for {set i 200000} {$i > 0} {incr i -1} { lappend vals $i }
        r rpush big {*}$vals
        r latency reset
        assert_equal {} [r latency latest]
        r sort big limit 0 1  ;# threshold 0: nothing is recorded
        assert_equal {} [r latency latest]
        r config set latency-monitor-threshold 1
        r sort big limit 0 1
        set latest [r latency latest]
        assert_equal 1 [llength $latest]
        lassign [lindex $latest 0] event t last max
        assert_equal command $event
        assert {abs($t - [clock seconds]) <= 2}
        assert {$last >= 1 && $max == $last}
        assert_equal [list [list $t $last]] [r latency history command]
        assert_equal {} [r latency history nosuchevent]
        assert_equal 1 [r latency reset command nosuchevent]
        assert_equal {} [r latency latest]
        assert_equal 0 [r latency reset]
        r config set latency-monitor-threshold 0
    }

    test "LATENCY GRAPH: Valkey 8's header and sparkline of an event's samples" {
        r latency reset
        r config set latency-monitor-threshold 1
        # far apart, so that a stall of the machine during the first does not reach the second
        # (0.05 and 0.12 s once measured 121 and 120 ms)
        r debug sleep 0.02
        after 1100  ;# one sample per second: the next spike is a second sample
        r debug sleep 0.25
        lassign [lmap s [r latency history command] {lindex $s 1}] lo hi
        assert {$lo < $hi}
        set g [r latency graph command]
        # low sample: '_' at the bottom; high: '#' on top of '|'s; a blank row; the ages
        # ("1s", "0s") read downwards
        set want "^command - high $hi ms, low $lo ms \(all time high $hi ms\)\n-{80}\n"
        append want { #
 |
 |
_|
  
\d\d
ss
$}
        assert {[regexp $want $g]} $g
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        $c hello 3
        while {[$c read] ne {*0}} {}
        $c latency graph command
        assert_equal "=[expr {[string length $g] + 4}]" [$c read]
        $c close
        assert_error "ERR No samples available for event 'nosuch'" {r latency graph nosuch}
        assert_error "ERR wrong number of arguments for 'latency|graph' command" {r latency graph}
        assert_equal {{Returns a latency graph for an event.} O(1)} \
            [lmap f {summary complexity} {dict get [lindex [r command docs latency|graph] 1] $f}]
        assert_equal {latency|graph 3 {admin noscript loading stale} 0 0 0} \
            [lrange [lindex [r command info latency|graph] 0] 0 5]
        r latency reset
        r config set latency-monitor-threshold 0
    }

    test "LATENCY errors" {
        assert_equal "ERR wrong number of arguments for 'latency|history' command" [assert_error * {r latency history}]
        assert_equal "ERR unknown subcommand 'foo'. Try LATENCY HELP." [assert_error * {r latency foo}]
        assert_equal "ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - argument must be between 0 and 9223372036854775807 inclusive" \
            [assert_error * {r config set latency-monitor-threshold -1}]
    }

    test "LATENCY HISTOGRAM: cumulative counts at Valkey's reporting points, per command" {
        r config resetstat
        for {set i 0} {$i < 25} {incr i} { r set k$i v }
        r debug sleep 0.02
        set h [r latency histogram set debug nosuch config]
        assert_equal {set debug config|resetstat} [dict keys $h]
        assert_equal 25 [dict get $h set calls]
        set points {1 2 4 8 16 33 66 132 264 528 1056 2112 4224 8448 16908 33816 67633}
        set prev 0
        dict for {at count} [dict get $h set histogram_usec] {
            assert {[lsearch -exact $points $at] >= 0} "reporting point $at"
            assert {$count > $prev}
            set prev $count
        }
        assert_equal 25 $prev
        # 20 ms lies between the points 16908 and 33816 (µs).
        assert_equal {33816 1} [dict get $h debug histogram_usec]
        assert_equal {calls 1 histogram_usec} [lrange [dict get $h config|resetstat] 0 2]
        assert {[dict size [r latency histogram]] >= 3}
        assert_equal {} [r latency histogram nosuch]
    }

    test "LATENCY DOCTOR reports each event's spikes (its advice is in our own words)" {
        r latency reset
        r config set latency-monitor-threshold 0
        assert_match "Latency monitoring is disabled*" [r latency doctor]
        r config set latency-monitor-threshold 5
        assert_match "No latency spike was recorded*threshold: 5 ms*" [r latency doctor]
        r debug sleep 0.02
        set report [r latency doctor]
        assert_match "*1. command: 1 latency spikes (average *ms, mean deviation 0ms, period *sec). Worst all time event *ms.*" $report
        assert_match "*SLOWLOG GET*" $report
        r config set latency-monitor-threshold 0
        r latency reset
    } {beyond-valkey}
}
