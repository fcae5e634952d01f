#include "tide/sql/sql_statement_splitter.h"

#include <cctype>

#include "tide/base/strings.h"

namespace tide {

namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// If text[i] opens a dollar-quoted string ($$ or $tag$), returns the delimiter; else "".
std::string DollarTagAt(std::string_view text, size_t i) {
  if (text[i] != '$' || (i > 0 && IsIdentChar(text[i - 1]))) return "";
  size_t j = i + 1;
  if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) return "";  // $1: a parameter
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
  if (j >= text.size() || text[j] != '$') return "";
  return std::string(text.substr(i, j - i + 1));
}

// Positions just after every statement-ending ';' in `text`.
std::vector<size_t> StatementEnds(std::string_view text) {
  std::vector<size_t> ends;
  size_t i = 0;
  size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == ';') {
      ends.push_back(++i);
    } else if (c == '\'') {
      bool backslash = i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E') && (i < 2 || !IsIdentChar(text[i - 2]));
      ++i;
      while (i < n) {
        if (backslash && text[i] == '\\') {
          i += 2;
        } else if (text[i] == '\'') {
          if (i + 1 < n && text[i + 1] == '\'') {
            i += 2;
          } else {
            break;
          }
        } else {
          ++i;
        }
      }
      if (i >= n) break;  // unterminated: the statement goes on in later input
      ++i;
    } else if (c == '"') {
      ++i;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      if (i >= n) break;
      ++i;
    } else if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      size_t eol = text.find('\n', i);
      if (eol == std::string_view::npos) break;
      i = eol + 1;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          --depth;
          i += 2;
        } else {
          ++i;
        }
      }
      if (depth > 0) break;
    } else if (c == '$') {
      std::string tag = DollarTagAt(text, i);
      if (tag.empty()) {
        ++i;
        continue;
      }
      size_t close = text.find(tag, i + tag.size());
      if (close == std::string_view::npos) break;
      i = close + tag.size();
    } else {
      ++i;
    }
  }
  return ends;
}

}  // namespace

bool IsBlankSql(std::string_view statement) {
  std::string_view s = statement;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') {
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      size_t eol = s.find('\n', i);
      if (eol == std::string_view::npos) return true;
      i = eol + 1;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      int depth = 1;
      i += 2;
      while (i < s.size() && depth > 0) {
        if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/') {
          --depth;
          i += 2;
        } else {
          ++i;
        }
      }
    } else {
      return false;
    }
  }
  return true;
}

void SqlStatementSplitter::Append(std::string_view text) { buffer_.append(text); }

std::vector<std::string> SqlStatementSplitter::TakeComplete() {
  std::vector<std::string> statements;
  size_t start = 0;
  for (size_t end : StatementEnds(buffer_)) {
    std::string_view statement = Trim(std::string_view(buffer_).substr(start, end - start));
    if (!IsBlankSql(statement)) statements.emplace_back(statement);
    start = end;
  }
  buffer_.erase(0, start);
  return statements;
}

std::string SqlStatementSplitter::Pending() const {
  std::string_view pending = Trim(buffer_);
  return std::string(pending);
}

void SqlStatementSplitter::Clear() { buffer_.clear(); }

std::vector<std::string> SqlStatementSplitter::SplitAll(std::string_view text) {
  SqlStatementSplitter splitter;
  splitter.Append(text);
  std::vector<std::string> statements = splitter.TakeComplete();
  std::string tail = splitter.Pending();
  if (!IsBlankSql(tail)) statements.push_back(std::move(tail));
  return statements;
}

}  // namespace tide
