// Catalog: the filesystem catalog of a warehouse folder, `<warehouse>/<database>.db/<table>/`.
//
// Lists databases and tables and opens tables by their identifier `database.table`; creates and drops
// databases and tables (schema-0 built and validated as Java's SchemaManager.createTable does, see
// table/schema_change.h) and applies ALTER TABLE changes. Thread-safety: immutable after Open; safe to
// share. Creating a table is safe against a concurrent create of the same table: schema-0 is written
// exclusively, so exactly one wins and the other gets AlreadyExists.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/schema/schema_change.h"
#include "tide/table/table.h"

namespace tide {

// A table's name inside a warehouse.
struct TableIdentifier {
  std::string database;
  std::string table;

  // Parses "database.table"; fails with a message that shows the expected form.
  static Result<TableIdentifier> Parse(std::string_view text);
  std::string ToString() const { return database + "." + table; }
  bool operator==(const TableIdentifier&) const = default;
};

class Catalog {
 public:
  // Opens the warehouse at `warehouse`; NotFound if the folder does not exist.
  static Result<std::unique_ptr<Catalog>> Open(FileSystem* fs, std::string warehouse);

  const std::string& warehouse() const { return warehouse_; }
  FileSystem* fs() const { return fs_; }

  // Database names (folders ending in ".db"), sorted.
  Result<std::vector<std::string>> ListDatabases() const;
  // Table names in a database (folders holding a schema file), sorted.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  std::string TablePath(const TableIdentifier& id) const;
  // Opens a table; NotFound naming the identifier and the warehouse if it does not exist.
  Result<std::unique_ptr<Table>> GetTable(const TableIdentifier& id) const;

  // Creates `<warehouse>/<name>.db`; AlreadyExists unless `ignore_if_exists`.
  Status CreateDatabase(const std::string& name, bool ignore_if_exists) const;
  // Writes schema-0 of a new table (the database must exist). AlreadyExists if the table exists;
  // validation errors name the table and leave nothing behind.
  Result<TableSchema> CreateTable(const TableIdentifier& id, const std::vector<ColumnDefinition>& columns,
                                  const std::vector<std::string>& partition_keys,
                                  const std::vector<std::string>& primary_keys,
                                  const std::vector<std::pair<std::string, std::string>>& options) const;
  // Deletes the table's folder with everything in it; NotFound if it does not exist.
  Status DropTable(const TableIdentifier& id) const;
  // Applies ALTER TABLE changes as the next schema file; Conflict if a concurrent ALTER won.
  Result<TableSchema> AlterTable(const TableIdentifier& id, const std::vector<SchemaChange>& changes) const;

  // A table as `tide table list` shows it.
  struct TableSummary {
    std::string name;
    TableSchema schema;                        // the latest schema
    std::optional<int64_t> snapshot_id;        // the latest snapshot, if any
    std::optional<int64_t> snapshot_time_millis;
    std::optional<int64_t> record_count;       // the latest snapshot's totalRecordCount
  };
  // Every table of `database` with its latest schema and snapshot, sorted by name.
  Result<std::vector<TableSummary>> ListTableSummaries(const std::string& database) const;
  Result<TableSummary> DescribeTable(const TableIdentifier& id) const;

 private:
  Catalog(FileSystem* fs, std::string warehouse) : fs_(fs), warehouse_(std::move(warehouse)) {}
  FileSystem* fs_;
  std::string warehouse_;
};

}  // namespace tide
