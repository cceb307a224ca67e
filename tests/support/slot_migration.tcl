# Helpers of the atomic slot migration tests (tests/cluster/slot_migrate_*.tcl): a node's
# export job, waits on its state and on slot ownership, values comparable across nodes.

# The export job of node idx as a dict (the last one listed), or {} if none.
proc sma_job {idx} {
    set found {}
    foreach j [cn $idx cluster getslotmigrations] {
        if {[dict get $j operation] eq "EXPORT"} { set found $j }
    }
    return $found
}

proc sma_wait_state {idx states {timeout_ms 30000}} {
    ::cl::deadline_wait $timeout_ms {[dict get [sma_job $idx] state] in $states} \
        "node $idx's migration never reached $states: [sma_job $idx]"
}

# Every node sees owner own each slot of slots.
proc sma_wait_owner {slots owner} {
    foreach i [cluster_alive_nodes] {
        foreach s $slots {
            ::cl::deadline_wait 10000 {[cluster_slot_owner $s $i] == $owner} \
                "node $i does not see $owner own slot $s"
        }
    }
}

# A key's value, comparable across nodes whatever the encoding: through `client` (a command
# prefix: a client handle, or {cn idx}).
proc sma_value_via {client key} {
    set type [{*}$client type $key]
    switch $type {
        string { return [list string [{*}$client get $key]] }
        list { return [list list [{*}$client lrange $key 0 -1]] }
        set { return [list set [lsort [{*}$client smembers $key]]] }
        zset { return [list zset [{*}$client zrange $key 0 -1 withscores]] }
        hash { return [list hash [lsort -stride 2 [{*}$client hgetall $key]]] }
        default { return [list $type [{*}$client dump $key]] }
    }
}

proc sma_value {idx key} { return [sma_value_via [list cn $idx] $key] }

proc sma_errorstat {idx code} {
    set info [cn $idx info errorstats]
    if {[regexp "errorstat_$code:count=(\\d+)" $info -> n]} { return $n }
    return 0
}

# How many times node idx ran a command (INFO commandstats; subcommands as parent|sub).
proc sma_cmdcalls {idx cmd} {
    set re "cmdstat_[string map {| \\|} $cmd]:calls=(\\d+)"
    if {[regexp $re [cn $idx info commandstats] -> n]} { return $n }
    return 0
}

# The first job of CLUSTER GETSLOTMIGRATIONS on node idx as RESP3 sends it: a list of
# {field type} pairs, type "int" for a number (:), "bulk" for a string ($); and the map's size.
proc sma_resp3_fields {idx} {
    set c [cluster_client $idx]
    $c hello 3
    $c readraw 1
    set first [$c cluster getslotmigrations]
    if {![string match {\*[1-9]*} $first]} { error "not a non-empty array: $first" }
    set head [$c read]
    if {[string index $head 0] ne "%"} { error "not a map: $head" }
    set n [string range $head 1 end]
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        $c read  ;# $<len>
        set f [$c read]
        set t [$c read]
        switch -- [string index $t 0] {
            : { lappend out $f int }
            $ { $c read; lappend out $f bulk }
            default { error "field $f: unexpected $t" }
        }
    }
    $c close
    return [list $n $out]
}
