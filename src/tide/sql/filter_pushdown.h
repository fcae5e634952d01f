// FilterPushdown: finds, in a SQL statement, the conditions a lake table's scan may use to skip
// partitions, buckets and files, with DuckDB's own parser (`json_serialize_sql`), since DuckDB's C API
// passes table functions no filters (DESIGN.md §5).
//
// What is pushed: the top-level AND-ed conditions of a SELECT's WHERE of the forms `column op constant`
// (=, <, <=, >, >=, either side), `column IN (constants)`, `column BETWEEN constant AND constant`,
// `column IS [NOT] NULL`, where the column is a column of a lake table that the SELECT reads directly in
// its FROM (alone, or on a side of a join whose rows the WHERE filters: both sides of an inner or cross
// join, the left of a LEFT, SEMI or ANTI join, the right of a RIGHT join) and that the statement
// references exactly once (as `db.t`, `db."t$ro"` or `paimon_scan('db.t', snapshot_id | timestamp_ms |
// tag | read_optimized => ...)`). An unqualified column is attributed only when the FROM is that table
// alone; in a join the column must be qualified (`o.id`, `orders.id`, `shop.orders.id`).
//
// Constants are converted to the column's type by DuckDB itself (TRY_CAST in the same session, so time
// zones and literal rules are DuckDB's), and kept only when the conversion is exact (`1.5` on an INTEGER
// column, a timestamp finer than the column's precision: not pushed). Types: integers, decimals, strings
// (only with the session's default collation binary), DATE, TIMESTAMP(p <= 6), TIMESTAMP WITH LOCAL TIME
// ZONE; string constants on numeric and temporal columns as DuckDB casts them; typed literals of the
// column's own kind. Everything else (OR, NOT, functions or casts on columns, subqueries, parameters,
// floating point, collations, samples, outer joins' nullable sides, a table read twice) is left to
// DuckDB alone. DuckDB still applies the whole WHERE to what the scan returns, so a pushed condition
// only ever removes rows that condition rejects.
//
// Views created in the session that replace a lake view are noticed (after every statement that is not
// a SELECT the lake views are compared with their definitions) and lose pushdown.
//
// Thread-safety: one thread at a time (LakeConnection's).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/statement_filters.h"
#include "tide/sql/table_source.h"

namespace tide {

// What a view of the lake shows.
enum class LakeViewKind { kTable, kReadOptimized, kOther };

class FilterPushdown {
 public:
  explicit FilterPushdown(std::shared_ptr<const TableSource> source) : source_(std::move(source)) {}

  // Records the lake's view `schema`.`view`: it shows table `id` (kTable), its `$ro` (kReadOptimized)
  // or another of its views (kOther: a reference to it disables pushdown for the table).
  void AddView(const std::string& schema, const std::string& view, const TableIdentifier& id, LakeViewKind kind);
  // Reads the views' definitions as DuckDB keeps them, to notice later replacements. Call once all
  // views exist.
  Status SnapshotViewDefinitions(DuckConnection& connection);

  // The filters `statement` lets scans use; null when there are none. Runs its own small queries on
  // `connection` (the parse, the constants' conversion, and after a statement that was not a SELECT the
  // views' check). Never fails the statement: trouble here only means no pushdown.
  std::shared_ptr<const StatementFilters> Analyze(DuckConnection& connection, const std::string& statement);

  // Off: Analyze returns null (for comparisons of pruned and unpruned results).
  void set_enabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

 private:
  struct View {
    TableIdentifier id;
    LakeViewKind kind = LakeViewKind::kOther;
    std::string definition;  // as duckdb_views() shows it when the lake created it
  };
  Result<std::shared_ptr<const StatementFilters>> AnalyzeOrFail(DuckConnection& connection,
                                                                const std::string& statement);
  Status CheckViews(DuckConnection& connection);

  std::shared_ptr<const TableSource> source_;
  std::map<std::string, View> views_;  // by lower-case "schema\x1fview"
  bool views_checked_ = true;
  bool enabled_ = true;
};

}  // namespace tide
