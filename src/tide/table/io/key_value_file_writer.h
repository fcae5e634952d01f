// KeyValueFileWriter: writes one data file of a primary-key table (a level-0 file when flushed from a
// write buffer, or a changelog file) and produces its complete DataFileMeta, as Java's
// KeyValueDataFileWriterImpl does.
//
// Physical columns: `_KEY_<k>` for each trimmed primary-key column, `_SEQUENCE_NUMBER`, `_VALUE_KIND`,
// then all table columns (DataFileLayout). Metadata: row count (retract rows included), `_MIN_KEY` and
// `_MAX_KEY` = the first and last key written (so records must come in ascending key order, as a sorted
// write buffer yields them; nothing checks it, as in Java), key statistics (truncate(128), all columns),
// value statistics (the table's stats modes; dense store), min/max sequence number over all records,
// `_DELETE_ROW_COUNT` = the -U and -D records, the schema id, the level, no extra files, the creation
// time (local wall clock), the file source, `_VALUE_STATS_COLS` (null unless stats modes drop columns).
//
// Nothing exists at the file's path until Finish() succeeds; an abandoned writer leaves nothing behind.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/parquet_writer.h"
#include "tide/table/io/data_file_stats.h"
#include "tide/table/io/data_file_writer.h"

namespace tide {

class KeyValueFileWriter final : public DataFileWriter {
 public:
  // A writer of the primary-key file at `path` (the bucket folder joined with the file name).
  // REQUIRES: context->layout.primary_key; `context` outlives the writer.
  static Result<std::unique_ptr<KeyValueFileWriter>> Create(DataFileWriteContext* context, std::string path,
                                                            int32_t level = 0,
                                                            FileSource source = FileSource::kAppend);

  // Adds a record; its table columns are moved out of `row`. InvalidArgument if `row` does not have one
  // value per table column or a value does not fit its column.
  Status Write(Row& row, int64_t sequence, ValueKind kind) override;
  // Whether WriteColumns takes this file (ParquetFileWriter::CanAppendColumns).
  bool CanWriteColumns() const override { return parquet_->CanAppendColumns(); }
  // Adds records rows[0..n) of `columns` (one ColumnVector per table column), with their sequence
  // numbers and kinds in `sequences` (BIGINT) and `kinds` (TINYINT) at the same row indices, in ascending
  // key order: the file and the DataFileMeta that Write of the same records in the same order makes.
  // REQUIRES: CanWriteColumns().
  Status WriteColumns(const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                      const ColumnVector& kinds, const uint32_t* rows, size_t n) override;
  int64_t row_count() const override { return row_count_; }
  int64_t EstimatedFileSize() const override;
  Result<DataFileMeta> Finish() override;
  const std::string& path() const override { return path_; }

 private:
  KeyValueFileWriter() = default;

  DataFileWriteContext* context_ = nullptr;
  std::string path_;
  int32_t level_ = 0;
  FileSource source_ = FileSource::kAppend;
  std::unique_ptr<ParquetFileWriter> parquet_;
  std::vector<ColumnStatsCollector> key_stats_;
  std::vector<ColumnStatsCollector> value_stats_;
  Row physical_;   // the physical row being written; after a write it still holds the last key
  Row first_key_;
  int64_t row_count_ = 0;
  int64_t raw_bytes_ = 0;
  int64_t min_sequence_ = 0;
  int64_t max_sequence_ = 0;
  int64_t delete_row_count_ = 0;
};

}  // namespace tide
