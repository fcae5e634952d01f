// ParquetFileInfo: what a Parquet file's footer says about it (row count, row groups, writer, schema tree
// with field ids), parsed by Tide (parquet_footer.h), or, for cross-checks, through DuckDB's
// parquet_file_metadata() and parquet_schema() table functions.
//
// Also the mapping of DuckDB's errors about one file to Tide's codes: anything the file's bytes caused is
// Corruption naming the file.
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

// Reads the footer facts and the schema of the Parquet file at `path` (a local path), parsing the footer
// itself (parquet_footer.h): no DuckDB query. NotFound if the file is missing, Corruption naming it if it
// is truncated or its footer is damaged.
Result<ParquetFileInfo> ReadParquetFileInfo(const std::string& path);
// The same for several files; parallel to `paths`.
Result<std::vector<ParquetFileInfo>> ReadParquetFileInfos(const std::vector<std::string>& paths);

// The number of rows the footer of `path` declares.
Result<int64_t> ReadParquetRowCount(const std::string& path);

// The same facts as DuckDB sees them, through its parquet_file_metadata() and parquet_schema() table
// functions, with ParquetFileColumn::duckdb_type filled in (the other readers leave it empty). For
// diagnostics and for cross-checking Tide's footer parser; two queries per call.
Result<ParquetFileInfo> ReadParquetFileInfoWithDuckDB(DuckConnection& conn, const std::string& path);

// Turns a DuckDB error met while reading `path` into Tide's terms: Aborted and resource errors keep their
// code; everything else is Corruption "Parquet file <path> is corrupt or unreadable: <DuckDB's text>".
Status ParquetReadError(const std::string& path, const Status& duckdb_error);

}  // namespace tide
