#include "tide/codec/murmur_hash.h"

#include <cstring>

#include "tide/base/bytes.h"

namespace tide {
namespace {

constexpr uint32_t kC1 = 0xcc9e2d51u;
constexpr uint32_t kC2 = 0x1b873593u;

inline uint32_t RotateLeft(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Unsigned arithmetic throughout: Java's int multiplication wraps, C++'s signed one would be UB.
inline uint32_t MixK1(uint32_t k1) {
  k1 *= kC1;
  k1 = RotateLeft(k1, 15);
  return k1 * kC2;
}

inline uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = RotateLeft(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}

inline uint32_t Fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

inline uint32_t HashWords(const char* data, size_t aligned_length, uint32_t h1) {
  for (size_t i = 0; i < aligned_length; i += 4) h1 = MixH1(h1, MixK1(LoadLE<uint32_t>(data + i)));
  return h1;
}

}  // namespace

int32_t MurmurHashBytes(std::string_view bytes, int32_t seed) {
  const size_t aligned = bytes.size() - bytes.size() % 4;
  uint32_t h1 = HashWords(bytes.data(), aligned, static_cast<uint32_t>(seed));
  for (size_t i = aligned; i < bytes.size(); ++i) {
    // Java: `int k1 = mixK1(segment.get(offset + i))` with a signed byte.
    const int32_t signed_byte = static_cast<int8_t>(bytes[i]);
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(signed_byte)));
  }
  return static_cast<int32_t>(Fmix(h1 ^ static_cast<uint32_t>(bytes.size())));
}

int32_t MurmurHashBytesByWords(std::string_view bytes, int32_t seed) {
  const size_t aligned = bytes.size() - bytes.size() % 4;
  const uint32_t h1 = HashWords(bytes.data(), aligned, static_cast<uint32_t>(seed));
  return static_cast<int32_t>(Fmix(h1 ^ static_cast<uint32_t>(bytes.size())));
}

int32_t BinaryRowHashCode(std::string_view row_bytes) { return MurmurHashBytes(row_bytes); }

int32_t MurmurFmix32(int32_t h) { return static_cast<int32_t>(Fmix(static_cast<uint32_t>(h))); }

}  // namespace tide
