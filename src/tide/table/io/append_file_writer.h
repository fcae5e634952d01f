// AppendFileWriter: writes one data file of an append (no primary key) table and produces its
// DataFileMeta, as Java's RowDataRollingFileWriter / DataFileMeta.forAppend do.
//
// The file holds exactly the table's columns in insertion order. Metadata: row count, empty keys
// (`_MIN_KEY`/`_MAX_KEY` the arity-0 row) and empty key statistics, value statistics (the table's stats
// modes; dense store), min/max sequence number of its records (numbers that exist only in the
// metadata), `_DELETE_ROW_COUNT` 0, the schema id, level 0, no extra files, the creation time (local
// wall clock), the file source (APPEND for files written from new rows, COMPACT for a compaction's output,
// as Java's AppendOnlyWriter and its compactor record them).
//
// Nothing exists at the file's path until Finish() succeeds. Thread-safety: one thread at a time.
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

class AppendFileWriter final : public DataFileWriter {
 public:
  // REQUIRES: !context->layout.primary_key; `context` outlives the writer.
  static Result<std::unique_ptr<AppendFileWriter>> Create(DataFileWriteContext* context, std::string path,
                                                          FileSource source = FileSource::kAppend);

  // Adds a record (its values are consumed). Only +I and +U records belong in an append table
  // (InvalidArgument otherwise, as Java's AppendOnlyWriter refuses them).
  Status Write(Row& row, int64_t sequence, ValueKind kind) override;
  int64_t row_count() const override { return row_count_; }
  int64_t EstimatedFileSize() const override;
  Result<DataFileMeta> Finish() override;
  const std::string& path() const override { return path_; }

 private:
  AppendFileWriter() = default;

  DataFileWriteContext* context_ = nullptr;
  std::string path_;
  FileSource source_ = FileSource::kAppend;
  std::unique_ptr<ParquetFileWriter> parquet_;
  std::vector<ColumnStatsCollector> value_stats_;
  int64_t row_count_ = 0;
  int64_t raw_bytes_ = 0;
  int64_t min_sequence_ = 0;
  int64_t max_sequence_ = 0;
};

// The `_MIN_KEY`/`_MAX_KEY` and key statistics of files without keys: the serialized arity-0 row and
// empty statistics with an empty null-count array (Java's EMPTY_MIN_KEY, EMPTY_STATS).
std::string EmptyKeyRow();
SimpleStats EmptyKeyStats();

}  // namespace tide
