# LOLWUT as Valkey 8.0.1 answers it: a verbatim text that ends with "Redis ver. <version>"
# (the valkey_version INFO reports), a drawing only for VERSION 5 (its arguments clamped as
# Valkey clamps them), and its COMMAND INFO / DOCS. The drawing itself is ours. Passes on
# Valkey 8.0.1 with --tags -beyond-valkey (the tagged test looks at our VERSION 6).

proc lolwut_version {} {
    return [info_field [r info server] valkey_version]
}

start_server {tags {lolwut}} {
    test "LOLWUT without a drawing version is the version line alone" {
        set line "Redis ver. [lolwut_version]\n"
        assert_equal $line [r lolwut]
        foreach args {{version 8} {version 7} {version 4} {version -1} {version 55} {1 2} {version}
                      {VERSION 9 1 2 3}} {
            assert_equal $line [r lolwut {*}$args] "LOLWUT $args"
        }
        set c [valkey_client]
        $c readraw 1
        $c deferred 1
        $c hello 3
        while {[$c read] ne {*0}} {}
        $c lolwut
        assert_equal "=[expr {[string length $line] + 4}]" [$c read]
        assert_equal "txt:Redis ver. [lolwut_version]" [$c read]
        $c close
    }

    test "LOLWUT VERSION 5: Braille rows, a blank line, then the credit and the version" {
        set tail "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. [lolwut_version]\n"
        # one column, one square: one Braille character (U+2800..U+28FF: 3 bytes of UTF-8)
        set out [r lolwut version 5 1 1 1]
        assert_equal "\n$tail" [string range $out 3 end]
        binary scan $out cucu b0 b1
        assert {$b0 == 0xE2 && $b1 >= 0xA0 && $b1 <= 0xA3} "$b0 $b1"
        # zeros are clamped to 1
        assert_equal [string length $out] [string length [r lolwut version 5 0 0 0]]
        # squares narrower than a dot: no rows at all
        assert_equal $tail [r lolwut version 5 1 8 1]
        # the default: 66 columns, 8 x 12 squares
        set rows [split [string range [r lolwut version 5] 0 end-[string length $tail]] \n]
        assert_equal {} [lindex $rows end]
        set rows [lrange $rows 0 end-1]
        assert {[llength $rows] > 10}
        foreach row $rows { assert_equal [expr {66 * 3}] [string length $row] }
        # more than 1000 columns are 1000
        set wide [lindex [split [r lolwut version 5 5000 1 1] \n] 0]
        assert_equal [expr {1000 * 3}] [string length $wide]
    }

    test "LOLWUT argument errors" {
        assert_error "ERR value is not an integer or out of range" {r lolwut version x}
        assert_error "ERR value is not an integer or out of range" {r lolwut version 5 x}
        assert_error "ERR value is not an integer or out of range" {r lolwut version 5 1 1 y}
    }

    test "LOLWUT VERSION 6 is the version line here (Valkey 8 draws an image)" {
        assert_equal "Redis ver. [lolwut_version]\n" [r lolwut version 6]
    } {beyond-valkey}

    test "LOLWUT in COMMAND INFO and COMMAND DOCS" {
        assert_equal {lolwut -1 {readonly fast} 0 0 0 {@read @fast} {} {} {}} \
            [lindex [r command info lolwut] 0]
        assert_equal {summary {Displays computer art and the server version} since 5.0.0 group server arguments {{name version type integer display_text version token VERSION flags optional}}} \
            [lindex [r command docs lolwut] 1]
    }
}
