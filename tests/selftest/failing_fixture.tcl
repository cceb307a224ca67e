# Fixture for tests/unit/harness.tcl, never run on its own by the suite (the runner only
# globs unit/, integration/ and cluster/). Every test below except the first and the
# deliberate skip must be reported as failed; the self-test checks each outcome, the
# summary line and the exit code of a runner run over this file.

test "fixture: a passing test" {
    assert_equal 1 1
}

test "fixture: fail called directly in the body" {
    fail "direct fail"
}

test "fixture: testutil::fail called directly inside a loop" {
    foreach i {1 2 3} {
        if {$i == 2} { ::testutil::fail "direct fail in a loop at $i" }
    }
}

test "fixture: a failing assert in a loop" {
    for {set i 0} {$i < 3} {incr i} { assert_equal 0 $i }
}

proc fixture_helper_inner {} { error "boom in a helper" }
proc fixture_helper {} { fixture_helper_inner }
test "fixture: an error in a helper" {
    fixture_helper
}

proc fixture_check_helper {} { assert_equal a b "deep in a helper" }
test "fixture: a failed check caught by a catch" {
    catch {fixture_check_helper}
}

test "fixture: wait_for_condition running out" {
    wait_for_condition 3 1 {0}
}

test "fixture: a skip not marked deliberate" {
    skip "peer missing"
}

test "fixture: a deliberate skip" {
    skip_deliberate "does not apply here"
}

start_server {} {
    test "fixture: the server crashes and the body does not notice" {
        exec kill -SEGV [srv pid]
        set deadline [expr {[clock milliseconds] + 10000}]
        while {[server_alive] && [clock milliseconds] < $deadline} { after 10 }
    }
}

start_server {} {
    test "fixture: the server crashes under a command" {
        exec kill -KILL [srv pid]
        r ping
    }
}

test "fixture: break out of the body" {
    break
}

error "fixture: the file aborts outside any test"
