// Parquet's RLE / bit-packed hybrid encoding of definition and repetition levels (and of booleans and
// dictionary indices in the format generally), for writing data pages.
//
// A run of at least eight equal values becomes an RLE run (header `count << 1`, then the value in
// ceil(bit_width / 8) little-endian bytes); everything else is bit-packed in groups of eight values
// (header `groups << 1 | 1`, at most 63 groups per header, values packed LSB first). The last group is
// padded with zeros; readers stop at the page's value count, as the format allows.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tide {

// The number of bits a level up to `max_level` needs (0 for max_level 0).
int ParquetLevelBitWidth(int max_level);

// Appends `values` (each < 2^bit_width, 1 <= bit_width <= 32) in the hybrid encoding to `out`, without
// the 4-byte length prefix that data pages v1 put before levels (levels are uint16, dictionary indices
// uint32).
void AppendRleBitPackedHybrid(std::span<const uint16_t> values, int bit_width, std::string* out);
void AppendRleBitPackedHybrid(std::span<const uint32_t> values, int bit_width, std::string* out);

}  // namespace tide
