#include "tide/sql/result_format.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tide/base/strings.h"

namespace tide {

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  std::string lower = ToLower(name);
  if (lower == "table") return OutputFormat::kTable;
  if (lower == "csv") return OutputFormat::kCsv;
  if (lower == "json") return OutputFormat::kJson;
  return Status::InvalidArgument("unknown output format '{}': use table, csv or json", name);
}

CellStyle CellStyleFor(OutputFormat format) {
  return format == OutputFormat::kJson ? CellStyle::kJson : CellStyle::kText;
}

namespace {

// Decodes one UTF-8 code point at s[*i] (advancing *i); a malformed or cut sequence counts as one narrow
// character per byte.
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  auto c = static_cast<unsigned char>(s[*i]);
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (extra == 0 || *i + extra >= s.size()) {
    ++*i;
    return c;
  }
  uint32_t cp = c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += extra + 1;
  return cp;
}

bool IsWide(uint32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
         (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
         (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

bool IsZeroWidth(uint32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
         (cp >= 0x20D0 && cp <= 0x20FF);
}

std::string TableCell(const std::optional<std::string>& cell) {
  if (!cell) return "NULL";
  std::string out;
  out.reserve(cell->size());
  for (char c : *cell) {
    if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string Repeat(std::string_view piece, size_t n) {
  std::string out;
  out.reserve(piece.size() * n);
  for (size_t i = 0; i < n; ++i) out.append(piece);
  return out;
}

std::string Pad(const std::string& text, size_t width, bool right) {
  size_t w = DisplayWidth(text);
  std::string fill(width > w ? width - w : 0, ' ');
  return right ? fill + text : text + fill;
}

std::string Center(const std::string& text, size_t width) {
  size_t w = DisplayWidth(text);
  size_t total = width > w ? width - w : 0;
  return std::string(total / 2, ' ') + text + std::string(total - total / 2, ' ');
}

std::string Rule(const std::vector<size_t>& widths, std::string_view left, std::string_view mid,
                 std::string_view right) {
  std::string line(left);
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) line.append(mid);
    line.append(Repeat("─", widths[c] + 2));
  }
  line.append(right);
  return line;
}

void AppendCsvField(std::string_view field, std::string* out) {
  bool quote = field.empty() || field.find_first_of(",\"\r\n") != std::string_view::npos ||
               field.front() == ' ' || field.back() == ' ';
  if (!quote) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  size_t i = 0;
  while (i < text.size()) {
    uint32_t cp = NextCodePoint(text, &i);
    if (IsZeroWidth(cp)) continue;
    width += IsWide(cp) ? 2 : 1;
  }
  return width;
}

void WriteTable(const TextResult& result, std::ostream& out) {
  size_t n = result.columns.size();
  if (n == 0) return;
  std::vector<std::string> types(n);
  std::vector<size_t> widths(n);
  for (size_t c = 0; c < n; ++c) {
    types[c] = ToLower(result.columns[c].type);
    widths[c] = std::max(DisplayWidth(result.columns[c].name), DisplayWidth(types[c]));
  }
  std::vector<std::vector<std::string>> cells(result.rows.size(), std::vector<std::string>(n));
  for (size_t r = 0; r < result.rows.size(); ++r) {
    for (size_t c = 0; c < n; ++c) {
      cells[r][c] = TableCell(result.rows[r][c]);
      widths[c] = std::max(widths[c], DisplayWidth(cells[r][c]));
    }
  }
  auto line = [&](auto&& cell_text) {
    std::string s = "│";
    for (size_t c = 0; c < n; ++c) s += " " + cell_text(c) + " │";
    return s;
  };
  out << Rule(widths, "┌", "┬", "┐") << '\n';
  out << line([&](size_t c) { return Center(result.columns[c].name, widths[c]); }) << '\n';
  out << line([&](size_t c) { return Center(types[c], widths[c]); }) << '\n';
  out << Rule(widths, "├", "┼", "┤") << '\n';
  for (size_t r = 0; r < cells.size(); ++r) {
    out << line([&](size_t c) { return Pad(cells[r][c], widths[c], result.columns[c].numeric); }) << '\n';
  }
  out << Rule(widths, "└", "┴", "┘") << '\n';
}

void WriteCsv(const TextResult& result, std::ostream& out, bool header) {
  std::string line;
  if (header) {
    for (size_t c = 0; c < result.columns.size(); ++c) {
      if (c > 0) line.push_back(',');
      AppendCsvField(result.columns[c].name, &line);
    }
    out << line << '\n';
  }
  for (const auto& row : result.rows) {
    line.clear();
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line.push_back(',');
      if (row[c]) AppendCsvField(*row[c], &line);
    }
    out << line << '\n';
  }
}

void WriteJsonLines(const TextResult& result, std::ostream& out) {
  std::vector<std::string> keys;
  for (const TextColumn& column : result.columns) keys.push_back(JsonQuote(column.name) + ":");
  std::string line;
  for (const auto& row : result.rows) {
    line.assign("{");
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line.push_back(',');
      line.append(keys[c]);
      line.append(row[c] ? *row[c] : "null");
    }
    line.push_back('}');
    out << line << '\n';
  }
}

void WriteResult(const TextResult& result, OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::kTable: WriteTable(result, out); break;
    case OutputFormat::kCsv: WriteCsv(result, out); break;
    case OutputFormat::kJson: WriteJsonLines(result, out); break;
  }
}

}  // namespace tide
