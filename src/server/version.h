// Versions the node reports. Clients and peers compare these, so they are Valkey-compatible.
#pragma once
namespace server {
inline constexpr const char* kValkeyVersion = "8.0.2";       // valkey_version, HELLO, REPLCONF
inline constexpr const char* kRedisCompatVersion = "7.2.4";  // redis_version for old clients
inline constexpr const char* kServerName = "valkey";
}  // namespace server
