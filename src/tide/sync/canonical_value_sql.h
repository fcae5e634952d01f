// Canonical value SQL: the expressions that turn a column's value into one text, its canonical form,
// written twice: once for PostgreSQL (from the column's PostgreSQL type mapping, postgres/
// pg_type_mapping.h) and once for DuckDB over the lake (from the lake column's Paimon type). `tide
// verify` hashes these texts on both sides, inside each engine, and compares the sums; no row leaves
// either engine. The two halves must agree for every value Tide's mapping stores
// (docs/postgres-types.md); tests/sync/verify_test.cc checks them type by type on a real server.
//
// The canonical text of a value (NULL stays NULL):
//   BOOLEAN                  t or f
//   integers, oid/xid        the decimal integer
//   FLOAT, DOUBLE            the double value with 17 significant digits, `d.dddddddddddddddde±XX`
//                            (real widened exactly to double), NaN, Infinity, -Infinity; -0 keeps its sign
//   DECIMAL(p, s)            the exact decimal with s fraction digits (`-0.50`); a NaN of a PostgreSQL
//                            numeric(p,s) is NULL, as the sync stores it
//   money                    its amount as DECIMAL(19, 2)
//   STRING, VARCHAR, CHAR    the text: PostgreSQL's output (char(n) with its blank padding, "char" as
//                            charout prints it, uuid, json, jsonb, interval, inet... as printed under
//                            kPgTextSessionOptions), exactly what the sync stores
//   BYTES                    lower-case hex
//   DATE                     days since 1970-01-01; ±infinity as the sync's sentinels (9999-12-31, 0001-01-01)
//   TIME                     milliseconds of the day, sub-millisecond digits dropped (Paimon keeps ms)
//   TIMESTAMP(p)             microseconds since 1970-01-01 00:00:00 (wall clock); ±infinity as the sentinels
//   TIMESTAMP_LTZ(p)         microseconds since the epoch of the UTC instant
//   ARRAY<T>                 `[` the elements' pieces (below) `]`
// A piece is the prefix-free form of a canonical text: `N` for NULL, else `<bytes>:<text>` (byte
// length, colon, text). Concatenated pieces can be split back unambiguously, so a row's text (its
// columns' pieces in order) tells NULL from the empty string and never lets two rows collide by moving
// a separator.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "tide/base/result.h"
#include "tide/postgres/pg_type_mapping.h"
#include "tide/types/data_type.h"

namespace tide {

// PostgreSQL: the canonical text of `value_sql` (a quoted column, or any expression of the mapped type).
std::string PgCanonicalText(const PgTypeMapping& mapping, const std::string& value_sql);
// PostgreSQL: the piece of a canonical text expression.
std::string PgCanonicalPiece(const std::string& text_sql);

// DuckDB: the canonical text of `value_sql`, a value of the lake column type `type` as DuckDB reads it
// (sql/duckdb_type_mapping). NotSupported for types the sync never writes (MAP, ROW, MULTISET of
// those, VARIANT), naming the type.
Result<std::string> LakeCanonicalText(const DataType& type, const std::string& value_sql);
// DuckDB: the piece of a canonical text expression.
std::string LakeCanonicalPiece(const std::string& text_sql);

// 60 bits of the md5 of `text_sql` as a BIGINT: the row hash that checksums sum.
std::string PgRowHash(const std::string& text_sql);
std::string LakeRowHash(const std::string& text_sql);

}  // namespace tide
