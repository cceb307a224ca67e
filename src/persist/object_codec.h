// Conversion between keyspace objects and the codec's plain values (DUMP/RESTORE, snapshots).
#pragma once
#include <cstdint>
#include <string_view>

#include "db/object.h"
#include "persist/value_codec.h"

namespace persist {
Value ToValue(db::Obj* o);
// Builds an object in the encoding Valkey would choose for these contents.
db::Obj* FromValue(std::string_view key, const Value& v, int64_t expire);
}  // namespace persist
