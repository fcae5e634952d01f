// How Tide stores Paimon values in DuckDB vectors on their way into a Parquet file.
//
// ParquetStorageType picks, for each Paimon type, the DuckDB type whose Parquet encoding comes closest to
// what Java Paimon writes (PAIMON_FORMAT.md §6.2) and that Java Paimon's reader accepts:
//   BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE  same-named type (INT32 + INT_8 / INT_16 ...)
//   DECIMAL(p, s)               DECIMAL(p, s): INT32 for p <= 9, INT64 for p <= 18, FIXED_LEN_BYTE_ARRAY(16)
//                               above (Java: the minimal length, e.g. 10 for p = 23)
//   CHAR, VARCHAR, STRING       VARCHAR (BYTE_ARRAY, UTF8);  BINARY, VARBINARY, BYTES  BLOB (BYTE_ARRAY)
//   DATE                        DATE (INT32, DATE)
//   TIME(p)                     INTEGER holding milliseconds of the day: INT32 as Java writes, but without
//                               Java's TIME(MILLIS) annotation (DuckDB writes TIME only as INT64 micros,
//                               which Java's reader cannot read)
//   TIMESTAMP(p), p <= 3        TIMESTAMP_MS (INT64, TIMESTAMP(MILLIS, UTC=false))
//   TIMESTAMP(p), 4..6          TIMESTAMP (INT64, TIMESTAMP(MICROS, UTC=false))
//   TIMESTAMP(p), 7..9          TIMESTAMP_NS (INT64, TIMESTAMP(NANOS)); Java writes INT96, which DuckDB
//                               cannot write
//   TIMESTAMP_LTZ(p), p <= 3    TIMESTAMP_MS: the unit Java uses, but isAdjustedToUTC=false (DuckDB has
//                               no millisecond TIMESTAMP WITH TIME ZONE)
//   TIMESTAMP_LTZ(p), 4..6      TIMESTAMP WITH TIME ZONE (INT64, TIMESTAMP(MICROS, UTC=true)): exact
//   TIMESTAMP_LTZ(p), 7..9      TIMESTAMP_NS (isAdjustedToUTC=false; Java writes INT96)
//   ARRAY<T>                    T[] (3-level LIST: list / element, as Java)
//   MAP<K, V>                   MAP(K, V) (key_value / key / value, as Java)
//   MULTISET<T>                 MAP(T, INTEGER): each distinct element and its count, as Java
//   ROW<...>                    STRUCT(...) (a group with the fields in order)
//   VARIANT                     NotSupported
// EncodeDatum writes one value at one position of such a vector (recursively for nested types).
// Thread-safety: pure functions; the vector belongs to the calling thread.
#pragma once

#include <duckdb.h>

#include <string>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

// The DuckDB type a Paimon column is stored as; `column` names it in errors.
Result<DuckLogicalType> ParquetStorageType(const DataType& type, const std::string& column);

// Writes `value` (NULL included) at `index` of `vector`, whose type is ParquetStorageType(type). LIST and
// MAP vectors grow their child vector. InvalidArgument naming the column if the value does not have the
// representation `type` calls for (datum.h) or does not fit (a DECIMAL with too many digits, a DATE beyond
// int32 days, a TIMESTAMP(7..9) outside 1677..2262, a NULL map key).
Status EncodeDatum(duckdb_vector vector, idx_t index, const Datum& value, const DataType& type,
                   const std::string& column);

}  // namespace tide
