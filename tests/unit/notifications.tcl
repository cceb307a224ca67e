# Keyspace notifications: notify-keyspace-events and the events of string and generic commands.

# A RESP2 client subscribed to every channel (pattern *).
proc ev_client {} {
    set c [valkey_client]
    $c deferred 1
    $c psubscribe *
    $c read
    return $c
}

# Events received so far as "channel payload" strings. A PING is answered after every message
# published before it, so the list is complete.
proc ev_collect {c} {
    $c ping
    set out {}
    while 1 {
        set m [$c read]
        if {$m eq {pong {}}} { return $out }
        lappend out "[lindex $m 2] [lindex $m 3]"
    }
}

# Sets the flags and returns a fresh subscriber.
proc ev_start {flags} {
    r select 0
    r flushall
    r config set notify-keyspace-events $flags
    return [ev_client]
}

# Keyevent payloads only ("event key"), for flags with E and without K.
proc ev_events {c} {
    set out {}
    foreach e [ev_collect $c] {
        regexp {^__keyevent@\d+__:(\S+) (.*)$} $e -> ev key
        lappend out "$ev $key"
    }
    return $out
}

# Compares lists whatever their layout in the source.
proc assert_events {expected got} {
    assert_equal [list {*}$expected] $got
}

start_server {tags {notifications}} {
    test "notify-keyspace-events is off by default" {
        assert_equal {notify-keyspace-events {}} [r config get notify-keyspace-events]
        set c [ev_client]
        r set k v
        r del k
        assert_equal {} [ev_collect $c]
    }

    test "CONFIG SET notify-keyspace-events shows the normalised flags" {
        foreach {in out} {
            KEA AKE  AKE AKE  g g  Kg$lshzxet g$lshzxetK  Kg$lshzxetd AK  KEn nKE
            AKEnm AKEm  KEx xKE  AA A  Eh hE  KEd dKE  Elszh lshzE  E$ {$E}  m m  {} {}
            EKgx gxKE  Kt tK  KEe eKE
        } {
            assert_equal OK [r config set notify-keyspace-events $in]
            assert_equal [list notify-keyspace-events $out] [r config get notify-keyspace-events] "flags $in"
        }
    }

    test "CONFIG SET notify-keyspace-events rejects unknown classes" {
        r config set notify-keyspace-events KE$
        foreach bad {Kq X KEA1 { } a} {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag\$lshzxeKEtmdn'." \
                {r config set notify-keyspace-events $bad}
        }
        assert_equal [list notify-keyspace-events {$KE}] [r config get notify-keyspace-events]
        r config set notify-keyspace-events ""
    }

    test "K publishes on __keyspace@<db>__:<key>, E on __keyevent@<db>__:<event>" {
        set c [ev_start K$]
        r set foo bar
        assert_events {{__keyspace@0__:foo set}} [ev_collect $c]
        r config set notify-keyspace-events E$
        r set foo bar
        assert_equal {{__keyevent@0__:set foo}} [ev_collect $c]
        r config set notify-keyspace-events KE$
        r set foo bar
        assert_events {{__keyspace@0__:foo set} {__keyevent@0__:set foo}} [ev_collect $c]
        # A class without K or E publishes nothing.
        r config set notify-keyspace-events g$
        r set foo bar
        r del foo
        assert_equal {} [ev_collect $c]
    }

    test "Events carry the database number" {
        set c [ev_start KEA]
        r select 9
        r set k v
        r select 0
        assert_equal {{__keyspace@9__:k set} {__keyevent@9__:set k}} [ev_collect $c]
    }

    test "Only the selected classes are published" {
        set c [ev_start E$]
        r set a 1
        r expire a 100
        r del a
        assert_events {{set a}} [ev_events $c]
        r config set notify-keyspace-events Eg
        r set a 1
        r expire a 100
        r del a
        assert_equal {{expire a} {del a}} [ev_events $c]
    }

    test "String events (\$)" {
        set c [ev_start E$]
        r set s 1
        r setnx s 2
        r setnx s2 2
        r setex s3 100 v
        r psetex s4 100000 v
        r getset s 5
        r mset m1 1 m2 2
        r msetnx m1 1 m3 3
        r msetnx m4 1 m5 1
        r append s x
        r append ap y
        r setrange s 1 zz
        r setrange sr 2 ab
        r setrange s 0 ""
        r set n 10
        r incr n
        r decr n
        r incrby n 5
        r decrby n 5
        r incrbyfloat n 1.5
        catch {r incr s}
        assert_events {{set s} {set s2} {set s3} {set s4} {set s} {set m1} {set m2} {set m4} {set m5}
            {append s} {append ap} {setrange s} {setrange sr} {set n} {incrby n} {incrby n}
            {incrby n} {incrby n} {incrbyfloat n}} [ev_events $c]
    }

    test "SET options: EX adds expire, KEEPTTL and GET do not, failed NX/XX publish nothing" {
        set c [ev_start EA]
        r set k v ex 100
        r set k v keepttl
        r set k v2 get
        r set k v nx
        r set nokey v xx
        r set k2 v px 100000
        r set k3 v exat 99999999999
        r setex k4 100 v
        assert_events {{set k} {expire k} {set k} {set k} {set k2} {expire k2} {set k3} {expire k3}
            {set k4} {expire k4}} [ev_events $c]
    }

    test "SET with an expire in the past deletes the key: only del" {
        set c [ev_start EA]
        r set k v
        ev_collect $c
        assert_equal OK [r set k v2 exat 1]
        assert_equal 0 [r exists k]
        assert_equal OK [r set nokey v pxat 1]
        assert_equal 0 [r exists nokey]
        assert_events {{del k}} [ev_events $c]
    }

    test "GETDEL and GETEX events" {
        set c [ev_start EA]
        r set k v
        r getdel k
        r getdel k
        r set k v
        r getex k ex 100
        r getex k persist
        r getex k persist
        r getex k
        r getex k pxat 1
        assert_equal {{set k} {del k} {set k} {expire k} {persist k} {del k}} [ev_events $c]
    }

    test "Generic events (g): DEL UNLINK EXPIRE PERSIST" {
        set c [ev_start Eg]
        r mset a 1 b 2 c 3
        r del a b nokey
        r unlink c
        r set k v
        r expire k 100
        r pexpire k 100000
        r expireat k 99999999999
        r pexpireat k 99999999999999
        r expire k 100 nx
        r persist k
        r persist k
        r expire k 0
        r set q v
        r expire q -1
        r set q v
        r pexpireat q 1
        r expire nokey 10
        assert_events {{del a} {del b} {del c} {expire k} {expire k} {expire k} {expire k}
            {persist k} {del k} {del q} {del q}} [ev_events $c]
    }

    test "Generic events (g): RENAME RENAMENX MOVE COPY" {
        set c [ev_start Eg]
        r set r1 x
        r rename r1 r2
        r set r3 y
        r rename r3 r2
        r renamenx r2 r4
        r set r5 z
        r renamenx r4 r5
        r move r4 1
        r copy r5 c1
        r copy r5 c1
        r copy r5 c1 replace
        r copy r5 c2 db 2
        assert_events {{rename_from r1} {rename_to r2} {rename_from r3} {rename_to r2}
            {rename_from r2} {rename_to r4} {move_from r4} {move_to r4} {copy_to c1}
            {copy_to c1} {copy_to c2}} [ev_events $c]
    }

    test "RESTORE events" {
        set c [ev_start EAn]
        r set k v
        set d [r dump k]
        r restore k2 0 $d
        r restore k2 0 $d replace
        catch {r restore k2 0 $d}
        r restore k2 1 $d replace absttl
        assert_events {{new k} {set k} {new k2} {restore k2} {new k2} {restore k2} {del k2}} \
            [ev_events $c]
    }

    test "MOVE and COPY publish in the databases concerned" {
        set c [ev_start KEg]
        r set k v
        r move k 3
        r select 3
        r copy k k2 db 4
        r select 0
        assert_events {{__keyspace@0__:k move_from} {__keyevent@0__:move_from k}
            {__keyspace@3__:k move_to} {__keyevent@3__:move_to k}
            {__keyspace@4__:k2 copy_to} {__keyevent@4__:copy_to k2}} [ev_collect $c]
    }

    test "Expired events (x) on access" {
        set c [ev_start Ex]
        r debug set-active-expire 0
        r set k v px 1
        r set k2 v px 1
        after 20
        assert_equal {} [r get k]
        assert_equal 0 [r exists k2]
        r debug set-active-expire 1
        assert_events {{expired k} {expired k2}} [ev_events $c]
    }

    test "Expired events (x) from active expiry" {
        set c [ev_start Ex]
        r set k v px 1
        wait_for_condition 100 20 {[r dbsize] == 0} else { fail "key not expired" }
        assert_equal {{expired k}} [ev_events $c]
    }

    test "Expiry publishes nothing without x" {
        set c [ev_start Eg$]
        r debug set-active-expire 0
        r set k v px 1
        after 20
        r get k
        r debug set-active-expire 1
        assert_events {{set k} {expire k}} [ev_events $c]
    }

    test "Evicted events (e)" {
        set c [ev_start Ee]
        r config set notify-keyspace-events Ee
        r set k v
        r config set maxmemory-policy allkeys-random
        r config set maxmemory 1
        wait_for_condition 50 20 {[r dbsize] == 0} else { fail "k not evicted" }
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        assert_equal {{evicted k}} [ev_events $c]
    }

    test "New key events (n): not part of A, published before the command's event" {
        set c [ev_start KEA]
        r set k v
        assert_equal {{__keyspace@0__:k set} {__keyevent@0__:set k}} [ev_collect $c]
        r config set notify-keyspace-events En
        r set k v
        r set k2 v
        r append k3 x
        r incr k4
        r setrange k5 1 x
        r mset k6 1 k k
        assert_events {{new k2} {new k3} {new k4} {new k5} {new k6}} [ev_events $c]
        r config set notify-keyspace-events AEn
        r del k
        r set k v
        r rename k k2
        assert_equal {{del k} {new k} {set k} {new k2} {rename_from k} {rename_to k2}} [ev_events $c]
        r set k v
        r copy k k2 replace
        r move k 1
        assert_events {{new k} {set k} {new k2} {copy_to k2} {new k} {move_from k} {move_to k}} \
            [ev_events $c]
    }

    test "New key events (n) name the database of MOVE and COPY targets" {
        set c [ev_start KEn]
        r select 1
        r set mk v
        r move mk 2
        r select 0
        assert_events {{__keyspace@1__:mk new} {__keyevent@1__:new mk}
            {__keyspace@2__:mk new} {__keyevent@2__:new mk}} [ev_collect $c]
    }

    test "Key miss events (m): not part of A" {
        set c [ev_start EA]
        r get nokey
        assert_equal {} [ev_events $c]
        r config set notify-keyspace-events Em
        r set k v
        r get k
        r get nokey
        r mget k nokey2 nokey3
        r exists nokey4
        r strlen nokey5
        r set nokey6 v get
        r getset nokey7 v
        r incr nokey8
        r del nokey9
        assert_events {{keymiss nokey} {keymiss nokey2} {keymiss nokey3} {keymiss nokey4}
            {keymiss nokey5} {keymiss nokey6} {keymiss nokey7}} [ev_events $c]
    }

    test "A covers g\$lshzxetd" {
        set c [ev_start EA]
        r set k v
        r expire k 100
        r del k
        assert_events {{set k} {expire k} {del k}} [ev_events $c]
    }

    test "Events inside MULTI / EXEC" {
        set c [ev_start EA]
        r multi
        r set k v
        r incr n
        r del k
        r exec
        assert_equal {{set k} {incrby n} {del k}} [ev_events $c]
    }

    test "A RESP3 client receives notifications of its own writes after the reply" {
        r config set notify-keyspace-events KA
        r flushall
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        $c hello 3
        while {[$c read] ne {*0}} {}
        $c subscribe __keyspace@0__:mine
        foreach l {>3 $9 subscribe $19 __keyspace@0__:mine :1} { assert_equal $l [$c read] }
        $c set mine v
        foreach l {+OK >3 $7 message $19 __keyspace@0__:mine $3 set} { assert_equal $l [$c read] }
        $c multi
        $c set mine v2
        $c del mine
        $c exec
        foreach l {+OK +QUEUED +QUEUED *2 +OK :1
                   >3 $7 message $19 __keyspace@0__:mine $3 set
                   >3 $7 message $19 __keyspace@0__:mine $3 del} {
            assert_equal $l [$c read]
        }
    }

    test "Notifications are delivered to patterns and channels alike" {
        set c [ev_start KEA]
        set ch [valkey_client]
        $ch deferred 1
        $ch subscribe __keyevent@0__:set
        $ch read
        r set x 1
        assert_events {{message __keyevent@0__:set x}} [list [$ch read]]
        assert_equal {{__keyspace@0__:x set} {__keyevent@0__:set x}} [ev_collect $c]
    }
}

start_server {tags {notifications} config {notify-keyspace-events KEA}} {
    test "notify-keyspace-events from the config file" {
        assert_equal {notify-keyspace-events AKE} [r config get notify-keyspace-events]
        set c [ev_client]
        r set k v
        assert_events {{__keyspace@0__:k set} {__keyevent@0__:set k}} [ev_collect $c]
    }
}

start_server {tags {notifications needs-types}} {
    test "Hash events (h)" {
        set c [ev_start Eh]
        r hset h f v f2 v2
        r hset h f v3
        r hsetnx h f x
        r hsetnx h f3 x
        r hincrby h n 1
        r hincrbyfloat h fl 1.5
        r hdel h f f2 nofield
        r hdel h f3 n fl
        assert_equal {{hset h} {hset h} {hset h} {hincrby h} {hincrbyfloat h} {hdel h} {hdel h}} \
            [ev_events $c]
    }

    test "SMOVE: srem on the source; sadd on the destination only when the member was added" {
        set c [ev_start Es]
        r sadd src a b
        r sadd dst b
        r smove src dst a
        r smove src dst b
        r smove src dst nope
        assert_equal {{sadd src} {sadd dst} {srem src} {sadd dst} {srem src}} [ev_events $c]
    }

    test "Emptying a container publishes del (g)" {
        set c [ev_start EA]
        r hset h f v
        r hdel h f
        r sadd s a
        r srem s a
        assert_equal {{hset h} {hdel h} {del h} {sadd s} {srem s} {del s}} [ev_events $c]
    }

    test "List events (l)" {
        set c [ev_start El]
        r rpush l a b c
        r lpush l z
        r lpop l
        r rpop l
        r lset l 0 x
        r linsert l before x w
        r ltrim l 0 5
        r lrem l 0 x
        assert_events {{rpush l} {lpush l} {lpop l} {rpop l} {lset l} {linsert l} {ltrim l} {lrem l}} \
            [ev_events $c]
    }

    test "Set events (s)" {
        set c [ev_start Es]
        r sadd s a b c
        r sadd s a
        r srem s a
        r spop s
        r sadd t x
        r smove t s x
        r sadd u 1 2
        r sinterstore dst u u
        assert_equal {{sadd s} {srem s} {spop s} {sadd t} {srem t} {sadd s} {sadd u} {sinterstore dst}} \
            [ev_events $c]
    }

    test "Sorted set events (z)" {
        set c [ev_start Ez]
        r zadd z 1 a 2 b
        r zadd z 1 a
        r zincrby z 5 a
        r zrem z a
        r zremrangebyscore z 0 10
        assert_equal {{zadd z} {zincr z} {zrem z} {zremrangebyscore z}} [ev_events $c]
    }
}
