#include "tide/sql/lake_connection.h"

#include "tide/sql/paimon_scan.h"
#include "tide/sql/sql_table_name.h"
#include "tide/sql/system_tables.h"

namespace tide {

Result<std::unique_ptr<LakeConnection>> LakeConnection::OpenWarehouse(FileSystem* fs, std::string warehouse) {
  TIDE_ASSIGN_OR_RETURN(std::shared_ptr<TableSource> source, OpenCatalogSource(fs, std::move(warehouse)));
  return Open(std::move(source));
}

Result<std::unique_ptr<LakeConnection>> LakeConnection::Open(std::shared_ptr<const TableSource> source) {
  std::unique_ptr<LakeConnection> lake(new LakeConnection());
  lake->source_ = std::move(source);
  TIDE_ASSIGN_OR_RETURN(lake->database_, DuckDB::Open(":memory:"));
  TIDE_ASSIGN_OR_RETURN(lake->connection_, lake->database_.Connect());
  TIDE_RETURN_IF_ERROR(RegisterPaimonScan(lake->connection_, lake->source_));
  TIDE_RETURN_IF_ERROR(RegisterSystemTables(lake->connection_, lake->source_));
  TIDE_RETURN_IF_ERROR(lake->CreateViews());
  return lake;
}

Status LakeConnection::CreateViews() {
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> databases, source_->ListDatabases());
  for (const std::string& database : databases) {
    Status created = connection_.Execute("CREATE SCHEMA IF NOT EXISTS " + QuoteSqlIdentifier(database));
    if (!created.ok()) {
      skipped_.push_back(fmt::format("database {}: {}", database, created.message()));
      continue;
    }
    Result<std::vector<std::string>> tables = source_->ListTables(database);
    if (!tables.ok()) {
      skipped_.push_back(fmt::format("database {}: {}", database, tables.status().message()));
      continue;
    }
    for (const std::string& table : *tables) {
      Status st = CreateTableViews(database, table);
      if (!st.ok()) skipped_.push_back(fmt::format("table {}.{}: {}", database, table, st.message()));
    }
  }
  return Status::OK();
}

Status LakeConnection::CreateTableViews(const std::string& database, const std::string& table) {
  std::string name = QuoteSqlString(FormatSqlTableName(TableIdentifier{database, table}));
  std::string schema = QuoteSqlIdentifier(database) + ".";
  // CREATE VIEW binds its query, so a table whose schema cannot be read or mapped fails here, alone.
  TIDE_RETURN_IF_ERROR(connection_.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({})", schema,
                                                       QuoteSqlIdentifier(table), kPaimonScanFunction, name)));
  TIDE_RETURN_IF_ERROR(connection_.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({})", schema,
                                                       QuoteSqlIdentifier(table + "$snapshots"),
                                                       kSnapshotsFunction, name)));
  return connection_.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({})", schema,
                                         QuoteSqlIdentifier(table + "$schemas"), kSchemasFunction, name));
}

}  // namespace tide
