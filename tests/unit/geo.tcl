# Geo commands: GEOADD, GEODIST, GEOHASH, GEOPOS, GEORADIUS[BYMEMBER][_RO], GEOSEARCH[STORE].
# The replies of the sessions below were recorded from Valkey 8.0.1: scores, distances,
# coordinates, errors, and the order of equal distances under COUNT. Then RESP3, what replicas
# receive, keyspace events, key positions, cluster mode, and interchange with redis-server 7.0.

# A deterministic cloud of n points around (0, 45), one in four on an earlier point.
proc geo_fill {key n {level 0}} {
    set x 12345
    set pts {}
    set args {}
    for {set i 0} {$i < $n} {incr i} {
        set x [expr {($x * 1103515245 + 12345) % 2147483648}]
        if {$i % 4 == 3} {
            lassign [lindex $pts [expr {$x % [llength $pts]}]] lon lat
        } else {
            set lon [format %.6f [expr {-2 + 4.0 * $x / 2147483648}]]
            set x [expr {($x * 1103515245 + 12345) % 2147483648}]
            set lat [format %.6f [expr {44 + 2.0 * $x / 2147483648}]]
        }
        lappend pts [list $lon $lat]
        lappend args $lon $lat m$i
    }
    if {$level == 0} { return [r geoadd $key {*}$args] }
    r $level geoadd $key {*}$args
}
set ::geo_cloud_queries {
    {geosearch cloud fromlonlat 0 45 byradius 30 km count 12 withdist}
    {geosearch cloud fromlonlat 0 45 byradius 30 km count 12 desc}
    {geosearch cloud frommember m7 bybox 60 40 km count 9 asc withhash}
    {geosearch cloud frommember m3 byradius 100 km count 25}
    {georadius cloud 1 44.5 50 km count 7 withdist withcoord}
    {georadiusbymember cloud m11 80 km count 5 any}
    {georadiusbymember cloud m11 80 km count 5 any desc withdist}
    {geosearch cloud fromlonlat 179 0 byradius 1 km}
    {geosearch cloud fromlonlat -1.5 45.5 bybox 20 20 km asc withdist}
    {georadius cloud 0 45 300 km count 300}
}

# One reply read raw (readraw mode): its lines joined by spaces.
proc geo_raw_reply {c} {
    set line [$c read]
    set out [list $line]
    set n [string range $line 1 end]
    switch -- [string index $line 0] {
        * - ~ - > { for {set i 0} {$i < $n} {incr i} { lappend out [geo_raw_reply $c] } }
        % - | { for {set i 0} {$i < 2 * $n} {incr i} { lappend out [geo_raw_reply $c] } }
        $ - = - ! { if {$n >= 0} { lappend out [$c read] } }
    }
    return [join $out " "]
}

proc geo_session {pairs} {
    foreach {cmd want} $pairs {
        if {[catch {r {*}$cmd} got]} { set got [list ERROR $got] }
        assert_equal $want $got $cmd
    }
}

start_server {tags {geo}} {
    test "GEO: a session recorded from Valkey 8.0.1" {
        r select 9
        geo_session {
            flushall OK
            {geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania} 2
            {zrange Sicily 0 -1 withscores} {Palermo 3479099956230698 Catania 3479447370796909}
            {geodist Sicily Palermo Catania} 166274.1516
            {geodist Sicily Palermo Catania km} 166.2742
            {geodist Sicily Palermo Catania MI} 103.3182
            {geodist Sicily Palermo Catania ft} 545518.8700
            {geodist Sicily Palermo Palermo} 0.0000
            {geodist Sicily Palermo nope} {}
            {geodist nokey a b} {}
            {geodist Sicily Palermo Catania parsec} {ERROR {ERR unsupported unit provided. please use M, KM, FT, MI}}
            {geodist Sicily Palermo Catania km extra} {ERROR {ERR syntax error}}
            {geopos Sicily Palermo nope Catania} {{13.36138933897018433 38.11555639549629859} {} {15.08726745843887329 37.50266842333162032}}
            {geopos nokey a b} {{} {}}
            {geohash Sicily Palermo Catania nope} {sqc8b49rny0 sqdtr74hyu0 {}}
            {geohash nokey a} {{}}
            {georadius Sicily 15 37 100 km} Catania
            {georadius Sicily 15 37 200 km} {Palermo Catania}
            {georadius Sicily 15 37 200 km withdist} {{Palermo 190.4424} {Catania 56.4413}}
            {georadius Sicily 15 37 200 km withcoord withdist withhash desc} {{Palermo 190.4424 3479099956230698 {13.36138933897018433 38.11555639549629859}} {Catania 56.4413 3479447370796909 {15.08726745843887329 37.50266842333162032}}}
            {georadius Sicily 15 37 200 km count 1} Catania
            {georadius Sicily 15 37 200 km count 1 desc withdist} {{Palermo 190.4424}}
            {georadius Sicily 15 37 200 km count 1 any} Palermo
            {georadius Sicily 15 37 200 km any} {ERROR {ERR the ANY argument requires COUNT argument}}
            {georadius Sicily 15 37 200 km count 0} {ERROR {ERR COUNT must be > 0}}
            {georadius Sicily 15 37 200 km count x} {ERROR {ERR value is not an integer or out of range}}
            {georadius Sicily 15 37 200 km count} {ERROR {ERR syntax error}}
            {georadius Sicily 15 37 200 lightyears} {ERROR {ERR unsupported unit provided. please use M, KM, FT, MI}}
            {georadius Sicily 15 37 -1 km} {ERROR {ERR radius cannot be negative}}
            {georadius Sicily 15 37 far km} {ERROR {ERR need numeric radius}}
            {georadius Sicily 200 100 1 km} {ERROR {ERR invalid longitude,latitude pair 200.000000,100.000000}}
            {georadius Sicily x 37 1 km} {ERROR {ERR value is not a valid float}}
            {georadius Sicily 15 37 200 km store dst withdist} {ERROR {ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options}}
            {georadius_ro Sicily 15 37 200 km store dst} {ERROR {ERR syntax error}}
            {georadius_ro Sicily 15 37 200 KM ASC} {Catania Palermo}
            {georadius nokey 15 37 200 km} {}
            {georadius Sicily 15 37 200 km store dst} 2
            {zrange dst 0 -1 withscores} {Palermo 3479099956230698 Catania 3479447370796909}
            {georadius Sicily 15 37 200 km storedist dst desc count 1} 1
            {zrange dst 0 -1 withscores} {Palermo 190.44242984775784}
            {georadius Sicily 15 37 1 m store dst} 0
            {exists dst} 0
            {georadiusbymember Sicily Palermo 200 km withdist} {{Palermo 0.0000} {Catania 166.2742}}
            {georadiusbymember Sicily Palermo 200 km withcoord} {{Palermo {13.36138933897018433 38.11555639549629859}} {Catania {15.08726745843887329 37.50266842333162032}}}
            {georadiusbymember Sicily nope 200 km} {ERROR {ERR could not decode requested zset member}}
            {georadiusbymember nokey nope bad unit} {}
            {georadiusbymember_ro Sicily Palermo 200 km storedist x} {ERROR {ERR syntax error}}
            {georadiusbymember Sicily Palermo 100 km storedist dst} 1
            {zrange dst 0 -1 withscores} {Palermo 0}
            {geosearch Sicily fromlonlat 15 37 byradius 200 km asc} {Catania Palermo}
            {geosearch Sicily fromlonlat 15 37 bybox 400 400 km asc withcoord withdist} {{Catania 56.4413 {15.08726745843887329 37.50266842333162032}} {Palermo 190.4424 {13.36138933897018433 38.11555639549629859}}}
            {geosearch Sicily frommember Palermo bybox 400 400 km desc withdist withhash} {{Catania 166.2742 3479447370796909} {Palermo 0.0000 3479099956230698}}
            {geosearch Sicily frommember Palermo byradius 100 km count 1 any} Palermo
            {geosearch Sicily frommember nope bybox 400 400 km} {ERROR {ERR could not decode requested zset member}}
            {geosearch Sicily frommember Palermo fromlonlat 1 2 bybox 4 4 km} {ERROR {ERR syntax error}}
            {geosearch Sicily frommember Palermo byradius 10 km bybox 4 4 km} {ERROR {ERR syntax error}}
            {GEOSEARCH Sicily bybox 400 400 km} {ERROR {ERR wrong number of arguments for 'geosearch' command}}
            {geosearch Sicily frommember Palermo} {ERROR {ERR wrong number of arguments for 'geosearch' command}}
            {geosearch Sicily frommember Palermo byradius 100 km any} {ERROR {ERR the ANY argument requires COUNT argument}}
            {geosearch Sicily frommember Palermo byradius 100 km store x} {ERROR {ERR syntax error}}
            {geosearch Sicily frommember Palermo byradius 100 km storedist} {ERROR {ERR syntax error}}
            {geosearch Sicily frommember Palermo bybox -1 2 km} {ERROR {ERR height or width cannot be negative}}
            {geosearch Sicily frommember Palermo bybox w 2 km} {ERROR {ERR need numeric width}}
            {geosearch Sicily frommember Palermo bybox 1 h km} {ERROR {ERR need numeric height}}
            {geosearch nokey frommember nope bybox 1 2 km} {}
            {geosearchstore dst Sicily frommember Palermo bybox 400 400 km storedist} 2
            {zrange dst 0 -1 withscores} {Palermo 0 Catania 166.27415156960032}
            {geosearchstore dst Sicily frommember Palermo bybox 400 400 km withdist} {ERROR {ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options}}
            {geosearchstore dst Sicily frommember Palermo bybox 400 400 km count 1} 1
            {zrange dst 0 -1 withscores} {Palermo 3479099956230698}
            {geosearchstore dst nokey frommember Palermo bybox 400 400 km} 0
            {exists dst} 0
            {set str x} OK
            {geoadd str 1 2 a} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {geopos str a} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {geodist str a b} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {georadius str 1 2 3 m} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {geosearch str frommember a byradius 1 m} {ERROR {WRONGTYPE Operation against a key holding the wrong kind of value}}
            {geoadd k nx xx 1 2 a} {ERROR {ERR syntax error}}
            {geoadd k nx ch ch} {ERROR {ERR syntax error}}
            {geoadd k 1 2 a 3} {ERROR {ERR syntax error}}
            {geoadd k 1 2 a 200 3 b} {ERROR {ERR invalid longitude,latitude pair 200.000000,3.000000}}
            {geoadd k 0 nan x} {ERROR {ERR value is not a valid float}}
            {geoadd k xx 1 2 a} 0
            {exists k} 0
            {geoadd k ch nx 1 2 a 3 4 b} 2
            {geoadd k ch 1 2 a 3 5 b 7 8 c} 2
            {geoadd k nx ch 9 9 a 10 10 d} 1
            {geoadd k xx ch 9 9 a 10 10 e} 1
            {geoadd k 180 85.05112878 n -180 -85.05112878 s 0 0 zero} 3
            {zrange k 0 -1 withscores} {s 0 zero 3377699720527872 b 3379711942170053 c 3385442150013625 a 3386042809045974 d 3386427883058495 n 13510798882111488}
            {geopos k n s zero} {{180 85.0511287799999991} {-179.99999731779098511 -85.05112751263942528} {0.00000268220901489 0.00000126736058093}}
            {geohash k n s zero a b} {bp05b5048p0 00bh0hbj200 s0000000000 s1w7hy3sg10 s0fhkq0x150}
            {georadius k 0 0 1 m withdist withhash withcoord} {{zero 0.3300 3377699720527872 {0.00000268220901489 0.00000126736058093}}}
            {georadius k -179 -85 500 km withdist} {{s 11.1960}}
            {zadd zz -5 neg 4503599627370496 max52 1.5 frac} 3
            {geopos zz neg max52 frac} {{180 85.0511287799999991} {-179.99999731779098511 85.0511287799999991} {-179.99999731779098511 -85.05112497791824921}}
            {geohash zz neg max52 frac} {bp05b5048p0 bp05b5048p0 00bh0hbj210}
        }
        r select 0
    }

    foreach enc {listpack skiplist} {
        test "GEO: searches of a 400-point cloud with ties match Valkey 8.0.1 ($enc)" {
            r flushall
            if {$enc eq "listpack"} {
                r config set zset-max-listpack-entries 1000
            }
            geo_fill cloud 400
            assert_encoding $enc cloud
            geo_session {
            {geosearch cloud fromlonlat 0 45 byradius 30 km count 12 withdist}
                {{m161 4.3905} {m2 5.6992} {m364 6.3195} {m226 15.1301} {m158 16.2607} {m396 16.4663} {m372 21.1367} {m331 21.3644} {m220 21.3644} {m210 22.3885} {m20 23.3112} {m318 24.5125}}
            {geosearch cloud fromlonlat 0 45 byradius 30 km count 12 desc}
                {m379 m85 m231 m37 m329 m42 m318 m20 m210 m220 m331 m372}
            {geosearch cloud frommember m7 bybox 60 40 km count 9 asc withhash}
                {{m291 3659478279099312} {m75 3659478279099312} {m7 3659478279099312} {m43 3659478279099312} {m1 3659478279099312} {m11 3659478279099312} {m167 3659478279099312} {m23 3659478279099312} {m3 3659478279099312}}
            {geosearch cloud frommember m3 byradius 100 km count 25}
                {m75 m11 m1 m43 m3 m291 m23 m167 m7 m246 m327 m295 m201 m143 m89 m25 m392 m244 m48 m363 m119 m152 m105 m53 m132}
            {georadius cloud 1 44.5 50 km count 7 withdist withcoord}
                {{m245 5.8032 {1.0148271918296814 44.44890953834581637}} {m248 6.1405 {1.07162028551101685 44.47908539374773795}} {m165 6.7851 {1.04316204786300659 44.55267341844567852}} {m259 6.7851 {1.04316204786300659 44.55267341844567852}} {m376 8.0909 {1.07809513807296753 44.45324137680712795}} {m258 8.2158 {0.91147631406784058 44.46169974131584013}} {m70 9.9371 {0.90175062417984009 44.44462332486537548}}}
            {georadiusbymember cloud m11 80 km count 5 any}
                {m368 m193 m105 m244 m201}
            {georadiusbymember cloud m11 80 km count 5 any desc withdist}
                {{m368 42.2085} {m193 31.5181} {m105 15.4682} {m244 11.1389} {m201 8.1818}}
            {geosearch cloud fromlonlat 179 0 byradius 1 km}
                {}
            {geosearch cloud fromlonlat -1.5 45.5 bybox 20 20 km asc withdist}
                {{m124 6.9803} {m197 7.6243} {m319 7.6243} {m399 7.6243}}
            {georadius cloud 0 45 300 km count 300}
                {m161 m2 m364 m226 m158 m396 m372 m331 m220 m210 m20 m318 m42 m329 m37 m231 m379 m85 m207 m10 m268 m309 m377 m32 m68 m270 m26 m267 m72 m90 m127 m355 m205 m354 m393 m204 m284 m375 m74 m139 m287 m121 m304 m365 m336 m326 m265 m351 m373 m126 m239 m137 m199 m280 m166 m209 m14 m316 m314 m298 m237 m388 m64 m236 m88 m389 m156 m18 m179 m19 m203 m325 m185 m315 m243 m0 m15 m385 m114 m129 m290 m76 m27 m4 m337 m222 m311 m141 m153 m302 m45 m83 m282 m142 m80 m56 m346 m181 m186 m128 m136 m171 m370 m391 m230 m174 m59 m12 m361 m22 m79 m294 m178 m263 m5 m175 m97 m62 m378 m358 m184 m225 m387 m223 m189 m293 m241 m338 m345 m382 m202 m53 m397 m169 m333 m232 m292 m191 m71 m60 m335 m200 m272 m170 m190 m132 m106 m40 m135 m188 m117 m123 m352 m392 m258 m286 m116 m240 m70 m9 m39 m91 m31 m147 m295 m327 m246 m259 m165 m288 m61 m89 m143 m266 m214 m125 m249 m374 m245 m279 m46 m131 m359 m110 m134 m334 m221 m235 m192 m305 m307 m224 m105 m248 m340 m43 m1 m11 m167 m23 m291 m3 m7 m75 m183 m58 m211 m376 m21 m163 m81 m25 m206 m306 m216 m321 m353 m368 m244 m29 m219 m193 m24 m107 m208 m317 m255 m157 m264 m367 m144 m120 m229 m201 m78 m93 m339 m103 m269 m6 m155 m133 m303 m371 m360 m112 m98 m238 m213 m164 m66 m162 m274 m48 m363 m119 m152 m145 m94 m386 m172 m366 m394 m140 m381 m261 m310 m262 m383 m356 m36 m384 m320 m278 m399 m197 m319 m328 m151 m38 m55 m99 m109 m398 m322 m77 m275 m73 m33 m308 m51 m28 m67 m54 m227 m101 m297 m212 m343 m194}
            }
            r config set zset-max-listpack-entries 128
        }
    }

    test "GEO: WITHDIST never exceeds the radius and COUNT keeps the nearest" {
        r flushall
        geo_fill cloud 400
        foreach radius {1 5 25 120} {
            set all [r geosearch cloud fromlonlat 0.3 45.2 byradius $radius km asc withdist]
            set prev 0
            foreach item $all {
                set d [lindex $item 1]
                assert {$d <= $radius} "$item beyond $radius km"
                assert {$d >= $prev} "not ascending at $item"
                set prev $d
            }
            set top [r geosearch cloud fromlonlat 0.3 45.2 byradius $radius km count 5 withdist]
            assert_equal [lrange [lmap i $all {lindex $i 1}] 0 4] [lmap i $top {lindex $i 1}]
        }
    }

    test "GEO: RESP3 replies coordinates as doubles, distances as bulk strings" {
        r flushall
        r geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        $c hello 3
        geo_raw_reply $c
        $c geopos Sicily Palermo nope
        assert_equal {*2 *2 ,13.36138933897018433 ,38.11555639549629859 _} [geo_raw_reply $c]
        $c geodist Sicily Palermo Catania km
        assert_equal {$8 166.2742} [geo_raw_reply $c]
        $c geodist Sicily Palermo nope
        assert_equal {_} [geo_raw_reply $c]
        $c georadius Sicily 15 37 100 km withdist withhash withcoord
        assert_equal {*1 *4 $7 Catania $7 56.4413 :3479447370796909 *2 ,15.08726745843887329 ,37.50266842333162032} \
            [geo_raw_reply $c]
        $c geohash Sicily nope
        assert_equal {*1 _} [geo_raw_reply $c]
        $c close
    }

    test "GEOADD goes to replicas as the ZADD of its scores; STORE searches as sent" {
        r flushall
        set tap [repl_tap_open]
        r geoadd k ch Nx 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        r geoadd k xx 13.361389 38.115556 Palermo
        r geoadd k XX CH 13.361389 38.2 Palermo
        r georadius k 15 37 200 km store dst
        r georadius_ro k 15 37 200 km
        r georadius nokey 15 37 200 km store nothing
        r geosearchstore d2 k frommember Palermo byradius 300 km storedist
        assert_equal {SELECT 0} [repl_tap_next $tap]
        assert_equal {zadd k ch Nx 3479099956230698 Palermo 3479447370796909 Catania} \
            [repl_tap_next $tap]
        assert_equal {zadd k XX CH 3479101030759983 Palermo} [repl_tap_next $tap]
        assert_equal {georadius k 15 37 200 km store dst} [repl_tap_next $tap]
        assert_equal {geosearchstore d2 k frommember Palermo byradius 300 km storedist} \
            [repl_tap_next $tap]
        close $tap
    }

    test "GEO keyspace events: zadd, georadiusstore, geosearchstore, del of an empty result" {
        r flushall
        r config set notify-keyspace-events KEA
        set sub [valkey_client]
        $sub psubscribe __keyevent@0__:*
        r geoadd k 1 2 a 3 4 b
        r geoadd k nx 1 2 a
        r set dst x
        r expire dst 100
        r georadius k 1 2 1000 km store dst
        assert_equal -1 [r ttl dst]
        r georadius k 100 2 1 km store dst
        r geosearchstore dst k frommember a byradius 10000 km
        r geosearchstore dst nokey frommember a byradius 1 km
        set got {}
        for {set i 0} {$i < 7} {incr i} {
            set m [$sub read]
            lappend got "[lindex [split [lindex $m 2] :] 1] [lindex $m 3]"
        }
        assert_equal [list {zadd k} {set dst} {expire dst} {georadiusstore dst} {del dst} \
                          {geosearchstore dst} {del dst}] $got
        $sub close
        r config set notify-keyspace-events ""
    }

    test "COMMAND GETKEYS finds the STORE and STOREDIST keys of GEORADIUS" {
        assert_equal {k a b} [r command getkeys georadius k 1 2 3 m store a storedist b]
        assert_equal {k a} [r command getkeys georadius k 1 2 3 m count 5 store a]
        assert_equal {k a} [r command getkeys georadiusbymember k m 3 m storedist a]
        assert_equal {d s} [r command getkeys geosearchstore d s frommember m byradius 1 m]
        assert_equal {k} [r command getkeys georadius_ro k 1 2 3 m]
    }
}

start_server {tags {geo} overrides {cluster-enabled yes}} {
    test "GEORADIUS ... STORE to another slot is CROSSSLOT in cluster mode" {
        r cluster addslotsrange 0 16383
        wait_for_condition 200 50 {[info_field [r cluster info] cluster_state] eq "ok"}
        r geoadd "{g}src" 13.361389 38.115556 Palermo
        assert_error {CROSSSLOT*} {r georadius "{g}src" 15 37 200 km store other}
        assert_error {CROSSSLOT*} {r geosearchstore other "{g}src" frommember Palermo byradius 1 km}
        assert_equal 1 [r georadius "{g}src" 15 37 200 km store "{g}dst"]
        assert_equal {Palermo} [r zrange "{g}dst" 0 -1]
    }
}

# Debian's redis-server 7.0 as the peer (installed by `make test`; missing, this fails): a geo
# set is a sorted set with the same scores there, so values move both ways.
set ::geo_redis_bin /usr/bin/redis-server
if {![file executable $::geo_redis_bin]} {
    test "GEO interchange with redis-server 7.0" { require_peer $::geo_redis_bin redis-server } {geo}
    return
}
set ::geo_tested_server $::cfg(server)
set ::cfg(server) $::geo_redis_bin
try {
    start_server {tags {geo}} {
        set ::cfg(server) $::geo_tested_server
        start_server {} {
            test "GEO sets are interchangeable with redis-server 7.0 (scores, DUMP/RESTORE)" {
                r -1 flushall
                r flushall
                r -1 geoadd small 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
                r geoadd small 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
                geo_fill cloud 200 -1
                geo_fill cloud 200
                foreach key {cloud small} {
                    assert_equal [r -1 zrange $key 0 -1 withscores] [r zrange $key 0 -1 withscores]
                }
                set q {geosearch cloud fromlonlat 0 45 byradius 40 km asc withdist withcoord withhash}
                assert_equal [r -1 {*}$q] [r {*}$q]
                # redis-server's payloads restore here; ours restore there (Valkey 8.0.1's RDB 11
                # payloads do not, which is why this direction is skipped on Valkey).
                foreach key {cloud small} {
                    r restore copy:$key 0 [r -1 dump $key]
                    assert_equal [r -1 zrange $key 0 -1 withscores] [r zrange copy:$key 0 -1 withscores]
                }
                assert_equal {{13.36138933897018433 38.11555639549629859}} [r geopos copy:small Palermo]
                if {[s valkey_version] eq "8.0.1"} {
                    skip_deliberate "Valkey 8.0.1 sends RDB 11 payloads, which Redis 7.0 refuses"
                }
                foreach key {cloud small} {
                    r -1 restore back:$key 0 [r dump $key]
                    assert_equal [r zrange $key 0 -1 withscores] [r -1 zrange back:$key 0 -1 withscores]
                }
                assert_equal [r geodist small Palermo Catania] [r -1 geodist back:small Palermo Catania]
            }
        }
    }
} finally {
    set ::cfg(server) $::geo_tested_server
}
