#include "tide/table/io/data_file_writer.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "tide/base/strings.h"
#include "tide/base/uuid.h"

namespace tide {

namespace {
constexpr int64_t kPrimaryKeyRowGroupRows = 16384;
}  // namespace

Result<DataFileLayout> DataFileLayout::Create(const TableSchema& schema, const CoreOptions& options,
                                              const std::string& table_name) {
  DataFileLayout layout;
  layout.table_name = table_name;
  layout.schema_id = schema.id;
  layout.fields = schema.fields;
  layout.primary_key = schema.HasPrimaryKey();
  if (layout.primary_key) {
    for (const std::string& name : schema.TrimmedPrimaryKeys()) {
      int idx = schema.FieldIndex(name);
      if (idx < 0) {
        return Status::InvalidArgument("table {}: primary-key column '{}' is not a column of the table", table_name,
                                       name);
      }
      const DataField& field = schema.fields[static_cast<size_t>(idx)];
      layout.key_indices.push_back(idx);
      layout.key_types.push_back(field.type.WithNullable(false));
      layout.columns.push_back(
          ParquetColumnSpec{"_KEY_" + field.name, kKeyFieldIdStart + field.id, field.type.WithNullable(false)});
    }
    if (layout.key_indices.empty()) {
      return Status::InvalidArgument(
          "table {}: the primary key consists of partition columns only; Paimon needs at least one primary-key "
          "column that is not a partition column",
          table_name);
    }
    layout.columns.push_back(ParquetColumnSpec{"_SEQUENCE_NUMBER", kSequenceNumberFieldId, DataType::BigInt(false)});
    layout.columns.push_back(ParquetColumnSpec{"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt(false)});
  }
  for (ParquetColumnSpec& c : ParquetColumnsFor(schema.fields)) layout.columns.push_back(std::move(c));

  std::vector<std::string> names;
  for (const auto& c : layout.columns) names.push_back(c.name);
  TIDE_ASSIGN_OR_RETURN(std::vector<StatsMode> modes, StatsModesFor(schema, names, table_name));
  size_t k = layout.key_indices.size();
  layout.key_stats_modes.assign(modes.begin(), modes.begin() + static_cast<std::ptrdiff_t>(k));
  layout.value_stats_modes.assign(modes.begin() + static_cast<std::ptrdiff_t>(layout.value_offset()), modes.end());

  layout.stats_dense_store = options.metadata_stats_dense_store();
  layout.parquet.compression = options.file_compression();
  layout.parquet.compression_level = options.file_compression_zstd_level();
  layout.parquet.write_field_ids = true;
  // Data files have unique names and are listed only by a commit, which syncs their folders first.
  layout.parquet.write_in_place = true;
  // Primary-key files are read by key: a point lookup decodes the whole row group that may hold the key
  // (DuckDB's Parquet reader skips row groups by statistics, not pages), so smaller groups make lookups
  // several times cheaper; full scans measured the same (bench/table_scan_bench). Row group sizes are
  // a writer's choice that every Parquet reader, Java's included, accepts.
  if (layout.primary_key) layout.parquet.row_group_rows = kPrimaryKeyRowGroupRows;
  // Paimon's `parquet.block.size` (a Parquet writer option Java passes through): the bytes a row group
  // holds at most.
  auto block_size = schema.options.find("parquet.block.size");
  if (block_size != schema.options.end()) {
    TIDE_ASSIGN_OR_RETURN(int64_t bytes, ParseMemorySize(block_size->second, "parquet.block.size"));
    if (bytes <= 0) {
      return Status::InvalidArgument("table {}: parquet.block.size must be positive, not '{}'", table_name,
                                     block_size->second);
    }
    layout.parquet.row_group_bytes = bytes;
  }
  return layout;
}

int64_t FileSizeEstimator::Estimate(int64_t raw_bytes) const {
  const int64_t raw_total = raw_total_.load(std::memory_order_relaxed);
  const int64_t file_total = file_total_.load(std::memory_order_relaxed);
  if (raw_total <= 0 || file_total <= 0) return raw_bytes;
  double ratio = static_cast<double>(file_total) / static_cast<double>(raw_total);
  ratio = std::clamp(ratio, 0.01, 1.0);
  return static_cast<int64_t>(static_cast<double>(raw_bytes) * ratio);
}

void FileSizeEstimator::Observe(int64_t raw_bytes, int64_t file_bytes) {
  if (raw_bytes <= 0 || file_bytes <= 0) return;
  raw_total_.fetch_add(raw_bytes, std::memory_order_relaxed);
  file_total_.fetch_add(file_bytes, std::memory_order_relaxed);
}

int64_t LocalWallClockMillis() {
  auto now = std::chrono::system_clock::now();
  int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm local;
  if (localtime_r(&seconds, &local) == nullptr) return ms;
  return ms + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

DataFilePathFactory::DataFilePathFactory(std::string bucket_dir, const CoreOptions& options, std::string uuid)
    : bucket_dir_(std::move(bucket_dir)),
      uuid_(uuid.empty() ? RandomUuidString() : std::move(uuid)),
      data_prefix_(options.data_file_prefix()),
      changelog_prefix_(options.changelog_file_prefix()) {
  std::string compression = options.file_compression() == "uncompressed" ? "none" : options.file_compression();
  extension_ = options.file_suffix_include_compression() ? "." + compression + ".parquet" : ".parquet";
}

int64_t RawValueBytes(const Datum& value) {
  switch (value.storage().index()) {
    case 0: return 0;
    case 1: return 1;
    case 7: return static_cast<int64_t>(value.as_string().size()) + 4;
    case 8: {
      int64_t n = 4;
      for (const Datum& item : value.as_nested()) n += RawValueBytes(item);
      return n;
    }
    case 5: return 16;
    case 6: return 12;
    default: return 8;
  }
}

RollingDataFileWriter::~RollingDataFileWriter() = default;

Status RollingDataFileWriter::Write(Row& row, int64_t sequence, ValueKind kind) {
  if (finished_) return Status::Internal("rolling data file writer used after Finish");
  if (!current_) {
    TIDE_ASSIGN_OR_RETURN(current_, factory_());
  }
  TIDE_RETURN_IF_ERROR(current_->Write(row, sequence, kind));
  if (current_->row_count() % 1000 == 0 && current_->EstimatedFileSize() >= target_file_size_) {
    TIDE_RETURN_IF_ERROR(CloseCurrent());
  }
  return Status::OK();
}

Status RollingDataFileWriter::WriteColumns(const std::vector<const ColumnVector*>& columns,
                                           const ColumnVector& sequences, const ColumnVector& kinds,
                                           const uint32_t* rows, size_t n) {
  if (finished_) return Status::Internal("rolling data file writer used after Finish");
  size_t done = 0;
  while (done < n) {
    if (!current_) {
      TIDE_ASSIGN_OR_RETURN(current_, factory_());
    }
    // Up to the file's next multiple of 1000 records, where Write checks the size.
    const size_t room = 1000 - static_cast<size_t>(current_->row_count() % 1000);
    const size_t step = std::min(n - done, room);
    TIDE_RETURN_IF_ERROR(current_->WriteColumns(columns, sequences, kinds, rows + done, step));
    done += step;
    if (current_->row_count() % 1000 == 0 && current_->EstimatedFileSize() >= target_file_size_) {
      TIDE_RETURN_IF_ERROR(CloseCurrent());
    }
  }
  return Status::OK();
}

Status RollingDataFileWriter::CloseCurrent() {
  if (!current_) return Status::OK();
  std::unique_ptr<DataFileWriter> writer = std::move(current_);
  if (writer->row_count() == 0) return Status::OK();
  std::string path = writer->path();
  TIDE_ASSIGN_OR_RETURN(DataFileMeta meta, writer->Finish());
  results_.push_back(std::move(meta));
  result_paths_.push_back(std::move(path));
  return Status::OK();
}

Result<std::vector<DataFileMeta>> RollingDataFileWriter::Finish() {
  if (finished_) return Status::Internal("rolling data file writer finished twice");
  TIDE_RETURN_IF_ERROR(CloseCurrent());
  finished_ = true;
  result_paths_.clear();
  return std::move(results_);
}

void RollingDataFileWriter::Abort() {
  current_.reset();  // nothing of an unfinished file exists at its path
  for (const std::string& path : result_paths_) fs_->DeleteFile(path).IgnoreError();
  result_paths_.clear();
  results_.clear();
  finished_ = true;
}

}  // namespace tide
