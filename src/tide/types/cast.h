// CastDatum: converts a value from one Paimon type to another as Java Paimon's CastExecutors do, for
// reading data files written under an older schema (UPDATE COLUMN TYPE) and for loading text input.
//
// Numbers follow Java's primitive conversions (double to int truncates toward zero, narrowing wraps);
// decimals rescale HALF_UP and become NULL when they overflow the target precision; strings parse
// strictly after trimming (a string that does not parse is an error naming the value); values print to
// STRING in Paimon's text forms. Thread-safety: pure function.
#pragma once

#include "tide/base/result.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

Result<Datum> CastDatum(const Datum& value, const DataType& from, const DataType& to);

// True when `from` values can be cast to `to` (the casts CastDatum implements).
bool CanCast(const DataType& from, const DataType& to);

}  // namespace tide
