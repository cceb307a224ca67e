// SHA-256 (FIPS 180-4): ACL passwords are stored and compared as its hex digest.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace base {

std::array<uint8_t, 32> Sha256(std::string_view data);
// Lower-case hex of the digest: the form ACL rules (#<hash>) and ACL GETUSER use.
std::string Sha256Hex(std::string_view data);

}  // namespace base
