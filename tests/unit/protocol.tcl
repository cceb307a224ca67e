# Wire protocol: inline commands, pipelining, malformed requests, buffer limits.

# Send raw bytes on a fresh connection and return {reply closed}: reply is the first
# reply (an error reply is returned as "-<text>"), or {} when nothing came back.
proc proto_probe {bytes {level 0}} {
    set c [valkey_client $level]
    $c write_raw $bytes
    if {[catch {$c read 1000} reply]} {
        if {[string match "I/O error*" $reply]} { set reply {} } else { set reply "-$reply" }
    }
    set closed [$c eof 500]
    $c close
    return [list $reply $closed]
}

# Expect a protocol error reply followed by the server closing the connection.
proc assert_proto_error {bytes expected} {
    lassign [proto_probe $bytes] reply closed
    assert_equal "-ERR Protocol error: $expected" $reply "request [string range $bytes 0 40]"
    assert_equal 1 $closed "connection should be closed after a protocol error"
}

start_server {tags {protocol}} {
    test "inline PING" {
        set c [valkey_client]
        $c write_raw "PING\r\n"
        assert_equal PONG [$c read]
        $c close
    }

    test "inline SET and GET" {
        set c [valkey_client]
        $c write_raw "set a b\r\nget a\r\n"
        assert_equal OK [$c read]
        assert_equal b [$c read]
        $c close
    }

    test "inline: extra spaces around arguments are ignored" {
        set c [valkey_client]
        $c write_raw "   ECHO    hello   \r\n"
        assert_equal hello [$c read]
        $c close
    }

    test "inline: double quoted arguments with escapes" {
        set c [valkey_client]
        $c write_raw "set \"k\\x41\\n\" \"b c\"\r\n"
        assert_equal OK [$c read]
        $c write_raw "ECHO \"\\x41\\t\\n\\r\\b\\a\\\\\\\"\\z\"\r\n"
        assert_equal "A\t\n\r\x08\x07\\\"z" [$c read]
        # \x followed by non-hex digits is taken literally
        $c write_raw "ECHO \"\\x4g\"\r\n"
        assert_equal "x4g" [$c read]
        $c close
        assert_equal "b c" [r get "kA\n"]
    }

    test "inline: single quoted arguments" {
        set c [valkey_client]
        $c write_raw "ECHO 'a\\'b\\n'\r\n"
        assert_equal "a'b\\n" [$c read]
        $c write_raw "ECHO ''\r\n"
        assert_equal "" [$c read]
        $c write_raw "ECHO \"\"\r\n"
        assert_equal "" [$c read]
        $c close
    }

    test "inline: empty lines are ignored" {
        set c [valkey_client]
        $c write_raw "\r\n\r\n\r\nPING\r\n\r\n"
        assert_equal PONG [$c read]
        $c write_raw "\n\nPING\r\n"
        assert_equal PONG [$c read]
        $c close
    }

    test "inline: bare LF terminates a command" {
        set c [valkey_client]
        $c write_raw "PING\nECHO x\nPING\r\n"
        assert_equal PONG [$c read]
        assert_equal x [$c read]
        assert_equal PONG [$c read]
        $c close
    }

    test "inline: a lone CR is whitespace" {
        set c [valkey_client]
        $c write_raw "PING\rfoo\r\n"
        assert_equal foo [$c read]
        $c close
    }

    test "multibulk: empty and negative counts are ignored" {
        set c [valkey_client]
        $c write_raw "*0\r\n*-1\r\n*-10\r\n*1\r\n\$4\r\nPING\r\n"
        assert_equal PONG [$c read]
        assert_equal 1 [expr {![$c eof 200]}]
        $c close
    }

    test "multibulk: command split across many writes" {
        set c [valkey_client]
        foreach chunk [list "*3\r" "\n\$3\r\nSE" "T\r\n\$5\r\nsplit" "\r\n\$3" "\r\nyes\r" "\n"] {
            $c write_raw $chunk
            after 5
        }
        assert_equal OK [$c read]
        $c close
        assert_equal yes [r get split]
    }

    test "pipelining 2000 commands in one write" {
        r del counter
        set buf {}
        for {set i 0} {$i < 1000} {incr i} {
            append buf [::resp::encode_command set key:$i $i]
            append buf [::resp::encode_command incr counter]
        }
        set c [valkey_client]
        $c write_raw $buf
        for {set i 0} {$i < 1000} {incr i} {
            assert_equal OK [$c read]
            assert_equal [expr {$i + 1}] [$c read]
        }
        $c close
        assert_equal 1000 [r get counter]
        assert_equal 999 [r get key:999]
    }

    test "pipelining mixed inline and multibulk commands" {
        set c [valkey_client]
        $c write_raw "PING\r\n[::resp::encode_command echo abc]set mixed 1\r\n[::resp::encode_command incr mixed]"
        assert_equal PONG [$c read]
        assert_equal abc [$c read]
        assert_equal OK [$c read]
        assert_equal 2 [$c read]
        $c close
    }

    test "deferred client reads replies later" {
        set c [valkey_client]
        $c deferred 1
        $c set d 1
        $c incr d
        $c get d
        assert_equal {OK 2 2} [list [$c read] [$c read] [$c read]]
        $c close
    }

    test "protocol error: invalid multibulk length" {
        assert_proto_error "*x\r\n" "invalid multibulk length"
        assert_proto_error "*\r\n" "invalid multibulk length"
        assert_proto_error "*1x\r\n" "invalid multibulk length"
        assert_proto_error "*2147483648\r\n" "invalid multibulk length"
        assert_proto_error "*3000000000\r\n" "invalid multibulk length"
    }

    test "protocol error: invalid bulk length" {
        assert_proto_error "*1\r\n\$x\r\n" "invalid bulk length"
        assert_proto_error "*1\r\n\$\r\n" "invalid bulk length"
        assert_proto_error "*1\r\n\$-5\r\n" "invalid bulk length"
        assert_proto_error "*1\r\n\$1x\r\n" "invalid bulk length"
        assert_proto_error "*1\r\n\$2147483648\r\n" "invalid bulk length"
    }

    test "protocol error: missing bulk marker" {
        assert_proto_error "*1\r\nfoo\r\n" "expected '\$', got 'f'"
        assert_proto_error "*2\r\n\$4\r\nECHO\r\n:1\r\n" "expected '\$', got ':'"
    }

    test "protocol error: bulk over the default proto-max-bulk-len (512mb)" {
        assert_proto_error "*1\r\n\$536870913\r\n" "invalid bulk length"
        # exactly the limit is accepted (the server just waits for the data)
        lassign [proto_probe "*1\r\n\$536870912\r\n"] reply closed
        assert_equal {{} 0} [list $reply $closed]
    }

    test "protocol error: bulk over a lowered proto-max-bulk-len" {
        r config set proto-max-bulk-len 1mb
        assert_proto_error "*2\r\n\$4\r\nECHO\r\n\$1048577\r\n" "invalid bulk length"
        set c [valkey_client]
        set big [string repeat x 1048576]
        $c write_raw "*2\r\n\$4\r\nECHO\r\n\$1048576\r\n$big\r\n"
        assert_equal $big [$c read]
        $c close
        r config set proto-max-bulk-len 512mb
    }

    test "protocol error: too long count lines" {
        assert_proto_error "*[string repeat 1 70000]" "too big mbulk count string"
        assert_proto_error "*1\r\n\$[string repeat 1 70000]" "too big bulk count string"
    }

    test "protocol error: unbalanced quotes in inline commands" {
        assert_proto_error "set \"a b\r\n" "unbalanced quotes in request"
        assert_proto_error "set 'a b\r\n" "unbalanced quotes in request"
        assert_proto_error "set \"a\"b c\r\n" "unbalanced quotes in request"
        assert_proto_error "ECHO ''x\r\n" "unbalanced quotes in request"
        assert_proto_error "ECHO a\"b\r\n" "unbalanced quotes in request"
    }

    test "protocol error: commands before the error are still answered" {
        set c [valkey_client]
        $c write_raw "PING\r\n[::resp::encode_command echo ok]*x\r\nPING\r\n"
        assert_equal PONG [$c read]
        assert_equal ok [$c read]
        assert_error "ERR Protocol error: invalid multibulk length" {$c read}
        assert_equal 1 [$c eof]
        $c close
    }

    test "protocol error: huge inline request without newline" {
        assert_proto_error [string repeat x 70000] "too big inline request"
    }

    test "a 60 KB inline request is accepted" {
        set c [valkey_client]
        set v [string repeat y 60000]
        $c write_raw "set inl $v\r\n"
        assert_equal OK [$c read]
        $c close
        assert_equal 60000 [r strlen inl]
    }

    test "protocol errors are counted and the server stays healthy" {
        # Valkey answers a protocol error with addReplyError, which counts it in
        # total_error_replies and in errorstat_ERR
        r config resetstat
        assert_equal 0 [s total_error_replies]
        assert_proto_error "*x\r\n" "invalid multibulk length"
        assert_proto_error "set \"a b\r\n" "unbalanced quotes in request"
        assert_equal 2 [s total_error_replies]
        assert_equal count=2 [s errorstat_ERR]
        assert_equal PONG [r ping]
        assert_equal 2 [s total_error_replies]
    }

    test "unknown command error text" {
        assert_error "ERR unknown command 'FOO', with args beginning with: " {r FOO}
        assert_error "ERR unknown command 'foo', with args beginning with: 'a' 'b c' " {r foo a "b c"}
        set c [valkey_client]
        $c write_raw "FOO a b c\r\n"
        assert_error "ERR unknown command 'FOO', with args beginning with: 'a' 'b' 'c' " {$c read}
        $c close
    }

    test "unknown command error text is truncated" {
        set name "FOO[string repeat n 200]"
        set arg [string repeat a 200]
        set err [assert_error "ERR unknown command*" {r $name $arg b}]
        assert_equal "ERR unknown command '[string range $name 0 127]', with args beginning with: '[string repeat a 128]' " $err
        set err [assert_error "ERR unknown command*" {r FOO {*}[lrepeat 100 a]}]
        assert_equal "ERR unknown command 'FOO', with args beginning with: [string repeat {'a' } 32]" $err
        set a60 [string repeat a 60]
        set err [assert_error "ERR unknown command*" {r FOO $a60 $a60 $a60 $a60}]
        assert_equal "ERR unknown command 'FOO', with args beginning with: '$a60' '$a60' 'aa' " $err
    }

    test "wrong number of arguments error text" {
        assert_error "ERR wrong number of arguments for 'get' command" {r get}
        assert_error "ERR wrong number of arguments for 'set' command" {r SET k}
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo a b}
        assert_error "ERR wrong number of arguments for 'config|get' command" {r config get}
    }

    test "unknown subcommand error text" {
        assert_error "ERR unknown subcommand 'FOO'. Try CONFIG HELP." {r config FOO}
        assert_error "ERR unknown subcommand 'nope'. Try CLIENT HELP." {r client nope}
    }

    test "100 MB command name in one bulk: unknown command, server survives" {
        set c [valkey_client]
        set mb [string repeat "garbage!" 131072]
        $c write_raw "*1\r\n\$104857600\r\n"
        set other [valkey_client]
        for {set i 0} {$i < 100} {incr i} {
            $c write_raw $mb
            if {$i == 50} { assert_equal PONG [$other ping] }
        }
        $c write_raw "\r\n"
        assert_error "ERR unknown command 'garbage!garbage!*', with args beginning with: " {$c read}
        assert_equal PONG [$c ping]
        assert_equal PONG [$other ping]
        $c close
        $other close
    }

    test "100 MB of random garbage: client dropped, server stays responsive" {
        expr {srand(42)}
        set chunk {}
        for {set i 0} {$i < 4096} {incr i} {
            append chunk [binary format c [expr {int(rand() * 256)}]]
        }
        set chunk "*[string repeat $chunk 256]"
        set other [valkey_client]
        set c [valkey_client]
        set sent 0
        for {set i 0} {$i < 100} {incr i} {
            if {[catch {$c write_raw $chunk}]} break
            incr sent
        }
        assert_equal 1 [$c eof 2000] "garbage sender should be disconnected"
        $c close
        assert_equal PONG [$other ping]
        assert_equal PONG [r ping]
        $other close
    }

    test "query buffer limit: client sending an endless bulk is disconnected" {
        r config set client-query-buffer-limit 1mb
        set before [s client_query_buffer_limit_disconnections]
        set c [valkey_client]
        # a 64 MB bulk announced, 4 MB actually sent
        catch {
            $c write_raw "*2\r\n\$3\r\nset\r\n\$67108864\r\n"
            for {set i 0} {$i < 64} {incr i} { $c write_raw [string repeat z 65536] }
        }
        assert_equal 1 [$c eof 2000]
        $c close
        wait_for_condition 50 20 {
            [s client_query_buffer_limit_disconnections] == $before + 1
        } else {
            ::testutil::fail "client_query_buffer_limit_disconnections did not increase"
        }
        r config set client-query-buffer-limit 1gb
        assert_equal PONG [r ping]
    }

    test "A command of 200,000 arguments leaves no memory behind in its client" {
        r flushall sync
        set base [s used_memory]
        set args {}
        for {set i 0} {$i < 100000} {incr i} { lappend args k$i v }
        assert_equal OK [r mset {*}$args]
        r flushall sync
        # The views of its arguments (three arrays of 16 bytes each) took 9.6 MB.
        assert_lessthan [expr {[s used_memory] - $base}] 100000
    }
}

start_server {tags {protocol} config {client-output-buffer-limit "normal 1mb 0 0"}} {
    test "output buffer limit: a client that never reads is disconnected" {
        r set big [string repeat v 100000]
        assert_equal 0 [s client_output_buffer_limit_disconnections]
        set c [valkey_client]
        set buf [string repeat [::resp::encode_command get big] 1000]
        # 1000 x 100 KB of replies, never read: the server must drop the client
        catch { for {set i 0} {$i < 5} {incr i} { $c write_raw $buf } }
        wait_for_condition 100 20 {
            [s client_output_buffer_limit_disconnections] == 1
        } else {
            ::testutil::fail "client was not disconnected"
        }
        assert_equal 1 [$c eof 2000]
        $c close
        assert_equal PONG [r ping]
        assert_equal 100000 [r strlen big]
        assert_match "*normal 1048576 0 0*" [lindex [r config get client-output-buffer-limit] 1]
    }
}

start_server {tags {protocol} config {requirepass secret}} {
    test "unauthenticated clients: small multibulk limits" {
        assert_proto_error "*11\r\n" "unauthenticated multibulk length"
        assert_proto_error "*2\r\n\$16385\r\n" "unauthenticated bulk length"
        lassign [proto_probe "*10\r\n\$16384\r\n"] reply closed
        assert_equal {{} 0} [list $reply $closed]
    }

    test "unauthenticated clients: unknown command is reported before NOAUTH" {
        lassign [proto_probe "FOO\r\n"] reply closed
        assert_equal {-ERR unknown command 'FOO', with args beginning with: } $reply
        lassign [proto_probe "PING\r\n"] reply closed
        assert_equal {-NOAUTH Authentication required.} $reply
    }

    test "authenticated clients may send large multibulk requests" {
        set c [valkey_client]
        assert_equal OK [$c auth secret]
        assert_equal 12 [$c rpush l {*}[lrepeat 12 x]]
        assert_equal 20000 [$c append s [string repeat s 20000]]
        $c close
    }
}

# Valkey 8 (and Redis 7.0) look for the end of a request line with strchr, so a NUL byte
# before the newline (inline) or before the '\r' (multibulk length lines) hides it: the
# request never runs, nor anything pipelined behind it, and waits for more input until more
# than 64 KB are pending, then it is a protocol error.
proc nul_request_probe {request error {exact_limit 0}} {
    set c [valkey_client]
    set id [$c client id]
    $c write_raw $request
    set len [string length $request]
    wait_for_condition 100 10 {[client_field [r client list id $id] qbuf] >= $len - 4}
    set line [r client list id $id]
    assert_equal client|id [client_field $line cmd] "nothing ran: $line"
    assert_equal 0 [client_field $line obl] "no reply: $line"
    assert_equal 0 [r exists nulkey]
    if {$exact_limit} {
        # 64 KB pending exactly is still a request in progress; one byte more is not
        $c write_raw [string repeat x [expr {65536 - $len}]]
        wait_for_condition 100 10 {[client_field [r client list id $id] qbuf] == 65536}
        assert_equal 0 [r exists nulkey]
        $c write_raw x
    } else {
        $c write_raw [string repeat x 70000]
    }
    assert_error "ERR Protocol error: $error" {$c read}
    assert_equal 1 [$c eof]
    $c close
}

proc nul_request_tests {server} {
    test "$server: an inline request with a NUL byte never runs, then is too big" {
        nul_request_probe "SET nulkey b\x00c\r\nPING\r\n" "too big inline request" 1
    }
    test "$server: a NUL byte in a multibulk length line hides its end" {
        nul_request_probe "*3\x00\r\n\$3\r\nSET\r\n\$6\r\nnulkey\r\n\$1\r\nb\r\n" \
            "too big mbulk count string"
        nul_request_probe "*3\r\n\$3\x00\r\nSET\r\n\$6\r\nnulkey\r\n\$1\r\nb\r\n" \
            "too big bulk count string"
    }
    test "$server: a NUL byte after the newline starts the next request" {
        set c [valkey_client]
        $c write_raw "SET nulkey b\r\n\x00"
        assert_equal OK [$c read]
        assert_equal b [r get nulkey]
        r del nulkey
        $c close
    }
}

start_server {tags {protocol}} {
    nul_request_tests "our node"
}

# The same probes against Debian's redis-server 7.0: it must behave the same.
set ::proto_redis_bin /usr/bin/redis-server
if {[file executable $::proto_redis_bin]} {
    set ::proto_tested_server $::cfg(server)
    set ::cfg(server) $::proto_redis_bin
    try {
        start_server {tags {protocol}} {
            set ::cfg(server) $::proto_tested_server
            test "the peer is redis-server 7.0" {
                assert_match 7.0.* [info_field [r info server] redis_version]
            }
            nul_request_tests "redis-server 7.0"
        }
    } finally {
        set ::cfg(server) $::proto_tested_server
    }
} else {
    start_server {tags {protocol}} {
        test "NUL byte requests against redis-server 7.0" {
            skip "$::proto_redis_bin not installed"
        }
    }
}
