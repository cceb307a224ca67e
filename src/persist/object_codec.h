// Conversion between keyspace objects and the codec's plain values (DUMP/RESTORE, snapshots).
#pragma once
#include <cstdint>
#include <string_view>

#include "db/object.h"
#include "persist/value_codec.h"

namespace persist {
Value ToValue(db::Obj* o);
// Writes o's value as WriteValue(ToValue(o)) does, byte for byte; a compact hash, sorted set
// or list goes from its encoding into the listpack written, without the plain Value (a
// snapshot of small collections spent most of its time building and dropping those).
void WriteObject(std::string* out, db::Obj* o, bool compress);
// Builds an object in the encoding Valkey would choose for these contents.
db::Obj* FromValue(std::string_view key, const Value& v, int64_t expire);
}  // namespace persist
