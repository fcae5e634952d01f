#include "tide/sync/metadata_column.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {
namespace {

constexpr MetadataColumn kAll[] = {MetadataColumn::kDatabaseName, MetadataColumn::kSchemaName,
                                   MetadataColumn::kTableName, MetadataColumn::kOpTs};

}  // namespace

std::string_view MetadataColumnName(MetadataColumn column) {
  switch (column) {
    case MetadataColumn::kDatabaseName: return "database_name";
    case MetadataColumn::kSchemaName: return "schema_name";
    case MetadataColumn::kTableName: return "table_name";
    case MetadataColumn::kOpTs: return "op_ts";
  }
  return "?";
}

DataType MetadataColumnType(MetadataColumn column) {
  if (column == MetadataColumn::kOpTs) return DataType::TimestampLtz(3).WithNullable(false);
  return DataType::String().WithNullable(false);
}

Result<std::vector<MetadataColumn>> ParseMetadataColumns(std::string_view list) {
  std::vector<MetadataColumn> out;
  for (const std::string& name : SplitTrimmed(list, ',')) {
    if (name.empty()) continue;
    bool known = false;
    for (MetadataColumn c : kAll) {
      if (name != MetadataColumnName(c)) continue;
      if (std::find(out.begin(), out.end(), c) != out.end()) {
        return Status::InvalidArgument("--metadata-column names {} twice", name);
      }
      out.push_back(c);
      known = true;
    }
    if (!known) {
      return Status::InvalidArgument(
          "--metadata-column {} is not a metadata column of a PostgreSQL source; use database_name, schema_name, "
          "table_name or op_ts",
          name);
    }
  }
  return out;
}

Datum MetadataColumnValue(MetadataColumn column, const RowOrigin& origin) {
  switch (column) {
    case MetadataColumn::kDatabaseName: return Datum(std::string(origin.database));
    case MetadataColumn::kSchemaName: return Datum(origin.table->schema);
    case MetadataColumn::kTableName: return Datum(origin.table->name);
    case MetadataColumn::kOpTs: {
      // Milliseconds, as Paimon's op_ts (TIMESTAMP_LTZ(3)) holds them; floor toward -infinity.
      int64_t micros = origin.commit_time_micros;
      int64_t millis = micros / 1000 - (micros % 1000 < 0 ? 1 : 0);
      return Datum(TimestampValue{millis, 0});
    }
  }
  return Datum();
}

}  // namespace tide
