// The mapping from a PostgreSQL column type (type OID + typmod) to the Paimon DataType Tide stores it
// as, and to the way its values are decoded. docs/postgres-types.md is the user-facing table; this file
// is its single implementation.
//
// Invariant: every mapping is lossless for every value the PostgreSQL type can hold, except where
// docs/postgres-types.md documents otherwise (infinite dates and timestamps; NaN in a constrained
// numeric; sub-millisecond digits of time, which Paimon's TIME keeps in milliseconds). Types without a
// dedicated mapping fall back to STRING holding PostgreSQL's text output, with a warning naming the
// column. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/postgres/pg_type.h"
#include "tide/types/data_type.h"

namespace tide {

// How the values of a mapped column are decoded (selects the text and binary decoders).
enum class PgValueKind : uint8_t {
  kBool,             // BOOLEAN
  kInt2,             // SMALLINT
  kInt4,             // INT
  kInt8,             // BIGINT
  kOid,              // oid, xid → BIGINT (unsigned 32-bit)
  kFloat4,           // FLOAT
  kFloat8,           // DOUBLE
  kNumericDecimal,   // numeric(p,s), p ≤ 38 → DECIMAL
  kNumericString,    // numeric without typmod or too wide → STRING with the exact decimal text
  kMoney,            // money → DECIMAL(19, 2)
  kText,             // text, varchar, bpchar, name, xml, enums → STRING/VARCHAR/CHAR (UTF-8 bytes)
  kChar,             // "char" (one byte) → STRING
  kJson,             // json → STRING
  kJsonb,            // jsonb → STRING (binary: version byte 1 + text)
  kBytea,            // bytea → BYTES
  kUuid,             // uuid → STRING (canonical lower-case 8-4-4-4-12)
  kDate,             // date → DATE
  kTime,             // time(p) → TIME(p)
  kTimeTz,           // timetz → STRING (PostgreSQL's text form)
  kTimestamp,        // timestamp(p) → TIMESTAMP(p)
  kTimestampTz,      // timestamptz(p) → TIMESTAMP_LTZ(p): the instant, independent of time zones
  kInterval,         // interval → STRING (IntervalStyle postgres)
  kInet,             // inet, cidr → STRING
  kMacaddr,          // macaddr, macaddr8 → STRING
  kBit,              // bit, varbit → STRING of 0/1
  kPgLsn,            // pg_lsn → STRING "X/Y"
  kArray,            // one-dimensional array → ARRAY<element>
  kTextFallback,     // anything else → STRING of the text form (binary values cannot be decoded)
};

std::string_view PgValueKindName(PgValueKind kind);

struct PgTypeMappingOptions {
  // Nothing yet: the mapping is fixed and documented. Kept so that policies (e.g. unconstrained numeric
  // as DECIMAL(38, 18)) can be added without changing signatures.
};

struct PgTypeMapping {
  DataType type;                  // nullable; the caller decides NOT NULL
  PgValueKind kind = PgValueKind::kTextFallback;
  PgOid value_oid = 0;            // the (domain-resolved) type whose wire format the values use
  int32_t type_modifier = -1;     // the typmod that applies (a domain's own when the column has none)
  std::string pg_type_name;       // for messages: "numeric(12,2)", "mood", "integer[]"
  // For kArray: the element's mapping (its type is type.element()).
  std::shared_ptr<const PgTypeMapping> element;
  // Set when the mapping is a fallback or has a documented caveat: says what and why.
  std::optional<std::string> warning;
};

// Maps one PostgreSQL type. Never fails for a type it does not know (that is the STRING fallback);
// fails with NotSupported only for shapes Tide refuses (e.g. an array of arrays' OIDs that loop).
Result<PgTypeMapping> MapPgType(PgOid type_oid, int32_t type_modifier, const PgTypeRegistry& types,
                                const PgTypeMappingOptions& options = {});

// MapPgType for a Relation column; logs the mapping's warning (if any) once, naming
// `<namespace>.<relation>.<column>`.
Result<PgTypeMapping> MapPgColumn(const PgRelation& relation, size_t column_index,
                                  const PgTypeRegistry& types, const PgTypeMappingOptions& options = {});

}  // namespace tide
