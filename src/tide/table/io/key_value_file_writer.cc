#include "tide/table/io/key_value_file_writer.h"

#include <algorithm>

#include "tide/codec/binary_row.h"

namespace tide {

Result<std::unique_ptr<KeyValueFileWriter>> KeyValueFileWriter::Create(DataFileWriteContext* context, std::string path,
                                                                       int32_t level, FileSource source) {
  const DataFileLayout& layout = context->layout;
  if (!layout.primary_key) {
    return Status::Internal("table {}: a key-value file writer was asked for an append table", layout.table_name);
  }
  std::unique_ptr<KeyValueFileWriter> writer(new KeyValueFileWriter());
  writer->context_ = context;
  writer->path_ = std::move(path);
  writer->level_ = level;
  writer->source_ = source;
  TIDE_ASSIGN_OR_RETURN(writer->parquet_,
                        ParquetFileWriter::Create(context->db, writer->path_, layout.columns, layout.parquet));
  for (size_t k = 0; k < layout.key_indices.size(); ++k) {
    writer->key_stats_.emplace_back(layout.key_types[k], layout.key_stats_modes[k]);
  }
  for (size_t i = 0; i < layout.fields.size(); ++i) {
    writer->value_stats_.emplace_back(layout.fields[i].type, layout.value_stats_modes[i]);
  }
  writer->physical_.resize(layout.columns.size());
  return writer;
}

Status KeyValueFileWriter::Write(Row& row, int64_t sequence, ValueKind kind) {
  const DataFileLayout& layout = context_->layout;
  if (row.size() != layout.fields.size()) {
    return Status::InvalidArgument("table {}: a row has {} values but the table has {} columns", layout.table_name,
                                   row.size(), layout.fields.size());
  }
  const size_t keys = layout.key_indices.size();
  for (size_t k = 0; k < keys; ++k) {
    const Datum& key = row[static_cast<size_t>(layout.key_indices[k])];
    if (key.is_null()) {
      return Status::InvalidArgument("table {}: primary-key column '{}' is NULL in data file {}", layout.table_name,
                                     layout.fields[static_cast<size_t>(layout.key_indices[k])].name, path_);
    }
    physical_[k] = key;
    key_stats_[k].Add(key);
    raw_bytes_ += RawValueBytes(key);
  }
  physical_[keys] = Datum(sequence);
  physical_[keys + 1] = Datum(static_cast<int64_t>(kind));
  raw_bytes_ += 9;
  const size_t offset = keys + 2;
  for (size_t i = 0; i < row.size(); ++i) {
    value_stats_[i].Add(row[i]);
    raw_bytes_ += RawValueBytes(row[i]);
    physical_[offset + i] = std::move(row[i]);
  }
  Status appended = parquet_->Append(physical_);
  if (!appended.ok()) return appended.WithContext("table " + layout.table_name);
  if (row_count_ == 0) {
    first_key_.assign(physical_.begin(), physical_.begin() + static_cast<std::ptrdiff_t>(keys));
    min_sequence_ = max_sequence_ = sequence;
  } else {
    min_sequence_ = std::min(min_sequence_, sequence);
    max_sequence_ = std::max(max_sequence_, sequence);
  }
  if (IsRetract(kind)) ++delete_row_count_;
  ++row_count_;
  return Status::OK();
}

Status KeyValueFileWriter::WriteColumns(const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                                        const ColumnVector& kinds, const uint32_t* rows, size_t n) {
  const DataFileLayout& layout = context_->layout;
  if (columns.size() != layout.fields.size()) {
    return Status::InvalidArgument("table {}: {} column vectors but the table has {} columns", layout.table_name,
                                   columns.size(), layout.fields.size());
  }
  if (n == 0) return Status::OK();
  const size_t keys = layout.key_indices.size();
  std::vector<const ColumnVector*> physical;
  physical.reserve(layout.columns.size());
  for (size_t k = 0; k < keys; ++k) {
    const ColumnVector& key = *columns[static_cast<size_t>(layout.key_indices[k])];
    if (key.has_nulls()) {
      for (size_t i = 0; i < n; ++i) {
        if (key.IsNull(rows[i])) {
          return Status::InvalidArgument("table {}: primary-key column '{}' is NULL in data file {}", layout.table_name,
                                         layout.fields[static_cast<size_t>(layout.key_indices[k])].name, path_);
        }
      }
    }
    physical.push_back(&key);
  }
  physical.push_back(&sequences);
  physical.push_back(&kinds);
  for (const ColumnVector* c : columns) physical.push_back(c);
  Status appended = parquet_->AppendColumns(physical, rows, n);
  if (!appended.ok()) return appended.WithContext("table " + layout.table_name);

  for (size_t k = 0; k < keys; ++k) key_stats_[k].AddColumn(*physical[k], rows, n);
  for (size_t c = 0; c < columns.size(); ++c) value_stats_[c].AddColumn(*columns[c], rows, n);
  // Raw bytes as Write counts them (RawValueBytes): the size estimate of the rolling writer.
  auto raw_bytes = [&](const ColumnVector& column) {
    const DataType& type = column.type();
    int64_t per_value = 8;
    switch (type.root()) {
      case TypeRoot::kBoolean: per_value = 1; break;
      case TypeRoot::kDecimal: per_value = 16; break;
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: per_value = 12; break;
      default: break;
    }
    int64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t r = rows[i];
      if (column.IsNull(r)) continue;
      total += column.kind() == ColumnVector::Kind::kBytes ? static_cast<int64_t>(column.Bytes(r).size()) + 4 : per_value;
    }
    return total;
  };
  for (size_t k = 0; k < keys; ++k) raw_bytes_ += raw_bytes(*physical[k]);
  raw_bytes_ += 9 * static_cast<int64_t>(n);
  for (const ColumnVector* c : columns) raw_bytes_ += raw_bytes(*c);

  for (size_t i = 0; i < n; ++i) {
    const int64_t sequence = sequences.Int64(rows[i]);
    if (row_count_ == 0 && i == 0) {
      min_sequence_ = max_sequence_ = sequence;
    } else {
      min_sequence_ = std::min(min_sequence_, sequence);
      max_sequence_ = std::max(max_sequence_, sequence);
    }
    if (IsRetract(static_cast<ValueKind>(kinds.Int64(rows[i])))) ++delete_row_count_;
  }
  if (row_count_ == 0) {
    first_key_.clear();
    for (size_t k = 0; k < keys; ++k) first_key_.push_back(physical[k]->GetDatum(rows[0]));
  }
  // physical_ holds the last key, as after Write.
  for (size_t k = 0; k < keys; ++k) physical_[k] = physical[k]->GetDatum(rows[n - 1]);
  row_count_ += static_cast<int64_t>(n);
  return Status::OK();
}

int64_t KeyValueFileWriter::EstimatedFileSize() const { return context_->size_estimator.Estimate(raw_bytes_); }

Result<DataFileMeta> KeyValueFileWriter::Finish() {
  const DataFileLayout& layout = context_->layout;
  if (row_count_ == 0) return Status::Internal("table {}: data file {} would be empty", layout.table_name, path_);
  const size_t keys = layout.key_indices.size();
  DataFileMeta meta;
  std::vector<Datum> last_key(physical_.begin(), physical_.begin() + static_cast<std::ptrdiff_t>(keys));
  TIDE_ASSIGN_OR_RETURN(meta.min_key, EncodeSerializedBinaryRow(first_key_, layout.key_types));
  TIDE_ASSIGN_OR_RETURN(meta.max_key, EncodeSerializedBinaryRow(last_key, layout.key_types));
  std::vector<ColumnStats> key_stats, value_stats;
  for (const auto& c : key_stats_) key_stats.push_back(c.Finish());
  for (const auto& c : value_stats_) value_stats.push_back(c.Finish());
  TIDE_ASSIGN_OR_RETURN(meta.key_stats, EncodeStatsAllMode(key_stats, layout.key_types));
  TIDE_ASSIGN_OR_RETURN(EncodedValueStats values, EncodeValueStats(value_stats, layout.fields, layout.stats_dense_store));
  meta.value_stats = std::move(values.stats);
  meta.value_stats_cols = std::move(values.columns);

  auto written = parquet_->Finish();
  if (!written.ok()) return written.status().WithContext("table " + layout.table_name);
  context_->size_estimator.Observe(raw_bytes_, written->file_size);

  meta.file_name = std::string(BaseName(path_));
  meta.file_size = written->file_size;
  meta.row_count = row_count_;
  meta.min_sequence_number = min_sequence_;
  meta.max_sequence_number = max_sequence_;
  meta.schema_id = layout.schema_id;
  meta.level = level_;
  meta.creation_time_ms = context_->creation_time_ms ? context_->creation_time_ms() : LocalWallClockMillis();
  meta.delete_row_count = delete_row_count_;
  meta.file_source = static_cast<int32_t>(source_);
  return meta;
}

}  // namespace tide
