// Timestamps of the replication protocol and of binary date/time values: PostgreSQL counts from its
// own epoch, 2000-01-01 00:00:00 UTC. The helpers here convert to and from the Unix epoch.
//
// WAL positions (Lsn, "X/Y") live in lsn.h. Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>

namespace tide {

// Microseconds since 2000-01-01 00:00:00 UTC, as carried by replication messages and by binary
// timestamp / timestamptz values.
using PgTimestampMicros = int64_t;

// Microseconds from the Unix epoch (1970-01-01) to the PostgreSQL epoch (2000-01-01).
inline constexpr int64_t kPgEpochUnixMicros = 946684800LL * 1000000LL;
// Days from 1970-01-01 to 2000-01-01 (binary `date` values count days from 2000-01-01).
inline constexpr int32_t kPgEpochUnixDays = 10957;

inline int64_t PgTimestampToUnixMicros(PgTimestampMicros t) { return t + kPgEpochUnixMicros; }
inline PgTimestampMicros UnixMicrosToPgTimestamp(int64_t unix_micros) {
  return unix_micros - kPgEpochUnixMicros;
}

}  // namespace tide
