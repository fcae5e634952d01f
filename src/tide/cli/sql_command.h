// `tide sql`: SQL over a warehouse's Paimon tables through embedded DuckDB (sql/lake_connection.h).
//
//   tide sql --warehouse DIR [--format table|csv|json] ["SQL"]
//
// With SQL, runs its statements in order and prints the result of each one that returns rows; the first
// failing statement stops the run with its error on stderr and exit code 1. Without SQL, reads
// statements from stdin: as a script when stdin is not a terminal, in the interactive shell (line
// editing, history, Ctrl-C stopping a statement) when it is (sql_shell.h; the statements and dot
// commands: sql_session.h). A table that has no view (an unsupported type, say) is named with its
// reason when a failing statement mentions it, and listed when the shell starts. Output formats:
// sql/result_format.h. Thread-safety: runs on the main thread.
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
  bool interactive = false;  // the shell on the terminal (stdin, stdout) instead of reading `in`
  // With `sql`: once its statements ran and the output is flushed, end the process at once (std::_Exit)
  // instead of tearing the in-memory database down, which holds nothing to keep. The command line sets it.
  bool exit_when_done = false;
};

// Runs the command; returns the exit code.
int RunSqlCommand(const SqlCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

// Adds the `sql` subcommand to `app`.
void RegisterSql(CLI::App& app);

}  // namespace tide::cli
