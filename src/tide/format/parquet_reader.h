// ParquetFileReader: reads the rows of a Parquet data file (or of several files in one scan) as Tide Rows.
//
// The caller names the columns it wants (ParquetColumnSpec: physical name, optional Parquet field id,
// the Paimon type wanted). Each is looked up in the file's footer by field id first, then by name; a
// column the file does not have is listed in missing_columns() and read as NULL (schema evolution: the
// caller decides what a missing column means). Rows come in batches of up to one DuckDB chunk (2048),
// each row with its 0-based position in its file (what deletion vectors index) and the index of its file.
//
// The footers (schema, field ids, row counts) are parsed by Tide (parquet_footer.h); the rows come from
// one DuckDB query: read_parquet with hive partitioning off (Paimon's `dt=...` directories
// must not turn into columns) and is decoded straight from the result vectors (duckdb_vector_decoder.h).
// Top-level INT96 timestamps (Java's TIMESTAMP(7..9)) are decoded by Tide from the file itself
// (parquet_int96.h): DuckDB 1.4 converts INT96 to microseconds, rounding pre-1970 values the wrong way,
// so Tide replaces those values with the exact nanoseconds Java wrote. INT96 values nested inside
// ARRAY/MAP/ROW keep DuckDB's microsecond reading.
//
// DuckDB binds names case-insensitively, so a file with two top-level columns whose names differ only in
// case, or with a column named file_row_number or file_index (DuckDB's virtual columns), is refused with
// NotSupported rather than risk reading the wrong column.
//
// Errors: a missing file is NotFound; a file whose bytes are damaged or truncated gives Corruption naming
// it (never a crash); a column whose stored type cannot be read as the wanted Paimon type is NotSupported
// naming the column.
//
// Thread-safety: a reader owns its own DuckDB connection and belongs to one thread at a time; any number
// of readers (of the same DuckDB database) may run in parallel, one per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_int96.h"
#include "tide/format/parquet_metadata.h"
#include "tide/types/datum.h"

namespace tide {

struct ParquetReadOptions {
  // A DuckDB SQL boolean expression over the file's physical column names, e.g. `"_VALUE_KIND" = 0`;
  // rows for which it is not true are skipped (positions stay positions in the file). Empty: all rows.
  std::string filter_sql;
  // Decode top-level INT96 columns from the file to keep Java's nanoseconds (see the header comment).
  // Off: DuckDB's microsecond reading.
  bool exact_int96 = true;
  // Scans of at most this many rows (by the footers) run as one materialized DuckDB query, which costs
  // less than a streaming one for small files; larger scans stream chunk by chunk in bounded memory.
  int64_t materialize_max_rows = 131072;
};

// A batch of rows; positions[i] and file_indexes[i] belong to rows[i].
struct ParquetBatch {
  std::vector<Row> rows;
  std::vector<int64_t> positions;      // 0-based row position in its file (before any filter)
  std::vector<uint32_t> file_indexes;  // index into the reader's paths()

  size_t size() const { return rows.size(); }
  void Clear() {
    rows.clear();
    positions.clear();
    file_indexes.clear();
  }
};

// The DuckDB table-function call that scans `paths` the way Paimon data files must be scanned:
// `read_parquet([...], hive_partitioning = false, binary_as_string = false[, union_by_name = true])`.
// Without hive_partitioning = false DuckDB turns Paimon's partition directories (`dt=2025-04-14/hr=10/`)
// into columns that replace the file's own `dt` and `hr` (as DATE and BIGINT). For SQL that scans data
// files directly; note that such a scan reads INT96 timestamps (Java's TIMESTAMP(7..9)) at DuckDB's
// microsecond precision, see the header comment.
std::string ReadParquetCall(const std::vector<std::string>& paths, bool union_by_name);

class ParquetFileReader {
 public:
  // Opens one file. Reads its footer (schema, field ids), resolves `columns` and starts the scan.
  static Result<std::unique_ptr<ParquetFileReader>> Open(const DuckDB& db, const std::string& path,
                                                         std::vector<ParquetColumnSpec> columns,
                                                         ParquetReadOptions options = {});
  // Opens several files as one scan (read_parquet over a list), in the order given: the plain-scan fast
  // path. Columns are resolved in each file (field id, then name); InvalidArgument if one column resolves
  // to different physical names in different files (read such files one by one). A column absent from a
  // file reads as NULL in that file's rows; missing_columns() lists those absent from every file.
  static Result<std::unique_ptr<ParquetFileReader>> OpenMany(const DuckDB& db, const std::vector<std::string>& paths,
                                                             std::vector<ParquetColumnSpec> columns,
                                                             ParquetReadOptions options = {});
  ~ParquetFileReader();
  ParquetFileReader(const ParquetFileReader&) = delete;
  ParquetFileReader& operator=(const ParquetFileReader&) = delete;

  const std::vector<std::string>& paths() const { return paths_; }
  const std::vector<ParquetColumnSpec>& columns() const { return columns_; }
  // The footers of the files, parallel to paths().
  const std::vector<ParquetFileInfo>& file_infos() const { return infos_; }
  // Indices into columns() of the columns no file has (their values are NULL).
  const std::vector<size_t>& missing_columns() const { return missing_; }

  // Replaces *batch with the next rows; false (and an empty batch) at the end.
  Result<bool> Next(ParquetBatch* batch);
  // Reads every remaining row; `positions` (and `file_indexes`), if given, receive the rows' positions.
  Result<std::vector<Row>> ReadAll(std::vector<int64_t>* positions = nullptr,
                                   std::vector<uint32_t>* file_indexes = nullptr);

 private:
  struct ColumnPlan;
  ParquetFileReader() = default;
  static Result<std::unique_ptr<ParquetFileReader>> OpenImpl(const DuckDB& db, std::vector<std::string> paths,
                                                             std::vector<ParquetColumnSpec> columns,
                                                             ParquetReadOptions options);
  Status Start();
  Status FillBatch(const DuckDataChunk& chunk, ParquetBatch* batch);
  Result<const Int96Column*> Int96For(size_t column, uint32_t file_index);
  std::string FileNameForError() const;

  std::vector<std::string> paths_;
  std::vector<ParquetColumnSpec> columns_;
  ParquetReadOptions options_;
  std::vector<ParquetFileInfo> infos_;
  std::vector<size_t> missing_;
  std::vector<ColumnPlan> plans_;  // parallel to columns_
  DuckConnection conn_;
  DuckResult result_;
  bool done_ = false;
  // Exact INT96 values of the file currently being read, per column index (see parquet_int96.h).
  uint32_t int96_file_ = UINT32_MAX;
  std::map<size_t, Int96Column> int96_;
};

}  // namespace tide
