# RESP2/RESP3 client for the test suite.
#
#   set c [resp_client host port]      ;# returns an object command
#   $c set foo bar                     ;# any unknown method is sent as a command
#   $c call set foo bar                ;# same, explicit (for names clashing with methods)
#   $c deferred 1                      ;# commands are only sent; fetch replies with $c read
#   $c read ?timeout_ms?               ;# read one reply
#   $c write_raw bytes                 ;# write bytes verbatim (no framing)
#   $c readraw 1                       ;# $c read returns one raw protocol line per call
#   $c attributes                      ;# attribute map seen before the last reply ({} if none)
#   $c eof ?timeout_ms?                ;# 1 when the server closed the connection
#   $c channel                         ;# the underlying Tcl channel
#   $c close
#
# Reply mapping: simple string/bulk/verbatim/double/big number -> string; integer -> integer;
# null (RESP2 or RESP3) -> {}; boolean -> 1/0; array/set/push -> list; map -> flat list
# (usable as a dict).  Error replies raise a Tcl error whose message is the error text
# without the leading '-' or '!'.  A closed connection raises "I/O error: connection closed".

package require TclOO

namespace eval ::resp {
    variable counter 0
    variable default_timeout 30000
}

# Encode one argument as bytes: byte strings are sent as they are, other strings as UTF-8.
proc ::resp::to_bytes {s} {
    if {[regexp {[^\x00-\xff]} $s]} { return [encoding convertto utf-8 $s] }
    return $s
}

proc ::resp::encode_command {args} {
    set out "*[llength $args]\r\n"
    foreach a $args {
        set a [to_bytes $a]
        append out "\$[string length $a]\r\n$a\r\n"
    }
    return $out
}

oo::class create ::resp::Client {
    variable fd deferred readraw attrs timeout waitvar closed

    constructor {chan} {
        set fd $chan
        set deferred 0
        set readraw 0
        set attrs {}
        set closed 0
        set timeout $::resp::default_timeout
        set waitvar [namespace current]::wake
        fconfigure $fd -translation binary -blocking 0 -buffering full -buffersize 65536
    }

    destructor {
        catch {close $fd}
    }

    method channel {} { return $fd }
    method deferred {{v {}}} { if {$v ne {}} { set deferred $v }; return $deferred }
    method readraw {{v {}}} { if {$v ne {}} { set readraw $v }; return $readraw }
    method attributes {} { return $attrs }
    method timeout {{ms {}}} { if {$ms ne {}} { set timeout $ms }; return $timeout }
    method close {} { my destroy }

    # Send raw bytes (blocking write so large writes complete or fail here).
    method write_raw {bytes} {
        fconfigure $fd -blocking 1
        set rc [catch {puts -nonewline $fd [::resp::to_bytes $bytes]; flush $fd} err]
        catch {fconfigure $fd -blocking 0}
        if {$rc} { error "I/O error: $err" }
    }

    method call {args} {
        my write_raw [::resp::encode_command {*}$args]
        if {$deferred} return
        return [my read]
    }

    method unknown {cmd args} {
        return [my call $cmd {*}$args]
    }

    # Wait until the channel is readable or the timeout expires.
    method Wait {ms} {
        set id [after $ms [list set $waitvar timeout]]
        fileevent $fd readable [list set $waitvar readable]
        vwait $waitvar
        after cancel $id
        fileevent $fd readable {}
        if {[set $waitvar] eq "timeout"} {
            error "I/O error: timeout reading reply"
        }
    }

    method Line {ms} {
        while 1 {
            set n [gets $fd line]
            if {$n >= 0 && !([eof $fd] && [string index $line end] ne "\r")} {
                if {[string index $line end] eq "\r"} { set line [string range $line 0 end-1] }
                return $line
            }
            if {[eof $fd]} { set closed 1; error "I/O error: connection closed" }
            my Wait $ms
        }
    }

    method Bytes {n ms} {
        set buf {}
        while {[string length $buf] < $n} {
            append buf [read $fd [expr {$n - [string length $buf]}]]
            if {[string length $buf] == $n} break
            if {[eof $fd]} { set closed 1; error "I/O error: connection closed" }
            my Wait $ms
        }
        return $buf
    }

    method Aggregate {count ms} {
        set l {}
        for {set i 0} {$i < $count} {incr i} { lappend l [my Reply $ms] }
        return $l
    }

    method Reply {ms} {
        set line [my Line $ms]
        set type [string index $line 0]
        set rest [string range $line 1 end]
        switch -exact -- $type {
            + - ( { return $rest }
            , { return $rest }
            : { return $rest }
            - { return -code error $rest }
            _ { return {} }
            # { return [expr {$rest eq "t"}] }
            $ - = - ! {
                if {$rest == -1} { return {} }
                set data [my Bytes [expr {$rest + 2}] $ms]
                set data [string range $data 0 end-2]
                if {$type eq "="} { set data [string range $data 4 end] }
                if {$type eq "!"} { return -code error $data }
                return $data
            }
            * - ~ - > {
                if {$rest == -1} { return {} }
                return [my Aggregate $rest $ms]
            }
            % { return [my Aggregate [expr {$rest * 2}] $ms] }
            | {
                set attrs [my Aggregate [expr {$rest * 2}] $ms]
                return [my Reply $ms]
            }
            default {
                error "protocol error: unexpected reply line '$line'"
            }
        }
    }

    # Read one reply (or one raw line in readraw mode).
    method read {{ms {}}} {
        if {$ms eq {}} { set ms $timeout }
        if {$readraw} { return [my Line $ms] }
        set attrs {}
        return [my Reply $ms]
    }

    # 1 if the server closed the connection (waits up to ms for the close to arrive).
    # Any pending data is discarded.
    method eof {{ms 1000}} {
        if {$closed} { return 1 }
        set deadline [expr {[clock milliseconds] + $ms}]
        while 1 {
            read $fd
            if {[eof $fd]} { set closed 1; return 1 }
            set left [expr {$deadline - [clock milliseconds]}]
            if {$left <= 0} { return 0 }
            if {[catch {my Wait $left}]} { return 0 }
        }
    }
}

proc ::resp::client {host port {timeout_ms 10000}} {
    set fd [socket -async $host $port]
    # Wait for the connection to complete.
    set var ::resp::connect_[incr ::resp::counter]
    set $var {}
    fileevent $fd writable [list set $var done]
    set id [after $timeout_ms [list set $var timeout]]
    vwait $var
    after cancel $id
    fileevent $fd writable {}
    set state [set $var]
    unset $var
    set err [fconfigure $fd -error]
    if {$state eq "timeout" || $err ne {}} {
        catch {close $fd}
        error "cannot connect to $host:$port: [expr {$err ne {} ? $err : {timeout}}]"
    }
    return [::resp::Client new $fd]
}

proc resp_client {host port} { return [::resp::client $host $port] }
