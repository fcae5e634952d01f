// SqlSession: runs what a `tide sql` user types, statements and the shell's dot commands, on a
// LakeConnection, and prints the results in the session's output format (sql/result_format.h).
//
//   .tables             the lake's tables, as SHOW TABLES lists them
//   .schema DB.T        a table's columns: SQL type, Paimon type, and which are primary, partition and
//                       bucket keys (a table made in the session: `.schema T`, its columns only)
//   .snapshots DB.T     a table's snapshots, oldest first (a digest of DB."T$snapshots")
//   .mode table|csv|json, .timer on|off, .help, .quit / .exit
//
// A statement's error goes to `err` as `Error: <message>` (with why a table it names has no view, if
// one does not), and the session goes on. With a watcher, Ctrl-C stops the running statement.
// Thread-safety: a session belongs to one thread.
#pragma once

#include <ostream>
#include <string>

#include "tide/cli/interrupt_watcher.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_format.h"
#include "tide/sql/result_text.h"

namespace tide::cli {

class SqlSession {
 public:
  // `lake` and `renderer` (of lake's connection) must outlive the session; `watcher` may be null.
  SqlSession(LakeConnection* lake, ResultRenderer* renderer, OutputFormat format, std::ostream& out,
             std::ostream& err, InterruptWatcher* watcher = nullptr)
      : lake_(lake), renderer_(renderer), format_(format), out_(out), err_(err), watcher_(watcher) {}

  // Runs one statement and prints its rows (and its time with `.timer on`); prints the error and
  // returns false if it fails.
  bool Run(const std::string& statement);

  enum class DotResult { kOk, kFailed, kQuit };
  // Runs a shell command (a line starting with '.').
  DotResult DotCommand(const std::string& line);

 private:
  // Runs `sql` (a statement of the session's own) and prints its rows like a user's.
  bool RunInternal(const std::string& sql);
  // Runs `sql` and returns its rows as text, for the dot commands that look things up first.
  Result<TextResult> Lookup(const std::string& sql);
  // The DuckDB schema and view of the table `name` (DB.T, or T for the session's own tables) as the
  // catalog spells them; NotFound saying how to list the tables.
  struct FoundTable {
    std::string schema;
    std::string table;
    bool lake = false;  // a Paimon table: its system tables exist beside it
  };
  Result<FoundTable> FindTable(const std::string& name);
  bool Schema(const std::string& name);
  bool Snapshots(const std::string& name);
  bool Fail(const Status& status);

  LakeConnection* lake_;
  ResultRenderer* renderer_;
  OutputFormat format_;
  std::ostream& out_;
  std::ostream& err_;
  InterruptWatcher* watcher_;
  bool timer_ = false;
};

}  // namespace tide::cli
