// TableSelection: which PostgreSQL tables a sync selects and what each is called in the lake, from the
// flags `--tables`, `--excluding-tables`, `--table-prefix`, `--table-suffix` and `--into`, as Paimon's
// database sync (mysql_sync_database: including/excluding tables, table prefix and suffix) and table
// sync (postgres_sync_table: many source tables into one) do.
//
// `--tables` and `--excluding-tables` are comma-separated lists. Each item is
//   - a table name, `orders`, `shop.orders`, `"Mixed Case".t` (only letters, digits and `_`, at most
//     one dot, or double-quoted parts; `$` makes an item a pattern, so quote a name holding one): that
//     table, unquoted parts folded to lower case as PostgreSQL does; without a schema, `public`;
//   - otherwise a regular expression that must match the whole name, like Java's Pattern.matches. One
//     with a dot that separates (`\.`, or `.` not followed by `*`, `+`, `?` or `{`) is matched against
//     `schema.table` (`public\..*`, `public.orders_\d+`, `.*\..*`); one without names no schema and is
//     matched against the table names of `public` (`orders_\d+`, `.*`, `orders|users`). So `public.*`
//     selects the tables of public whose name starts with "public"; all of public is `public\..*`.
//   Commas inside (), [] and {} or after a backslash do not split (`t_\d{1,3}` is one item).
// A table is selected when an item of --tables matches it and none of --excluding-tables does. Its lake
// name is `<prefix><table><suffix>` in lower case (as Paimon's catalog names are), or the table of
// `--into [DB.]T` for every table. The schema is not part of the lake name: two selected tables of one
// name in two schemas need `--into` (one lake table) or an exclusion.
//
// Regular expressions are ECMAScript (std::regex), which agrees with Java's for these patterns (classes,
// alternation, groups, quantifiers, `\d`, `\w`, lookahead). Where it differs: Java's possessive
// quantifiers (`a*+`), atomic groups `(?>...)`, lookbehind, inline flags `(?i)`, named groups, `\p{...}`
// classes, `\Q...\E` quoting and the escapes \A \z \Z \G \h \H \R \X are refused with an error naming
// the item (std::regex would reject some and silently misread the others); POSIX classes `[[:alpha:]]`
// work here and not in Java.
//
// Also ScopedValue, the `[TABLE:]VALUE` form of per-table flags (`--computed-column`, `--partition-keys`,
// `--primary-keys`).
//
// Invariant: a TableSelection has at least one item in --tables, every pattern compiled. Thread-safety:
// immutable after Parse; all methods are const and safe to call from many threads.
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/publication.h"

namespace tide {

// One item of --tables or --excluding-tables.
class TablePattern {
 public:
  // InvalidArgument naming the item for a malformed name or regular expression.
  static Result<TablePattern> Parse(std::string_view item);

  const std::string& text() const { return text_; }
  // True for a table name, false for a regular expression.
  bool is_name() const { return name_.has_value(); }
  // REQUIRES: is_name().
  const PgTableName& name() const { return *name_; }
  bool Matches(const PgTableName& table) const;

 private:
  TablePattern() = default;
  std::string text_;
  std::optional<PgTableName> name_;
  std::shared_ptr<const std::regex> regex_;
  bool whole_name_ = false;  // the regex is matched against `schema.table`, else the table name in public
};

// Splits a list flag (`--tables`, `--excluding-tables`) into its items and parses each. `flag` names the
// flag in errors. An empty list is an empty vector.
Result<std::vector<TablePattern>> ParseTablePatterns(std::string_view list, std::string_view flag);

class TableSelection {
 public:
  // `tables` must list at least one item. `into` is `T` or `DB.T` (empty: each table is its own lake
  // table); it cannot be combined with a prefix or suffix.
  static Result<TableSelection> Parse(std::string_view tables, std::string_view excluding, std::string_view prefix,
                                      std::string_view suffix, std::string_view into);

  // Matched by an item of --tables and by none of --excluding-tables.
  bool Selects(const PgTableName& table) const;
  // The lake table name of `table` (whether or not it is selected).
  std::string TargetName(const PgTableName& table) const;
  // The database of `--into DB.T`, if it named one (otherwise the sync's --database).
  const std::optional<std::string>& into_database() const { return into_database_; }
  bool has_into() const { return into_table_.has_value(); }

  // The selected tables among `candidates` (the server's tables), sorted and without duplicates.
  // NotFound naming each table name of --tables (not a pattern) that is not among the candidates;
  // InvalidArgument when nothing is selected, when two selected tables would get one lake name without
  // --into, or when a lake name is not one Paimon can hold (empty, or with '.', '/', '\' or '$').
  Result<std::vector<PgTableName>> Select(const std::vector<PgTableName>& candidates) const;

  const std::vector<TablePattern>& including() const { return including_; }
  const std::vector<TablePattern>& excluding() const { return excluding_; }

 private:
  TableSelection() = default;
  std::vector<TablePattern> including_;
  std::vector<TablePattern> excluding_;
  std::string prefix_;
  std::string suffix_;
  std::optional<std::string> into_database_;
  std::optional<std::string> into_table_;
};

// A value of a per-table flag: `TABLE:VALUE` applies only to that source table, a value without the
// prefix to every selected table (that has the columns it names: the flag's consumer checks that, e.g.
// ComputedColumn::Bind's NotFound). TABLE is `name` (that name in any schema) or `schema.name`, as in
// --tables without patterns. The prefix is a scope only when the text before the first ':' (outside
// double quotes) is such a name, so `t=date_format(ts, HH:mm)` is an unscoped value.
struct ScopedValue {
  std::optional<std::string> schema;  // the scope's schema, when it names one
  std::optional<std::string> table;   // the scope's table; nullopt: every table
  std::string value;

  // InvalidArgument when the value (after the scope) is empty.
  static Result<ScopedValue> Parse(std::string_view text);
  bool scoped() const { return table.has_value(); }
  bool AppliesTo(const PgTableName& source) const;
};

// The values of a repeatable flag (`--computed-column`) that apply to `source`, in flag order: the
// unscoped ones and those scoped to it.
std::vector<std::string> ValuesFor(const std::vector<ScopedValue>& values, const PgTableName& source);

// The value of a single-valued flag (`--partition-keys`, `--primary-keys`) for `source`: the one scoped
// to it, else the unscoped one, else nullopt (as Java's database sync prefers a table's own
// multiple_table_partition_keys entry to --partition_keys). InvalidArgument naming `flag` when two
// values apply at the same level.
Result<std::optional<std::string>> ValueFor(const std::vector<ScopedValue>& values, const PgTableName& source,
                                            std::string_view flag);

// InvalidArgument naming `flag` when a scope matches none of `selected` (a misspelt table would
// otherwise be silently ignored) or, written without a schema, tables of two schemas.
Status CheckScopes(const std::vector<ScopedValue>& values, const std::vector<PgTableName>& selected,
                   std::string_view flag);

}  // namespace tide
