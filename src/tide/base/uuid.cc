#include "tide/base/uuid.h"

#include <fmt/format.h>

#include <cstdint>
#include <random>

namespace tide {

std::string RandomUuidString() {
  // Straight from the system's entropy source (like Java's SecureRandom), so that no two committers,
  // not even processes forked from one parent, share the names of their manifests.
  std::random_device random;
  auto next64 = [&random]() { return (static_cast<uint64_t>(random()) << 32) ^ static_cast<uint64_t>(random()); };
  uint64_t hi = next64(), lo = next64();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                    // version 4
  lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);        // IETF variant
  std::string hex = fmt::format("{:016x}{:016x}", hi, lo);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20, 12);
}

}  // namespace tide
