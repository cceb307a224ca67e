// The names the node gives itself, as extended-redis-compatibility asks (see version.h).
#include "server/version.h"

#include "server/config.h"

namespace server {

const char* HelloServerName() { return cfg.extended_redis_compat ? "redis" : kServerName; }
const char* HelloVersion() {
  return cfg.extended_redis_compat ? kRedisCompatVersion : kValkeyVersion;
}
const char* ServerTitle() { return cfg.extended_redis_compat ? "Redis" : "Valkey"; }

}  // namespace server
