# The two ways the node serves client connections: io_uring (io-uring yes, the default, where
# the kernel allows it: a multishot receive, sends submitted with the loop's wait) and epoll
# (io-uring no, or a kernel or sandbox without io_uring: a read and a write per client). The
# rest of the suite runs on the default; these scenarios run on both, each reaching a path the
# two do differently: input and output in pieces, a full socket, input that must wait, closes.

proc io_raw {} {
    set fd [socket 127.0.0.1 [srv port]]
    fconfigure $fd -translation binary -buffering none
    return $fd
}

# Reads exactly n bytes from fd (blocking), or fails after timeout_ms.
proc io_read_n {fd n {timeout_ms 10000}} {
    fconfigure $fd -blocking 0
    set got {}
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[string length $got] < $n} {
        append got [read $fd [expr {$n - [string length $got]}]]
        if {[eof $fd]} break
        if {[clock milliseconds] > $deadline} break
        if {[string length $got] < $n} { after 5 }
    }
    fconfigure $fd -blocking 1
    return $got
}

foreach mode {yes no} {
    start_server [list tags {io beyond-valkey} overrides [list io-uring $mode enable-debug-command yes save {}]] {
        test "io-uring $mode: the start says which path client connections take" {
            assert_equal [list io-uring $mode] [r config get io-uring]
            set uring [log_contains "*Client connections use io_uring.*"]
            set refused [log_contains "*io_uring is not available (*): client connections use epoll.*"]
            if {$mode eq "no"} {
                assert_equal {0 0} [list $uring $refused]
            } else {
                assert_equal 1 [expr {$uring + $refused}]
            }
            assert_error "*can't set immutable config*" {r config set io-uring no}
        }

        test "io-uring $mode: 10,000 pipelined commands in one write, every reply in order" {
            r del io:c
            set fd [io_raw]
            puts -nonewline $fd [string repeat "INCR io:c\r\n" 10000]
            set want {}
            for {set i 1} {$i <= 10000} {incr i} { append want ":$i\r\n" }
            assert_equal $want [io_read_n $fd [string length $want]]
            close $fd
            assert_equal 10000 [r get io:c]
        }

        test "io-uring $mode: a client's input joins 16 KB a loop pass, so a flood cannot hold the loop" {
            # 2 MB of PINGs in one write: epoll reads 16 KB a client a pass; the ring hands over
            # all a socket holds (up to 512 KB a wake-up), which the node takes 16 KB a pass too.
            set n 349525
            set before [info_field [r info stats] eventloop_cycles]
            set fd [io_raw]
            puts -nonewline $fd [string repeat "PING\r\n" $n]
            assert_equal [string repeat "+PONG\r\n" $n] [io_read_n $fd [expr {7 * $n}] 30000]
            close $fd
            set passes [expr {[info_field [r info stats] eventloop_cycles] - $before}]
            assert {$passes >= 2097150 / 16384} "2 MB of input in $passes loop passes"
        }

        test "io-uring $mode: a 3 MB argument in pieces, and its 3 MB reply" {
            set v [string repeat "0123456789" 300000]
            set fd [io_raw]
            set cmd "*3\r\n\$3\r\nSET\r\n\$6\r\nio:big\r\n\$[string length $v]\r\n$v\r\n"
            # Sent in small pieces with pauses: the argument arrives across many reads.
            for {set at 0} {$at < [string length $cmd]} {incr at 65536} {
                puts -nonewline $fd [string range $cmd $at [expr {$at + 65535}]]
                if {$at % (1 << 20) == 0} { after 10 }
            }
            assert_equal "+OK\r\n" [io_read_n $fd 5]
            puts -nonewline $fd "*2\r\n\$3\r\nGET\r\n\$6\r\nio:big\r\n"
            set head "\$[string length $v]\r\n"
            set got [io_read_n $fd [expr {[string length $head] + [string length $v] + 2}]]
            assert_equal "$head$v\r\n" $got
            close $fd
        }

        test "io-uring $mode: a client that stops reading keeps its replies until it reads" {
            r set io:v [string repeat x 100000]
            set fd [io_raw]
            # 200 replies of 100 KB: far more than the socket buffers hold.
            puts -nonewline $fd [string repeat "GET io:v\r\n" 200]
            wait_for_condition 200 10 {
                [string match "*events=rw*" [r client list]]
            } else { fail "the reader's output never waited for writability" }
            set one "\$100000\r\n[string repeat x 100000]\r\n"
            set got [io_read_n $fd [expr {200 * [string length $one]}] 30000]
            assert_equal [expr {200 * [string length $one]}] [string length $got]
            assert_equal [string repeat $one 200] $got
            # The output drained: the client no longer waits to write.
            puts -nonewline $fd "PING\r\n"
            assert_equal "+PONG\r\n" [io_read_n $fd 7]
            assert_no_match "*events=rw*" [r client list]
            close $fd
        }

        # Input that must wait (here behind a blocked BLPOP) stays in the socket on epoll; the
        # ring has received it already, into a stash that holds it until its turn. That
        # memory is input, not data: like the socket's, it must not make the node evict keys.
        test "io-uring $mode: input held for a blocked client is not counted for eviction" {
            set ring [log_contains "*Client connections use io_uring.*"]
            assert_equal 0 [s mem_not_counted_for_evict]
            set fd [io_raw]
            puts -nonewline $fd "BLPOP io:nolist 0\r\n"
            wait_for_condition 100 10 {[s blocked_clients] == 1}
            puts -nonewline $fd [string repeat "SET io:held v\r\n" 4000]
            if {$ring} {
                wait_for_condition 100 10 {[s mem_not_counted_for_evict] >= 16384}
            } else {
                after 200
                assert_equal 0 [s mem_not_counted_for_evict]
            }
            r rpush io:nolist a
            set want "*2\r\n\$9\r\nio:nolist\r\n\$1\r\na\r\n[string repeat "+OK\r\n" 4000]"
            assert_equal $want [io_read_n $fd [string length $want]]
            assert_equal 0 [s mem_not_counted_for_evict]
            close $fd
            r del io:held
        }

        test "io-uring $mode: input sent while the client's own DEBUG RELOAD loads runs after it" {
            r flushall
            r debug populate 3000 io 10
            r save
            r config set key-load-delay 300
            r config set loading-process-events-interval-bytes 1024
            set fd [io_raw]
            puts -nonewline $fd "DEBUG RELOAD\r\n"
            set b [valkey_client]
            wait_for_condition 200 10 {
                [info_field [$b info persistence] loading] == 1
            } else { fail "DEBUG RELOAD never loaded" }
            # Arrives while the reload's command runs (its arguments point into its input).
            puts -nonewline $fd "SET io:after yes\r\nGET io:after\r\n"
            after 100
            assert_equal 1 [info_field [$b info persistence] loading]
            assert_equal "+OK\r\n+OK\r\n\$3\r\nyes\r\n" [io_read_n $fd 19 20000]
            assert_equal 3001 [$b dbsize]
            $b config set key-load-delay 0
            $b close
            close $fd
        }

        test "io-uring $mode: QUIT gets its +OK before the close; CLIENT KILL closes at once" {
            set fd [io_raw]
            puts -nonewline $fd "PING\r\nQUIT\r\nPING\r\n"
            assert_equal "+PONG\r\n+OK\r\n" [io_read_n $fd 12]
            assert_equal 1 [closed_by_peer $fd 2000]
            close $fd
            set fd [io_raw]
            puts -nonewline $fd "CLIENT SETNAME victim\r\n"
            assert_equal "+OK\r\n" [io_read_n $fd 5]
            assert_equal 1 [r client kill skipme yes]
            assert_equal 1 [closed_by_peer $fd 2000]
            close $fd
            # Nothing left registered: only this test's own client.
            wait_for_condition 100 10 {[llength [split [string trim [r client list]] \n]] == 1} else {
                fail "clients left: [r client list]"
            }
        }
    }
}
