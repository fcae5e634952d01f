#include "tide/table/io/append_file_writer.h"

#include <algorithm>

#include "tide/codec/binary_row.h"

namespace tide {

std::string EmptyKeyRow() { return SerializeBinaryRow(std::string(8, '\0'), 0); }

SimpleStats EmptyKeyStats() {
  SimpleStats stats;
  stats.min_values = EmptyKeyRow();
  stats.max_values = EmptyKeyRow();
  stats.null_counts_present = true;
  return stats;
}

Result<std::unique_ptr<AppendFileWriter>> AppendFileWriter::Create(DataFileWriteContext* context, std::string path,
                                                                  FileSource source) {
  const DataFileLayout& layout = context->layout;
  if (layout.primary_key) {
    return Status::Internal("table {}: an append file writer was asked for a primary-key table", layout.table_name);
  }
  std::unique_ptr<AppendFileWriter> writer(new AppendFileWriter());
  writer->context_ = context;
  writer->path_ = std::move(path);
  writer->source_ = source;
  TIDE_ASSIGN_OR_RETURN(writer->parquet_,
                        ParquetFileWriter::Create(context->db, writer->path_, layout.columns, layout.parquet));
  for (size_t i = 0; i < layout.fields.size(); ++i) {
    writer->value_stats_.emplace_back(layout.fields[i].type, layout.value_stats_modes[i]);
  }
  return writer;
}

Status AppendFileWriter::Write(Row& row, int64_t sequence, ValueKind kind) {
  const DataFileLayout& layout = context_->layout;
  if (kind != ValueKind::kInsert && kind != ValueKind::kUpdateAfter) {
    return Status::InvalidArgument(
        "table {} is an append table (no primary key): it takes INSERT and UPDATE_AFTER rows only, not {}",
        layout.table_name, kind == ValueKind::kDelete ? "DELETE" : "UPDATE_BEFORE");
  }
  if (row.size() != layout.fields.size()) {
    return Status::InvalidArgument("table {}: a row has {} values but the table has {} columns", layout.table_name,
                                   row.size(), layout.fields.size());
  }
  for (size_t i = 0; i < row.size(); ++i) {
    value_stats_[i].Add(row[i]);
    raw_bytes_ += RawValueBytes(row[i]);
  }
  Status appended = parquet_->Append(row);
  if (!appended.ok()) return appended.WithContext("table " + layout.table_name);
  if (row_count_ == 0) {
    min_sequence_ = max_sequence_ = sequence;
  } else {
    min_sequence_ = std::min(min_sequence_, sequence);
    max_sequence_ = std::max(max_sequence_, sequence);
  }
  ++row_count_;
  return Status::OK();
}

int64_t AppendFileWriter::EstimatedFileSize() const { return context_->size_estimator.Estimate(raw_bytes_); }

Result<DataFileMeta> AppendFileWriter::Finish() {
  const DataFileLayout& layout = context_->layout;
  if (row_count_ == 0) return Status::Internal("table {}: data file {} would be empty", layout.table_name, path_);
  DataFileMeta meta;
  std::vector<ColumnStats> value_stats;
  for (const auto& c : value_stats_) value_stats.push_back(c.Finish());
  TIDE_ASSIGN_OR_RETURN(EncodedValueStats values, EncodeValueStats(value_stats, layout.fields, layout.stats_dense_store));

  auto written = parquet_->Finish();
  if (!written.ok()) return written.status().WithContext("table " + layout.table_name);
  context_->size_estimator.Observe(raw_bytes_, written->file_size);

  meta.file_name = std::string(BaseName(path_));
  meta.file_size = written->file_size;
  meta.row_count = row_count_;
  meta.min_key = EmptyKeyRow();
  meta.max_key = EmptyKeyRow();
  meta.key_stats = EmptyKeyStats();
  meta.value_stats = std::move(values.stats);
  meta.value_stats_cols = std::move(values.columns);
  meta.min_sequence_number = min_sequence_;
  meta.max_sequence_number = max_sequence_;
  meta.schema_id = layout.schema_id;
  meta.level = 0;
  meta.creation_time_ms = context_->creation_time_ms ? context_->creation_time_ms() : LocalWallClockMillis();
  meta.delete_row_count = 0;
  meta.file_source = static_cast<int32_t>(source_);
  return meta;
}

}  // namespace tide
