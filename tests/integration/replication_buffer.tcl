# The replication buffer: the stream's recent bytes are held once, for the backlog and for every
# replica (as Valkey 7+ holds them), not copied into each replica's output.
# - N replicas cost one copy: INFO's mem_total_replication_buffers counts it once.
# - A replica that falls behind (here: one waiting for its snapshot) keeps its bytes in the
#   buffer, so the backlog outgrows repl-backlog-size meanwhile, and another replica that drops
#   and comes back continues by PSYNC from there instead of a full sync.
# - Once no replica holds them, the buffer goes back to the backlog's size.
# - A replica's hard output limit below repl-backlog-size counts as that size: one that
#   continued by PSYNC from a full backlog is not cut for memory the backlog holds anyway.
# Checked by hand on Valkey 8.0.1: the same outcomes.

proc rb_write_mb {level mb} {
    set v [string repeat x 10000]
    for {set i 0} {$i < $mb * 100} {incr i} { r $level set "rb:$i" $v }
}

# The id of the replica link that holds little (caught up).
proc rb_reading_replica_id {level} {
    foreach line [split [string trim [r $level client list type replica]] "\n"] {
        if {[client_field $line omem] < 100000} { return [client_field $line id] }
    }
    fail "no caught-up replica in [r $level client list type replica]"
}

proc rb_replica_omem {level state} {
    foreach line [split [string trim [r $level client list type replica]] "\n"] {
        set omem [client_field $line omem]
        if {$state eq "holding" && $omem > 1000000} { return $omem }
        if {$state eq "reading" && $omem < 100000} { return $omem }
    }
    return -1
}

start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-backlog-size 16384
                                     client-output-buffer-limit {replica 0 0 0}}} {
    start_server {} {
        start_server {} {
        start_server {} {
            # primary = -3, replica A (stays in sync) = -2, replicas B and C (wait for their
            # snapshot) = -1 and 0
            set phost 127.0.0.1
            set pport [srv -3 port]
            r -2 replicaof $phost $pport
            wait_for_condition 200 50 {[s -2 master_link_status] eq "up"}
            # A's own transfer is over (its child gone): the next one is B's and C's
            wait_for_condition 200 50 {[s -3 rdb_bgsave_in_progress] == 0}
            # B's and C's snapshot takes minutes: the stream since it began stays theirs to
            # receive. One transfer for both: it starts once two replicas wait.
            for {set i 0} {$i < 20} {incr i} { r -3 set "slow:$i" v }
            r -3 config set rdb-key-save-delay 1000000
            r -3 config set repl-diskless-sync-delay 60
            r -3 config set repl-diskless-sync-max-replicas 2
            r -1 replicaof $phost $pport
            r replicaof $phost $pport
            wait_for_condition 200 50 {
                [s -3 rdb_bgsave_in_progress] == 1 &&
                [lindex [r -1 role] 3] eq "sync" && [lindex [r role] 3] eq "sync"
            }

            test "Replicas share one replication buffer, held past the backlog's size for those behind" {
                rb_write_mb -3 2
                wait_for_condition 200 50 {[s -2 master_repl_offset] == [s -3 master_repl_offset]}
                set bufs [s -3 mem_total_replication_buffers]
                # one copy of 2 MB of stream for B, C, A and the backlog together
                assert_morethan $bufs 2000000
                assert_lessthan $bufs 3000000
                # the backlog reaches back to where B's and C's snapshot began
                assert_morethan [s -3 repl_backlog_histlen] 2000000
                assert_equal 16384 [s -3 repl_backlog_size]
                # B's and C's output is the buffer they hold; A, caught up, holds almost none
                assert_morethan [rb_replica_omem -3 holding] 2000000
                assert_morethan_equal [rb_replica_omem -3 reading] 0
                # the part beyond the backlog's size is the replicas': no key is evicted for it
                assert_morethan [s -3 mem_clients_slaves] 1900000
                assert_morethan [s -3 mem_not_counted_for_evict] 1900000
            }

            test "A replica that drops continues by PSYNC from the buffer a slower one holds" {
                set full [s -3 sync_full]
                set pok [s -3 sync_partial_ok]
                # A follows B, which is syncing and serves no one: A keeps its place in the
                # primary's history while the primary takes 2 MB more.
                r -2 replicaof 127.0.0.1 [srv -1 port]
                wait_for_condition 100 50 {[s -3 connected_slaves] == 2}
                rb_write_mb -3 2
                r -2 replicaof $phost $pport
                wait_for_condition 200 50 {[s -2 master_repl_offset] == [s -3 master_repl_offset]}
                assert_equal $full [s -3 sync_full]
                assert_equal [expr {$pok + 1}] [s -3 sync_partial_ok]
                assert_equal [r -3 debug digest] [r -2 debug digest]
                assert_equal [string repeat x 10000] [r -2 get rb:199]
            }

            test "A replica that continues by PSYNC with more to read than its limit is not cut for it" {
                # A's link drops while 300 KB are written; the limit then goes below that. Back
                # by PSYNC, A holds more than its limit until it has read it: Valkey 8 checks a
                # replica's limit as the stream grows, not on its PSYNC (ours cut it there,
                # and again on each retry).
                set pok [s -3 sync_partial_ok]
                set cut [s -3 client_output_buffer_limit_disconnections]
                set aid [rb_reading_replica_id -3]
                r -3 multi
                r -3 client kill id $aid
                r -3 set big [string repeat y 300000]
                r -3 exec
                r -3 config set client-output-buffer-limit {replica 128k 0 0}
                wait_for_condition 200 50 {
                    [s -2 master_link_status] eq "up" &&
                    [s -2 master_repl_offset] == [s -3 master_repl_offset]
                }
                assert_equal [expr {$pok + 1}] [s -3 sync_partial_ok]
                assert_equal $cut [s -3 client_output_buffer_limit_disconnections]
                assert_equal 3 [s -3 connected_slaves]
                r -3 config set client-output-buffer-limit {replica 0 0 0}
            }

            test "The buffer goes back to the backlog's size once no replica holds it" {
                r -1 replicaof no one
                r replicaof no one
                wait_for_condition 100 50 {[s -3 connected_slaves] == 1}
                # at once: the last to leave frees what it held (as in Valkey 8)
                assert_lessthan [s -3 repl_backlog_histlen] 100000
                assert_morethan_equal [s -3 repl_backlog_histlen] 16384
                assert_lessthan [s -3 mem_total_replication_buffers] 200000
                # and A still follows
                r -3 set after 1
                wait_for_condition 100 50 {[r -2 get after] eq 1}
                r -3 config set rdb-key-save-delay 0
            }
        }
        }
    }
}

start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-backlog-size 10mb
                                     client-output-buffer-limit {replica 512k 0 0}}} {
    start_server {} {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 200 50 {[s master_link_status] eq "up"}

        test "A replica's hard limit below repl-backlog-size counts as that size" {
            set big [string repeat A [expr {2 * 1024 * 1024}]]
            # the link drops, 4 MB are written, the replica comes back during DEBUG SLEEP
            r -1 multi
            r -1 client kill type replica
            r -1 set key $big
            r -1 set key $big
            r -1 debug sleep 2
            r -1 exec
            r -1 set key $big
            wait_for_condition 200 50 {[s master_repl_offset] == [s -1 master_repl_offset]}
            assert_equal 1 [s -1 sync_full]
            assert_equal 1 [s -1 sync_partial_ok]
            # more than the limit, less than the backlog, at once: not cut
            r -1 multi
            r -1 set key $big
            r -1 set key $big
            r -1 exec
            wait_for_condition 200 50 {[s master_repl_offset] == [s -1 master_repl_offset]}
            assert_equal 1 [s -1 sync_full]
            assert_equal 1 [s -1 sync_partial_ok]
            assert_equal 0 [s -1 client_output_buffer_limit_disconnections]
        }
    }
}
