// Murmur3 x86_32 as Paimon's MurmurHashUtils computes it, and the BinaryRow hash code built on it.
//
// Paimon reads the input in 4-byte little-endian words (seed 42), mixes any 1-3 tail bytes one at a
// time as *signed* bytes (Java's `byte` sign-extended to int; this differs from reference Murmur3,
// which packs the tail into one word), then finishes with `h ^= length` and fmix32. A BinaryRow's
// hashCode() is this hash over all its bytes, header included (its size is always a multiple of 8, so
// there is never a tail). The fixed-bucket function is built on it (bucket.h).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace tide {

inline constexpr int32_t kMurmurDefaultSeed = 42;  // MurmurHashUtils.DEFAULT_SEED

// MurmurHashUtils.hashBytes / hashUnsafeBytes: whole words, then the signed-byte tail.
int32_t MurmurHashBytes(std::string_view bytes, int32_t seed = kMurmurDefaultSeed);
// MurmurHashUtils.hashBytesByWords: words only. REQUIRES: bytes.size() % 4 == 0 (a tail is ignored).
int32_t MurmurHashBytesByWords(std::string_view bytes, int32_t seed = kMurmurDefaultSeed);
// Java's BinaryRow.hashCode() (BinarySection.hashCode in 0.9/1.x, hashByWords later: the same for rows).
int32_t BinaryRowHashCode(std::string_view row_bytes);
// MurmurHashUtils.fmix(int): the 32-bit finalizer.
int32_t MurmurFmix32(int32_t h);

}  // namespace tide
