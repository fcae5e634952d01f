// The warehouse-wide system tables of Paimon's `sys` database, as Paimon 2.0 defines them:
// `sys.tables` (AllTablesTable), `sys.partitions` (AllPartitionsTable) and `sys.all_table_options`
// (AllTableOptionsTable). (`sys.catalog_options` is off by default in Java and a filesystem warehouse
// has no catalog options beyond its path, so it is not shown.)
//
// Java's filesystem catalog leaves the owner and audit columns of `sys.tables` NULL, as here; the
// statistics columns (record_count, file_size_in_bytes, file_count, last_file_creation_time), which
// Java fills only from a REST catalog, are computed here from the live files of each table's latest
// snapshot. A table that cannot be read is listed with NULL statistics (sys.tables) or left out (the
// others), so one damaged table does not hide the warehouse. Thread-safety: as system_table.h.
#include <algorithm>
#include <map>

#include "tide/codec/binary_row.h"
#include "tide/sql/system_table.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/core_options.h"

namespace tide {

namespace {

// Every table of the warehouse, in database and name order.
Result<std::vector<TableIdentifier>> AllTables(const TableSource& source) {
  std::vector<TableIdentifier> out;
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> databases, source.ListDatabases());
  for (const std::string& database : databases) {
    Result<std::vector<std::string>> tables = source.ListTables(database);
    if (!tables.ok()) continue;
    for (const std::string& table : *tables) out.push_back(TableIdentifier{database, table});
  }
  return out;
}

// A local wall-clock time (as data files store their creation time) back to epoch milliseconds.
int64_t EpochMillisOfWallClock(int64_t wall_clock_ms) {
  int64_t offset = LocalWallClockMillis(wall_clock_ms) - wall_clock_ms;
  return wall_clock_ms - offset;
}

struct Totals {
  int64_t record_count = 0;
  int64_t file_size = 0;
  int64_t file_count = 0;
  int64_t last_creation_ms = 0;  // local wall clock
  Row partition_values;
};

// The live files of the table's latest snapshot, summed per serialized partition.
Result<std::map<std::string, Totals>> PartitionTotals(const Table& table) {
  std::map<std::string, Totals> out;
  TIDE_ASSIGN_OR_RETURN(std::optional<Snapshot> snapshot, ResolveSnapshot(table, SnapshotSelector{}));
  if (!snapshot) return out;
  FileStoreScan scan(table.fs(), table.path(), table.name(), table.latest_schema());
  TIDE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, scan.ReadLiveEntries(*snapshot));
  std::vector<DataType> partition_types = TypesOf(PartitionFields(table.latest_schema()));
  for (const ManifestEntry& e : entries) {
    auto [it, inserted] = out.try_emplace(e.partition);
    Totals& t = it->second;
    if (inserted) TIDE_ASSIGN_OR_RETURN(t.partition_values, DeserializeBinaryRow(e.partition, partition_types));
    const DataFileMeta& f = e.file;
    t.record_count += f.row_count;
    t.file_size += f.file_size;
    ++t.file_count;
    t.last_creation_ms = std::max(t.last_creation_ms, f.creation_time_ms.value_or(0));
  }
  return out;
}

SystemTable AllTablesTable() {
  SystemTable t;
  t.name = "tables";
  t.function = "paimon_all_tables";
  t.scope = SystemTableScope::kWarehouse;
  t.columns = {SystemColumn(0, "database_name", DataType::String()),
               SystemColumn(1, "table_name", DataType::String()),
               SystemColumn(2, "table_type", DataType::String()),
               SystemColumn(3, "partitioned", DataType::Boolean()),
               SystemColumn(4, "primary_key", DataType::Boolean()),
               SystemColumn(5, "owner", DataType::String()),
               SystemColumn(6, "created_at", DataType::BigInt()),
               SystemColumn(7, "created_by", DataType::String()),
               SystemColumn(8, "updated_at", DataType::BigInt()),
               SystemColumn(9, "updated_by", DataType::String()),
               SystemColumn(10, "record_count", DataType::BigInt()),
               SystemColumn(11, "file_size_in_bytes", DataType::BigInt()),
               SystemColumn(12, "file_count", DataType::BigInt()),
               SystemColumn(13, "last_file_creation_time", DataType::BigInt())};
  t.rows = [](const TableSource& source, const SystemTableQuery&) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<TableIdentifier> ids, AllTables(source));
    std::vector<Row> rows;
    for (const TableIdentifier& id : ids) {
      Result<TableSchema> schema = source.ReadSchema(id, SnapshotSelector{});
      if (!schema.ok()) continue;
      Datum records, size, count, last;
      if (Result<std::unique_ptr<Table>> table = source.OpenTable(id); table.ok()) {
        if (auto totals = PartitionTotals(**table); totals.ok()) {
          Totals sum;
          for (const auto& [partition, t] : *totals) {
            sum.record_count += t.record_count;
            sum.file_size += t.file_size;
            sum.file_count += t.file_count;
            sum.last_creation_ms = std::max(sum.last_creation_ms, t.last_creation_ms);
          }
          records = Datum(sum.record_count);
          size = Datum(sum.file_size);
          count = Datum(sum.file_count);
          last = sum.file_count > 0 ? Datum(EpochMillisOfWallClock(sum.last_creation_ms)) : Datum();
        }
      }
      rows.push_back(Row{Datum(id.database), Datum(id.table), Datum(schema->Option("type", "table")),
                         Datum(!schema->partition_keys.empty()), Datum(!schema->primary_keys.empty()),
                         OptionalString(schema->FindOption("owner")), Datum(), Datum(), Datum(), Datum(), records,
                         size, count, last});
    }
    return rows;
  };
  return t;
}

SystemTable AllPartitionsTable() {
  SystemTable t;
  t.name = "partitions";
  t.function = "paimon_all_partitions";
  t.scope = SystemTableScope::kWarehouse;
  t.columns = {SystemColumn(0, "database_name", DataType::String()),
               SystemColumn(1, "table_name", DataType::String()),
               SystemColumn(2, "partition_name", DataType::String()),
               SystemColumn(3, "record_count", DataType::BigInt()),
               SystemColumn(4, "file_size_in_bytes", DataType::BigInt()),
               SystemColumn(5, "file_count", DataType::BigInt()),
               SystemColumn(6, "last_file_creation_time", DataType::BigInt()),
               SystemColumn(7, "done", DataType::Boolean())};
  t.rows = [](const TableSource& source, const SystemTableQuery&) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<TableIdentifier> ids, AllTables(source));
    std::vector<Row> rows;
    for (const TableIdentifier& id : ids) {
      Result<std::unique_ptr<Table>> table = source.OpenTable(id);
      if (!table.ok() || (*table)->latest_schema().partition_keys.empty()) continue;
      Result<CoreOptions> core = CoreOptions::Create((*table)->latest_schema(), (*table)->name());
      Result<std::map<std::string, Totals>> totals = PartitionTotals(**table);
      if (!core.ok() || !totals.ok()) continue;
      std::vector<DataField> fields = PartitionFields((*table)->latest_schema());
      std::vector<std::pair<std::string, Row>> table_rows;
      for (const auto& [partition, t] : *totals) {
        std::string name = PartitionSpecText(t.partition_values, fields, core->partition_default_name());
        table_rows.emplace_back(name, Row{Datum(id.database), Datum(id.table), Datum(name), Datum(t.record_count),
                                          Datum(t.file_size), Datum(t.file_count),
                                          Datum(EpochMillisOfWallClock(t.last_creation_ms)), Datum(false)});
      }
      std::stable_sort(table_rows.begin(), table_rows.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [name, row] : table_rows) rows.push_back(std::move(row));
    }
    return rows;
  };
  return t;
}

SystemTable AllTableOptionsTable() {
  SystemTable t;
  t.name = "all_table_options";
  t.function = "paimon_all_table_options";
  t.scope = SystemTableScope::kWarehouse;
  t.columns = {SystemColumn(0, "database_name", DataType::String()),
               SystemColumn(1, "table_name", DataType::String()), SystemColumn(2, "key", DataType::String()),
               SystemColumn(3, "value", DataType::String())};
  t.rows = [](const TableSource& source, const SystemTableQuery&) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<TableIdentifier> ids, AllTables(source));
    std::vector<Row> rows;
    for (const TableIdentifier& id : ids) {
      Result<TableSchema> schema = source.ReadSchema(id, SnapshotSelector{});
      if (!schema.ok()) continue;
      for (const auto& [key, value] : schema->options) {
        rows.push_back(Row{Datum(id.database), Datum(id.table), Datum(key), Datum(value)});
      }
    }
    return rows;
  };
  return t;
}

}  // namespace

std::vector<SystemTable> WarehouseSystemTables() {
  return {AllTablesTable(), AllPartitionsTable(), AllTableOptionsTable()};
}

}  // namespace tide
