// DataFileSource: opens one data file of a table for reading a list of columns, by file format.
//
// The table reader asks for physical columns (name, Parquet field id, type as written) and receives
// batches of rows with each row's 0-based position in the file (deletion vectors are positions).
// The format is the file's extension, as Java's reader decides: Parquet is read through
// format/parquet_reader (a DuckDB query) or, when asked (DataFileReadOptions::native), through
// format/parquet_chunk_reader, Avro through format/avro_data_file_reader; ORC (no reader among Tide's
// dependencies) is refused with an error naming the file and the way out. Thread-safety: a reader is
// used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_footer.h"
#include "tide/types/datum.h"

namespace tide {

class DataFileRowReader {
 public:
  virtual ~DataFileRowReader() = default;
  // Appends the next batch of rows (columns in request order) and their positions; false at the end.
  // Batches are as the file reader cuts them (`max_rows` is a hint); when both vectors are empty on
  // entry they may be swapped with the reader's own, so pass them cleared to reuse their capacity.
  virtual Result<bool> NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions) = 0;
};

struct DataFileReadOptions {
  // A DuckDB boolean expression over the file's physical column names. Parquet files return only rows
  // for which it is true (positions stay positions in the file) and skip row groups whose statistics
  // exclude it; Avro files return every row, so a caller that passes a filter checks its rows itself.
  // Empty: every row.
  std::string filter_sql;
  // The database that reads the file; DataFileDatabase() when null. Compaction passes its own, without
  // the footer cache: it reads every file once, and the files it reads are then deleted, so cached
  // footers would only pile up in a long-running writer.
  const DuckDB* database = nullptr;
  // Read a Parquet file with Tide's own reader (format/parquet_chunk_reader.h) instead of a DuckDB query,
  // when the file and its columns are within its scope (otherwise DuckDB reads it, as without): no
  // query to plan, no DuckDB footer cache to fill. `filter_sql` is then not applied, so the caller
  // checks its rows itself; `select_row_groups`, given the file's footer, says which row groups to read
  // (one entry per group; unset reads all). For point lookups, which read a few rows of a few files, and
  // for reads of whole files (compaction), which would otherwise plan a query per file.
  bool native = false;
  std::function<std::vector<bool>(const ParquetFooter&)> select_row_groups;
  // With `native`: rows whose columns (by index into the columns read) do not equal these values are
  // passed over before they are built (a point read's key: only its few rows are materialized). Other
  // readers may return them, so the caller still checks its rows.
  std::vector<std::pair<size_t, Datum>> native_row_equals;
};

// The in-memory DuckDB database that reads data files, shared by the process (each reader opens its own
// connection on it). Its Parquet footer cache is on: data files never change once written.
Result<const DuckDB*> DataFileDatabase();

// Opens `path` for `columns`; `table_name` names the table in errors.
Result<std::unique_ptr<DataFileRowReader>> OpenDataFile(const std::string& path,
                                                        const std::vector<ParquetColumnSpec>& columns,
                                                        const std::string& table_name,
                                                        const DataFileReadOptions& options = {});

}  // namespace tide
