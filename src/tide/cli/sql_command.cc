#include "tide/cli/sql_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "tide/cli/interrupt_watcher.h"
#include "tide/cli/line_editor.h"
#include "tide/cli/sql_session.h"
#include "tide/cli/sql_shell.h"
#include "tide/io/file_system.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_format.h"
#include "tide/sql/result_text.h"
#include "tide/sql/sql_statement_splitter.h"

namespace tide::cli {

namespace {

int Error(const Status& status, std::ostream& err) {
  err << "Error: " << status.message() << std::endl;
  return 1;
}

}  // namespace

int RunSqlCommand(const SqlCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  Result<OutputFormat> format = ParseOutputFormat(options.format);
  if (!format.ok()) return Error(format.status(), err);
  // The shell takes Ctrl-C before DuckDB starts its threads, so that none of them gets the signal.
  std::unique_ptr<InterruptWatcher> watcher;
  if (options.interactive) {
    Result<std::unique_ptr<InterruptWatcher>> started = InterruptWatcher::Start();
    if (!started.ok()) return Error(started.status(), err);
    watcher = std::move(*started);
  }
  // Statements given on the command line are known up front: only the tables they can name get views.
  LakeOpenOptions open_options;
  if (!options.sql.empty()) open_options.views_for = options.sql;
  Result<std::unique_ptr<LakeConnection>> lake =
      LakeConnection::OpenWarehouse(FileSystem::Local(), options.warehouse, std::move(open_options));
  if (!lake.ok()) return Error(lake.status(), err);
  Result<std::unique_ptr<ResultRenderer>> renderer = ResultRenderer::Create(&(*lake)->connection());
  if (!renderer.ok()) return Error(renderer.status(), err);
  SqlSession session(lake->get(), renderer->get(), *format, out, err, watcher.get());
  if (!options.sql.empty()) {
    int code = 0;
    for (const std::string& statement : SqlStatementSplitter::SplitAll(options.sql)) {
      if (!session.Run(statement)) {
        code = 1;
        break;
      }
    }
    if (options.exit_when_done) {
      // Closing DuckDB (its catalog, its threads) is a few milliseconds of every run and keeps nothing.
      out.flush();
      err.flush();
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  }
  if (!options.interactive) return RunSqlScript(session, in);

  std::string warning;
  Result<std::unique_ptr<LineEditor>> editor =
      LineEditor::Open(watcher->prompt_wake_fd(), HistoryPathFromEnvironment(), &warning);
  if (!editor.ok()) return Error(editor.status(), err);
  if (!warning.empty()) err << "Warning: " << warning << std::endl;
  // A shell says up front which tables it cannot show; a script hears it only when it names one.
  for (const SkippedTable& skipped : (*lake)->skipped()) err << "Warning: no view for " << skipped.ToString() << std::endl;
  out << "SQL over " << options.warehouse << ". Statements end with ';'; .help for help, Ctrl-D to leave."
      << std::endl;
  return RunSqlShell(session, **editor, *watcher, out, err);
}

void RegisterSql(CLI::App& app) {
  auto options = std::make_shared<SqlCommandOptions>();
  CLI::App* command = app.add_subcommand("sql", "Query the lake's tables with SQL (DuckDB)");
  command->add_option("--warehouse", options->warehouse, "Warehouse folder (holds <database>.db/<table>/)")
      ->required();
  command->add_option("--format", options->format, "Output format: table, csv or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}, CLI::ignore_case));
  command->add_option("sql", options->sql,
                      "Statements to run (separated by ';'); without them, an interactive shell on a terminal, "
                      "else the statements of stdin");
  command->callback([options]() {
    options->interactive = options->sql.empty() && ::isatty(STDIN_FILENO) == 1;
    options->exit_when_done = true;
    int code = RunSqlCommand(*options, std::cin, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
