#include "tide/catalog/catalog.h"

#include "tide/base/strings.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  std::string_view t = Trim(text);
  size_t dot = t.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == t.size() || t.find('.', dot + 1) != std::string_view::npos) {
    return Status::InvalidArgument("'{}' is not a table identifier: write it as <database>.<table>", text);
  }
  return TableIdentifier{std::string(t.substr(0, dot)), std::string(t.substr(dot + 1))};
}

Result<std::unique_ptr<Catalog>> Catalog::Open(FileSystem* fs, std::string warehouse) {
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  TIDE_ASSIGN_OR_RETURN(bool exists, fs->Exists(warehouse));
  if (!exists) return Status::NotFound("warehouse {} does not exist", warehouse);
  return std::unique_ptr<Catalog>(new Catalog(fs, std::move(warehouse)));
}

Result<std::vector<std::string>> Catalog::ListDatabases() const {
  TIDE_ASSIGN_OR_RETURN(auto entries, fs_->ListDir(warehouse_));
  std::vector<std::string> out;
  for (const auto& e : entries) {
    if (e.is_directory && EndsWith(e.name, ".db") && e.name.size() > 3) out.push_back(e.name.substr(0, e.name.size() - 3));
  }
  return out;
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
  std::string db_path = JoinPath(warehouse_, database + ".db");
  auto entries = fs_->ListDir(db_path);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) {
      return Status::NotFound("database '{}' does not exist in warehouse {}", database, warehouse_);
    }
    return entries.status();
  }
  std::vector<std::string> out;
  for (const auto& e : *entries) {
    if (!e.is_directory) continue;
    TIDE_ASSIGN_OR_RETURN(bool has_schema, SchemaManager(fs_, JoinPath(db_path, e.name)).Exists());
    if (has_schema) out.push_back(e.name);
  }
  return out;
}

std::string Catalog::TablePath(const TableIdentifier& id) const {
  return JoinPath(JoinPath(warehouse_, id.database + ".db"), id.table);
}

Result<std::unique_ptr<Table>> Catalog::GetTable(const TableIdentifier& id) const {
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs_, path).Exists());
  if (!exists) {
    return Status::NotFound("table {} does not exist in warehouse {} (no schema file in {}/schema)",
                            id.ToString(), warehouse_, path);
  }
  return Table::Open(fs_, path, id.ToString());
}

namespace {

// Database and table names become folder names: refuse what would escape or confuse the layout.
Status CheckName(const std::string& name, const char* what) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos || name[0] == '.') {
    return Status::InvalidArgument("'{}' is not a valid {} name: use letters, digits and '_'", name, what);
  }
  return Status::OK();
}

}  // namespace

Status Catalog::CreateDatabase(const std::string& name, bool ignore_if_exists) const {
  TIDE_RETURN_IF_ERROR(CheckName(name, "database"));
  std::string path = JoinPath(warehouse_, name + ".db");
  TIDE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("database '{}' already exists in warehouse {}", name, warehouse_);
  }
  return fs_->MakeDirs(path);
}

Result<TableSchema> Catalog::CreateTable(const TableIdentifier& id, const std::vector<ColumnDefinition>& columns,
                                         const std::vector<std::string>& partition_keys,
                                         const std::vector<std::string>& primary_keys,
                                         const std::vector<std::pair<std::string, std::string>>& options) const {
  TIDE_RETURN_IF_ERROR(CheckName(id.database, "database"));
  TIDE_RETURN_IF_ERROR(CheckName(id.table, "table"));
  TIDE_ASSIGN_OR_RETURN(bool db_exists, fs_->Exists(JoinPath(warehouse_, id.database + ".db")));
  if (!db_exists) {
    return Status::NotFound("database '{}' does not exist in warehouse {}; create it first", id.database, warehouse_);
  }
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs_, path).Exists());
  if (exists) return Status::AlreadyExists("table {} already exists in warehouse {}", id.ToString(), warehouse_);
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, NewTableSchema(columns, partition_keys, primary_keys, options,
                                                           id.ToString(), CurrentTimeMillis()));
  SchemaManager schemas(fs_, path);
  Status written = fs_->WriteFileExclusive(schemas.SchemaPath(0), schema.ToJson());
  if (written.IsAlreadyExists()) {
    return Status::AlreadyExists("table {} already exists in warehouse {} (created concurrently)", id.ToString(),
                                 warehouse_);
  }
  TIDE_RETURN_IF_ERROR(written);
  return schema;
}

Status Catalog::DropTable(const TableIdentifier& id) const {
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs_, path).Exists());
  if (!exists) return Status::NotFound("table {} does not exist in warehouse {}", id.ToString(), warehouse_);
  return fs_->DeleteRecursively(path);
}

Result<TableSchema> Catalog::AlterTable(const TableIdentifier& id, const std::vector<SchemaChange>& changes) const {
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs_, path).Exists());
  if (!exists) return Status::NotFound("table {} does not exist in warehouse {}", id.ToString(), warehouse_);
  return CommitSchemaChanges(fs_, path, id.ToString(), changes);
}

Result<Catalog::TableSummary> Catalog::DescribeTable(const TableIdentifier& id) const {
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs_, path).Exists());
  if (!exists) return Status::NotFound("table {} does not exist in warehouse {}", id.ToString(), warehouse_);
  TableSummary summary;
  summary.name = id.table;
  TIDE_ASSIGN_OR_RETURN(summary.schema, SchemaManager(fs_, path).Latest());
  SnapshotManager snapshots(fs_, path);
  TIDE_ASSIGN_OR_RETURN(summary.snapshot_id, snapshots.LatestId());
  if (summary.snapshot_id) {
    TIDE_ASSIGN_OR_RETURN(Snapshot snapshot, snapshots.Get(*summary.snapshot_id));
    summary.snapshot_time_millis = snapshot.time_millis;
    summary.record_count = snapshot.total_record_count;
  }
  return summary;
}

Result<std::vector<Catalog::TableSummary>> Catalog::ListTableSummaries(const std::string& database) const {
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> names, ListTables(database));
  std::vector<TableSummary> out;
  for (const std::string& name : names) {
    TIDE_ASSIGN_OR_RETURN(TableSummary summary, DescribeTable(TableIdentifier{database, name}));
    out.push_back(std::move(summary));
  }
  return out;
}

}  // namespace tide
