#include "tide/sql/system_tables.h"

#include "tide/sql/paimon_scan.h"
#include "tide/sql/sql_table_name.h"
#include "tide/sql/system_table.h"

namespace tide {

namespace {

std::vector<SystemTable> AllSystemTables() {
  std::vector<SystemTable> tables = HistorySystemTables();
  for (SystemTable& t : FileSystemTables()) tables.push_back(std::move(t));
  for (SystemTable& t : WarehouseSystemTables()) tables.push_back(std::move(t));
  return tables;
}

// The read-optimized view: not a function of its own but paimon_scan over the top level.
constexpr const char* kReadOptimized = "ro";

}  // namespace

Status RegisterSystemTables(const DuckConnection& connection, std::shared_ptr<const TableSource> source) {
  for (SystemTable& table : AllSystemTables()) {
    TIDE_RETURN_IF_ERROR(RegisterSystemTable(connection, source, std::move(table)));
  }
  return Status::OK();
}

std::vector<std::string> TableSystemTableNames() {
  std::vector<std::string> names;
  for (const SystemTable& t : AllSystemTables()) {
    if (t.scope == SystemTableScope::kTable) names.push_back(t.name);
  }
  names.push_back(kReadOptimized);
  return names;
}

Status CreateTableSystemViews(DuckConnection& connection, const TableIdentifier& id,
                              const std::function<bool(const std::string&)>& wanted) {
  std::string name = QuoteSqlString(FormatSqlTableName(id));
  std::string schema = QuoteSqlIdentifier(id.database) + ".";
  for (const SystemTable& t : AllSystemTables()) {
    if (t.scope != SystemTableScope::kTable) continue;
    if (wanted && !wanted(t.name)) continue;
    TIDE_RETURN_IF_ERROR(connection.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({})", schema,
                                                        QuoteSqlIdentifier(id.table + "$" + t.name), t.function,
                                                        name)));
  }
  if (wanted && !wanted(kReadOptimized)) return Status::OK();
  return connection.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({}, read_optimized => true)", schema,
                                        QuoteSqlIdentifier(id.table + "$" + kReadOptimized), kPaimonScanFunction,
                                        name));
}

Status CreateWarehouseSystemViews(DuckConnection& connection) {
  std::string schema = QuoteSqlIdentifier(kSystemDatabase);
  TIDE_RETURN_IF_ERROR(connection.Execute("CREATE SCHEMA " + schema));
  for (const SystemTable& t : AllSystemTables()) {
    if (t.scope != SystemTableScope::kWarehouse) continue;
    TIDE_RETURN_IF_ERROR(connection.Execute(
        fmt::format("CREATE VIEW {}.{} AS SELECT * FROM {}()", schema, QuoteSqlIdentifier(t.name), t.function)));
  }
  return Status::OK();
}

}  // namespace tide
