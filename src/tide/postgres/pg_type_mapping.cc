#include "tide/postgres/pg_type_mapping.h"

#include <fmt/format.h>

#include "tide/base/logging.h"

namespace tide {
namespace {

// Paimon DECIMAL holds at most 38 digits.
constexpr int kMaxDecimalPrecision = 38;
// PostgreSQL's default fractional-second precision for time and timestamp types.
constexpr int kDefaultTimePrecision = 6;

std::string TypeDisplayName(const PgTypeInfo* info, PgOid oid, int32_t typmod) {
  if (info == nullptr) return fmt::format("type OID {}", oid);
  std::string name = info->namespace_name.empty() ? info->name : info->namespace_name + "." + info->name;
  if (oid == pg_oid::kNumeric) {
    if (auto nt = DecodeNumericTypmod(typmod)) return fmt::format("numeric({},{})", nt->precision, nt->scale);
  } else if (oid == pg_oid::kVarchar || oid == pg_oid::kBpchar || oid == pg_oid::kBit ||
             oid == pg_oid::kVarbit) {
    if (auto n = DecodeCharLengthTypmod(typmod)) return fmt::format("{}({})", name, *n);
  } else if (oid == pg_oid::kTime || oid == pg_oid::kTimetz || oid == pg_oid::kTimestamp ||
             oid == pg_oid::kTimestamptz) {
    if (auto p = DecodeTimePrecisionTypmod(oid, typmod)) return fmt::format("{}({})", name, *p);
  }
  return name;
}

PgTypeMapping Make(DataType type, PgValueKind kind) {
  PgTypeMapping m;
  m.type = std::move(type);
  m.kind = kind;
  return m;
}

Result<PgTypeMapping> MapResolved(PgOid column_oid, int32_t column_typmod, const PgTypeRegistry& types,
                                  const PgTypeMappingOptions& options, int depth) {
  const PgResolvedType resolved = types.Resolve(column_oid, column_typmod);
  const PgTypeInfo* info = resolved.info;
  const PgOid oid = resolved.oid;
  const int32_t typmod = resolved.type_modifier;

  PgTypeMapping m;
  auto finish = [&](PgTypeMapping out) -> PgTypeMapping {
    out.value_oid = oid;
    out.type_modifier = typmod;
    if (out.pg_type_name.empty()) out.pg_type_name = TypeDisplayName(info, oid, typmod);
    return out;
  };
  auto fallback = [&](std::string why) -> PgTypeMapping {
    PgTypeMapping out = Make(DataType::String(), PgValueKind::kTextFallback);
    out.warning = std::move(why);
    return finish(std::move(out));
  };

  if (info == nullptr) {
    return fallback(fmt::format(
        "PostgreSQL type OID {} is unknown to Tide (no pg_type row for it); its values are kept as STRING in "
        "their text form",
        oid));
  }
  if (info->kind == PgTypeKind::kEnum) return finish(Make(DataType::String(), PgValueKind::kText));
  if (info->is_array()) {
    if (depth > 0) {
      return Status::NotSupported("PostgreSQL type {} is an array of arrays, which PostgreSQL does not "
                                  "produce; refusing it",
                                  TypeDisplayName(info, oid, typmod));
    }
    // An array column's typmod applies to its elements (numeric(10,2)[] has numeric(10,2)'s typmod).
    TIDE_ASSIGN_OR_RETURN(PgTypeMapping element,
                          MapResolved(info->element_oid, typmod, types, options, depth + 1));
    if (element.kind == PgValueKind::kTextFallback) {
      // Without a decoder for the elements the array's own text form is the faithful value (some types,
      // e.g. box, even use another delimiter than the comma).
      return fallback(fmt::format("PostgreSQL array type {}[]: {}", element.pg_type_name,
                                  element.warning.value_or("elements have no dedicated mapping")));
    }
    PgTypeMapping out = Make(DataType::Array(element.type), PgValueKind::kArray);
    out.pg_type_name = element.pg_type_name + "[]";
    if (element.warning) out.warning = "array elements: " + *element.warning;
    out.element = std::make_shared<const PgTypeMapping>(std::move(element));
    return finish(std::move(out));
  }

  switch (oid) {
    case pg_oid::kBool: return finish(Make(DataType::Boolean(), PgValueKind::kBool));
    case pg_oid::kInt2: return finish(Make(DataType::SmallInt(), PgValueKind::kInt2));
    case pg_oid::kInt4: return finish(Make(DataType::Int(), PgValueKind::kInt4));
    case pg_oid::kInt8: return finish(Make(DataType::BigInt(), PgValueKind::kInt8));
    case pg_oid::kOid:
    case pg_oid::kXid: return finish(Make(DataType::BigInt(), PgValueKind::kOid));
    case pg_oid::kFloat4: return finish(Make(DataType::Float(), PgValueKind::kFloat4));
    case pg_oid::kFloat8: return finish(Make(DataType::Double(), PgValueKind::kFloat8));
    case pg_oid::kNumeric: {
      auto nt = DecodeNumericTypmod(typmod);
      if (!nt) return finish(Make(DataType::String(), PgValueKind::kNumericString));
      int precision = nt->precision;
      int scale = nt->scale;
      if (scale < 0) {  // numeric(5,-2): integers rounded to hundreds, up to 7 digits
        precision -= scale;
        scale = 0;
      } else if (scale > precision) {  // numeric(3,5): |v| < 0.001, 5 fraction digits
        precision = scale;
      }
      if (precision < 1 || precision > kMaxDecimalPrecision) {
        return finish(Make(DataType::String(), PgValueKind::kNumericString));
      }
      return finish(Make(DataType::Decimal(precision, scale), PgValueKind::kNumericDecimal));
    }
    case pg_oid::kMoney: return finish(Make(DataType::Decimal(19, 2), PgValueKind::kMoney));
    case pg_oid::kText:
    case pg_oid::kName:
    case pg_oid::kXml: return finish(Make(DataType::String(), PgValueKind::kText));
    case pg_oid::kVarchar: {
      auto n = DecodeCharLengthTypmod(typmod);
      return finish(Make(n && *n >= 1 ? DataType::VarChar(*n) : DataType::String(), PgValueKind::kText));
    }
    case pg_oid::kBpchar: {
      auto n = DecodeCharLengthTypmod(typmod);
      return finish(Make(n && *n >= 1 ? DataType::Char(*n) : DataType::String(), PgValueKind::kText));
    }
    case pg_oid::kChar: return finish(Make(DataType::String(), PgValueKind::kChar));
    case pg_oid::kJson: return finish(Make(DataType::String(), PgValueKind::kJson));
    case pg_oid::kJsonb: return finish(Make(DataType::String(), PgValueKind::kJsonb));
    case pg_oid::kBytea: return finish(Make(DataType::Bytes(), PgValueKind::kBytea));
    case pg_oid::kUuid: return finish(Make(DataType::String(), PgValueKind::kUuid));
    case pg_oid::kDate: return finish(Make(DataType::Date(), PgValueKind::kDate));
    case pg_oid::kTime: {
      int p = DecodeTimePrecisionTypmod(oid, typmod).value_or(kDefaultTimePrecision);
      return finish(Make(DataType::Time(p), PgValueKind::kTime));
    }
    case pg_oid::kTimetz: return finish(Make(DataType::String(), PgValueKind::kTimeTz));
    case pg_oid::kTimestamp: {
      int p = DecodeTimePrecisionTypmod(oid, typmod).value_or(kDefaultTimePrecision);
      return finish(Make(DataType::Timestamp(p), PgValueKind::kTimestamp));
    }
    case pg_oid::kTimestamptz: {
      int p = DecodeTimePrecisionTypmod(oid, typmod).value_or(kDefaultTimePrecision);
      return finish(Make(DataType::TimestampLtz(p), PgValueKind::kTimestampTz));
    }
    case pg_oid::kInterval: return finish(Make(DataType::String(), PgValueKind::kInterval));
    case pg_oid::kInet:
    case pg_oid::kCidr: return finish(Make(DataType::String(), PgValueKind::kInet));
    case pg_oid::kMacaddr:
    case pg_oid::kMacaddr8: return finish(Make(DataType::String(), PgValueKind::kMacaddr));
    case pg_oid::kBit:
    case pg_oid::kVarbit: return finish(Make(DataType::String(), PgValueKind::kBit));
    case pg_oid::kPgLsn: return finish(Make(DataType::String(), PgValueKind::kPgLsn));
    default: break;
  }
  return fallback(fmt::format("PostgreSQL type {} has no dedicated mapping; its values are kept as STRING in "
                              "their text form (binary values of it cannot be decoded)",
                              TypeDisplayName(info, oid, typmod)));
}

}  // namespace

std::string_view PgValueKindName(PgValueKind kind) {
  switch (kind) {
    case PgValueKind::kBool: return "bool";
    case PgValueKind::kInt2: return "int2";
    case PgValueKind::kInt4: return "int4";
    case PgValueKind::kInt8: return "int8";
    case PgValueKind::kOid: return "oid";
    case PgValueKind::kFloat4: return "float4";
    case PgValueKind::kFloat8: return "float8";
    case PgValueKind::kNumericDecimal: return "numeric-decimal";
    case PgValueKind::kNumericString: return "numeric-string";
    case PgValueKind::kMoney: return "money";
    case PgValueKind::kText: return "text";
    case PgValueKind::kChar: return "char";
    case PgValueKind::kJson: return "json";
    case PgValueKind::kJsonb: return "jsonb";
    case PgValueKind::kBytea: return "bytea";
    case PgValueKind::kUuid: return "uuid";
    case PgValueKind::kDate: return "date";
    case PgValueKind::kTime: return "time";
    case PgValueKind::kTimeTz: return "timetz";
    case PgValueKind::kTimestamp: return "timestamp";
    case PgValueKind::kTimestampTz: return "timestamptz";
    case PgValueKind::kInterval: return "interval";
    case PgValueKind::kInet: return "inet";
    case PgValueKind::kMacaddr: return "macaddr";
    case PgValueKind::kBit: return "bit";
    case PgValueKind::kPgLsn: return "pg_lsn";
    case PgValueKind::kArray: return "array";
    case PgValueKind::kTextFallback: return "text-fallback";
  }
  return "?";
}

Result<PgTypeMapping> MapPgType(PgOid type_oid, int32_t type_modifier, const PgTypeRegistry& types,
                                const PgTypeMappingOptions& options) {
  return MapResolved(type_oid, type_modifier, types, options, 0);
}

Result<PgTypeMapping> MapPgColumn(const PgRelation& relation, size_t column_index, const PgTypeRegistry& types,
                                  const PgTypeMappingOptions& options) {
  if (column_index >= relation.columns.size()) {
    return Status::InvalidArgument("relation {}.{} has {} columns, no column {}", relation.namespace_name,
                                   relation.name, relation.columns.size(), column_index);
  }
  const PgRelationColumn& col = relation.columns[column_index];
  auto mapping = MapPgType(col.type_oid, col.type_modifier, types, options);
  if (!mapping.ok()) {
    return mapping.status().WithContext(
        fmt::format("column {}.{}.{}", relation.namespace_name.empty() ? "pg_catalog" : relation.namespace_name,
                    relation.name, col.name));
  }
  if (mapping->warning) {
    TIDE_LOG_WARN("column {}.{}.{}: {}", relation.namespace_name.empty() ? "pg_catalog" : relation.namespace_name,
                  relation.name, col.name, *mapping->warning);
  }
  return mapping;
}

}  // namespace tide
