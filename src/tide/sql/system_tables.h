// System tables: Paimon's system tables of every table, `<db>."<table>$<name>"`, and of the whole
// warehouse, `sys.<name>`, with Paimon's column names and types (Paimon 2.0's
// org.apache.paimon.table.system.*Table). Each is a DuckDB table function (`paimon_<name>('db.t')`)
// and a view over it:
//
//   $snapshots $schemas $options $tags $branches $consumers   system_tables_history.cc
//   $files $manifests $partitions $buckets $table_indexes      system_tables_files.cc (these also take
//                                                               snapshot_id / timestamp_ms / tag)
//   $ro                                                         paimon_scan(..., read_optimized => true)
//   sys.tables sys.partitions sys.all_table_options             system_tables_warehouse.cc
//
// Columns and rows of each: docs/sql.md. Thread-safety: registration and view creation use the
// connection on the calling thread; the functions are safe on any thread (system_table.h).
#pragma once

#include <functional>

#include <memory>
#include <string>
#include <vector>

#include "tide/base/status.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/table_source.h"

namespace tide {

inline constexpr const char* kSnapshotsFunction = "paimon_snapshots";
inline constexpr const char* kSchemasFunction = "paimon_schemas";
// The DuckDB schema of the warehouse-wide system tables, as Paimon's `sys` database.
inline constexpr const char* kSystemDatabase = "sys";

// Registers every system table function in the database of `connection`.
Status RegisterSystemTables(const DuckConnection& connection, std::shared_ptr<const TableSource> source);

// The names of a table's system tables, as they follow the `$` in a view's name.
std::vector<std::string> TableSystemTableNames();

// Creates the views `<db>."<table>$<name>"` of every system table of `id` (the schema `<db>` exists).
// `wanted` (when given) says which of them to create, by name (`snapshots`, `ro`, ...).
Status CreateTableSystemViews(DuckConnection& connection, const TableIdentifier& id,
                              const std::function<bool(const std::string&)>& wanted = nullptr);

// Creates the schema `sys` and its views. AlreadyExists when the warehouse has a database named `sys`
// (its tables keep the name; the warehouse-wide tables are then only reachable as functions).
Status CreateWarehouseSystemViews(DuckConnection& connection);

}  // namespace tide
