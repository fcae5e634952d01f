// Output formats of `tide sql`: a rendered result (result_text.h) written as an aligned table, as CSV or
// as JSON Lines.
//
//   table  a box-drawn table like DuckDB's shell: column names, then their types, then the rows; numbers
//          right-aligned, NULL shown as NULL, line breaks inside a value shown as \n.
//   csv    RFC 4180 fields: a header line with the column names, then one line per row, fields
//          separated by commas; a field holding a comma, a quote, CR or LF, or spaces at its ends is
//          quoted, with "" for a quote inside; NULL is an empty field and the empty string is written ""
//          so the two stay apart. Lines end with \n, as DuckDB's own CSV writer ends them.
//   json   JSON Lines: one object per row, keys in column order, each value a JSON value as rendered
//          with CellStyle::kJson (integers bare and exact at any size, DECIMAL as a string with its
//          scale, NULL as null).
// Thread-safety: pure functions of their arguments.
#pragma once

#include <ostream>
#include <string_view>

#include "tide/base/result.h"
#include "tide/sql/result_text.h"

namespace tide {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv" or "json"; InvalidArgument listing them otherwise.
Result<OutputFormat> ParseOutputFormat(std::string_view name);
// The cell style a format needs its result rendered in.
CellStyle CellStyleFor(OutputFormat format);

void WriteTable(const TextResult& result, std::ostream& out);
// `header` false writes the rows only (the later batches of a result written as it is rendered).
void WriteCsv(const TextResult& result, std::ostream& out, bool header = true);
void WriteJsonLines(const TextResult& result, std::ostream& out);
void WriteResult(const TextResult& result, OutputFormat format, std::ostream& out);

// The width of `text` on a terminal: code points, with East Asian wide characters counting two and
// combining marks zero.
size_t DisplayWidth(std::string_view text);

}  // namespace tide
