#include "tide/sql/lake_connection.h"

#include <cctype>

#include "tide/base/strings.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/sql/audit_log_table.h"
#include "tide/sql/paimon_scan.h"
#include "tide/sql/sql_table_name.h"
#include "tide/sql/system_tables.h"

namespace tide {

std::string SkippedTable::ToString() const {
  if (table.empty()) return fmt::format("database {}: {}", database, reason.message());
  return fmt::format("table {}: {}", FormatSqlTableName(TableIdentifier{database, table}), reason.message());
}

namespace {

// DuckDB appends the statement with a caret under the failing spot; the reason alone reads better.
Status WithoutStatementContext(const Status& status) {
  size_t at = status.message().find("\n\nLINE ");
  if (at == std::string::npos) return status;
  return Status(status.code(), status.message().substr(0, at));
}

}  // namespace

namespace {

// Words of statements that list the catalog or name tables at run time: every view is needed.
constexpr const char* kCatalogWords[] = {"show",   "describe", "summarize",    "pragma",        "export",
                                         "query",  "duckdb_",  "information_schema", "pg_catalog", "sqlite_master",
                                         "table_info"};

}  // namespace

bool StatementListsCatalog(std::string_view sql_lower) {
  for (const char* word : kCatalogWords) {
    if (sql_lower.find(word) != std::string_view::npos) return true;
  }
  return false;
}

bool StatementMayNameTable(std::string_view sql_lower, const std::string& table) {
  if (StatementListsCatalog(sql_lower)) return true;
  for (char c : table) {
    // DuckDB folds case beyond ASCII too; such a name is not matched by text.
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  std::string name = ToLower(table);
  if (sql_lower.find(name) != std::string_view::npos) return true;
  std::string quoted;
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return sql_lower.find(quoted) != std::string_view::npos;
}

Result<std::unique_ptr<LakeConnection>> LakeConnection::OpenWarehouse(FileSystem* fs, std::string warehouse,
                                                                      LakeOpenOptions options) {
  TIDE_ASSIGN_OR_RETURN(std::shared_ptr<TableSource> source, OpenCatalogSource(fs, std::move(warehouse)));
  return Open(std::move(source), std::move(options));
}

Result<std::unique_ptr<LakeConnection>> LakeConnection::Open(std::shared_ptr<const TableSource> source,
                                                             LakeOpenOptions options) {
  std::unique_ptr<LakeConnection> lake(new LakeConnection());
  lake->source_ = std::move(source);
  lake->pushdown_ = std::make_unique<FilterPushdown>(lake->source_);
  TIDE_ASSIGN_OR_RETURN(lake->database_, DuckDB::Open(":memory:"));
  TIDE_ASSIGN_OR_RETURN(lake->connection_, lake->database_.Connect());
  TIDE_RETURN_IF_ERROR(RegisterPaimonScan(lake->connection_, lake->source_));
  TIDE_RETURN_IF_ERROR(RegisterSystemTables(lake->connection_, lake->source_));
  TIDE_RETURN_IF_ERROR(lake->CreateViews(options));
  TIDE_RETURN_IF_ERROR(lake->pushdown_->SnapshotViewDefinitions(lake->connection_));
  return lake;
}

Status LakeConnection::CreateViews(const LakeOpenOptions& options) {
  std::optional<std::string> sql_lower;
  if (options.views_for && !StatementListsCatalog(ToLower(*options.views_for))) sql_lower = ToLower(*options.views_for);
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> databases, source_->ListDatabases());
  for (const std::string& database : databases) {
    Status created = connection_.Execute("CREATE SCHEMA IF NOT EXISTS " + QuoteSqlIdentifier(database));
    if (!created.ok()) {
      skipped_.push_back(SkippedTable{database, "", WithoutStatementContext(created)});
      continue;
    }
    Result<std::vector<std::string>> tables = source_->ListTables(database);
    if (!tables.ok()) {
      skipped_.push_back(SkippedTable{database, "", tables.status()});
      continue;
    }
    for (const std::string& table : *tables) {
      if (sql_lower && !StatementMayNameTable(*sql_lower, table)) continue;
      Status st = CreateTableViews(database, table, sql_lower ? &*sql_lower : nullptr);
      if (!st.ok()) skipped_.push_back(SkippedTable{database, table, WithoutStatementContext(st)});
    }
  }
  // Paimon's `sys` database; a warehouse database of that name keeps it (as in Java, where `sys` is
  // reserved, such a warehouse is unusual).
  Status sys = CreateWarehouseSystemViews(connection_);
  if (!sys.ok()) skipped_.push_back(SkippedTable{kSystemDatabase, "", WithoutStatementContext(sys)});
  return Status::OK();
}

Status LakeConnection::CreateTableViews(const std::string& database, const std::string& table,
                                        const std::string* sql_lower) {
  auto wanted = [sql_lower](const std::string& name) {
    return sql_lower == nullptr || sql_lower->find("$" + name) != std::string::npos;
  };
  // Checked here first so that the reason is Tide's own message (CREATE VIEW would wrap it in a binder
  // error); CREATE VIEW then binds paimon_scan, which reads the schema again.
  TableIdentifier id{database, table};
  TIDE_ASSIGN_OR_RETURN(TableSchema table_schema, source_->ReadSchema(id, SnapshotSelector{}));
  for (const DataField& field : table_schema.fields) {
    TIDE_RETURN_IF_ERROR(DuckTypeFor(field.type, field.name).status());
  }
  std::string name = QuoteSqlString(FormatSqlTableName(id));
  std::string schema = QuoteSqlIdentifier(database) + ".";
  TIDE_RETURN_IF_ERROR(connection_.Execute(fmt::format("CREATE VIEW {}{} AS SELECT * FROM {}({})", schema,
                                                       QuoteSqlIdentifier(table), kPaimonScanFunction, name)));
  if (wanted("audit_log")) TIDE_RETURN_IF_ERROR(CreateAuditLogView(connection_, id));
  TIDE_RETURN_IF_ERROR(CreateTableSystemViews(connection_, id, wanted));
  pushdown_->AddView(database, table, id, LakeViewKind::kTable);
  if (wanted("audit_log")) pushdown_->AddView(database, table + "$audit_log", id, LakeViewKind::kOther);
  for (const std::string& n : TableSystemTableNames()) {
    if (!wanted(n)) continue;
    pushdown_->AddView(database, table + "$" + n, id, n == "ro" ? LakeViewKind::kReadOptimized : LakeViewKind::kOther);
  }
  return Status::OK();
}

std::string LakeConnection::ListTablesSql() {
  // A table's system views are `<table>$<name>` beside a view `<table>` of the same schema; anything
  // else (the lake's tables, tables and views made in the session) is listed.
  std::vector<std::string> names;
  for (const std::string& n : TableSystemTableNames()) names.push_back(QuoteSqlString(n));
  names.push_back(QuoteSqlString("audit_log"));  // audit_log_table.h
  return fmt::format(
      "SELECT t.table_schema AS database, t.table_name AS name FROM information_schema.tables t "
      "WHERE t.table_catalog = current_database() AND t.table_schema <> {0} "
      "AND t.table_name NOT IN (SELECT b.table_name || '$' || s.n FROM information_schema.tables b, "
      "unnest([{1}]) s(n) WHERE b.table_catalog = t.table_catalog AND b.table_schema = t.table_schema) "
      "ORDER BY ALL",
      QuoteSqlString(kSystemDatabase), Join(names, ", "));
}

namespace {

// `SHOW TABLES` alone (any case and spacing, an optional `;`).
bool IsShowTables(std::string_view statement) {
  std::vector<std::string> words;
  std::string word;
  for (char c : statement) {
    if (c == ';' || std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(ToLower(word));
      word.clear();
      if (c == ';') {
        words.push_back(";");
      }
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(ToLower(word));
  if (!words.empty() && words.back() == ";") words.pop_back();
  return words.size() == 2 && words[0] == "show" && words[1] == "tables";
}

}  // namespace

Result<DuckResult> LakeConnection::Query(const std::string& statement) {
  if (IsShowTables(statement)) return connection_.Query(ListTablesSql());
  ScopedStatementFilters filters(pushdown_->Analyze(connection_, statement));
  return connection_.Query(statement);
}

}  // namespace tide
