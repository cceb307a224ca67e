// Storage of the hash seed; tables read it on every hash.
#include "ds/seed.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "base/siphash.h"

namespace ds {
namespace {
uint8_t g_seed[16];
}
const uint8_t* HashSeed() { return g_seed; }
void SetHashSeed(const uint8_t seed[16]) { memcpy(g_seed, seed, 16); }
void RandomizeHashSeed() {
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd >= 0 && read(fd, g_seed, 16) == 16) {
    close(fd);
    return;
  }
  if (fd >= 0) close(fd);
  std::random_device rd;
  for (auto& b : g_seed) b = static_cast<uint8_t>(rd());
}
uint64_t Hash(std::string_view s) { return base::SipHash13(s.data(), s.size(), g_seed); }
uint64_t HashNoCase(std::string_view s) {
  return base::SipHash13NoCase(s.data(), s.size(), g_seed);
}
}  // namespace ds
