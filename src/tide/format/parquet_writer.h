// ParquetFileWriter: writes Tide Rows to one Parquet data file through DuckDB.
//
// Rows are encoded into DuckDB data chunks (duckdb_vector_encoder.h gives the Paimon-to-Parquet type
// mapping) and appended to a temporary table on the writer's own connection; Finish() runs DuckDB's
// `COPY ... TO (FORMAT parquet)` with the Paimon field ids (FIELD_IDS), the codec (zstd, level 1, as
// Paimon's defaults) and the row-group size, into a temporary name beside the target, fsyncs the file and
// renames it to the target without replacing anything. So a file at the target path is always complete,
// and an existing file is never overwritten (AlreadyExists).
//
// What DuckDB 1.4 cannot reproduce of Java Paimon's physical schema (readers, Tide's and Java's, read the
// values correctly regardless):
//   * TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) are INT64 TIMESTAMP(NANOS), both with isAdjustedToUTC=false,
//     not INT96 (DuckDB cannot write INT96, and has no nanosecond TIMESTAMPTZ); values must lie in
//     1677..2262. Java readers that take the unit of an INT64 timestamp from the file's annotation read
//     them; older ones, which assume millis or micros from the precision, do not.
//   * TIMESTAMP_LTZ(0..3) carries isAdjustedToUTC=false (DuckDB has no millisecond TIMESTAMPTZ).
//   * TIME is INT32 milliseconds without the TIME(MILLIS) annotation.
//   * DECIMAL with precision above 18 is FIXED_LEN_BYTE_ARRAY(16), not the minimal length.
//   * Every column is OPTIONAL: DuckDB does not write REQUIRED for NOT NULL columns (map keys excepted),
//     and its COPY ... TO (FORMAT parquet) has no option for it (a NOT NULL column of the copied table
//     is still written OPTIONAL).
//   * Top-level columns whose names differ only in case cannot be written (NotSupported): DuckDB
//     renames one of them.
//   * INT and BIGINT carry INT_32 / INT_64 converted types; TINYINT, SMALLINT, DATE and strings carry
//     only their converted types (INT_8, INT_16, DATE, UTF8), without the logical types Java adds; the
//     MAP's key_value group has no MAP_KEY_VALUE annotation; the root message is `duckdb_schema`, not
//     `paimon_schema` (or `schema`, Java 1.3); created_by names DuckDB. None of these change how a value
//     reads.
//
// Thread-safety: a writer owns its connection and belongs to one thread at a time; writers of the same
// database may run in parallel.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"
#include "tide/types/datum.h"

namespace tide {

struct ParquetWriteOptions {
  // DuckDB's codec names: zstd, snappy, gzip, lz4, brotli, uncompressed.
  std::string compression = "zstd";
  int compression_level = 1;             // zstd only (Paimon's file.compression.zstd-level)
  // Rows per row group at most. (Row groups cannot also be bounded by bytes, as Paimon's
  // parquet.block.size does: DuckDB's ROW_GROUP_SIZE_BYTES requires giving up insertion order, and
  // primary-key files must keep their sorted order.)
  int64_t row_group_rows = 122880;
  bool write_field_ids = true;           // Paimon 1.0+ readers match columns by field id
};

struct ParquetWriteResult {
  std::string path;
  int64_t row_count = 0;
  int64_t file_size = 0;
};

class ParquetFileWriter {
 public:
  // Prepares a writer of `columns` to `path`; nothing is created at `path` before Finish().
  static Result<std::unique_ptr<ParquetFileWriter>> Create(const DuckDB& db, std::string path,
                                                           std::vector<ParquetColumnSpec> columns,
                                                           ParquetWriteOptions options = {});
  ~ParquetFileWriter();
  ParquetFileWriter(const ParquetFileWriter&) = delete;
  ParquetFileWriter& operator=(const ParquetFileWriter&) = delete;

  // Adds rows (one Datum per column, in the order of `columns`). InvalidArgument naming the column if a
  // value does not fit its type; the writer stays usable for other rows.
  Status Append(const Row& row);
  Status AppendRows(std::span<const Row> rows);

  int64_t row_count() const { return row_count_; }
  const std::string& path() const { return path_; }

  // Writes the file. After Finish (successful or not) the writer accepts nothing more.
  Result<ParquetWriteResult> Finish();

 private:
  ParquetFileWriter() = default;
  Status FlushChunk();
  Status NewChunk();
  std::string FieldIdsOption() const;

  std::string path_;
  std::vector<ParquetColumnSpec> columns_;
  ParquetWriteOptions options_;
  std::vector<DuckLogicalType> types_;
  DuckConnection conn_;
  DuckAppender appender_;
  DuckDataChunk chunk_;
  idx_t chunk_rows_ = 0;
  int64_t row_count_ = 0;
  bool finished_ = false;
};

}  // namespace tide
