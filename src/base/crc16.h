// CRC16 (XMODEM polynomial) and the key -> hash slot mapping used by cluster mode.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace base {
uint16_t Crc16(const char* buf, size_t len);
// Slot of a key: CRC16 of the first non-empty {hashtag} if any, else of the whole key, mod 16384.
int KeySlot(std::string_view key);
}  // namespace base
