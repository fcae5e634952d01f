// ResultRenderer: turns a DuckDB query result into text cells, each value exactly as DuckDB renders it
// as VARCHAR (decimals keep their scale, timestamps in ISO form, nested values as [1, 2] / {'a': 1}).
//
// The C API has no cast of a single value, so the renderer feeds the finished result back into DuckDB
// through a private table function and selects CAST(column AS VARCHAR) from it. For JSON output it asks
// instead for each cell's JSON text: numbers and booleans bare, nested values through DuckDB's to_json,
// everything else (DECIMAL included, so its scale and digits survive) as a JSON string.
//
// Thread-safety: a ResultRenderer belongs to the thread that uses its connection.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"

namespace tide {

struct TextColumn {
  std::string name;
  std::string type;       // DuckDB's spelling, e.g. "DECIMAL(10,2)"
  bool numeric = false;   // right-aligned in a table
};

// A rendered result. In JSON style every present cell is a JSON value text; NULL is nullopt.
struct TextResult {
  std::vector<TextColumn> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

enum class CellStyle {
  kText,  // DuckDB's VARCHAR rendering
  kJson,  // a JSON value per cell
};

// `text` as a JSON string literal (quotes, backslashes and control characters escaped; other bytes kept).
std::string JsonQuote(std::string_view text);

class ResultRenderer {
 public:
  // Registers the renderer's table function on `connection`'s database. The connection must outlive
  // the renderer.
  static Result<std::unique_ptr<ResultRenderer>> Create(DuckConnection* connection);

  // Renders (and consumes) `result`, a materialized result of `connection`, whole.
  Result<TextResult> Render(DuckResult& result, CellStyle style);
  // The same, one DuckDB chunk (up to 2048 rows) at a time, so output can be written as it is rendered:
  // `sink` gets each batch (columns always set), at least once (with no rows for an empty result).
  // A statement that returns no rows to show (CREATE, INSERT, SET) gives no batch.
  Status RenderBatches(DuckResult& result, CellStyle style, const std::function<Status(const TextResult&)>& sink);

  ResultRenderer(const ResultRenderer&) = delete;
  ResultRenderer& operator=(const ResultRenderer&) = delete;
  ~ResultRenderer();

  struct Feed;  // what the table function reads from (public for the C callbacks)

 private:
  explicit ResultRenderer(DuckConnection* connection) : connection_(connection) {}

  DuckConnection* connection_;
  std::string function_name_;
  std::shared_ptr<Feed> feed_;
};

}  // namespace tide
