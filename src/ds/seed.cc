// Storage of the hash seed; tables read it on every hash.
#include "ds/seed.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>

#include "base/siphash.h"

namespace ds {
namespace {
uint8_t g_seed[16];
uint16_t g_fingerprint = 1;

void SeedChanged() {
  static const uint8_t kZero[16] = {};
  uint64_t h = base::SipHash13(g_seed, sizeof(g_seed), kZero);
  g_fingerprint = static_cast<uint16_t>(h & 0x7fff);
  if (!g_fingerprint) g_fingerprint = 1;  // 0 would read as a cursor without one
}
}  // namespace

const uint8_t* HashSeed() { return g_seed; }
uint16_t SeedFingerprint() { return g_fingerprint; }

void SetHashSeed(const uint8_t seed[16]) {
  memcpy(g_seed, seed, 16);
  SeedChanged();
}

void SetHashSeedFromText(std::string_view text) {
  static const uint8_t kZero[16] = {};
  for (int half = 0; half < 2; half++) {
    std::string in = (half ? "hash-seed/1/" : "hash-seed/0/") + std::string(text);
    uint64_t h = base::SipHash13(in.data(), in.size(), kZero);
    memcpy(g_seed + 8 * half, &h, 8);
  }
  SeedChanged();
}

void RandomizeHashSeed() {
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd >= 0 && read(fd, g_seed, 16) == 16) {
    close(fd);
    return SeedChanged();
  }
  if (fd >= 0) close(fd);
  std::random_device rd;
  for (auto& b : g_seed) b = static_cast<uint8_t>(rd());
  SeedChanged();
}
uint64_t Hash(std::string_view s) { return base::SipHash13(s.data(), s.size(), g_seed); }
uint64_t HashNoCase(std::string_view s) {
  return base::SipHash13NoCase(s.data(), s.size(), g_seed);
}
}  // namespace ds
