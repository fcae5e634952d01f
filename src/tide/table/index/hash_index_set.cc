#include "tide/table/index/hash_index_set.h"

#include <algorithm>
#include <cmath>

namespace tide {

namespace {

constexpr float kLoadFactor = 0.75f;

// fastutil HashCommon.mix(int).
int32_t Mix(int32_t x) {
  uint32_t h = static_cast<uint32_t>(x) * 0x9E3779B9u;
  return static_cast<int32_t>(h ^ (h >> 16));
}

// fastutil HashCommon.nextPowerOfTwo(long), for the values arraySize passes.
int64_t NextPowerOfTwo(int64_t x) {
  if (x <= 1) return 1;
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// fastutil HashCommon.arraySize(expected, f): Java divides in float.
int32_t ArraySize(int32_t expected, float f) {
  float ratio = static_cast<float>(expected) / f;
  int64_t s = std::max<int64_t>(2, NextPowerOfTwo(static_cast<int64_t>(std::ceil(static_cast<double>(ratio)))));
  return static_cast<int32_t>(std::min<int64_t>(s, int64_t{1} << 30));
}

// fastutil HashCommon.maxFill(n, f).
int32_t MaxFill(int32_t n, float f) {
  float product = static_cast<float>(n) * f;
  return std::min(static_cast<int32_t>(std::ceil(static_cast<double>(product))), n - 1);
}

}  // namespace

HashIndexSet::HashIndexSet(int32_t expected) {
  n_ = ArraySize(std::max(expected, 0), kLoadFactor);
  mask_ = n_ - 1;
  max_fill_ = MaxFill(n_, kLoadFactor);
  key_.assign(static_cast<size_t>(n_) + 1, 0);
}

bool HashIndexSet::Contains(int32_t value) const {
  if (value == 0) return contains_zero_;
  int32_t pos = Mix(value) & mask_;
  while (key_[static_cast<size_t>(pos)] != 0) {
    if (key_[static_cast<size_t>(pos)] == value) return true;
    pos = (pos + 1) & mask_;
  }
  return false;
}

bool HashIndexSet::Add(int32_t value) {
  if (value == 0) {
    if (contains_zero_) return false;
    contains_zero_ = true;
  } else {
    int32_t pos = Mix(value) & mask_;
    while (key_[static_cast<size_t>(pos)] != 0) {
      if (key_[static_cast<size_t>(pos)] == value) return false;
      pos = (pos + 1) & mask_;
    }
    key_[static_cast<size_t>(pos)] = value;
  }
  if (size_++ >= max_fill_) Rehash(ArraySize(size_ + 1, kLoadFactor));
  return true;
}

void HashIndexSet::Rehash(int32_t new_n) {
  const int32_t new_mask = new_n - 1;
  std::vector<int32_t> fresh(static_cast<size_t>(new_n) + 1, 0);
  int32_t i = n_;
  for (int32_t j = contains_zero_ ? size_ - 1 : size_; j-- != 0;) {
    while (key_[static_cast<size_t>(--i)] == 0) {
    }
    int32_t pos = Mix(key_[static_cast<size_t>(i)]) & new_mask;
    while (fresh[static_cast<size_t>(pos)] != 0) pos = (pos + 1) & new_mask;
    fresh[static_cast<size_t>(pos)] = key_[static_cast<size_t>(i)];
  }
  n_ = new_n;
  mask_ = new_mask;
  max_fill_ = MaxFill(n_, kLoadFactor);
  key_ = std::move(fresh);
}

std::vector<int32_t> HashIndexSet::ToVector() const {
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(size_));
  if (contains_zero_) out.push_back(0);
  for (int32_t pos = n_ - 1; pos >= 0; --pos) {
    if (key_[static_cast<size_t>(pos)] != 0) out.push_back(key_[static_cast<size_t>(pos)]);
  }
  return out;
}

std::string EncodeHashIndexFile(std::span<const int32_t> hashes) {
  std::string out;
  out.reserve(hashes.size() * 4);
  for (int32_t h : hashes) {
    uint32_t v = static_cast<uint32_t>(h);
    out.push_back(static_cast<char>(v >> 24));
    out.push_back(static_cast<char>(v >> 16));
    out.push_back(static_cast<char>(v >> 8));
    out.push_back(static_cast<char>(v));
  }
  return out;
}

Result<std::vector<int32_t>> DecodeHashIndexFile(std::string_view bytes, const std::string& path) {
  if (bytes.size() % 4 != 0) {
    return Status::Corruption("HASH index file {} has {} bytes, not a whole number of 4-byte hashes", path,
                              bytes.size());
  }
  std::vector<int32_t> out;
  out.reserve(bytes.size() / 4);
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t v = (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 24) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 16) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 2])) << 8) |
                 static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 3]));
    out.push_back(static_cast<int32_t>(v));
  }
  return out;
}

}  // namespace tide
