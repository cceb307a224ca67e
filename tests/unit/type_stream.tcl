# Streams: XADD (IDs, NOMKSTREAM, MAXLEN/MINID with = and ~, LIMIT), XRANGE/XREVRANGE, XLEN,
# XDEL, XTRIM, XSETID, XREAD/XREADGROUP (BLOCK through the blocking registry), consumer groups
# (XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM), XINFO, what replicas receive, keyspace events.
# The replies of the sessions below were recorded from Valkey 8.0.1 (replies that depend on the
# clock are left out or use explicit IDs).

proc stream_session {pairs} {
    foreach {cmd want} $pairs {
        if {[catch {r {*}$cmd} got]} { set got [list ERROR $got] }
        assert_equal $want $got $cmd
    }
}

start_server {tags {stream}} {
    test "Streams: IDs, ranges, trimming and XSETID (session recorded from Valkey 8.0.1)" {
        r flushall
        stream_session {
            {xadd s 1-1 a 1} 1-1
            {xadd s 1-2 a 2 b 3} 1-2
            {xadd s 2-* c 4} 2-0
            {xrange s - + COUNT 0} {}
            {xrange s - + COUNT -1} {}
            {xrange s (1-1 +} {{1-2 {a 2 b 3}} {2-0 {c 4}}}
            {xrange s - (2-0} {{1-1 {a 1}} {1-2 {a 2 b 3}}}
            {xrange s ( +} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xrange s (- +} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xrange s - (+} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xrange s 1 1} {{1-1 {a 1}} {1-2 {a 2 b 3}}}
            {xrevrange s + - COUNT 2} {{2-0 {c 4}} {1-2 {a 2 b 3}}}
            {xadd s 1-1 a 1} {ERROR {ERR The ID specified in XADD is equal or smaller than the target stream top item}}
            {xadd s 0-0 a 1} {ERROR {ERR The ID specified in XADD must be greater than 0-0}}
            {xadd s 0-* a 1} {ERROR {ERR The ID specified in XADD is equal or smaller than the target stream top item}}
            {xadd s 2-* a} {ERROR {ERR wrong number of arguments for 'xadd' command}}
            {xadd s MAXLEN} {ERROR {ERR wrong number of arguments for 'xadd' command}}
            {xadd s MAXLEN 5} {ERROR {ERR wrong number of arguments for 'xadd' command}}
            {xadd s MAXLEN -1 * a 1} {ERROR {ERR The MAXLEN argument must be >= 0.}}
            {xadd s MAXLEN 1 MINID 0 * a 1} {ERROR {ERR syntax error, MAXLEN and MINID options at the same time are not compatible}}
            {xadd s LIMIT 5 * a 1} {ERROR {ERR syntax error, LIMIT cannot be used without specifying a trimming strategy}}
            {xadd s MAXLEN = 1 LIMIT 5 * a 1} {ERROR {ERR syntax error, LIMIT cannot be used without the special ~ option}}
            {xadd s NOMKSTREAM foo a 1} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xadd nokey NOMKSTREAM * a 1} {}
            {xinfo stream s} {length 3 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 2-0 max-deleted-entry-id 0-0 entries-added 3 recorded-first-entry-id 1-1 groups 0 first-entry {1-1 {a 1}} last-entry {2-0 {c 4}}}
            {xdel s 1-2 9-9} 1
            {xinfo stream s} {length 2 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 2-0 max-deleted-entry-id 1-2 entries-added 3 recorded-first-entry-id 1-1 groups 0 first-entry {1-1 {a 1}} last-entry {2-0 {c 4}}}
            {xsetid s 1-1} {ERROR {ERR The ID specified in XSETID is smaller than current max_deleted_entry_id}}
            {xsetid s 5-5 ENTRIESADDED 1} {ERROR {ERR The entries_added specified in XSETID is smaller than the target stream length}}
            {xsetid s 5-5 MAXDELETEDID 6-6} {ERROR {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id}}
            {xsetid s 5-5 ENTRIESADDED 10 MAXDELETEDID 3-0} OK
            {xinfo stream s} {length 2 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 5-5 max-deleted-entry-id 3-0 entries-added 10 recorded-first-entry-id 1-1 groups 0 first-entry {1-1 {a 1}} last-entry {2-0 {c 4}}}
            {xtrim s MAXLEN 0} 2
            {xinfo stream s} {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 5-5 max-deleted-entry-id 3-0 entries-added 10 recorded-first-entry-id 0-0 groups 0 first-entry {} last-entry {}}
            {xtrim s} {ERROR {ERR wrong number of arguments for 'xtrim' command}}
            {xtrim s foo 1} {ERROR {ERR syntax error}}
            {xtrim nokey MAXLEN 1} 0
            {xlen s} 0
            {type s} stream
            {object encoding s} stream
            {xadd s 18446744073709551615-18446744073709551615 a 1} 18446744073709551615-18446744073709551615
            {xadd s * a 1} {ERROR {ERR The stream has exhausted the last possible ID, unable to add more items}}
            {xrange s -1 +} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xrange s 1-abc +} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xrange s +5 +} {{18446744073709551615-18446744073709551615 {a 1}}}
            {xadd t 1 a 1} 1-0
            {xadd t " 2" a 1} 2-0
            {xadd t 3-18446744073709551615 a 1} 3-18446744073709551615
            {xadd t 3-* a 1} {ERROR {ERR The ID specified in XADD is equal or smaller than the target stream top item}}
            {xrange t - +} {{1-0 {a 1}} {2-0 {a 1}} {3-18446744073709551615 {a 1}}}
        }
    }

    test "Streams: consumer groups (session recorded from Valkey 8.0.1)" {
        r flushall
        stream_session {
            {xadd s 1-1 a 1 b 2} 1-1
            {xadd s 1-2 a 3 b 4} 1-2
            {xadd s 1-3 c 5} 1-3
            {xadd s 2-0 a 6 b 7} 2-0
            {xadd s 3-0 a 8 b 9} 3-0
            {xgroup create s g1 0} OK
            {xgroup create s g1 0} {ERROR {BUSYGROUP Consumer Group name already exists}}
            {xgroup create s g2 $} OK
            {xgroup create nokey g 0} {ERROR {ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.}}
            {xgroup create nokey g 0 MKSTREAM} OK
            {xgroup create s g3 0 ENTRIESREAD 2} OK
            {xgroup create s g4 0 ENTRIESREAD -2} {ERROR {ERR value for ENTRIESREAD must be positive or -1}}
            {xgroup create s g4 0 FOO} {ERROR {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.}}
            {xgroup create s g4 bad} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xinfo groups s} {{name g1 consumers 0 pending 0 last-delivered-id 0-0 entries-read {} lag 5} {name g2 consumers 0 pending 0 last-delivered-id 3-0 entries-read {} lag 0} {name g3 consumers 0 pending 0 last-delivered-id 0-0 entries-read 2 lag 3}}
            {xreadgroup GROUP g1 alice COUNT 2 STREAMS s >} {{s {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}}}}}
            {xreadgroup GROUP g1 bob STREAMS s >} {{s {{1-3 {c 5}} {2-0 {a 6 b 7}} {3-0 {a 8 b 9}}}}}
            {xreadgroup GROUP g1 alice STREAMS s 0} {{s {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}}}}}
            {xreadgroup GROUP g1 alice STREAMS s $} {ERROR {ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.}}
            {xreadgroup GROUP g1 alice STREAMS s +} {ERROR {ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.}}
            {xreadgroup GROUP nog alice STREAMS s >} {ERROR {NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option}}
            {xreadgroup GROUP g1 alice STREAMS s} {ERROR {ERR wrong number of arguments for 'xreadgroup' command}}
            {xreadgroup GROUP g1 alice STREAMS s nokey > >} {ERROR {NOGROUP No such key 'nokey' or consumer group 'g1' in XREADGROUP with GROUP option}}
            {xread STREAMS s 0} {{s {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}} {1-3 {c 5}} {2-0 {a 6 b 7}} {3-0 {a 8 b 9}}}}}
            {xread COUNT 1 STREAMS s 1-1} {{s {{1-2 {a 3 b 4}}}}}
            {xread STREAMS s $} {}
            {xread STREAMS s +} {{s {{3-0 {a 8 b 9}}}}}
            {xread STREAMS s >} {ERROR {ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.}}
            {xread GROUP g a STREAMS s 0} {ERROR {ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.}}
            {xread NOACK STREAMS s 0} {ERROR {ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.}}
            {xread STREAMS s} {ERROR {ERR wrong number of arguments for 'xread' command}}
            {xread COUNT 2} {ERROR {ERR wrong number of arguments for 'xread' command}}
            {xinfo groups s} {{name g1 consumers 2 pending 5 last-delivered-id 3-0 entries-read 5 lag 0} {name g2 consumers 0 pending 0 last-delivered-id 3-0 entries-read {} lag 0} {name g3 consumers 0 pending 0 last-delivered-id 0-0 entries-read 2 lag 3}}
            {xpending s g1} {5 1-1 3-0 {{alice 2} {bob 3}}}
            {xpending s g1 IDLE} {ERROR {ERR syntax error}}
            {xpending s nog} {ERROR {NOGROUP No such key 's' or consumer group 'nog'}}
            {xpending nokey g} {0 {} {} {}}
            {xack s g1 1-1 9-9} 1
            {xack s g1 bad} {ERROR {ERR Invalid stream ID specified as stream command argument}}
            {xack s nog 1-1} 0
            {xpending s g1} {4 1-2 3-0 {{alice 1} {bob 3}}}
            {xclaim s g1 carol 0 1-2 JUSTID} 1-2
            {xclaim s g1 carol 0 1-3} {{1-3 {c 5}}}
            {xclaim s g1 carol 0 1-1 FORCE JUSTID} 1-1
            {xclaim s g1 carol 0 1-1 FOO} {ERROR {ERR Unrecognized XCLAIM option 'FOO'}}
            {xclaim s g1 carol abc 1-1} {ERROR {ERR Invalid min-idle-time argument for XCLAIM}}
            {xclaim s nog carol 0 1-1} {ERROR {NOGROUP No such key 's' or consumer group 'nog'}}
            {xautoclaim s g1 dave 0 0 COUNT 2 JUSTID} {1-3 {1-1 1-2} {}}
            {xautoclaim s g1 dave 0 0 COUNT 0} {ERROR {ERR COUNT must be > 0}}
            {xautoclaim s g1 dave 0 0 BAD} {ERROR {ERR syntax error}}
            {xdel s 2-0} 1
            {xautoclaim s g1 erin 0 0} {0-0 {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}} {1-3 {c 5}} {3-0 {a 8 b 9}}} 2-0}
            {xinfo groups s} {{name g1 consumers 5 pending 4 last-delivered-id 3-0 entries-read 5 lag 0} {name g2 consumers 0 pending 0 last-delivered-id 3-0 entries-read {} lag 0} {name g3 consumers 0 pending 0 last-delivered-id 0-0 entries-read 2 lag {}}}
            {xgroup setid s g1 0} OK
            {xgroup setid s g1 $ ENTRIESREAD 3} OK
            {xgroup setid s nog 0} {ERROR {NOGROUP No such consumer group 'nog' for key name 's'}}
            {xinfo groups s} {{name g1 consumers 5 pending 4 last-delivered-id 3-0 entries-read 3 lag 2} {name g2 consumers 0 pending 0 last-delivered-id 3-0 entries-read {} lag 0} {name g3 consumers 0 pending 0 last-delivered-id 0-0 entries-read 2 lag {}}}
            {xgroup createconsumer s g1 zed} 1
            {xgroup createconsumer s g1 zed} 0
            {xgroup delconsumer s g1 erin} 4
            {xgroup delconsumer s g1 nobody} 0
            {xgroup destroy s g2} 1
            {xgroup destroy s g2} 0
            {xgroup foo s g1} {ERROR {ERR unknown subcommand 'foo'. Try XGROUP HELP.}}
            {xgroup create s g9 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM} {ERROR {ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.}}
            {xinfo stream s full count} {ERROR {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.}}
            {xinfo stream s foo} {ERROR {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.}}
            {xinfo groups nokey2} {ERROR {ERR no such key}}
            {xinfo consumers s nog} {ERROR {NOGROUP No such consumer group 'nog' for key name 's'}}
            {xinfo foo s} {ERROR {ERR unknown subcommand 'foo'. Try XINFO HELP.}}
        }
    }

    test "XRANGE COUNT 0 is a null array, a missing key an empty one; TYPE and OBJECT ENCODING" {
        r flushall
        r xadd s 1-1 a 1
        r readraw 1
        assert_equal {*-1} [r xrange s - + COUNT 0]
        assert_equal {*0} [r xrange nokey - + COUNT 0]
        r readraw 0
        assert_equal stream [r type s]
        assert_equal stream [r object encoding s]
    }

    test "XADD * and ms-* make increasing IDs from the clock" {
        r flushall
        set a [r xadd s * f 1]
        set b [r xadd s * f 2]
        lassign [split $a -] ams aseq
        lassign [split $b -] bms bseq
        assert {$bms > $ams || ($bms == $ams && $bseq == $aseq + 1)}
        assert_equal "$bms-[expr {$bseq + 1}]" [r xadd s $bms-* f 3]
        assert_equal 3 [r xlen s]
    }

    test "Many entries span nodes; XDEL, MAXLEN and MINID trimming stay consistent" {
        r flushall
        for {set i 1} {$i <= 1000} {incr i} { r xadd s $i-0 f [expr {$i % 7}] g v$i }
        assert_equal 1000 [r xlen s]
        assert_equal 10 [dict get [r xinfo stream s] radix-tree-keys]
        assert_equal {{500-0 {f 3 g v500}}} [r xrange s 500 500]
        assert_equal {{1000-0 {f 6 g v1000}} {999-0 {f 5 g v999}}} [r xrevrange s + - COUNT 2]
        assert_equal 1 [r xdel s 500-0]
        assert_equal {} [r xrange s 500 500]
        # Approximate trimming removes whole nodes only.
        assert_equal 0 [r xtrim s MAXLEN ~ 950]
        # 899: the node that held 500-0 counts its 99 live entries.
        assert_equal 899 [r xtrim s MAXLEN ~ 50]
        assert_equal 100 [r xlen s]
        assert_equal 50 [r xtrim s MAXLEN 50]
        assert_equal {951-0} [lindex [r xrange s - + COUNT 1] 0 0]
        assert_equal 10 [r xtrim s MINID 961]
        assert_equal 40 [r xlen s]
        assert_equal 961-0 [dict get [r xinfo stream s] recorded-first-entry-id]
        # LIMIT bounds the approximate work.
        r del s
        for {set i 1} {$i <= 500} {incr i} { r xadd s $i-0 f v }
        assert_equal 100 [r xtrim s MAXLEN ~ 0 LIMIT 100]
        assert_equal 400 [r xlen s]
    }

    test "DEL, RENAME, COPY, MOVE, EXPIRE and DEBUG RELOAD keep streams and their groups" {
        r flushall
        r xadd s 1-1 a 1
        r xadd s 2-1 b 2
        r xgroup create s g 0
        r xreadgroup GROUP g alice COUNT 1 STREAMS s >
        assert_equal OK [r rename s t]
        assert_equal 1 [r copy t u]
        assert_equal [r xinfo groups t] [r xinfo groups u]
        r xack u g 1-1
        assert_equal 1 [lindex [r xpending t g] 0]
        assert_equal 0 [lindex [r xpending u g] 0]
        assert_equal 1 [r move u 1]
        r select 1
        assert_equal {{1-1 {a 1}} {2-1 {b 2}}} [r xrange u - +]
        r select 0
        assert_equal 1 [r expire t 100]
        set before [r xinfo stream t full]
        r debug reload
        assert_equal $before [r xinfo stream t full]
        assert_equal 1 [r del t]
        assert_equal 0 [r exists t]
    }

    test "XREAD BLOCK is woken by XADD; \$ means after what was there when it blocked" {
        r flushall
        r xadd s 1-0 a 1
        set rd [valkey_client]
        $rd deferred 1
        $rd xread BLOCK 0 STREAMS s nokey $ $
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r xadd s 1-1 b 2
        assert_equal {{s {{1-1 {b 2}}}}} [$rd read]
        # An XADD to a key whose ID is not reached leaves the reader blocked.
        $rd xread BLOCK 0 STREAMS s 5-0
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r xadd s 2-0 c 3
        after 50
        assert_equal 1 [s blocked_clients]
        r xadd s 6-0 d 4
        assert_equal {{s {{6-0 {d 4}}}}} [$rd read]
        # A timeout answers a null array.
        $rd xread BLOCK 50 STREAMS s +
        assert_equal {{s {{6-0 {d 4}}}}} [$rd read]
        $rd xread BLOCK 50 STREAMS s $
        assert_equal {} [$rd read]
        $rd close
    }

    test "XREADGROUP BLOCK with > is served by XADD; a destroyed group answers NOGROUP" {
        r flushall
        r xgroup create s g $ MKSTREAM
        set rd [valkey_client]
        $rd deferred 1
        $rd xreadgroup GROUP g alice BLOCK 0 STREAMS s >
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        assert_equal {1 1-0 1-0 {{alice 1}}} [r xpending s g]
        $rd xreadgroup GROUP g alice BLOCK 0 STREAMS s >
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r xgroup destroy s g
        assert_error {NOGROUP*} {$rd read}
        # The stream deleted under a blocked group reader: NOGROUP as well (Valkey 8.0.1).
        r xgroup create s g $
        $rd xreadgroup GROUP g alice BLOCK 0 STREAMS s >
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r del s
        assert_error {NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {$rd read}
        # ...and flushed away (FLUSHALL, FLUSHDB): the reader was left blocked for good.
        foreach flush {flushall flushdb} {
            r xgroup create s g $ MKSTREAM
            $rd xreadgroup GROUP g alice BLOCK 0 STREAMS s >
            wait_for_condition 100 10 {[s blocked_clients] == 1}
            r $flush
            assert_error {NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option} {$rd read}
            assert_equal 0 [s blocked_clients]
        }
        # a BLPOP stays blocked through a FLUSHALL (nothing to pop), then is served
        $rd blpop l 0
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        r flushall
        after 50
        assert_equal 1 [s blocked_clients]
        r lpush l x
        assert_equal {l x} [$rd read]
        $rd close
    }

    test "A BLPOP queued before an XREADGROUP on one key: a DEL ends the group reader, not the BLPOP" {
        r flushall
        set bl [valkey_client]
        set gr [valkey_client]
        $bl deferred 1
        $gr deferred 1
        $bl blpop k 0
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        assert_equal {1 0} [list [s total_blocking_keys] [s total_blocking_keys_on_nokey]]
        r xgroup create k g $ MKSTREAM
        $gr xreadgroup GROUP g alice BLOCK 0 STREAMS k >
        wait_for_condition 100 10 {[s blocked_clients] == 2}
        assert_equal {1 1} [list [s total_blocking_keys] [s total_blocking_keys_on_nokey]]
        # the BLPOP first in the queue has nothing to pop: it stays; the reader behind it was
        # left blocked too (the walk stopped at the first waiter it could not serve)
        r del k
        assert_error {NOGROUP*} {$gr read}
        assert_equal {1 1 0} [list [s blocked_clients] [s total_blocking_keys] [s total_blocking_keys_on_nokey]]
        r rpush k v
        assert_equal {k v} [$bl read]
        $bl close
        $gr close
    }

    test "Changes that add nothing to read leave XREAD blocked with its first deadline" {
        r flushall
        r xadd s 1-0 a 1
        set rd [valkey_client]
        $rd deferred 1
        set t0 [clock milliseconds]
        $rd xread BLOCK 600 STREAMS s $
        wait_for_condition 100 10 {[s blocked_clients] == 1}
        for {set i 0} {$i < 8} {incr i} {
            r xtrim s MAXLEN 10
            r xsetid s 1-0
            after 100
        }
        assert_equal {} [$rd read]
        set took [expr {[clock milliseconds] - $t0}]
        assert {$took < 1100} "XREAD BLOCK 600 answered after $took ms"
        $rd close
    }

    test "XREAD BLOCK inside MULTI answers at once" {
        r flushall
        r multi
        r xread BLOCK 0 STREAMS s $
        assert_equal {{}} [r exec]
    }

    test "Replicas receive generated IDs, exact trims, and group reads as XCLAIM and SETID" {
        r flushall
        set tap [repl_tap_open]
        r xadd s 1-1 a 1
        r xadd s 1-* b 2
        r xadd s MAXLEN ~ 1 2-0 c 3
        r xadd s MAXLEN = 2 3-0 d 4
        r xtrim s MINID = 3
        r xgroup create s g 0
        r xreadgroup GROUP g alice STREAMS s >
        r xreadgroup GROUP g alice NOACK STREAMS s >
        r xadd s 4-0 e 5
        r xreadgroup GROUP g bob NOACK STREAMS s >
        r xclaim s g carol 0 3-0 JUSTID TIME 1000 RETRYCOUNT 5
        r xdel s 3-0
        r xautoclaim s g dave 0 0
        r xsetid s 9-0
        assert_equal {SELECT 0} [repl_tap_next $tap]
        assert_equal {xadd s 1-1 a 1} [repl_tap_next $tap]
        assert_equal {xadd s 1-2 b 2} [repl_tap_next $tap]
        assert_equal {xadd s MAXLEN = 3 2-0 c 3} [repl_tap_next $tap]
        assert_equal {xadd s MAXLEN = 2 3-0 d 4} [repl_tap_next $tap]
        assert_equal {xtrim s MINID = 3} [repl_tap_next $tap]
        assert_equal {xgroup create s g 0} [repl_tap_next $tap]
        assert_equal {MULTI} [repl_tap_next $tap]
        assert_match {XCLAIM s g alice 0 3-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 3-0} \
            [repl_tap_next $tap]
        assert_equal {XGROUP SETID s g 3-0 ENTRIESREAD 4} [repl_tap_next $tap]
        assert_equal {EXEC} [repl_tap_next $tap]
        assert_equal {xadd s 4-0 e 5} [repl_tap_next $tap]
        # NOACK: no XCLAIM will create the consumer on replicas, so it is created explicitly.
        assert_equal {MULTI} [repl_tap_next $tap]
        assert_equal {XGROUP CREATECONSUMER s g bob} [repl_tap_next $tap]
        assert_equal {XGROUP SETID s g 4-0 ENTRIESREAD 5} [repl_tap_next $tap]
        assert_equal {EXEC} [repl_tap_next $tap]
        assert_equal {XCLAIM s g carol 0 3-0 TIME 1000 RETRYCOUNT 5 FORCE JUSTID LASTID 4-0} \
            [repl_tap_next $tap]
        assert_equal {xdel s 3-0} [repl_tap_next $tap]
        assert_match {XCLAIM s g carol 0 3-0 TIME 1000 RETRYCOUNT 5 FORCE JUSTID LASTID 4-0} \
            [repl_tap_next $tap]
        assert_equal {xsetid s 9-0} [repl_tap_next $tap]
        close $tap
    }

    test "Stream keyspace events" {
        r flushall
        r config set notify-keyspace-events KEA
        set sub [valkey_client]
        $sub psubscribe __keyevent@0__:*
        r xadd s 1-0 a 1
        r xadd s MAXLEN 1 2-0 a 2
        r xdel s 2-0
        r xsetid s 5-0
        r xgroup create s g 0
        r xgroup createconsumer s g c
        r xreadgroup GROUP g d STREAMS s >
        r xgroup setid s g 0
        r xgroup delconsumer s g c
        r xgroup destroy s g
        r xadd s 6-0 a 1
        r xtrim s MAXLEN 0
        set got {}
        for {set i 0} {$i < 13} {incr i} {
            set m [$sub read]
            lappend got [lindex [split [lindex $m 2] :] 1]
        }
        assert_equal [list xadd xadd xtrim xdel xsetid xgroup-create xgroup-createconsumer \
                          xgroup-createconsumer xgroup-setid xgroup-delconsumer xgroup-destroy \
                          xadd xtrim] $got
        $sub close
        r config set notify-keyspace-events ""
    }

    test "COMMAND GETKEYS finds the keys of XREAD and XREADGROUP after STREAMS" {
        assert_equal {a b} [r command getkeys xread COUNT 2 STREAMS a b 0 0]
        assert_equal {a} [r command getkeys xreadgroup GROUP g c STREAMS a >]
        assert_equal {k} [r command getkeys xinfo stream k]
        assert_equal {k} [r command getkeys xgroup create k g $]
    }
}

start_server {tags {stream} overrides {cluster-enabled yes}} {
    test "XREAD across slots is CROSSSLOT in cluster mode" {
        r cluster addslotsrange 0 16383
        wait_for_condition 200 50 {[info_field [r cluster info] cluster_state] eq "ok"}
        r xadd "{s}a" 1-0 f v
        assert_error {CROSSSLOT*} {r xread STREAMS "{s}a" other 0 0}
        assert_equal [list [list "{s}a" {{1-0 {f v}}}]] [r xread STREAMS "{s}a" "{s}b" 0 0]
    }
}
