# What the log holds when the node crashes, and the stack traces an operator can ask for, as
# Valkey 8 writes them (server/crash_report.h): a fatal signal logs a bug report (the signal, the
# instruction, the stack trace with our function names, the command being run) and the node
# dies of that signal; SIGALRM logs where the main thread is and the node goes on; with
# watchdog-period, a loop pass longer than the period logs its stack; DEBUG ASSERT reports a
# failed assertion. crash-log-enabled no leaves fatal signals to the system.
# Valkey 8.0.1 passes these but the function-name check (its names are its own).

proc cr_wait_dead {} {
    wait_for_condition 100 50 {![::srv::alive [srv pid]]} else {
        fail "the node is still running\n[::srv::file_tail [srv log] 20]"
    }
}

proc cr_log {} { return [::srv::file_tail [srv log] 100000] }

# Runs a command that crashes the node, waits for it to be gone, and gives its log.
proc cr_crash_with {args} {
    expect_server_exit
    catch {r {*}$args}
    cr_wait_dead
    return [cr_log]
}

proc cr_count {pattern} {
    return [regexp -all -line -- $pattern [cr_log]]
}

# The stack trace section, whole.
proc cr_assert_stack_trace {} {
    assert_match "*------ STACK TRACE ------\nEIP:\n*------ STACK TRACE DONE ------*" [cr_log]
}

start_server {tags {crash}} {
    test "DEBUG SEGFAULT: a bug report with the stack trace, then the node dies of the signal" {
        set log [cr_crash_with debug segfault]
        assert_match "*=== VALKEY BUG REPORT START: Cut & paste starting from here ===*" $log
        assert_match "*crashed by signal: 11, si_code: *" $log
        assert_match "*Accessing address: 0xffffffffffffffff*" $log
        assert_match "*Crashed running the instruction at: 0x*" $log
        cr_assert_stack_trace
        # our function names, as the binary exports them (mangled: c++filt reads them)
        assert_match "*_ZN6server4CallEPNS_6ClientEPKNS_11CommandSpecE*" $log "Call in the frames"
        assert_match {*------ CURRENT CLIENT INFO ------*argv?0?: 'debug'*} $log
        assert_match "*=== VALKEY BUG REPORT END. Make sure to include from START to END. ===*" $log
        assert_equal 1 [cr_count {STACK TRACE -}] "one report"
    } {beyond-valkey}
}

start_server {tags {crash}} {
    test "SIGABRT from outside during a command: a bug report naming the sender" {
        set rd [valkey_client]
        $rd deferred 1
        $rd debug sleep 10
        after 200
        expect_server_exit
        exec kill -ABRT [srv pid]
        cr_wait_dead
        set log [cr_log]
        assert_match "*crashed by signal: 6, si_code: 0*" $log
        assert_match "*Killed by PID: *, UID: *" $log
        cr_assert_stack_trace
        assert_match "*=== VALKEY BUG REPORT END*" $log
    }
}

start_server {tags {crash}} {
    test "SIGALRM: the main thread's stack trace in the log, and the node goes on" {
        set rd [valkey_client]
        $rd deferred 1
        $rd debug sleep 1
        after 200
        exec kill -ALRM [srv pid]
        assert_equal OK [$rd read]
        assert_equal PONG [r ping]
        assert_match "*signal-handler (*) *Received SIGALRM\n\n------ STACK TRACE ------*" [cr_log]
        cr_assert_stack_trace
        assert_equal 0 [cr_count {BUG REPORT}]
    }

    test "watchdog-period: a loop pass longer than the period logs where it is" {
        assert_equal {watchdog-period 0} [r config get watchdog-period]
        r config set watchdog-period 200
        r debug sleep 1
        assert_match "*--- WATCHDOG TIMER EXPIRED ---*" [cr_log]
        set fired [cr_count {WATCHDOG TIMER EXPIRED}]
        # a pass under the period: nothing
        r debug sleep 0.01
        after 500
        assert_equal $fired [cr_count {WATCHDOG TIMER EXPIRED}]
        r config set watchdog-period 0
        r debug sleep 1
        assert_equal $fired [cr_count {WATCHDOG TIMER EXPIRED}]
        assert_equal PONG [r ping]
    }
}

start_server {tags {crash}} {
    test "DEBUG ASSERT: the failed assertion, the report, then the node aborts" {
        set log [cr_crash_with debug assert]
        assert_match "*ASSERTION FAILED ===*==> *:* '1 == 2' is not true*" $log
        assert_match {*=== VALKEY BUG REPORT START*STACK TRACE DONE*BUG REPORT END*} $log
        assert_equal 1 [cr_count {STACK TRACE -}] "the abort is not reported again"
    }
}

start_server {tags {crash} overrides {crash-log-enabled no}} {
    test "crash-log-enabled no: a crash is left to the system, no report" {
        assert_equal {crash-log-enabled no} [r config get crash-log-enabled]
        r config set crash-log-enabled yes
        r config set crash-log-enabled no
        cr_crash_with debug segfault
        assert_equal 0 [cr_count {BUG REPORT}]
    }
}
