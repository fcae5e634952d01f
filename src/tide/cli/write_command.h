// `tide write`: loads a CSV or Parquet file into a Paimon table as one commit.
//
//   tide write --warehouse DIR --table DB.T --input FILE [--row-kind-column NAME]
//
// The file is read through DuckDB (read_parquet for `.parquet` files, read_csv_auto otherwise). Its
// columns are matched to the table's by name (case-insensitively); a table column the file lacks is
// NULL (refused for NOT NULL columns) and a file column the table lacks is an error. DuckDB casts each
// value to the column's type (a value that does not convert fails the load, naming it). The optional
// row-kind column holds +I, -U, +U or -D per row (default +I for every row). All rows go through
// TableWrite and become one snapshot through FileStoreCommit; on any error nothing is committed and
// the files written so far are deleted. Thread-safety: runs on the main thread.
#pragma once

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace tide::cli {

struct WriteCommandOptions {
  std::string warehouse;
  std::string table;
  std::string input;
  std::string row_kind_column;  // empty: every row is +I
};

// Runs the command; returns the exit code.
int RunWriteCommand(const WriteCommandOptions& options, std::ostream& out, std::ostream& err);

// Adds the `write` subcommand to `app`.
void RegisterWrite(CLI::App& app);

}  // namespace tide::cli
