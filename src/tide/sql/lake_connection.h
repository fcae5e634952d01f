// LakeConnection: an in-memory DuckDB database that shows a warehouse's Paimon tables as SQL.
//
// Opening registers paimon_scan (paimon_scan.h) and the system table functions (system_tables.h), then
// creates, for each database of the warehouse, a DuckDB schema of the same name, and in it, for each
// table, the views
//   <database>.<table>            AS SELECT * FROM paimon_scan('<database>.<table>')
//   <database>."<table>$snapshots" AS SELECT * FROM paimon_snapshots('<database>.<table>')
//   ... one per system table (`$schemas`, `$files`, `$ro`, ...: system_tables.h)
//   <database>."<table>$audit_log" AS SELECT * FROM paimon_scan('<database>.<table>', audit_log => true)
// and the schema `sys` with the warehouse-wide system tables; with every name quoted, so dots, quotes
// and upper case survive. A view's columns are those of the
// table's latest schema when the connection opened; paimon_scan reads any snapshot with its own schema.
// A table that cannot be shown (unreadable schema, a type DuckDB has no equivalent for, a name that
// clashes in DuckDB's case-insensitive catalog) is skipped and reported in skipped(), never fatal;
// paimon_scan still reports the same reason when asked for it.
//
// Opened for known statements (LakeOpenOptions::views_for: `tide sql "SQL"`), only the tables those
// statements can name get views: those whose name appears in the text (any case, also quoted), or every
// table when the text lists the catalog (SHOW, DESCRIBE, SUMMARIZE, PRAGMA, EXPORT, information_schema,
// duckdb_* functions, query/query_table, which may name a table built at run time); and of a named
// table's system-table views only those whose `$<name>` appears. A table's views cost a read of its
// schema and about fifteen view definitions DuckDB binds, so a run pays only for what it can use.
//
// Thread-safety: one thread uses a LakeConnection at a time. The database may serve other connections
// opened from database() on other threads.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/io/file_system.h"
#include "tide/sql/filter_pushdown.h"
#include "tide/sql/table_source.h"

namespace tide {

// A database or table that has no view, and why.
struct SkippedTable {
  std::string database;
  std::string table;  // empty when the whole database is skipped
  Status reason;
  std::string ToString() const;  // "table db.t: <reason>"
};

struct LakeOpenOptions {
  // The statements the connection will run, when known: only the tables they can name get views (see
  // the header comment). Unset: every table.
  std::optional<std::string> views_for;
};

// Whether `sql_lower` (a statement's text in lower case) lists the catalog or may name tables at run
// time: every view is needed.
bool StatementListsCatalog(std::string_view sql_lower);
// Whether `sql` may name the lake table `table` (its name appears in the text, any case, also with its
// quotes doubled), or every table (it lists the catalog). `sql_lower` is the text in lower case.
bool StatementMayNameTable(std::string_view sql_lower, const std::string& table);

class LakeConnection {
 public:
  // Opens over the warehouse folder `warehouse` on `fs` (which must outlive the connection).
  static Result<std::unique_ptr<LakeConnection>> OpenWarehouse(FileSystem* fs, std::string warehouse,
                                                               LakeOpenOptions options = {});
  // Opens over any table source (the catalog, or a test's).
  static Result<std::unique_ptr<LakeConnection>> Open(std::shared_ptr<const TableSource> source,
                                                      LakeOpenOptions options = {});

  LakeConnection(const LakeConnection&) = delete;
  LakeConnection& operator=(const LakeConnection&) = delete;

  const DuckDB& database() const { return database_; }
  DuckConnection& connection() { return connection_; }
  // Runs one statement on connection(), except `SHOW TABLES`, which lists the tables of every database
  // (ListTablesSql) instead of DuckDB's default schema only, where the lake has none. The statement's
  // conditions on lake tables prune what their scans read (filter_pushdown.h); statements run on
  // connection() directly are not pruned.
  Result<DuckResult> Query(const std::string& statement);
  // A query of (database, name) for every table and view but the system tables' views, sorted.
  static std::string ListTablesSql();
  // The databases and tables that have no view, in the order met.
  const std::vector<SkippedTable>& skipped() const { return skipped_; }
  // Filter pushdown for Query (on by default).
  FilterPushdown& pushdown() { return *pushdown_; }

 private:
  LakeConnection() = default;
  Status CreateViews(const LakeOpenOptions& options);
  // `sql_lower`: the statements to come (lower case), when known: only the system views they name.
  Status CreateTableViews(const std::string& database, const std::string& table, const std::string* sql_lower);

  std::shared_ptr<const TableSource> source_;
  DuckDB database_;
  DuckConnection connection_;
  std::vector<SkippedTable> skipped_;
  std::unique_ptr<FilterPushdown> pushdown_;
};

}  // namespace tide
