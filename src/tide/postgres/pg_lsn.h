// PostgreSQL WAL positions (LSNs) and replication-protocol timestamps.
//
// An LSN is a 64-bit byte position in the write-ahead log, written by PostgreSQL as two upper-case hex
// halves "X/Y" (high 32 bits / low 32 bits, no leading zeros: "0/16B3748"). Replication messages carry
// timestamps as signed microseconds since 2000-01-01 00:00:00 UTC (the PostgreSQL epoch); the helpers
// here convert them to and from Unix microseconds. Thread-safety: pure functions and value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

// A WAL position. 0 ("0/0") is InvalidXLogRecPtr: "no position" / "start wherever the slot is".
using PgLsn = uint64_t;

inline constexpr PgLsn kInvalidPgLsn = 0;

// Microseconds since 2000-01-01 00:00:00 UTC, as carried by replication messages and by binary
// timestamp / timestamptz values.
using PgTimestampMicros = int64_t;

// Microseconds from the Unix epoch (1970-01-01) to the PostgreSQL epoch (2000-01-01).
inline constexpr int64_t kPgEpochUnixMicros = 946684800LL * 1000000LL;
// Days from 1970-01-01 to 2000-01-01 (binary `date` values count days from 2000-01-01).
inline constexpr int32_t kPgEpochUnixDays = 10957;

// Parses "X/Y" (each half 1..8 hex digits, either case). InvalidArgument names the bad text.
Result<PgLsn> ParsePgLsn(std::string_view text);

// Formats as PostgreSQL does: "%X/%X" (upper-case hex, no padding). FormatPgLsn(0) == "0/0".
std::string FormatPgLsn(PgLsn lsn);

inline int64_t PgTimestampToUnixMicros(PgTimestampMicros t) { return t + kPgEpochUnixMicros; }
inline PgTimestampMicros UnixMicrosToPgTimestamp(int64_t unix_micros) {
  return unix_micros - kPgEpochUnixMicros;
}

}  // namespace tide
