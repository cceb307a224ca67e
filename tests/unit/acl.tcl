# ACL: users, passwords, command/key/channel rules and selectors, the descriptions ACL LIST and
# GETUSER print, ACL DRYRUN/LOG/CAT/GENPASS, the gate's NOPERM replies, AUTH and HELLO with
# users, what happens to the clients of a changed or deleted user, requirepass as the default
# user's password, users from the config file and the ACL file, and masteruser replication.
# The session of the first test was recorded from Valkey 8.0.1.

start_server {tags {acl}} {
    test "ACL: a session recorded from Valkey 8.0.1" {
        foreach {cmd want} {
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all}}
            {acl setuser foo} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo off sanitize-payload resetchannels -@all}}
            {acl getuser foo} {flags {off sanitize-payload} passwords {} commands -@all keys {} channels {} selectors {}}
            {acl setuser foo on >pw +@all -get +set ~k* %R~r* %W~w* &ch*} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~k* %R~r* %W~w* resetchannels &ch* +@all -get +set}}
            {acl getuser foo} {flags {on sanitize-payload} passwords 30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 commands {+@all -get +set} keys {~k* %R~r* %W~w*} channels &ch* selectors {}}
            {acl setuser foo -@all +@read -@string +get +config|get -config|get +client|list} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~k* %R~r* %W~w* resetchannels &ch* -@all +@read -@string +get -config|get +client|list}}
            {acl setuser foo +select|0} OK
            {acl getuser foo} {flags {on sanitize-payload} passwords 30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 commands {-@all +@read -@string +get -config|get +client|list +select|0} keys {~k* %R~r* %W~w*} channels &ch* selectors {}}
            {acl setuser foo +bogus} {ERROR {ERR Error in ACL SETUSER modifier '+bogus': Unknown command or category name in ACL}}
            {acl setuser foo +@bogus} {ERROR {ERR Error in ACL SETUSER modifier '+@bogus': Unknown command or category name in ACL}}
            {acl setuser foo ~*} OK
            {acl setuser foo allkeys ~x} {ERROR {ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns}}
            {acl setuser foo allkeys} OK
            {acl setuser foo &* &x} {ERROR {ERR Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels}}
            {acl setuser foo <nope} {ERROR {ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the user does not exist}}
            {acl setuser foo #abc} {ERROR {ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters}}
            {acl setuser foo !abc} {ERROR {ERR Error in ACL SETUSER modifier '!abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters}}
            {acl setuser foo {(~x +get)} {(%R~y +@hash)}} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* resetchannels &ch* -@all +@read -@string +get -config|get +client|list +select|0 (~x resetchannels -@all +get) (%R~y resetchannels -@all +@hash)}}
            {acl getuser foo} {flags {on sanitize-payload} passwords 30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 commands {-@all +@read -@string +get -config|get +client|list +select|0} keys ~* channels &ch* selectors {{commands {-@all +get} keys ~x channels {}} {commands {-@all +@hash} keys %R~y channels {}}}}
            {acl setuser foo clearselectors resetkeys resetchannels nopass} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo on nopass sanitize-payload resetchannels -@all +@read -@string +get -config|get +client|list +select|0}}
            {acl setuser foo reset} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user foo off sanitize-payload resetchannels -@all}}
            {acl users} {default foo}
            {acl whoami} default
            {acl setuser u2 +config|get +config|set +config} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {-@all +config} keys {} channels {} selectors {}}
            {acl setuser u2 -config|get} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {-@all +config -config|get} keys {} channels {} selectors {}}
            {acl setuser u2 +get +get -get +get} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {-@all +config -config|get +get} keys {} channels {} selectors {}}
            {acl setuser u2 allcommands -get} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {+@all -get} keys {} channels {} selectors {}}
            {acl setuser u2 nocommands} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands -@all keys {} channels {} selectors {}}
            {acl setuser u2 +@all +get} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {+@all +get} keys {} channels {} selectors {}}
            {acl setuser u2 -select|0} {ERROR {ERR Error in ACL SETUSER modifier '-select|0': Unknown command or category name in ACL}}
            {acl setuser u2 +config|bogus} {ERROR {ERR Error in ACL SETUSER modifier '+config|bogus': Unknown command or category name in ACL}}
            {acl setuser u2 +get|x} OK
            {acl setuser u2 +@hash|x} {ERROR {ERR Error in ACL SETUSER modifier '+@hash|x': Unknown command or category name in ACL}}
            {acl setuser u2 -@all +select|0 +select|1 -select} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {-@all -select} keys {} channels {} selectors {}}
            {acl setuser u2 +acl|whoami} OK
            {acl getuser u2} {flags {off sanitize-payload} passwords {} commands {-@all -select +acl|whoami} keys {} channels {} selectors {}}
            {acl getuser nouser} {}
            {acl deluser default} {ERROR {ERR The 'default' user cannot be removed}}
            {acl deluser nouser u2 foo} 2
            {acl users} default
            {acl genpass 0} {ERROR {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096}}
            {acl genpass 4097} {ERROR {ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096}}
            {acl genpass x} {ERROR {ERR value is not an integer or out of range}}
            {acl cat bogus} {ERROR {ERR Unknown category 'bogus'}}
            {acl setuser {a b}} {ERROR {ERR Usernames can't contain spaces or null characters}}
            {acl setuser x on nopass ~* +get} OK
            {acl dryrun x get k} OK
            {acl dryrun x set k v} {User x has no permissions to run the 'set' command}
            {acl dryrun x set} {ERROR {ERR wrong number of arguments for 'set' command}}
            {acl dryrun nouser get k} {ERROR {ERR User 'nouser' not found}}
            {acl dryrun x bogus} {ERROR {ERR Command 'bogus' not found}}
            {acl setuser u3 +@read +@read +get +@read} OK
            {acl getuser u3} {flags {off sanitize-payload} passwords {} commands {-@all +get +@read} keys {} channels {} selectors {}}
            {acl setuser u3 {(~x +bogus)}} {ERROR {ERR Error in ACL SETUSER modifier '(~x +bogus)': Unknown command or category name in ACL}}
            {acl setuser u3 (on)} {ERROR {ERR Error in ACL SETUSER modifier '(on)': Syntax error}}
            {acl setuser u3 (~x} {ERROR {ERR Unmatched parenthesis in acl selector starting at '(~x'.}}
            {acl setuser u3 (~x +get} {ERROR {ERR Unmatched parenthesis in acl selector starting at '(~x'.}}
            {acl setuser u3 %X~x} {ERROR {ERR Error in ACL SETUSER modifier '%X~x': Syntax error}}
            {acl setuser u3 %R~x %W~x %RW~y ~y} OK
            {acl getuser u3} {flags {off sanitize-payload} passwords {} commands {-@all +get +@read} keys {~x ~y} channels {} selectors {}}
            {acl setuser u3 %~x} {ERROR {ERR Error in ACL SETUSER modifier '%~x': Syntax error}}
            {acl setuser u3 %R~*} OK
            {acl getuser u3} {flags {off sanitize-payload} passwords {} commands {-@all +get +@read} keys {~x ~y %R~*} channels {} selectors {}}
            {acl setuser u3 ~* %R~z} {ERROR {ERR Error in ACL SETUSER modifier '%R~z': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns}}
            {acl load} {ERROR {ERR This instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a configuration file set) in order to store users in the configuration.}}
            {acl save} {ERROR {ERR This instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a configuration file set) in order to store users in the configuration.}}
            {acl log -1} {}
            {acl log 0} {}
            {acl log x} {ERROR {ERR value is not an integer or out of range}}
            {acl log 1 2} {ERROR {ERR unknown subcommand or wrong number of arguments for 'log'. Try ACL HELP.}}
            {acl setuser u3 +config|get|x} {ERROR {ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported}}
            {acl setuser u3 +config|bogus|x} {ERROR {ERR Error in ACL SETUSER modifier '+config|bogus|x': Unknown command or category name in ACL}}
            {acl setuser u3 +@all|x} {ERROR {ERR Error in ACL SETUSER modifier '+@all|x': Unknown command or category name in ACL}}
            {acl setuser u3 -config|get +config} OK
            {acl getuser u3} {flags {off sanitize-payload} passwords {} commands {-@all +get +@read +config} keys {~x ~y %R~*} channels {} selectors {}}
            {acl setuser u3 skip-sanitize-payload >a >b >a <b} OK
            {acl getuser u3} {flags {off skip-sanitize-payload} passwords ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb commands {-@all +get +@read +config} keys {~x ~y %R~*} channels {} selectors {}}
            {acl setuser u3 #30C952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4} {ERROR {ERR Error in ACL SETUSER modifier '#30C952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters}}
            {acl setuser u3 !30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4} {ERROR {ERR Error in ACL SETUSER modifier '!30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4': The password you are trying to remove from the user does not exist}}
            {acl setuser u3 #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 !30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4} OK
            {acl getuser u3} {flags {off skip-sanitize-payload} passwords ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb commands {-@all +get +@read +config} keys {~x ~y %R~*} channels {} selectors {}}
            {acl setuser u3 clearselectors} OK
            {acl setuser u3 bogusop} {ERROR {ERR Error in ACL SETUSER modifier 'bogusop': Syntax error}}
            {acl setuser} {ERROR {ERR wrong number of arguments for 'acl|setuser' command}}
            {acl bogus} {ERROR {ERR unknown subcommand 'bogus'. Try ACL HELP.}}
            {acl setuser u4 on {(+get ~a*)} {(+set ~b* &c*)} %R~x} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user u3 off skip-sanitize-payload #ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb ~x ~y %R~* resetchannels -@all +get +@read +config} {user u4 on sanitize-payload %R~x resetchannels -@all (~a* resetchannels -@all +get) (~b* resetchannels &c* -@all +set)} {user x on nopass sanitize-payload ~* resetchannels -@all +get}}
            {acl dryrun u4 get a1} OK
            {acl dryrun u4 get b1} {User u4 has no permissions to access the 'b1' key}
            {acl dryrun u4 set b1 v} OK
            {acl dryrun u4 set a1 v} {User u4 has no permissions to access the 'a1' key}
            {acl dryrun u4 get x} {User u4 has no permissions to access the 'x' key}
            {acl dryrun u4 publish c1 m} {User u4 has no permissions to run the 'publish' command}
            {acl dryrun u4 publish zz m} {User u4 has no permissions to run the 'publish' command}
            {acl dryrun u4 mget a1 b1} {User u4 has no permissions to run the 'mget' command}
            {acl dryrun u4 mget x a1} {User u4 has no permissions to run the 'mget' command}
            {acl setuser u5 on +psubscribe +subscribe +publish +ssubscribe +spublish &foo* &bar} OK
            {acl dryrun u5 psubscribe foo*} OK
            {acl dryrun u5 psubscribe fo*} {User u5 has no permissions to access the 'fo*' channel}
            {acl dryrun u5 subscribe fooa bar barb} {User u5 has no permissions to access the 'barb' channel}
            {acl dryrun u5 psubscribe bar} OK
            {acl dryrun u5 ssubscribe foo1} OK
            {acl dryrun u5 spublish x m} {User u5 has no permissions to access the 'x' channel}
            {acl setuser u6 +@all -@dangerous +keys} OK
            {acl getuser u6} {flags {off sanitize-payload} passwords {} commands {+@all -@dangerous +keys} keys {} channels {} selectors {}}
            {acl dryrun u6 flushall} {User u6 has no permissions to run the 'flushall' command}
            {acl dryrun u6 keys *} OK
            {acl dryrun u6 config get x} {User u6 has no permissions to run the 'config|get' command}
            {acl dryrun u6 client kill id 1} {User u6 has no permissions to run the 'client|kill' command}
            {acl setuser u7 -@all +client +client|list -client|kill} OK
            {acl getuser u7} {flags {off sanitize-payload} passwords {} commands {-@all +client +client|list -client|kill} keys {} channels {} selectors {}}
            {acl setuser u7 -client} OK
            {acl getuser u7} {flags {off sanitize-payload} passwords {} commands {-@all -client} keys {} channels {} selectors {}}
            {acl setuser u8 on %R~r* %W~w* +@all} OK
            {acl dryrun u8 copy r1 w1} OK
            {acl dryrun u8 copy w1 r1} {User u8 has no permissions to access the 'w1' key}
            {acl dryrun u8 exists w1} OK
            {acl dryrun u8 type w1} OK
            {acl dryrun u8 get w1} {User u8 has no permissions to access the 'w1' key}
            {acl dryrun u8 set r1 v} {User u8 has no permissions to access the 'r1' key}
            {acl dryrun u8 lmove r1 w1 left right} {User u8 has no permissions to access the 'r1' key}
            {acl dryrun u8 lmove w1 w2 left right} {User u8 has no permissions to access the 'w1' key}
            {acl dryrun u8 object encoding w1} OK
            {acl dryrun u8 rename w1 w2} {User u8 has no permissions to access the 'w1' key}
            {acl dryrun u8 append w1 x} OK
            {acl dryrun u8 del r1} {User u8 has no permissions to access the 'r1' key}
            {acl dryrun u8 touch r1} OK
            {acl dryrun u8 sort r1} OK
            {acl dryrun u8 sort r1 store w1} OK
            {acl dryrun u8 zunionstore w1 2 r1 r2} OK
            {acl dryrun u8 zunionstore w1 2 r1 w2} {User u8 has no permissions to access the 'w2' key}
            {acl dryrun u8 eval x 1 r1} {User u8 has no permissions to access the 'r1' key}
            {acl setuser u9 on -@all +@hash +@transaction} OK
            {acl getuser u9} {flags {on sanitize-payload} passwords {} commands {-@all +@hash +@transaction} keys {} channels {} selectors {}}
            {acl dryrun u9 hset h f v} {User u9 has no permissions to access the 'h' key}
            {acl dryrun u9 get h} {User u9 has no permissions to run the 'get' command}
            {acl dryrun u9 multi} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user u3 off skip-sanitize-payload #ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb ~x ~y %R~* resetchannels -@all +get +@read +config} {user u4 on sanitize-payload %R~x resetchannels -@all (~a* resetchannels -@all +get) (~b* resetchannels &c* -@all +set)} {user u5 on sanitize-payload resetchannels &foo* &bar -@all +psubscribe +subscribe +publish +ssubscribe +spublish} {user u6 off sanitize-payload resetchannels +@all -@dangerous +keys} {user u7 off sanitize-payload resetchannels -@all -client} {user u8 on sanitize-payload %R~r* %W~w* resetchannels +@all} {user u9 on sanitize-payload resetchannels -@all +@hash +@transaction} {user x on nopass sanitize-payload ~* resetchannels -@all +get}}
            {acl deluser u3 u4 u5 u6 u7 u8 u9 x} 8
            {acl setuser u10 on allkeys allchannels allcommands} OK
            {acl list} {{user default on nopass sanitize-payload ~* &* +@all} {user u10 on sanitize-payload ~* &* +@all}}
            {acl setuser u10 resetchannels} OK
            {acl getuser u10} {flags {on sanitize-payload} passwords {} commands +@all keys ~* channels {} selectors {}}
            {acl deluser u10} 1
            {acl help} {{ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} {CAT [<category>]} {    List all commands that belong to <category>, or all command categories} {    when no category is specified.} {DELUSER <username> [<username> ...]} {    Delete a list of users.} {DRYRUN <username> <command> [<arg> ...]} {    Returns whether the user can execute the given command without executing the command.} {GETUSER <username>} {    Get the user's details.} {GENPASS [<bits>]} {    Generate a secure 256-bit user password. The optional `bits` argument can} {    be used to specify a different size.} LIST {    Show users details in config file format.} LOAD {    Reload users from the ACL file.} {LOG [<count> | RESET]} {    Show the ACL log entries.} SAVE {    Save the current config to the ACL file.} {SETUSER <username> <attribute> [<attribute> ...]} {    Create or modify a user with the specified attributes.} USERS {    List all the registered usernames.} WHOAMI {    Return the current connection username.} HELP {    Print this help.}}
        } {
            if {[catch {r {*}$cmd} got]} { set got [list ERROR $got] }
            assert_equal $want $got $cmd
        }
    }

    test "ACL CAT and COMMAND INFO give Valkey 8's categories" {
        assert_equal {keyspace read write set sortedset list hash string bitmap hyperloglog geo stream pubsub admin fast slow blocking dangerous connection transaction scripting} [r acl cat]
        assert_equal {append decr decrby get getdel getex getrange getset incr incrby incrbyfloat lcs mget mset msetnx psetex set setex setnx setrange strlen substr} [lsort [r acl cat string]]
        assert_equal {acl|deluser acl|dryrun acl|getuser acl|list acl|load acl|log acl|save acl|setuser acl|users} [lsort [lsearch -all -inline [r acl cat admin] acl|*]]
        foreach {cmd cats} {
            flushall {@keyspace @write @slow @dangerous}
            sort {@write @set @sortedset @list @slow @dangerous}
            info {@slow @dangerous}
            keys {@keyspace @read @slow @dangerous}
            wait {@slow @blocking @connection}
            client {@slow}
            asking {@fast @connection}
            lastsave {@admin @fast @dangerous}
            swapdb {@keyspace @write @fast @dangerous}
            restore-asking {@keyspace @write @slow @dangerous}
            get {@read @string @fast}
        } {
            assert_equal $cats [lindex [r command info $cmd] 0 6] $cmd
        }
        foreach {cmd cats} {config|get {@admin @slow @dangerous} acl|cat {@slow}
                            acl|setuser {@admin @slow @dangerous}} {
            lassign [split $cmd |] top sub
            foreach s [lindex [r command info $top] 0 9] {
                if {[lindex $s 0] eq $cmd} { assert_equal $cats [lindex $s 6] $cmd }
            }
        }
    }

    test "ACL GENPASS: 256 bits of hex by default, rounded up to whole hex digits" {
        assert_match {[0-9a-f]*} [r acl genpass]
        assert_equal 64 [string length [r acl genpass]]
        assert_equal 2 [string length [r acl genpass 5]]
        assert_equal 1024 [string length [r acl genpass 4096]]
        assert_not_equal [r acl genpass] [r acl genpass]
    }

    test "AUTH as a user; NOPERM for commands, keys and channels, as Valkey words them" {
        r acl log reset
        r acl setuser alice on >pa ~k* %R~r* %W~w* &ch* +@all -flushall -config|set
        set c [valkey_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth alice bad}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c auth nobody x}
        assert_equal OK [$c auth alice pa]
        assert_equal alice [$c acl whoami]
        assert_match "* user=alice *" [$c client info]
        assert_equal {} [$c get k1]
        assert_error "NOPERM No permissions to access a key" {$c get x1}
        assert_error "NOPERM No permissions to access a key" {$c set r1 v}
        assert_equal OK [$c set w1 v]
        assert_error "NOPERM No permissions to access a key" {$c get w1}
        # EXISTS and TYPE neither read nor write the value: any pattern will do.
        assert_equal 1 [$c exists w1]
        assert_equal string [$c type w1]
        assert_error "NOPERM No permissions to access a key" {$c mset k1 1 x 2}
        assert_error "NOPERM User alice has no permissions to run the 'flushall' command" {$c flushall}
        assert_error "NOPERM User alice has no permissions to run the 'config|set' command" {$c config set maxmemory 0}
        assert_equal {maxmemory 0} [$c config get maxmemory]
        assert_equal 0 [$c publish ch1 m]
        assert_error "NOPERM No permissions to access a channel" {$c publish zz m}
        assert_error "NOPERM No permissions to access a channel" {$c spublish zz m}
        assert_equal 0 [$c copy r1 w2]
        assert_error "NOPERM No permissions to access a key" {$c copy w1 r2}
        assert_error "NOPERM No permissions to access a channel" {$c subscribe zz}
        assert_equal 5 [s acl_access_denied_key]
        assert_equal 2 [s acl_access_denied_cmd]
        assert_equal 3 [s acl_access_denied_channel]
        assert_equal 2 [s acl_access_denied_auth]
    }

    test "ACL LOG: one entry per reason, context, object and user, counted and moved first" {
        set log [r acl log]
        set brief {}
        foreach e $log {
            lappend brief [list [dict get $e count] [dict get $e reason] [dict get $e context] \
                               [dict get $e object] [dict get $e username]]
        }
        assert_equal {{3 channel toplevel zz alice} {2 key toplevel w1 alice} {1 command toplevel config|set alice} {1 command toplevel flushall alice} {1 key toplevel x alice}} [lrange $brief 0 4]
        assert_equal {1 auth toplevel auth alice} [lindex $brief end]
        assert_equal {1 auth toplevel auth nobody} [lindex $brief end-1]
        set e [lindex $log 0]
        assert_equal {count reason context object username age-seconds client-info entry-id timestamp-created timestamp-last-updated} [dict keys $e]
        assert_match "id=* cmd=subscribe user=alice *" [dict get $e client-info]
        assert {[dict get $e timestamp-last-updated] >= [dict get $e timestamp-created]}
        assert_equal 2 [llength [r acl log 2]]
        assert_equal OK [r acl log reset]
        assert_equal {} [r acl log]
    }

    test "A transaction: a denied command aborts EXEC; a rule changed before EXEC fails that command" {
        r acl setuser tx on nopass ~k* +@all
        set c [valkey_client]
        $c auth tx x
        $c multi
        assert_error "NOPERM No permissions to access a key" {$c set zz 1}
        assert_error "EXECABORT Transaction discarded because of previous errors." {$c exec}
        $c multi
        assert_equal QUEUED [$c set k2 1]
        assert_equal QUEUED [$c get k2]
        r acl setuser tx -set
        $c readraw 1
        $c deferred 1
        $c exec
        assert_equal {*2} [$c read]
        assert_equal "-NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to execute the command or subcommand" [$c read]
        assert_equal {$-1} [$c read]
        $c readraw 0
        $c deferred 0
        set e [lindex [r acl log 1] 0]
        assert_equal {command multi set tx} [list [dict get $e reason] [dict get $e context] [dict get $e object] [dict get $e username]]
        # Denied EXEC itself aborts the transaction.
        r acl setuser tx -exec
        $c multi
        $c get k1
        assert_error "EXECABORT Transaction discarded because of: NOPERM User tx has no permissions to run the 'exec' command" {$c exec}
        assert_equal PONG [$c ping]
    }

    test "SORT BY and GET patterns need read access to every key" {
        r acl setuser sorter on nopass ~k* +@all
        set c [valkey_client]
        $c auth sorter x
        $c del k1
        $c rpush k1 2 1
        assert_equal {1 2} [$c sort k1]
        assert_equal {2 1} [$c sort k1 by nosort]
        assert_error "ERR BY option of SORT denied due to insufficient ACL permissions." {$c sort k1 by k*}
        assert_error "ERR GET option of SORT denied due to insufficient ACL permissions." {$c sort k1 get #}
        r acl setuser sorter %R~*
        assert_equal {1 2} [$c sort k1 by k* get #]
    }

    test "A changed user keeps its connections and the next command obeys the new rules" {
        r acl setuser bob on >pw ~* &* +@all
        set c [valkey_client]
        $c auth bob pw
        assert_equal OK [$c set b 1]
        r acl setuser bob -set
        assert_error "NOPERM User bob has no permissions to run the 'set' command" {$c set b 2}
        r acl setuser bob off
        assert_equal 1 [$c get b]
        assert_error "WRONGPASS*" {[valkey_client] auth bob pw}
        r acl setuser bob on
        # Deleting the user closes its connections (after the reply for its own).
        assert_equal 1 [r acl deluser bob]
        assert_error "*" {$c ping}
        r acl setuser bob on nopass +@all
        set d [valkey_client]
        $d auth bob x
        assert_equal 1 [$d acl deluser bob]
        assert_error "*" {$d ping}
    }

    test "CLIENT KILL USER closes the connections of that user" {
        r acl setuser carol on nopass +@all
        set c1 [valkey_client]
        set c2 [valkey_client]
        $c1 auth carol x
        $c2 auth carol x
        assert_equal 2 [r client kill user carol]
        assert_error "ERR No such user 'nobody'" {r client kill user nobody}
        assert_error "*" {$c1 ping}
    }

    test "A pub/sub client whose channels are no longer allowed is closed" {
        r acl setuser sub on nopass &a* +@all ~*
        set c [valkey_client]
        $c auth sub x
        $c subscribe abc
        $c psubscribe a*
        r acl setuser sub resetchannels &a*
        r publish abc m1
        assert_equal {message abc m1} [$c read]
        assert_equal {pmessage a* abc m1} [$c read]
        r acl setuser sub resetchannels &b*
        wait_for_condition 50 20 {[llength [lsearch -all [split [r client list] \n] "*user=sub *"]] == 0} else {
            fail "the subscriber of user sub is still connected"
        }
    }

    test "HELLO AUTH authenticates as a user; a failed one is logged with object hello" {
        r acl log reset
        r acl setuser hu on >hp +@all
        set c [valkey_client]
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$c hello 3 auth hu bad}
        set h [$c hello 2 auth hu hp]
        assert_equal 2 [dict get $h proto]
        assert_equal hu [$c acl whoami]
        set e [lindex [r acl log] 0]
        assert_equal {auth toplevel hello hu} [list [dict get $e reason] [dict get $e context] [dict get $e object] [dict get $e username]]
        # RESET goes back to the default user.
        assert_equal RESET [$c reset]
        assert_equal default [$c acl whoami]
    }

    test "requirepass is the default user's password" {
        r config set requirepass s3cret
        assert_equal "user default on sanitize-payload #[exec sh -c {printf s3cret | sha256sum | cut -c1-64}] ~* &* +@all" [lsearch -inline [r acl list] "user default *"]
        set c [valkey_client]
        assert_error "NOAUTH Authentication required." {$c ping}
        assert_equal OK [$c auth s3cret]
        assert_equal {requirepass s3cret} [r config get requirepass]
        r config set requirepass ""
        assert_equal "user default on nopass sanitize-payload ~* &* +@all" [lsearch -inline [r acl list] "user default *"]
        # Without nopass and without a password nobody can log in as default.
        r acl setuser default resetpass
        set d [valkey_client]
        assert_error "NOAUTH Authentication required." {$d ping}
        assert_error "WRONGPASS invalid username-password pair or user is disabled." {$d auth x}
        r acl setuser default nopass
        assert_error "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?" {$d auth x}
    }

    test "MONITOR does not show ACL commands (they are admin commands)" {
        set m [valkey_client]
        $m monitor
        r acl setuser mon on >secret
        r acl getuser mon
        r set afterwards 1
        assert_match {*"set" "afterwards" "1"*} [$m read]
    }
}

# A config file's user lines: the users exist from the start; CONFIG REWRITE writes them back.
start_server {tags {acl} config {user {dave on >dpw ~d* +@all}}} {
    test "Users from the config file, and CONFIG REWRITE keeps them" {
        assert_equal {dave default} [r acl users]
        set c [valkey_client]
        assert_equal OK [$c auth dave dpw]
        assert_error "NOPERM No permissions to access a key" {$c get x}
        r acl setuser erin on nopass +get ~e*
        r config rewrite
        set conf [::srv::file_tail [srv config_file] 1000]
        assert_match "*\nuser dave on sanitize-payload #* ~d* resetchannels +@all\n*" $conf
        assert_match "*\nuser erin on nopass sanitize-payload ~e* resetchannels -@all +get*" $conf
        restart_server
        assert_equal {dave default erin} [r acl users]
        assert_equal "user erin on nopass sanitize-payload ~e* resetchannels -@all +get" [lsearch -inline [r acl list] "user erin *"]
    }
}

# The ACL file: loaded at start, ACL SAVE writes it, ACL LOAD is all or nothing.
set ::aclfile_dir [::srv::make_dir]
set ::aclfile [file join $::aclfile_dir users.acl]
set f [open $::aclfile w]
puts $f "user fred on >fpw ~f* &* +@all"
puts $f ""
puts $f "user gina on nopass ~g* +get"
close $f
start_server [list tags {acl} config [list aclfile $::aclfile]] {
    test "The ACL file is loaded at start" {
        assert_equal {default fred gina} [r acl users]
        assert_equal "user gina on nopass sanitize-payload ~g* resetchannels -@all +get" [lsearch -inline [r acl list] "user gina *"]
    }

    test "ACL SAVE writes the users; ACL LOAD reads them back" {
        r acl setuser hank on nopass ~* +@read
        assert_equal OK [r acl save]
        set lines [split [string trim [::srv::file_tail $::aclfile 100]] \n]
        assert_equal [r acl list] $lines
        r acl deluser hank
        assert_equal OK [r acl load]
        assert_equal {default fred gina hank} [r acl users]
    }

    test "ACL LOAD with an error changes nothing and names the line" {
        set f [open $::aclfile w]
        puts $f "user fred on >fpw ~f* &* +@all"
        puts $f "user ivy on +nosuchcommand"
        close $f
        assert_error "ERR $::aclfile:2: Error in applying operation '+nosuchcommand': Unknown command or category name in ACL. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        set f [open $::aclfile w]
        puts $f "user fred on >fpw ~f* &* +@all"
        puts $f "user fred off"
        close $f
        assert_error "ERR WARNING: Duplicate user 'fred' found on line 2. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        set f [open $::aclfile w]
        puts $f "# comments are not allowed"
        close $f
        assert_error "ERR $::aclfile:1 should start with user keyword followed by the username. WARNING: ACL errors detected, no change to the previously active ACL rules was performed" {r acl load}
        assert_equal {default fred gina hank} [r acl users]
    }

    test "ACL LOAD closes the clients of changed and removed users, not of unchanged ones" {
        set f [open $::aclfile w]
        puts $f "user fred on >fpw ~f* &* +@all"
        puts $f "user gina on nopass ~g* +get +set"
        close $f
        set cf [valkey_client]
        $cf auth fred fpw
        set cg [valkey_client]
        $cg auth gina x
        set ch [valkey_client]
        $ch auth hank x
        assert_equal OK [r acl load]
        assert_equal {default fred gina} [r acl users]
        assert_equal PONG [$cf ping]
        assert_error "*" {$cg ping}
        assert_error "*" {$ch ping}
    }
}
file delete -force $::aclfile_dir

tags {acl} {
    test "Bad users in the configuration stop the start, saying why" {
        lassign [server_try_start "port [::srv::find_free_port]\nsave \"\"\nuser alice on +get\nuser bob bogus\n"] code out
        assert_equal 1 $code
        # (Valkey names the word 'user' there; we name the user.)
        assert_match "*>>> 'user bob bogus'\nError in user declaration '*': Syntax error*" $out
        lassign [server_try_start "port [::srv::find_free_port]\nsave \"\"\nuser alice on\nuser alice off\n"] code out
        assert_equal 1 $code
        assert_match "*Error in user declaration 'alice': Duplicate user found. A user can only be defined once in config files*" $out
        lassign [server_try_start "port [::srv::find_free_port]\nsave \"\"\nuser alice on\naclfile /tmp/x.acl\n"] code out
        assert_equal 1 $code
        assert_match "*Configuring Valkey with users defined in valkey.conf and at the same setting an ACL file path is invalid.*" $out
        lassign [server_try_start "port [::srv::find_free_port]\nsave \"\"\naclfile /nonexistent/users.acl\n"] code out
        assert_equal 1 $code
        assert_match "*Aborting Valkey startup because of ACL errors: Error loading ACLs, opening file '/nonexistent/users.acl': No such file or directory*" $out
    }
}

# masteruser/masterauth: a replica logs in as a user of its primary.
start_server {tags {acl repl} config {user {default off} user:2 {repl on >rpw +@all ~* &*}}} {
    start_server {tags {acl repl} overrides {masteruser repl masterauth rpw}} {
        test "A replica authenticates with masteruser and masterauth" {
            set c [valkey_client -1]
            $c auth repl rpw
            $c set before 1
            r replicaof 127.0.0.1 [srv -1 port]
            wait_for_condition 200 50 {[info_field [r info replication] master_link_status] eq "up"} else {
                fail "the replica never synced\n[::srv::file_tail [srv 0 log] 15]"
            }
            $c set after 2
            wait_for_condition 100 20 {[r get after] eq "2"} else { fail "write not replicated" }
            assert_equal 1 [r get before]
        }
    }
}
