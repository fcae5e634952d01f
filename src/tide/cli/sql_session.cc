#include "tide/cli/sql_session.h"

#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "tide/base/strings.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/sql_table_name.h"

namespace tide::cli {

namespace {

constexpr const char* kHelp =
    ".tables             list the lake's tables (as SHOW TABLES does)\n"
    ".schema DB.T        a table's columns, their SQL and Paimon types and which are keys\n"
    ".snapshots DB.T     a table's snapshots, oldest first (all columns: DB.\"T$snapshots\")\n"
    ".mode FORMAT        print results as table, csv or json\n"
    ".timer on|off       print how long each statement took\n"
    ".help               this text\n"
    ".quit, .exit        leave the shell (or Ctrl-D)\n"
    "Statements end with ';' and may span lines. Ctrl-C stops a running statement, or drops the\n"
    "statement being typed. Tables are <database>.<table>; each also has system tables\n"
    "(<database>.\"<table>$snapshots\", $files, $options, ...) and time travel is\n"
    "paimon_scan('<database>.<table>', snapshot_id => N). See docs/sql.md.\n";

}  // namespace

bool SqlSession::Run(const std::string& statement) {
  auto start = std::chrono::steady_clock::now();
  bool ok = RunInternal(statement);
  if (timer_) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out_ << fmt::format("Run Time: {:.3f} s", seconds) << std::endl;
  }
  return ok;
}

bool SqlSession::RunInternal(const std::string& sql) {
  InterruptWatcher::QueryScope scope(watcher_, lake_->connection().raw());
  auto interrupted_or = [&](const Status& status) {
    if (!scope.interrupted()) return Fail(status);
    err_ << '\n';  // the terminal echoed ^C where the cursor was
    return Fail(Status::Aborted("interrupted (Ctrl-C)"));
  };
  Result<DuckResult> result = lake_->Query(sql);
  if (!result.ok()) return interrupted_or(result.status());
  if (duckdb_result_return_type(*result->raw()) != DUCKDB_RESULT_TYPE_QUERY_RESULT) return true;
  if (format_ == OutputFormat::kTable) {  // column widths need every row
    Result<TextResult> text = renderer_->Render(*result, CellStyleFor(format_));
    if (!text.ok()) return interrupted_or(text.status());
    WriteTable(*text, out_);
  } else {
    bool first = true;
    Status st = renderer_->RenderBatches(*result, CellStyleFor(format_), [&](const TextResult& batch) {
      if (format_ == OutputFormat::kCsv) {
        WriteCsv(batch, out_, /*header=*/first);
      } else {
        WriteJsonLines(batch, out_);
      }
      first = false;
      return out_ ? Status::OK() : Status::IOError("cannot write the result to standard output");
    });
    if (!st.ok()) return interrupted_or(st);
  }
  out_.flush();
  return true;
}

Result<TextResult> SqlSession::Lookup(const std::string& sql) {
  InterruptWatcher::QueryScope scope(watcher_, lake_->connection().raw());
  TIDE_ASSIGN_OR_RETURN(DuckResult result, lake_->connection().Query(sql));
  return renderer_->Render(result, CellStyle::kText);
}

Result<SqlSession::FoundTable> SqlSession::FindTable(const std::string& name) {
  std::string schema = "main", table;
  Result<TableIdentifier> id = ParseSqlTableName(name);
  if (id.ok()) {
    schema = id->database;
    table = id->table;
  } else if (!name.empty() && name.find_first_of(".\"") == std::string::npos) {
    table = name;  // a table or view made in the session
  } else {
    return id.status();
  }
  // DuckDB matches names without regard to case; ask the catalog for its own spelling.
  TIDE_ASSIGN_OR_RETURN(
      TextResult found,
      Lookup(fmt::format("SELECT t.table_schema, t.table_name, EXISTS (SELECT 1 FROM information_schema.tables s "
                         "WHERE s.table_catalog = t.table_catalog AND s.table_schema = t.table_schema "
                         "AND s.table_name = t.table_name || '$snapshots') "
                         "FROM information_schema.tables t WHERE t.table_catalog = current_database() "
                         "AND lower(t.table_schema) = lower({}) AND lower(t.table_name) = lower({}) ORDER BY ALL LIMIT 1",
                         QuoteSqlString(schema), QuoteSqlString(table))));
  if (found.rows.empty() || !found.rows[0][0] || !found.rows[0][1]) {
    return Status::NotFound("no table {}: .tables lists the tables, named <database>.<table>", name);
  }
  return FoundTable{*found.rows[0][0], *found.rows[0][1], found.rows[0][2].value_or("") == "true"};
}

bool SqlSession::Schema(const std::string& name) {
  Result<FoundTable> found = FindTable(name);
  if (!found.ok()) return Fail(found.status());
  std::string where = fmt::format("c.database_name = current_database() AND c.schema_name = {} AND c.table_name = {}",
                                  QuoteSqlString(found->schema), QuoteSqlString(found->table));
  if (!found->lake) {
    return RunInternal(fmt::format("SELECT c.column_name AS \"column\", c.data_type AS \"type\" FROM duckdb_columns() c "
                                   "WHERE {} ORDER BY c.column_index",
                                   where));
  }
  // The view has the columns of the table's latest schema; that schema (the last row of `$schemas`)
  // says, in Paimon's JSON, each column's Paimon type and the key columns.
  return RunInternal(fmt::format(
      "WITH s AS (SELECT fields, partition_keys, primary_keys, options FROM {0}.{1} ORDER BY schema_id DESC LIMIT 1), "
      "f AS (SELECT unnest(json_extract(s.fields, '$[*]')) AS field FROM s) "
      "SELECT c.column_name AS \"column\", c.data_type AS \"type\", "
      "(SELECT f.field->>'type' FROM f WHERE f.field->>'name' = c.column_name) AS paimon_type, "
      "concat_ws(', ', "
      "CASE WHEN list_contains(from_json(s.primary_keys, '[\"VARCHAR\"]'), c.column_name) THEN 'primary key' END, "
      "CASE WHEN list_contains(from_json(s.partition_keys, '[\"VARCHAR\"]'), c.column_name) THEN 'partition key' END, "
      "CASE WHEN list_contains(string_split(json_extract_string(s.options, '$.\"bucket-key\"'), ','), c.column_name) "
      "THEN 'bucket key' END) AS \"key\" "
      "FROM duckdb_columns() c, s WHERE {2} ORDER BY c.column_index",
      QuoteSqlIdentifier(found->schema), QuoteSqlIdentifier(found->table + "$schemas"), where));
}

bool SqlSession::Snapshots(const std::string& name) {
  Result<FoundTable> found = FindTable(name);
  if (!found.ok()) return Fail(found.status());
  if (!found->lake) return Fail(Status::InvalidArgument("{} is not a lake table: it has no snapshots", name));
  return RunInternal(fmt::format(
      "SELECT snapshot_id, schema_id, commit_kind, commit_time, total_record_count, delta_record_count, "
      "changelog_record_count FROM {}.{} ORDER BY snapshot_id",
      QuoteSqlIdentifier(found->schema), QuoteSqlIdentifier(found->table + "$snapshots")));
}

SqlSession::DotResult SqlSession::DotCommand(const std::string& line) {
  std::string text(Trim(line));
  size_t space = text.find_first_of(" \t");
  std::string command = text.substr(0, space);
  std::string argument = space == std::string::npos ? "" : std::string(Trim(std::string_view(text).substr(space)));
  auto done = [](bool ok) { return ok ? DotResult::kOk : DotResult::kFailed; };
  if (command == ".quit" || command == ".exit") return DotResult::kQuit;
  if (command == ".help") {
    out_ << kHelp << std::flush;
    return DotResult::kOk;
  }
  if (command == ".tables" && argument.empty()) return done(RunInternal(LakeConnection::ListTablesSql()));
  if (command == ".schema" && !argument.empty()) return done(Schema(argument));
  if (command == ".snapshots" && !argument.empty()) return done(Snapshots(argument));
  if (command == ".mode" && !argument.empty()) {
    Result<OutputFormat> format = ParseOutputFormat(argument);
    if (!format.ok()) return done(Fail(format.status()));
    format_ = *format;
    return DotResult::kOk;
  }
  if (command == ".timer" && (argument == "on" || argument == "off")) {
    timer_ = argument == "on";
    return DotResult::kOk;
  }
  std::string usage;
  if (command == ".schema" || command == ".snapshots") usage = command + " <database>.<table>";
  if (command == ".mode") usage = ".mode table|csv|json";
  if (command == ".timer") usage = ".timer on|off";
  if (command == ".tables") usage = ".tables";
  if (!usage.empty()) return done(Fail(Status::InvalidArgument("usage: {}", usage)));
  return done(Fail(Status::InvalidArgument("unknown command {}: try .help", command)));
}

bool SqlSession::Fail(const Status& status) {
  err_ << "Error: " << status.message() << std::endl;
  for (const SkippedTable& skipped : lake_->skipped()) {
    if (!skipped.table.empty() && status.message().find(skipped.table) != std::string::npos) {
      err_ << "Note: " << skipped.ToString() << std::endl;
    }
  }
  return false;
}

}  // namespace tide::cli
