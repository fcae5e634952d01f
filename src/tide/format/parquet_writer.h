// ParquetFileWriter: writes Tide Rows to one Parquet data file, with Java Paimon's physical schema.
//
// Tide's own encoder (parquet_file_encoder.h) writes every file whose codec it has (zstd, snappy, gzip,
// uncompressed): the schema is Java Paimon 1.x's exactly (parquet_schema_builder.h: root `paimon_schema`,
// REQUIRED for NOT NULL columns, INT96 for TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9), isAdjustedToUTC=true
// for TIMESTAMP_LTZ, minimal FIXED_LEN_BYTE_ARRAY for DECIMAL above 18 digits, bare INT32/INT64 for
// INT/BIGINT, logical and converted types as parquet-mr writes them, TIME(MILLIS), 3-level LISTs and
// MAPs with MAP_KEY_VALUE and REQUIRED keys, field ids on every element Java gives one); data pages v1,
// dictionary pages for strings and binary outside lists and maps, PLAIN otherwise, repetition and
// definition levels RLE/bit-packed, zstd level 1 by default, ~1 MiB pages ending between rows, row groups
// bounded by rows and bytes, Statistics with min/max in Parquet's sort order. What differs from Java's
// files: created_by ("tide version ..."), sizes, page boundaries, encodings (Java may also use
// dictionaries for numbers), and Java's column and offset indexes and deprecated min/max statistics,
// which Tide does not write.
//
// Files compressed with lz4 (which Tide does not link) still go through DuckDB: rows are encoded into
// DuckDB data chunks (duckdb_vector_encoder.h) appended to a temporary table on the writer's own
// connection, and Finish() runs `COPY ... TO (FORMAT parquet)` with the field ids, codec and row-group
// size. Such files keep DuckDB's gaps against Java's schema (every column OPTIONAL; TIMESTAMP(7..9) as
// INT64 nanos with isAdjustedToUTC=false and values limited to 1677..2262; TIMESTAMP_LTZ(0..3) with
// isAdjustedToUTC=false; TIME without annotation; DECIMAL above 18 digits as FIXED_LEN_BYTE_ARRAY(16);
// INT_32/INT_64 on INT/BIGINT and converted types without logical types; the root `duckdb_schema`; no
// MAP_KEY_VALUE on a map's key_value group; top-level names that differ only in case are refused);
// readers, Tide's and Java's, read the values correctly regardless. VARIANT columns are written by
// neither (NotSupported).
//
// Either way nothing appears at the target before Finish(): the file is written under a temporary name
// beside the target, fsynced and renamed to the target without replacing anything, so a file at the
// target path is always complete and an existing file is never overwritten (AlreadyExists). A value
// that does not fit its column (a NULL in a NOT NULL column on the native path, a number out of range,
// a decimal with too many digits) is InvalidArgument naming the column and the file, and the writer
// stays usable for other rows.
//
// Thread-safety: a writer belongs to one thread at a time; writers of the same database may run in
// parallel.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_file_encoder.h"
#include "tide/types/datum.h"

namespace tide {

struct ParquetWriteOptions {
  // Codec names: zstd, snappy, gzip, uncompressed (Tide's encoder); lz4 goes through DuckDB.
  std::string compression = "zstd";
  int compression_level = 1;             // zstd only (Paimon's file.compression.zstd-level)
  // Rows per row group at most.
  int64_t row_group_rows = 122880;
  // Buffered bytes per row group at most (Paimon's parquet.block.size), on Tide's encoder only: DuckDB's
  // ROW_GROUP_SIZE_BYTES requires giving up insertion order, which primary-key files must keep.
  int64_t row_group_bytes = int64_t{128} << 20;
  bool write_field_ids = true;           // Paimon 1.0+ readers match columns by field id
  // Tide's encoder only: write the file under its final name (io/unique_file.h's WriteNewFile: no
  // temporary file, no rename, the folder not synced), as Java Paimon writes data files. For files with
  // unique names that a commit lists only after syncing their folder (TableWrite::PrepareCommit does).
  bool write_in_place = false;
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
  // Whether AppendColumns takes this file's columns: Tide's encoder, every column flat and of a type
  // with a ColumnVector form.
  bool CanAppendColumns() const { return encoder_ != nullptr && encoder_->CanAppendColumns(); }
  // Adds rows[0..n) of `columns` (one per column, in order): the bytes Append of those rows writes
  // (ParquetFileEncoder::AppendColumns). REQUIRES: CanAppendColumns().
  Status AppendColumns(const std::vector<const ColumnVector*>& columns, const uint32_t* rows, size_t n);

  int64_t row_count() const { return row_count_; }
  const std::string& path() const { return path_; }

  // Writes the file. After Finish (successful or not) the writer accepts nothing more.
  Result<ParquetWriteResult> Finish();

 private:
  ParquetFileWriter() = default;
  static Result<std::unique_ptr<ParquetFileWriter>> CreateThroughDuckDB(const DuckDB& db,
                                                                        std::unique_ptr<ParquetFileWriter> writer);
  Result<ParquetWriteResult> FinishEncoded();
  Status FlushChunk();
  Status NewChunk();
  std::string FieldIdsOption() const;

  std::string path_;
  std::vector<ParquetColumnSpec> columns_;
  ParquetWriteOptions options_;
  std::unique_ptr<ParquetFileEncoder> encoder_;  // Tide's encoder; null on DuckDB's path
  // DuckDB's path:
  std::vector<DuckLogicalType> types_;
  DuckConnection conn_;
  DuckAppender appender_;
  DuckDataChunk chunk_;
  idx_t chunk_rows_ = 0;
  int64_t row_count_ = 0;
  bool finished_ = false;
};

}  // namespace tide
