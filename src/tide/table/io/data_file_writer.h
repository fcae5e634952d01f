// The pieces every data file writer of a Paimon table shares: the physical layout of the table's data
// files (DataFileLayout), the naming of new files (DataFilePathFactory), the DataFileWriter interface
// of one file, and RollingDataFileWriter, which starts a new file whenever the current one reaches the
// target size (Java's RollingFileWriter).
//
// Layouts (PAIMON_FORMAT.md §6.3, §6.4): an append table's files hold exactly the table's columns; a
// primary-key table's files hold `_KEY_<k>` for each trimmed primary-key column (NOT NULL, field id
// 1073741823 + id), `_SEQUENCE_NUMBER` BIGINT NOT NULL (2147483646), `_VALUE_KIND` TINYINT NOT NULL
// (2147483645), then every table column with its own field id.
//
// File names (DataFilePathFactory in Java): `<prefix><uuid>-<n>.parquet` (or `.<compression>.parquet`
// with `file.suffix.include.compression`), one random UUID per factory (one per partition and bucket of a
// writer) and a counter from 0 shared by data and changelog files.
//
// A file appears at its final path only when it is complete and durable (ParquetFileWriter writes a
// temporary file, fsyncs it and renames it without replacing anything). Files are not part of the
// table until a committer references them.
//
// Thread-safety: a DataFileWriteContext is shared read-only by the writers of one TableWrite, which
// uses them from one thread at a time (its FileSizeEstimator is not synchronized). Writers and path
// factories belong to one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_writer.h"
#include "tide/table/io/data_file_stats.h"
#include "tide/table/io/data_file_meta.h"
#include "tide/table/io/key_value.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/table_schema.h"

namespace tide {

// The physical layout of one table's data files, for one schema version.
struct DataFileLayout {
  std::string table_name;
  int64_t schema_id = 0;
  std::vector<DataField> fields;  // the table's columns
  bool primary_key = false;
  std::vector<int> key_indices;      // trimmed primary key: indices into `fields`
  std::vector<DataType> key_types;   // their types, in key order
  std::vector<ParquetColumnSpec> columns;  // physical columns in file order
  std::vector<StatsMode> key_stats_modes;    // per key column
  std::vector<StatsMode> value_stats_modes;  // per table column
  bool stats_dense_store = true;
  ParquetWriteOptions parquet;

  // The layout of `schema`'s data files. InvalidArgument if a primary-key column is missing.
  static Result<DataFileLayout> Create(const TableSchema& schema, const CoreOptions& options,
                                       const std::string& table_name);
  // The number of physical columns before the table columns (keys + 2 for PK files, else 0).
  size_t value_offset() const { return primary_key ? key_indices.size() + 2 : 0; }
};

// Learns how many bytes a finished file takes per byte of raw values, so rolling can predict a file's
// size before it is written (DuckDB writes the whole file at Finish). Starts at 1:1, which makes the
// first files smaller than the target rather than larger.
// Thread-safe: the buckets of one commit may flush in parallel (the two totals are read apart, so a
// ratio may mix one observation's halves: it is an estimate).
class FileSizeEstimator {
 public:
  int64_t Estimate(int64_t raw_bytes) const;
  void Observe(int64_t raw_bytes, int64_t file_bytes);

 private:
  std::atomic<int64_t> raw_total_{0};
  std::atomic<int64_t> file_total_{0};
};

// What the data file writers of one TableWrite share.
struct DataFileWriteContext {
  DataFileLayout layout;
  DuckDB db;  // encodes and writes the Parquet files
  FileSizeEstimator size_estimator;
  // `_CREATION_TIME`: local wall-clock milliseconds, as Java's LocalDateTime.now() stores them.
  std::function<int64_t()> creation_time_ms;
  // Whether files may be written from several threads at once: Tide's own Parquet encoder writes them
  // (the DuckDB fallback shares `db`).
  bool parallel_writes = false;
};

// Local wall-clock time in milliseconds since 1970-01-01 read as if UTC (Java's
// Timestamp.fromLocalDateTime(LocalDateTime.now())).
int64_t LocalWallClockMillis();

// Names the new files of one (partition, bucket).
class DataFilePathFactory {
 public:
  // `bucket_dir` is the folder the files go to; the UUID is random unless given.
  DataFilePathFactory(std::string bucket_dir, const CoreOptions& options, std::string uuid = {});

  const std::string& bucket_dir() const { return bucket_dir_; }
  const std::string& uuid() const { return uuid_; }
  std::string NewDataFileName() { return NewName(data_prefix_); }
  std::string NewChangelogFileName() { return NewName(changelog_prefix_); }

 private:
  std::string NewName(const std::string& prefix) {
    return prefix + uuid_ + "-" + std::to_string(counter_++) + extension_;
  }
  std::string bucket_dir_;
  std::string uuid_;
  std::string data_prefix_, changelog_prefix_, extension_;
  int64_t counter_ = 0;
};

// Writes one data file.
class DataFileWriter {
 public:
  virtual ~DataFileWriter() = default;
  // Adds one record: `row` holds the table's columns (it may be consumed). Primary-key files need the
  // records in ascending key order; append files take +I records only.
  virtual Status Write(Row& row, int64_t sequence, ValueKind kind) = 0;
  // Whether WriteColumns takes records for this file (KeyValueFileWriter::WriteColumns).
  virtual bool CanWriteColumns() const { return false; }
  // Adds records rows[0..n) of column vectors: one per table column, with their sequence numbers
  // (BIGINT) and kinds (TINYINT) at the same indices. NotSupported unless CanWriteColumns().
  virtual Status WriteColumns(const std::vector<const ColumnVector*>& /*columns*/, const ColumnVector& /*sequences*/,
                              const ColumnVector& /*kinds*/, const uint32_t* /*rows*/, size_t /*n*/) {
    return Status::NotSupported("data file {} takes records as rows only", path());
  }
  virtual int64_t row_count() const = 0;
  // The predicted size of the file if it were finished now.
  virtual int64_t EstimatedFileSize() const = 0;
  // Writes the file durably and returns its metadata. REQUIRES: row_count() > 0.
  virtual Result<DataFileMeta> Finish() = 0;
  virtual const std::string& path() const = 0;
};

// Writes a stream of records into as many files as the target size needs: after every 1000 records
// (Java's CHECK_ROLLING_RECORD_CNT) it finishes the current file once its estimated size reaches
// `target_file_size`.
class RollingDataFileWriter {
 public:
  using Factory = std::function<Result<std::unique_ptr<DataFileWriter>>()>;
  RollingDataFileWriter(Factory factory, int64_t target_file_size, FileSystem* fs)
      : factory_(std::move(factory)), target_file_size_(target_file_size), fs_(fs) {}
  ~RollingDataFileWriter();
  RollingDataFileWriter(const RollingDataFileWriter&) = delete;
  RollingDataFileWriter& operator=(const RollingDataFileWriter&) = delete;

  Status Write(Row& row, int64_t sequence, ValueKind kind);
  // The same for records rows[0..n) of column vectors (DataFileWriter::WriteColumns), rolling at the
  // same records as Write would. NotSupported when the factory's files take rows only.
  Status WriteColumns(const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                      const ColumnVector& kinds, const uint32_t* rows, size_t n);
  // Finishes the current file and returns the metadata of every file written, in order.
  Result<std::vector<DataFileMeta>> Finish();
  // Deletes every file finished so far (after an error, so nothing unreferenced stays behind).
  void Abort();

 private:
  Status CloseCurrent();

  Factory factory_;
  int64_t target_file_size_;
  FileSystem* fs_;
  std::unique_ptr<DataFileWriter> current_;
  std::vector<DataFileMeta> results_;
  std::vector<std::string> result_paths_;
  bool finished_ = false;
};

// The raw (uncompressed) bytes a value takes in a data file, for the size estimate.
int64_t RawValueBytes(const Datum& value);

}  // namespace tide
