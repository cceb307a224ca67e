# Self-test of the test harness: runs the runner over the fixtures in tests/selftest/ and
# checks that every kind of failure is counted as failed, that only deliberate skips count as
# skipped, and that the last line and the exit code say what happened.

# Runs the runner over one fixture; returns {exit_code output_lines}.  The nested run uses
# one worker and the upper half of this worker's own port range, so it never collides with
# the servers of the enclosing run.
proc harness_run {fixture} {
    set base [expr {$::cfg(port_base) + $::cfg(slot) * $::cfg(port_span) + $::cfg(port_span) / 2}]
    # Its servers' directories (kept by the failing fixture) go in one of ours, removed with it.
    set tmp [::srv::make_dir]
    set cmd [list env TEST_PORT_BASE=$base TEST_PORT_SPAN=[expr {$::cfg(port_span) / 2}] TMPDIR=$tmp \
                 [info nameofexecutable] [file join $::testdir test_helper.tcl] \
                 --server $::cfg(server) --jobs 1 --timeout 120 \
                 --single [file join $::testdir selftest $fixture]]
    set code [catch {exec {*}$cmd 2>@1} out opts]
    set rc 0
    if {$code} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] ne "CHILDSTATUS"} { error "runner did not run: $out" }
        set rc [lindex $ec 2]
        # exec appends "child process exited abnormally" to the output
        regsub {\nchild process exited abnormally$} $out {} out
    }
    return [list $rc [split [string trimright $out \n] \n]]
}

# The outcome ("ok", "err" or "skip") of the test called name in the runner's output.
proc harness_outcome {lines name} {
    set found {}
    foreach l $lines {
        if {[regexp {^\[(ok|err|skip)\] [^:]+: (.*?)( \(.*\))?$} $l -> kind n] && $n eq $name} {
            lappend found $kind
        }
    }
    return $found
}

test "Harness: every kind of failure is counted, and the run says it failed" {
    lassign [harness_run failing_fixture.tcl] rc lines
    set expect {
        "fixture: a passing test" ok
        "fixture: fail called directly in the body" err
        "fixture: testutil::fail called directly inside a loop" err
        "fixture: a failing assert in a loop" err
        "fixture: an error in a helper" err
        "fixture: a failed check caught by a catch" err
        "fixture: wait_for_condition running out" err
        "fixture: a skip not marked deliberate" err
        "fixture: a deliberate skip" skip
        "fixture: the server crashes and the body does not notice" err
        "fixture: the server crashes under a command" err
        "fixture: break out of the body" err
        "(test file aborted)" err
    }
    set all [join $lines \n]
    foreach {name kind} $expect {
        assert_equal $kind [harness_outcome $lines $name] "outcome of '$name' in:\n$all"
    }
    assert_equal "1 passed, 11 failed, 1 skipped" [lindex $lines end] $all
    assert_equal 1 $rc "runner exit code"
    # the crash reports carry the server's log
    assert_match "*server died*is gone*" $all
}

test "Harness: a run with only passes and deliberate skips succeeds" {
    lassign [harness_run passing_fixture.tcl] rc lines
    set all [join $lines \n]
    foreach {name kind} {
        "fixture: an assert that holds" ok
        "fixture: an expected error" ok
        "fixture: an early return is not a failure" ok
        "fixture: a deliberate skip" skip
    } {
        assert_equal $kind [harness_outcome $lines $name] "outcome of '$name' in:\n$all"
    }
    assert_equal "3 passed, 0 failed, 1 skipped" [lindex $lines end] $all
    assert_equal 0 $rc "runner exit code"
}
