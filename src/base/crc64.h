// CRC-64/Jones (reflected, poly 0xad93d23594c935a9, init 0), the checksum of snapshot files
// and DUMP payloads.
#pragma once
#include <cstddef>
#include <cstdint>

namespace base {
uint64_t Crc64(uint64_t crc, const void* data, size_t len);
}
