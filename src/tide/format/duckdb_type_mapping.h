// How Paimon types appear in DuckDB: the column types of paimon_scan and of the lake views.
//
//   BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE  the DuckDB type of the same name
//   DECIMAL(p, s)                                         DECIMAL(p, s) (Paimon's p is 1..38, as DuckDB's)
//   CHAR(n), VARCHAR(n), STRING                           VARCHAR
//   BINARY(n), VARBINARY(n), BYTES                        BLOB
//   DATE                                                  DATE
//   TIME(p)                                               TIME (Paimon keeps milliseconds)
//   TIMESTAMP(p), p <= 6                                  TIMESTAMP (microseconds)
//   TIMESTAMP(p), p 7..9                                  TIMESTAMP_NS
//   TIMESTAMP(p) WITH LOCAL TIME ZONE                     TIMESTAMP WITH TIME ZONE (microseconds; for
//                                                         p 7..9 the sub-microsecond digits are dropped)
//   ARRAY<T>, MULTISET<T>                                 T[] (LIST; a multiset lists each element as
//                                                         often as it occurs)
//   MAP<K, V>                                             MAP(K, V)
//   ROW<a T, ...>                                         STRUCT(a T, ...)
//   VARIANT                                               not supported (NotSupported naming the column)
// NOT NULL is not carried over: DuckDB table functions have no column constraints.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/types/data_type.h"

namespace tide {

// The DuckDB type of a Paimon column; `column` names it in errors.
Result<DuckLogicalType> DuckTypeFor(const DataType& type, std::string_view column);

// DuckDB's SQL name of DuckTypeFor(type) (e.g. `DECIMAL(10,2)`, `TIMESTAMP_NS`, `TIMESTAMPTZ`) for the
// atomic types, for SQL casts; empty for nested types and invalid decimals.
std::string DuckTypeSqlName(const DataType& type);

}  // namespace tide
