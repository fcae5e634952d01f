// MetadataColumn: a column of a lake table that the sync fills from where a row came from rather than
// from the row, as Paimon's CDC actions do with `--metadata_column` (CdcMetadataConverter, PostgreSQL
// processor): `database_name`, `schema_name`, `table_name` (STRING NOT NULL) and `op_ts`
// (TIMESTAMP_LTZ(3) NOT NULL: when the source transaction committed; 0, i.e. 1970-01-01 00:00:00 UTC,
// for rows of the initial copy, as Paimon's snapshot phase gives).
//
// With several source tables in one lake table (shards), `table_name` tells them apart; a lake table's
// metadata columns join its primary key only if the user names them in --primary-keys.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/publication.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

enum class MetadataColumn { kDatabaseName, kSchemaName, kTableName, kOpTs };

// Parses a comma-separated list (`op_ts,table_name`); InvalidArgument naming an unknown name and the
// known ones, or a name given twice.
Result<std::vector<MetadataColumn>> ParseMetadataColumns(std::string_view list);
std::string_view MetadataColumnName(MetadataColumn column);
DataType MetadataColumnType(MetadataColumn column);

// Where a row came from: the PostgreSQL database, the source table, and its transaction's commit time
// (Unix microseconds; 0 for copied rows).
struct RowOrigin {
  std::string_view database;
  const PgTableName* table = nullptr;
  int64_t commit_time_micros = 0;
};

Datum MetadataColumnValue(MetadataColumn column, const RowOrigin& origin);

}  // namespace tide
