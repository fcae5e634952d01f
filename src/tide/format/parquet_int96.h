// Exact reading of INT96 timestamp columns, which DuckDB 1.4 only reads at microsecond precision.
//
// Java Paimon stores TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9) as Parquet INT96: 8 bytes little-endian
// nanoseconds of the day, then 4 bytes little-endian Julian day (epoch day 2440588). For instants before
// 1970 Java writes a negative nanoseconds-of-day (it divides with truncation), and its reader adds the two
// parts without normalizing; so does this one: instant = (day - 2440588) days + nanos_of_day ns, then split
// into epoch milliseconds and nanoseconds of the millisecond by flooring. DuckDB's reader divides the
// nanoseconds by 1000 toward zero, which both drops the last three digits and moves pre-1970 values by a
// microsecond; this decoder does neither.
//
// Scope: one top-level, non-repeated INT96 column (OPTIONAL or REQUIRED) of a local file. It parses the
// Thrift footer (compact protocol), then the column's pages in every row group: data pages v1 and v2,
// PLAIN and dictionary (PLAIN_DICTIONARY / RLE_DICTIONARY) encodings, RLE/bit-packed definition levels,
// and UNCOMPRESSED, SNAPPY, GZIP or ZSTD compression. Anything else is NotSupported; anything malformed is
// Corruption naming the file and column. Every read is bounds-checked. Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/datum.h"

namespace tide {

// The values of one INT96 column, indexed by row position in the file.
struct Int96Column {
  std::vector<TimestampValue> values;  // meaningful where valid[i] != 0
  std::vector<uint8_t> valid;          // 0 for NULL
  size_t size() const { return values.size(); }
};

// Reads the top-level INT96 column `column` of the Parquet file at `path`.
Result<Int96Column> ReadInt96Column(const std::string& path, const std::string& column);

// Converts one INT96 value (nanoseconds of the day, Julian day) as Java Paimon's reader does.
TimestampValue Int96ToTimestamp(int64_t nanos_of_day, int32_t julian_day);

}  // namespace tide
