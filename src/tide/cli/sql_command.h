// `tide sql`: SQL over a warehouse's Paimon tables through embedded DuckDB (sql/lake_connection.h).
//
//   tide sql --warehouse DIR [--format table|csv|json] ["SQL"]
//
// With SQL, runs its statements in order and prints the result of each one that returns rows; the first
// failing statement stops the run with its error on stderr and exit code 1. Without SQL, reads
// statements from stdin (a shell with the prompt `tide> ` when stdin is a terminal): a statement runs
// when its ';' arrives, an error is printed and the shell goes on, `.quit` or `.exit` ends it, `.mode
// FORMAT` switches the output format and `.tables` lists the views. Piped input that had an error exits
// with 1. A table that has no view (an unsupported type, say) is named with its reason when a failing
// statement mentions it, and listed when the shell starts. Output formats: sql/result_format.h.
// Thread-safety: runs on the main thread.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace tide::cli {

struct SqlCommandOptions {
  std::string warehouse;
  std::string format = "table";
  std::string sql;  // empty: read statements from `in`
  bool interactive = false;  // prompt and keep the exit code at 0 after errors (stdin is a terminal)
};

// Runs the command; returns the exit code.
int RunSqlCommand(const SqlCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

// Adds the `sql` subcommand to `app`.
void RegisterSql(CLI::App& app);

}  // namespace tide::cli
