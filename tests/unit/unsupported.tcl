# Scripting and modules are refused on purpose (issue 12): the node has no Lua engine and
# loads no modules. Each command answers one error that says so; EVAL's and FCALL's declared
# keys are still described (COMMAND GETKEYS, cluster routing), as Valkey 8 describes them.

set ::us_script "ERR scripting is not supported by this node (it has no Lua engine): EVAL, EVALSHA, SCRIPT, FCALL and FUNCTION are not available"

start_server {tags {scripting}} {
    test "EVAL, EVALSHA, SCRIPT, FCALL, FUNCTION and their forms: one clear error" {
        foreach cmd {
            {eval {return 1} 0}
            {eval {return 1} 1 k}
            {evalsha 0123456789012345678901234567890123456789 0}
            {eval_ro {return 1} 0}
            {evalsha_ro 0123456789012345678901234567890123456789 0}
            {fcall f 0}
            {fcall_ro f 1 k}
            {script load {return 1}}
            {script flush}
            {function list}
            {function load x}
        } {
            assert_equal $::us_script [assert_error * {r {*}$cmd}] $cmd
        }
        assert_equal "ERR wrong number of arguments for 'eval' command" [assert_error * {r eval x}]
    }

    test "MODULE: one clear error" {
        assert_equal "ERR modules are not supported by this node" [assert_error * {r module list}]
        assert_equal "ERR modules are not supported by this node" [assert_error * {r module load /x.so}]
    }

    test "EVAL's and FCALL's declared keys, as Valkey 8 declares them" {
        assert_equal {{a {RW access update}} {b {RW access update}}} \
            [r command getkeysandflags eval {return 1} 2 a b]
        assert_equal {{a {RO access}}} [r command getkeysandflags fcall_ro f 1 a]
        assert_equal {a b} [r command getkeys evalsha 0123456789012345678901234567890123456789 2 a b]
    }
}
