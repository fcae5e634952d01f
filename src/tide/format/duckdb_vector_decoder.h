// VectorDecoder: reads the values of one DuckDB result column as Tide Datums of a requested Paimon type.
//
// A decoder is built once per column and query from the column's DuckDB type and the wanted Paimon type
// (Create checks that the pair is readable), then bound to the column's vector of each chunk. It reads the
// vector's memory directly (duckdb_vector_get_data and friends), never through per-value duckdb_value
// calls. Conversions, each the one Java Paimon's Parquet reader applies:
//   BOOLEAN                   <- BOOLEAN
//   TINYINT..BIGINT           <- any DuckDB integer (narrowed like a Java cast, as Paimon's reader does)
//   FLOAT                     <- FLOAT, DOUBLE;  DOUBLE <- FLOAT, DOUBLE, any integer
//   DECIMAL(p, s)             <- DECIMAL of any width and scale, any integer (rescaled; NULL when the
//                                value does not fit p digits, as Paimon's decimal cast does)
//   CHAR, VARCHAR, STRING     <- VARCHAR, BLOB;  BINARY, VARBINARY, BYTES <- BLOB, VARCHAR
//   DATE                      <- DATE
//   TIME(p)                   <- TIME, TIME WITH TIME ZONE (Java's INT32 TIME(MILLIS, UTC)), INTEGER
//                                (milliseconds of the day, as Tide's writer stores TIME)
//   TIMESTAMP(p), TIMESTAMP_LTZ(p)
//                             <- TIMESTAMP (µs), TIMESTAMP_S/_MS/_NS, TIMESTAMP WITH TIME ZONE (µs);
//                                digits below the target precision are dropped (floor)
//   ARRAY<T>                  <- LIST;  MULTISET<T> <- MAP(T, INTEGER) (each key repeated count times), LIST
//   MAP<K, V>                 <- MAP;   ROW<...> <- STRUCT (fields matched by Parquet field id, then name;
//                                a field absent from the file reads as NULL)
// Thread-safety: a decoder belongs to one thread.
#pragma once

#include <duckdb.h>

#include <memory>
#include <string>

#include "tide/base/result.h"
#include "tide/format/parquet_column.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

class VectorDecoder {
 public:
  // `source` is the DuckDB type of the result column; `target` the Paimon type wanted; `file_column`, if
  // not null, the column's node in the Parquet schema (used to match ROW fields by field id); `column`
  // names the column in errors. NotSupported if the file's type cannot be read as `target`.
  static Result<std::unique_ptr<VectorDecoder>> Create(duckdb_logical_type source, const DataType& target,
                                                       const ParquetFileColumn* file_column,
                                                       const std::string& column);
  virtual ~VectorDecoder() = default;

  // Points the decoder at this chunk's vector of its column (and its child vectors).
  virtual void Bind(duckdb_vector vector) = 0;
  // The value at `row` of the bound vector. REQUIRES: row < the bound chunk's size.
  virtual Datum Get(idx_t row) const = 0;
};

// Drops the digits of `ts` below `precision` (0..9), rounding toward negative infinity: what a value of
// TIMESTAMP(precision) can hold.
TimestampValue TruncateTimestamp(TimestampValue ts, int precision);

}  // namespace tide
