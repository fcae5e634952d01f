#include "tide/format/parquet_level_encoder.h"

#include <algorithm>

namespace tide {
namespace {

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The length of the run of equal values starting at `i`.
template <typename T>
size_t RunLength(std::span<const T> values, size_t i) {
  size_t j = i + 1;
  while (j < values.size() && values[j] == values[i]) ++j;
  return j - i;
}

void AppendRleRun(uint32_t value, size_t count, int bit_width, std::string* out) {
  AppendVarint(static_cast<uint64_t>(count) << 1, out);
  const int bytes = (bit_width + 7) / 8;
  for (int b = 0; b < bytes; ++b) out->push_back(static_cast<char>((value >> (8 * b)) & 0xff));
}

// Bit-packs values[begin, begin + 8 * groups) (zeros past the end) after one header.
template <typename T>
void AppendBitPacked(std::span<const T> values, size_t begin, size_t groups, int bit_width,
                     std::string* out) {
  AppendVarint((static_cast<uint64_t>(groups) << 1) | 1, out);
  uint64_t buffer = 0;
  int bits = 0;
  for (size_t k = 0; k < groups * 8; ++k) {
    const size_t i = begin + k;
    const uint64_t v = i < values.size() ? values[i] : 0;
    buffer |= v << bits;
    bits += bit_width;
    while (bits >= 8) {
      out->push_back(static_cast<char>(buffer & 0xff));
      buffer >>= 8;
      bits -= 8;
    }
  }
  // 8 values of any width fill whole bytes, so nothing is left over here.
}

}  // namespace

int ParquetLevelBitWidth(int max_level) {
  int width = 0;
  while ((1 << width) <= max_level) ++width;
  return width;
}

template <typename T>
void AppendHybrid(std::span<const T> values, int bit_width, std::string* out) {
  constexpr size_t kMinRun = 8;
  constexpr size_t kMaxGroups = 63;
  size_t i = 0;
  while (i < values.size()) {
    const size_t run = RunLength(values, i);
    if (run >= kMinRun) {
      AppendRleRun(values[i], run, bit_width, out);
      i += run;
      continue;
    }
    // Bit-pack groups of eight until a long run starts at a group boundary (or 63 groups are full).
    size_t groups = 0;
    size_t j = i;
    while (j < values.size() && groups < kMaxGroups) {
      if (groups > 0 && RunLength(values, j) >= kMinRun) break;
      j += 8;
      ++groups;
    }
    AppendBitPacked(values, i, groups, bit_width, out);
    i = std::min(j, values.size());
  }
}

void AppendRleBitPackedHybrid(std::span<const uint16_t> values, int bit_width, std::string* out) {
  AppendHybrid(values, bit_width, out);
}

void AppendRleBitPackedHybrid(std::span<const uint32_t> values, int bit_width, std::string* out) {
  AppendHybrid(values, bit_width, out);
}

}  // namespace tide
