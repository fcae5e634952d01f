#include "tide/cli/sql_shell.h"

#include "tide/base/strings.h"
#include "tide/sql/sql_statement_splitter.h"

namespace tide::cli {

namespace {

bool IsDotCommand(std::string_view line) { return StartsWith(Trim(line), "."); }

}  // namespace

std::optional<std::string> HistoryEntryFor(const std::vector<std::string>& lines) {
  if (lines.empty() || StartsWith(lines[0], " ")) return std::nullopt;
  std::string lower;
  bool line_comment = false;
  for (const std::string& line : lines) {
    lower += ToLower(line);
    lower += '\n';
    line_comment |= line.find("--") != std::string::npos;
  }
  for (const char* secret : {"secret", "password", "passwd"}) {
    if (lower.find(secret) != std::string::npos) return std::nullopt;
  }
  std::string entry;
  for (const std::string& line : lines) {
    std::string_view text = line_comment ? std::string_view(line) : Trim(line);
    if (text.empty()) continue;
    if (!entry.empty()) entry += line_comment ? '\n' : ' ';
    entry += text;
  }
  if (entry.empty()) return std::nullopt;
  return entry;
}

int RunSqlScript(SqlSession& session, std::istream& in) {
  SqlStatementSplitter splitter;
  bool any_failed = false;
  std::string line;
  while (std::getline(in, line)) {
    if (splitter.Empty() && IsDotCommand(line)) {
      SqlSession::DotResult result = session.DotCommand(line);
      if (result == SqlSession::DotResult::kQuit) return any_failed ? 1 : 0;
      any_failed |= result == SqlSession::DotResult::kFailed;
      continue;
    }
    splitter.Append(line);
    splitter.Append("\n");
    for (const std::string& statement : splitter.TakeComplete()) {
      any_failed |= !session.Run(statement);
    }
  }
  // Input that ends without a final ';' still runs.
  std::string rest = splitter.Pending();
  if (!IsBlankSql(rest)) any_failed |= !session.Run(rest);
  return any_failed ? 1 : 0;
}

int RunSqlShell(SqlSession& session, LineEditor& editor, InterruptWatcher& watcher, std::ostream& out,
                std::ostream& err) {
  SqlStatementSplitter splitter;
  std::vector<std::string> typed;  // the lines of the unfinished statement(s), for the history
  auto remember = [&](const std::vector<std::string>& lines) {
    std::optional<std::string> entry = HistoryEntryFor(lines);
    if (!entry) return;
    if (std::optional<std::string> problem = editor.AddHistory(*entry)) err << "Warning: " << *problem << std::endl;
  };
  while (true) {
    watcher.DrainPromptWakeups();  // a Ctrl-C pressed while output was written is no answer to this prompt
    watcher.EnterPrompt();
    LineEditor::ReadResult read = editor.ReadLine(splitter.Empty() ? "tide> " : "  ...> ");
    watcher.EnterBusy();
    if (read.kind == LineEditor::ReadKind::kEnd) break;
    if (read.kind == LineEditor::ReadKind::kInterrupted) {  // Ctrl-C drops what was being typed
      splitter.Clear();
      typed.clear();
      continue;
    }
    const std::string& line = read.line;
    if (splitter.Empty() && IsDotCommand(line)) {
      remember({line});
      if (session.DotCommand(line) == SqlSession::DotResult::kQuit) return 0;
      continue;
    }
    if (splitter.Empty() && Trim(line).empty()) continue;
    typed.push_back(line);
    splitter.Append(line);
    splitter.Append("\n");
    std::vector<std::string> statements = splitter.TakeComplete();
    if (splitter.Empty()) {  // remembered before it runs: a statement that never returns is kept too
      remember(typed);
      typed.clear();
    }
    for (const std::string& statement : statements) session.Run(statement);
  }
  out << std::endl;
  // Ctrl-D after an unfinished statement runs it, as the end of piped input does.
  std::string rest = splitter.Pending();
  if (!IsBlankSql(rest)) {
    remember(typed);
    session.Run(rest);
  }
  return 0;
}

}  // namespace tide::cli
