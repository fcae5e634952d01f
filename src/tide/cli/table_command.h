// `tide table`: create, describe, list, alter and drop the Paimon tables of a warehouse
// (catalog/catalog.h, table/schema_change.h).
//
//   tide table create   --warehouse DIR DB.T --columns 'id BIGINT NOT NULL, v STRING, ...'
//                       [--primary-keys a,b] [--partition-keys p] [--option KEY=VALUE]...
//   tide table describe --warehouse DIR DB.T
//   tide table list     --warehouse DIR [DB]
//   tide table drop     --warehouse DIR DB.T
//   tide table alter    --warehouse DIR DB.T  --add-column 'c INT' [--first | --after x]
//                       | --rename-column a=b | --drop-column c | --alter-column-type 'c BIGINT'
//                       | --move-column c (--first | --after x) | --set-option k=v | --reset-option k
//
// Each command prints what it did on stdout; an error goes to stderr as "Error: ..." with exit code 1.
// Every ALTER in one command becomes one new schema file. docs/cli.md shows examples with output.
// Thread-safety: runs on the main thread.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tide/base/result.h"
#include "tide/table/schema/schema_change.h"

namespace tide::cli {

// Splits a column list `name TYPE, name TYPE, ...` at the commas outside parentheses, angle brackets
// and quotes (so `DECIMAL(10, 2)` and `MAP<STRING, INT>` stay whole) and parses each column: a name
// (optionally in backquotes or double quotes), a type (types/data_type.h syntax) and an optional
// `COMMENT 'text'`.
Result<std::vector<ColumnDefinition>> ParseColumnList(std::string_view text);
// Parses one `name TYPE [COMMENT 'text']`.
Result<ColumnDefinition> ParseColumnDefinition(std::string_view text);

struct TableCreateOptions {
  std::string warehouse;
  std::string table;
  std::string columns;
  std::string primary_keys;
  std::string partition_keys;
  std::vector<std::string> options;  // KEY=VALUE
};
int RunTableCreate(const TableCreateOptions& options, std::ostream& out, std::ostream& err);

struct TableDescribeOptions {
  std::string warehouse;
  std::string table;
};
int RunTableDescribe(const TableDescribeOptions& options, std::ostream& out, std::ostream& err);

struct TableListOptions {
  std::string warehouse;
  std::string database;  // empty: every database
};
int RunTableList(const TableListOptions& options, std::ostream& out, std::ostream& err);

struct TableDropOptions {
  std::string warehouse;
  std::string table;
};
int RunTableDrop(const TableDropOptions& options, std::ostream& out, std::ostream& err);

struct TableAlterOptions {
  std::string warehouse;
  std::string table;
  std::string add_column;        // 'name TYPE'
  std::string move_column;       // name
  bool first = false;            // position for add/move
  std::string after;             // position for add/move
  std::string rename_column;     // old=new
  std::string drop_column;
  std::string alter_column_type;  // 'name TYPE'
  std::vector<std::string> set_options;    // k=v
  std::vector<std::string> reset_options;  // k
};
int RunTableAlter(const TableAlterOptions& options, std::ostream& out, std::ostream& err);

// Adds the `table` subcommand (with create, describe, list, drop, alter) to `app`.
void RegisterTable(CLI::App& app);

}  // namespace tide::cli
