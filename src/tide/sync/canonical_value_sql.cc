#include "tide/sync/canonical_value_sql.h"

#include <fmt/format.h>

#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_value_decoder.h"

namespace tide {
namespace {

// The sync's stand-in for timestamp(p) 'infinity': the last instant of 9999 with p fraction digits.
int64_t InfinityTimestampMicros(int precision) {
  int64_t unit = 1;
  for (int p = precision; p < 6; ++p) unit *= 10;
  return kPgInfinityTimestampMicros / unit * unit;
}

// A name for the element variable of an array at `depth` (arrays of arrays do not occur, but a
// distinct name per depth keeps the expression correct if they ever do).
std::string ElementName(int depth) { return fmt::format("tide_e{}", depth); }

std::string PgText(const PgTypeMapping& m, const std::string& v, int depth) {
  switch (m.kind) {
    case PgValueKind::kBool:
      return fmt::format("CASE WHEN {0} IS NULL THEN NULL WHEN {0} THEN 't' ELSE 'f' END", v);
    case PgValueKind::kFloat4:
    case PgValueKind::kFloat8:
      return fmt::format(
          "CASE WHEN {0} IS NULL THEN NULL WHEN {0} = 'NaN' THEN 'NaN' WHEN {0} = 'Infinity' THEN 'Infinity' "
          "WHEN {0} = '-Infinity' THEN '-Infinity' ELSE ltrim(to_char({0}::float8, '9.9999999999999999EEEE')) END",
          v);
    case PgValueKind::kNumericDecimal:
      // A NaN cannot be a DECIMAL: the sync stores NULL (docs/postgres-types.md).
      return fmt::format("CASE WHEN {0} = 'NaN' THEN NULL ELSE {0}::numeric::text END", v);
    case PgValueKind::kMoney:
      return fmt::format("({}::numeric)::text", v);
    case PgValueKind::kText:
      // char(n)::text drops the blank padding the lake keeps; the output function keeps it.
      if (m.value_oid == pg_oid::kBpchar) return fmt::format("CASE WHEN {0} IS NULL THEN NULL ELSE format('%s', {0}) END", v);
      return fmt::format("{}::text", v);
    case PgValueKind::kChar:
    case PgValueKind::kInet:  // inet::text is text(inet), which always shows the netmask; the output function does not
      return fmt::format("CASE WHEN {0} IS NULL THEN NULL ELSE format('%s', {0}) END", v);
    case PgValueKind::kBytea:
      return fmt::format("encode({}, 'hex')", v);
    case PgValueKind::kDate:
      return fmt::format(
          "CASE WHEN {0} = 'infinity' THEN '{1}' WHEN {0} = '-infinity' THEN '{2}' "
          "ELSE ({0} - DATE '1970-01-01')::text END",
          v, kPgInfinityDateDays, kPgMinusInfinityDateDays);
    case PgValueKind::kTime:
      return fmt::format("floor(extract(epoch FROM {}) * 1000)::bigint::text", v);
    case PgValueKind::kTimestamp:
    case PgValueKind::kTimestampTz:
      return fmt::format(
          "CASE WHEN {0} = 'infinity' THEN '{1}' WHEN {0} = '-infinity' THEN '{2}' "
          "ELSE (extract(epoch FROM {0}) * 1000000)::bigint::text END",
          v, InfinityTimestampMicros(m.type.precision()), kPgMinusInfinityTimestampMicros);
    case PgValueKind::kArray: {
      if (!m.element) return fmt::format("{}::text", v);
      const std::string e = ElementName(depth);
      return fmt::format(
          "CASE WHEN {0} IS NULL THEN NULL ELSE '[' || coalesce((SELECT string_agg({1}, '' ORDER BY {2}_o) "
          "FROM unnest({0}) WITH ORDINALITY AS {2}_u({2}, {2}_o)), '') || ']' END",
          v, PgCanonicalPiece(PgText(*m.element, e, depth + 1)), e);
    }
    case PgValueKind::kInt2:
    case PgValueKind::kInt4:
    case PgValueKind::kInt8:
    case PgValueKind::kOid:
    case PgValueKind::kNumericString:
    case PgValueKind::kJson:
    case PgValueKind::kJsonb:
    case PgValueKind::kUuid:
    case PgValueKind::kTimeTz:
    case PgValueKind::kInterval:
    case PgValueKind::kMacaddr:
    case PgValueKind::kBit:
    case PgValueKind::kPgLsn:
    case PgValueKind::kTextFallback:
      break;
  }
  return fmt::format("{}::text", v);
}

Result<std::string> LakeText(const DataType& t, const std::string& v, int depth) {
  switch (t.root()) {
    case TypeRoot::kBoolean:
      return fmt::format("CASE WHEN {0} IS NULL THEN NULL WHEN {0} THEN 't' ELSE 'f' END", v);
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return fmt::format("CAST({} AS VARCHAR)", v);
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
      return fmt::format(
          "CASE WHEN {0} IS NULL THEN NULL WHEN isnan({0}) THEN 'NaN' WHEN isinf({0}) AND {0} > 0 THEN 'Infinity' "
          "WHEN isinf({0}) THEN '-Infinity' ELSE printf('%.16e', CAST({0} AS DOUBLE)) END",
          v);
    case TypeRoot::kDecimal:
      // DuckDB prints DECIMAL(s, s) without the leading zero (".50"); PostgreSQL with it.
      if (t.precision() == t.scale()) {
        return fmt::format("regexp_replace(CAST({} AS VARCHAR), '^(-?)\\.', '\\10.')", v);
      }
      return fmt::format("CAST({} AS VARCHAR)", v);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return fmt::format("lower(hex({}))", v);
    case TypeRoot::kDate:
      return fmt::format("CAST({} - DATE '1970-01-01' AS VARCHAR)", v);
    case TypeRoot::kTime:
      return fmt::format("CAST(hour({0}) * 3600000 + minute({0}) * 60000 + millisecond({0}) AS VARCHAR)", v);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return fmt::format("CAST(epoch_us({}) AS VARCHAR)", v);
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      const std::string e = ElementName(depth);
      TIDE_ASSIGN_OR_RETURN(std::string element, LakeText(t.element(), e, depth + 1));
      return fmt::format("CASE WHEN {0} IS NULL THEN NULL ELSE '[' || coalesce(array_to_string(list_transform({0}, lambda {1}: {2}), ''), '') || ']' END",
                         v, e, LakeCanonicalPiece(element));
    }
    case TypeRoot::kMap:
    case TypeRoot::kRow:
    case TypeRoot::kVariant:
      break;
  }
  return Status::NotSupported("a lake column of type {} has no canonical form to compare with PostgreSQL "
                              "(the sync never writes one)",
                              t.ToString());
}

}  // namespace

std::string PgCanonicalText(const PgTypeMapping& mapping, const std::string& value_sql) {
  return PgText(mapping, value_sql, 0);
}

std::string PgCanonicalPiece(const std::string& text_sql) {
  return fmt::format("coalesce(octet_length({0})::text || ':' || {0}, 'N')", text_sql);
}

Result<std::string> LakeCanonicalText(const DataType& type, const std::string& value_sql) {
  return LakeText(type, value_sql, 0);
}

std::string LakeCanonicalPiece(const std::string& text_sql) {
  return fmt::format("coalesce(CAST(strlen({0}) AS VARCHAR) || ':' || {0}, 'N')", text_sql);
}

std::string PgRowHash(const std::string& text_sql) {
  return fmt::format("('x' || substr(md5({}), 1, 15))::bit(60)::bigint", text_sql);
}

std::string LakeRowHash(const std::string& text_sql) {
  return fmt::format("CAST('0x' || substr(md5({}), 1, 15) AS BIGINT)", text_sql);
}

}  // namespace tide
