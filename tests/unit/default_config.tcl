# valkey.conf, the documented default config: the node starts with it without a warning, and
# it names every directive (and alias) that CONFIG GET knows.

# Directive names valkey.conf documents: active lines, and the "# name value" lines of the
# recognised-only and hidden lists.
proc documented_directives {} {
    set f [open [file join $::rootdir valkey.conf]]
    set text [read $f]
    close $f
    set names {}
    set section 0
    set hashes 0
    set hidden 0
    foreach line [split $text \n] {
        # The list is the block between the second and third lines "#" of the section.
        if {[string match "*RECOGNISED, NOT YET ACTED UPON*" $line]} { set section 1 }
        if {$section && $line eq "#"} { incr hashes }
        set recognised [expr {$section && $hashes == 2}]
        if {[regexp {^([a-z][a-z0-9-]*) } $line -> n]} { lappend names $n }
        if {[regexp {^# (replicaof) <host> <port>$} $line -> n]} { lappend names $n }
        # "# name value" or "# name value   (note)" in the recognised-only list
        if {$recognised && [regexp {^# ([a-z][a-z0-9-]*) (\S+)( \S+)*( +\(.*\))?$} $line -> n]} {
            lappend names $n
        }
        # the hidden ones: "name value," in the paragraph after the list
        if {[string match "# Hidden directives*" $line]} { set hidden 1 }
        if {$hidden} {
            foreach {-> n} [regexp -all -inline {\m([a-z][a-z0-9-]+) (?:no|0|""|2097152)(?:,|\.)} $line] {
                lappend names $n
            }
        }
        # "(alias: a)" / "(aliases: a, b, ...)" name the old spellings
        if {[regexp {\(alias(?:es)?(?: of the second)?: ([^)]*)\)?} $line -> list]} {
            foreach n [split $list ", "] { if {$n ne ""} { lappend names $n } }
        }
    }
    return [lsort -unique $names]
}

tags {config} {
    test "valkey.conf starts the node and documents every directive CONFIG GET lists" {
        set port [::srv::find_free_port]
        set dir [::srv::make_dir]
        set pid [exec [file normalize $::cfg(server)] [file join $::rootdir valkey.conf] \
                     --port $port --dir $dir --logfile [file join $dir node.log] --save {} &]
        try {
            wait_for_condition 100 20 {![catch {exec redis-cli -p $port ping}]}
            set c [::resp::client 127.0.0.1 $port]
            lappend ::testutil::test_clients $c
            set documented [documented_directives]
            set missing {}
            foreach {name value} [$c config get *] {
                if {$name ni $documented} { lappend missing $name }
            }
            assert_equal {} $missing
            foreach name $documented {
                assert_equal 2 [llength [$c config get $name]] "valkey.conf documents '$name'"
            }
            # No warning at start: the documented file sets only defaults and acted-on values.
            set f [open [file join $dir node.log]]
            set log [read $f]
            close $f
            assert_no_match "*recognised but not implemented*" $log
        } finally {
            catch {exec kill -TERM $pid}
            wait_for_condition 200 20 {![::srv::alive $pid]}
            file delete -force $dir
        }
    }
}

proc log_file_contains {path text} {
    set f [open $path]
    set all [read $f]
    close $f
    return [expr {[string first $text $all] >= 0}]
}

tags {config} {
    test "Cluster mode: replicaof in the file stops the start, databases becomes 1" {
        set port [::srv::find_free_port]
        set dir [::srv::make_dir]
        lassign [server_try_start "port $port\ndir $dir\ncluster-enabled yes\nreplicaof 127.0.0.1 6379\n"] code out
        assert_equal 1 $code
        assert_match "*FATAL CONFIG FILE ERROR*\nreplicaof directive not allowed in cluster mode*" $out
        set pid [exec [file normalize $::cfg(server)] --port $port --dir $dir --cluster-enabled yes \
                     --databases 32 --save {} --logfile [file join $dir node.log] &]
        try {
            wait_for_condition 100 20 {![catch {exec redis-cli -p $port ping}]}
            assert_equal "databases\n1" [exec redis-cli -p $port config get databases]
            assert_equal "ERR SELECT is not allowed in cluster mode" [string trim [exec redis-cli -p $port select 1]]
            assert {[log_file_contains [file join $dir node.log] "Changing databases number from 32 to 1 since we are in cluster mode"]}
        } finally {
            catch {exec kill -TERM $pid}
            wait_for_condition 200 20 {![::srv::alive $pid]}
            file delete -force $dir
        }
    }
}
