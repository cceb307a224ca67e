# Client-side caching: CLIENT TRACKING in the default, OPTIN, OPTOUT, NOLOOP and BCAST modes,
# RESP3 pushes and the RESP2 redirect to a __redis__:invalidate subscriber, invalidations on
# writes, expiry and FLUSHALL, a broken redirect, CLIENT CACHING/GETREDIR/TRACKINGINFO, the
# errors, CLIENT LIST and INFO, and tracking-table-max-keys. Written to pass on Valkey 8.

proc trk_client {} {
    set c [valkey_client]
    $c hello 3
    return $c
}

start_server {tags {tracking}} {
    test "Default mode: a key read is invalidated once when another client changes it" {
        r flushall
        set c [trk_client]
        assert_equal OK [$c client tracking on]
        assert_equal {} [$c get k]
        r set k 1
        assert_equal {invalidate k} [$c read]
        # Forgotten after one invalidation: the next change sends nothing until it is read again.
        r set k 2
        assert_equal PONG [$c ping]
        assert_equal 2 [$c get k]
        r del k
        assert_equal {invalidate k} [$c read]
        $c close
    }

    test "A client's own write: the invalidation follows its reply; NOLOOP leaves it out" {
        r flushall
        set c [trk_client]
        $c client tracking on
        $c get k
        $c deferred 1
        $c set k 1
        assert_equal OK [$c read]
        assert_equal {invalidate k} [$c read]
        $c deferred 0
        $c client tracking on noloop
        $c get k
        $c set k 2
        assert_equal PONG [$c ping]
        r set k 3
        assert_match "*timeout*" [catch {$c read 300} e; set e] ;# not read again: nothing
        $c close
    }

    test "RESP2: invalidations reach the redirect client subscribed to __redis__:invalidate" {
        r flushall
        set sub [valkey_client]
        $sub subscribe __redis__:invalidate
        set subid [lindex [split [lsearch -inline [split [r client list] \n] "*cmd=subscribe*"] " "] 0]
        set subid [string range $subid 3 end]
        set c [valkey_client]
        assert_equal OK [$c client tracking on redirect $subid]
        assert_equal $subid [$c client getredir]
        $c get k1
        $c mget k2 k3
        r set k1 v
        assert_equal {message __redis__:invalidate k1} [$sub read]
        r mset k2 v k3 v
        assert_equal {message __redis__:invalidate k2} [$sub read]
        assert_equal {message __redis__:invalidate k3} [$sub read]
        r flushall
        assert_equal {message __redis__:invalidate {}} [$sub read]
        # The redirect client goes away: RESP2 has nowhere to say so, CLIENT TRACKINGINFO does.
        $c get k1
        $sub close
        wait_for_condition 50 20 {![string match "*cmd=subscribe*" [r client list]]} else { fail "subscriber still there" }
        r set k1 v2
        assert_equal [list flags {on broken_redirect} redirect $subid prefixes {}] [$c client trackinginfo]
        assert_match "* flags=tR *" [$c client info]
        $c close
    }

    test "RESP3: a broken redirect is told once with tracking-redir-broken" {
        r flushall
        set d [valkey_client]
        set did [$d client id]
        set c [trk_client]
        $c client tracking on redirect $did
        $c get k
        $d close
        wait_for_condition 50 20 {[llength [split [string trim [r client list]] \n]] == 2} else { fail "d still there" }
        r set k 1
        assert_equal [list tracking-redir-broken $did] [$c read]
        $c close
    }

    test "BCAST: every change under a prefix, batched per event loop, no read needed" {
        r flushall
        set c [trk_client]
        assert_equal OK [$c client tracking on bcast prefix a: prefix b:]
        assert_equal {flags {on bcast} redirect 0 prefixes {a: b:}} [$c client trackinginfo]
        r set a:1 x
        assert_equal {invalidate a:1} [$c read]
        r set c:1 x
        r multi
        r set a:2 x
        r set b:1 x
        r set a:3 x
        r exec
        # One message per prefix.
        set got [list [$c read] [$c read]]
        assert_equal {{invalidate b:1} {invalidate {a:2 a:3}}} [lsort $got]
        assert_match "* flags=tB *" [$c client info]
        $c client tracking off
        # BCAST without PREFIX: every key.
        $c client tracking on bcast
        r set zzz 1
        assert_equal {invalidate zzz} [$c read]
        $c close
    }

    test "OPTIN tracks only after CLIENT CACHING yes; OPTOUT all but after CLIENT CACHING no" {
        r flushall
        set c [trk_client]
        $c client tracking on optin
        $c get k1
        assert_equal OK [$c client caching yes]
        assert_equal {flags {on optin caching-yes} redirect 0 prefixes {}} [$c client trackinginfo]
        $c get k2
        assert_equal {flags {on optin} redirect 0 prefixes {}} [$c client trackinginfo]
        r set k1 x
        r set k2 x
        assert_equal {invalidate k2} [$c read]
        $c client tracking off
        $c client tracking on optout
        $c client caching no
        $c get k3
        $c get k4
        r set k3 x
        r set k4 x
        assert_equal {invalidate k4} [$c read]
        $c close
    }

    test "Keys that expire are invalidated" {
        r flushall
        set c [trk_client]
        $c client tracking on
        r set k v px 50
        $c get k
        assert_equal {invalidate k} [$c read 3000]
        $c close
    }

    test "CLIENT TRACKING / CACHING errors, recorded from Valkey 8.0.1" {
        set c [valkey_client]
        foreach {cmd want} {
            {client getredir} -1
            {client trackinginfo} {flags off redirect -1 prefixes {}}
            {client tracking on bcast prefix a prefix ab} {ERROR {ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap.}}
            {client tracking on prefix a} {ERROR {ERR PREFIX option requires BCAST mode to be enabled}}
            {client tracking on optin optout} {ERROR {ERR You can't specify both OPTIN mode and OPTOUT mode}}
            {client tracking on bcast optin} {ERROR {ERR OPTIN and OPTOUT are not compatible with BCAST}}
            {client tracking on redirect 99999} {ERROR {ERR The client ID you want redirect to does not exist}}
            {client tracking foo} {ERROR {ERR syntax error}}
            {client tracking on bogus} {ERROR {ERR syntax error}}
            {client caching yes} {ERROR {ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled}}
            {client tracking on optin noloop} OK
            {client trackinginfo} {flags {on optin noloop} redirect 0 prefixes {}}
            {client caching no} {ERROR {ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.}}
            {client tracking on bcast prefix x} {ERROR {ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.}}
            {client tracking off} OK
            {client tracking on bcast prefix x prefix y} OK
            {client tracking on bcast prefix xy} {ERROR {ERR Prefix 'xy' overlaps with an existing prefix 'x'. Prefixes for a single client must not overlap.}}
            {client tracking on bcast prefix z} OK
            {client trackinginfo} {flags {on bcast} redirect 0 prefixes {x y z}}
            {client tracking on} {ERROR {ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.}}
            {client tracking off} OK
            {client getredir} -1
        } {
            if {[catch {$c {*}$cmd} got]} { set got [list ERROR $got] }
            assert_equal $want $got $cmd
        }
        $c close
    }

    test "BCAST prefixes: listed in byte order, overlaps named as Valkey 8.0.1 names them" {
        # Recorded from Valkey 8.0.1: TRACKINGINFO lists prefixes in byte order; a prefix the
        # client already has is an overlap; BCAST without PREFIX adds "" whatever the client
        # had, and "" then overlaps every prefix given later.
        set c [valkey_client]
        foreach {cmd want} {
            {client tracking on bcast prefix c prefix a prefix e} OK
            {client trackinginfo} {flags {on bcast} redirect 0 prefixes {a c e}}
            {client tracking on bcast prefix b} OK
            {client tracking on bcast prefix ab} {ERROR {ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.}}
            {client tracking on bcast prefix {}} {ERROR {ERR Prefix '' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.}}
            {client tracking on bcast prefix d prefix ee} {ERROR {ERR Prefix 'ee' overlaps with an existing prefix 'e'. Prefixes for a single client must not overlap.}}
            {client tracking on bcast prefix a} {ERROR {ERR Prefix 'a' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.}}
            {client tracking on bcast prefix q prefix q} {ERROR {ERR Prefix 'q' overlaps with another provided prefix 'q'. Prefixes for a single client must not overlap.}}
            {client trackinginfo} {flags {on bcast} redirect 0 prefixes {a b c e}}
            {client tracking on bcast} OK
            {client tracking on bcast prefix zz} {ERROR {ERR Prefix 'zz' overlaps with an existing prefix ''. Prefixes for a single client must not overlap.}}
            {client trackinginfo} {flags {on bcast} redirect 0 prefixes {{} a b c e}}
            {client tracking off} OK
        } {
            if {[catch {$c {*}$cmd} got]} { set got [list ERROR $got] }
            assert_equal $want $got $cmd
        }
        # Many prefixes added one command at a time all register.
        for {set i 0} {$i < 2000} {incr i} { $c client tracking on bcast prefix p:$i: }
        assert_equal 2000 [llength [lindex [$c client trackinginfo] 5]]
        assert_equal 2000 [s tracking_total_prefixes]
        $c client tracking off
        assert_equal 0 [s tracking_total_prefixes]
        $c close
    }

    test "INFO counts tracking clients, keys and prefixes; RESET turns tracking off" {
        r flushall
        set c [trk_client]
        $c client tracking on
        $c mget t1 t2 t3
        set b [trk_client]
        $b client tracking on bcast prefix p1 prefix p2
        assert_equal 2 [s tracking_clients]
        assert_equal 3 [s tracking_total_keys]
        assert_equal 3 [s tracking_total_items]
        assert_equal 2 [s tracking_total_prefixes]
        assert_equal RESET [$b reset]
        assert_equal 1 [s tracking_clients]
        assert_equal 0 [s tracking_total_prefixes]
        $c close
        $b close
    }

    test "With no tracking client left, the table is emptied (stale ids are not kept)" {
        r flushall
        set c [trk_client]
        $c client tracking on
        $c mget z1 z2
        assert_equal 2 [s tracking_total_keys]
        $c close
        wait_for_condition 100 20 {[s tracking_total_keys] == 0} else { fail "table kept" }
    } {beyond-valkey}

    test "tracking-table-max-keys: keys beyond the limit are invalidated and forgotten" {
        r flushall
        r config set tracking-table-max-keys 2
        set c [trk_client]
        $c client tracking on
        $c mget m1 m2 m3 m4
        set got {}
        lappend got [lindex [$c read 3000] 1]
        lappend got [lindex [$c read 3000] 1]
        assert_equal 2 [llength [lsort -unique [concat {*}$got]]]
        wait_for_condition 50 20 {[s tracking_total_keys] <= 2} else { fail "table not trimmed" }
        r config set tracking-table-max-keys 1000000
        $c close
    }

    test "tracking-table-max-keys holds before each command, not only from the cron" {
        r flushall
        r debug pause-cron 1
        set c [trk_client]
        $c client tracking on
        for {set i 0} {$i < 50} {incr i} { $c get k$i }
        assert_equal 50 [s tracking_total_keys]
        r config set tracking-table-max-keys 10
        # The next command (this INFO) trims the table first, 40 keys in one call
        assert_equal 10 [s tracking_total_keys]
        set told 0
        while {$told < 40} {
            set msg [$c read 3000]
            assert_equal invalidate [lindex $msg 0]
            incr told [llength [lindex $msg 1]]
        }
        assert_equal 40 $told
        # A command queued in MULTI trims the table too: the push comes before its QUEUED
        $c deferred 1
        $c multi
        assert_equal OK [$c read]
        r config set tracking-table-max-keys 9
        $c ping
        assert_match {invalidate *} [$c read]
        assert_equal QUEUED [$c read]
        $c exec
        assert_equal PONG [$c read]
        $c deferred 0
        r debug pause-cron 0
        r config set tracking-table-max-keys 1000000
        $c close
    }
}
