// ParquetFileInfo: what a Parquet file's footer says about it (row count, row groups, writer, schema with
// field ids), read through DuckDB's parquet_file_metadata() and parquet_schema() table functions.
//
// Also the checks every Tide Parquet reader runs before handing a path to DuckDB: the file exists and has
// the `PAR1` magic at both ends with a footer length that fits, so a truncated file fails with a clear
// Corruption naming it rather than with DuckDB's text. And the mapping of DuckDB's errors about one file
// to Tide's codes (missing file: NotFound; anything the file's bytes caused: Corruption naming the file).
// Thread-safety: functions; the connection passed in belongs to the calling thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"

namespace tide {

struct ParquetFileInfo {
  std::string path;
  int64_t num_rows = 0;
  int64_t num_row_groups = 0;
  int64_t file_size = 0;
  std::string created_by;   // e.g. "parquet-mr version 1.15.1 (build ...)" or "DuckDB version v1.4.4 ..."
  std::string root_name;    // the schema's root message name: "paimon_schema" for Java Paimon
  std::vector<ParquetFileColumn> columns;  // the top-level columns in file order, with their children

  // The top-level column with `field_id` if given and present, else the one named `name`; nullptr if
  // neither (the caller reads such a column as NULL).
  const ParquetFileColumn* FindColumn(const std::string& name, std::optional<int32_t> field_id) const;
};

// Reads the footer facts and the schema of the Parquet file at `path` (a local path).
Result<ParquetFileInfo> ReadParquetFileInfo(DuckConnection& conn, const std::string& path);

// The same for several files in two DuckDB queries (not two per file); parallel to `paths`.
Result<std::vector<ParquetFileInfo>> ReadParquetFileInfos(DuckConnection& conn, const std::vector<std::string>& paths);

// The number of rows the footer of `path` declares (parquet_file_metadata), without reading the schema.
Result<int64_t> ReadParquetRowCount(DuckConnection& conn, const std::string& path);

// NotFound if `path` does not exist; Corruption naming it if it is shorter than a Parquet file can be,
// lacks the `PAR1` magic at its start or end, or declares a footer longer than the file.
Status CheckParquetFileShape(const std::string& path);

// Turns a DuckDB error met while reading `path` into Tide's terms: Aborted and resource errors keep their
// code; everything else is Corruption "Parquet file <path> is corrupt or unreadable: <DuckDB's text>".
Status ParquetReadError(const std::string& path, const Status& duckdb_error);

}  // namespace tide
