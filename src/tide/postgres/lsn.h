// Lsn: a PostgreSQL WAL position (XLogRecPtr), and its text form `X/Y` (two hex halves).
//
// 0 is "invalid" (InvalidXLogRecPtr); positions only grow along one timeline, so they compare as
// unsigned integers. Thread-safety: pure value functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

using Lsn = uint64_t;
inline constexpr Lsn kInvalidLsn = 0;

// "16/B374D848": upper and lower 32 bits in upper-case hex, as PostgreSQL prints them.
std::string FormatLsn(Lsn lsn);
// Parses PostgreSQL's `X/Y` form (case-insensitive hex, each half at most 8 digits).
Result<Lsn> ParseLsn(std::string_view text);

}  // namespace tide
