# Security directives: protected and immutable configs (checked against Valkey 8's config
# table), fail-closed start for directives the node cannot honour yet, rename-command, and
# runtime bind/port changes. The node must never run more open than its operator asked.

# Valkey 8.0's config table: every directive with its mutability and visibility (facts of
# Valkey 8.0.1). "hidden" ones are left out of CONFIG GET patterns but answer by exact name.
set ::vk8_configs {
    acl-pubsub-default modifiable aclfile immutable acllog-max-len modifiable
    active-defrag-cycle-max modifiable active-defrag-cycle-min modifiable
    active-defrag-ignore-bytes modifiable active-defrag-max-scan-fields modifiable
    active-defrag-threshold-lower modifiable active-defrag-threshold-upper modifiable
    active-expire-effort modifiable activedefrag modifiable activerehashing modifiable
    always-show-logo immutable aof-disable-auto-gc {modifiable hidden} aof-load-truncated modifiable
    aof-rewrite-cpulist immutable aof-rewrite-incremental-fsync modifiable
    aof-timestamp-enabled modifiable aof-use-rdb-preamble modifiable appenddirname immutable
    appendfilename immutable appendfsync modifiable appendonly modifiable
    auto-aof-rewrite-min-size modifiable auto-aof-rewrite-percentage modifiable
    availability-zone modifiable bgsave-cpulist immutable bind modifiable
    bind-source-addr modifiable bio-cpulist immutable busy-reply-threshold modifiable
    client-default-resp {immutable hidden} client-output-buffer-limit modifiable
    client-query-buffer-limit modifiable cluster-allow-pubsubshard-when-down modifiable
    cluster-allow-reads-when-down modifiable cluster-allow-replica-migration modifiable
    cluster-announce-bus-port modifiable cluster-announce-client-ipv4 modifiable
    cluster-announce-client-ipv6 modifiable cluster-announce-hostname modifiable
    cluster-announce-human-nodename modifiable cluster-announce-ip modifiable
    cluster-announce-port modifiable cluster-announce-tls-port modifiable
    cluster-blacklist-ttl modifiable cluster-config-file immutable cluster-enabled immutable
    cluster-link-sendbuf-limit modifiable cluster-migration-barrier modifiable
    cluster-node-timeout modifiable cluster-ping-interval {modifiable hidden} cluster-port immutable
    cluster-preferred-endpoint-type modifiable cluster-replica-no-failover modifiable
    cluster-replica-validity-factor modifiable cluster-require-full-coverage modifiable
    cluster-slot-stats-enabled modifiable crash-log-enabled modifiable
    crash-memcheck-enabled modifiable daemonize immutable databases immutable dbfilename protected
    debug-context {modifiable hidden} dir protected disable-thp immutable
    dual-channel-replication-enabled modifiable dynamic-hz modifiable
    enable-debug-assert {immutable hidden} enable-debug-command immutable
    enable-module-command immutable enable-protected-configs immutable
    events-per-io-thread modifiable extended-redis-compatibility modifiable
    hash-max-listpack-entries modifiable hash-max-listpack-value modifiable
    hide-user-data-from-log modifiable hll-sparse-max-bytes modifiable hz modifiable
    ignore-warnings modifiable io-threads immutable io-threads-do-reads immutable
    jemalloc-bg-thread modifiable key-load-delay {modifiable hidden}
    latency-monitor-threshold modifiable latency-tracking modifiable
    latency-tracking-info-percentiles modifiable lazyfree-lazy-eviction modifiable
    lazyfree-lazy-expire modifiable lazyfree-lazy-server-del modifiable
    lazyfree-lazy-user-del modifiable lazyfree-lazy-user-flush modifiable lfu-decay-time modifiable
    lfu-log-factor modifiable list-compress-depth modifiable list-max-listpack-size modifiable
    loading-process-events-interval-bytes {modifiable hidden} locale-collate modifiable
    logfile immutable loglevel modifiable max-new-connections-per-cycle modifiable
    max-new-tls-connections-per-cycle modifiable maxclients modifiable maxmemory modifiable
    maxmemory-clients modifiable maxmemory-eviction-tenacity modifiable maxmemory-policy modifiable
    maxmemory-samples modifiable min-replicas-max-lag modifiable min-replicas-to-write modifiable
    no-appendfsync-on-rewrite modifiable notify-keyspace-events modifiable oom-score-adj modifiable
    oom-score-adj-values modifiable pidfile immutable port modifiable
    prefetch-batch-max-size modifiable primaryauth modifiable primaryuser modifiable
    proc-title-template modifiable propagation-error-behavior modifiable protected-mode modifiable
    proto-max-bulk-len modifiable rdb-del-sync-files modifiable
    rdb-key-save-delay {modifiable hidden} rdb-save-incremental-fsync modifiable
    rdbchecksum immutable rdbcompression modifiable repl-backlog-size modifiable
    repl-backlog-ttl modifiable repl-disable-tcp-nodelay modifiable repl-diskless-load modifiable
    repl-diskless-sync modifiable repl-diskless-sync-delay modifiable
    repl-diskless-sync-max-replicas modifiable repl-ping-replica-period modifiable
    repl-timeout modifiable replica-announce-ip modifiable replica-announce-port modifiable
    replica-announced modifiable replica-ignore-disk-write-errors modifiable
    replica-ignore-maxmemory modifiable replica-lazy-flush modifiable replica-priority modifiable
    replica-read-only modifiable replica-serve-stale-data modifiable replicaof immutable
    req-res-logfile {immutable hidden} requirepass modifiable sanitize-dump-payload modifiable
    save modifiable server-cpulist immutable set-max-intset-entries modifiable
    set-max-listpack-entries modifiable set-max-listpack-value modifiable set-proc-title immutable
    shutdown-on-sigint modifiable shutdown-on-sigterm modifiable shutdown-timeout modifiable
    slowlog-log-slower-than modifiable slowlog-max-len modifiable socket-mark-id immutable
    stop-writes-on-bgsave-error modifiable stream-node-max-bytes modifiable
    stream-node-max-entries modifiable supervised immutable syslog-enabled immutable
    syslog-facility immutable syslog-ident immutable tcp-backlog immutable tcp-keepalive modifiable
    timeout modifiable tls-auth-clients modifiable tls-ca-cert-dir modifiable
    tls-ca-cert-file modifiable tls-cert-file modifiable tls-ciphers modifiable
    tls-ciphersuites modifiable tls-client-cert-file modifiable tls-client-key-file modifiable
    tls-client-key-file-pass modifiable tls-cluster modifiable tls-dh-params-file modifiable
    tls-key-file modifiable tls-key-file-pass modifiable tls-port modifiable
    tls-prefer-server-ciphers modifiable tls-protocols modifiable tls-replication modifiable
    tls-session-cache-size modifiable tls-session-cache-timeout modifiable
    tls-session-caching modifiable tracking-table-max-keys modifiable unixsocket immutable
    unixsocketgroup immutable unixsocketperm immutable use-exit-on-panic {modifiable hidden}
    watchdog-period {modifiable hidden} zset-max-listpack-entries modifiable
    zset-max-listpack-value modifiable
}

# A node that must refuse to start: returns what it printed, after checking it exited with 1.
proc refused_start {lines} {
    set port [::srv::find_free_port]
    lassign [server_try_start "port $port\nsave \"\"\n[join $lines \n]\n"] code out
    assert_equal 1 $code "exit code for: $lines\n$out"
    return $out
}

# The FATAL CONFIG FILE ERROR block names the line and gives the reason.
proc assert_refused_line {out lineno line reason} {
    set want "at line $lineno\n>>> '$line'\n$reason"
    set at [string first $want $out]
    assert {$at >= 0} "expected the lines:\n$want\n    in:\n$out"
    # the reason is the whole last line of the block
    assert_equal "" [lindex [split [string range $out [expr {$at + [string length $want]}] end] \n] 0]
}

# A non-loopback IPv4 address of this host, or "" if it has none.
proc non_loopback_ipv4 {} {
    if {[catch {exec hostname -I} addrs]} { return "" }
    foreach a $addrs {
        if {[regexp {^\d+\.\d+\.\d+\.\d+$} $a] && ![string match 127.* $a]} { return $a }
    }
    return ""
}

start_server {tags {security} overrides {enable-protected-configs no}} {
    test "Every directive of Valkey 8's config table, with its mutability and visibility" {
        set visible [dict keys [r config get *]]
        set count 0
        foreach {name kind} $::vk8_configs {
            set got [r config get $name]
            assert_equal 2 [llength $got] "CONFIG GET $name"
            assert_equal $name [lindex $got 0]
            set value [lindex $got 1]
            if {"hidden" in $kind} {
                assert {$name ni $visible} "$name is hidden from CONFIG GET *"
            } else {
                assert {$name in $visible} "$name is listed by CONFIG GET *"
            }
            set prefix "ERR CONFIG SET failed (possibly related to argument '$name') - "
            switch [lindex $kind 0] {
                immutable {
                    assert_equal "${prefix}can't set immutable config" \
                        [assert_error * {r config set $name $value}]
                }
                protected {
                    assert_equal "${prefix}can't set protected config" \
                        [assert_error * {r config set $name $value}]
                }
                modifiable {
                    assert_equal OK [r config set $name $value] "CONFIG SET $name to its value"
                }
            }
            incr count
        }
        assert_equal 200 $count
        assert_equal PONG [r ping]
    }

    test "Reproduction: CONFIG SET cannot point snapshots at another file or directory" {
        set prefix "ERR CONFIG SET failed (possibly related to argument"
        assert_equal "$prefix 'dir') - can't set protected config" \
            [assert_error * {r config set dir /tmp}]
        assert_equal "$prefix 'dbfilename') - can't set protected config" \
            [assert_error * {r config set dbfilename authorized_keys}]
        assert_equal "$prefix 'dbfilename') - can't set protected config" \
            [assert_error * {r config set dbfilename ../x.rdb}]
        # One protected name refuses the whole CONFIG SET.
        assert_error "$prefix 'dir') - can't set protected config" \
            {r config set hz 11 dir /tmp}
        assert_equal {hz 10} [r config get hz]
        foreach {name value} {enable-protected-configs yes aclfile /tmp/x.acl
                              appenddirname /tmp enable-debug-command yes daemonize yes
                              cluster-enabled yes unixsocket /tmp/x.sock} {
            assert_equal "$prefix '$name') - can't set immutable config" \
                [assert_error * {r config set $name $value}]
        }
        assert_equal dump.rdb [lindex [r config get dbfilename] 1]
        assert_equal [srv dir] [lindex [r config get dir] 1]
        r set k v
        r save
        assert {[file exists [file join [srv dir] dump.rdb]]}
        assert {![file exists /tmp/authorized_keys]}
    }

    test "Directives that cannot be honoured yet are refused by CONFIG SET" {
        foreach {name value why} {
            tls-port 6380 "TLS is not implemented yet"
            tls-replication yes "TLS is not implemented yet, so replication would travel in clear text"
            tls-cluster yes "TLS is not implemented yet, so the cluster bus would travel in clear text"
            rdb-del-sync-files yes "deleting the snapshot files made for replication is not implemented yet"
        } {
            assert_equal "ERR CONFIG SET failed (possibly related to argument '$name') - '$name $value' is not supported yet by this server: $why" \
                [assert_error * {r config set $name $value}]
        }
        # The values that ask for nothing more are accepted.
        assert_equal OK [r config set appendonly no maxmemory 0 tls-port 0 maxmemory-clients 0]
    }
}

start_server {tags {security}} {
    # The suite's default config has enable-protected-configs yes.
    test "enable-protected-configs yes: dir and dbfilename change, but dbfilename is never a path" {
        set prefix "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
        foreach bad {../x.rdb sub/x.rdb /etc/passwd {x\y.rdb}} {
            assert_equal "${prefix}dbfilename can't be a path, just a filename" \
                [assert_error * {r config set dbfilename $bad}]
        }
        assert_equal "${prefix}dbfilename can't be empty" \
            [assert_error * {r config set dbfilename ""}]
        set sub [file join [srv dir] sub]
        file mkdir $sub
        assert_equal OK [r config set dir $sub dbfilename other.rdb]
        r set k v
        r save
        assert {[file exists [file join $sub other.rdb]]}
    }
}

start_server {tags {security} overrides {enable-protected-configs local enable-debug-command local
                                         protected-mode no}} {
    test "enable-protected-configs local: loopback clients may, other clients may not" {
        assert_equal OK [r config set dbfilename local.rdb]
        set ip [non_loopback_ipv4]
        if {$ip eq ""} {
            ::testutil::log "no non-loopback IPv4 address here: only the loopback half ran"
            return
        }
        r config set bind "127.0.0.1 $ip"
        set c [::resp::client $ip [srv port]]
        lappend ::testutil::test_clients $c
        assert_match "*addr=$ip:*" [$c client info]
        assert_equal "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config" \
            [assert_error * {$c config set dbfilename remote.rdb}]
        assert_equal {dbfilename local.rdb} [r config get dbfilename]
        # enable-debug-command local follows the same rule.
        assert_match "ERR DEBUG command not allowed*" [assert_error * {$c debug sleep 0}]
    }
} 

start_server {tags {security} config {user {default on >secretpw ~* &* +@all}}} {
    test "Reproduction: ACL users of the config file are honoured (no login without the password)" {
        set c [valkey_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth wrong}
        assert_equal OK [$c auth secretpw]
        assert_equal PONG [$c ping]
    }
}

tags {security} {
    test "Each directive the node cannot honour yet stops the start, naming the line" {
        foreach {line why} {
            {tls-port 6380} "'tls-port 6380' is not supported yet by this server: TLS is not implemented yet"
            {tls-replication yes} "'tls-replication yes' is not supported yet by this server: TLS is not implemented yet, so replication would travel in clear text"
            {tls-cluster yes} "'tls-cluster yes' is not supported yet by this server: TLS is not implemented yet, so the cluster bus would travel in clear text"
            {syslog-enabled yes} "'syslog-enabled yes' is not supported yet by this server: logging to syslog is not implemented yet"
            {rdb-del-sync-files yes} "'rdb-del-sync-files yes' is not supported yet by this server: deleting the snapshot files made for replication is not implemented yet"
            {loadmodule /tmp/auth.so} "'loadmodule' is not supported: this server has no module API"
            {sentinel monitor m 127.0.0.1 6379 2} "sentinel directive while not in sentinel mode"
            {rename-command nosuch x} "No such command in rename-command"
            {rename-command config|get x} "No such command in rename-command"
            {rename-command get set} "Target command name already exists"
            {dbfilename ../dump.rdb} "dbfilename can't be a path, just a filename"
            {appendfilename ../x.aof} "appendfilename can't be a path, just a filename"
            {appenddirname /tmp} "appenddirname can't be a path, just a dirname"
        } {
            assert_refused_line [refused_start [list $line]] 3 $line $why
        }
        # Values that ask for nothing the node lacks start normally.
        set port [::srv::find_free_port]
        lassign [server_try_start "port $port\nsave\nappendonly no\nmaxmemory 0\ntls-port 0\nenable-debug-assert yes\nreq-res-logfile \"\"\n" {} 700] code out
        assert_equal running $code $out
    }

    test "The security directives a Valkey 8 config may hold, all at once, are enforced" {
        set dir [::srv::make_dir]
        set sock [file join $dir node.sock]
        set port [::srv::find_free_port]
        set pid [exec [file normalize $::cfg(server)] --port $port --bind 127.0.0.1 \
                     --save {} --dir $dir --logfile [file join $dir node.log] \
                     --protected-mode yes --requirepass s3cret --enable-debug-command no \
                     --enable-protected-configs no --enable-module-command yes \
                     --acl-pubsub-default resetchannels --hide-user-data-from-log yes \
                     --unixsocket $sock --unixsocketperm 700 --unixsocketgroup daemon \
                     --rename-command CONFIG {} --rename-command FLUSHALL xflushall &]
        try {
            wait_for_condition 100 20 {[file exists $sock]}
            set c [::resp::client 127.0.0.1 $port]
            lappend ::testutil::test_clients $c
            # requirepass
            assert_equal "NOAUTH Authentication required." [assert_error * {$c set k v}]
            assert_equal OK [$c auth s3cret]
            # rename-command: the old names are gone, the new one works
            assert_equal "ERR unknown command 'CONFIG', with args beginning with: 'SET' 'dir' '/tmp' " \
                [assert_error * {$c CONFIG SET dir /tmp}]
            assert_match "ERR unknown command 'FLUSHALL'*" [assert_error * {$c FLUSHALL}]
            assert_equal OK [$c xflushall]
            # enable-debug-command no; modules are refused whatever enable-module-command says
            assert_match "ERR DEBUG command not allowed*" [assert_error * {$c debug sleep 0}]
            assert_equal "ERR modules are not supported by this node" [assert_error * {$c module list}]
            # acl-pubsub-default does not touch the default user, as in Valkey
            assert_equal {subscribe ch 1} [$c subscribe ch]
            # the unix socket: mode 700, group daemon
            file stat $sock st
            assert_equal 0700 [format %04o [expr {$st(mode) & 0777}]]
            assert_equal [lindex [split [exec getent group daemon] :] 2] $st(gid)
        } finally {
            catch {exec kill -TERM $pid}
            wait_for_condition 200 20 {![::srv::alive $pid]}
            file delete -force $dir
        }
    }

    test "unixsocketgroup naming no group stops the start" {
        set dir [::srv::make_dir]
        set out [lindex [server_try_start "port [::srv::find_free_port]\nsave \"\"\nunixsocket [file join $dir s.sock]\nunixsocketgroup no-such-group-here\n"] 1]
        assert_match "*Failed to set the group of the unix socket: no group 'no-such-group-here'*" $out
        file delete -force $dir
    }
}

start_server {tags {security} args {--rename-command flushall xflushall --rename-command config ""}} {
    test "rename-command: the new name runs the command, the old name is unknown" {
        r set k v
        assert_match "ERR unknown command 'flushall', with args beginning with: *" \
            [assert_error * {r flushall}]
        assert_match "ERR unknown command 'config', with args beginning with: 'get' *" \
            [assert_error * {r config get dir}]
        assert_equal OK [r XFLUSHALL]
        assert_equal 0 [r dbsize]
    }

    test "rename-command: COMMAND and INFO show the real name, as Valkey does" {
        # COMMAND INFO takes the name clients use and shows the command's real name.
        assert_equal flushall [lindex [r command info xflushall] 0 0]
        assert_equal {{}} [r command info flushall]
        assert_equal {{}} [r command info config]
        set list [r command list]
        assert {"flushall" in $list}
        assert {"xflushall" ni $list}
        assert {"config" ni $list}
        assert_equal [llength [lsearch -all -inline -not $list *|*]] [r command count]
        assert_match "*cmdstat_flushall:calls=1,*" [r info commandstats]
        set other [valkey_client]
        $other xflushall
        assert_match "*cmd=flushall *" [lindex [lsearch -inline -all [split [r client list] \n] "id=[$other client id] *"] 0]
    }
}

start_server {tags {security repl} args {--rename-command set xset --rename-command flushall ""}} {
    start_server {tags {security repl}} {
        test "rename-command: a renamed command reaches replicas under its real name" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 200 50 {[info_field [r info replication] master_link_status] eq "up"}
            r -1 xset k v
            r -1 multi
            r -1 xset k2 v2
            r -1 exec
            wait_for_condition 100 20 {[r get k2] eq "v2"}
            assert_equal v [r get k]
        }
    }
    start_server {tags {security repl} args {--rename-command set xset}} {
        test "rename-command on a replica: the primary's real names still apply" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 200 50 {[info_field [r info replication] master_link_status] eq "up"}
            r -1 xset k3 v3
            wait_for_condition 100 20 {[r get k3] eq "v3"}
        }
    }
}

start_server {tags {security} overrides {bind {127.0.0.1 127.0.0.2}}} {
    test "CONFIG SET bind listens on exactly the new addresses" {
        set c [::resp::client 127.0.0.2 [srv port]]
        assert_equal PONG [$c ping]
        $c close
        assert_equal OK [r config set bind 127.0.0.1]
        assert_match "*connection refused*" [string tolower [assert_error * {::resp::client 127.0.0.2 [srv port]}]]
        # An address the host does not have: refused, and the old addresses keep listening.
        assert_equal "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses." \
            [assert_error * {r config set bind 192.0.2.123}]
        assert_equal {bind 127.0.0.1} [r config get bind]
        set c [::resp::client 127.0.0.1 [srv port]]
        assert_equal PONG [$c ping]
        $c close
    }

    test "CONFIG SET port moves the listener" {
        set old [srv port]
        set new [::srv::find_free_port]
        assert_equal OK [r config set port $new]
        assert_equal $new [info_field [r info server] tcp_port]
        set c [::resp::client 127.0.0.1 $new]
        assert_equal PONG [$c ping]
        $c close
        assert_match "*connection refused*" [string tolower [assert_error * {::resp::client 127.0.0.1 $old}]]
        assert_equal OK [r config set port $old]
        # A port another socket holds: refused with Valkey 8's text, the old port kept.
        set holder [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 $new]
        try {
            assert_equal "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs." \
                [assert_error * {r config set port $new}]
        } finally {
            close $holder
        }
        assert_equal $old [info_field [r info server] tcp_port]
        assert_equal PONG [r ping]
    }
}
