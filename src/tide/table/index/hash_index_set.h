// HashIndexSet: the key hashes of one bucket of a dynamic-bucket primary-key table, held as Java
// Paimon's IntHashSet (a fastutil IntOpenHashSet with load factor 0.75), so that iterating it gives
// Java's order, which is the order of the ints in a HASH index file. Also the HASH index file codec
// (Java's IntFileUtils): the hashes as 4-byte big-endian ints, nothing else.
//
// Order model (fastutil): open addressing with linear probing over a power-of-two table; the slot of a
// value v != 0 is mix(v) & mask, mix(x) = h ^ (h >>> 16) with h = x * 0x9E3779B9; 0 is kept aside and
// comes first; the other values come from the highest slot down. The table grows (rehash, inserting
// the old values from the highest slot down) when an add finds size >= maxFill.
// Thread-safety: a plain value; one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"

namespace tide {

class HashIndexSet {
 public:
  // Java's `new IntHashSet()` (expected size 16).
  HashIndexSet() : HashIndexSet(16) {}
  // Java's `new IntHashSet(expected)`. REQUIRES: expected >= 0.
  explicit HashIndexSet(int32_t expected);

  // Adds `value`; false if it was there already.
  bool Add(int32_t value);
  bool Contains(int32_t value) const;
  int32_t size() const { return size_; }
  // The values in Java's iteration order.
  std::vector<int32_t> ToVector() const;

 private:
  void Rehash(int32_t new_n);

  std::vector<int32_t> key_;  // n_ slots (0 = free) and the slot of 0 at n_
  int32_t n_ = 0;
  int32_t mask_ = 0;
  int32_t max_fill_ = 0;
  int32_t size_ = 0;
  bool contains_zero_ = false;
};

// The bytes of a HASH index file holding `hashes` in this order.
std::string EncodeHashIndexFile(std::span<const int32_t> hashes);
// The hashes of a HASH index file. Corruption, naming `path`, if the size is not a multiple of 4.
Result<std::vector<int32_t>> DecodeHashIndexFile(std::string_view bytes, const std::string& path);

}  // namespace tide
