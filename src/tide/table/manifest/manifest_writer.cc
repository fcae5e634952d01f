#include "tide/table/manifest/manifest_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "tide/codec/binary_row.h"
#include "tide/io/unique_file.h"

namespace tide {

const std::string_view kManifestEntryAvroSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},)"
    R"({"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},)"
    R"({"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[)"
    R"({"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},)"
    R"({"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},)"
    R"({"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[)"
    R"({"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},)"
    R"({"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[)"
    R"({"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},)"
    R"({"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},)"
    R"({"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},)"
    R"({"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},)"
    R"({"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
    R"({"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},)"
    R"({"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},)"
    R"({"name":"_FILE_SOURCE","type":["null","int"],"default":null},)"
    R"({"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},)"
    R"({"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}]}}]})";

const std::string_view kManifestFileMetaAvroSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},)"
    R"({"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},)"
    R"({"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[)"
    R"({"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},)"
    R"({"name":"_SCHEMA_ID","type":"long"},{"name":"_MIN_BUCKET","type":["null","int"],"default":null},)"
    R"({"name":"_MAX_BUCKET","type":["null","int"],"default":null},{"name":"_MIN_LEVEL","type":["null","int"],"default":null},)"
    R"({"name":"_MAX_LEVEL","type":["null","int"],"default":null}]})";

const std::string_view kIndexManifestEntryAvroSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},)"
    R"({"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},)"
    R"({"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},)"
    R"({"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",)"
    R"({"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[)"
    R"({"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},)"
    R"({"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null}]})";

namespace {

// The `_VERSION` of each record kind (ManifestEntrySerializer 2, ManifestFileMetaSerializer 2,
// IndexManifestEntrySerializer 1).
constexpr int32_t kManifestEntryVersion = 2;
constexpr int32_t kManifestFileMetaVersion = 2;
constexpr int32_t kIndexManifestEntryVersion = 1;

// Java checks the rolling size every 1000 records (RollingFileWriter.CHECK_ROLLING_RECORD_CNT).
constexpr int64_t kCheckRollingRecordCount = 1000;

AvroValue OptionalLong(const std::optional<int64_t>& v) { return v ? AvroValue::Long(*v) : AvroValue::Null(); }
AvroValue OptionalInt(const std::optional<int32_t>& v) { return v ? AvroValue::Int(*v) : AvroValue::Null(); }

AvroValue StringArray(const std::vector<std::string>& items) {
  std::vector<AvroValue> out;
  out.reserve(items.size());
  for (const auto& s : items) out.push_back(AvroValue::String(s));
  return AvroValue::Array(std::move(out));
}

AvroValue StatsToAvro(const SimpleStats& stats) {
  AvroValue nulls;
  if (stats.null_counts_present || !stats.null_counts.empty()) {
    std::vector<AvroValue> counts;
    counts.reserve(stats.null_counts.size());
    for (const auto& n : stats.null_counts) counts.push_back(OptionalLong(n));
    nulls = AvroValue::Array(std::move(counts));
  }
  return AvroValue::Record(
      {AvroValue::Bytes(stats.min_values), AvroValue::Bytes(stats.max_values), std::move(nulls)});
}

Result<AvroValue> DataFileMetaToAvro(const DataFileMeta& f) {
  if (f.first_row_id) {
    return Status::InvalidArgument(
        "data file {} has _FIRST_ROW_ID (row tracking), which the Paimon 1.2 manifest layout Tide writes "
        "cannot hold; row-tracking tables are not supported for writing",
        f.file_name);
  }
  if (f.write_cols) {
    return Status::InvalidArgument(
        "data file {} has _WRITE_COLS (data evolution), which the Paimon 1.2 manifest layout Tide writes "
        "cannot hold; data-evolution tables are not supported for writing",
        f.file_name);
  }
  std::vector<AvroValue> fields;
  fields.reserve(18);
  fields.push_back(AvroValue::String(f.file_name));
  fields.push_back(AvroValue::Long(f.file_size));
  fields.push_back(AvroValue::Long(f.row_count));
  fields.push_back(AvroValue::Bytes(f.min_key));
  fields.push_back(AvroValue::Bytes(f.max_key));
  fields.push_back(StatsToAvro(f.key_stats));
  fields.push_back(StatsToAvro(f.value_stats));
  fields.push_back(AvroValue::Long(f.min_sequence_number));
  fields.push_back(AvroValue::Long(f.max_sequence_number));
  fields.push_back(AvroValue::Long(f.schema_id));
  fields.push_back(AvroValue::Int(f.level));
  fields.push_back(StringArray(f.extra_files));
  fields.push_back(OptionalLong(f.creation_time_ms));
  fields.push_back(OptionalLong(f.delete_row_count));
  fields.push_back(f.embedded_file_index ? AvroValue::Bytes(*f.embedded_file_index) : AvroValue::Null());
  fields.push_back(OptionalInt(f.file_source));
  fields.push_back(f.value_stats_cols ? StringArray(*f.value_stats_cols) : AvroValue::Null());
  fields.push_back(f.external_path ? AvroValue::String(*f.external_path) : AvroValue::Null());
  return AvroValue::Record(std::move(fields));
}

Status CheckKind(FileKind kind, std::string_view file) {
  if (kind != FileKind::kAdd && kind != FileKind::kDelete) {
    return Status::InvalidArgument("entry of file {} has unknown kind {}", file, static_cast<int32_t>(kind));
  }
  return Status::OK();
}

template <typename T, typename F>
Result<std::string> EncodeAll(std::string_view schema, const std::vector<T>& records, const AvroWriterOptions& options,
                              F to_avro) {
  TIDE_ASSIGN_OR_RETURN(auto writer, AvroWriter::Create(schema, options));
  for (const auto& r : records) {
    TIDE_ASSIGN_OR_RETURN(AvroValue v, to_avro(r));
    TIDE_RETURN_IF_ERROR(writer->Append(v));
  }
  return writer->Finish();
}

// Java's Float.compare / Double.compare: -0.0 < 0.0, NaN equal to itself and above everything.
template <typename T, typename Bits>
int JavaFloatingCompare(T a, T b) {
  if (a < b) return -1;
  if (a > b) return 1;
  auto bits = [](T v) -> Bits {
    if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
    return static_cast<Bits>(std::bit_cast<std::make_unsigned_t<Bits>>(v));
  };
  Bits x = bits(a), y = bits(b);
  return x == y ? 0 : (x < y ? -1 : 1);
}

}  // namespace

Result<AvroValue> ManifestEntryToAvro(const ManifestEntry& e) {
  TIDE_RETURN_IF_ERROR(CheckKind(e.kind, e.file.file_name));
  TIDE_ASSIGN_OR_RETURN(AvroValue file, DataFileMetaToAvro(e.file));
  return AvroValue::Record({AvroValue::Int(kManifestEntryVersion), AvroValue::Int(static_cast<int32_t>(e.kind)),
                            AvroValue::Bytes(e.partition), AvroValue::Int(e.bucket), AvroValue::Int(e.total_buckets),
                            std::move(file)});
}

Result<AvroValue> ManifestFileMetaToAvro(const ManifestFileMeta& m) {
  if (m.min_row_id || m.max_row_id) {
    return Status::InvalidArgument(
        "manifest {} has a row-id range (row tracking), which the Paimon 1.2 manifest-list layout Tide writes "
        "cannot hold; row-tracking tables are not supported for writing",
        m.file_name);
  }
  return AvroValue::Record({AvroValue::Int(kManifestFileMetaVersion), AvroValue::String(m.file_name),
                            AvroValue::Long(m.file_size), AvroValue::Long(m.num_added_files),
                            AvroValue::Long(m.num_deleted_files), StatsToAvro(m.partition_stats),
                            AvroValue::Long(m.schema_id), OptionalInt(m.min_bucket), OptionalInt(m.max_bucket),
                            OptionalInt(m.min_level), OptionalInt(m.max_level)});
}

Result<AvroValue> IndexManifestEntryToAvro(const IndexManifestEntry& e) {
  TIDE_RETURN_IF_ERROR(CheckKind(e.kind, e.file_name));
  if (e.external_path) {
    return Status::InvalidArgument(
        "index file {} has an external path, which the Paimon 1.2 index-manifest layout Tide writes cannot hold",
        e.file_name);
  }
  if (e.has_global_index) {
    return Status::InvalidArgument("index file {} is a global index, which Tide does not write", e.file_name);
  }
  AvroValue ranges;
  if (e.deletion_vectors) {
    std::vector<AvroValue> items;
    items.reserve(e.deletion_vectors->size());
    for (const auto& dv : *e.deletion_vectors) {
      items.push_back(AvroValue::Record({AvroValue::String(dv.data_file_name), AvroValue::Int(dv.offset),
                                         AvroValue::Int(dv.length), OptionalLong(dv.cardinality)}));
    }
    ranges = AvroValue::Array(std::move(items));
  }
  return AvroValue::Record({AvroValue::Int(kIndexManifestEntryVersion), AvroValue::Int(static_cast<int32_t>(e.kind)),
                            AvroValue::Bytes(e.partition), AvroValue::Int(e.bucket), AvroValue::String(e.index_type),
                            AvroValue::String(e.file_name), AvroValue::Long(e.file_size),
                            AvroValue::Long(e.row_count), std::move(ranges)});
}

Result<std::string> EncodeManifestFile(const std::vector<ManifestEntry>& entries, const AvroWriterOptions& options) {
  return EncodeAll(kManifestEntryAvroSchema, entries, options, ManifestEntryToAvro);
}

Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas, const AvroWriterOptions& options) {
  return EncodeAll(kManifestFileMetaAvroSchema, metas, options, ManifestFileMetaToAvro);
}

Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const AvroWriterOptions& options) {
  return EncodeAll(kIndexManifestEntryAvroSchema, entries, options, IndexManifestEntryToAvro);
}

// ---------------------------------------------------------------------------------------------------
// Partition statistics

int JavaCompareValues(const Datum& a, const Datum& b, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kFloat:
      return JavaFloatingCompare<float, int32_t>(a.as_float(), b.as_float());
    case TypeRoot::kDouble:
      return JavaFloatingCompare<double, int64_t>(a.as_double(), b.as_double());
    default:
      return CompareDatum(a, b);
  }
}

PartitionStatsCollector::PartitionStatsCollector(std::vector<DataType> partition_types)
    : types_(std::move(partition_types)), min_(types_.size()), max_(types_.size()), null_counts_(types_.size(), 0) {}

Status PartitionStatsCollector::Collect(std::string_view serialized_partition) {
  TIDE_ASSIGN_OR_RETURN(Row row, DeserializeBinaryRow(serialized_partition, types_));
  for (size_t i = 0; i < types_.size(); ++i) {
    const Datum& v = row[i];
    if (v.is_null()) {
      ++null_counts_[i];
      continue;
    }
    if (!IsStatsComparable(types_[i])) continue;
    if (min_[i].is_null() || JavaCompareValues(v, min_[i], types_[i]) < 0) min_[i] = v;
    if (max_[i].is_null() || JavaCompareValues(v, max_[i], types_[i]) > 0) max_[i] = v;
  }
  return Status::OK();
}

Result<SimpleStats> PartitionStatsCollector::Stats() const {
  SimpleStats s;
  TIDE_ASSIGN_OR_RETURN(s.min_values, EncodeSerializedBinaryRow(min_, types_));
  TIDE_ASSIGN_OR_RETURN(s.max_values, EncodeSerializedBinaryRow(max_, types_));
  s.null_counts_present = true;
  for (int64_t n : null_counts_) s.null_counts.emplace_back(n);
  return s;
}

// ---------------------------------------------------------------------------------------------------
// Names

ManifestFileNamer::ManifestFileNamer() : uuid_(RandomUuidString()) {}

// ---------------------------------------------------------------------------------------------------
// Files

ManifestFileWriter::ManifestFileWriter(FileSystem* fs, std::string manifest_dir, std::vector<DataType> partition_types,
                                       ManifestFileNamer* namer, ManifestWriterOptions options)
    : fs_(fs),
      manifest_dir_(std::move(manifest_dir)),
      partition_types_(std::move(partition_types)),
      namer_(namer),
      options_(std::move(options)) {}

namespace {

// One manifest file being encoded, with the list record Java's ManifestEntryWriter gathers for it.
class OpenManifest {
 public:
  static Result<std::unique_ptr<OpenManifest>> Create(const std::vector<DataType>& partition_types,
                                                     const AvroWriterOptions& options) {
    TIDE_ASSIGN_OR_RETURN(auto writer, AvroWriter::Create(kManifestEntryAvroSchema, options));
    return std::unique_ptr<OpenManifest>(new OpenManifest(std::move(writer), partition_types));
  }

  Status Add(const ManifestEntry& e) {
    TIDE_ASSIGN_OR_RETURN(AvroValue v, ManifestEntryToAvro(e));
    TIDE_RETURN_IF_ERROR(writer_->Append(v));
    if (e.kind == FileKind::kAdd) {
      ++meta_.num_added_files;
    } else {
      ++meta_.num_deleted_files;
    }
    schema_id_ = std::max(schema_id_, e.file.schema_id);
    min_bucket_ = std::min(min_bucket_, e.bucket);
    max_bucket_ = std::max(max_bucket_, e.bucket);
    min_level_ = std::min(min_level_, e.file.level);
    max_level_ = std::max(max_level_, e.file.level);
    ++records_;
    Status s = stats_.Collect(e.partition);
    if (!s.ok()) return s.WithContext(fmt::format("partition of manifest entry for data file {}", e.file.file_name));
    return Status::OK();
  }

  int64_t records() const { return records_; }
  size_t EstimatedSize() const { return writer_->EstimatedSize(); }

  // The file bytes; `meta` gets everything but the name.
  Result<std::string> Finish(ManifestFileMeta* meta) {
    TIDE_ASSIGN_OR_RETURN(std::string bytes, writer_->Finish());
    *meta = meta_;
    meta->file_size = static_cast<int64_t>(bytes.size());
    TIDE_ASSIGN_OR_RETURN(meta->partition_stats, stats_.Stats());
    meta->schema_id = schema_id_;
    meta->min_bucket = min_bucket_;
    meta->max_bucket = max_bucket_;
    meta->min_level = min_level_;
    meta->max_level = max_level_;
    return bytes;
  }

 private:
  OpenManifest(std::unique_ptr<AvroWriter> writer, const std::vector<DataType>& partition_types)
      : writer_(std::move(writer)), stats_(partition_types) {}

  std::unique_ptr<AvroWriter> writer_;
  PartitionStatsCollector stats_;
  ManifestFileMeta meta_;
  int64_t records_ = 0;
  int64_t schema_id_ = std::numeric_limits<int64_t>::min();
  int32_t min_bucket_ = std::numeric_limits<int32_t>::max();
  int32_t max_bucket_ = std::numeric_limits<int32_t>::min();
  int32_t min_level_ = std::numeric_limits<int32_t>::max();
  int32_t max_level_ = std::numeric_limits<int32_t>::min();
};

}  // namespace

Result<std::vector<ManifestFileMeta>> ManifestFileWriter::WriteManifests(const std::vector<ManifestEntry>& entries) {
  std::vector<ManifestFileMeta> out;
  auto fail = [&](const Status& s) {
    for (const auto& m : out) DeleteQuietly(m.file_name);
    return s;
  };
  std::unique_ptr<OpenManifest> open;
  size_t file_begin = 0;  // the first entry of the open file
  auto close = [&](size_t file_end) -> Status {
    ManifestFileMeta meta;
    TIDE_ASSIGN_OR_RETURN(std::string bytes, open->Finish(&meta));
    open.reset();
    meta.file_name = namer_->NewManifestName();
    TIDE_RETURN_IF_ERROR(Store(meta.file_name, bytes));
    if (cache_ != nullptr) {
      cache_->Put(meta.file_name, std::make_shared<const std::vector<ManifestEntry>>(
                                      entries.begin() + static_cast<std::ptrdiff_t>(file_begin),
                                      entries.begin() + static_cast<std::ptrdiff_t>(file_end)));
    }
    file_begin = file_end;
    out.push_back(std::move(meta));
    return Status::OK();
  };
  int64_t written = 0;  // across files, as RollingFileWriter counts
  for (const auto& e : entries) {
    if (!open) {
      auto created = OpenManifest::Create(partition_types_, options_.avro);
      if (!created.ok()) return fail(created.status());
      open = std::move(created).value();
    }
    Status s = open->Add(e);
    if (!s.ok()) return fail(s);
    ++written;
    // RollingFileWriter: after every 1000th record, roll once the file reached the target size.
    if (written % kCheckRollingRecordCount == 0 &&
        static_cast<int64_t>(open->EstimatedSize()) >= options_.target_file_size) {
      s = close(static_cast<size_t>(written));
      if (!s.ok()) return fail(s);
    }
  }
  if (open) {
    Status s = close(entries.size());
    if (!s.ok()) return fail(s);
  }
  return out;
}

Result<std::pair<std::string, int64_t>> ManifestFileWriter::WriteManifestList(
    const std::vector<ManifestFileMeta>& metas) {
  TIDE_ASSIGN_OR_RETURN(std::string bytes, EncodeManifestList(metas, options_.avro));
  std::string name = namer_->NewManifestListName();
  TIDE_RETURN_IF_ERROR(Store(name, bytes));
  return std::make_pair(name, static_cast<int64_t>(bytes.size()));
}

Result<std::string> ManifestFileWriter::WriteIndexManifest(const std::vector<IndexManifestEntry>& entries) {
  TIDE_ASSIGN_OR_RETURN(std::string bytes, EncodeIndexManifest(entries, options_.avro));
  std::string name = namer_->NewIndexManifestName();
  TIDE_RETURN_IF_ERROR(Store(name, bytes));
  return name;
}

Status ManifestFileWriter::Store(const std::string& name, std::string_view bytes) const {
  // Under its final name, as Java writes manifests: nothing lists it until the commit has synced the
  // manifest folder (FileStoreCommit) and published a snapshot.
  Status s = WriteNewFile(fs_, PathOf(name), bytes);
  // The name is this writer's own: whatever a failed write left under it is removed, as Java's
  // ObjectsFile does.
  if (!s.ok() && !s.IsAlreadyExists()) DeleteQuietly(name);
  return s;
}

Result<std::vector<ManifestEntry>> ManifestFileWriter::ReadManifest(const std::string& name) const {
  if (cache_ == nullptr) return tide::ReadManifest(fs_, PathOf(name));
  TIDE_ASSIGN_OR_RETURN(ManifestEntryCache::Entries entries, ReadManifestShared(name));
  return *entries;
}

Result<ManifestEntryCache::Entries> ManifestFileWriter::ReadManifestShared(const std::string& name) const {
  if (cache_ != nullptr) {
    if (ManifestEntryCache::Entries held = cache_->Find(name)) return held;
  }
  TIDE_ASSIGN_OR_RETURN(auto entries, tide::ReadManifest(fs_, PathOf(name)));
  auto shared = std::make_shared<const std::vector<ManifestEntry>>(std::move(entries));
  if (cache_ != nullptr) cache_->Put(name, shared);
  return ManifestEntryCache::Entries(std::move(shared));
}

Result<std::vector<ManifestFileMeta>> ManifestFileWriter::ReadManifestList(const std::string& name) const {
  return tide::ReadManifestList(fs_, PathOf(name));
}

Result<std::vector<IndexManifestEntry>> ManifestFileWriter::ReadIndexManifest(const std::string& name) const {
  return tide::ReadIndexManifest(fs_, PathOf(name));
}

void ManifestFileWriter::DeleteQuietly(const std::string& name) const { fs_->DeleteFile(PathOf(name)).IgnoreError(); }

}  // namespace tide
