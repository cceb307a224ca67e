# Cluster bus packets built byte by byte from the layout of Valkey 8's clusterMsg (header,
# types, gossip, bodies, ping extensions), and raw bus sockets, for tests that speak to a
# node's bus port directly (bus_garbage.tcl, failover.tcl).
#
#   bg_msg ?opt val ...?        ;# a whole message (options: see the proc)
#   bg_bitmap {{start end} ...} ;# a slot bitmap
#   bg_gossip / bg_ext          ;# a gossip entry / a ping extension
#   bg_parse bytes              ;# header fields (and gossip) of a received message, as a dict
#   bg_connect idx / bg_send fd bytes / bg_read fd n ms / bg_read_msg fd ms / bg_closed fd ms

set ::bg_hdrlen 2256

# ---------------------------------------------------------------- packet building

proc bg_randid {} {
    set s {}
    for {set i 0} {$i < 40} {incr i} { append s [string index 0123456789abcdef [expr {int(rand() * 16)}]] }
    return $s
}

# The 2048-byte slot bitmap of the given {start end} ranges (slot s: byte s/8, bit s%8).
proc bg_bitmap {ranges} {
    set bytes [lrepeat 2048 0]
    foreach r $ranges {
        lassign $r a b
        for {set s $a} {$s <= $b} {incr s} {
            set i [expr {$s >> 3}]
            lset bytes $i [expr {[lindex $bytes $i] | (1 << ($s & 7))}]
        }
    }
    return [binary format c2048 $bytes]
}

# One gossip entry (104 bytes).
proc bg_gossip {id ip port cport flags {ping 0} {pong 0} {pport 0}} {
    return [binary format a40IIa46SSSSS $id $ping $pong $ip $port $cport $flags $pport 0]
}

# One extension: 8-byte header (length, type, 2 zero bytes) then the payload padded to 8.
proc bg_ext {type payload {length {}}} {
    set pad [expr {(8 - ([string length $payload] % 8)) % 8}]
    set payload "$payload[string repeat \0 $pad]"
    if {$length eq {}} { set length [expr {8 + [string length $payload]}] }
    return "[binary format ISS $length $type 0]$payload"
}

# A whole message.  Options: sender type count totlen ver port cport pport flags mflags
# current config offset slots (bitmap) replicaof myip extensions body.
# totlen defaults to 2256 + the body length; count to 0.
proc bg_msg {args} {
    set o [dict create sender [bg_randid] type 0 count 0 ver 1 port 1 cport 2 pport 0 \
               flags 0x0011 mflags 0 current 0 config 0 offset 0 slots {} replicaof {} \
               myip {} extensions 0 body {} totlen {}]
    foreach {k v} $args {
        if {![dict exists $o $k]} { error "bg_msg: unknown option $k" }
        dict set o $k $v
    }
    dict with o {}
    if {$totlen eq {}} { set totlen [expr {$::bg_hdrlen + [string length $body]}] }
    if {$slots eq {}} { set slots [string repeat \0 2048] }
    set hdr [binary format a4ISSSSWWWa40a2048a40a46Sx30SSSca3 \
                 RCmb $totlen $ver $port $type $count $current $config $offset \
                 $sender $slots $replicaof $myip $extensions $pport $cport $flags 0 \
                 [binary format c3 [list $mflags 0 0]]]
    return "$hdr$body"
}

# Decodes the header of a message; returns a dict.
proc bg_parse {data} {
    binary scan $data a4IuSuSuSuSuWuWuWua40a2048a40a46Sux30SuSuSucua3 \
        sig totlen ver port type count current config offset sender slots replicaof myip \
        extensions pport cport flags state mflags
    set d [dict create]
    foreach k {sig totlen ver port type count current config offset sender slots replicaof
               myip extensions pport cport flags state mflags} {
        dict set d $k [set $k]
    }
    set gossip {}
    for {set i 0} {$i < $count} {incr i} {
        set off [expr {$::bg_hdrlen + 104 * $i}]
        binary scan [string range $data $off [expr {$off + 103}]] a40IuIua46SuSuSuSu \
            id ping pong ip gport gcport gflags gpport
        lappend gossip [dict create id $id ip [string trimright $ip \0] port $gport \
                            cport $gcport flags $gflags pport $gpport]
    }
    dict set d gossip $gossip
    return $d
}

# ---------------------------------------------------------------- bus sockets

proc bg_connect {idx} {
    set fd [socket 127.0.0.1 [expr {[cnode $idx port] + 10000}]]
    fconfigure $fd -translation binary -blocking 0 -buffering none
    return $fd
}

# Writes bytes; 0 if the peer had already closed the link.
proc bg_send {fd bytes} {
    if {[catch {fconfigure $fd -blocking 1; puts -nonewline $fd $bytes; flush $fd}]} { return 0 }
    catch {fconfigure $fd -blocking 0}
    return 1
}

# Reads up to n bytes within timeout_ms; returns {bytes eof}.
proc bg_read {fd n timeout_ms} {
    set buf {}
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[string length $buf] < $n} {
        if {[catch {read $fd [expr {$n - [string length $buf]}]} chunk]} { return [list $buf 1] }
        append buf $chunk
        if {[eof $fd]} { return [list $buf 1] }
        if {[string length $buf] >= $n || [clock milliseconds] > $deadline} break
        after 5
    }
    return [list $buf 0]
}

# Reads one whole message (header first, then the rest per totlen); {} on timeout/close.
proc bg_read_msg {fd timeout_ms} {
    lassign [bg_read $fd 8 $timeout_ms] head eof
    if {[string length $head] < 8} { return {} }
    binary scan $head a4Iu sig totlen
    lassign [bg_read $fd [expr {$totlen - 8}] $timeout_ms] rest eof
    return "$head$rest"
}

# 1 if the node closed the connection within timeout_ms (data sent before is discarded).
proc bg_closed {fd timeout_ms} {
    set deadline [expr {[clock milliseconds] + $timeout_ms}]
    while {[clock milliseconds] < $deadline} {
        if {[catch {read $fd}]} { return 1 }
        if {[eof $fd]} { return 1 }
        after 10
    }
    return 0
}
