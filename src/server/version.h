// Versions the node reports. Clients and peers compare these, so they are Valkey-compatible.
#pragma once
#define NODE_VALKEY_VERSION "8.0.2"
namespace server {
inline constexpr const char* kValkeyVersion =
    NODE_VALKEY_VERSION;                                     // valkey_version, HELLO, REPLCONF
inline constexpr const char* kRedisCompatVersion = "7.2.4";  // redis_version for old clients
inline constexpr const char* kServerName = "valkey";
// What --version prints after the program's name (valkey-server, valkey-check-rdb...), in
// Valkey's shape.
inline constexpr const char* kVersionDetails =
#ifdef USE_JEMALLOC
    "v=" NODE_VALKEY_VERSION " sha=00000000:0 malloc=jemalloc bits=64 build=0";
#else
    "v=" NODE_VALKEY_VERSION " sha=00000000:0 malloc=libc bits=64 build=0";
#endif
}  // namespace server
