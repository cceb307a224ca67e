# Where every command's keys are: COMMAND GETKEYS and GETKEYSANDFLAGS against Valkey 8.0's
# answers for the same arguments (facts recorded from Valkey 8.0.1), one row per command with
# keys plus the movable-key forms (numkeys, keywords, options that change the flags), commands
# without keys and the error cases. COMMAND INFO's key specs come from the same table.

# argv, then the expected GETKEYS and GETKEYSANDFLAGS replies: "ok <reply>" or "err <error>".
set ::getkeys_rows {
    {append k1 k2} {ok k1} {ok {{k1 {RW insert}}}}
    {bitcount k1 0 1 BIT} {ok k1} {ok {{k1 {RO access}}}}
    {bitfield k1 get u8 0} {ok k1} {ok {{k1 {RO access}}}}
    {bitfield k1 get u8 0 incrby u8 0 1} {ok k1} {ok {{k1 {RW access update}}}}
    {bitfield_ro k1 get u8 0} {ok k1} {ok {{k1 {RO access}}}}
    {bitop and d a b c} {ok {d a b c}} {ok {{d {OW update}} {a {RO access}} {b {RO access}} {c {RO access}}}}
    {bitpos k1 1} {ok k1} {ok {{k1 {RO access}}}}
    {blmove a b LEFT RIGHT 0} {ok {a b}} {ok {{a {RW access delete}} {b {RW insert}}}}
    {blmpop 0 2 a b LEFT} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {blmpop 1.5 1 a RIGHT} {ok a} {ok {{a {RW access delete}}}}
    {blpop a 0} {ok a} {ok {{a {RW access delete}}}}
    {blpop a b c 0} {ok {a b c}} {ok {{a {RW access delete}} {b {RW access delete}} {c {RW access delete}}}}
    {brpop a b 0} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {brpoplpush a b 0} {ok {a b}} {ok {{a {RW access delete}} {b {RW insert}}}}
    {bzmpop 0 2 a b MIN} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {bzpopmax a 0} {ok a} {ok {{a {RW access delete}}}}
    {bzpopmin a b 0} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {copy a b} {ok {a b}} {ok {{a {RO access}} {b {OW update}}}}
    {copy a b DB 1 REPLACE} {ok {a b}} {ok {{a {RO access}} {b {OW update}}}}
    {decr k1} {ok k1} {ok {{k1 {RW access update}}}}
    {decrby k1 k2} {ok k1} {ok {{k1 {RW access update}}}}
    {del a b} {ok {a b}} {ok {{a {RM delete}} {b {RM delete}}}}
    {dump k1} {ok k1} {ok {{k1 {RO access}}}}
    {exists a b a} {ok {a b a}} {ok {{a RO} {b RO} {a RO}}}
    {expire k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {expireat k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {expiretime k1} {ok k1} {ok {{k1 {RO access}}}}
    {get k1} {ok k1} {ok {{k1 {RO access}}}}
    {getbit k1 0} {ok k1} {ok {{k1 {RO access}}}}
    {getdel k1} {ok k1} {ok {{k1 {RW access delete}}}}
    {getex a} {ok a} {ok {{a {RW access update}}}}
    {getex a PERSIST} {ok a} {ok {{a {RW access update}}}}
    {getrange k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {getset k1 k2} {ok k1} {ok {{k1 {RW access update}}}}
    {hdel k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {hexists k1 k2} {ok k1} {ok {{k1 RO}}}
    {hget k1 k2} {ok k1} {ok {{k1 {RO access}}}}
    {hgetall k1} {ok k1} {ok {{k1 {RO access}}}}
    {hincrby k1 k2 k3} {ok k1} {ok {{k1 {RW access update}}}}
    {hincrbyfloat k1 k2 k3} {ok k1} {ok {{k1 {RW access update}}}}
    {hkeys k1} {ok k1} {ok {{k1 {RO access}}}}
    {hlen k1} {ok k1} {ok {{k1 RO}}}
    {hmget k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {hmset k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {hrandfield k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {hscan k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {hset k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {hsetnx k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {hstrlen k1 k2} {ok k1} {ok {{k1 RO}}}
    {hvals k1} {ok k1} {ok {{k1 {RO access}}}}
    {incr k1} {ok k1} {ok {{k1 {RW access update}}}}
    {incrby k1 k2} {ok k1} {ok {{k1 {RW access update}}}}
    {incrbyfloat k1 k2} {ok k1} {ok {{k1 {RW access update}}}}
    {lcs a b IDX} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {lindex k1 k2} {ok k1} {ok {{k1 {RO access}}}}
    {linsert k1 k2 k3 k4} {ok k1} {ok {{k1 {RW insert}}}}
    {llen k1} {ok k1} {ok {{k1 RO}}}
    {lmove a b LEFT RIGHT} {ok {a b}} {ok {{a {RW access delete}} {b {RW insert}}}}
    {lmpop 2 a b LEFT} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {lmpop 1 a RIGHT COUNT 2} {ok a} {ok {{a {RW access delete}}}}
    {lmpop 0 a LEFT} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {lpop k1 k2 k3} {ok k1} {ok {{k1 {RW access delete}}}}
    {lpos k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {lpush k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {lpushx k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {lrange k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {lrem k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {lset k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {ltrim k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {memory usage a} {ok a} {ok {{a RO}}}
    {memory usage a SAMPLES 5} {ok a} {ok {{a RO}}}
    {mget a b c} {ok {a b c}} {ok {{a {RO access}} {b {RO access}} {c {RO access}}}}
    {migrate h p k 0 5} {ok k} {ok {{k {RW access delete}}}}
    {migrate h p k 0 5 COPY} {ok k} {ok {{k {RW access delete}}}}
    {migrate h p {} 0 5} {ok {{}}} {ok {{{} {RW access delete}}}}
    {migrate h p {} 0 5 KEYS a b} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {migrate h p {} 0 5 KEYS} {ok {{}}} {ok {{{} {RW access delete}}}}
    {migrate h p {} 0 5 foo KEYS a} {ok a} {ok {{a {RW access delete}}}}
    {migrate h p {} 0 5 COPY REPLACE AUTH keys KEYS a} {ok a} {ok {{a {RW access delete}}}}
    {migrate h p {} 0 5 AUTH2 u KEYS KEYS a} {ok a} {ok {{a {RW access delete}}}}
    {migrate h p {} 0 5 AUTH2 a KEYS KEYS b c} {ok {b c}} {ok {{b {RW access delete}} {c {RW access delete}}}}
    {migrate h p k 0 5 AUTH KEYS} {ok k} {ok {{k {RW access delete}}}}
    {migrate h p k 0 5 KEYS a b} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {migrate h p k 0} {err {ERR Invalid number of arguments specified for command}} {err {ERR Invalid number of arguments specified for command}}
    {move k1 k2} {ok k1} {ok {{k1 {RW access update}}}}
    {mset a 1 b 2 c 3} {ok {a b c}} {ok {{a {OW update}} {b {OW update}} {c {OW update}}}}
    {msetnx a 1 b 2} {ok {a b}} {ok {{a {OW insert}} {b {OW insert}}}}
    {object encoding a} {ok a} {ok {{a RO}}}
    {object refcount k1} {ok k1} {ok {{k1 RO}}}
    {object idletime k1} {ok k1} {ok {{k1 RO}}}
    {object freq k1} {ok k1} {ok {{k1 RO}}}
    {persist k1} {ok k1} {ok {{k1 {RW update}}}}
    {pexpire k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {pexpireat k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {pexpiretime k1} {ok k1} {ok {{k1 {RO access}}}}
    {psetex k1 k2 k3} {ok k1} {ok {{k1 {OW update}}}}
    {pttl k1} {ok k1} {ok {{k1 {RO access}}}}
    {rename a b} {ok {a b}} {ok {{a {RW access delete}} {b {OW update}}}}
    {renamenx a b} {ok {a b}} {ok {{a {RW access delete}} {b {OW insert}}}}
    {restore k1 k2 k3} {ok k1} {ok {{k1 {OW update}}}}
    {restore-asking k1 k2 k3} {ok k1} {ok {{k1 {OW update}}}}
    {rpop k1 k2 k3} {ok k1} {ok {{k1 {RW access delete}}}}
    {rpoplpush a b} {ok {a b}} {ok {{a {RW access delete}} {b {RW insert}}}}
    {rpush k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {rpushx k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {sadd k1 k2 k3} {ok k1} {ok {{k1 {RW insert}}}}
    {scard k1} {ok k1} {ok {{k1 RO}}}
    {sdiff a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {sdiffstore d a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {set a v} {ok a} {ok {{a {OW update}}}}
    {set a v GET} {ok a} {ok {{a {RW access update}}}}
    {set a v EX 10 get} {ok a} {ok {{a {RW access update}}}}
    {set a v NX} {ok a} {ok {{a {OW update}}}}
    {setbit k1 0 1} {ok k1} {ok {{k1 {RW access update}}}}
    {setex k1 k2 k3} {ok k1} {ok {{k1 {OW update}}}}
    {setnx k1 k2} {ok k1} {ok {{k1 {OW insert}}}}
    {setrange k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {sinter a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {sintercard 2 a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {sintercard 1 a LIMIT 0} {ok a} {ok {{a {RO access}}}}
    {sinterstore d a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {sismember k1 k2} {ok k1} {ok {{k1 RO}}}
    {smembers k1} {ok k1} {ok {{k1 {RO access}}}}
    {smismember k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {smove a b m} {ok {a b}} {ok {{a {RW access delete}} {b {RW insert}}}}
    {spop k1 k2 k3} {ok k1} {ok {{k1 {RW access delete}}}}
    {spublish k1 k2} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {srandmember k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {srem k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {sscan k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {ssubscribe k1 k2 k3} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {strlen k1} {ok k1} {ok {{k1 RO}}}
    {substr k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {sunion a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {sunionstore d a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {sunsubscribe k1 k2 k3} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {touch a b} {ok {a b}} {ok {{a RO} {b RO}}}
    {ttl k1} {ok k1} {ok {{k1 {RO access}}}}
    {type k1} {ok k1} {ok {{k1 RO}}}
    {unlink a b} {ok {a b}} {ok {{a {RM delete}} {b {RM delete}}}}
    {watch a b} {ok {a b}} {ok {{a RO} {b RO}}}
    {zadd k1 k2 k3} {ok k1} {ok {{k1 {RW update}}}}
    {zcard k1} {ok k1} {ok {{k1 RO}}}
    {zcount k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zdiff 2 a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zdiffstore d 2 a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {zincrby k1 k2 k3} {ok k1} {ok {{k1 {RW access update}}}}
    {zinter 2 a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zinter 1 a} {ok a} {ok {{a {RO access}}}}
    {zintercard 2 a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zintercard 2 a b LIMIT 1} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zinterstore d 2 a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {zinterstore d 1 a AGGREGATE MAX} {ok {d a}} {ok {{d {OW update}} {a {RO access}}}}
    {zlexcount k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zmpop 2 a b MIN} {ok {a b}} {ok {{a {RW access delete}} {b {RW access delete}}}}
    {zmpop 1 a MAX COUNT 3} {ok a} {ok {{a {RW access delete}}}}
    {zmscore k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zpopmax k1 k2 k3} {ok k1} {ok {{k1 {RW access delete}}}}
    {zpopmin k1 k2 k3} {ok k1} {ok {{k1 {RW access delete}}}}
    {zrandmember k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrange k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrangebylex k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrangebyscore k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrangestore d src 0 -1} {ok {d src}} {ok {{d {OW update}} {src {RO access}}}}
    {zrank k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrem k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {zremrangebylex k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {zremrangebyrank k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {zremrangebyscore k1 k2 k3} {ok k1} {ok {{k1 {RW delete}}}}
    {zrevrange k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrevrangebylex k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrevrangebyscore k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zrevrank k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zscan k1 k2 k3} {ok k1} {ok {{k1 {RO access}}}}
    {zscore k1 k2} {ok k1} {ok {{k1 {RO access}}}}
    {zunion 2 a b} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zunion 2 a b WITHSCORES} {ok {a b}} {ok {{a {RO access}} {b {RO access}}}}
    {zunion 3 a b} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {zunionstore d 2 a b} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {zunionstore d 2 a b WEIGHTS 1 2} {ok {d a b}} {ok {{d {OW update}} {a {RO access}} {b {RO access}}}}
    {zunionstore d 0 a} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {zunionstore d 3 a b} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {zunionstore d x a} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    {zunionstore d -1 a} {err {ERR Invalid arguments specified for command}} {err {ERR Invalid arguments specified for command}}
    ping {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {select 0} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {config get x} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    flushall {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    info {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    multi {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {publish ch m} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {spublish ch m} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {ssubscribe ch} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {client list} {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    get {err {ERR Invalid number of arguments specified for command}} {err {ERR Invalid number of arguments specified for command}}
    {nosuchcmd a} {err {ERR Invalid command specified}} {err {ERR Invalid command specified}}
    {object nosuchsub a} {err {ERR Invalid command specified}} {err {ERR Invalid command specified}}
    object {err {ERR The command has no key arguments}} {err {ERR The command has no key arguments}}
    {set a} {err {ERR Invalid number of arguments specified for command}} {err {ERR Invalid number of arguments specified for command}}
    {zadd a} {err {ERR Invalid number of arguments specified for command}} {err {ERR Invalid number of arguments specified for command}}
}

proc getkeys_reply {args} {
    if {[catch {r {*}$args} got]} { return [list err $got] }
    return [list ok $got]
}

start_server {tags {command keys}} {
    test "COMMAND GETKEYS and GETKEYSANDFLAGS answer as Valkey 8 for every command" {
        set n 0
        foreach {argv keys keyflags} $::getkeys_rows {
            assert_equal $keys [getkeys_reply command getkeys {*}$argv] "GETKEYS $argv"
            assert_equal $keyflags [getkeys_reply command getkeysandflags {*}$argv] \
                "GETKEYSANDFLAGS $argv"
            incr n
        }
        assert_equal 200 $n
    }

    test "COMMAND INFO: key specs and the legacy triple derived from them" {
        # ZUNIONSTORE: the destination, then numkeys keys; the triple covers only the first.
        set info [lindex [r command info zunionstore] 0]
        assert_equal {1 1 1} [lrange $info 3 5]
        assert {"movablekeys" in [lindex $info 2]}
        assert_equal {{flags {OW update} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RO access} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} [lindex $info 8]
        # MSET: every other argument from the first.
        set info [lindex [r command info mset] 0]
        assert_equal {1 -1 2} [lrange $info 3 5]
        assert {"movablekeys" ni [lindex $info 2]}
        # BLPOP: all but the timeout. SET: variable flags.
        assert_equal {1 -2 1} [lrange [lindex [r command info blpop] 0] 3 5]
        assert_equal {RW access update variable_flags} [dict get [lindex [lindex [r command info set] 0] 8 0] flags]
        # MIGRATE: the key argument, and the keys after KEYS (incomplete: a key function
        # decides); the triple covers the first only.
        set info [lindex [r command info migrate] 0]
        assert_equal {migrate -6 {write movablekeys} 3 3 1} [lrange $info 0 5]
        assert_equal {{flags {RW access delete} begin_search {type index spec {index 3}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RW access delete incomplete} begin_search {type keyword spec {keyword KEYS startfrom -2}} find_keys {type range spec {lastkey -1 keystep 1 limit 0}}}} [lindex $info 8]
        # No keys: no specs, a zero triple.
        set info [lindex [r command info ping] 0]
        assert_equal {0 0 0} [lrange $info 3 5]
        assert_equal {} [lindex $info 8]
    }

    test "COMMAND INFO: the tips cluster clients route by, as Valkey 8 lists them" {
        # Clients that read them send these to every shard (or every node) and merge the replies.
        assert_equal {request_policy:all_shards response_policy:agg_sum} [lindex [r command info dbsize] 0 7]
        assert_equal {request_policy:all_shards nondeterministic_output_order} [lindex [r command info keys] 0 7]
        assert_equal {request_policy:multi_shard response_policy:agg_sum} [lindex [r command info del] 0 7]
        assert_equal {request_policy:all_shards response_policy:all_succeeded} [lindex [r command info flushall] 0 7]
        assert_equal {nondeterministic_output request_policy:special response_policy:special} [lindex [r command info scan] 0 7]
        assert_equal {request_policy:all_nodes response_policy:all_succeeded} [lindex [r command info config|set] 0 7]
        assert_equal {request_policy:all_shards response_policy:agg_min} [lindex [r command info wait] 0 7]
        assert_equal {} [lindex [r command info get] 0 7]
    }
}
