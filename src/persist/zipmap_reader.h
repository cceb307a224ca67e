// Read-only parser of the zipmap format of Redis 2.4 and older hashes (snapshot type 9), which
// Valkey 8 still loads from snapshots and RESTORE payloads.
//
// Format: [count: 1 byte, 254 when unknown] then pairs of [key length][key][value length]
// [free: 1 byte][value][free unused bytes], then 0xFF. A length is 1 byte when below 254, else
// 0xFE (or 0xFF after a key) followed by a u32 in little endian, only for lengths of 254 and more.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace persist {

// Checks the whole zipmap (every length in bounds, the end marker last, the count when it is
// known) and then calls fn with each field and value. False (before any call) if it is not
// well formed.
bool ZipmapForEach(const uint8_t* zm, size_t size,
                   const std::function<void(std::string_view, std::string_view)>& fn);

}  // namespace persist
