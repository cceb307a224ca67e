# Replication between our own nodes: full sync (from disk and diskless) of every type, the live
# stream of writes of every type, read-only replicas, expiry driven by the primary, partial
# resync after a dropped link (either side), WAIT, min-replicas-to-write, stale-data refusal,
# chained replicas, a failover by hand with PSYNC2 continuation, ROLE and INFO replication.

# ---------------------------------------------------------------- helpers

# Command on server `lvl` (0 = innermost, -1 = enclosing ...).
proc rl {lvl args} {
    if {$lvl == 0} { return [r {*}$args] }
    return [r $lvl {*}$args]
}

proc rinfo {lvl field} { return [info_field [rl $lvl info] $field] }

proc repl_link_up {lvl} { return [expr {[rinfo $lvl master_link_status] eq "up"}] }

proc repl_wait_link_up {lvl {what {}}} {
    wait_for_condition 200 50 {[repl_link_up $lvl]} else {
        ::testutil::fail "replica at level $lvl never got its link up $what\n[::srv::file_tail [srv $lvl log] 15]"
    }
}

# Waits until the replica at `rep` holds what the primary at `pri` holds: same offset, then
# the same DEBUG DIGEST.
# Keys whose DEBUG DIGEST-VALUE or TTL differ between two servers (all 16 dbs), for messages.
proc repl_diff {a b} {
    set ca [valkey_client $a]
    set cb [valkey_client $b]
    set out {}
    for {set db 0} {$db < 16} {incr db} {
        $ca select $db
        $cb select $db
        set keys [lsort -unique [concat [$ca keys *] [$cb keys *]]]
        foreach k $keys {
            set da [$ca debug digest-value $k]
            set db_ [$cb debug digest-value $k]
            if {$da ne $db_} {
                lappend out "db$db:$k [$ca type $k]/[$cb type $k] ttl [$ca pttl $k]/[$cb pttl $k]"
            }
        }
        if {[$ca dbsize] != [$cb dbsize]} { lappend out "db$db dbsize [$ca dbsize]/[$cb dbsize]" }
    }
    $ca close
    $cb close
    return [join [lrange $out 0 20] "\n    "]
}

# INFO replication and ROLE of a primary and its replica (levels), taken again until the
# primary's offset is the same before and after, the replica's offsets equal it and the
# primary has its ack: then all four were taken at one offset. Sets ::repl_snap to
# {primary_info replica_info primary_role replica_role}; returns 1 when consistent.
proc repl_snapshot {plevel rlevel} {
    set pi [rl $plevel info replication]
    set ri [rl $rlevel info replication]
    set prole [rl $plevel role]
    set rrole [rl $rlevel role]
    set off2 [info_field [rl $plevel info replication] master_repl_offset]
    set ::repl_snap [list $pi $ri $prole $rrole]
    set off [info_field $pi master_repl_offset]
    return [expr {$off == $off2 && [info_field $ri master_repl_offset] == $off &&
                  [info_field $ri slave_repl_offset] == $off &&
                  [string match "*,offset=$off,*" [info_field $pi slave0]] &&
                  [lindex $prole 1] == $off && [lindex $prole 2 0 2] == $off &&
                  [lindex $rrole 4] == $off}]
}

proc repl_wait_synced {pri rep} {
    wait_for_condition 200 50 {
        [repl_link_up $rep] &&
        [rinfo $rep master_repl_offset] == [rinfo $pri master_repl_offset] &&
        [rl $pri debug digest] eq [rl $rep debug digest]
    } else {
        ::testutil::fail "replica ($rep) never matched primary ($pri): offsets\
            [rinfo $pri master_repl_offset] / [rinfo $rep master_repl_offset], digests\
            [rl $pri debug digest] / [rl $rep debug digest]\n    [repl_diff $pri $rep]"
    }
}

# One key of every type and encoding in db 0, a few in db 3 and 9, some with TTLs.
proc repl_fill {lvl {p k}} {
    set c [valkey_client $lvl]
    $c set $p:str:int 12345
    $c set $p:str:short hello
    $c set $p:str:long [string repeat abcdefghij 200]
    $c set $p:str:bin "a\x00b\r\nc\xff"
    $c set $p:str:neg -9223372036854775808
    $c set $p:str:float 3.14159
    $c rpush $p:list:small a b c 1 2 3
    set big {}
    for {set i 0} {$i < 600} {incr i} { lappend big "element-$i-[string repeat x [expr {$i % 40}]]" }
    $c rpush $p:list:big {*}$big
    $c hset $p:hash:small f1 v1 f2 2 f3 ""
    set hb {}
    for {set i 0} {$i < 300} {incr i} { lappend hb field$i [string repeat v [expr {$i % 90}]]$i }
    $c hset $p:hash:big {*}$hb
    $c sadd $p:set:int 1 2 3 -4 100000 9223372036854775807
    $c sadd $p:set:small a b c
    set sb {}
    for {set i 0} {$i < 400} {incr i} { lappend sb member$i }
    $c sadd $p:set:big {*}$sb
    $c zadd $p:zset:small 1 a 2 b 2.5 c -inf lo +inf hi
    set zb {}
    for {set i 0} {$i < 300} {incr i} { lappend zb [expr {$i * 1.5}] m$i }
    $c zadd $p:zset:big {*}$zb
    $c set $p:ttl:str v EX 100000
    $c hset $p:ttl:hash a 1
    $c pexpireat $p:ttl:hash [expr {[clock milliseconds] + 5000000}]
    $c select 3
    $c set $p:db3:str three
    $c rpush $p:db3:list x y z
    $c select 9
    $c zadd $p:db9:zset 1 one 2 two
    $c set $p:db9:ttl nine PX 9000000
    $c select 0
    $c close
}

# Writes of every type, including the ones whose effect must be replicated in a rewritten
# form (relative expiries, INCRBYFLOAT, SPOP, blocking pops, GETEX ...).
proc repl_writes {lvl {p w} {restore_ttl 0}} {
    set c [valkey_client $lvl]
    # strings
    $c set $p:s1 v1
    $c append $p:s1 -more
    $c incr $p:n
    $c incrby $p:n 41
    $c decrby $p:n 2
    $c incrbyfloat $p:f 1.1
    $c incrbyfloat $p:f 2.0e2
    $c setrange $p:s2 5 xyz
    $c mset $p:m1 a $p:m2 b $p:m3 c
    $c msetnx $p:m4 d $p:m5 e
    $c getset $p:m1 a2
    $c getdel $p:m2
    $c setex $p:ex1 1000 v
    $c psetex $p:ex2 1000000 v
    $c set $p:ex3 v
    $c getex $p:ex3 EX 5000
    $c set $p:ex4 v KEEPTTL
    $c setnx $p:s3 first
    $c setnx $p:s3 second
    # lists
    $c rpush $p:l a b c d e f
    $c lpush $p:l z y
    $c lpushx $p:l w
    $c rpushx $p:l g
    $c linsert $p:l BEFORE c cc
    $c lset $p:l 0 W
    $c lrem $p:l 1 d
    $c ltrim $p:l 0 6
    $c lpop $p:l
    $c rpop $p:l 2
    $c lmove $p:l $p:l2 LEFT RIGHT
    $c rpoplpush $p:l $p:l2
    $c lmpop 2 $p:nolist $p:l2 RIGHT COUNT 1
    # hashes
    $c hset $p:h a 1 b 2 c 3
    $c hsetnx $p:h d 4
    $c hmset $p:h e 5
    $c hincrby $p:h a 10
    $c hincrbyfloat $p:h b 0.25
    $c hdel $p:h c
    # sets (SPOP picks at random: the replica must get what the primary removed)
    $c sadd $p:S 1 2 3 4 5 6 7 8 9 10 a b c
    $c srem $p:S 10
    $c spop $p:S
    $c spop $p:S 3
    $c smove $p:S $p:S2 a
    $c sadd $p:T 1 2 3 b zz
    $c sinterstore $p:Si $p:S $p:T
    $c sunionstore $p:Su $p:S $p:T
    $c sdiffstore $p:Sd $p:S $p:T
    # sorted sets
    $c zadd $p:z 1 a 2 b 3 c 4 d 5 e 6 f
    $c zincrby $p:z 2.5 a
    $c zadd $p:z XX CH 10 b
    $c zrem $p:z c
    $c zpopmin $p:z
    $c zpopmax $p:z 1
    $c zadd $p:z2 1 x 2 y 3 d
    $c zunionstore $p:zu 2 $p:z $p:z2 WEIGHTS 1 2
    $c zinterstore $p:zi 2 $p:z $p:z2
    $c zrangestore $p:zr $p:z 0 -1
    $c zremrangebyscore $p:zu 0 2
    $c zremrangebyrank $p:zu 0 0
    $c zmpop 1 $p:z2 MIN
    # generic
    $c set $p:g1 v
    $c expire $p:g1 1000
    $c pexpire $p:g1 99999
    $c set $p:g2 v
    $c expireat $p:g2 [expr {[clock seconds] + 100000}]
    $c persist $p:g2
    $c rename $p:g1 $p:g1r
    $c renamenx $p:g2 $p:g2r
    $c copy $p:h $p:hcopy
    $c set $p:g3 v
    $c move $p:g3 5
    $c del $p:s3
    $c unlink $p:m3
    $c set $p:gone v
    $c expire $p:gone 0
    set dump [$c dump $p:z]
    $c restore $p:zrestored 0 $dump
    if {$restore_ttl} { $c restore $p:zrestored2 100000000 $dump }
    $c select 7
    $c set $p:db7 seven
    $c rpush $p:db7l a b
    $c select 0
    $c close
}

proc repl_port_of {lvl} { return [srv $lvl port] }

# ---------------------------------------------------------------- primary + replica

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        set P -1
        set R 0
        set pport [srv -1 port]

        set first 1
        foreach diskless {yes no} {
            test "Full sync of every type (repl-diskless-sync $diskless)" {
                r -1 config set repl-diskless-sync $diskless
                r -1 flushall
                repl_fill -1 k$diskless
                set full [info_field [r -1 info stats] sync_full]
                if {!$first} {
                    # A node that left a primary has a new history: reattaching syncs in full.
                    r replicaof no one
                }
                r set leftover x
                r replicaof 127.0.0.1 $pport
                repl_wait_synced $P $R
                assert_equal [expr {$full + 1}] [info_field [r -1 info stats] sync_full]
                assert_equal {} [r get leftover] "old data is replaced by the snapshot"
                assert_equal [r -1 dbsize] [r dbsize]
                assert_equal [csvdump [valkey_client -1]] [csvdump [valkey_client]]
                set c [valkey_client]
                $c select 9
                assert_range [$c pttl k$diskless:db9:ttl] 8000000 9000000
                assert_equal 1 [$c zscore k$diskless:db9:zset one]
                assert_equal two [$c zrange k$diskless:db9:zset 1 1]
                if {$diskless eq "yes"} {
                    assert_match {*Starting BGSAVE for SYNC with target: replicas sockets*} \
                        [::srv::file_tail [srv -1 log] 200]
                } else {
                    assert_match {*Starting BGSAVE for SYNC with target: disk*} \
                        [::srv::file_tail [srv -1 log] 200]
                }
            }
            set first 0
        }

        test "Full sync while the primary takes writes: nothing lost or doubled" {
            r -1 config set repl-diskless-sync yes
            set c [valkey_client -1]
            $c deferred 1
            for {set i 0} {$i < 300} {incr i} {
                set args {}
                for {set j 0} {$j < 100} {incr j} { lappend args load:[expr {$i * 100 + $j}] [string repeat z 50]$j }
                $c mset {*}$args
            }
            for {set i 0} {$i < 300} {incr i} { $c read }
            set full [info_field [r -1 info stats] sync_full]
            r replicaof no one
            r replicaof 127.0.0.1 $pport
            # writes before, during and after the snapshot
            for {set i 0} {$i < 20000} {incr i} {
                $c incr load:counter
                $c rpush load:list $i
                if {$i % 1000 == 0} { $c del load:[expr {$i / 10}] }
            }
            for {set i 0} {$i < 40000 + 20} {incr i} { $c read }
            repl_wait_synced $P $R
            assert_equal [expr {$full + 1}] [info_field [r -1 info stats] sync_full]
            assert_equal 20000 [r get load:counter]
            assert_equal 20000 [r llen load:list]
            assert_equal 19999 [r lindex load:list -1]
        }

        test "Live writes of every type reach the replica (equal digest and contents)" {
            # The replica applies the stream late (it sleeps): relative TTLs must arrive as
            # absolute ones to give equal expiry times.
            set sl [valkey_client]
            $sl deferred 1
            $sl debug sleep 0.3
            after 20
            repl_writes -1
            assert_equal OK [$sl read]
            repl_wait_synced $P $R
            assert_equal [csvdump [valkey_client -1]] [csvdump [valkey_client]]
            # rewritten forms: relative TTLs arrive as absolute ones
            assert_equal [r -1 pexpiretime w:g1r] [r pexpiretime w:g1r]
            assert_equal [r -1 pexpiretime w:ex3] [r pexpiretime w:ex3]
            assert_equal [r -1 smembers w:S] [r smembers w:S]
            assert_equal 0 [r exists w:gone]
            set c [valkey_client]
            $c select 5
            assert_equal v [$c get w:g3]
        }

        test "RESTORE with a relative TTL reaches the replica with the primary's expiry time" {
            set dump [r -1 dump w:z]
            set sl [valkey_client]
            $sl deferred 1
            $sl debug sleep 0.2
            after 20
            r -1 restore rt:z 100000000 $dump
            assert_equal OK [$sl read]
            repl_wait_link_up $R
            wait_for_condition 100 20 {[r exists rt:z]}
            set exp_p [r -1 pexpiretime rt:z]
            set exp_r [r pexpiretime rt:z]
            r -1 del rt:z  ;# leaves nothing diverging for the next tests
            assert_equal $exp_p $exp_r "replica applied RESTORE 200ms late with a relative TTL?"
        }

        test "Blocking pops served on the primary are replicated as the pop" {
            set b [valkey_client -1]
            $b deferred 1
            $b blpop bl:q 5
            set b2 [valkey_client -1]
            $b2 deferred 1
            $b2 bzpopmin bl:zq 5
            wait_for_condition 100 20 {[info_field [r -1 info clients] blocked_clients] == 2}
            r -1 rpush bl:q a b
            r -1 zadd bl:zq 1 x 2 y
            assert_equal {bl:q a} [$b read]
            assert_equal {bl:zq x 1} [$b2 read]
            repl_wait_synced $P $R
            assert_equal {b} [r lrange bl:q 0 -1]
            assert_equal {y 2} [r zrange bl:zq 0 -1 withscores]
        }

        test "MULTI/EXEC writes reach the replica" {
            set c [valkey_client -1]
            $c multi
            $c set tx:a 1
            $c incr tx:a
            $c rpush tx:l x y
            $c hset tx:h f v
            $c select 4
            $c set tx:db4 four
            assert_equal {OK 2 2 1 OK OK} [$c exec]
            repl_wait_synced $P $R
            assert_equal 2 [r get tx:a]
            assert_equal {x y} [r lrange tx:l 0 -1]
            set c2 [valkey_client]
            $c2 select 4
            assert_equal four [$c2 get tx:db4]
        }

        test "Writes in other databases land in the same database on the replica" {
            set c [valkey_client -1]
            foreach db {1 2 15} { $c select $db; $c set dbk:$db in-$db; $c rpush dbl:$db $db }
            $c select 2
            $c swapdb 1 2
            $c select 15
            $c move dbk:15 0
            $c flushdb
            repl_wait_synced $P $R
            set c2 [valkey_client]
            $c2 select 1
            assert_equal in-2 [$c2 get dbk:2]
            $c2 select 2
            assert_equal in-1 [$c2 get dbk:1]
            $c2 select 15
            assert_equal 0 [$c2 dbsize]
            $c2 select 0
            assert_equal in-15 [$c2 get dbk:15]
        }

        test "REPLICAOF the same primary again, and with a bad port" {
            assert_equal "OK Already connected to specified master" [r replicaof 127.0.0.1 $pport]
            assert_error "*Invalid master port*" {r replicaof 127.0.0.1 70000}
            assert_error "*Invalid master port*" {r replicaof 127.0.0.1 notaport}
            assert_equal up [status r master_link_status]
        }

        test "bind-source-addr: the replica's link comes from that address" {
            r config set bind-source-addr 127.0.0.2
            r replicaof no one
            r replicaof [srv -1 host] [srv -1 port]
            repl_wait_link_up 0
            assert_match "*ip=127.0.0.2,*" [rinfo -1 slave0]
            # an address this host does not have: best effort, as Valkey 8 (the kernel picks)
            r config set bind-source-addr 192.0.2.1
            r replicaof no one
            r replicaof [srv -1 host] [srv -1 port]
            repl_wait_link_up 0
            assert_match "*ip=127.0.0.1,*" [rinfo -1 slave0]
            r config set bind-source-addr ""
        }

        test "A replica refuses writes from clients" {
            assert_error "READONLY You can't write against a read only replica." {r set x y}
            assert_error "READONLY You can't write against a read only replica.*" {r del k:str:int}
            assert_error "READONLY You can't write against a read only replica.*" {r incr cnt}
            # reads are fine
            assert_equal hello [r get kno:str:short]
            set c [valkey_client]
            $c multi
            catch {$c set x y} e
            assert_match "READONLY*" $e
            assert_error "EXECABORT*" {$c exec}
            assert_equal 0 [r exists x]
        }

        test "INFO replication and ROLE on both sides" {
            r -1 set info:x 1
            repl_wait_synced $P $R
            # The primary PINGs its replica now and then, which moves the offsets between two
            # calls: take INFO and ROLE of both sides until they were taken at one offset.
            wait_for_condition 100 50 {[repl_snapshot -1 0]} else {
                fail "offsets never settled: $::repl_snap"
            }
            lassign $::repl_snap pi ri prole rrole
            assert_equal master [info_field $pi role]
            assert_equal 1 [info_field $pi connected_slaves]
            # type=replica: Valkey 8.0.1's word for a replica on one connection.
            assert_match "ip=127.0.0.1,port=[srv 0 port],state=online,offset=*,lag=*,type=replica" \
                [info_field $pi slave0]
            assert_match {[0-9a-f]*} [info_field $pi master_replid]
            assert_equal 40 [string length [info_field $pi master_replid]]
            assert_equal 1 [info_field $pi repl_backlog_active]
            assert_morethan [info_field $pi repl_backlog_histlen] 0
            assert_equal slave [info_field $ri role]
            assert_equal 127.0.0.1 [info_field $ri master_host]
            assert_equal $pport [info_field $ri master_port]
            assert_equal up [info_field $ri master_link_status]
            assert_equal 0 [info_field $ri master_sync_in_progress]
            assert_equal [info_field $pi master_replid] [info_field $ri master_replid]
            assert_equal [info_field $pi master_repl_offset] [info_field $ri master_repl_offset]
            assert_equal [info_field $pi master_repl_offset] [info_field $ri slave_repl_offset]
            assert_equal 1 [info_field $ri slave_read_only]
            set off [info_field $pi master_repl_offset]
            assert_match "*,offset=$off,*" [info_field $pi slave0]
            assert_equal [list master $off [list [list 127.0.0.1 [srv 0 port] $off]]] $prole
            assert_equal [list slave 127.0.0.1 $pport connected $off] $rrole
        }

        test "Replica link killed on the primary: partial resync" {
            set full [info_field [r -1 info stats] sync_full]
            set pok [info_field [r -1 info stats] sync_partial_ok]
            assert_equal 1 [r -1 client kill type replica]
            # writes while the link is down go to the backlog
            r -1 set pk:a 1
            r -1 rpush pk:l a b c
            repl_wait_synced $P $R
            assert_equal [expr {$pok + 1}] [info_field [r -1 info stats] sync_partial_ok]
            assert_equal $full [info_field [r -1 info stats] sync_full]
            r -1 incr pk:a
            repl_wait_synced $P $R
            assert_equal 2 [r get pk:a]
        }

        test "Primary link killed on the replica: partial resync" {
            set full [info_field [r -1 info stats] sync_full]
            set pok [info_field [r -1 info stats] sync_partial_ok]
            assert_equal 1 [r client kill type master]
            r -1 set pk:b 1
            r -1 sadd pk:s a b
            repl_wait_synced $P $R
            assert_equal [expr {$pok + 1}] [info_field [r -1 info stats] sync_partial_ok]
            assert_equal $full [info_field [r -1 info stats] sync_full]
            assert_equal 1 [r get pk:b]
        }

        test "CONFIG SET repl-backlog-size resizes the live backlog" {
            r -1 config set repl-backlog-size 16384
            assert_equal 16384 [rinfo $P repl_backlog_size]
            for {set i 0} {$i < 4} {incr i} { r -1 set bl:$i [string repeat $i 50000] }
            set hl [rinfo $P repl_backlog_histlen]
            r -1 config set repl-backlog-size 10mb
            r -1 del bl:0 bl:1 bl:2 bl:3
            # Valkey may keep up to one extra 16k block
            assert_lessthan $hl 40000
        }

        foreach side {primary replica} {
            test "Partial resync ($side side killed the link) continues in the stream's database" {
                set c [valkey_client -1]
                $c select 5
                $c set sdb:$side:a 1
                repl_wait_synced $P $R
                set pok [info_field [r -1 info stats] sync_partial_ok]
                if {$side eq "primary"} {
                    r -1 client kill type replica
                } else {
                    r client kill type master
                }
                # same client, same db: the stream has no reason to say SELECT again
                $c set sdb:$side:b 2
                $c rpush sdb:$side:l x
                wait_for_condition 200 20 {
                    [info_field [r -1 info stats] sync_partial_ok] == $pok + 1
                }
                $c set sdb:$side:c 3
                repl_wait_synced $P $R
                set c2 [valkey_client]
                $c2 select 5
                assert_equal {1 2 3} [$c2 mget sdb:$side:a sdb:$side:b sdb:$side:c]
                assert_equal 0 [r exists sdb:$side:b sdb:$side:c]
            }
        }

        test "WAIT counts the replica; WAIT with a timeout returns what it has" {
            r -1 set wait:a 1
            assert_equal 1 [r -1 wait 1 0]
            r -1 set wait:b 1
            set t0 [clock milliseconds]
            assert_equal 1 [r -1 wait 2 300]
            assert_range [expr {[clock milliseconds] - $t0}] 250 3000
            assert_error "*WAIT cannot be used with replica instances*" {r wait 1 0}
        }

        test "WAIT counts acks of the client's own last write, not of later GETACK/PING bytes" {
            set c [valkey_client -1]
            set got {}
            for {set i 0} {$i < 5} {incr i} {
                $c set wait:c $i
                lappend got [$c wait 1 0]
                # nothing written since: the replica has acknowledged this client's writes
                lappend got [$c wait 0 0]
            }
            assert_equal {1 1 1 1 1 1 1 1 1 1} $got "WAIT 1 0 / WAIT 0 0 pairs"
        }

        test "min-replicas-to-write counts good replicas" {
            r -1 config set min-replicas-to-write 1
            assert_equal OK [r -1 set mr:a 1]
            r -1 config set min-replicas-to-write 2
            assert_error "NOREPLICAS Not enough good replicas to write." {r -1 set mr:b 1}
            assert_equal 1 [r -1 get mr:a]
            r -1 config set min-replicas-to-write 0
            assert_equal OK [r -1 set mr:b 1]
        }
    }
}

# ---------------------------------------------------------------- backlog too small for the gap

start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-backlog-size 16384}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        set P -1
        set R 0
        test "A gap larger than the backlog forces a full resync" {
            r replicaof 127.0.0.1 [srv -1 port]
            r -1 set before 1
            repl_wait_synced $P $R
            set full [info_field [r -1 info stats] sync_full]
            set perr [info_field [r -1 info stats] sync_partial_err]
            set pok [info_field [r -1 info stats] sync_partial_ok]
            set sl [valkey_client]
            $sl deferred 1
            $sl debug sleep 0.5
            after 20
            r -1 client kill type replica
            for {set i 0} {$i < 10} {incr i} { r -1 set gap:$i [string repeat $i 20000] }
            assert_equal OK [$sl read]
            repl_wait_synced $P $R
            assert_equal [expr {$full + 1}] [info_field [r -1 info stats] sync_full]
            assert_equal [expr {$perr + 1}] [info_field [r -1 info stats] sync_partial_err]
            assert_equal $pok [info_field [r -1 info stats] sync_partial_ok]
            assert_lessthan [rinfo $P repl_backlog_histlen] 40000
        }
    }
}

# ---------------------------------------------------------------- expiry on a replica

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        set P -1
        set R 0
        r replicaof 127.0.0.1 [srv -1 port]
        repl_wait_link_up 0
        test "Expired keys leave the replica only by the primary's DEL" {
            r -1 debug set-active-expire 0
            r -1 set ttl:a v PX 150
            r -1 hset ttl:b f v
            r -1 pexpire ttl:b 150
            repl_wait_synced $P $R
            set before [r dbsize]
            after 300
            # logically expired on the replica: not visible, still stored
            assert_equal {} [r get ttl:a]
            assert_equal {} [r hget ttl:b f]
            assert_equal 0 [r exists ttl:a ttl:b]
            assert_equal $before [r dbsize]
            after 300
            assert_equal $before [r dbsize] "the replica must not expire keys itself"
            # the primary expires one lazily (access) ...
            assert_equal {} [r -1 get ttl:a]
            wait_for_condition 100 20 {[r dbsize] == $before - 1}
            # ... and the other actively
            r -1 debug set-active-expire 1
            wait_for_condition 200 20 {[r dbsize] == $before - 2}
            repl_wait_synced $P $R
        }

    }
}

# ---------------------------------------------------------------- the primary's link and the replica's limits

# Issue 27: client-query-buffer-limit (and proto-max-bulk-len) bound what clients send; the
# link to the primary is exempt, so one command from it longer than the replica's limits is
# applied from the stream and the link stays up (no reconnect, no resync).
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0 client-query-buffer-limit 1mb proto-max-bulk-len 1mb}} {
        set P -1
        set R 0
        test "A command from the primary longer than the replica's client-query-buffer-limit is applied over the same link" {
            r replicaof 127.0.0.1 [srv -1 port]
            r -1 set before 1
            repl_wait_synced $P $R
            set full [info_field [r -1 info stats] sync_full]
            set pok [info_field [r -1 info stats] sync_partial_ok]
            set conns [info_field [r -1 info stats] total_connections_received]
            r -1 set big [string repeat x [expr {3 * 1024 * 1024}]]
            r -1 rpush list [string repeat a [expr {600 * 1024}]] [string repeat b [expr {600 * 1024}]]
            r -1 set after 1
            repl_wait_synced $P $R
            assert_equal 3145728 [r strlen big]
            assert_equal 2 [r llen list]
            assert_equal 1 [r get after]
            assert_equal 0 [info_field [r info stats] client_query_buffer_limit_disconnections]
            assert_equal $full [info_field [r -1 info stats] sync_full]
            assert_equal $pok [info_field [r -1 info stats] sync_partial_ok]
            assert_equal $conns [info_field [r -1 info stats] total_connections_received]
        }
    }
}

# CLIENT PAUSE WRITE on a replica holds its primary's first write and what follows it, as Valkey
# 8 postpones it: the data and slave_repl_offset stay as of the pause while
# slave_read_repl_offset follows what arrives; the link stays up however long the pause (what is
# read counts as heard from the primary); the unpause applies the rest. Recorded from Valkey
# 8.0.1 (its pause.tcl, and by hand for the timeout): ours held the write too but counted it in
# slave_repl_offset and fed it on to chained replicas, and a pause longer than repl-timeout
# dropped the link.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-ping-replica-period 1}} {
    start_server {overrides {repl-timeout 2}} {
        set P -1
        set R 0
        test "CLIENT PAUSE WRITE on a replica: the primary's stream waits unapplied, the link stays up" {
            r replicaof 127.0.0.1 [srv -1 port]
            r -1 set foo bar
            repl_wait_synced $P $R
            set conns [info_field [r -1 info stats] total_connections_received]
            r client pause 100000 write
            # The primary's PINGs (one a second) before the write are applied, as in Valkey.
            set before [info_field [r -1 info replication] master_repl_offset]
            r -1 set foo2 bar2
            set sent [info_field [r -1 info replication] master_repl_offset]
            wait_for_condition 100 20 {
                [info_field [r info replication] slave_read_repl_offset] >= $sent
            } else { fail "the replica did not read the stream" }
            set applied [info_field [r info replication] slave_repl_offset]
            assert {$applied >= $before && $applied < $sent}
            assert_equal {} [r get foo2]
            after 4500  ;# two repl-timeouts, the primary's PINGs read but not applied
            assert_equal up [info_field [r info replication] master_link_status]
            assert_equal $conns [info_field [r -1 info stats] total_connections_received]
            assert_equal $applied [info_field [r info replication] slave_repl_offset]
            assert_morethan [info_field [r info replication] slave_read_repl_offset] $sent
            assert_equal {} [r get foo2]
            r client unpause
            wait_for_condition 100 20 {[r get foo2] eq "bar2"} else { fail "not applied after the pause" }
            wait_for_condition 100 20 {
                [info_field [r info replication] slave_repl_offset] ==
                [info_field [r -1 info replication] master_repl_offset]
            } else { fail "slave_repl_offset did not catch up" }
            assert_equal $conns [info_field [r -1 info stats] total_connections_received]
        }
    }
}

# ---------------------------------------------------------------- writable replicas

# Issue 27: keys that a writable replica's own clients give a TTL are expired by the replica
# itself, actively too (its primary's keys still wait for the primary's DEL); a write on a key
# expired there replaces it; PFCOUNT on a read-only replica answers without error and treats
# an expired key as absent.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        set P -1
        set R 0
        r replicaof 127.0.0.1 [srv -1 port]
        repl_wait_link_up 0
        test "PFCOUNT on a read-only replica: the cached count is updated locally, an expired key counts as absent" {
            r -1 debug set-active-expire 0
            r -1 pfadd hll a b c
            r -1 pfadd hll2 a b
            r -1 pexpire hll2 100
            repl_wait_synced $P $R
            assert_equal 3 [r pfcount hll]
            wait_for_condition 100 10 {[r pttl hll2] == -2}
            assert_equal 0 [r pfcount hll2]
            assert_equal 3 [r pfcount hll hll2]
            assert_equal 1 [r exists hll]
            r -1 del hll hll2
            r -1 debug set-active-expire 1
            repl_wait_synced $P $R
        }
        test "A writable replica expires its own keys with a TTL, actively, and not its primary's" {
            r config set replica-read-only no
            r -1 debug set-active-expire 0
            r -1 set pk v px 100
            repl_wait_synced $P $R
            set expired [info_field [r info stats] expired_keys]
            r set mine v px 100
            r hset myhash f v
            r pexpire myhash 100
            r set keep v
            wait_for_condition 200 10 {[r dbsize] == 2} else {
                ::testutil::fail "replica keys: [lsort [r keys *]] (dbsize [r dbsize])"
            }
            assert_equal {} [r get mine]
            assert_equal 0 [r exists mine myhash]
            assert_equal [expr {$expired + 2}] [info_field [r info stats] expired_keys]
            # the primary's key, expired by now, stays until the primary's DEL
            assert_equal {} [r get pk]
            assert_equal 2 [r dbsize]
            r -1 debug set-active-expire 1
            wait_for_condition 200 10 {[r -1 dbsize] == 0}
            wait_for_condition 200 10 {[r dbsize] == 1}
            assert_equal {keep} [r keys *]
            r del keep
        }
        test "A write by a writable replica's client on a key expired there replaces it" {
            r debug set-active-expire 0
            r set l v px 50
            r set s v px 50
            wait_for_condition 100 10 {[r pttl l] == -2 && [r pttl s] == -2}
            assert_equal 1 [r rpush l x]
            assert_equal list [r type l]
            assert_equal {x} [r lrange l 0 -1]
            assert_equal -1 [r pttl l]
            assert_equal 1 [r append s y]
            assert_equal y [r get s]
            assert_equal 2 [r dbsize]
            assert_equal {l s} [lsort [r keys *]]
            r debug set-active-expire 1
            r del l s
            r config set replica-read-only yes
        }
    }
}

# ---------------------------------------------------------------- the stream's db across links

# A replica moved by REPLICAOF continues by PSYNC where its stream stopped, with no SELECT: the
# db the stream had selected must carry over from the link it left (Valkey 8 keeps it in its
# cached primary). It was lost when REPLICAOF closed a live link: the writes after the move
# went to db 0.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_server {overrides {repl-diskless-sync-delay 0}} {
            # primary -2, replicas -1 (B) and 0 (A)
            r -1 replicaof 127.0.0.1 [srv -2 port]
            r replicaof 127.0.0.1 [srv -2 port]
            repl_wait_link_up -1
            repl_wait_link_up 0
            test "A replica moved to a sibling continues the stream in the db it had selected" {
                set p [valkey_client -2]
                $p select 9
                $p set before 1
                repl_wait_synced -2 0
                repl_wait_synced -2 -1
                set pok [rinfo -1 sync_partial_ok]
                # A follows B now: same history, so B continues A's stream from its offset
                r replicaof 127.0.0.1 [srv -1 port]
                repl_wait_link_up 0
                assert_equal [expr {$pok + 1}] [rinfo -1 sync_partial_ok]
                $p set after 1
                $p incr after
                repl_wait_synced -2 0
                set a [valkey_client 0]
                $a select 9
                assert_equal {1 2} [list [$a get before] [$a get after]]
                assert_equal 0 [r dbsize] "nothing written to db 0"
                # and back to the primary directly, by PSYNC again
                r replicaof 127.0.0.1 [srv -2 port]
                repl_wait_link_up 0
                $p incr after
                repl_wait_synced -2 0
                assert_equal 3 [$a get after]
                assert_equal 0 [r dbsize]
                $a close
                $p close
            }
        }
    }
}

# ---------------------------------------------------------------- a node with no replica

start_server {tags {repl}} {
    test "WAIT without replicas: 0 after the timeout" {
        r set a 1
        assert_equal 0 [r wait 0 0]
        set t0 [clock milliseconds]
        assert_equal 0 [r wait 1 200]
        assert_range [expr {[clock milliseconds] - $t0}] 150 3000
    }

    test "min-replicas-to-write without replicas: NOREPLICAS" {
        r config set min-replicas-to-write 1
        assert_error "NOREPLICAS Not enough good replicas to write." {r set a 2}
        assert_equal 1 [r get a]
        r config set min-replicas-to-write 0
        assert_equal OK [r set a 2]
    }

    test "replica-serve-stale-data no while the link is down: MASTERDOWN" {
        set dead [::srv::find_free_port]
        r config set replica-serve-stale-data no
        r replicaof 127.0.0.1 $dead
        assert_equal down [status r master_link_status]
        assert_error "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." \
            {r get a}
        assert_match "slave 127.0.0.1 $dead *" [r role]
        r config set replica-serve-stale-data yes
        assert_equal 2 [r get a]
        r replicaof no one
        assert_equal master [lindex [r role] 0]
        assert_equal OK [r set a 3]
    }
}

# ------------------------------------------------- keepalive newlines before the snapshot


# A replica that waits for its snapshot (repl-diskless-sync-delay, default 5 s; or a disk
# snapshot being made) gets a bare "\n" every second, as from Valkey 8 and Redis 7.0: a
# replica counts its repl-timeout from the last byte it received.
# REPLCONF's reply read before PSYNC is sent: a primary refuses PSYNC behind an unsent reply.
proc repl_ask_sync {fd} {
    puts -nonewline $fd "REPLCONF capa eof capa psync2\r\n"
    flush $fd
    assert_equal "+OK" [string trim [gets $fd]]
    puts -nonewline $fd "PSYNC ? -1\r\n"
    flush $fd
}

start_server {tags {repl}} {
    test "A replica waiting out repl-diskless-sync-delay gets a newline every second" {
        assert_equal 5 [lindex [r config get repl-diskless-sync-delay] 1]
        set fd [valkey_raw]
        repl_ask_sync $fd
        set got [read_for $fd 2600]
        close $fd
        assert_match "\n\n*" $got
        assert_equal {} [string map {"\n" ""} $got]
    }

    test "repl-diskless-sync-max-replicas: the delay ends once that many replicas wait" {
        r config set repl-diskless-sync-delay 60 repl-diskless-sync-max-replicas 2
        r set k v
        r config set rdb-key-save-delay 3000000   ;# the transfer's child lasts 3 s
        set a [valkey_raw]
        repl_ask_sync $a
        assert_no_match "*FULLRESYNC*" [read_for $a 1200]   ;# one of two: it waits
        set b [valkey_raw]
        repl_ask_sync $b
        set got_b [read_for $b 1500]
        set got_a [read_for $a 200]
        assert_match "*+FULLRESYNC * *\r\n*\$EOF:*" $got_b
        assert_match "*+FULLRESYNC * *\r\n*\$EOF:*" $got_a
        # the diskless transfer's child counts as a snapshot in progress, as in Valkey 8
        assert_equal 1 [s rdb_bgsave_in_progress]
        assert_range [s rdb_current_bgsave_time_sec] 0 3
        close $a
        close $b
        r config set rdb-key-save-delay 0
        wait_for_condition 100 50 {[s rdb_bgsave_in_progress] == 0 && [s connected_slaves] == 0}
        assert_equal -1 [s rdb_current_bgsave_time_sec]
        # 0, the default: the delay is waited out whatever the number of replicas
        r config set repl-diskless-sync-max-replicas 0
        set a [valkey_raw]
        set b [valkey_raw]
        foreach fd [list $a $b] { repl_ask_sync $fd }
        assert_no_match "*FULLRESYNC*" [read_for $b 1500]
        assert_no_match "*FULLRESYNC*" [read_for $a 100]
        close $a
        close $b
        r config set repl-diskless-sync-delay 5
        wait_for_condition 100 50 {[s connected_slaves] == 0}
    }

    test "A replica waiting for a disk snapshot gets a newline every second after +FULLRESYNC" {
        r config set repl-diskless-sync no
        set kv {}
        for {set i 0} {$i < 3000} {incr i} { lappend kv nl:$i $i }
        r mset {*}$kv
        r config set rdb-key-save-delay 2000   ;# 6 s for 3000 keys
        set fd [valkey_raw]
        puts -nonewline $fd "PSYNC ? -1\r\n"
        flush $fd
        set got [read_for $fd 2600]
        close $fd
        r config set rdb-key-save-delay 0
        r config set repl-diskless-sync yes
        assert_match "+FULLRESYNC * *\r\n\n\n*" $got
        set after [string range $got [expr {[string first "\r\n" $got] + 2}] end]
        assert_equal {} [string map {"\n" ""} $after]
    }
}

# The stream a new replica gets holds a PING only once repl-ping-replica-period has passed
# (counted from the start, as Valkey 8's replication cron does), not at once: a replica reading
# the stream sees the writes first.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-diskless-sync no repl-ping-replica-period 3600}} {
    test "The first replica's stream does not start with a PING (repl-ping-replica-period 3600)" {
        set fd [valkey_raw]
        fconfigure $fd -translation binary
        puts -nonewline $fd "PSYNC ? -1\r\n"
        flush $fd
        fconfigure $fd -blocking 1
        assert_match "+FULLRESYNC * *" [gets $fd]
        # newlines may come first while the snapshot is made (keepalives)
        while {[set line [string trimright [gets $fd] "\r"]] eq ""} {}
        read $fd [string range $line 1 end]
        r set after:sync 1
        set got [read_for $fd 500]
        close $fd
        assert_match "*2\r\n\$6\r\nSELECT\r\n*\$3\r\nset\r\n\$10\r\nafter:sync\r\n*" $got
        assert_equal 0 [string match "*PING*" $got]
    }
}

# CLIENT CAPA redirect (Valkey 8.0): a standalone replica answers such a client's writes, and
# its reads unless it said READONLY, with -REDIRECT <primary>; other clients are unchanged.
start_server {tags {repl}} {
    start_server {} {
        test "CLIENT CAPA redirect: a replica sends writes, and reads without READONLY, to its primary" {
            r replicaof 127.0.0.1 [srv -1 port]
            repl_wait_link_up 0
            set to "-REDIRECT 127.0.0.1:[srv -1 port]"
            # each on a connection of its own: {commands} {replies}
            foreach {cmds want} [list \
                {{client capa redirect foo} {get a} {set a 1} {ping} {readonly} {get a} {set a 1}} \
                    [list +OK $to $to +PONG +OK {$-1} $to] \
                {{client capa redirect} {multi} {get a} {exec} {multi} {set a 1} {exec}} \
                    [list +OK +OK $to "-EXECABORT Transaction discarded because of previous errors." +OK $to "-EXECABORT Transaction discarded because of previous errors."] \
                {{client capa} {get a} {set a 1}} \
                    [list "-ERR wrong number of arguments for 'client|capa' command" {$-1} "-READONLY You can't write against a read only replica."] \
            ] {
                set fd [valkey_raw]
                foreach c $cmds { puts -nonewline $fd [::resp::encode_command {*}$c] }
                flush $fd
                set got {}
                foreach c $cmds {
                    set line [string trimright [gets $fd] "\r"]
                    if {[string index $line 0] eq "\$" && $line ne {$-1}} { gets $fd }
                    lappend got $line
                }
                close $fd
                assert_equal $want $got $cmds
            }
            # the primary itself ignores the capability
            set fd [valkey_raw -1]
            puts -nonewline $fd "[::resp::encode_command client capa redirect][::resp::encode_command set a 1]"
            flush $fd
            assert_equal {+OK +OK} [list [string trimright [gets $fd] "\r"] [string trimright [gets $fd] "\r"]]
            close $fd
            r replicaof no one
        }
    }
}

# ---------------------------------------------------------------- chained replicas A -> B -> C

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_server {overrides {repl-diskless-sync-delay 0}} {
            test "Chained replicas: writes on A reach C through B" {
                repl_fill -2 pre
                r -1 replicaof 127.0.0.1 [srv -2 port]
                repl_wait_synced -2 -1
                # The stream B passes on is in db 6 when C joins; it will not say SELECT again.
                set a6 [valkey_client -2]
                $a6 select 6
                $a6 set chain:db6:a 1
                repl_wait_synced -2 -1
                r replicaof 127.0.0.1 [srv -1 port]
                repl_wait_synced -1 0
                $a6 set chain:db6:b 2
                repl_wait_synced -2 0
                set c6 [valkey_client]
                $c6 select 6
                assert_equal {1 2} [$c6 mget chain:db6:a chain:db6:b]
                assert_equal 0 [r exists chain:db6:b]
                repl_writes -2
                repl_wait_synced -2 0
                assert_equal [r -2 debug digest] [r debug digest]
                assert_equal [srv -1 port] [status r master_port]
                assert_equal 1 [info_field [r -1 info replication] connected_slaves]
                assert_equal [info_field [r -2 info replication] master_replid] \
                    [info_field [r info replication] master_replid]
            }

            test "Chained replicas: B's link to A drops and resumes; C keeps its link" {
                set bfull [info_field [r -1 info stats] sync_full]
                set bok [info_field [r -1 info stats] sync_partial_ok]
                set aok [info_field [r -2 info stats] sync_partial_ok]
                r -1 client kill type master
                r -2 set chain:after 1
                r -2 zadd chain:z 1 a
                repl_wait_synced -2 -1
                repl_wait_synced -2 0
                assert_equal [expr {$aok + 1}] [info_field [r -2 info stats] sync_partial_ok]
                assert_equal $bfull [info_field [r -1 info stats] sync_full]
                assert_equal 1 [r get chain:after]
            }

            test "Writes on a writable replica stay local: not passed on, offset unchanged" {
                r -1 config set replica-read-only no
                try {
                    r -2 set chain:marker1 1
                    repl_wait_synced -2 0
                    set off [rinfo -2 master_repl_offset]
                    assert_equal OK [r -1 set chain:local 1]
                    r -2 set chain:marker2 1
                    wait_for_condition 100 50 {[r exists chain:marker2]}
                    assert_equal 0 [r exists chain:local] "B's local write reached C"
                    assert_equal [rinfo -2 master_repl_offset] [rinfo -1 master_repl_offset] \
                        "B's offset moved with its local write"
                    # B still continues A's history exactly: a partial resync
                    set aok [info_field [r -2 info stats] sync_partial_ok]
                    set afull [info_field [r -2 info stats] sync_full]
                    r -1 client kill type master
                    wait_for_condition 200 50 {[repl_link_up -1] &&
                        [info_field [r -2 info stats] sync_partial_ok] + [info_field [r -2 info stats] sync_full] > $aok + $afull}
                    assert_equal $afull [info_field [r -2 info stats] sync_full] "B needed a full sync"
                } finally {
                    r -1 config set replica-read-only yes
                }
            }
        }
    }
}

# ---------------------------------------------------------------- failover by hand

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_server {overrides {repl-diskless-sync-delay 0}} {
            # P = -2, R1 = -1, R2 = 0
            set pport [srv -2 port]
            set r1port [srv -1 port]
            test "Failover: R2 follows the promoted R1 with a partial resync" {
                r -1 replicaof 127.0.0.1 $pport
                r replicaof 127.0.0.1 $pport
                repl_fill -2 f
                repl_wait_synced -2 -1
                repl_wait_synced -2 0
                set old_id [info_field [r -2 info replication] master_replid]
                set off [info_field [r -2 info replication] master_repl_offset]
                assert_equal OK [r -1 replicaof no one]
                set ri [r -1 info replication]
                assert_equal master [info_field $ri role]
                assert_equal $old_id [info_field $ri master_replid2]
                assert_not_equal $old_id [info_field $ri master_replid]
                assert_equal [expr {$off + 1}] [info_field $ri second_repl_offset]
                assert_equal OK [r -1 set after:promote 1]
                r replicaof 127.0.0.1 $r1port
                repl_wait_synced -1 0
                set st [r -1 info stats]
                assert_equal 1 [info_field $st sync_partial_ok]
                assert_equal 0 [info_field $st sync_full]
                assert_equal 1 [r get after:promote]
                assert_equal [info_field [r -1 info replication] master_replid] \
                    [info_field [r info replication] master_replid]
            }

            test "Failover: the old primary rejoins under R1 with a partial resync" {
                r -2 replicaof 127.0.0.1 $r1port
                repl_wait_synced -1 -2
                set st [r -1 info stats]
                assert_equal 2 [info_field $st sync_partial_ok]
                assert_equal 0 [info_field $st sync_full]
                repl_writes -1 post
                repl_wait_synced -1 -2
                repl_wait_synced -1 0
                # The primary may PING its replicas at any time, moving every offset: judge one
                # ROLE reply at a time, with the primary's offset from the same reply.
                wait_for_condition 100 50 {
                    [set role [r -1 role]] ne {} && [llength [lindex $role 2]] == 2 &&
                    [lsort -unique [lmap x [lindex $role 2] {lindex $x 2}]] eq [lindex $role 1]
                }
                set off [lindex $role 1]
                assert_equal master [lindex $role 0]
                assert_equal [lsort [list [list 127.0.0.1 $pport $off] [list 127.0.0.1 [srv 0 port] $off]]] \
                    [lsort [lindex $role 2]]
                wait_for_condition 100 50 {
                    [lindex [set rrole [r -2 role]] 4] == [lindex [r -1 role] 1]
                }
                assert_equal [list slave 127.0.0.1 $r1port connected] [lrange $rrole 0 3]
                assert_error "READONLY*" {r -2 set x 1}
            }
        }
    }
}

# ---------------------------------------------------------------- replicaof in the config file

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    r set cfgkey 1
    start_server [list overrides [list replicaof "127.0.0.1 [srv 0 port]"]] {
        test "replicaof in the config file: the node syncs at startup" {
            repl_wait_synced -1 0
            assert_equal 1 [r get cfgkey]
            assert_equal slave [lindex [r role] 0]
        }
    }
}

# ---------------------------------------------------------------- repl-diskless-load modes

foreach mode {disabled swapdb} {
    start_server {tags {repl} config {repl-diskless-sync-delay 0 dbfilename primary.rdb}} {
        start_server [list tags {repl} config [list repl-diskless-load $mode dbfilename replica.rdb]] {
            test "repl-diskless-load $mode: full sync loads the primary's data" {
                repl_fill -1
                r replicaof 127.0.0.1 [srv -1 port]
                repl_wait_synced -1 0
                set on_disk [file exists [file join [srv 0 dir] replica.rdb]]
                if {$mode eq "disabled"} {
                    # The snapshot went through a temp file that became dbfilename.
                    assert_equal 1 $on_disk
                } else {
                    # Received in memory and swapped in: nothing written.
                    assert_equal 0 $on_disk
                }
                assert_equal {} [glob -nocomplain -directory [srv 0 dir] temp-*.rdb]
            }
        }
    }
}

# ---------------------------------------------------------------- a full sync in progress

start_server {tags {repl} overrides {repl-diskless-sync no}} {
    start_server {} {
        test "INFO replication during a disk-based full sync, and after it" {
            # 300 keys of 1 KB, 5 ms each: a BGSAVE of about 1.5 s, whose file the replica
            # reads as it is written (EOF-marked form: the "$EOF:" line comes at the start).
            for {set i 0} {$i < 300} {incr i} { r -1 set k$i [string repeat v 1000] }
            r -1 config set rdbcompression no
            r -1 config set rdb-key-save-delay 5000
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 200 10 {[rinfo 0 master_sync_in_progress] == 1 &&
                [rinfo 0 master_sync_read_bytes] > 0}
            set ri [r info replication]
            assert_equal 1 [rinfo -1 rdb_bgsave_in_progress] "the snapshot ended too early"
            assert_equal 0 [info_field $ri master_sync_total_bytes]
            set read [info_field $ri master_sync_read_bytes]
            assert_morethan $read 0
            assert_equal [expr {-$read}] [info_field $ri master_sync_left_bytes]
            assert_equal 0.00 [info_field $ri master_sync_perc]
            assert_range [info_field $ri master_sync_last_io_seconds_ago] 0 2
            assert_equal down [info_field $ri master_link_status]
            # Valkey 8's name while the snapshot's child runs (the file goes out meanwhile)
            assert_match "*slave0:*state=wait_bgsave*" [r -1 info replication]
            r -1 config set rdb-key-save-delay 0
            repl_wait_synced -1 0
            # Once synced the transfer fields are gone, as in Valkey.
            set ri [r info replication]
            assert_equal 0 [info_field $ri master_sync_in_progress]
            foreach f {total_bytes read_bytes left_bytes perc last_io_seconds_ago} {
                assert_equal {} [info_field $ri master_sync_$f] "master_sync_$f still shown"
            }
            assert_equal 300 [r dbsize]
            assert_equal [r -1 debug digest] [r debug digest]
        }
    }
}

# A disk-based sync sent while its file is written: the snapshot child killed midway. The
# replica has part of a payload that will not end: the link is closed, its data stays as it
# was, the partial file on the primary is removed, and the next sync completes.
start_server {tags {repl} overrides {repl-diskless-sync no rdbcompression no}} {
    start_server {} {
        test "Disk-based sync read while written: the snapshot child killed, the replica keeps its data, retries" {
            r set mine 1
            for {set i 0} {$i < 300} {incr i} { r -1 set k$i [string repeat v 1000] }
            r -1 config set rdb-key-save-delay 20000   ;# 6 s
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 300 10 {[rinfo 0 master_sync_read_bytes] > 0} else {
                fail "the replica never read the file as it was written"
            }
            set child [server_children -1]
            exec kill -9 $child
            wait_for_log "*SYNC failed. BGSAVE child returned an error*" 100 50 -1
            # The replica is back, reading the next (slow) snapshot: its data is untouched.
            # (a second child, not merely none: the first may be gone before the next forks)
            wait_for_condition 300 10 {[rinfo 0 master_sync_read_bytes] > 0 &&
                [set child2 [server_children -1]] ne {} && $child2 ne $child} else {
                fail "no second sync"
            }
            assert_equal 1 [r get mine]
            assert_equal 1 [r dbsize]
            r -1 config set rdb-key-save-delay 0
            exec kill -9 $child2
            repl_wait_synced -1 0
            assert_equal 300 [r dbsize]
            assert_equal [r -1 debug digest] [r debug digest]
            assert_equal {} [glob -nocomplain -directory [srv -1 dir] temp-*.rdb]
        }
    }
}

# ---------------------------------------------------------------- the diskless child of a dead node

start_server {tags {repl} overrides {repl-diskless-sync yes repl-diskless-sync-delay 0}} {
    start_server {} {
        test "The diskless sync child stops when its node is killed with SIGKILL" {
            for {set i 0} {$i < 3} {incr i} { r -1 set k$i $i }
            # 10 s per key: a child that lost its reader only notices on its next write
            r -1 config set rdb-key-save-delay 10000000
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_log "*Starting BGSAVE for SYNC with target: replicas sockets*" 100 50 -1
            set child [server_children -1]
            assert_equal 1 [llength $child] "one child: '$child'"
            kill_server -1
            # Without the parent-death signal it would sleep on until its next write.
            wait_for_condition 100 50 {![::srv::alive $child]} else {
                ::testutil::fail "the diskless child $child still runs 5 s after its node died"
            }
            r replicaof no one
        }
    }
}

# ---------------------------------------------------------------- restart from the replica's own snapshot

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server [list tags {repl} overrides [list replicaof "127.0.0.1 [srv 0 port]"]] {
        test "A replica restarted from its dump.rdb continues its primary's stream by partial resync" {
            repl_fill -1
            repl_wait_synced -1 0
            r -1 set before:save 1
            repl_wait_synced -1 0
            assert_equal OK [r save]
            set full [info_field [r -1 info stats] sync_full]
            set partial [info_field [r -1 info stats] sync_partial_ok]
            # written after the snapshot: it comes again by PSYNC, from the snapshot's offset
            r -1 set after:save 1
            repl_wait_synced -1 0
            restart_server
            repl_wait_synced -1 0
            assert_equal $full [info_field [r -1 info stats] sync_full] "a full sync"
            assert_equal [expr {$partial + 1}] [info_field [r -1 info stats] sync_partial_ok]
            assert_equal 1 [r get after:save]
        }
    }
}

# A replica made by REPLICAOF, its config rewritten, restarted: it follows the same primary
# (Valkey 8 writes the live replicaof into the file), by partial resync from its snapshot.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl} overrides {save {900 1}}} {
        proc repl_conf_lines {name} {
            set f [open [srv config_file]]
            set lines [lsearch -all -inline -regexp [split [read $f] "\n"] "^$name "]
            close $f
            return $lines
        }
        test "CONFIG GET and CONFIG REWRITE give the primary REPLICAOF set; a restart keeps following it" {
            assert_equal {replicaof {}} [r config get replicaof]
            r replicaof 127.0.0.1 [srv -1 port]
            repl_wait_synced -1 0
            assert_equal [list replicaof "127.0.0.1 [srv -1 port]"] [r config get replicaof]
            assert_equal OK [r config rewrite]
            assert_equal [list "replicaof 127.0.0.1 [srv -1 port]"] [repl_conf_lines replicaof]
            r -1 set before:restart 1
            repl_wait_synced -1 0
            set full [info_field [r -1 info stats] sync_full]
            set partial [info_field [r -1 info stats] sync_partial_ok]
            restart_server  ;# SIGTERM: the save point saves the snapshot with its offset
            repl_wait_synced -1 0
            assert_equal [list replicaof "127.0.0.1 [srv -1 port]"] [r config get replicaof]
            assert_equal $full [info_field [r -1 info stats] sync_full] "a full sync"
            assert_equal [expr {$partial + 1}] [info_field [r -1 info stats] sync_partial_ok]
            assert_equal 1 [r get before:restart]
        }
        test "REPLICAOF NO ONE then CONFIG REWRITE drops the replicaof line" {
            r replicaof no one
            assert_equal {replicaof {}} [r config get replicaof]
            assert_equal OK [r config rewrite]
            assert_equal {} [repl_conf_lines replicaof]
            restart_server
            assert_equal master [info_field [r info replication] role]
        }
    }
}

# A chain P -> R -> S. P restarted from its snapshot (saved at SIGTERM) keeps the recorded
# history as its secondary ID, as Valkey 8 does, so R continues by PSYNC; R, told the new ID in
# +CONTINUE, makes S reconnect, and S continues by PSYNC with R. Keys the snapshot held already
# expired are left out of P's load and deleted on R and S by the stream.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0 save {3600 1}}} {
    start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
        start_server {tags {repl}} {
            r -1 replicaof 127.0.0.1 [srv -2 port]
            repl_wait_link_up -1
            r replicaof 127.0.0.1 [srv -1 port]
            repl_wait_link_up 0
            proc repl_chain_synced {} {
                repl_wait_synced -2 -1
                repl_wait_synced -1 0
            }
            test "A primary restarted from its snapshot: its replicas continue by PSYNC, keys expired meanwhile are deleted on them" {
                r -2 debug set-active-expire 0
                r -2 set k v
                r -2 set short v px 300
                repl_chain_synced
                set id [rinfo -2 master_replid]
                set off [rinfo -2 master_repl_offset]
                r -1 config resetstat
                after 400  ;# short has expired; nothing deletes it before the restart
                restart_server 1 -2
                repl_wait_link_up -1
                repl_wait_link_up 0
                repl_chain_synced
                assert {[rinfo -2 master_replid] ne $id}
                assert_equal $id [rinfo -2 master_replid2]
                # up to the snapshot's offset: ours when read, or a little more (the shutdown's
                # REPLCONF GETACK to the replica goes into the stream)
                assert_morethan [rinfo -2 second_repl_offset] $off
                assert_equal 1 [rinfo -2 rdb_last_load_keys_expired]
                assert_equal {1 0} [list [rinfo -2 sync_partial_ok] [rinfo -2 sync_full]]
                assert_equal {1 0} [list [rinfo -1 sync_partial_ok] [rinfo -1 sync_full]]
                assert_equal [rinfo -2 master_replid] [rinfo 0 master_replid]
                # the UNLINK of short went down the chain (replicas never expire keys themselves)
                assert_equal {1 1 1} [list [r -2 dbsize] [r -1 dbsize] [r dbsize]]
                assert_equal v [r get k]
            }
            test "PSYNC with the secondary ID is refused one byte past where it holds" {
                set id [rinfo -2 master_replid2]
                set upto [rinfo -2 second_repl_offset]
                foreach {from want} [list [expr {$upto + 1}] "+FULLRESYNC*" $upto "+CONTINUE*"] {
                    set fd [valkey_raw -2]
                    puts -nonewline $fd "PSYNC $id $from\r\n"
                    flush $fd
                    fconfigure $fd -blocking 1
                    set line [gets $fd]
                    close $fd
                    assert_match $want $line "PSYNC from $from (held up to $upto)"
                }
                repl_wait_link_up -1
            }
            test "A replica that syncs in full makes its own replicas sync in full again" {
                # P killed and started without its snapshot: a history R cannot continue
                catch {exec kill -KILL [srv -2 pid]}
                while {[::srv::alive [srv -2 pid]]} { after 10 }
                file delete [file join [srv -2 dir] dump.rdb]
                r -1 config resetstat
                restart_server 1 -2
                r -2 set fresh 1
                repl_wait_link_up -1
                repl_wait_link_up 0
                repl_chain_synced
                assert_equal {0 1} [list [r exists k] [r get fresh]]
                assert_equal 1 [r dbsize]
                assert_equal 1 [rinfo -1 sync_full]
            }
        }
    }
}

# ---------------------------------------------------------------- replica-lazy-flush

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        start_server {} {
            set A -2
            set B -1
            set R 0
            proc rlf_freed {} {
                wait_for_condition 200 10 {[s lazyfree_pending_objects] == 0} else {
                    fail "lazy-free jobs still pending on the replica"
                }
                return [s lazyfreed_objects]
            }
            test "replica-lazy-flush: the data a full sync replaces is freed on the lazy-free thread, from disk or memory" {
                r -2 debug populate 500 a
                r -1 debug populate 10 b
                assert_equal {replica-lazy-flush yes} [r config get replica-lazy-flush]
                foreach load {disabled swapdb} {
                    r replicaof no one
                    r flushall sync
                    r config set repl-diskless-load $load
                    r replicaof 127.0.0.1 [srv -2 port]
                    repl_wait_synced $A $R
                    assert_equal 500 [r dbsize]
                    set freed [rlf_freed]
                    r replicaof 127.0.0.1 [srv -1 port]
                    repl_wait_synced $B $R
                    assert_equal 10 [r dbsize]
                    assert_equal [expr {$freed + 500}] [rlf_freed]
                    # With no, freed in place.
                    r config set replica-lazy-flush no
                    r replicaof 127.0.0.1 [srv -2 port]
                    repl_wait_synced $A $R
                    assert_equal 500 [r dbsize]
                    assert_equal [expr {$freed + 500}] [rlf_freed]
                    r config set replica-lazy-flush yes
                }
                r replicaof no one
            }
        }
    }
}

# An error replied on a replication link means a replica's data may no longer be its
# primary's. As Valkey 8: the replica logs "== CRITICAL == This replica is sending an error to
# its primary: ..." (the message as written: "-CODE ..." or a plain ERR's text alone) and counts INFO unexpected_error_replies, and with
# propagation-error-behavior panic or panic-on-replicas a read-only replica stops rather than
# go on diverged; an error replayed from the AOF is logged the same way. DEBUG REPLICATE (Valkey
# 8's) sends a command down the stream without running it.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {overrides {repl-diskless-sync-delay 0}} {
        set pport [srv -1 port]
        test "An error the primary's stream causes: logged as CRITICAL, counted, and the stream goes on" {
            r replicaof 127.0.0.1 $pport
            repl_wait_synced -1 0
            assert_equal 0 [info_field [r info stats] unexpected_error_replies]
            assert_equal OK [r -1 debug replicate fake-command-1 x]
            assert_equal OK [r -1 set foo bar]
            repl_wait_synced -1 0
            assert_equal bar [r get foo]
            assert_equal 1 [info_field [r info stats] unexpected_error_replies]
            assert {[log_contains "*== CRITICAL == This replica is sending an error to its primary: 'unknown command 'fake-command-1', with args beginning with: 'x' ' after processing the command '<unknown>'*"]}
            # a known command failing: its name is logged
            r -1 set s str
            r -1 debug replicate lpush s x
            repl_wait_synced -1 0
            assert_equal 2 [info_field [r info stats] unexpected_error_replies]
            assert {[log_contains "*This replica is sending an error to its primary: '-WRONGTYPE Operation against a key holding the wrong kind of value' after processing the command 'lpush'*"]}
        }

        test "propagation-error-behavior panic-on-replicas: a read-only replica stops on it" {
            r replicaof 127.0.0.1 $pport
            repl_wait_synced -1 0
            assert_equal OK [r config set propagation-error-behavior panic-on-replicas]
            set pid [srv pid]
            r -1 debug replicate fake-command-2
            wait_for_condition 100 50 {![::srv::alive $pid]} else {
                fail "the replica did not stop"
            }
            assert {[log_contains "*This replica panicked sending an error to its primary after processing the command '<unknown>'*"]}
            restart_server
            assert_equal ignore [lindex [r config get propagation-error-behavior] 1]
        }
    }
}

start_server {tags {aof} overrides {appendonly yes}} {
    test "An error replayed from the AOF is logged as CRITICAL and counted" {
        r set s str
        r lpush l a
        set incr [lindex [glob -directory [file join [srv dir] appendonlydir] *.incr.aof] 0]
        catch {exec kill -KILL [srv pid]}
        while {[::srv::alive [srv pid]]} { after 10 }
        set fd [open $incr ab]
        puts -nonewline $fd "*3\r\n\$5\r\nlpush\r\n\$1\r\ns\r\n\$1\r\nx\r\n"
        close $fd
        restart_server
        assert_equal {a} [r lrange l 0 -1]
        assert {[log_contains "*== CRITICAL == This server is sending an error to its AOF-loading-client: '-WRONGTYPE Operation against a key holding the wrong kind of value' after processing the command 'lpush'*"]}
        assert_equal 1 [info_field [r info stats] unexpected_error_replies]
    }
}
