#include "tide/sql/sql_table_name.h"

#include <optional>

#include "tide/base/strings.h"
#include "tide/format/duckdb_handle.h"

namespace tide {

namespace {

Status BadName(std::string_view text) {
  return Status::InvalidArgument(
      "'{}' is not a table name: write it as <database>.<table>, quoting a part that holds a dot or a "
      "quote as an SQL identifier (\"my.db\".\"t\")",
      text);
}

// Reads one part starting at `*pos`: a quoted identifier, or plain text up to the next dot.
std::optional<std::string> ReadPart(std::string_view text, size_t* pos) {
  size_t i = *pos;
  while (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size() && text[i] == '"') {
    std::string part;
    ++i;
    while (true) {
      if (i >= text.size()) return std::nullopt;  // unterminated
      if (text[i] == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          part.push_back('"');
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      part.push_back(text[i++]);
    }
    while (i < text.size() && text[i] == ' ') ++i;
    *pos = i;
    return part;
  }
  size_t end = text.find('.', i);
  if (end == std::string_view::npos) end = text.size();
  std::string_view part = Trim(text.substr(i, end - i));
  if (part.find('"') != std::string_view::npos) return std::nullopt;
  *pos = end;
  return std::string(part);
}

bool NeedsQuotes(const std::string& part) {
  return part.empty() || part.find('.') != std::string::npos || part.find('"') != std::string::npos ||
         Trim(part).size() != part.size();
}

}  // namespace

Result<TableIdentifier> ParseSqlTableName(std::string_view text) {
  size_t pos = 0;
  std::optional<std::string> database = ReadPart(text, &pos);
  if (!database || database->empty() || pos >= text.size() || text[pos] != '.') return BadName(text);
  ++pos;
  std::optional<std::string> table = ReadPart(text, &pos);
  if (!table || table->empty() || pos != text.size()) return BadName(text);
  return TableIdentifier{std::move(*database), std::move(*table)};
}

std::string FormatSqlTableName(const TableIdentifier& id) {
  auto part = [](const std::string& name) { return NeedsQuotes(name) ? QuoteSqlIdentifier(name) : name; };
  return part(id.database) + "." + part(id.table);
}

}  // namespace tide
