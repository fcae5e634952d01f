#include "tide/format/duckdb_type_mapping.h"

#include <string>
#include <vector>

namespace tide {

namespace {

DuckLogicalType Simple(duckdb_type id) { return DuckLogicalType(duckdb_create_logical_type(id)); }

}  // namespace

Result<DuckLogicalType> DuckTypeFor(const DataType& type, std::string_view column) {
  switch (type.root()) {
    case TypeRoot::kBoolean: return Simple(DUCKDB_TYPE_BOOLEAN);
    case TypeRoot::kTinyInt: return Simple(DUCKDB_TYPE_TINYINT);
    case TypeRoot::kSmallInt: return Simple(DUCKDB_TYPE_SMALLINT);
    case TypeRoot::kInt: return Simple(DUCKDB_TYPE_INTEGER);
    case TypeRoot::kBigInt: return Simple(DUCKDB_TYPE_BIGINT);
    case TypeRoot::kFloat: return Simple(DUCKDB_TYPE_FLOAT);
    case TypeRoot::kDouble: return Simple(DUCKDB_TYPE_DOUBLE);
    case TypeRoot::kDecimal:
      if (type.precision() < 1 || type.precision() > 38 || type.scale() < 0 || type.scale() > type.precision()) {
        return Status::NotSupported("column {}: {} has no DuckDB equivalent (DECIMAL precision is 1..38)", column,
                                    type.ToString());
      }
      return DuckLogicalType(duckdb_create_decimal_type(static_cast<uint8_t>(type.precision()),
                                                        static_cast<uint8_t>(type.scale())));
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return Simple(DUCKDB_TYPE_VARCHAR);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return Simple(DUCKDB_TYPE_BLOB);
    case TypeRoot::kDate: return Simple(DUCKDB_TYPE_DATE);
    case TypeRoot::kTime: return Simple(DUCKDB_TYPE_TIME);
    case TypeRoot::kTimestamp:
      return Simple(type.precision() <= 6 ? DUCKDB_TYPE_TIMESTAMP : DUCKDB_TYPE_TIMESTAMP_NS);
    case TypeRoot::kTimestampLtz: return Simple(DUCKDB_TYPE_TIMESTAMP_TZ);
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType element, DuckTypeFor(type.element(), column));
      return DuckLogicalType(duckdb_create_list_type(element.raw()));
    }
    case TypeRoot::kMap: {
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType key, DuckTypeFor(type.key(), column));
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType value, DuckTypeFor(type.value(), column));
      return DuckLogicalType(duckdb_create_map_type(key.raw(), value.raw()));
    }
    case TypeRoot::kRow: {
      const std::vector<DataField>& fields = type.fields();
      std::vector<DuckLogicalType> children;
      std::vector<duckdb_logical_type> raw_children;
      std::vector<const char*> names;
      children.reserve(fields.size());
      for (const DataField& field : fields) {
        TIDE_ASSIGN_OR_RETURN(DuckLogicalType child, DuckTypeFor(field.type, std::string(column) + "." + field.name));
        raw_children.push_back(child.raw());
        names.push_back(field.name.c_str());
        children.push_back(std::move(child));
      }
      if (fields.empty()) {
        return Status::NotSupported("column {}: a ROW without fields has no DuckDB equivalent", column);
      }
      return DuckLogicalType(duckdb_create_struct_type(raw_children.data(), names.data(), raw_children.size()));
    }
    case TypeRoot::kVariant:
      return Status::NotSupported("column {}: VARIANT columns cannot be read through SQL yet", column);
  }
  return Status::Internal("column {}: unknown Paimon type root {}", column, static_cast<int>(type.root()));
}

std::string DuckTypeSqlName(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean: return "BOOLEAN";
    case TypeRoot::kTinyInt: return "TINYINT";
    case TypeRoot::kSmallInt: return "SMALLINT";
    case TypeRoot::kInt: return "INTEGER";
    case TypeRoot::kBigInt: return "BIGINT";
    case TypeRoot::kFloat: return "FLOAT";
    case TypeRoot::kDouble: return "DOUBLE";
    case TypeRoot::kDecimal:
      if (type.precision() < 1 || type.precision() > 38 || type.scale() < 0 || type.scale() > type.precision()) return {};
      return "DECIMAL(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) + ")";
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return "VARCHAR";
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return "BLOB";
    case TypeRoot::kDate: return "DATE";
    case TypeRoot::kTime: return "TIME";
    case TypeRoot::kTimestamp: return type.precision() <= 6 ? "TIMESTAMP" : "TIMESTAMP_NS";
    case TypeRoot::kTimestampLtz: return "TIMESTAMPTZ";
    default: return {};
  }
}

}  // namespace tide
