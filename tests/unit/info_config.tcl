# INFO, CONFIG, DEBUG, COMMAND, TIME, LASTSAVE and the startup log.

# Section names ("# Server" -> server) of an INFO reply, in order.
proc info_sections {info} {
    set out {}
    foreach line [split $info "\r\n"] {
        if {[string match "# *" $line]} { lappend out [string tolower [string range $line 2 end]] }
    }
    return $out
}

# Lines of an INFO reply starting with a prefix.
proc info_lines {info prefix} {
    set out {}
    foreach line [split $info "\r\n"] {
        if {[string match "$prefix*" $line]} { lappend out $line }
    }
    return $out
}

start_server {tags {info}} {
    test "INFO default sections" {
        assert_equal {server clients memory persistence stats replication cpu modules errorstats cluster keyspace} \
            [info_sections [r info]]
        assert_equal [info_sections [r info]] [info_sections [r info default]]
    }

    test "INFO all and everything" {
        set all [info_sections [r info all]]
        assert_equal {server clients memory persistence stats replication cpu modules commandstats errorstats latencystats cluster keyspace} $all
        assert_equal $all [info_sections [r info everything]]
    }

    test "INFO with one or more section arguments" {
        assert_equal {server} [info_sections [r info server]]
        assert_equal {server clients} [info_sections [r info server clients]]
        # sections come in the server's order, whatever the order of the arguments
        assert_equal {server clients} [info_sections [r info clients SERVER]]
    } 

    test "INFO unknown section is empty" {
        assert_equal {} [r info nosuchsection]
    }

    test "INFO lines end with CRLF" {
        set info [r info server]
        assert_match "# Server\r\n*\r\n" $info
    }

    test "INFO server fields" {
        set info [r info server]
        assert_equal 7.2.4 [info_field $info redis_version]
        assert_equal valkey [info_field $info server_name]
        assert_match {8.0.*} [info_field $info valkey_version]
        assert_equal standalone [info_field $info server_mode]
        assert_equal [srv pid] [info_field $info process_id]
        assert_equal [srv port] [info_field $info tcp_port]
        assert_match {[0-9a-f]*} [info_field $info run_id]
        assert_equal 40 [string length [info_field $info run_id]]
        assert_range [info_field $info uptime_in_seconds] 0 600
        assert_equal 0 [info_field $info uptime_in_days]
        assert_equal 10 [info_field $info hz]
        assert_equal [file normalize [srv config_file]] [info_field $info config_file]
        assert_equal $::cfg(server) [info_field $info executable]
        # arch_bits (sizeof(long) * 8) and multiplexing_api (the event loop's backend) are
        # fixed at build time in Valkey too; os is uname's sysname, release and machine
        assert_equal 64 [info_field $info arch_bits]
        assert_equal epoll [info_field $info multiplexing_api]
        assert_equal [exec uname -s -r -m] [info_field $info os]
        # the server's clock: microseconds now, and the LRU clock in seconds (24 bits)
        set us [info_field $info server_time_usec]
        assert_range [expr {$us - [clock microseconds]}] -5000000 5000000
        set lru [info_field $info lru_clock]
        set want [expr {[clock seconds] & 0xffffff}]
        assert {($want - $lru) >= -1 && ($want - $lru) <= 3} "lru_clock $lru, now $want"
    }

    test "INFO clients fields" {
        set c [valkey_client]
        $c ping
        set info [r info clients]
        assert_equal 2 [info_field $info connected_clients]
        assert_equal 10000 [info_field $info maxclients]
        assert_equal 0 [info_field $info blocked_clients]
        assert_equal 0 [info_field $info pubsub_clients]
    }

    test "INFO memory fields" {
        set info [r info memory]
        assert_morethan [info_field $info used_memory] 100000
        assert_match {*[0-9.][KMG]} [info_field $info used_memory_human]
        assert_morethan [info_field $info used_memory_peak] 0
        assert_equal 0 [info_field $info maxmemory]
        assert_equal 0B [info_field $info maxmemory_human]
        assert_equal noeviction [info_field $info maxmemory_policy]
        # the allocator the binary is linked with, named as Valkey names it
        set maps [::srv::file_tail /proc/[srv pid]/maps 100000]
        if {[string match *libjemalloc* $maps]} {
            assert_match {jemalloc-[0-9]*.[0-9]*.[0-9]*} [info_field $info mem_allocator]
        } else {
            assert_equal libc [info_field $info mem_allocator]
        }
        # RSS is the process's resident set (within what it could grow by meanwhile)
        set f [open /proc/[srv pid]/statm]
        set rss [expr {[lindex [read $f] 1] * 4096}]
        close $f
        assert_range [info_field $info used_memory_rss] [expr {$rss / 2}] [expr {$rss * 2}]
        set used [info_field $info used_memory]
        set ratio [info_field $info mem_fragmentation_ratio]
        set want [expr {double([info_field $info used_memory_rss]) / $used}]
        assert_range $ratio [expr {$want - 0.011}] [expr {$want + 0.011}]
        # dataset = used - overhead; a big value shows in it and in the peak
        assert_equal [expr {$used - [info_field $info used_memory_overhead]}] \
            [info_field $info used_memory_dataset]
        set before [info_field $info used_memory_dataset]
        r set big [string repeat x 2000000]
        set info [r info memory]
        assert_morethan [info_field $info used_memory_dataset] [expr {$before + 1900000}]
        assert_morethan [info_field $info used_memory_peak] [expr {$used + 1900000}]
        assert_match {*M} [info_field $info used_memory_peak_human]
        r del big
    }

    test "INFO memory and MEMORY STATS give Valkey 8's fields, in its order" {
        set names {}
        foreach line [split [string trim [r info memory]] "\r\n"] {
            if {$line ne "" && ![string match #* $line]} { lappend names [lindex [split $line :] 0] }
        }
        assert_equal [list {*}{used_memory used_memory_human used_memory_rss used_memory_rss_human
            used_memory_peak used_memory_peak_human used_memory_peak_perc used_memory_overhead
            used_memory_startup used_memory_dataset used_memory_dataset_perc allocator_allocated
            allocator_active allocator_resident allocator_muzzy total_system_memory
            total_system_memory_human used_memory_lua used_memory_vm_eval used_memory_lua_human
            used_memory_scripts_eval number_of_cached_scripts number_of_functions
            number_of_libraries used_memory_vm_functions used_memory_vm_total
            used_memory_vm_total_human used_memory_functions used_memory_scripts
            used_memory_scripts_human maxmemory maxmemory_human maxmemory_policy
            allocator_frag_ratio allocator_frag_bytes allocator_rss_ratio allocator_rss_bytes
            rss_overhead_ratio rss_overhead_bytes mem_fragmentation_ratio mem_fragmentation_bytes
            mem_not_counted_for_evict mem_replication_backlog mem_total_replication_buffers
            mem_clients_slaves mem_clients_normal mem_cluster_links mem_aof_buffer mem_allocator
            mem_overhead_db_hashtable_rehashing active_defrag_running lazyfree_pending_objects
            lazyfreed_objects}] $names
        r flushall
        r set k v
        set keys {}
        foreach {k v} [r memory stats] { lappend keys $k }
        assert_equal [list {*}{peak.allocated total.allocated startup.allocated replication.backlog
            clients.slaves clients.normal cluster.links aof.buffer lua.caches functions.caches
            db.0 overhead.db.hashtable.lut overhead.db.hashtable.rehashing overhead.total
            db.dict.rehashing.count keys.count keys.bytes-per-key dataset.bytes
            dataset.percentage peak.percentage allocator.allocated allocator.active
            allocator.resident allocator.muzzy allocator-fragmentation.ratio
            allocator-fragmentation.bytes allocator-rss.ratio allocator-rss.bytes
            rss-overhead.ratio rss-overhead.bytes fragmentation fragmentation.bytes}] $keys
    }

    test "MEMORY MALLOC-STATS is jemalloc's report; freed pages go back at a sync flush and MEMORY PURGE" {
        set text [r memory malloc-stats]
        assert_match "___ Begin jemalloc statistics ___*Version: *--- End jemalloc statistics ---*" $text
        r flushall sync
        set base [s allocator_resident]
        r debug populate 200000 purge: 100
        assert_morethan [s allocator_resident] [expr {$base + 20000000}]
        # a synchronous flush gives the pages back at once (before, jemalloc kept them until its
        # decay, or for good without traffic)
        r flushall sync
        assert_lessthan [s allocator_resident] [expr {$base + 5000000}]
        r debug populate 200000 purge: 100
        r flushall async
        wait_for_condition 100 20 {[s lazyfree_pending_objects] == 0} else { fail "not freed" }
        set before [s allocator_resident]
        assert_equal OK [r memory purge]
        assert_morethan [expr {$before - [s allocator_resident]}] 10000000
    }

    test "MEMORY STATS: the overhead is the sum of its parts, the data set the rest" {
        r flushall
        for {set i 0} {$i < 1000} {incr i} { r set k:$i v }
        r select 3
        r set x y ex 1000
        r select 0
        set m [r memory stats]
        set sum 0
        foreach k {startup.allocated replication.backlog clients.slaves clients.normal
                   cluster.links aof.buffer lua.caches functions.caches} {
            incr sum [dict get $m $k]
        }
        foreach db {db.0 db.3} {
            incr sum [dict get $m $db overhead.hashtable.main]
            incr sum [dict get $m $db overhead.hashtable.expires]
        }
        assert_equal $sum [dict get $m overhead.total]
        assert_equal [expr {[dict get $m total.allocated] - $sum}] [dict get $m dataset.bytes]
        assert_equal 1001 [dict get $m keys.count]
        assert_equal [expr {[dict get $m dataset.bytes] / 1001}] [dict get $m keys.bytes-per-key]
        # a db without keys has no entry; only db 3 has an expire
        assert_equal 0 [dict exists $m db.1]
        assert_morethan [dict get $m db.3 overhead.hashtable.expires] 0
        # 1000 keys: at least their headers and buckets beyond what they held at the start
        assert_morethan [dict get $m db.0 overhead.hashtable.main] 16000
        assert_morethan [dict get $m startup.allocated] 0
        assert_morethan [dict get $m clients.normal] 0
        set maps [::srv::file_tail /proc/[srv pid]/maps 100000]
        if {[string match *libjemalloc* $maps]} {
            assert {[dict get $m allocator.resident] >= [dict get $m allocator.active]}
            assert {[dict get $m allocator.active] >= [dict get $m allocator.allocated]}
            set want [expr {1 + double([dict get $m allocator-fragmentation.bytes]) / [dict get $m allocator.allocated]}]
            assert_range [dict get $m allocator-fragmentation.ratio] [expr {$want - 0.0001}] [expr {$want + 0.0001}]
            assert_equal [expr {[dict get $m allocator.resident] - [dict get $m allocator.active]}] [dict get $m allocator-rss.bytes]
        }
        r flushall
    }

    test "INFO persistence fields" {
        set info [r info persistence]
        assert_equal 0 [info_field $info loading]
        assert_equal 0 [info_field $info rdb_bgsave_in_progress]
        assert_equal ok [info_field $info rdb_last_bgsave_status]
        assert_equal 0 [info_field $info aof_enabled]
        assert_equal 0 [info_field $info aof_rewrite_in_progress]
        assert_equal [r lastsave] [info_field $info rdb_last_save_time]
    }

    test "INFO stats counters" {
        r config resetstat
        r flushall
        r set k v
        r get k
        r get nokey
        r get nokey2
        r set e v px 1
        after 50
        r get e
        set info [r info stats]
        assert_equal 1 [info_field $info keyspace_hits]
        assert_equal 3 [info_field $info keyspace_misses]
        assert_equal 1 [info_field $info expired_keys]
        # a constant here: this server has no eviction (maxmemory is not enforced)
        assert_equal 0 [info_field $info evicted_keys]
        # config resetstat (counted once it is done, as in Valkey), flushall, set, 3 gets, set,
        # get; this INFO is counted after its reply is made
        assert_equal 8 [info_field $info total_commands_processed]
        assert_equal 0 [info_field $info total_error_replies]
        catch {r nosuchcommand}
        catch {r incr e2 x}
        assert_equal 2 [s total_error_replies]
    }

    test "INFO stats: network bytes are the bytes of the requests and replies" {
        set c [valkey_client]
        set info1 [$c info stats]
        $c set k v
        set info2 [$c info stats]
        $c close
        # between the two INFO replies the server read the SET and the second INFO request
        set in [expr {[info_field $info2 total_net_input_bytes] - [info_field $info1 total_net_input_bytes]}]
        assert_equal [string length "[::resp::encode_command set k v][::resp::encode_command info stats]"] $in
        # and wrote the first INFO reply (as a bulk string) and +OK
        set out [expr {[info_field $info2 total_net_output_bytes] - [info_field $info1 total_net_output_bytes]}]
        set bulk [string length $info1]
        assert_equal [expr {[string length "\$$bulk\r\n"] + $bulk + 2 + 5}] $out
    }

    test "INFO stats: connections received and rejected" {
        set before [s total_connections_received]
        set c [valkey_client]
        $c ping
        assert_equal [expr {$before + 1}] [s total_connections_received]
        set rejected [s rejected_connections]
        set clients [s connected_clients]
        r config set maxclients $clients
        try {
            set d [valkey_client]
            assert_error "ERR max number of clients reached" {$d ping}
            assert_equal [expr {$rejected + 1}] [s rejected_connections]
        } finally {
            r config set maxclients 10000
        }
    }

    test "INFO stats: instantaneous_ops_per_sec follows the load" {
        # sampled every 100 ms over the last 16 samples, as in Valkey
        set c [valkey_client]
        $c deferred 1
        set deadline [expr {[clock milliseconds] + 400}]
        set n 0
        while {[clock milliseconds] < $deadline} {
            for {set i 0} {$i < 100} {incr i} { $c ping }
            for {set i 0} {$i < 100} {incr i} { $c read }
            incr n 100
        }
        wait_for_condition 50 20 {[s instantaneous_ops_per_sec] > 50} else {
            fail "instantaneous_ops_per_sec [s instantaneous_ops_per_sec] after $n PINGs in 400 ms"
        }
        # and goes back to (nearly) nothing once the load stops
        wait_for_condition 60 50 {[s instantaneous_ops_per_sec] < 50} else {
            fail "instantaneous_ops_per_sec stays at [s instantaneous_ops_per_sec] while idle"
        }
    }

    test "INFO stats and INFO debug: event loop passes, their time and what took it" {
        # The debug section only when named, as in Valkey 8: not in all or everything.
        assert_equal {debug} [info_sections [r info debug]]
        assert_equal {} [info_lines [r info everything] eventloop_duration_max]
        set d [r info debug]
        foreach f {eventloop_duration_aof_sum eventloop_duration_cron_sum eventloop_duration_max
                   eventloop_cmd_per_cycle_max} {
            assert_equal 1 [llength [info_lines $d $f:]] $f
        }
        r config resetstat
        set c0 [s eventloop_cycles]
        # One pass runs a 200 ms command: the longest pass and the commands' time show it.
        r debug sleep 0.2
        assert_morethan_equal [info_field [r info debug] eventloop_duration_max] 200000
        assert_morethan_equal [s eventloop_duration_cmd_sum] 200000
        # From one INFO: read apart, the second read counts the first INFO's own time among
        # the commands' while the first read had not its pass yet.
        set st [r info stats]
        assert_morethan_equal [info_field $st eventloop_duration_sum] [info_field $st eventloop_duration_cmd_sum]
        # 50 PINGs written at once are read and run in one pass.
        set fd [socket 127.0.0.1 [srv port]]
        fconfigure $fd -translation binary
        puts -nonewline $fd [string repeat "PING\r\n" 50]
        flush $fd
        read_for $fd 200
        close $fd
        assert_morethan_equal [info_field [r info debug] eventloop_cmd_per_cycle_max] 50
        # An idle server still wakes hz (10) times a second.
        wait_for_condition 50 100 {[s instantaneous_eventloop_cycles_per_sec] >= 8} else {
            fail "[s instantaneous_eventloop_cycles_per_sec] cycles/s"
        }
        assert_lessthan [s instantaneous_eventloop_duration_usec] 100000
        assert_morethan [s eventloop_cycles] $c0
        # RESETSTAT starts them over.
        r config resetstat
        assert_lessthan [info_field [r info debug] eventloop_duration_max] 200000
        assert_lessthan [info_field [r info debug] eventloop_cmd_per_cycle_max] 50
        assert_lessthan [s eventloop_duration_cmd_sum] 200000
    }

    test "INFO stats: expired_stale_perc is the share of sampled keys found expired" {
        r flushall
        r config resetstat
        assert_equal 0.00 [s expired_stale_perc]
        r debug set-active-expire 0
        for {set i 0} {$i < 200} {incr i} { r set e$i v px 1 }
        after 20
        r debug set-active-expire 1
        wait_for_condition 100 20 {[r dbsize] == 0}
        # every sampled key was expired, and the smoothing (5% per cycle) shows it
        assert_morethan [s expired_stale_perc] 0
    }

    test "Buffer limits count as Valkey 8's: a big argument whole, and no reply within 16 KB" {
        # The limit applies to a big argument alone, as Valkey 8 holds it apart from the command's
        # earlier ones: an argument just below it is taken (its command's header counted too,
        # it was refused), one of exactly the limit is refused once it has arrived whole, and
        # the connection closed in order.
        r config set client-query-buffer-limit 1mb
        set before [s client_query_buffer_limit_disconnections]
        try {
            set c [valkey_client]
            assert_equal OK [$c set qkey [string repeat a 1048560]]
            assert_equal 1048560 [$c strlen qkey]
            $c del qkey
            $c close
            set fd [valkey_raw]
            puts -nonewline $fd "*3\r\n\$3\r\nSET\r\n\$4\r\nqkey\r\n\$1048576\r\n[string repeat a 1048576]\r\n"
            flush $fd
            assert_equal 0 [catch {read $fd} got] "read: $got"
            assert_equal {} $got
            assert_equal 1 [eof $fd]
            close $fd
            wait_for_condition 50 20 {[s client_query_buffer_limit_disconnections] == $before + 1}
            assert_equal 0 [r exists qkey]
        } finally {
            r config set client-query-buffer-limit 1gb
        }
        # Output limits count what does not fit Valkey's 16 KB reply buffer: a 10-byte limit
        # closes the client asking for 100 KB, not one reading INFO (2 KB).
        r set big [string repeat x 100000]
        set before [s client_output_buffer_limit_disconnections]
        r config set client-output-buffer-limit "normal 10 0 0"
        try {
            assert_match "*client_output_buffer_limit_disconnections:$before*" [r info stats]
            set c [valkey_client]
            catch {$c get big}
            assert_equal 1 [$c eof 2000]
            catch {$c close}
            assert_equal [expr {$before + 1}] [s client_output_buffer_limit_disconnections]
        } finally {
            r config set client-output-buffer-limit "normal 0 0 0"
        }
        r del big
    }

    test "INFO stats: query and output buffer limit disconnections" {
        r config resetstat
        r config set client-query-buffer-limit 1mb
        try {
            set c [valkey_client]
            $c write_raw "*2\r\n\$4\r\necho\r\n\$2000000\r\n[string repeat x 1100000]"
            assert_equal 1 [$c eof 5000]
            wait_for_condition 50 20 {[s client_query_buffer_limit_disconnections] == 1}
        } finally {
            r config set client-query-buffer-limit 1gb
        }
        r set big [string repeat x 300000]
        r config set client-output-buffer-limit "normal 500kb 0 0"
        try {
            set c [valkey_client]
            $c deferred 1
            for {set i 0} {$i < 5} {incr i} { $c get big }
            assert_equal 1 [$c eof 5000]
            wait_for_condition 50 20 {[s client_output_buffer_limit_disconnections] == 1}
        } finally {
            r config set client-output-buffer-limit "normal 0 0 0"
        }
        r del big
    } 

    test "INFO replication fields" {
        set info [r info replication]
        assert_equal master [info_field $info role]
        assert_equal 0 [info_field $info connected_slaves]
        assert_match {[0-9a-f]*} [info_field $info master_replid]
        assert_equal 40 [string length [info_field $info master_replid]]
        assert_equal 0000000000000000000000000000000000000000 [info_field $info master_replid2]
        assert_equal 0 [info_field $info master_repl_offset]
        assert_equal -1 [info_field $info second_repl_offset]
    }

    test "INFO cpu fields" {
        set info [r info cpu]
        foreach f {used_cpu_sys used_cpu_user used_cpu_sys_children used_cpu_user_children} {
            assert_match {[0-9]*.[0-9][0-9][0-9][0-9][0-9][0-9]} [info_field $info $f]
        }
    }

    test "INFO keyspace" {
        r flushall
        assert_equal {# Keyspace} [string trim [r info keyspace]]
        r set a 1
        r set b 2
        r set c 3 ex 1000
        r select 3
        r set x 1
        r select 0
        set info [r info keyspace]
        assert_match {keys=3,expires=1,avg_ttl=*} [info_field $info db0]
        assert_equal {keys=1,expires=0,avg_ttl=0} [info_field $info db3]
        r flushall
    }

    test "INFO commandstats" {
        r config resetstat
        r set a b
        r set a c
        catch {r set a}
        r config get maxmemory
        set info [r info commandstats]
        assert_match {calls=2,usec=*,usec_per_call=*,rejected_calls=1,failed_calls=0} [info_field $info cmdstat_set]
        assert_match {calls=1,usec=*,usec_per_call=*,rejected_calls=0,failed_calls=0} [info_field $info cmdstat_config|get]
        assert_match {calls=[0-9]*,usec=[0-9]*,usec_per_call=[0-9]*.[0-9][0-9],rejected_calls=1,failed_calls=0} [info_field $info cmdstat_set]
        assert_equal {} [info_field $info cmdstat_get]
    }

    test "INFO errorstats" {
        r config resetstat
        catch {r foo}
        catch {r set}
        r set s notanumber
        catch {r incr s}
        catch {r lpush s x}
        set info [r info errorstats]
        assert_equal {count=3} [info_field $info errorstat_ERR]
        assert_equal {count=1} [info_field $info errorstat_WRONGTYPE]
        assert_match {calls=1,*,rejected_calls=0,failed_calls=1} [info_field [r info commandstats] cmdstat_incr]
        assert_equal 4 [s total_error_replies]
    }

    # usec of cmdstat_<name>
    proc ic_cmd_usec {name} {
        regexp {usec=([0-9]+),} [info_field [r info commandstats] cmdstat_$name] -> us
        return $us
    }

    test "INFO commandstats: a command that blocked is charged the time of its blocking run too" {
        # A BLPOP on 100,000 keys spends milliseconds registering them before it blocks; that
        # run counts with the timeout, or with the run that serves it (as Valkey 8 counts it).
        set keys {}
        for {set i 0} {$i < 100000} {incr i} { lappend keys "ic:bl:$i" }
        r config resetstat
        assert_equal {} [r blpop {*}$keys 0.05]
        assert_match {calls=1,*} [info_field [r info commandstats] cmdstat_blpop]
        assert_morethan [ic_cmd_usec blpop] 1000
        r config resetstat
        set rd [valkey_client]
        $rd deferred 1
        $rd blpop {*}$keys 0
        wait_for_condition 200 10 {[s blocked_clients] == 1} else { fail "BLPOP did not block" }
        r rpush ic:bl:99999 v
        assert_equal {ic:bl:99999 v} [$rd read]
        $rd close
        assert_match {calls=1,*} [info_field [r info commandstats] cmdstat_blpop]
        assert_morethan [ic_cmd_usec blpop] 1000
    }

    test "INFO commandstats: an error inside EXEC fails its command, not EXEC; an UNBLOCKED BLPOP failed" {
        r config resetstat
        r multi
        r set a b
        r auth a
        catch {r exec} e
        assert_match {ERR AUTH*} $e
        assert_match {calls=1,*,rejected_calls=0,failed_calls=0} [info_field [r info commandstats] cmdstat_set]
        assert_match {calls=1,*,rejected_calls=0,failed_calls=1} [info_field [r info commandstats] cmdstat_auth]
        assert_match {calls=1,*,rejected_calls=0,failed_calls=0} [info_field [r info commandstats] cmdstat_exec]
        catch {r exec}
        assert_match {calls=2,*,rejected_calls=0,failed_calls=1} [info_field [r info commandstats] cmdstat_exec]
        set rd [valkey_client]
        set id [$rd client id]
        $rd deferred 1
        $rd blpop ic:none 0
        wait_for_condition 200 10 {[s blocked_clients] == 1} else { fail "BLPOP did not block" }
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED*" {$rd read}
        $rd close
        assert_match {calls=1,*,rejected_calls=0,failed_calls=1} [info_field [r info commandstats] cmdstat_blpop]
    }

    # latency_percentiles_usec_<cmd> of INFO latencystats, or "" when the command has none
    proc ic_latency {cmd} { return [info_field [r info latencystats] latency_percentiles_usec_$cmd] }

    test "INFO latencystats: latency-tracking on and off, and the percentiles shown" {
        r config resetstat
        r config set latency-tracking no
        r set a b
        assert_equal {} [ic_latency set]
        r config set latency-tracking yes
        r set a b
        assert_match {p50=*,p99=*,p99.9=*} [ic_latency set]
        assert_equal {latency-tracking-info-percentiles {50 99 99.9}} [r config get latency-tracking-info-percentiles]
        r config set latency-tracking-info-percentiles "0.0 50.0 100.0"
        assert_equal {latency-tracking-info-percentiles {0 50 100}} [r config get latency-tracking-info-percentiles]
        assert_match {p0=*.???,p50=*.???,p100=*.???} [ic_latency set]
        foreach {bad err} {
            "10.0 50.0 a" "Invalid latency-tracking-info-percentiles parameters"
            "10.0 50.0 101.0" "latency-tracking-info-percentiles parameters should sit between \[0.0,100.0\]"
        } {
            catch {r config set latency-tracking-info-percentiles $bad} e
            assert_equal "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - $err" $e
            assert_equal {latency-tracking-info-percentiles {0 50 100}} [r config get latency-tracking-info-percentiles]
        }
        r config set latency-tracking-info-percentiles ""
        assert_equal {latency-tracking-info-percentiles {}} [r config get latency-tracking-info-percentiles]
        r config set latency-tracking-info-percentiles "50 99 99.9"
        r config resetstat
        assert_equal {} [ic_latency set]
    }

    test "CONFIG RESETSTAT" {
        r set x y
        catch {r foo}
        assert_equal OK [r config resetstat]
        set info [r info everything]
        assert_equal {} [info_lines $info errorstat_]
        # only the RESETSTAT call itself is counted (INFO is not yet)
        set lines [info_lines $info cmdstat_]
        assert_equal 1 [llength $lines]
        assert_match {cmdstat_config|resetstat:calls=1,usec=*,usec_per_call=*,rejected_calls=0,failed_calls=0} [lindex $lines 0]
        assert_equal 0 [info_field $info total_error_replies]
        assert_equal 0 [info_field $info keyspace_hits]
    }

    test "CONFIG GET with glob patterns and multiple arguments" {
        set m [r config get maxmemory*]
        assert_equal {maxmemory maxmemory-clients maxmemory-eviction-tenacity maxmemory-policy maxmemory-samples} [lsort [dict keys $m]]
        set m [r config get maxmemory timeout]
        assert_equal {maxmemory 0 timeout 0} [lsort -stride 2 $m]
        # overlapping patterns report each directive once
        set m [r config get maxmemory max*ory]
        assert_equal {maxmemory 0} $m
        assert_equal {} [r config get nosuchdirective]
        # an exact (non-glob) name is echoed as it was typed
        assert_equal {HZ 10} [r config get HZ]
        assert_error "ERR wrong number of arguments for 'config|get' command" {r config get}
    }

    test "CONFIG GET special values" {
        assert_equal {save {}} [r config get save]
        assert_equal {appendonly no} [r config get appendonly]
        assert_equal [list dir [srv dir]] [r config get dir]
        assert_equal [list port [srv port]] [r config get port]
    }

    test "CONFIG SET and GET round trip" {
        assert_equal OK [r config set proto-max-bulk-len 10mb]
        assert_equal {proto-max-bulk-len 10485760} [r config get proto-max-bulk-len]
        assert_equal OK [r config set maxmemory-policy allkeys-lru hz 20]
        assert_equal {hz 20 maxmemory-policy allkeys-lru} [lsort -stride 2 [r config get maxmemory-policy hz]]
        assert_equal OK [r config set proto-max-bulk-len 512mb maxmemory-policy noeviction hz 10]
    }

    test "CONFIG SET multiple pairs is atomic" {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer" {
            r config set proto-max-bulk-len 5mb hz 20 timeout x
        }
        assert_equal {proto-max-bulk-len 536870912} [r config get proto-max-bulk-len]
        assert_equal {hz 10} [r config get hz]
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'" {
            r config set proto-max-bulk-len 5mb nosuch 1
        }
        assert_equal {proto-max-bulk-len 536870912} [r config get proto-max-bulk-len]
        assert_error "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter" {
            r config set hz 1 hz 2
        }
    }

    test "CONFIG SET errors" {
        assert_error "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'" {r config set nosuch 1}
        assert_error "ERR wrong number of arguments for 'config|set' command" {r config set maxmemory}
        assert_error "ERR syntax error" {r config set maxmemory 1 hz}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config" {r config set daemonize yes}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config" {r config set databases 5}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must be 'yes' or 'no'" {r config set appendonly maybe}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction" {r config set maxmemory-policy foo}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be between 0 and 2147483647 inclusive" {r config set hz -1}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value" {r config set maxmemory -5}
        assert_error "ERR unknown subcommand 'foo'. Try CONFIG HELP." {r config foo}
    }

    test "busy-poll-us: default, range and CONFIG SET" {
        assert_equal {busy-poll-us 200} [r config get busy-poll-us]
        assert_equal OK [r config set busy-poll-us 0]
        assert_equal {busy-poll-us 0} [r config get busy-poll-us]
        assert_error "ERR CONFIG SET failed (possibly related to argument 'busy-poll-us') - argument must be between 0 and 1000 inclusive" {r config set busy-poll-us 1001}
        # Served normally with polling off and on again.
        assert_equal PONG [r ping]
        assert_equal OK [r config set busy-poll-us 200]
        assert_equal PONG [r ping]
    }

    test "CONFIG REWRITE writes changed directives to the config file" {
        r config set proto-max-bulk-len 12mb
        r config set maxmemory-policy allkeys-lfu
        assert_equal OK [r config rewrite]
        set f [open [srv config_file]]
        set text [read $f]
        close $f
        assert_match "*\nproto-max-bulk-len 12mb\n*" "\n$text"
        assert_match "*\nmaxmemory-policy allkeys-lfu\n*" "\n$text"
        assert_match "*\nport [srv port]\n*" "\n$text"
        r config set proto-max-bulk-len 512mb
        r config set maxmemory-policy noeviction
        r config rewrite
    }

    test "CONFIG REWRITE result survives a restart" {
        r config set hz 33
        r config rewrite
        restart_server
        assert_equal {hz 33} [r config get hz]
        r config set hz 10
        r config rewrite
    }

    test "DEBUG CONFIG-REWRITE-FORCE-ALL writes every directive; the node starts from it unchanged" {
        r config set hz 12
        set before [lsort -stride 2 -index 0 [r config get *]]
        assert_equal OK [r debug config-rewrite-force-all]
        set f [open [srv config_file]]
        set text [read $f]
        close $f
        # defaults too (Valkey 8's form of the file a tool can start from)
        assert_match "*\nlatency-tracking yes\n*" "\n$text"
        assert_match "*\nmaxmemory-policy noeviction\n*" "\n$text"
        assert_match "*\nhz 12\n*" "\n$text"
        restart_server
        assert_equal $before [lsort -stride 2 -index 0 [r config get *]]
        r config set hz 10
        r config rewrite
    }

    test "DEBUG SLEEP, LOG, SET-ACTIVE-EXPIRE" {
        assert_equal OK [r debug sleep 0]
        assert_equal OK [r debug log "hello from the test suite"]
        wait_for_log "*DEBUG LOG: hello from the test suite*"
        assert_equal OK [r debug set-active-expire 0]
        r set ae v px 1
        after 200
        assert_equal 1 [r dbsize]
        assert_equal OK [r debug set-active-expire 1]
        wait_for_condition 50 50 {[r dbsize] == 0}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP." {r debug foo}
    }

    test "DEBUG OBJECT" {
        r set dobj bar
        assert_match {Value at:0x* refcount:1 encoding:embstr serializedlength:4 lru:* lru_seconds_idle:*} [r debug object dobj]
        r set dint 12345
        assert_match {*encoding:int *} [r debug object dint]
        assert_error "ERR no such key" {r debug object nokey}
    }

    test "DEBUG OBJECT of a quicklist: Valkey 8's ql_ figures; a list's snapshot nodes fill 8 KB as Valkey's" {
        r del l
        set nums {}
        for {set i 1} {$i <= 200} {incr i} { lappend nums $i }
        for {set i 0} {$i < 3} {incr i} { r rpush l {*}$nums }
        # 600 small integers in one listpack: one snapshot node, compressed whole (Valkey 8.0.1
        # DUMPs it in 527 bytes; nodes of 128 entries, compressed apart, took 1482)
        assert_equal listpack [r object encoding l]
        assert_lessthan [string length [r dump l]] 600
        for {set i 0} {$i < 30} {incr i} { r rpush l {*}$nums }
        r rpush l [string repeat x 3000]
        # recorded from Valkey 8.0.1 with the same commands
        assert_match {Value at:0x* refcount:1 encoding:quicklist serializedlength:* lru:* lru_seconds_idle:* lfu_freq:* lfu_access_time_minutes:* ql_nodes:3 ql_avg_node:2200.33 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:18634} [r debug object l]
        assert_match {* ql_nodes:3 ql_avg_node:2200.33 ql_listpack_max:-2 ql_compressed:0} [r debug object l fast]
        set len [string length [r dump l]]
        r del l
        assert_lessthan $len 1300  ;# Valkey 8.0.1: 1244
    }

    test "DEBUG DIGEST and DIGEST-VALUE" {
        r flushall
        assert_equal 0000000000000000000000000000000000000000 [r debug digest]
        r set foo bar
        set d1 [r debug digest]
        assert_match {[0-9a-f]*} $d1
        assert_equal 40 [string length $d1]
        assert_not_equal 0000000000000000000000000000000000000000 $d1
        r set foo baz
        assert_not_equal $d1 [r debug digest]
        r set foo bar
        assert_equal $d1 [r debug digest]
        set dv [r debug digest-value foo nokey]
        assert_equal 2 [llength $dv]
        assert_equal 0000000000000000000000000000000000000000 [lindex $dv 1]
        assert_equal 40 [string length [lindex $dv 0]]
        r flushall
    }

    test "DEBUG DIGEST-VALUE digests the value and whether it expires, not the key's name" {
        r flushall
        r rpush l a b c
        r hset h f1 v1 f2 v2
        r sadd s 1 2 x
        r zadd z 1 a 2 b
        r set str v px 100000
        foreach k {l h s z str} {
            assert_equal 1 [r copy $k $k:copy]
            assert_equal [r debug digest-value $k] [r debug digest-value $k:copy] $k
        }
        # another TTL gives the same digest; none at all another one
        r pexpire str:copy 200000
        assert_equal [r debug digest-value str] [r debug digest-value str:copy]
        r persist str:copy
        assert_not_equal [r debug digest-value str] [r debug digest-value str:copy]
        r flushall
    }

    test "DEBUG PROTOCOL in RESP2" {
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        set expect {
            string {$11 {Hello World}}
            integer {:12345}
            double {$5 3.141}
            bignum {$37 1234567999999999999999999999999999999}
            null {$-1}
            array {*3 :0 :1 :2}
            set {*3 :0 :1 :2}
            map {*6 :0 :0 :1 :1 :2 :0}
            attrib {$39 {Some real reply following the attribute}}
            push {{-ERR RESP2 is not supported by this command}}
            verbatim {$25 {This is a verbatim} string}
            true {:1}
            false {:0}
        }
        foreach {type lines} $expect {
            $c debug protocol $type
            set got {}
            foreach l $lines { lappend got [$c read] }
            assert_equal [list {*}$lines] $got "DEBUG PROTOCOL $type"
        }
        $c close
    }

    test "DEBUG PROTOCOL in RESP3" {
        set c [valkey_client]
        $c hello 3
        $c readraw 1
        $c deferred 1
        set expect {
            string {$11 {Hello World}}
            integer {:12345}
            double {,3.141}
            bignum {(1234567999999999999999999999999999999}
            null {_}
            array {*3 :0 :1 :2}
            set {~3 :0 :1 :2}
            map {%3 :0 #f :1 #t :2 #f}
            attrib {|1 {$14} key-popularity *2 {$7} key:123 :90 {$39} {Some real reply following the attribute}}
            push {{$40} {Some real reply following the push reply} >2 {$16} server-cpu-usage :42}
            verbatim {=29 {txt:This is a verbatim} string}
            true {#t}
            false {#f}
        }
        foreach {type lines} $expect {
            $c debug protocol $type
            set got {}
            foreach l $lines { lappend got [$c read] }
            assert_equal [list {*}$lines] $got "DEBUG PROTOCOL $type"
        }
        $c close
    }

    test "DEBUG PROTOCOL decoded by the RESP3 client" {
        set c [valkey_client]
        $c hello 3
        assert_equal 3.141 [$c debug protocol double]
        assert_equal {} [$c debug protocol null]
        assert_equal {0 0 1 1 2 0} [$c debug protocol map]
        assert_equal "Some real reply following the attribute" [$c debug protocol attrib]
        assert_equal {key-popularity {key:123 90}} [$c attributes]
        assert_equal "This is a verbatim\nstring" [$c debug protocol verbatim]
        assert_equal 1 [$c debug protocol true]
        assert_equal "Some real reply following the push reply" [$c debug protocol push]
        assert_equal {server-cpu-usage 42} [$c read]
        assert_error "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false" {$c debug protocol foo}
        $c close
    }

    test "TIME" {
        set t [r time]
        assert_equal 2 [llength $t]
        lassign $t sec usec
        assert_range $sec [expr {[clock seconds] - 5}] [expr {[clock seconds] + 5}]
        assert_range $usec 0 999999
    }

    test "LASTSAVE" {
        set ls [r lastsave]
        assert_range $ls [expr {[clock seconds] - 600}] [clock seconds]
    }

    test "COMMAND COUNT and LIST" {
        set n [r command count]
        # COMMAND COUNT is the number of top-level entries that COMMAND itself describes
        assert_equal $n [llength [r command]]
        set l [r command list]
        # COMMAND LIST also names the subcommands (config|get ...), COMMAND COUNT does not
        assert_morethan [llength $l] $n
        assert {"config|get" in $l}
        foreach cmd {get set ping config client info hello} {
            assert {$cmd in $l} "COMMAND LIST lacks $cmd"
        }
        assert_equal {getrange} [r command list filterby pattern getr*]
        assert_equal {config|get} [r command list filterby pattern config|g*]
    }

    test "COMMAND's own subcommands are listed as Valkey 8 lists them; COMMAND alone still works" {
        set l [r command list filterby pattern command*]
        assert_equal {command command|count command|docs command|getkeys command|getkeysandflags command|help command|info command|list} [lsort $l]
        assert_equal 7 [llength [lindex [r command info command] 0 9]]
        assert_equal {command|count 2 {loading stale} 0 0 0 {@slow @connection} {} {} {}} \
            [lindex [r command info command|count] 0]
        assert_equal [r command count] [llength [r command]]
        assert_error "ERR wrong number of arguments for 'command|count' command" {r command count x}
        assert_error "ERR unknown subcommand 'nosuch'. Try COMMAND HELP." {r command nosuch}
    }

    test "COMMAND INFO get" {
        set expected {{get 2 {readonly fast} 1 1 1 {@read @string @fast} {} {{flags {RO access} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} {}}}
        assert_equal $expected [r command info get]
        assert_equal [list [lindex $expected 0] {}] [r command info get nosuchcommand]
        assert_equal {set -3} [lrange [lindex [r command info set] 0] 0 1]
        assert_equal {config -2} [lrange [lindex [r command info config] 0] 0 1]
    }

    test "COMMAND INFO flags as Valkey 8.0.1 reports them (REPLICAOF may run in MULTI)" {
        foreach {cmd flags} {
            replicaof {admin noscript stale no_async_loading}
            slaveof {admin noscript stale no_async_loading}
            psync {admin noscript no_async_loading no_multi}
            sync {admin noscript no_async_loading no_multi}
            echo {loading stale fast}
            quit {noscript loading stale fast no_auth allow_busy}
            save {admin noscript no_async_loading no_multi}
            bgsave {admin noscript no_async_loading}
            bgrewriteaof {admin noscript no_async_loading}
        } {
            assert_equal $flags [lindex [r command info $cmd] 0 2] $cmd
        }
        assert_equal {admin noscript loading stale} [lindex [r command info latency|doctor] 0 2]
        assert_equal {admin stale no_async_loading} [lindex [r command info cluster|setslot] 0 2]
        assert_equal {admin stale} [lindex [r command info cluster|replicas] 0 2]
    }

    test "COMMAND DOCS get" {
        assert_equal {get {summary {Reads a string value.} since 1.0.0 group string complexity O(1) arguments {{name key type key display_text key key_spec_index 0}}}} \
            [r command docs get]
        # Argument structure as Valkey 8 reports it: tokens, flags, since, nested oneof/block.
        set args [dict get [dict get [r command docs lpos] lpos] arguments]
        assert_equal {{name key type key display_text key key_spec_index 0} {name element type string display_text element} {name rank type integer display_text rank token RANK flags optional} {name num-matches type integer display_text num-matches token COUNT flags optional} {name len type integer display_text len token MAXLEN flags optional}} $args
        set args [dict get [dict get [r command docs set] set] arguments]
        assert_equal {name get type pure-token display_text get token GET since 6.2.0 flags optional} [lindex $args 3]
        assert_equal {name keepttl type pure-token display_text keepttl token KEEPTTL since 6.0.0} [lindex [dict get [lindex $args 4] arguments] 4]
        set args [dict get [dict get [r command docs zadd] zadd] arguments]
        assert_equal {name data type block flags multiple arguments {{name score type double display_text score} {name member type string display_text member}}} [lindex $args end]
        set args [dict get [dict get [r command docs client|kill] client|kill] arguments]
        assert_equal {name old-format type string display_text ip:port deprecated_since 2.8.12} [lindex [dict get [lindex $args 0] arguments] 0]
        # A container has subcommands and no arguments; its subcommands carry theirs.
        set d [dict get [r command docs config] config]
        assert_equal 0 [dict exists $d arguments]
        assert_equal {{name data type block flags multiple arguments {{name parameter type string display_text parameter} {name value type string display_text value}}}} \
            [dict get [dict get [dict get $d subcommands] config|set] arguments]
        assert_equal 0 [dict exists [dict get [r command docs multi] multi] arguments]
    }

    test "COMMAND GETKEYS" {
        assert_equal {a} [r command getkeys set a b]
        assert_equal {k1 k2} [r command getkeys mset k1 v1 k2 v2]
        assert_error "ERR Invalid number of arguments specified for command" {r command getkeys get}
        assert_error "ERR Invalid command specified" {r command getkeys foo a}
        assert_error "ERR The command has no key arguments" {r command getkeys ping}
    }

    test "the startup log" {
        set log [::srv::file_tail [srv log] 1000]
        assert_match "*pid=[srv pid]*" $log
        assert_match "*Server initialized*" $log
        assert_match "*Ready to accept connections tcp*" $log
    }
}

start_server {tags {info} config {enable-debug-command no}} {
    test "DEBUG is refused when enable-debug-command is no" {
        assert_error {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.} {r debug sleep 0}
        assert_error "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config" {r config set enable-debug-command yes}
    }
}

tags {info} {
    test "a bad value in the config file stops the server" {
        lassign [server_try_start "port 0\nmaxmemory abc\n"] code out
        assert_equal 1 $code
        assert_match "*FATAL CONFIG FILE ERROR*line 2*maxmemory abc*argument must be a memory value*" $out
    }

    test "an unknown directive in the config file stops the server" {
        lassign [server_try_start "port 0\nnosuchdirective 1\n"] code out
        assert_equal 1 $code
        assert_match "*FATAL CONFIG FILE ERROR*line 2*nosuchdirective 1*Bad directive or wrong number of arguments*" $out
    }

    test "a directive without its argument stops the server" {
        lassign [server_try_start "port 0\n\nmaxmemory\n"] code out
        assert_equal 1 $code
        assert_match "*FATAL CONFIG FILE ERROR*line 3*'maxmemory'*wrong number of arguments*" $out
    }

    test "an unknown option on the command line stops the server" {
        lassign [server_try_start "port 0\n" {--nosuchoption 1}] code out
        assert_equal 1 $code
        assert_match "*FATAL CONFIG FILE ERROR*nosuchoption*Bad directive or wrong number of arguments*" $out
    }

    test "command line: the argument after a bare option name is its value, dashes and all" {
        # as Valkey 8 reads a command line (its error lines quote what it read)
        lassign [server_try_start "port 0\n" {--port --bla --loglevel verbose}] code out
        assert_equal 1 $code
        assert_match "*'port \"--bla\"'*argument couldn't be parsed into an integer*" $out
        lassign [server_try_start "port 0\n" {--logfile --my--log--file --loglevel --bla}] code out
        assert_match "*'loglevel \"--bla\"'*argument(s) must be one of the following*" $out
        lassign [server_try_start "port 0\n" {--replicaof --127.0.0.1 abc}] code out
        assert_match "*'replicaof \"--127.0.0.1\" \"abc\"'*Invalid primary port*" $out
        lassign [server_try_start "port 0\n" {--shutdown-on-sigint}] code out
        assert_match "*'shutdown-on-sigint'*argument(s) must be one of the following: default, save, nosave, now, force*" $out
        lassign [server_try_start "port 0\n" {--replicaof --127.0.0.1 --abc}] code out
        assert_match "*'replicaof \"--127.0.0.1\"'*wrong number of arguments*" $out
        # a bare --save before another option is save "": the node starts
        set port [::srv::find_free_port]
        lassign [server_try_start "port $port\n" {--save --loglevel verbose} 1500] code out
        assert_equal running $code
    }
}

# The replication links' bytes: counted apart (total_net_repl_*), and in the totals, as Redis
# 7.0 does (passes on Debian's redis-server). Valkey 8.0.1 counts the replica's input so, but
# counts none of the stream its primary writes (its shared-buffer writes skip the counters).
proc ic_delta {a b field} { expr {[info_field $b $field] - [info_field $a $field]} }
start_server {tags {info repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {} {
        test "INFO stats: replication bytes are counted apart and in the totals" {
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 100 50 {[status r master_link_status] eq "up"}
            set p1 [r -1 info stats]
            set r1 [r info stats]
            set v [string repeat x 100000]
            for {set i 0} {$i < 10} {incr i} { r -1 set k$i $v }
            wait_for_condition 100 50 {[s master_repl_offset] == [s -1 master_repl_offset]}
            set p2 [r -1 info stats]
            set r2 [r info stats]
            # a million bytes of stream left the primary and reached the replica
            set out [ic_delta $p1 $p2 total_net_repl_output_bytes]
            set in [ic_delta $r1 $r2 total_net_repl_input_bytes]
            assert_morethan $out 1000000
            assert_morethan $in 1000000
            assert_morethan_equal [ic_delta $p1 $p2 total_net_output_bytes] $out
            assert_morethan_equal [ic_delta $r1 $r2 total_net_input_bytes] $in
            # the replica's client input (none here) is not the stream
            assert_lessthan [expr {[ic_delta $r1 $r2 total_net_input_bytes] - $in}] 10000
            wait_for_condition 50 100 {[info_field [r -1 info stats] instantaneous_output_repl_kbps] > 0 ||
                                       [info_field [r info stats] instantaneous_input_repl_kbps] > 0}
        }
    }
}
