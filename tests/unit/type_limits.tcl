# Requests whose reply could not fit in memory are refused instead of hanging the node.

start_server {tags {types}} {
    test "Random picks with an absurd negative count are refused, the node keeps serving" {
        r hset h f v
        r sadd s m
        r zadd z 1 m
        set err "ERR value is out of range, value must between -268435456 and 9223372036854775807"
        assert_error $err {r hrandfield h -9223372036854775807}
        assert_error $err {r srandmember s -9223372036854775807}
        assert_error $err {r zrandmember z -9223372036854775807}
        assert_error $err {r hrandfield h -268435457}
        # Within the bound they answer as usual (repeats allowed).
        assert_equal {f f f} [r hrandfield h -3]
        assert_equal {m m} [r srandmember s -2]
        assert_equal {m m} [r zrandmember z -2]
        assert_equal PONG [r ping]
    }
}
