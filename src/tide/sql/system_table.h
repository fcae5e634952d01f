// SystemTable: one of Paimon's system tables (org.apache.paimon.table.system.*Table) as a DuckDB table
// function: its name, its columns (Paimon's names and types, mapped like any table's) and how its rows
// are made from a table's metadata files. Also the helpers the definitions share: Java's renderings of
// values (a partition as `{a, b}`, a key as `[1, x]`) and its local wall-clock timestamps.
//
// The definitions live by concept: system_tables_history.cc (snapshots, schemas, options, tags,
// branches, consumers), system_tables_files.cc (files, manifests, partitions, buckets, table_indexes),
// system_tables_warehouse.cc (the `sys` database). system_tables.h registers them and creates the views.
//
// A table-scoped function takes the table's name, `paimon_files('db.t')`; one that reads a snapshot's
// files (`time_travel`) also takes snapshot_id / timestamp_ms / tag as paimon_scan does. A warehouse
// function takes nothing. Bind only parses and declares the columns (views over them cost nothing to
// create); the files are read when the scan starts. Thread-safety: the definitions are immutable; each
// scan holds its own rows and runs on one thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/table_source.h"
#include "tide/types/datum.h"

namespace tide {

enum class SystemTableScope {
  kTable,      // one table's: `<db>."<table>$<name>"`
  kWarehouse,  // the whole warehouse's: `sys.<name>`
};

// What one scan of a system table asks for.
struct SystemTableQuery {
  TableIdentifier id;         // kTable only
  SnapshotSelector snapshot;  // time_travel tables only; latest when empty
};

struct SystemTable {
  std::string name;      // Paimon's name: the view is `<table>$<name>` or `sys.<name>`
  std::string function;  // the DuckDB table function, `paimon_<name>`
  SystemTableScope scope = SystemTableScope::kTable;
  bool time_travel = false;  // takes snapshot_id / timestamp_ms / tag
  std::vector<DataField> columns;
  std::function<Result<std::vector<Row>>(const TableSource&, const SystemTableQuery&)> rows;
};

// Registers `table`'s function in the database of `connection`; it reads through `source`.
Status RegisterSystemTable(const DuckConnection& connection, std::shared_ptr<const TableSource> source,
                           SystemTable table);

// The definitions, by concept.
std::vector<SystemTable> HistorySystemTables();    // snapshots, schemas, options, tags, branches, consumers
std::vector<SystemTable> FileSystemTables();       // files, manifests, partitions, buckets, table_indexes
std::vector<SystemTable> WarehouseSystemTables();  // tables, partitions, all_table_options

// ---- helpers shared by the definitions ----

DataField SystemColumn(int32_t id, std::string name, DataType type);
Datum OptionalInt(const std::optional<int64_t>& v);
Datum OptionalString(const std::optional<std::string>& v);

// Java's `LocalDateTime.ofInstant(Instant.ofEpochMilli(epoch_ms), ZoneId.systemDefault())` as a
// TIMESTAMP(3) value: the process's local wall clock (the TZ environment variable), as Java shows it.
int64_t LocalWallClockMillis(int64_t epoch_ms);
Datum LocalTimestamp(int64_t epoch_ms);
// A value that is already a local wall-clock time in milliseconds (a data file's creation time).
Datum WallClockTimestamp(int64_t wall_clock_ms);

// A value as Paimon casts it to STRING (a partition value): `2024-01-31`, `12.30`, `true`; NULL as "null".
std::string PaimonCastText(const Datum& value, const DataType& type);
// A partition as Java's row-to-string cast shows it: `{2024-01-31, 1}`; `{}` for an unpartitioned table.
std::string PartitionRowText(const Row& values, const std::vector<DataType>& types);
// A partition as `dt=2024-01-31/hr=1` (NULL as the table's default partition name).
std::string PartitionSpecText(const Row& values, const std::vector<DataField>& partition_fields,
                              const std::string& default_name);
// A value as Java's toString of Paimon's internal object shows it (keys and statistics of `$files`):
// numbers, strings as they are, DATE as its day number, TIMESTAMP as an ISO LocalDateTime (`T`), NULL as
// "null".
std::string JavaInternalText(const Datum& value, const DataType& type);

// The partition fields of `schema`, in partition-key order.
std::vector<DataField> PartitionFields(const TableSchema& schema);
std::vector<DataType> TypesOf(const std::vector<DataField>& fields);

// The snapshot `selector` picks, or nullopt when it asks for the latest and the table has none.
Result<std::optional<Snapshot>> ResolveSnapshot(const Table& table, const SnapshotSelector& selector);

}  // namespace tide
