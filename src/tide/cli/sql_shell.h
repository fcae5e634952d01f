// The read loops of `tide sql` without a query on the command line.
//
// RunSqlScript reads statements from a stream that is not a terminal (a pipe, a file): no prompts; a
// statement runs when the ';' that ends it arrives (sql/sql_statement_splitter.h) and input that ends
// without one runs as well; dot commands at the start of a line work as in the shell; an error is
// printed and the next statement still runs, and the exit code is 1 if any statement failed.
//
// RunSqlShell is the interactive shell on a terminal: the prompt `tide> ` (`  ...> ` inside an
// unfinished statement), line editing and history (line_editor.h), Ctrl-C stopping a running statement
// or dropping the one being typed (interrupt_watcher.h), Ctrl-D or .quit to leave with exit code 0.
// Each statement, as typed over one or more lines, is one history entry, unless it may hold a secret
// (HistoryEntryFor).
//
// Thread-safety: both run on the thread that owns the session.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tide/cli/interrupt_watcher.h"
#include "tide/cli/line_editor.h"
#include "tide/cli/sql_session.h"

namespace tide::cli {

// Returns the exit code.
int RunSqlScript(SqlSession& session, std::istream& in);
int RunSqlShell(SqlSession& session, LineEditor& editor, InterruptWatcher& watcher, std::ostream& out,
                std::ostream& err);

// The history entry for `lines` (a statement or a dot command as typed): the lines joined with spaces
// (with line breaks when one holds a `--` comment, which would otherwise swallow the rest), or nothing
// when the first line starts with a space (as shells' `ignorespace` keeps a line out on purpose) or
// the text mentions a secret or a password (CREATE SECRET, a connection string), which must not be
// left in a file.
std::optional<std::string> HistoryEntryFor(const std::vector<std::string>& lines);

}  // namespace tide::cli
