#include "tide/cli/sql_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <optional>

#include "tide/base/strings.h"
#include "tide/io/file_system.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_format.h"
#include "tide/sql/result_text.h"
#include "tide/sql/sql_statement_splitter.h"

namespace tide::cli {

namespace {

class SqlSession {
 public:
  SqlSession(LakeConnection* lake, ResultRenderer* renderer, OutputFormat format, std::ostream& out,
             std::ostream& err)
      : lake_(lake), renderer_(renderer), format_(format), out_(out), err_(err) {}

  // Runs one statement and prints its rows; prints the error and returns false if it fails.
  bool Run(const std::string& statement) {
    Result<DuckResult> result = lake_->Query(statement);
    if (!result.ok()) return Fail(result.status());
    if (duckdb_result_return_type(*result->raw()) != DUCKDB_RESULT_TYPE_QUERY_RESULT) return true;
    if (format_ == OutputFormat::kTable) {  // column widths need every row
      Result<TextResult> text = renderer_->Render(*result, CellStyleFor(format_));
      if (!text.ok()) return Fail(text.status());
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
      if (!st.ok()) return Fail(st);
    }
    out_.flush();
    return true;
  }

  // A shell command (a line starting with '.'); returns false to end the shell.
  bool DotCommand(const std::string& line, bool* failed) {
    std::vector<std::string> words;
    for (const std::string& w : Split(Trim(line), ' ')) {
      if (!w.empty()) words.push_back(w);
    }
    const std::string& command = words[0];
    if (command == ".quit" || command == ".exit") return false;
    if (command == ".help") {
      out_ << ".exit, .quit       leave the shell\n"
              ".mode FORMAT       print results as table, csv or json\n"
              ".tables            list the lake's tables, as SHOW TABLES does (each also has\n"
              "                   system tables: <table>$snapshots, <table>$files, ...)\n"
              "Statements end with ';'. Tables are <database>.<table>; time travel with\n"
              "paimon_scan('<database>.<table>', snapshot_id => N).\n";
    } else if (command == ".mode" && words.size() == 2) {
      Result<OutputFormat> format = ParseOutputFormat(words[1]);
      if (!format.ok()) {
        *failed = !Fail(format.status());
      } else {
        format_ = *format;
      }
    } else if (command == ".tables") {
      *failed = !Run(LakeConnection::ListTablesSql());
    } else {
      *failed = !Fail(Status::InvalidArgument("unknown command {}: try .help", line));
    }
    return true;
  }

 private:
  // Prints the error, and why a table it names has no view (if one does not).
  bool Fail(const Status& status) {
    err_ << "Error: " << status.message() << std::endl;
    for (const SkippedTable& skipped : lake_->skipped()) {
      if (!skipped.table.empty() && status.message().find(skipped.table) != std::string::npos) {
        err_ << "Note: " << skipped.ToString() << std::endl;
      }
    }
    return false;
  }

  LakeConnection* lake_;
  ResultRenderer* renderer_;
  OutputFormat format_;
  std::ostream& out_;
  std::ostream& err_;
};

// In the interactive shell, Ctrl-C stops the running query (as in DuckDB's own shell), not the shell.
std::atomic<duckdb_connection> interruptible{nullptr};

void InterruptQuery(int) {
  duckdb_connection connection = interruptible.load();
  if (connection != nullptr) duckdb_interrupt(connection);
}

class InterruptOnCtrlC {
 public:
  explicit InterruptOnCtrlC(duckdb_connection connection) {
    interruptible.store(connection);
    struct sigaction action = {};
    action.sa_handler = InterruptQuery;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptOnCtrlC() {
    ::sigaction(SIGINT, &previous_, nullptr);
    interruptible.store(nullptr);
  }
  InterruptOnCtrlC(const InterruptOnCtrlC&) = delete;
  InterruptOnCtrlC& operator=(const InterruptOnCtrlC&) = delete;

 private:
  struct sigaction previous_ = {};
};

int RunShell(SqlSession& session, LakeConnection& lake, bool interactive, std::istream& in, std::ostream& out) {
  std::optional<InterruptOnCtrlC> interrupt;
  if (interactive) interrupt.emplace(lake.connection().raw());
  SqlStatementSplitter splitter;
  bool any_failed = false;
  std::string line;
  while (true) {
    if (interactive) {
      out << (splitter.Empty() ? "tide> " : "  ...> ") << std::flush;
    }
    if (!std::getline(in, line)) break;
    if (splitter.Empty() && StartsWith(Trim(line), ".")) {
      bool failed = false;
      if (!session.DotCommand(line, &failed)) return !interactive && any_failed ? 1 : 0;
      any_failed |= failed;
      continue;
    }
    splitter.Append(line);
    splitter.Append("\n");
    for (const std::string& statement : splitter.TakeComplete()) {
      any_failed |= !session.Run(statement);
    }
  }
  if (interactive) out << '\n';
  // Input that ends without a final ';' still runs.
  std::string rest = splitter.Pending();
  if (!IsBlankSql(rest)) any_failed |= !session.Run(rest);
  return !interactive && any_failed ? 1 : 0;
}

}  // namespace

int RunSqlCommand(const SqlCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  Result<OutputFormat> format = ParseOutputFormat(options.format);
  if (!format.ok()) {
    err << "Error: " << format.status().message() << std::endl;
    return 1;
  }
  Result<std::unique_ptr<LakeConnection>> lake = LakeConnection::OpenWarehouse(FileSystem::Local(), options.warehouse);
  if (!lake.ok()) {
    err << "Error: " << lake.status().message() << std::endl;
    return 1;
  }
  // A shell says up front which tables it cannot show; a script hears it only when it names one.
  if (options.interactive) {
    for (const SkippedTable& skipped : (*lake)->skipped()) err << "Warning: no view for " << skipped.ToString() << std::endl;
  }
  Result<std::unique_ptr<ResultRenderer>> renderer = ResultRenderer::Create(&(*lake)->connection());
  if (!renderer.ok()) {
    err << "Error: " << renderer.status().message() << std::endl;
    return 1;
  }
  SqlSession session(lake->get(), renderer->get(), *format, out, err);
  if (options.sql.empty()) return RunShell(session, **lake, options.interactive, in, out);
  for (const std::string& statement : SqlStatementSplitter::SplitAll(options.sql)) {
    if (!session.Run(statement)) return 1;
  }
  return 0;
}

void RegisterSql(CLI::App& app) {
  auto options = std::make_shared<SqlCommandOptions>();
  CLI::App* command = app.add_subcommand("sql", "Query the lake's tables with SQL (DuckDB)");
  command->add_option("--warehouse", options->warehouse, "Warehouse folder (holds <database>.db/<table>/)")
      ->required();
  command->add_option("--format", options->format, "Output format: table, csv or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}, CLI::ignore_case));
  command->add_option("sql", options->sql, "Statements to run (separated by ';'); without them, read stdin");
  command->callback([options]() {
    options->interactive = options->sql.empty() && ::isatty(STDIN_FILENO) == 1;
    int code = RunSqlCommand(*options, std::cin, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
