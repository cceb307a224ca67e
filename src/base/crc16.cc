// CRC16-CCITT (XMODEM): poly 0x1021, init 0, no reflection. Table built at first use.
#include "base/crc16.h"

#include <array>

namespace base {
namespace {
std::array<uint16_t, 256> BuildTable() {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; i++) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int b = 0; b < 8; b++) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : (crc << 1);
    t[i] = crc;
  }
  return t;
}
const std::array<uint16_t, 256> kTable = BuildTable();
}  // namespace

uint16_t Crc16(const char* buf, size_t len) {
  uint16_t crc = 0;
  for (size_t i = 0; i < len; i++)
    crc = (crc << 8) ^ kTable[((crc >> 8) ^ static_cast<uint8_t>(buf[i])) & 0xff];
  return crc;
}

int KeySlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close != open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key.data(), key.size()) & 16383;
}
}  // namespace base
