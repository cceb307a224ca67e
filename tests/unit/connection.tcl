# Connection commands: PING ECHO QUIT RESET HELLO AUTH SELECT CLIENT *, timeout, maxclients.

# Read `n` raw protocol lines from a client in readraw mode, joined by spaces.
proc raw_lines {c n} {
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [$c read] }
    return [join $out " "]
}

# Read one whole reply from a readraw client as its raw lines joined by spaces.
proc raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

# Bytes of a RESP2 bulk string reply carrying `s`: $<len>\r\n<s>\r\n.
proc bulk_reply_size {s} {
    set n [string length $s]
    return [expr {1 + [string length $n] + 2 + $n + 2}]
}

# A client in readraw + deferred mode: commands only send, `$c read` returns one line.
proc raw_client {} {
    set c [valkey_client]
    $c readraw 1
    $c deferred 1
    return $c
}

start_server {tags {connection}} {
    test "PING and PING with a message" {
        assert_equal PONG [r ping]
        assert_equal hello [r ping hello]
        assert_error "ERR wrong number of arguments for 'ping' command" {r ping a b}
    }

    test "ECHO" {
        assert_equal "hello world" [r echo "hello world"]
        assert_equal "" [r echo ""]
        set bin "a\x00b\r\nc\xff"
        assert_equal $bin [r echo $bin]
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo}
    }

    test "PING and ECHO reply types in RESP2" {
        set c [raw_client]
        $c ping
        assert_equal "+PONG" [$c read]
        $c ping x
        assert_equal {$1 x} [raw_lines $c 2]
        $c close
    }

    test "QUIT replies OK and closes the connection" {
        set c [valkey_client]
        assert_equal OK [$c quit]
        assert_equal 1 [$c eof]
        $c close
    }

    test "RESET restores the connection defaults" {
        set c [valkey_client]
        $c hello 3 setname resetme
        $c select 5
        $c deferred 1
        $c client reply skip
        $c ping
        $c deferred 0
        assert_equal RESET [$c reset]
        assert_equal {} [$c client getname]
        assert_match "*db=0 *resp=2 *" [$c client info]
        $c readraw 1
        $c deferred 1
        $c hello
        assert_equal "*14" [$c read]
        $c close
    }

    test "RESET in the middle of MULTI discards the transaction" {
        set c [valkey_client]
        $c multi
        $c set rk 1
        assert_equal RESET [$c reset]
        assert_equal 0 [$c exists rk]
        assert_error "ERR EXEC without MULTI" {$c exec}
        $c close
    }

    test "HELLO 3 reply shape" {
        set c [valkey_client]
        set h [$c hello 3]
        assert_equal {server version proto id mode role modules} [dict keys $h]
        assert_equal valkey [dict get $h server]
        assert_match {8.0.*} [dict get $h version]
        assert_equal 3 [dict get $h proto]
        assert_equal [$c client id] [dict get $h id]
        assert_equal standalone [dict get $h mode]
        assert_equal master [dict get $h role]
        assert_equal {} [dict get $h modules]
        $c close
    }

    test "HELLO 3 is a map and HELLO 2 a flat array on the wire" {
        set c [raw_client]
        $c hello 3
        assert_match {%7 $6 server $6 valkey $7 version $* 8.0.* $5 proto :3 $2 id :* $4 mode $10 standalone $4 role $6 master $7 modules \*0} [raw_reply $c]
        $c hello 2
        assert_match {\*14 $6 server $6 valkey $7 version $* 8.0.* $5 proto :2 $2 id :* $4 mode $10 standalone $4 role $6 master $7 modules \*0} [raw_reply $c]
        $c close
    }

    test "HELLO 2 reply and HELLO without arguments" {
        set c [valkey_client]
        set h [$c hello 2]
        assert_equal 2 [dict get $h proto]
        assert_equal valkey [dict get $h server]
        $c hello 3
        set h [$c hello]
        assert_equal 3 [dict get $h proto]
        $c close
    }

    test "extended-redis-compatibility: HELLO says redis 7.2.4 and INFO redis_mode, as Valkey 8" {
        assert_equal {extended-redis-compatibility no} [r config get extended-redis-compatibility]
        r config set extended-redis-compatibility yes
        set h [r hello 2]
        assert_equal {redis 7.2.4} [list [dict get $h server] [dict get $h version]]
        set info [r info server]
        assert_match "*redis_mode:standalone*" $info
        assert_no_match "*server_mode:*" $info
        r config set extended-redis-compatibility no
        set h [r hello 2]
        assert_equal valkey [dict get $h server]
        assert_equal [info_field [r info server] valkey_version] [dict get $h version]
        assert_match "*server_mode:standalone*" [r info server]
    }

    test "HELLO with SETNAME" {
        set c [valkey_client]
        $c hello 2 setname hello-client
        assert_equal hello-client [$c client getname]
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." {
            $c hello 3 setname "a b"
        }
        # the failed HELLO changed nothing
        assert_match "*name=hello-client *resp=2 *" [$c client info]
        $c close
    }

    test "HELLO errors" {
        assert_error "NOPROTO unsupported protocol version" {r hello 4}
        assert_error "NOPROTO unsupported protocol version" {r hello 1}
        assert_error "ERR Protocol version is not an integer or out of range" {r hello abc}
        assert_error "ERR Syntax error in HELLO option 'foo'" {r hello 3 foo}
        assert_error "ERR Syntax error in HELLO option 'auth'" {r hello 3 auth default}
    }

    test "HELLO AUTH with the default nopass user accepts any password" {
        set c [valkey_client]
        assert_equal 3 [dict get [$c hello 3 auth default whatever] proto]
        $c close
    }

    test "RESP3 reply types of common commands" {
        r del myset myhash nokey
        r sadd myset a
        r hset myhash f v
        r zadd myz 1.5 m
        set c [raw_client]
        $c hello 3
        raw_reply $c
        $c get nokey
        assert_equal "_" [$c read]
        $c config get maxmemory
        assert_equal {%1 $9 maxmemory $1 0} [raw_lines $c 5]
        $c smembers myset
        assert_equal {~1 $1 a} [raw_lines $c 3]
        $c hgetall myhash
        assert_equal {%1 $1 f $1 v} [raw_lines $c 5]
        $c zscore myz m
        assert_equal ",1.5" [$c read]
        $c exists myset
        assert_equal ":1" [$c read]
        $c set k v
        assert_equal "+OK" [$c read]
        $c hello 2
        raw_reply $c
        $c get nokey
        assert_equal {$-1} [$c read]
        $c config get maxmemory
        assert_equal {*2 $9 maxmemory $1 0} [raw_lines $c 5]
        $c zscore myz m
        assert_equal {$3 1.5} [raw_lines $c 2]
        $c close
    }

    test "RESP3 CONFIG GET is a map" {
        set c [valkey_client]
        $c hello 3
        set m [$c config get maxmemory timeout]
        assert_equal 0 [dict get $m maxmemory]
        assert_equal 0 [dict get $m timeout]
        $c close
    }

    test "AUTH without a configured password" {
        assert_error "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?" {r auth foo}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {r auth nouser foo}
        assert_equal OK [r auth default anything]
    }

    test "SELECT" {
        r select 9
        r set dbkey nine
        r select 0
        assert_equal 0 [r exists dbkey]
        r select 9
        assert_equal nine [r get dbkey]
        assert_match "*db=9 *" [r client info]
        r select 15
        r select 0
        assert_error "ERR DB index is out of range" {r select 16}
        assert_error "ERR DB index is out of range" {r select -1}
        assert_error "ERR value is not an integer or out of range" {r select x}
        assert_error "ERR value is not an integer or out of range" {r select 99999999999999999999}
        assert_error "ERR value is not an integer or out of range" {r select 1.5}
    }

    test "CLIENT ID is unique and increasing" {
        set a [valkey_client]
        set b [valkey_client]
        set ida [$a client id]
        set idb [$b client id]
        assert {[string is integer -strict $ida] && $idb > $ida}
        $a close
        $b close
    }

    test "CLIENT SETNAME / GETNAME" {
        set c [valkey_client]
        assert_equal {} [$c client getname]
        assert_equal OK [$c client setname myname]
        assert_equal myname [$c client getname]
        assert_match "*name=myname *" [$c client info]
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." {
            $c client setname "a b"
        }
        assert_error "ERR Client names cannot contain spaces, newlines or special characters." {
            $c client setname "a\nb"
        }
        assert_equal myname [$c client getname]
        # an empty name clears it
        assert_equal OK [$c client setname ""]
        assert_equal {} [$c client getname]
        $c readraw 1
        $c deferred 1
        $c client getname
        assert_equal {$-1} [$c read]
        $c close
    }

    test "CLIENT LIST fields" {
        set line [string trim [r client list id [r client id]]]
        set names {}
        foreach kv [split [string trim $line] " "] {
            lappend names [lindex [split $kv =] 0]
        }
        # Valkey 8's fields, in its order.
        set valkey8 {id addr laddr fd name age idle flags db sub psub ssub multi watch qbuf
            qbuf-free argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp
            lib-name lib-ver tot-net-in tot-net-out tot-cmds}
        assert_equal [join $valkey8 " "] [join $names " "]
        assert_match {id=* addr=127.0.0.1:* laddr=127.0.0.1:* fd=* name=* age=* idle=* flags=N db=0 *cmd=client|list user=default *resp=2*} $line
        # An idle client holds no output beyond its reply buffer (Valkey's own test matches this).
        assert_match {* obl=0 oll=0 omem=0 *} $line
        assert_equal "\n" [string index [r client list] end]
    }

    test "CLIENT INFO counts the bytes read and written and the commands run, exactly" {
        set c [valkey_client]
        set ping [::resp::encode_command PING]
        set ci [::resp::encode_command CLIENT INFO]
        $c write_raw $ping
        assert_equal PONG [$c read]
        set in [string length $ping]
        set out [string length "+PONG\r\n"]
        set cmds 1
        foreach round {1 2 3} {
            $c write_raw $ci
            set info [$c read]
            incr in [string length $ci]
            # The reply is built while CLIENT INFO runs: its request is read, its reply is not
            # written yet and it is not counted yet.
            assert_equal $in [client_field $info tot-net-in] "round $round: $info"
            assert_equal $out [client_field $info tot-net-out] "round $round: $info"
            assert_equal $cmds [client_field $info tot-cmds] "round $round: $info"
            # argv-mem: the arguments of the command being run, CLIENT and INFO
            assert_equal 10 [client_field $info argv-mem]
            incr out [bulk_reply_size $info]
            incr cmds
        }
        # Seen from another client, between commands: no arguments held.
        set line [r client list id [client_field $info id]]
        assert_equal $in [client_field $line tot-net-in]
        assert_equal $out [client_field $line tot-net-out]
        assert_equal $cmds [client_field $line tot-cmds]
        assert_equal 0 [client_field $line argv-mem]
        # oll counts the blocks of Valkey's reply list, used once its 16 KB reply buffer is
        # full. Our output buffer is one contiguous buffer (obl), with no reply list: oll is
        # always 0, also with a reply bigger than 16 KB waiting.
        assert_equal 0 [client_field $line oll]
        $c close
    }

    test "tot-cmds: refused commands do not count, each command of a transaction does" {
        set c [valkey_client]
        set id [$c client id]
        catch {$c nosuchcommand}
        catch {$c get}
        assert_equal 1 [client_field [r client list id $id] tot-cmds]
        $c set tk v
        assert_error "ERR value is not an integer*" {$c incr tk}
        assert_equal 3 [client_field [r client list id $id] tot-cmds] "a failing command ran"
        $c multi
        $c set tk 1
        $c incr tk
        assert_equal {OK 2} [$c exec]
        assert_equal 7 [client_field [r client list id $id] tot-cmds] "MULTI, SET, INCR, EXEC"
        $c multi
        catch {$c nosuchcommand}
        assert_error "EXECABORT*" {$c exec}
        assert_equal 9 [client_field [r client list id $id] tot-cmds] "MULTI and EXEC only"
        $c close
    }

    test "multi-mem counts queued arguments plus a pointer each, as Valkey and Redis 7 do" {
        set c [valkey_client]
        set id [$c client id]
        $c multi
        $c set mk v
        $c get mk
        # (3 + 2 + 1 + 3 * 8) + (3 + 2 + 2 * 8)
        assert_equal 51 [client_field [r client list id $id] multi-mem]
        $c exec
        assert_equal 0 [client_field [r client list id $id] multi-mem]
        $c multi
        $c set mk v
        $c discard
        assert_equal 0 [client_field [r client list id $id] multi-mem]
        $c close
    }

    test "a blocking command counts once when it completes; argv-mem holds it while blocked" {
        r del blist
        foreach {how expected} {push {blist x} timeout {} unblock {}} {
            set c [valkey_client]
            set id [$c client id]
            $c deferred 1
            $c blpop blist [expr {$how eq "timeout" ? "0.01" : "0"}]
            if {$how ne "timeout"} {
                wait_for_condition 100 10 {[client_field [r client list id $id] flags] eq "b"}
                set line [r client list id $id]
                assert_equal 11 [client_field $line argv-mem] "BLPOP blist 0 held: $line"
                assert_equal 1 [client_field $line tot-cmds] "not counted while blocked: $line"
                if {$how eq "push"} { r rpush blist x }
                if {$how eq "unblock"} { assert_equal 1 [r client unblock $id] }
            }
            assert_equal $expected [$c read]
            set line [r client list id $id]
            assert_equal 2 [client_field $line tot-cmds] "$how: $line"
            assert_equal 0 [client_field $line argv-mem] "$how: $line"
            $c close
        }
    }

    test "argv-mem counts the arguments of a command still being received" {
        set c [valkey_client]
        set id [$c client id]
        $c write_raw "*3\r\n\$3\r\nSET\r\n\$3\r\nkey\r\n\$5\r\nva"
        wait_for_condition 100 10 {[client_field [r client list id $id] argv-mem] == 6}
        $c write_raw "lue\r\n"
        assert_equal OK [$c read]
        assert_equal 0 [client_field [r client list id $id] argv-mem]
        $c close
    }

    test "a command held by CLIENT PAUSE counts when it runs" {
        set c [valkey_client]
        set id [$c client id]
        $c deferred 1
        assert_equal OK [r client pause 5000 write]
        $c set pk 1
        wait_for_condition 100 10 {[client_field [r client list id $id] flags] eq "b"}
        set line [r client list id $id]
        assert_equal 1 [client_field $line tot-cmds] $line
        assert_equal 6 [client_field $line argv-mem] "SET pk 1 held: $line"
        assert_equal OK [r client unpause]
        assert_equal OK [$c read]
        set line [r client list id $id]
        assert_equal 2 [client_field $line tot-cmds] $line
        assert_equal 0 [client_field $line argv-mem] $line
        assert_equal set [client_field $line cmd]
        $c close
    }

    test "CLIENT INFO shows a long client name whole" {
        set c [valkey_client]
        set name [string repeat n 3000]
        $c client setname $name
        set info [$c client info]
        assert_equal $name [client_field $info name]
        assert_equal 1 [client_field $info tot-cmds] "the line goes on to its last field"
        $c close
    }

    test "CLIENT LIST filters" {
        set c [valkey_client]
        set id [$c client id]
        set l [r client list id $id]
        assert_match "id=$id *" $l
        assert_equal 1 [llength [split [string trim $l] \n]]
        assert_equal {} [r client list id 999999]
        assert_match "*id=$id *" [r client list type normal]
        assert_equal {} [r client list type pubsub]
        assert_error "ERR Unknown client type 'foo'" {r client list type foo}
        assert_error "ERR Invalid client ID" {r client list id x}
        $c close
    }

    test "CLIENT INFO" {
        set info [r client info]
        assert_match "id=[r client id] addr=* cmd=client|info *" $info
        assert_equal "\n" [string index $info end]
    }

    test "A client closed while a BGSAVE child runs sees the close at once (CLIENT KILL, QUIT)" {
        r flushall
        r set k v
        set c1 [valkey_client]
        set c2 [valkey_client]
        $c1 ping
        $c2 ping
        r config set rdb-key-save-delay 10000000
        r bgsave
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 1} else { fail "no bgsave" }
        # the child holds copies of the sockets open before the fork: before, their peers saw
        # the close only when it ended (10 s here)
        assert_equal 1 [r client kill id [$c1 client id]]
        assert_equal 1 [$c1 eof 1000]
        assert_equal OK [$c2 quit]
        assert_equal 1 [$c2 eof 1000]
        assert_equal 1 [s rdb_bgsave_in_progress]
        $c1 close; $c2 close
        r config set rdb-key-save-delay 0
        exec kill -9 [exec sh -c "pgrep -P [srv pid]"]
        wait_for_condition 100 20 {[s rdb_bgsave_in_progress] == 0} else { fail "child left" }
    }

    test "CLIENT KILL by ID, ADDR and old-style address" {
        set c1 [valkey_client]
        set c2 [valkey_client]
        set c3 [valkey_client]
        $c1 ping
        assert_equal 1 [r client kill id [$c1 client id]]
        assert_equal 1 [$c1 eof]
        regexp {addr=(\S+)} [$c2 client info] -> addr2
        assert_equal 1 [r client kill addr $addr2]
        assert_equal 1 [$c2 eof]
        regexp {addr=(\S+)} [$c3 client info] -> addr3
        assert_equal OK [r client kill $addr3]
        assert_equal 1 [$c3 eof]
        $c1 close; $c2 close; $c3 close
        assert_error "ERR No such client" {r client kill 1.2.3.4:5}
        assert_equal 0 [r client kill id 999999]
        assert_equal 0 [r client kill addr 1.2.3.4:5]
        assert_error "ERR client-id should be greater than 0" {r client kill id abc}
        assert_error "ERR client-id should be greater than 0" {r client kill id 0}
        assert_error "ERR Unknown client type 'foo'" {r client kill type foo}
        assert_error "ERR syntax error" {r client kill skipme maybe}
        assert_error "ERR No such user 'nouser'" {r client kill user nouser}
        assert_error "ERR maxage is not an integer or out of range" {r client kill maxage str}
        assert_error "ERR maxage is not an integer or out of range" {r client kill maxage 9999999999999999999}
        assert_error "ERR maxage should be greater than 0" {r client kill maxage 0}
        assert_error "ERR maxage should be greater than 0" {r client kill maxage -5}
    }

    test "CLIENT KILL TYPE normal skips the caller by default" {
        set c1 [valkey_client]
        set c2 [valkey_client]
        $c1 ping; $c2 ping
        assert_morethan [r client kill type normal] 1
        assert_equal 1 [$c1 eof]
        assert_equal 1 [$c2 eof]
        assert_equal PONG [r ping]
        $c1 close; $c2 close
    }

    test "CLIENT KILL SKIPME no kills the caller too" {
        set c [valkey_client]
        assert_equal 1 [$c client kill id [$c client id] skipme no]
        assert_equal 1 [$c eof]
        $c close
    }

    test "CLIENT PAUSE WRITE blocks writes but not reads" {
        r set pk 1
        r pfadd cp:hll a
        set w [valkey_client]
        $w deferred 1
        assert_equal OK [r client pause 5000 write]
        $w incr pk
        # reads from other clients are served
        set rd [valkey_client]
        assert_equal 1 [$rd get pk]
        assert_error "I/O error: timeout*" {$w read 200}
        # the held client counts as blocked, as in Valkey 8
        assert_equal 1 [info_field [r info clients] blocked_clients]
        # commands that may replicate are held too: PFCOUNT (its cached count), PUBLISH
        set h [valkey_client]
        $h deferred 1
        $h pfcount cp:hll
        set p [valkey_client]
        $p deferred 1
        $p publish cp:ch m
        wait_for_condition 100 10 {[info_field [r info clients] blocked_clients] == 3} else {
            fail "PFCOUNT and PUBLISH were not held"
        }
        assert_equal OK [r client unpause]
        assert_equal 2 [$w read]
        assert_equal 1 [$h read]
        assert_equal 0 [$p read]
        $h close
        $p close
        assert_equal 0 [info_field [r info clients] blocked_clients]
        $w close
        $rd close
    }

    test "CLIENT PAUSE WRITE holds an EXEC that queued a write; an EXEC of reads runs" {
        # A transaction run during a manual failover's pause would be acknowledged by the old
        # primary and lost: EXEC is judged by what it queued.
        r set pk 1
        set w [valkey_client]
        assert_equal OK [$w multi]
        assert_equal QUEUED [$w incr pk]
        set rd [valkey_client]
        assert_equal OK [$rd multi]
        assert_equal QUEUED [$rd get pk]
        assert_equal OK [r client pause 5000 write]
        assert_equal 1 [$rd exec]
        $w deferred 1
        $w exec
        assert_error "I/O error: timeout*" {$w read 200}
        assert_equal 1 [r get pk]
        assert_equal OK [r client unpause]
        assert_equal 2 [$w read]
        $w close
        $rd close
    }

    test "CLIENT PAUSE WRITE hides expired keys without deleting them" {
        # Nothing may reach the replication stream while writes are paused (a manual
        # failover waits for the offset to hold still).
        r flushall
        r set gone v px 30
        set before [s expired_keys]
        set offset [s master_repl_offset]
        assert_equal OK [r client pause 5000 write]
        after 300
        assert_equal {} [r get gone]
        assert_equal 0 [r exists gone]
        assert_equal $before [s expired_keys]
        assert_equal $offset [s master_repl_offset]
        assert_equal OK [r client unpause]
        wait_for_condition 50 100 {[s expired_keys] == $before + 1} else {
            fail "the key never expired after the pause"
        }
    }

    test "CLIENT PAUSE ALL blocks every command until the timeout" {
        set c [valkey_client]
        set start [clock milliseconds]
        assert_equal OK [r client pause 300]
        assert_equal PONG [$c ping]
        assert_range [expr {[clock milliseconds] - $start}] 250 3000
        $c close
    }

    test "CLIENT PAUSE: an ended ALL pause leaves no mode behind; a shorter later pause keeps the longer" {
        assert_equal OK [r client pause 100 all]
        assert_equal OK [r client pause 10 write]
        after 300
        # the ALL pause has ended: a WRITE pause now holds writes only
        assert_equal OK [r client pause 60000 write]
        assert_equal OK [r client pause 10 write]
        after 100
        set c [valkey_client]
        assert_equal {} [$c get cp:k]
        $c deferred 1
        $c set cp:k v
        wait_for_condition 100 10 {[info_field [r info clients] blocked_clients] == 1} else {
            fail "the write was not held by the longer pause"
        }
        assert_equal OK [r client unpause]
        assert_equal OK [$c read]
        $c close
    }

    test "CLIENT PAUSE errors" {
        assert_error "ERR timeout is not an integer or out of range" {r client pause abc}
        assert_error "ERR CLIENT PAUSE mode must be WRITE or ALL" {r client pause 10 foo}
        assert_equal OK [r client unpause]
    }

    test "CLIENT REPLY OFF / ON" {
        set c [raw_client]
        $c deferred 1
        $c client reply off
        $c ping
        $c set x 1
        $c client reply on
        assert_equal "+OK" [$c read]
        $c ping
        assert_equal "+PONG" [$c read]
        $c close
    }

    test "CLIENT REPLY SKIP" {
        set c [raw_client]
        $c deferred 1
        $c client reply skip
        $c echo skipped
        $c echo shown
        assert_equal {$5 shown} [raw_lines $c 2]
        $c close
    }

    test "CLIENT REPLY errors" {
        assert_error "ERR syntax error" {r client reply foo}
    }

    test "CLIENT SETINFO" {
        set c [valkey_client]
        assert_equal OK [$c client setinfo lib-name mylib]
        assert_equal OK [$c client setinfo lib-ver 1.2.3]
        assert_match "*lib-name=mylib lib-ver=1.2.3*" [$c client info]
        assert_error "ERR lib-name cannot contain spaces, newlines or special characters." {
            $c client setinfo lib-name "a b"
        }
        assert_error "ERR Unrecognized option 'foo'" {$c client setinfo foo bar}
        $c close
    }
}

start_server {tags {connection} config {requirepass secret}} {
    test "NOAUTH before AUTH" {
        set c [valkey_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_error "NOAUTH Authentication required." {$c get x}
        $c close
    }

    test "AUTH with a wrong password" {
        set c [valkey_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth default wrong}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth nosuchuser secret}
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }

    test "AUTH with the right password" {
        set c [valkey_client]
        assert_equal OK [$c auth secret]
        assert_equal PONG [$c ping]
        $c close
        set c [valkey_client]
        assert_equal OK [$c auth default secret]
        assert_equal PONG [$c ping]
        $c close
    }

    test "HELLO before AUTH" {
        set c [valkey_client]
        assert_error "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time" {$c hello 3}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c hello 3 auth default wrong}
        set h [$c hello 3 auth default secret setname authed]
        assert_equal 3 [dict get $h proto]
        assert_equal authed [$c client getname]
        assert_equal PONG [$c ping]
        $c close
    }

    test "RESET de-authenticates the connection" {
        set c [valkey_client]
        $c auth secret
        assert_equal RESET [$c reset]
        assert_error "NOAUTH Authentication required." {$c ping}
        $c close
    }
}

start_server {tags {connection} config {timeout 1}} {
    test "idle clients are closed after the timeout" {
        set c [valkey_client]
        assert_equal PONG [$c ping]
        assert_equal 1 [$c eof 4000]
        $c close
    }

    test "CONFIG SET timeout 0 disables it" {
        r config set timeout 0
        set c [valkey_client]
        $c ping
        after 1500
        assert_equal PONG [$c ping]
        $c close
    }
}

start_server {tags {connection} config {maxclients 3}} {
    test "maxclients reached" {
        set c1 [valkey_client]
        # the readiness probe of start_server must be gone before counting
        wait_for_condition 50 20 {[info_field [$c1 info clients] connected_clients] == 1}
        set c2 [valkey_client]
        set c3 [valkey_client]
        $c2 ping; $c3 ping
        set c4 [valkey_client]
        assert_error "ERR max number of clients reached" {$c4 read}
        assert_equal 1 [$c4 eof]
        $c4 close
        assert_equal 3 [info_field [$c1 info clients] connected_clients]
        $c3 close
        wait_for_condition 50 20 {[info_field [$c1 info clients] connected_clients] == 2}
        set c5 [valkey_client]
        assert_equal PONG [$c5 ping]
        assert_equal 1 [info_field [$c1 info stats] rejected_connections]
        $c1 close; $c2 close; $c5 close
    }
}

# The last line of the server log that contains `literal`, or {}.
proc log_line {literal {level 0}} {
    set found {}
    foreach l [split [::srv::file_tail [srv $level log] 100000] \n] {
        if {[string first $literal $l] >= 0} { set found $l }
    }
    return $found
}

proc wait_for_log_line {literal {tries 100}} {
    wait_for_condition $tries 20 {[log_line $literal] ne {}} else {
        ::testutil::fail "no log line with '$literal'"
    }
    return [log_line $literal]
}

start_server {tags {connection log} config {loglevel verbose}} {
    test "hide-user-data-from-log is yes by default" {
        assert_equal {hide-user-data-from-log yes} [r config get hide-user-data-from-log]
    }

    foreach {hide name} {yes secret-name-1 no visible-name-2} {
        test "hide-user-data-from-log $hide: a closed connection logs the client with its counters" {
            r config set hide-user-data-from-log $hide
            set c [valkey_client]
            set id [$c client id]
            $c client setname $name
            $c set k v
            set in 0
            foreach cmd {{client id} {client setname NAME} {set k v}} {
                set cmd [string map [list NAME $name] $cmd]
                incr in [string length [::resp::encode_command {*}$cmd]]
            }
            set out [string length ":$id\r\n+OK\r\n+OK\r\n"]
            $c close
            set line [wait_for_log_line "Client closed connection id=$id "]
            assert_equal $in [client_field $line tot-net-in] $line
            assert_equal $out [client_field $line tot-net-out] $line
            assert_equal 3 [client_field $line tot-cmds] $line
            if {$hide eq "yes"} {
                assert_equal "*redacted*" [client_field $line name] $line
                assert_equal "*redacted*" [client_field $line user] $line
                assert_equal 0 [log_contains "*$name*"] "the name reached the log"
            } else {
                assert_equal $name [client_field $line name] $line
                assert_equal default [client_field $line user] $line
            }
        }

        test "hide-user-data-from-log $hide: the protocol error line and its query sample" {
            r config set hide-user-data-from-log $hide
            set c [valkey_client]
            set id [$c client id]
            $c client setname $name
            $c write_raw "*2\r\n\$3\r\nGET\r\n\$x-payload-$hide\r\n"
            assert_error "ERR Protocol error: invalid bulk length" {$c read}
            $c close
            set line [wait_for_log_line "Protocol error (invalid bulk length) from client: id=$id "]
            if {$hide eq "yes"} {
                assert_equal "*redacted*" [client_field $line name] $line
                assert_equal "*redacted*" [client_field $line user] $line
                assert_match "*tot-cmds=2. Query buffer during protocol error: \\*redacted\\*" $line
                assert_equal 0 [log_contains "*x-payload-yes*"] "the query reached the log"
            } else {
                assert_equal $name [client_field $line name] $line
                assert_match "*tot-cmds=2. Query buffer during protocol error: '*\$x-payload-no..'" $line
            }
        }

        test "hide-user-data-from-log $hide: the query buffer limit line" {
            r config set hide-user-data-from-log $hide
            r config set client-query-buffer-limit 1mb
            set c [valkey_client]
            set id [$c client id]
            $c client setname $name
            catch {
                $c write_raw "*2\r\n\$3\r\nset\r\n\$67108864\r\n"
                for {set i 0} {$i < 64} {incr i} { $c write_raw [string repeat z 65536] }
            }
            $c close
            set line [wait_for_log_line "max query buffer length: id=$id "]
            if {$hide eq "yes"} {
                assert_equal "*redacted*" [client_field $line name] $line
                assert_match "*tot-cmds=2 (qbuf initial bytes: \\*redacted\\*)" $line
            } else {
                assert_equal $name [client_field $line name] $line
                # sdscatrepr of the first 64 bytes
                set repr "\"*2\\r\\n\$3\\r\\nset\\r\\n\$67108864\\r\\n[string repeat z 40]\""
                assert_equal "(qbuf initial bytes: $repr)" \
                    [string range $line [string first "(qbuf" $line] end]
            }
            r config set client-query-buffer-limit 1gb
        }
    }

    test "the idle-timeout close line shows the client, redacted" {
        r config set hide-user-data-from-log yes
        set c [valkey_client]
        set id [$c client id]
        $c client setname idle-name
        r config set timeout 1
        set line [wait_for_log_line "Closing idle client id=$id " 250]
        reconnect  ;# the cached client was idle too
        r config set timeout 0
        assert_equal "*redacted*" [client_field $line name] $line
        assert_equal 2 [client_field $line tot-cmds] $line
        assert_equal 1 [$c eof]
        $c close
    }
}
