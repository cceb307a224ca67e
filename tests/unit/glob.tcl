# Glob patterns (KEYS, SCAN MATCH, PSUBSCRIBE, CONFIG GET) against Valkey 8.0.1's answers for
# the edge cases of its matcher: unterminated and odd classes, trailing escapes, reversed
# ranges, the empty string, and patterns with very many '*' (its recursion stops past 1000
# levels; long runs of stars and `*a*a*a...b` must answer at once). Every expected value was
# read from Valkey 8.0.1 by hand; the file passes on it.

# 1 when SCAN MATCH finds the only key `str` with `pat`, else 0.
proc glob_matches {pat str} {
    r flushall
    r set $str 1
    return [llength [lindex [r scan 0 match $pat count 10] 1]]
}

start_server {tags {keyspace}} {
    test "Glob: classes, ranges and escapes at the edges answer as Valkey 8" {
        # pattern string expected; B stands for a backslash
        set cases {
            {[abc} a 1      {[abc} b 1      {[abc} ab 0     {[} {[} 0
            {[} a 0         {[^} x 1        {[^} ^ 1        {[^]} x 1
            {[a-]} - 0      {[a-]} a 1      {[a-]} _ 1      {[a-]x} _ 1
            {[a-]x} _x 0    aB aB 1         aB a 0          B B 1
            {[z-a]} m 1     {[z-a]} A 0     {[]a]} a 0      {[]a]} ] 0
            {[]a]} a] 0     {[B} B 1        {[B]} ] 1       {[B]]} ] 1
            {[a-B]} b 0     {h[^e]llo} hallo 1              aBb ab 1
            {[Bb]} b 1      {[B-]} - 1      {*B} aB 1       {[?]} ? 1
        }
        foreach {pat str want} $cases {
            set pat [string map {B \\} $pat]
            set str [string map {B \\} $str]
            assert_equal $want [glob_matches $pat $str] "pattern {$pat} against {$str}"
        }
    }

    test "Glob: thousands of '*' collapse; a pattern nesting past 1000 stars never matches" {
        set a60 [string repeat a 60]
        assert_equal 0 [glob_matches "[string repeat *a 50]b" $a60]
        assert_equal 1 [glob_matches [string repeat * 5000] abc]
        assert_equal 1 [glob_matches "[string repeat * 5000]c" abc]
        assert_equal 1 [glob_matches [string repeat *a 1000] [string repeat a 1000]]
        assert_equal 0 [glob_matches [string repeat *a 1001] [string repeat a 1001]]
        assert_equal 1 [glob_matches "[string repeat *a 1000]*" [string repeat a 1000]]
        assert_equal 0 [glob_matches "[string repeat *a 1001]*" [string repeat a 1001]]
        # A last run of stars is not a level: 1001 runs, the last at the end, still match.
        assert_equal 1 [glob_matches [string repeat a* 1001] [string repeat a 1001]]
        assert_equal 1 [glob_matches "[string repeat a* 1000]a" [string repeat a 1001]]
        assert_equal 0 [glob_matches "[string repeat a* 1001]a" [string repeat a 1002]]
        assert_equal 0 [glob_matches [string repeat *? 1001] [string repeat a 1001]]
    }

    test "Glob: KEYS with 50 '*a' pieces and a 'b' against a long key of a's answers at once" {
        r flushall
        r set [string repeat a 5000] 1
        assert_equal {} [r keys "[string repeat *a 50]b"]
        assert_equal 1 [llength [r keys [string repeat *a 50]]]
    }

    test "Glob: the empty string matches only the empty pattern ('*' alone is KEYS' shortcut)" {
        r flushall
        r set {} 1
        assert_equal {} [r keys **]
        assert_equal {{}} [r keys *]
        assert_equal {0 {}} [r scan 0 match ** count 10]
        assert_equal {0 {{}}} [r scan 0 match * count 10]
        assert_equal {0 {{}}} [r scan 0 match {} count 10]
        set c [valkey_client]
        $c deferred 1
        $c psubscribe * ** ?*
        for {set i 0} {$i < 3} {incr i} { $c read }
        assert_equal 0 [r publish {} x]
        assert_equal 3 [r publish z x]
        $c close
    }

    test "Glob: CONFIG GET folds case, but not escaped bytes inside a class" {
        assert_equal {} [r config get {[\M]axmemory}]
        assert_equal {maxmemory 0} [r config get {\Maxmemor?}]
        assert_equal {} [r config get {[Z-a]axmemory}]
        assert_equal {maxmemory 0} [r config get {[z-A]axmemory}]
        assert_equal {} [r config get {[^M]axmemory}]
    }
}
