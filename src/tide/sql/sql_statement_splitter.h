// SqlStatementSplitter: finds where SQL statements end in text typed or piped into `tide sql`.
//
// A statement ends at a semicolon that is outside string literals ('...' with '' inside, E'...' with
// backslash escapes), quoted identifiers ("..."), dollar-quoted strings ($tag$...$tag$), line comments
// (-- to the end of the line) and block comments (/* ... */, nested). DuckDB parses each statement
// itself; the splitter only decides when enough input has arrived to run something, and keeps each
// statement's text for its error messages. Thread-safety: a splitter belongs to one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tide {

class SqlStatementSplitter {
 public:
  // Adds input (one line, with its newline, or any piece).
  void Append(std::string_view text);
  // Removes and returns the complete statements, each with its terminating ';', leading whitespace
  // trimmed; statements that hold nothing but whitespace and comments are dropped.
  std::vector<std::string> TakeComplete();
  // What is left after the last complete statement (an unfinished statement), trimmed.
  std::string Pending() const;
  // True when nothing but whitespace is pending.
  bool Empty() const { return Pending().empty(); }
  // Drops the pending text.
  void Clear();

  // All statements of `text`, the unterminated tail included (a query given on the command line).
  static std::vector<std::string> SplitAll(std::string_view text);

 private:
  std::string buffer_;  // text after the last complete statement taken
};

// True when `statement` holds only whitespace, comments and semicolons.
bool IsBlankSql(std::string_view statement);

}  // namespace tide
