# Fixture for tests/unit/harness.tcl: everything here passes or is skipped on purpose, so a
# runner run over it must exit 0 and say so on its last line.

test "fixture: an assert that holds" {
    foreach i {1 2 3} { assert {$i > 0} }
}

test "fixture: an expected error" {
    assert_error "*boom*" { error boom }
}

test "fixture: an early return is not a failure" {
    return
    fail "not reached"
}

test "fixture: a deliberate skip" {
    skip_deliberate "does not apply here"
}
