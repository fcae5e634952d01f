// System tables: a table's metadata as SQL rows, through DuckDB table functions named as Paimon names
// its system tables (`<table>$snapshots`, `<table>$schemas`).
//
//   paimon_snapshots(name VARCHAR)  one row per snapshot file that exists, by ascending id:
//     snapshot_id BIGINT, schema_id BIGINT, commit_user VARCHAR, commit_identifier BIGINT,
//     commit_kind VARCHAR (APPEND, COMPACT, OVERWRITE, ANALYZE), commit_time TIMESTAMP WITH TIME ZONE,
//     total_record_count BIGINT, delta_record_count BIGINT, changelog_record_count BIGINT,
//     watermark BIGINT, base_manifest_list VARCHAR, delta_manifest_list VARCHAR,
//     changelog_manifest_list VARCHAR, index_manifest VARCHAR
//   paimon_schemas(name VARCHAR)    one row per schema version, by ascending id:
//     schema_id BIGINT, fields VARCHAR (the schema file's JSON array), partition_keys VARCHAR[],
//     primary_keys VARCHAR[], options MAP(VARCHAR, VARCHAR), comment VARCHAR,
//     update_time TIMESTAMP WITH TIME ZONE
//
// Bind only parses the name and declares the columns (so views over them cost nothing to create); the
// files are read when the scan starts. Thread-safety: as paimon_scan (one thread per scan).
#pragma once

#include <memory>

#include "tide/base/status.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/table_source.h"

namespace tide {

inline constexpr const char* kSnapshotsFunction = "paimon_snapshots";
inline constexpr const char* kSchemasFunction = "paimon_schemas";

// Registers paimon_snapshots and paimon_schemas in the database of `connection`.
Status RegisterSystemTables(const DuckConnection& connection, std::shared_ptr<const TableSource> source);

}  // namespace tide
