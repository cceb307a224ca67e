// Read-only parser of the pre-Redis-7 ziplist format, found in old snapshots and DUMP payloads.
//
// Format: [total bytes u32 LE][offset of last entry u32 LE][count u16 LE] entries... [0xFF].
// Entry: [previous entry size: 1 byte if < 254, else 0xFE + u32 LE][encoding][data]. Strings
// have 6-bit, 14-bit (big endian) or 32-bit (big endian) lengths; integers are 8/16/24/32/64
// bit little endian or a 4-bit immediate 0..12.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace persist {

// Checks the whole ziplist (header, every entry, back links, tail offset, count) and then calls
// fn with each entry as text, in order. False (before any call) if anything is inconsistent.
bool ZiplistForEach(const uint8_t* zl, size_t size,
                    const std::function<void(std::string_view)>& fn);

}  // namespace persist
