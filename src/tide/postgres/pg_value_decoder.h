// Decoding PostgreSQL column values — text output format and binary send format — into Tide's typed
// values (Datum), for the type each column maps to (pg_type_mapping.h).
//
// The same binary formats serve pgoutput with binary 'true' and COPY ... (FORMAT binary): both carry
// each value in its type's send format. Text values assume the session settings in
// kPgTextSessionOptions (ISO dates, postgres interval style); timestamptz text carries its own UTC
// offset, so decoded instants never depend on the server's or client's time zone.
//
// Invariants: a successful decode returns a Datum of the mapping's DataType (or NULL); malformed bytes
// give Corruption naming the column, the PostgreSQL type and what was wrong, never a crash or an
// out-of-bounds read. Documented lossy cases (docs/postgres-types.md) log one warning per column.
// Thread-safety: a PgValueDecoder is immutable after Create except for its warn-once flags (atomics), so
// it may be shared between threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/pg_type_mapping.h"
#include "tide/postgres/pgoutput_message.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

// Session settings under which PostgreSQL's text output is what the text decoders expect. Pass as the
// libpq `options` connection parameter of every connection whose text values Tide decodes (replication
// and COPY): `options='-c DateStyle=ISO,MDY -c IntervalStyle=postgres -c extra_float_digits=3'`.
inline constexpr std::string_view kPgTextSessionOptions =
    "-c DateStyle=ISO,MDY -c IntervalStyle=postgres -c extra_float_digits=3";

// Sentinels for infinite dates and timestamps (Paimon has no infinity): PostgreSQL 'infinity' becomes the
// last day / instant of year 9999 (for TIMESTAMP(p), the last one with p fraction digits, e.g.
// 23:59:59.999 for p = 3), '-infinity' the first of year 1, with a warning once per column. See
// docs/postgres-types.md.
inline constexpr int64_t kPgInfinityDateDays = 2932896;      // 9999-12-31
inline constexpr int64_t kPgMinusInfinityDateDays = -719162;  // 0001-01-01
inline constexpr int64_t kPgInfinityTimestampMicros = 253402300799999999LL;    // 9999-12-31 23:59:59.999999
inline constexpr int64_t kPgMinusInfinityTimestampMicros = -62135596800000000LL;  // 0001-01-01 00:00:00

class PgValueDecoder {
 public:
  // A decoder for values of `mapping`. `column` names the column in messages ("public.t.price").
  static std::shared_ptr<const PgValueDecoder> Create(PgTypeMapping mapping, std::string column);

  // Convenience: MapPgType + Create.
  static Result<std::shared_ptr<const PgValueDecoder>> ForType(PgOid type_oid, int32_t type_modifier,
                                                              const PgTypeRegistry& types,
                                                              std::string column);

  const PgTypeMapping& mapping() const { return mapping_; }
  const DataType& type() const { return mapping_.type; }
  const std::string& column() const { return column_; }

  // Whether binary-format values of this type can be decoded (false for the STRING fallback: ask for
  // text, e.g. `col::text` in COPY, or binary 'false' in pgoutput).
  bool SupportsBinary() const;

  // Decodes the type's text output.
  Result<Datum> DecodeText(std::string_view text) const;
  // Decodes the type's binary send format (pgoutput 'b' values, COPY BINARY field bytes).
  Result<Datum> DecodeBinary(std::string_view bytes) const;
  // DecodeBinary into an existing value (a reused row's slot: what it held is replaced), with the common
  // fixed-size and text types decoded inline (no temporary Result). Same values and errors; on error
  // *out is unspecified.
  Status DecodeBinaryInto(std::string_view bytes, Datum* out) const;
  // Decodes a pgoutput tuple value: kNull → NULL Datum; kText/kBinary → as above. kUnchangedToast and
  // kAbsent have no value: InvalidArgument (the caller must handle them before asking for a value).
  Result<Datum> Decode(const PgTupleValue& value) const;

  // Implementation details, public so the .cc's free functions can reach them.
  PgValueDecoder(PgTypeMapping mapping, std::string column);
  void WarnOnce(int which, std::string_view what) const;

 private:
  PgTypeMapping mapping_;
  std::string column_;
  std::shared_ptr<const PgValueDecoder> element_;  // for arrays
  mutable std::atomic<uint32_t> warned_{0};
};

// Decodes one binary-format value of a type without building a decoder (COPY BINARY convenience; for
// many rows build a PgValueDecoder per column once instead).
Result<Datum> DecodePgBinaryValue(PgOid type_oid, int32_t type_modifier, std::string_view bytes,
                                  const PgTypeRegistry& types);

// Decoders for every column of a relation, in Relation-message order.
class PgRowDecoder {
 public:
  static Result<PgRowDecoder> Create(const PgRelation& relation, const PgTypeRegistry& types,
                                     const PgTypeMappingOptions& options = {});

  // Paimon fields for the relation's columns: name, mapped type (nullable), id = position.
  const std::vector<DataField>& fields() const { return fields_; }
  size_t size() const { return columns_.size(); }
  const PgValueDecoder& column(size_t i) const { return *columns_[i]; }

  // Decodes `tuple` into `row` (one Datum per column). Values that have no value on the wire —
  // kUnchangedToast and kAbsent — become NULL in `row` and true in `missing`, so the caller can keep the
  // previous value instead of writing NULL; `missing` is all false for a complete tuple. Corruption when
  // the tuple's column count differs from the relation's.
  Status Decode(const PgTuple& tuple, Row* row, std::vector<bool>* missing) const;

 private:
  std::string relation_name_;
  std::vector<DataField> fields_;
  std::vector<std::shared_ptr<const PgValueDecoder>> columns_;
};

}  // namespace tide
