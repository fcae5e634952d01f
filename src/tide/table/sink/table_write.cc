#include "tide/table/sink/table_write.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <array>
#include <cstring>
#include <set>

#include <fmt/ranges.h>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"
#include "tide/base/parallel_for.h"
#include "tide/base/strings.h"
#include "tide/base/uuid.h"
#include "tide/codec/murmur_hash.h"
#include "tide/format/parquet_compression.h"
#include "tide/format/parquet_file_encoder.h"
#include "tide/table/append/append_compact_coordinator.h"
#include "tide/table/io/append_file_writer.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/crosspartition/index_bootstrap.h"
#include "tide/table/index/dynamic_bucket_index.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/io/key_value_file_writer.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

struct TableWrite::BucketWriter {
  BucketWriter(std::string key_in, std::string partition_in, Row values, int32_t bucket_in, DataFilePathFactory paths_in,
               const WriteBufferSpec* spec, WriteBufferMemory* memory, int64_t next_sequence_in)
      : key(std::move(key_in)), partition(std::move(partition_in)), partition_values(std::move(values)),
        bucket(bucket_in), paths(std::move(paths_in)), buffer(spec, memory), next_sequence(next_sequence_in) {}

  std::string key;
  std::string partition;  // serialized BinaryRow
  Row partition_values;
  int32_t bucket;
  DataFilePathFactory paths;
  // The buffered records: in `columns` when the writer buffers as columns, else in `buffer` (the other
  // stays empty).
  WriteBuffer buffer;
  std::unique_ptr<ColumnarWriteBuffer> columns;
  int64_t next_sequence;
  bool folder_ready = false;
  std::vector<DataFileMeta> new_files;        // written, not yet handed out by PrepareCommit
  std::vector<DataFileMeta> changelog_files;  // likewise
  // Dynamic-bucket tables: the bucket's key hashes (Java's DynamicBucketIndexMaintainer) and whether
  // any was added since the last index file.
  std::optional<HashIndexSet> key_hashes;
  bool key_hashes_modified = false;
  // Primary-key tables that compact: the bucket's levels and compaction, and the compaction changes
  // not yet handed out (before: by file name, in the order met; after: in the order produced).
  std::unique_ptr<MergeTreeCompactManager> compact;
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;
  std::vector<DataFileMeta> compact_changelog;  // changelog files of lookup compactions
  // Append tables that compact: the bucket's (fixed buckets) or the partition's (bucket-unaware)
  // compaction.
  std::unique_ptr<AppendCompactManager> append_compact;
  UnawareAppendCompactManager* unaware_compact = nullptr;  // append_compact, for a bucket-unaware partition

  bool BufferEmpty() const { return buffer.empty() && (!columns || columns->empty()); }
  int64_t BufferBytes() const { return buffer.memory_bytes() + (columns ? columns->memory_bytes() : 0); }
  void ClearBuffer() {
    buffer.Clear();
    if (columns) columns->Clear();
  }
  // Adds a record to whichever buffer holds this writer's records. The row's values have been checked
  // against the table's types (ValidateRow), so the columns take them.
  Status Put(Row&& row, ValueKind kind) {
    if (columns) return columns->Put(row, next_sequence++, kind);
    buffer.Put(std::move(row), next_sequence++, kind);
    return Status::OK();
  }
  // The last PrepareCommit that handed out a message of this bucket (-1: none), for idle writers.
  int64_t last_modified_commit = -1;
};

namespace {

std::string WriterKey(std::string_view partition, int32_t bucket) {
  std::string key(partition);
  AppendLE<int32_t>(&key, bucket);
  return key;
}

ValueKind ToValueKind(RowKind kind) { return static_cast<ValueKind>(static_cast<uint8_t>(kind)); }

const char* RowKindName(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "?";
}

bool FitsInt(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// 10^p for 0 <= p <= 38.
int128_t Pow10(int p) {
  static const auto kTable = [] {
    std::array<int128_t, 39> t{};
    t[0] = 1;
    for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return kTable[static_cast<size_t>(std::clamp(p, 0, 38))];
}

}  // namespace

TableWrite::ValueCheck TableWrite::ValueCheck::For(const DataType& type) {
  ValueCheck c;
  c.not_null = !type.nullable();
  switch (type.root()) {
    case TypeRoot::kBoolean: c.index = 1; break;
    case TypeRoot::kTinyInt: c = {2, c.not_null, Range::kInt, INT8_MIN, INT8_MAX}; break;
    case TypeRoot::kSmallInt: c = {2, c.not_null, Range::kInt, INT16_MIN, INT16_MAX}; break;
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: c = {2, c.not_null, Range::kInt, INT32_MIN, INT32_MAX}; break;
    case TypeRoot::kBigInt: c.index = 2; break;
    case TypeRoot::kFloat: c.index = 3; break;
    case TypeRoot::kDouble: c.index = 4; break;
    case TypeRoot::kDecimal:
      c.index = 5;
      c.range = Range::kDecimal;
      c.decimal_limit = Pow10(type.precision());
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      c.index = 6;
      c.range = Range::kTimestamp;
      // Precision 7..9 is written as INT64 nanoseconds (parquet_writer.h): years 1677..2262 only.
      c.nanos_limited = type.precision() > 6;
      break;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: c.index = 7; break;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow: c.index = 8; break;
    case TypeRoot::kVariant: c.index = kNoIndex; break;
  }
  return c;
}

// Whether `value` has the representation datum.h gives the column's type and lies in its range.
bool TableWrite::ValueCheck::Fits(const Datum& value) const {
  if (value.storage().index() != index) return false;
  switch (range) {
    case Range::kNone: return true;
    case Range::kInt: return FitsInt(value.as_int(), lo, hi);
    case Range::kDecimal: {
      const int128_t v = value.as_decimal().unscaled;
      return v < decimal_limit && v > -decimal_limit;
    }
    case Range::kTimestamp: {
      const TimestampValue& ts = value.as_timestamp();
      if (ts.nanos_of_milli < 0 || ts.nanos_of_milli >= 1000000) return false;
      constexpr int64_t kNanosMillisLimit = 9223372036853;
      return !nanos_limited || (ts.millis > -kNanosMillisLimit && ts.millis < kNanosMillisLimit);
    }
  }
  return false;
}

namespace {

// The zero value of `type`: false, 0, "", the epoch, an empty collection, a row of zeros.
Datum ZeroValue(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean: return Datum(false);
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: return Datum(int64_t{0});
    case TypeRoot::kFloat: return Datum(0.0f);
    case TypeRoot::kDouble: return Datum(0.0);
    case TypeRoot::kDecimal: return Datum(DecimalValue{});
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: return Datum(TimestampValue{});
    case TypeRoot::kChar: return Datum(std::string(static_cast<size_t>(std::max(type.length(), 0)), ' '));
    case TypeRoot::kBinary: return Datum(std::string(static_cast<size_t>(std::max(type.length(), 0)), '\0'));
    case TypeRoot::kRow: {
      std::vector<Datum> fields;
      for (const DataField& f : type.fields()) fields.push_back(f.type.nullable() ? Datum() : ZeroValue(f.type));
      return Datum::Nested(std::move(fields));
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap: return Datum::Nested({});
    default: return Datum(std::string());
  }
}

// Describes a value by its own representation (it may not match the column's type).
std::string DescribeValue(const Datum& v) {
  switch (v.storage().index()) {
    case 1: return v.as_bool() ? "true" : "false";
    case 2: return std::to_string(v.as_int());
    case 3: return fmt::format("{} (FLOAT)", v.as_float());
    case 4: return fmt::format("{} (DOUBLE)", v.as_double());
    case 5: return fmt::format("unscaled decimal {}", DecimalToString(v.as_decimal().unscaled, 0));
    case 6: return fmt::format("timestamp {}", FormatTimestamp(v.as_timestamp(), 9));
    case 7: {
      const std::string& s = v.as_string();
      return fmt::format("'{}'{} (text/bytes)", s.substr(0, 32), s.size() > 32 ? "..." : "");
    }
    case 8: return "a nested value";
    default: return "NULL";
  }
}

// The options whose write-side behaviour Tide does not implement are refused, naming the option,
// rather than written wrongly.
Status CheckWritable(const TableSchema& schema, const CoreOptions& options, const std::string& table_name) {
  if (options.file_format() != "parquet") {
    return Status::NotSupported(
        "table {}: file.format '{}' is not supported for writing; Tide writes Parquet data files only (set "
        "'file.format' = 'parquet')",
        table_name, options.file_format());
  }
  static const char* kCodecs[] = {"zstd", "snappy", "gzip", "lz4", "brotli", "uncompressed"};
  bool known = false;
  for (const char* c : kCodecs) known = known || options.file_compression() == c;
  if (!known) {
    return Status::NotSupported("table {}: file.compression '{}' is not supported (zstd, snappy, gzip, lz4, "
                                "brotli, uncompressed are)",
                                table_name, options.file_compression());
  }
  if (int32_t level = options.file_compression_zstd_level(); level < 1 || level > 22) {
    return Status::InvalidArgument("table {}: file.compression.zstd-level '{}' must be an integer from 1 to 22",
                                   table_name, level);
  }
  if (auto ext = options.Find("data-file.external-paths"); ext && !Trim(*ext).empty()) {
    return Status::NotSupported("table {}: option 'data-file.external-paths' is not supported for writing yet",
                                table_name);
  }
  if (auto rk = options.Find("rowkind.field"); rk && !Trim(*rk).empty()) {
    return Status::NotSupported("table {}: option 'rowkind.field' is not supported for writing yet; pass the row "
                                "kind to TableWrite::Write instead",
                                table_name);
  }
  return Status::OK();
}

// The keys of the `restored` buckets in the listed partitions and buckets (every one when a list is
// absent), sorted: the buckets a manual compaction goes through.
template <class RestoredMap>
Result<std::vector<std::string>> KeysIn(const RestoredMap& restored, const std::vector<DataType>& partition_types,
                                        const std::optional<std::vector<Row>>& partitions,
                                        const std::optional<std::vector<int32_t>>& buckets) {
  std::vector<std::string> keys;
  for (const auto& [key, where] : restored) {
    if (buckets && std::find(buckets->begin(), buckets->end(), where.bucket) == buckets->end()) continue;
    if (partitions) {
      TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(where.partition, partition_types));
      bool listed = std::any_of(partitions->begin(), partitions->end(),
                                [&](const Row& p) { return CompareRows(p, values) == 0; });
      if (!listed) continue;
    }
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

TableWrite::TableWrite(CoreOptions options) : options_(std::move(options)) {}
TableWrite::~TableWrite() {
  // Flushes in flight write into the bucket writers: they end first. Those not started are abandoned;
  // the files of those that ran, listed by no commit, are left as any uncommitted file is.
  cancel_flushes_ = true;
  flush_executor_.reset();
  flushes_in_flight_.clear();
  // The bucket writers' compaction managers use the executor and context: they go first.
  writers_.clear();
  compaction_executor_.reset();
}

namespace {

// The writer's own settings over the table's options (TableWriteConfig).
void ApplyWriterOverrides(const TableWriteConfig& config, CoreOptions* options) {
  if (config.write_buffer_size) options->set_write_buffer_size(*config.write_buffer_size);
  if (config.target_file_size) options->set_target_file_size(*config.target_file_size);
  if (config.sorted_runs_beyond_trigger && !options->Find("num-sorted-run.stop-trigger")) {
    const int64_t stop = int64_t{options->num_sorted_run_compaction_trigger()} + *config.sorted_runs_beyond_trigger;
    options->set_num_sorted_run_stop_trigger(static_cast<int32_t>(std::min<int64_t>(stop, INT32_MAX)));
  }
}

}  // namespace

Result<std::unique_ptr<TableWrite>> TableWrite::Create(FileSystem* fs, std::string table_path, TableSchema schema,
                                                       std::string commit_user, TableWriteConfig config) {
  const std::string table_name = config.table_name.empty() ? std::string(BaseName(table_path)) : config.table_name;
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema, table_name));
  TIDE_RETURN_IF_ERROR(CheckWritable(schema, options, table_name));
  ApplyWriterOverrides(config, &options);
  if (options.write_buffer_size() <= 0 || options.target_file_size() <= 0) {
    return Status::InvalidArgument("table {}: write-buffer-size and target-file-size must be positive", table_name);
  }
  std::unique_ptr<TableWrite> w(new TableWrite(std::move(options)));
  w->fs_ = fs;
  w->table_path_ = std::move(table_path);
  w->table_name_ = table_name;
  w->schema_ = std::move(schema);
  w->commit_user_ = std::move(commit_user);
  w->config_ = std::move(config);
  const TableSchema& s = w->schema_;
  const std::string& name = w->table_name_;
  const CoreOptions& core = w->options_;

  for (const DataField& f : s.fields) {
    if (f.type.root() == TypeRoot::kVariant) {
      return Status::NotSupported("table {}: column '{}' is VARIANT, which Tide cannot write yet", name, f.name);
    }
  }
  w->SetColumnChecks(s);

  // Buckets.
  const int32_t bucket = core.bucket();
  if (bucket == -2) {
    return Status::NotSupported(
        "table {}: postpone-bucket mode ('bucket' = '-2') is not supported for writing yet; set 'bucket' to a "
        "positive number",
        name);
  }
  if (bucket == -1 && s.HasPrimaryKey() && IsCrossPartitionUpdate(s)) {
    // Cross-partition update mode: a key index routes rows (and moves keys between partitions).
    if (!core.sequence_fields().empty()) {
      return Status::InvalidArgument(
          "table {}: 'sequence.field' cannot be used in cross-partition update mode (primary key {} without every "
          "partition column), as in Java Paimon; drop the option or add the partition columns to the primary key",
          name, fmt::join(s.primary_keys, ", "));
    }
    if (core.ignore_delete() && core.merge_engine() == MergeEngine::kDeduplicate) {
      return Status::NotSupported(
          "table {}: 'ignore-delete' = 'true' in cross-partition update mode would keep a row in its old partition "
          "when its key moves (the move's -D would be ignored); unset it or add the partition columns to the "
          "primary key",
          name);
    }
    if (auto ttl = core.Find("cross-partition-upsert.index-ttl"); ttl && !Trim(*ttl).empty()) {
      return Status::NotSupported(
          "table {}: 'cross-partition-upsert.index-ttl' is not supported for writing (an expired key would be "
          "written a second time); unset it",
          name);
    }
    w->cross_partition_ = true;
    for (const std::string& key : s.primary_keys) {
      int idx = s.FieldIndex(key);
      if (idx < 0) return Status::InvalidArgument("table {}: primary key '{}' is not a column of the table", name, key);
      w->primary_key_indices_.push_back(idx);
    }
    std::vector<DataType> key_types;
    for (int idx : w->primary_key_indices_) key_types.push_back(s.fields[static_cast<size_t>(idx)].type);
    w->primary_key_writer_ = std::make_unique<BinaryRowWriter>(std::move(key_types));
  } else if (bucket == -1 && s.HasPrimaryKey()) {
    // Dynamic-bucket mode.
    if (core.index_file_in_data_file_dir()) {
      return Status::NotSupported(
          "table {}: 'index-file-in-data-file-dir' = 'true' on a dynamic-bucket table is not supported for writing "
          "yet; unset it or set 'bucket' to a positive number",
          name);
    }
    DynamicBucketOptions& dynamic = w->dynamic_options_;
    dynamic.target_row_num = core.dynamic_bucket_target_row_num();
    dynamic.max_buckets = core.dynamic_bucket_max_buckets();
    dynamic.ignore_previous = w->config_.ignore_previous_files;
    w->dynamic_index_ = std::make_unique<DynamicBucketIndex>(fs, w->table_path_, name, dynamic);
  }
  if (bucket == 0 || bucket < -2) {
    return Status::InvalidArgument("table {}: option 'bucket' = {} is invalid (a positive number, or -1)", name, bucket);
  }
  w->num_buckets_ = bucket;
  if (w->num_buckets_ > 0) {
    std::vector<std::string> keys = s.BucketKeys();
    if (keys.empty()) {
      return Status::InvalidArgument(
          "table {}: a bucketed append table ('bucket' = '{}') needs a 'bucket-key' option naming its bucket "
          "columns",
          name, w->num_buckets_);
    }
    std::vector<DataType> key_types;
    for (const std::string& key : keys) {
      int idx = s.FieldIndex(key);
      if (idx < 0) return Status::InvalidArgument("table {}: bucket key '{}' is not a column of the table", name, key);
      if (std::find(s.partition_keys.begin(), s.partition_keys.end(), key) != s.partition_keys.end()) {
        return Status::InvalidArgument("table {}: bucket key '{}' must not be a partition column", name, key);
      }
      if (s.HasPrimaryKey() && std::find(s.primary_keys.begin(), s.primary_keys.end(), key) == s.primary_keys.end()) {
        return Status::InvalidArgument("table {}: bucket key '{}' must be part of the primary key", name, key);
      }
      w->bucket_key_indices_.push_back(idx);
      key_types.push_back(s.fields[static_cast<size_t>(idx)].type);
    }
    TIDE_ASSIGN_OR_RETURN(BucketFunctionType type, ParseBucketFunctionType(core.bucket_function_type()));
    auto function = BucketFunction::Create(type, std::move(key_types), w->num_buckets_);
    if (!function.ok()) return function.status().WithContext("table " + name);
    w->bucket_function_ = std::move(function).value();
  }

  // Partitions.
  for (const std::string& key : s.partition_keys) {
    int idx = s.FieldIndex(key);
    if (idx < 0) return Status::InvalidArgument("table {}: partition key '{}' is not a column of the table", name, key);
    w->partition_indices_.push_back(idx);
    w->partition_types_.push_back(s.fields[static_cast<size_t>(idx)].type);
  }
  w->partition_writer_ = std::make_unique<BinaryRowWriter>(w->partition_types_);
  TIDE_ASSIGN_OR_RETURN(w->unpartitioned_, EncodeSerializedBinaryRow({}, {}));

  // Primary key: merge engine, sequence fields.
  w->buffer_spec_.primary_key = s.HasPrimaryKey();
  if (s.HasPrimaryKey()) {
    TIDE_ASSIGN_OR_RETURN(w->lookup_, LookupOptionsOf(core, name));
    if (w->lookup_.deletion_vectors) {
      w->dv_file_prefix_ = "index-" + RandomUuidString() + "-";
      w->dv_next_file_ = std::make_shared<int64_t>(0);
    }
    TIDE_ASSIGN_OR_RETURN(w->merge_, WriteMergeFunction::Create(s, name));
    w->buffer_spec_.merge = w->merge_.get();
    for (const std::string& key : s.TrimmedPrimaryKeys()) {
      int idx = s.FieldIndex(key);
      if (idx < 0) return Status::InvalidArgument("table {}: primary key '{}' is not a column of the table", name, key);
      w->buffer_spec_.key_indices.push_back(idx);
    }
    if (w->dynamic_index_) {
      std::vector<DataType> key_types;
      for (int idx : w->buffer_spec_.key_indices) key_types.push_back(s.fields[static_cast<size_t>(idx)].type);
      w->key_writer_ = std::make_unique<BinaryRowWriter>(std::move(key_types));
    }
    for (const std::string& field : core.sequence_fields()) {
      int idx = s.FieldIndex(field);
      if (idx < 0) {
        return Status::InvalidArgument("table {}: option 'sequence.field' names column '{}', which does not exist",
                                       name, field);
      }
      w->buffer_spec_.sequence_field_indices.push_back(idx);
    }
    w->buffer_spec_.sequence_descending = core.sequence_field_descending();
  }

  auto context = std::make_unique<DataFileWriteContext>();
  TIDE_ASSIGN_OR_RETURN(context->layout, DataFileLayout::Create(s, w->options_, name));
  // DuckDB writes only the files Tide's own Parquet encoder cannot: opened if one comes.
  context->db = DuckDB::OpenLater();
  context->creation_time_ms = w->config_.creation_time_ms;
  context->parallel_writes = ParquetCodecNamed(context->layout.parquet.compression).has_value() &&
                             ParquetFileEncoder::CanEncode(context->layout.columns);
  w->context_ = std::move(context);
  w->memory_ = std::make_unique<WriteBufferMemory>(w->options_.write_buffer_size());
  w->columnar_buffers_ = w->ColumnarBuffersFit();
  if (w->config_.flush_ahead && w->columnar_buffers_ && w->ParallelFlushes()) {
    w->flush_executor_ = std::make_unique<SerialExecutor>(SerialExecutor::Priority::kNormal, "tide-flush");
  }
  if (s.HasPrimaryKey() && !core.write_only()) {
    TIDE_ASSIGN_OR_RETURN(w->compaction_context_,
                          CompactionContext::Create(fs, w->table_path_, name, s, w->options_, w->config_.creation_time_ms));
    w->compaction_executor_ = std::make_unique<SerialExecutor>(SerialExecutor::Priority::kBackground, "tide-compact");
  }
  const bool fixed_append = !s.HasPrimaryKey() && w->num_buckets_ > 0 && !core.write_only();
  if (fixed_append && core.deletion_vectors_enabled()) {
    return Status::NotSupported(
        "table {}: deletion vectors on an append table ('deletion-vectors.enabled') are not supported for writing "
        "yet; set 'write-only' = 'true' to write without compacting",
        name);
  }
  // Bucket-unaware append tables compact their partitions' small files as Java's streaming sink does
  // (its compaction coordinator), for writers that ask. Not with deletion vectors (which only another
  // engine's DELETE makes: their compaction must rewrite the vectors too), nor where Java's sink does
  // not either (row tracking and data evolution keep row ids; incremental clustering has its own).
  auto clustering = w->options_.Find("clustering.incremental");
  const bool clustered = clustering && ToLower(std::string(Trim(*clustering))) == "true";
  const bool unaware_append = config.compact_unaware_append && !s.HasPrimaryKey() && w->num_buckets_ == -1 &&
                              !core.write_only() && !core.deletion_vectors_enabled() &&
                              !core.row_tracking_enabled() && !core.data_evolution_enabled() && !clustered;
  if (unaware_append) TIDE_ASSIGN_OR_RETURN(w->unaware_plan_, AppendCompactPlanOptions::Of(w->options_, false));
  if (fixed_append || unaware_append) {
    TIDE_ASSIGN_OR_RETURN(w->append_compaction_context_,
                          AppendCompactContext::Create(fs, w->table_path_, name, s, w->options_,
                                                       w->config_.creation_time_ms));
    w->compaction_executor_ = std::make_unique<SerialExecutor>(SerialExecutor::Priority::kBackground, "tide-compact");
    w->writer_compacts_append_ = true;
  }
  return w;
}

Status TableWrite::Fail(Status status) {
  if (failed_.ok()) failed_ = status;
  return status;
}

void TableWrite::SetColumnChecks(const TableSchema& schema) {
  is_key_column_.clear();
  value_checks_.clear();
  for (const DataField& f : schema.fields) {
    bool key =
        std::find(schema.primary_keys.begin(), schema.primary_keys.end(), f.name) != schema.primary_keys.end() ||
        std::find(schema.partition_keys.begin(), schema.partition_keys.end(), f.name) != schema.partition_keys.end();
    is_key_column_.push_back(key);
    value_checks_.push_back(ValueCheck::For(f.type));
  }
}

Status TableWrite::ValidateRow(RowKind kind, const Row& row) const {
  const auto& fields = schema_.fields;
  if (row.size() != fields.size()) {
    return Status::InvalidArgument("table {}: a row has {} values but the table has {} columns", table_name_, row.size(),
                                   fields.size());
  }
  if (!schema_.HasPrimaryKey() && (kind == RowKind::kUpdateBefore || kind == RowKind::kDelete)) {
    return Status::InvalidArgument(
        "table {} is an append table (no primary key): it takes +I and +U rows only, not {}; give it a primary key "
        "or set 'ignore-delete' = 'true' to drop retractions",
        table_name_, RowKindName(kind));
  }
  for (size_t i = 0; i < row.size(); ++i) {
    const Datum& v = row[i];
    if (v.is_null()) {
      if (value_checks_[i].not_null) {
        return Status::InvalidArgument("table {}: cannot write NULL to NOT NULL column '{}'", table_name_, fields[i].name);
      }
      continue;
    }
    if (!value_checks_[i].Fits(v)) {
      return Status::InvalidArgument("table {}: column '{}' ({}) cannot hold the value {}", table_name_, fields[i].name,
                                     fields[i].type.ToString(), DescribeValue(v));
    }
  }
  return Status::OK();
}

void TableWrite::FillRetractPlaceholders(Row* row) const {
  // A retraction of the deduplicate and first-row engines is decided by its key alone: merging never
  // reads its other values. Key-only images (a PostgreSQL DELETE under REPLICA IDENTITY DEFAULT) leave
  // them NULL, which a NOT NULL column cannot store; they get the type's zero value instead.
  MergeEngine engine = options_.merge_engine();
  if (engine != MergeEngine::kDeduplicate && engine != MergeEngine::kFirstRow) return;
  for (size_t i = 0; i < row->size() && i < schema_.fields.size(); ++i) {
    if (!(*row)[i].is_null() || !value_checks_[i].not_null || is_key_column_[i]) continue;
    (*row)[i] = ZeroValue(schema_.fields[i].type);
  }
}

Status TableWrite::Write(RowKind kind, const Row& row) { return Write(kind, Row(row)); }

Status TableWrite::Write(RowKind kind, Row&& row) {
  if (!failed_.ok()) return failed_;
  if (options_.ignore_delete() && (kind == RowKind::kUpdateBefore || kind == RowKind::kDelete)) {
    ++metrics_.rows_dropped;
    return Status::OK();
  }
  if (schema_.HasPrimaryKey() && (kind == RowKind::kUpdateBefore || kind == RowKind::kDelete)) {
    if (options_.merge_engine() == MergeEngine::kFirstRow && !cross_partition_) {
      // Java's FirstRowMergeFunction fails on retractions at compaction; refuse them before they land.
      return Status::InvalidArgument(
          "table {}: the first-row merge engine cannot accept {} rows; set 'ignore-delete' = 'true' to ignore them",
          table_name_, RowKindName(kind));
    }
    FillRetractPlaceholders(&row);
  }
  if (cross_partition_) return WriteCrossPartition(kind, std::move(row));
  TIDE_RETURN_IF_ERROR(ValidateRow(kind, row));
  TIDE_ASSIGN_OR_RETURN(BucketWriter* writer, WriterFor(row));
  if (writer->key_hashes && writer->key_hashes->Add(last_key_hash_)) writer->key_hashes_modified = true;
  Status put = writer->Put(std::move(row), ToValueKind(kind));
  if (!put.ok()) return Fail(put.WithContext("table " + table_name_));
  ++metrics_.rows_written;
  if (MemoryFlushDue()) return FlushWhileOverBudget();
  return Status::OK();
}

Status TableWrite::LoadGlobalIndex() {
  GlobalIndexConfig config;
  config.table_name = table_name_;
  config.merge_engine = options_.merge_engine();
  config.target_row_num = options_.dynamic_bucket_target_row_num();
  for (int i : partition_indices_) config.partition_fields.push_back(schema_.fields[static_cast<size_t>(i)]);
  config.state_dir = config_.key_index_dir;
  config.memory_budget = config_.key_index_memory;
  auto index = GlobalIndexAssigner::Create(std::move(config));
  if (!index.ok()) return Fail(index.status());
  if (!config_.ignore_previous_files) {
    // The index must know every key the table holds before the first row is routed.
    Status loaded = BootstrapGlobalIndex(fs_, table_path_, table_name_, schema_, index->get(), config_.keep_alive);
    if (!loaded.ok()) return Fail(loaded);
    metrics_.bootstrapped_keys += (*index)->bootstrapped_keys();
  }
  global_index_ = std::move(index).value();
  return Status::OK();
}

Status TableWrite::WriteRows(RowKind kind, Row* rows, size_t n) {
  if (!cross_partition_ || !failed_.ok() || (options_.ignore_delete() && IsRetraction(kind))) {
    for (size_t i = 0; i < n; ++i) TIDE_RETURN_IF_ERROR(Write(kind, std::move(rows[i])));
    return Status::OK();
  }
  if (!global_index_) TIDE_RETURN_IF_ERROR(LoadGlobalIndex());
  // Rows go in windows: the keys of a window are encoded and their slots in the key index asked for
  // first, then the rows are written, each finding its slot loaded. A row whose key cannot be encoded
  // here (a NULL, a row of the wrong width) goes through Write, which names the problem.
  constexpr size_t kWindow = 16;
  ahead_keys_.resize(kWindow);
  uint32_t hashes[kWindow];
  bool keyed[kWindow];
  for (size_t start = 0; start < n; start += kWindow) {
    const size_t end = std::min(n, start + kWindow);
    for (size_t i = start; i < end; ++i) {
      const Row& row = rows[i];
      keyed[i - start] = false;
      if (row.size() != schema_.fields.size()) continue;
      bool null_key = false;
      for (int k : primary_key_indices_) null_key = null_key || row[static_cast<size_t>(k)].is_null();
      if (null_key || !primary_key_writer_->WriteProjected(row, primary_key_indices_, &ahead_keys_[i - start]).ok()) {
        continue;
      }
      hashes[i - start] = KeyHashTable::Hash(ahead_keys_[i - start]);
      global_index_->Prefetch(hashes[i - start]);
      keyed[i - start] = true;
    }
    for (size_t i = start; i < end; ++i) {
      if (!keyed[i - start]) {
        TIDE_RETURN_IF_ERROR(Write(kind, std::move(rows[i])));
        continue;
      }
      if (!failed_.ok()) return failed_;
      Row& row = rows[i];
      if (schema_.HasPrimaryKey() && IsRetraction(kind)) FillRetractPlaceholders(&row);
      scratch_primary_key_.swap(ahead_keys_[i - start]);
      TIDE_RETURN_IF_ERROR(WriteCrossPartitionKeyed(kind, std::move(row), hashes[i - start]));
    }
  }
  return Status::OK();
}

Status TableWrite::ReserveKeys(size_t keys) {
  if (!cross_partition_) return Status::OK();
  if (!global_index_) TIDE_RETURN_IF_ERROR(LoadGlobalIndex());
  global_index_->ReserveKeys(keys);
  return Status::OK();
}

Status TableWrite::WriteCrossPartition(RowKind kind, Row&& row) {
  if (row.size() != schema_.fields.size()) return ValidateRow(kind, row);
  for (int k : primary_key_indices_) {
    if (row[static_cast<size_t>(k)].is_null()) {
      return Status::InvalidArgument("table {}: cannot write NULL to primary-key column '{}'", table_name_,
                                     schema_.fields[static_cast<size_t>(k)].name);
    }
  }
  if (!global_index_) TIDE_RETURN_IF_ERROR(LoadGlobalIndex());
  Status encoded = primary_key_writer_->WriteProjected(row, primary_key_indices_, &scratch_primary_key_);
  if (!encoded.ok()) return encoded.WithContext("table " + table_name_ + ", primary key");
  return WriteCrossPartitionKeyed(kind, std::move(row), KeyHashTable::Hash(scratch_primary_key_));
}

Status TableWrite::WriteCrossPartitionKeyed(RowKind kind, Row&& row, uint32_t key_hash) {
  // PartitionOf's answer holds until its next call, which nothing below makes.
  TIDE_ASSIGN_OR_RETURN(const std::string* own, PartitionOf(row));
  const std::string& own_partition = *own;
  indexed_writes_.clear();
  Status assigned = global_index_->Assign(kind, scratch_primary_key_, key_hash, own_partition, &indexed_writes_);
  if (!assigned.ok()) return Fail(assigned);
  if (indexed_writes_.empty()) {
    ++metrics_.rows_dropped;  // a retraction of a key the table does not hold, or a first row's successor
    return Status::OK();
  }
  if (indexed_writes_.size() > 1) ++metrics_.partition_moves;
  for (size_t i = 0; i < indexed_writes_.size(); ++i) {
    const IndexedWrite& w = indexed_writes_[i];
    // The last write takes the row itself (the columnar buffers copy its values and leave the caller
    // its storage to reuse); an earlier one, the retraction in the old partition, a copy.
    Row copy;
    if (i + 1 < indexed_writes_.size()) copy = row;
    Row& out = i + 1 == indexed_writes_.size() ? row : copy;
    const std::string& partition = global_index_->partition(w.partition_id);
    if (partition != own_partition) {
      // The row goes where its key lives: its partition columns say so.
      auto values = global_index_->PartitionValues(w.partition_id);
      if (!values.ok()) return Fail(values.status());
      for (size_t j = 0; j < partition_indices_.size(); ++j) {
        out[static_cast<size_t>(partition_indices_[j])] = (**values)[j];
      }
    }
    // The key index has moved on: a row that does not fit now stops the writer.
    Status valid = ValidateRow(w.kind, out);
    if (!valid.ok()) return Fail(valid);
    TIDE_ASSIGN_OR_RETURN(BucketWriter* writer, WriterAt(partition, w.bucket, out));
    Status put = writer->Put(std::move(out), ToValueKind(w.kind));
    if (!put.ok()) return Fail(put.WithContext("table " + table_name_));
  }
  ++metrics_.rows_written;
  if (MemoryFlushDue()) return FlushWhileOverBudget();
  return Status::OK();
}

namespace {

// Whether two values of one column encode to the same BinaryRow bytes: equal, and of one
// representation (a float compared by its bits: -0.0 and 0.0 are equal and encode apart). Nested
// values answer no: they are encoded each time.
bool SameEncoding(const Datum& a, const Datum& b) {
  const Datum::Storage& x = a.storage();
  const Datum::Storage& y = b.storage();
  if (x.index() != y.index()) return false;
  if (const auto* f = std::get_if<float>(&x)) return std::memcmp(f, std::get_if<float>(&y), sizeof(float)) == 0;
  if (const auto* d = std::get_if<double>(&x)) return std::memcmp(d, std::get_if<double>(&y), sizeof(double)) == 0;
  if (std::holds_alternative<std::shared_ptr<const NestedValue>>(x)) return false;
  return x == y;
}

}  // namespace

Result<const std::string*> TableWrite::PartitionOf(const Row& row) {
  if (partition_indices_.empty()) return &unpartitioned_;
  if (last_partition_values_.size() == partition_indices_.size()) {
    bool same = true;
    for (size_t j = 0; same && j < partition_indices_.size(); ++j) {
      const size_t i = static_cast<size_t>(partition_indices_[j]);
      same = i < row.size() && SameEncoding(row[i], last_partition_values_[j]);
    }
    if (same) return &last_partition_;
  }
  last_partition_values_.clear();
  Status st = partition_writer_->WriteProjected(row, partition_indices_, &scratch_partition_row_);
  if (!st.ok()) return st.WithContext("table " + table_name_ + ", partition columns");
  SerializeBinaryRowInto(scratch_partition_row_, static_cast<int32_t>(partition_indices_.size()), &last_partition_);
  for (int i : partition_indices_) last_partition_values_.push_back(row[static_cast<size_t>(i)]);
  return &last_partition_;
}

Result<TableWrite::BucketWriter*> TableWrite::WriterFor(const Row& row) {
  TIDE_ASSIGN_OR_RETURN(const std::string* partition, PartitionOf(row));
  int32_t bucket = 0;
  if (dynamic_index_) {
    // Java's HashBucketAssigner over the hash of the trimmed primary key (RowKind +I).
    Status st = key_writer_->WriteProjected(row, buffer_spec_.key_indices, &scratch_bucket_);
    if (!st.ok()) return st.WithContext("table " + table_name_ + ", primary key");
    last_key_hash_ = BinaryRowHashCode(scratch_bucket_);
    TIDE_ASSIGN_OR_RETURN(bucket, dynamic_index_->Assign(*partition, last_key_hash_));
  } else if (bucket_function_ && num_buckets_ > 1) {
    auto b = bucket_function_->BucketOfProjection(row, bucket_key_indices_, &scratch_bucket_);
    if (!b.ok()) return b.status().WithContext("table " + table_name_ + ", bucket key");
    bucket = *b;
  }
  return WriterAt(*partition, bucket, row);
}

Result<TableWrite::BucketWriter*> TableWrite::WriterAt(const std::string& partition, int32_t bucket, const Row& row) {
  if (last_writer_ && last_writer_->bucket == bucket && last_writer_->partition == partition) return last_writer_;
  scratch_key_ = WriterKey(partition, bucket);
  auto it = writers_.find(scratch_key_);
  BucketWriter* writer;
  if (it != writers_.end()) {
    writer = it->second.get();
  } else {
    TIDE_ASSIGN_OR_RETURN(writer, CreateBucketWriter(scratch_key_, partition, bucket, row));
  }
  last_writer_ = writer;
  return writer;
}

Result<TableWrite::BucketWriter*> TableWrite::CreateBucketWriter(std::string key, std::string partition, int32_t bucket,
                                                                 const Row& row) {
  Row values;
  for (int i : partition_indices_) values.push_back(row[static_cast<size_t>(i)]);
  TIDE_ASSIGN_OR_RETURN(std::string partition_path, FileStorePathFactory(table_path_, schema_, options_).PartitionPath(values));
  std::string bucket_dir = FileStorePathFactory::BucketPath(partition_path, bucket);
  // Bucket-unaware append writers start empty, at 0, as Java's AppendFileStoreWrite always ignores the
  // previous files (their sequence numbers order nothing: no compaction within the writer, no merge).
  int64_t next_sequence = 0;
  const RestoredBucket* restored = nullptr;
  if (num_buckets_ != -1 || dynamic_index_ || cross_partition_) {
    TIDE_ASSIGN_OR_RETURN(restored, RestoredBucketOf(key));
    if (restored) next_sequence = restored->max_sequence + 1;
    next_sequence = std::max(next_sequence, config_.sequence_floor);
  } else if (append_compaction_enabled()) {
    TIDE_ASSIGN_OR_RETURN(restored, RestoredBucketOf(key));  // its files, for compaction alone
  }
  std::optional<HashIndexSet> key_hashes;
  if (dynamic_index_) {
    TIDE_ASSIGN_OR_RETURN(key_hashes, dynamic_index_->RestoreBucket(partition, bucket));
  }
  auto writer = std::make_unique<BucketWriter>(key, std::move(partition), std::move(values), bucket,
                                               DataFilePathFactory(std::move(bucket_dir), options_), &buffer_spec_,
                                               memory_.get(), next_sequence);
  writer->key_hashes = std::move(key_hashes);
  writer->columns = NewColumnarBuffer();
  BucketWriter* raw = writer.get();
  if (compaction_enabled()) TIDE_RETURN_IF_ERROR(StartCompaction(raw, restored));
  if (append_compaction_enabled()) {
    std::vector<DataFileMeta> files = restored ? restored->files : std::vector<DataFileMeta>{};
    if (num_buckets_ > 0) {
      raw->append_compact = std::make_unique<BucketedAppendCompactManager>(
          std::move(files), compaction_executor_.get(), append_compaction_context_.get(), raw->paths.bucket_dir(),
          BucketedAppendCompactOptions::Of(options_));
    } else {
      auto unaware = std::make_unique<UnawareAppendCompactManager>(
          std::move(files), compaction_executor_.get(), append_compaction_context_.get(), raw->paths.bucket_dir(),
          unaware_plan_);
      raw->unaware_compact = unaware.get();
      raw->append_compact = std::move(unaware);
    }
  }
  writers_.emplace(std::move(key), std::move(writer));
  return raw;
}

Status TableWrite::StartCompaction(BucketWriter* writer, const RestoredBucket* restored) {
  std::vector<DataFileMeta> files;
  if (restored) files = restored->files;
  auto levels = Levels::Create(std::move(files), options_.num_levels(), context_->layout.key_types, table_name_);
  if (!levels.ok()) {
    return levels.status().WithContext(fmt::format("table {}: restoring the levels of bucket {} of {}", table_name_,
                                                   writer->bucket, writer->paths.bucket_dir()));
  }
  std::unique_ptr<BucketedDvMaintainer> dv;
  if (lookup_.deletion_vectors) {
    BucketedDvMaintainer::Options dv_options;
    dv_options.format = lookup_.bitmap64 ? DeletionVectorFormat::kBitmap64 : DeletionVectorFormat::kBitmap32;
    dv_options.index_dir = options_.index_file_in_data_file_dir() ? writer->paths.bucket_dir()
                                                                 : JoinPath(table_path_, "index");
    dv_options.file_prefix = dv_file_prefix_;
    dv_options.next_file = dv_next_file_;
    dv_options.table_name = table_name_;
    dv = std::make_unique<BucketedDvMaintainer>(std::move(dv_options));
    if (restored) {
      Status loaded = dv->Restore(fs_, restored->dv_index_files, restored->dv_index_paths);
      if (!loaded.ok()) {
        return loaded.WithContext(fmt::format("table {}: restoring the deletion vectors of bucket {} of {}",
                                              table_name_, writer->bucket, writer->paths.bucket_dir()));
      }
    }
  }
  writer->compact = std::make_unique<MergeTreeCompactManager>(std::move(levels).value(), compaction_executor_.get(),
                                                              compaction_context_.get(), writer->paths.bucket_dir(),
                                                              std::move(dv));
  return Status::OK();
}

Status TableWrite::SyncCompaction(BucketWriter* w, bool blocking) {
  if (!w->compact && !w->append_compact) return Status::OK();
  const bool waits = blocking && (w->compact ? w->compact->CompactionRunning() : w->append_compact->CompactionRunning());
  const auto wait_started = std::chrono::steady_clock::now();
  std::vector<DataFileMeta> before, after, changelog;
  bool done = false;
  Status failed;
  if (w->compact) {
    auto result = w->compact->GetCompactionResult(blocking);
    if (!result.ok()) {
      failed = result.status();
    } else if (*result) {
      done = true;
      before = std::move((*result)->before);
      after = std::move((*result)->after);
      changelog = std::move((*result)->changelog);
    }
  } else {
    auto result = w->append_compact->GetCompactionResult(blocking);
    if (!result.ok()) {
      failed = result.status();
    } else if (*result) {
      done = true;
      before = std::move((*result)->before);
      after = std::move((*result)->after);
    }
  }
  if (waits) {
    ++metrics_.compaction_waits;
    metrics_.compaction_wait_micros += std::chrono::duration_cast<std::chrono::microseconds>(
                                           std::chrono::steady_clock::now() - wait_started).count();
  }
  if (!failed.ok() && w->unaware_compact) {
    // A bucket-unaware partition's merge is an optimisation over files another engine may compact and
    // expire meanwhile: it is given up (its inputs stay as they are, and are not planned again by this
    // writer), and the writes go on.
    TIDE_LOG_WARN("table {}: a compaction of the small files of {} was given up: {}", table_name_,
                  w->paths.bucket_dir(), failed.ToString());
    ++metrics_.compactions_given_up;
    return Status::OK();
  }
  if (!failed.ok()) {
    return Fail(failed.WithContext(fmt::format("table {}: compaction of bucket {} of {}", table_name_, w->bucket,
                                               w->paths.bucket_dir())));
  }
  if (!done) return Status::OK();
  ApplyCompactResult(w, std::move(before), std::move(after), std::move(changelog));
  return Status::OK();
}

void TableWrite::ApplyCompactResult(BucketWriter* w, std::vector<DataFileMeta> before, std::vector<DataFileMeta> after,
                                    std::vector<DataFileMeta> changelog) {
  ++metrics_.compactions;
  metrics_.compacted_files_before += static_cast<int64_t>(before.size());
  metrics_.compacted_files_after += static_cast<int64_t>(after.size());
  std::set<std::string> after_names;
  for (const auto& f : after) after_names.insert(f.file_name);
  for (auto& file : before) {
    // A file produced by an earlier compaction that no commit has seen yet is an intermediate file:
    // it leaves compact_after, and is deleted unless it is the input or output of an upgrade (the
    // same file at another level, which earlier and later snapshots still need).
    auto produced = std::find_if(w->compact_after.begin(), w->compact_after.end(), [&](const DataFileMeta& f) {
      return f.file_name == file.file_name && f.level == file.level;
    });
    if (produced != w->compact_after.end()) {
      w->compact_after.erase(produced);
      bool upgraded = after_names.count(file.file_name) > 0 ||
                      std::any_of(w->compact_before.begin(), w->compact_before.end(),
                                  [&](const DataFileMeta& f) { return f.file_name == file.file_name; });
      if (!upgraded) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), file.file_name)).IgnoreError();
      continue;
    }
    // A new file of this commit (level 0, not yet handed out) compacted away before its commit: the
    // commit's APPEND part still adds it and the COMPACT part deletes it, as in Java.
    w->compact_before.push_back(std::move(file));
  }
  for (auto& f : after) w->compact_after.push_back(std::move(f));
  for (auto& f : changelog) w->compact_changelog.push_back(std::move(f));
}

Status TableWrite::CompactLevel0(BucketWriter* w) {
  // Java's MergeTreeWriter with lookup-wait: the flush waits for the running compaction before it
  // triggers the next one (which forces level 0 up), and the commit waits for that one. With
  // `lookup-compact` gentle level 0 goes up only every few triggers: the commit waits for the running
  // compaction alone.
  if (lookup_.gentle_interval) return SyncCompaction(w, true);
  for (int round = 0; round < 3 && w->compact->levels().Level0Count() > 0; ++round) {
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
    w->compact->TriggerCompaction(false);
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
  }
  return Status::OK();
}

Status TableWrite::Compact(bool full, const std::optional<std::vector<Row>>& partitions,
                           const std::optional<std::vector<int32_t>>& buckets) {
  if (!failed_.ok()) return failed_;
  TIDE_RETURN_IF_ERROR(AwaitFlushes());
  if (!schema_.HasPrimaryKey() && num_buckets_ == -1) return CompactUnawareBuckets(full, partitions);
  if (!compaction_enabled() && !append_compaction_enabled()) {
    return Status::InvalidArgument("table {} has 'write-only' = 'true': its writers do not compact; unset it to "
                                   "compact the table",
                                   table_name_);
  }
  TIDE_RETURN_IF_ERROR(LoadRestore());
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> keys, KeysIn(restored_, partition_types_, partitions, buckets));
  for (const std::string& key : keys) {
    BucketWriter* w;
    if (auto it = writers_.find(key); it != writers_.end()) {
      w = it->second.get();
    } else {
      const RestoredBucket& where = restored_.at(key);
      TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(where.partition, partition_types_));
      Row row(schema_.fields.size());
      for (size_t i = 0; i < partition_indices_.size(); ++i) row[static_cast<size_t>(partition_indices_[i])] = values[i];
      TIDE_ASSIGN_OR_RETURN(w, CreateBucketWriter(key, where.partition, where.bucket, row));
    }
    TIDE_RETURN_IF_ERROR(Flush(w));
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
    if (w->compact) {
      w->compact->TriggerCompaction(full);
    } else {
      w->append_compact->TriggerCompaction(full);
    }
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
  }
  return Status::OK();
}

Status TableWrite::CompactUnawareBuckets(bool full, const std::optional<std::vector<Row>>& partitions) {
  if (options_.deletion_vectors_enabled()) {
    return Status::NotSupported(
        "table {}: compaction of a bucket-unaware append table with deletion vectors is not supported yet", table_name_);
  }
  if (!append_compaction_context_) {
    auto context = AppendCompactContext::Create(fs_, table_path_, table_name_, schema_, options_, config_.creation_time_ms);
    if (!context.ok()) return context.status();
    append_compaction_context_ = std::move(context).value();
    restore_snapshot_id_.reset();  // read the files of the buckets this time
  }
  TIDE_ASSIGN_OR_RETURN(AppendCompactPlanOptions plan_options, AppendCompactPlanOptions::Of(options_, full));
  TIDE_RETURN_IF_ERROR(LoadRestore());
  TIDE_ASSIGN_OR_RETURN(std::vector<std::string> keys, KeysIn(restored_, partition_types_, partitions, std::nullopt));
  for (const std::string& key : keys) {
    const RestoredBucket& where = restored_.at(key);
    BucketWriter* w = nullptr;
    if (auto it = writers_.find(key); it != writers_.end()) w = it->second.get();
    // Planned once, as Java's batch compaction: over the partition's live files, or, where this writer
    // compacts beside its writes, over the files its manager holds (its own merges taken first).
    const std::vector<DataFileMeta>* files = &where.files;
    if (w && w->unaware_compact) {
      TIDE_RETURN_IF_ERROR(Flush(w));
      TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
      files = &w->unaware_compact->to_compact();
    }
    std::vector<std::vector<DataFileMeta>> tasks = PlanAppendCompaction(*files, plan_options);
    if (tasks.empty()) continue;
    if (!w) {
      TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(where.partition, partition_types_));
      Row row(schema_.fields.size());
      for (size_t i = 0; i < partition_indices_.size(); ++i) row[static_cast<size_t>(partition_indices_[i])] = values[i];
      TIDE_ASSIGN_OR_RETURN(w, CreateBucketWriter(key, where.partition, where.bucket, row));
    }
    std::vector<DataFileMeta> outputs;
    for (std::vector<DataFileMeta>& task : tasks) {
      if (w->unaware_compact) w->unaware_compact->Remove(task);
      auto after = RewriteAppendFiles(append_compaction_context_.get(), w->paths.bucket_dir(), task);
      if (!after.ok()) return Fail(after.status());
      outputs.insert(outputs.end(), after->begin(), after->end());
      ApplyCompactResult(w, std::move(task), std::move(after).value(), {});
    }
    if (w->unaware_compact) {
      for (auto& f : outputs) w->unaware_compact->AddNewFile(std::move(f));
    }
  }
  return Status::OK();
}

Status TableWrite::LoadRestore() {
  SnapshotManager snapshots(fs_, table_path_);
  auto latest = snapshots.LatestId();
  if (!latest.ok()) return latest.status().WithContext("table " + table_name_ + ", restoring the writer");
  if (config_.ignore_previous_files) latest = std::optional<int64_t>();
  if (!*latest) {
    restore_snapshot_id_.reset();
    restored_.clear();
    return Status::OK();
  }
  if (restore_snapshot_id_ == *latest) return Status::OK();
  auto snapshot = snapshots.Get(**latest);
  if (!snapshot.ok()) return snapshot.status().WithContext("table " + table_name_ + ", restoring the writer");
  FileStoreScan scan(fs_, table_path_, table_name_, schema_);
  auto entries = scan.ReadLiveEntries(*snapshot);
  if (!entries.ok()) return entries.status().WithContext("table " + table_name_ + ", restoring the writer");
  restored_.clear();
  for (ManifestEntry& e : *entries) {
    auto [it, inserted] = restored_.try_emplace(WriterKey(e.partition, e.bucket));
    RestoredBucket& b = it->second;
    if (inserted) {
      b.partition = e.partition;
      b.bucket = e.bucket;
      b.max_sequence = e.file.max_sequence_number;
    }
    b.max_sequence = std::max(b.max_sequence, e.file.max_sequence_number);
    if (keeps_restored_files()) b.files.push_back(std::move(e.file));
  }
  if (compaction_enabled() && lookup_.deletion_vectors && snapshot->index_manifest) {
    // The buckets' deletion vectors of the same snapshot, for their maintainers.
    auto index = ReadIndexManifest(fs_, scan.ManifestPath(*snapshot->index_manifest));
    if (!index.ok()) return index.status().WithContext("table " + table_name_ + ", restoring deletion vectors");
    for (IndexManifestEntry& ie : *index) {
      if (ie.kind != FileKind::kAdd || ie.index_type != kDeletionVectorsIndexType) continue;
      auto it = restored_.find(WriterKey(ie.partition, ie.bucket));
      if (it == restored_.end()) continue;
      std::string path;
      if (ie.external_path) {
        return Status::NotSupported("table {}: deletion-vector index file {} has an external path, which Tide's "
                                    "writer cannot restore",
                                    table_name_, ie.file_name);
      }
      path = JoinPath(JoinPath(table_path_, "index"), ie.file_name);
      auto exists = fs_->Exists(path);
      if (!exists.ok()) return exists.status();
      if (!*exists) {
        // index-file-in-data-file-dir keeps DV files beside the data files.
        TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(ie.partition, partition_types_));
        TIDE_ASSIGN_OR_RETURN(std::string partition_path,
                              FileStorePathFactory(table_path_, schema_, options_).PartitionPath(values));
        path = JoinPath(FileStorePathFactory::BucketPath(partition_path, ie.bucket), ie.file_name);
      }
      it->second.dv_index_paths.push_back(std::move(path));
      it->second.dv_index_files.push_back(std::move(ie));
    }
  }
  restore_snapshot_id_ = **latest;
  return Status::OK();
}

Result<const TableWrite::RestoredBucket*> TableWrite::RestoredBucketOf(const std::string& writer_key) {
  TIDE_RETURN_IF_ERROR(LoadRestore());
  auto it = restored_.find(writer_key);
  return it == restored_.end() ? nullptr : &it->second;
}

Status TableWrite::FlushWhileOverBudget() {
  while (MemoryFlushDue()) {
    BucketWriter* largest = nullptr;
    for (auto& [key, writer] : writers_) {
      if (!largest || writer->BufferBytes() > largest->BufferBytes()) largest = writer.get();
    }
    if (!largest || largest->BufferEmpty()) break;
    ++metrics_.memory_flushes;
    if (flush_executor_ && largest->columns) {
      TIDE_RETURN_IF_ERROR(FlushAhead(largest));
    } else {
      TIDE_RETURN_IF_ERROR(Flush(largest, /*memory_flush=*/true));
    }
  }
  return Status::OK();
}

Status TableWrite::FlushAhead(BucketWriter* w) {
  const int64_t bytes = w->columns->memory_bytes();
  // What finished is booked now (its files reach compaction early); the buffers in flight hold at most
  // half the budget, so the oldest are waited for while this one would pass it (one larger than
  // that goes alone).
  TIDE_RETURN_IF_ERROR(AwaitFlushes(/*keep=*/0, /*finished_only=*/true));
  const int64_t limit = memory_->budget() / 2;
  while (!flushes_in_flight_.empty() && in_flight_bytes_.load() + bytes > limit) {
    TIDE_RETURN_IF_ERROR(AwaitFlushes(flushes_in_flight_.size() - 1));
  }
  FlushInFlight flight;
  flight.writer = w;
  flight.columns = std::move(w->columns);
  w->columns = NewColumnarBuffer();  // the bucket's next rows; its sequence numbers go on
  ColumnarWriteBuffer* columns = flight.columns.get();
  in_flight_bytes_ += bytes;
  // One flush thread, so a bucket's flushes are written, and booked, in the order of their rows.
  flight.files = flush_executor_->Submit<std::pair<Result<FlushedFiles>, int64_t>>([this, w, columns, bytes] {
    const auto started = std::chrono::steady_clock::now();
    Result<FlushedFiles> files = cancel_flushes_.load()
                                     ? Result<FlushedFiles>(Status::Aborted("table {}: a flush abandoned", table_name_))
                                     : WriteBufferFiles(w, columns);
    columns->Clear();  // its memory goes back, written or not (a flush may fail before it drains)
    in_flight_bytes_ -= bytes;
    return std::make_pair(std::move(files), static_cast<int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                                     std::chrono::steady_clock::now() - started)
                                                                     .count()));
  });
  flushes_in_flight_.push_back(std::move(flight));
  ++metrics_.flushes_ahead;
  return Status::OK();
}

Status TableWrite::AwaitFlushes(size_t keep, bool finished_only) {
  Status first;
  while (flushes_in_flight_.size() > keep) {
    FlushInFlight& oldest = flushes_in_flight_.front();
    if (finished_only && oldest.files.wait_for(std::chrono::seconds(0)) != std::future_status::ready) break;
    auto [files, micros] = oldest.files.get();
    BucketWriter* w = oldest.writer;
    flushes_in_flight_.pop_front();
    metrics_.flush_ahead_micros += micros;
    // The files of flushes that worked are booked also after one failed, so Abort removes them.
    Status booked = files.ok() ? AddFlushedFiles(w, std::move(*files), /*memory_flush=*/true) : files.status();
    if (!booked.ok() && first.ok()) first = booked;
  }
  if (!first.ok()) return Fail(first);
  return Status::OK();
}

Result<std::vector<DataFileMeta>> TableWrite::CopyAsChangelog(BucketWriter* w, const std::vector<DataFileMeta>& data_files) {
  std::vector<DataFileMeta> copies;
  auto remove_copies = [&] {
    for (const auto& f : copies) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), f.file_name)).IgnoreError();
  };
  for (const DataFileMeta& data_file : data_files) {
    DataFileMeta copy = data_file;
    copy.file_name = w->paths.NewChangelogFileName();
    const std::string source = JoinPath(w->paths.bucket_dir(), data_file.file_name);
    const std::string path = JoinPath(w->paths.bucket_dir(), copy.file_name);
    // A second name for the same bytes where the file system links (files are immutable; expiry deletes
    // each name on its own), else a copy.
    Status linked = fs_->LinkFile(source, path);
    if (linked.ok()) {
      copies.push_back(std::move(copy));
      continue;
    }
    if (!linked.IsNotSupported()) {
      remove_copies();
      return linked;
    }
    Result<std::string> bytes = fs_->ReadFile(source);
    if (!bytes.ok()) {
      remove_copies();
      return bytes.status();
    }
    Result<std::unique_ptr<WritableFile>> file = fs_->NewWritableFile(path);
    Status written = file.ok() ? (*file)->Append(*bytes) : file.status();
    if (written.ok()) written = (*file)->Close();  // durable, as the encoder's files are
    if (!written.ok()) {
      if (file.ok()) fs_->DeleteFile(path).IgnoreError();
      remove_copies();
      return written;
    }
    copies.push_back(std::move(copy));
  }
  // Their names become durable with the data files' (PrepareCommit syncs the bucket folder).
  return copies;
}

Status TableWrite::Flush(BucketWriter* w, bool memory_flush) {
  if (w->BufferEmpty()) return Status::OK();
  const auto started = std::chrono::steady_clock::now();
  auto files = WriteBufferFiles(w);
  metrics_.flush_micros +=
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
  if (!files.ok()) return Fail(files.status());
  return AddFlushedFiles(w, std::move(*files), memory_flush);
}

bool TableWrite::LargeFlushesMayStartAtMaxLevel() const {
  // Changelog from compaction (lookup, full-compaction) needs the records to pass through it; lookup
  // tables (first-row, deletion vectors, force-lookup) and the other merge engines keep level 0.
  return compaction_enabled() && options_.merge_engine() == MergeEngine::kDeduplicate && !lookup_.need_lookup &&
         (options_.changelog_producer() == ChangelogProducer::kNone ||
          options_.changelog_producer() == ChangelogProducer::kInput);
}

Result<TableWrite::FlushedFiles> TableWrite::WriteBufferFiles(BucketWriter* w, ColumnarWriteBuffer* columns) {
  if (columns == nullptr) columns = w->columns.get();
  DataFileWriteContext* ctx = context_.get();
  if (!w->folder_ready) {
    // Create the bucket folder and make its entry, and those of any partition folders created with it,
    // durable: the files' own folder is synced by the Parquet writer, its ancestors are not.
    const std::string& dir = w->paths.bucket_dir();
    Status made = fs_->MakeDirs(dir);
    if (!made.ok()) return made.WithContext("table " + table_name_);
    std::string folder = dir;
    while (folder.size() > table_path_.size() && StartsWith(folder, table_path_)) {
      Status synced = SyncLocalDirectory(folder);
      if (!synced.ok()) return synced.WithContext("table " + table_name_);
      folder = std::string(DirName(folder));
    }
    Status synced = SyncLocalDirectory(table_path_);
    if (!synced.ok()) return synced.WithContext("table " + table_name_);
    w->folder_ready = true;
  }
  const bool primary_key = ctx->layout.primary_key;
  auto data_factory = [ctx, w, primary_key]() -> Result<std::unique_ptr<DataFileWriter>> {
    std::string path = JoinPath(w->paths.bucket_dir(), w->paths.NewDataFileName());
    if (primary_key) {
      TIDE_ASSIGN_OR_RETURN(auto writer, KeyValueFileWriter::Create(ctx, std::move(path)));
      return std::unique_ptr<DataFileWriter>(std::move(writer));
    }
    TIDE_ASSIGN_OR_RETURN(auto writer, AppendFileWriter::Create(ctx, std::move(path)));
    return std::unique_ptr<DataFileWriter>(std::move(writer));
  };
  RollingDataFileWriter data(data_factory, options_.target_file_size(), fs_);
  std::optional<RollingDataFileWriter> changelog;
  if (primary_key && options_.changelog_producer() == ChangelogProducer::kInput) {
    changelog.emplace(
        [ctx, w]() -> Result<std::unique_ptr<DataFileWriter>> {
          std::string path = JoinPath(w->paths.bucket_dir(), w->paths.NewChangelogFileName());
          TIDE_ASSIGN_OR_RETURN(auto writer, KeyValueFileWriter::Create(ctx, std::move(path)));
          return std::unique_ptr<DataFileWriter>(std::move(writer));
        },
        options_.target_file_size(), fs_);
  }
  WriteBuffer::Consumer to_data = [&data](KeyValue& kv) { return data.Write(kv.row, kv.sequence, kv.kind); };
  WriteBuffer::Consumer to_changelog = [&changelog](KeyValue& kv) {
    return changelog->Write(kv.row, kv.sequence, kv.kind);
  };
  // When no key repeats in the buffer (an initial copy), the changelog holds exactly the data files'
  // records: their files are copied byte for byte instead of encoded twice.
  bool changelog_is_data = false;
  Status drained;
  if (columns) {
    ColumnarWriteBuffer::Consumer columns_to_data = [&data](const std::vector<const ColumnVector*>& columns,
                                                            const ColumnVector& sequences, const ColumnVector& kinds,
                                                            const uint32_t* rows, size_t n) {
      return data.WriteColumns(columns, sequences, kinds, rows, n);
    };
    ColumnarWriteBuffer::Consumer columns_to_changelog =
        [&changelog](const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                     const ColumnVector& kinds, const uint32_t* rows, size_t n) {
          return changelog->WriteColumns(columns, sequences, kinds, rows, n);
        };
    drained = columns->Drain(columns_to_data, changelog ? &columns_to_changelog : nullptr,
                                changelog ? &changelog_is_data : nullptr);
  } else {
    drained = w->buffer.Drain(to_data, changelog ? &to_changelog : nullptr, changelog ? &changelog_is_data : nullptr);
  }
  Result<std::vector<DataFileMeta>> data_files = drained.ok() ? data.Finish() : Result<std::vector<DataFileMeta>>(drained);
  Result<std::vector<DataFileMeta>> changelog_files = std::vector<DataFileMeta>{};
  if (data_files.ok() && changelog) {
    changelog_files = changelog_is_data ? CopyAsChangelog(w, *data_files) : changelog->Finish();
  }
  if (!data_files.ok() || !changelog_files.ok()) {
    data.Abort();
    if (changelog) changelog->Abort();
    if (data_files.ok()) {
      for (const auto& f : *data_files) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), f.file_name)).IgnoreError();
    }
    Status error = !data_files.ok() ? data_files.status() : changelog_files.status();
    return error.WithContext(fmt::format("table {}: flushing bucket {} of partition folder {}", table_name_, w->bucket,
                                         w->paths.bucket_dir()));
  }
  return FlushedFiles{std::move(*data_files), std::move(*changelog_files)};
}

Status TableWrite::AddFlushedFiles(BucketWriter* w, FlushedFiles files, bool memory_flush) {
  ++metrics_.flushes;
  metrics_.data_files += static_cast<int64_t>(files.data.size());
  metrics_.changelog_files += static_cast<int64_t>(files.changelog.size());
  // Too many sorted runs before this flush: wait for the running compaction before going on (the write
  // stall; Java's MergeTreeWriter decides it before adding the flushed files).
  const bool stall = w->compact && w->compact->ShouldWaitForLatestCompaction();
  // A large flush of keys no file of the bucket holds (an initial copy, read in key order; a bulk load
  // of new keys) goes to the max level: at level 0 it would be a sorted run of its own, and the
  // bucket's first compaction would rewrite it whole (the copy's every row, again, while the stream
  // runs). Small flushes keep level 0, so compaction still merges them into files of a good size.
  bool at_max_level = false;
  if ((memory_flush || bulk_load_) && w->compact && LargeFlushesMayStartAtMaxLevel() &&
      std::all_of(files.data.begin(), files.data.end(),
                  [](const DataFileMeta& f) { return f.delete_row_count && *f.delete_row_count == 0; })) {
    auto added = w->compact->AddNewFilesAtMaxLevel(&files.data);
    if (!added.ok()) return Fail(added.status());
    at_max_level = *added;
    if (at_max_level) ++metrics_.flushes_at_max_level;
  }
  for (auto& f : files.data) {
    if (w->compact && !at_max_level) {
      Status added = w->compact->AddNewFile(f);
      if (!added.ok()) return Fail(added);
    }
    if (w->append_compact) w->append_compact->AddNewFile(f);
    w->new_files.push_back(std::move(f));
  }
  for (auto& f : files.changelog) w->changelog_files.push_back(std::move(f));
  if (w->compact) {
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, stall));
    w->compact->TriggerCompaction(false);
  }
  if (w->append_compact) {
    // Java's AppendOnlyWriter.flush: take a finished compaction, then pick the next one.
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, false));
    w->append_compact->TriggerCompaction(false);
  }
  return Status::OK();
}

BucketFileCounts TableWrite::FileCounts() const {
  BucketFileCounts counts;
  for (const auto& [key, w] : writers_) {
    if (w->unaware_compact) continue;  // knows only a partition's small files
    if (w->append_compact) {
      const auto files = static_cast<int64_t>(w->append_compact->FileCount());
      ++counts.buckets;
      counts.files += files;
      counts.max_files = std::max(counts.max_files, files);
      continue;
    }
    if (!w->compact) continue;
    const Levels& levels = w->compact->levels();
    const auto files = static_cast<int64_t>(levels.FileCount());
    ++counts.buckets;
    counts.files += files;
    counts.max_files = std::max(counts.max_files, files);
    counts.max_sorted_runs = std::max(counts.max_sorted_runs, static_cast<int64_t>(levels.NumberOfSortedRuns()));
  }
  return counts;
}

bool TableWrite::ParallelFlushes() const {
  // Buffers of a deduplicate or append table drain independently; other merge engines share state
  // between buffers (the aggregation's accumulators).
  return context_->parallel_writes &&
         (!context_->layout.primary_key || options_.merge_engine() == MergeEngine::kDeduplicate);
}

Status TableWrite::FlushAll(const std::vector<BucketWriter*>& writers) {
  std::vector<BucketWriter*> dirty;
  for (BucketWriter* w : writers) {
    if (!w->BufferEmpty()) dirty.push_back(w);
  }
  if (dirty.size() < 2 || !ParallelFlushes()) {
    for (BucketWriter* w : dirty) TIDE_RETURN_IF_ERROR(Flush(w));
    return Status::OK();
  }
  // The buckets of a commit flush side by side: their encoding shares the CPUs, and their files'
  // fsyncs overlap (a commit touching many partitions waits for one round of fsyncs, not one per
  // bucket). Booking the files (compaction, lists, metrics) stays on this thread, in bucket order.
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::optional<Result<FlushedFiles>>> results(dirty.size());
  ParallelFor(dirty.size(), kFlushThreads, "tide-flush", [&](size_t i) { results[i] = WriteBufferFiles(dirty[i]); });
  metrics_.flush_micros +=
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
  Status first;
  for (size_t i = 0; i < dirty.size(); ++i) {
    Result<FlushedFiles>& files = *results[i];
    // Files of the buckets that flushed are booked also after another failed, so Abort removes them.
    Status booked = files.ok() ? AddFlushedFiles(dirty[i], std::move(*files)) : files.status();
    if (!booked.ok() && first.ok()) first = booked;
  }
  if (!first.ok()) return Fail(first);
  return Status::OK();
}

Result<std::vector<CommitMessage>> TableWrite::PrepareCommit() {
  if (!failed_.ok()) return failed_;
  TIDE_RETURN_IF_ERROR(AwaitFlushes());
  ++prepared_commits_;
  std::vector<BucketWriter*> ordered;
  for (auto& [key, writer] : writers_) ordered.push_back(writer.get());
  std::sort(ordered.begin(), ordered.end(), [](const BucketWriter* a, const BucketWriter* b) {
    if (a->partition != b->partition) return a->partition < b->partition;
    return a->bucket < b->bucket;
  });
  TIDE_RETURN_IF_ERROR(FlushAll(ordered));
  bool full = false;
  if (compaction_enabled() && options_.full_compaction_delta_commits()) {
    full = ++commits_since_full_compaction_ >= *options_.full_compaction_delta_commits();
    if (full) commits_since_full_compaction_ = 0;
  }
  for (BucketWriter* w : ordered) {
    if (w->append_compact) {
      // Java's AppendOnlyWriter.prepareCommit: a finished compaction goes with this commit; a running
      // one is waited for only with commit.force-compact.
      TIDE_RETURN_IF_ERROR(SyncCompaction(w, options_.commit_force_compact()));
      continue;
    }
    if (!w->compact) continue;
    if (full) {
      TIDE_RETURN_IF_ERROR(SyncCompaction(w, true));
      w->compact->TriggerCompaction(true);
    }
    // Deletion vectors: a running task holds the bucket's vectors half-changed, and a finished one's
    // files need its vectors in the same commit, so the commit waits for it.
    bool wait = full || options_.commit_force_compact() || w->compact->ShouldWaitForPreparingCheckpoint() ||
                lookup_.deletion_vectors;
    TIDE_RETURN_IF_ERROR(SyncCompaction(w, wait));
    if (lookup_.need_lookup && lookup_.wait) TIDE_RETURN_IF_ERROR(CompactLevel0(w));
  }
  // Data, changelog and compaction files are written under their final names without syncing their
  // folder (ParquetWriteOptions::write_in_place): their names become durable here, one folder sync per
  // bucket and commit, before any snapshot can list them. The syncs wait on the disk, not a CPU: side
  // by side they share its journal commits (a commit touching every day of a table syncs as many
  // folders).
  std::vector<const std::string*> folders;
  for (BucketWriter* w : ordered) {
    if (w->new_files.empty() && w->changelog_files.empty() && w->compact_after.empty()) continue;
    folders.push_back(&w->paths.bucket_dir());
  }
  std::vector<Status> synced(folders.size());
  ParallelFor(folders.size(), kSyncThreads, "tide-sync-dir",
              [&](size_t i) { synced[i] = SyncLocalDirectory(*folders[i]); });
  for (const Status& st : synced) {
    if (!st.ok()) return Fail(st.WithContext("table " + table_name_));
  }
  std::vector<CommitMessage> messages;
  for (BucketWriter* w : ordered) {
    std::optional<IndexManifestEntry> index_file;
    if (w->key_hashes_modified) {
      // The bucket's whole hash set, as a new HASH file (DynamicBucketIndexMaintainer.prepareCommit).
      auto written = dynamic_index_->WriteIndexFile(w->partition, w->bucket, *w->key_hashes);
      if (!written.ok()) return Fail(written.status());
      index_file = std::move(written).value();
      w->key_hashes_modified = false;
    }
    std::optional<IndexManifestEntry> dv_file;
    if (w->compact && w->compact->dv() && w->compact->dv()->modified()) {
      // The bucket's vectors as one new DV index file (Java's CompactDeletionFile.generateFiles), which
      // replaces the bucket's previous one in the COMPACT snapshot's index manifest.
      auto written = w->compact->dv()->WriteIndexFile(fs_);
      if (!written.ok()) return Fail(written.status());
      dv_file = std::move(written).value();
      dv_file->partition = w->partition;
      dv_file->bucket = w->bucket;
    }
    if (w->new_files.empty() && w->changelog_files.empty() && !index_file && !dv_file && w->compact_before.empty() &&
        w->compact_after.empty() && w->compact_changelog.empty()) {
      continue;
    }
    CommitMessage m;
    m.partition = w->partition;
    m.bucket = w->bucket;
    m.total_buckets = num_buckets_;
    m.new_files = std::move(w->new_files);
    m.changelog_files = std::move(w->changelog_files);
    m.compact_before = std::move(w->compact_before);
    m.compact_after = std::move(w->compact_after);
    m.compact_changelog_files = std::move(w->compact_changelog);
    w->compact_before.clear();
    w->compact_after.clear();
    w->compact_changelog.clear();
    if (index_file) m.new_index_files.push_back(std::move(*index_file));
    if (dv_file) m.new_index_files.push_back(std::move(*dv_file));
    w->new_files.clear();
    w->changelog_files.clear();
    w->last_modified_commit = prepared_commits_;
    messages.push_back(std::move(m));
  }
  CloseIdleWriters();
  if (dynamic_index_) dynamic_index_->PrepareCommit(prepared_commits_, last_handed_out_commit_);
  if (!messages.empty()) last_handed_out_commit_ = prepared_commits_;
  return messages;
}

void TableWrite::CloseIdleWriters() {
  // The first commit that hands out anything closes nothing (Java's "first commit" rule); nor do
  // writers for an OVERWRITE, which would reopen empty and restart their sequence numbers.
  if (last_handed_out_commit_ < 0 || config_.ignore_previous_files) return;
  for (auto it = writers_.begin(); it != writers_.end();) {
    BucketWriter* w = it->second.get();
    // A compaction running, or finished and not yet taken, is still the bucket's to hand out.
    const bool compacting = (w->compact && w->compact->CompactionRunning()) ||
                            (w->append_compact && w->append_compact->CompactionRunning());
    if (w->last_modified_commit == prepared_commits_ || w->last_modified_commit >= last_handed_out_commit_ ||
        compacting || !w->BufferEmpty()) {
      ++it;
      continue;
    }
    if (last_writer_ == w) last_writer_ = nullptr;
    it = writers_.erase(it);
  }
}

int64_t TableWrite::NextSequenceFloor() const {
  int64_t floor = config_.sequence_floor;
  for (const auto& [key, w] : writers_) floor = std::max(floor, w->next_sequence);
  return floor;
}

void TableWrite::Abort() {
  // Flushes in flight: those not started are abandoned, the files of the others go with the rest (no
  // commit will list them).
  cancel_flushes_ = true;
  for (FlushInFlight& flight : flushes_in_flight_) {
    auto [files, micros] = flight.files.get();
    if (!files.ok()) continue;
    for (const auto* list : {&files->data, &files->changelog}) {
      for (const DataFileMeta& f : *list) {
        fs_->DeleteFile(JoinPath(flight.writer->paths.bucket_dir(), f.file_name)).IgnoreError();
      }
    }
  }
  flushes_in_flight_.clear();
  cancel_flushes_ = false;
  for (auto& [key, w] : writers_) {
    w->ClearBuffer();
    if (w->append_compact) {
      // A running compaction's files go with it (its manager deletes them); finished ones not handed
      // out are deleted below (append compaction always writes new files).
      w->unaware_compact = nullptr;
      w->append_compact.reset();
      for (const auto& f : w->compact_after) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), f.file_name)).IgnoreError();
    }
    if (w->compact) {
      // A running compaction's files go with it (its manager deletes them); finished ones not handed
      // out are deleted below, except files an upgrade only moved to another level.
      w->compact.reset();
      std::set<std::string> moved;
      for (const auto& f : w->compact_before) moved.insert(f.file_name);
      for (const auto& f : w->compact_after) {
        if (!moved.count(f.file_name)) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), f.file_name)).IgnoreError();
      }
    }
    for (const auto* files : {&w->new_files, &w->changelog_files, &w->compact_changelog}) {
      for (const DataFileMeta& f : *files) fs_->DeleteFile(JoinPath(w->paths.bucket_dir(), f.file_name)).IgnoreError();
    }
  }
  // The writers' levels and sequence numbers may reflect work no commit will publish: start afresh
  // from the latest snapshot.
  writers_.clear();
  last_writer_ = nullptr;
  restore_snapshot_id_.reset();
  // Bucket assignments made for the dropped rows go too: the indexes are read again from the table.
  if (dynamic_index_) dynamic_index_ = std::make_unique<DynamicBucketIndex>(fs_, table_path_, table_name_, dynamic_options_);
  global_index_.reset();
}

Status TableWrite::CheckSchemaContinues(const TableSchema& current, const TableSchema& next, const std::string& table_name) {
  auto refuse = [&](const std::string& what) {
    return Status::NotSupported("table {}: a writer cannot go on from schema {} to schema {} within one commit: {}",
                                table_name, current.id, next.id, what);
  };
  if (next.fields.size() < current.fields.size()) return refuse("columns were removed");
  if (next.primary_keys != current.primary_keys) return refuse("the primary key changed");
  if (next.partition_keys != current.partition_keys) return refuse("the partition keys changed");
  std::set<std::string> keyed(current.primary_keys.begin(), current.primary_keys.end());
  keyed.insert(current.partition_keys.begin(), current.partition_keys.end());
  for (const std::string& k : current.BucketKeys()) keyed.insert(k);
  for (const auto& [key, value] : current.options) {
    if (key == "sequence.field") {
      for (const std::string& f : SplitTrimmed(value, ',')) keyed.insert(f);
    }
  }
  for (size_t i = 0; i < current.fields.size(); ++i) {
    const DataField& was = current.fields[i];
    const DataField& now = next.fields[i];
    if (now.id != was.id) return refuse(fmt::format("column {} moved or was replaced", was.name));
    if (keyed.count(was.name) && (now.name != was.name || !now.type.EqualsIgnoreNullable(was.type))) {
      return refuse(fmt::format("key column {} was renamed or changed type ({} to {})", was.name,
                                was.type.ToString(), now.type.ToString()));
    }
    if (was.type.nullable() && !now.type.nullable()) {
      return refuse(fmt::format("column {} became NOT NULL", was.name));
    }
  }
  for (size_t i = current.fields.size(); i < next.fields.size(); ++i) {
    if (!next.fields[i].type.nullable()) {
      return refuse(fmt::format("new column {} is NOT NULL (the rows before it have no value)", next.fields[i].name));
    }
  }
  auto own_options = [](const std::map<std::string, std::string>& options) {
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : options) {
      if (!StartsWith(key, "tide.")) out.emplace(key, value);
    }
    return out;
  };
  if (own_options(current.options) != own_options(next.options)) return refuse("table options changed");
  return Status::OK();
}

Status TableWrite::ChangeSchema(TableSchema next) {
  if (!failed_.ok()) return failed_;
  TIDE_RETURN_IF_ERROR(AwaitFlushes());
  TIDE_RETURN_IF_ERROR(CheckSchemaContinues(schema_, next, table_name_));
  // What is built for the new schema first: a failure here leaves the writer as it was.
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(next, table_name_));
  ApplyWriterOverrides(config_, &options);
  TIDE_ASSIGN_OR_RETURN(DataFileLayout layout, DataFileLayout::Create(next, options, table_name_));
  std::unique_ptr<WriteMergeFunction> merge;
  if (next.HasPrimaryKey()) {
    TIDE_ASSIGN_OR_RETURN(merge, WriteMergeFunction::Create(next, table_name_));
  }
  std::unique_ptr<CompactionContext> compaction;
  if (compaction_context_) {
    TIDE_ASSIGN_OR_RETURN(compaction, CompactionContext::Create(fs_, table_path_, table_name_, next, options,
                                                                config_.creation_time_ms));
  }
  std::unique_ptr<AppendCompactContext> append_compaction;
  if (append_compaction_context_) {
    TIDE_ASSIGN_OR_RETURN(append_compaction, AppendCompactContext::Create(fs_, table_path_, table_name_, next, options,
                                                                          config_.creation_time_ms));
  }
  // The rows so far go into files of the current schema; the compactions running over them finish
  // under it (their results go with the next commit).
  std::vector<BucketWriter*> all;
  for (auto& [key, writer] : writers_) all.push_back(writer.get());
  TIDE_RETURN_IF_ERROR(FlushAll(all));
  for (BucketWriter* w : all) TIDE_RETURN_IF_ERROR(SyncCompaction(w, /*blocking=*/true));

  for (auto& [key, w] : writers_) {
    if (w->compact && compaction) w->compact->Rebind(compaction.get());
    if (w->append_compact && append_compaction) w->append_compact->Rebind(append_compaction.get());
  }
  if (compaction) compaction_context_ = std::move(compaction);
  if (append_compaction) append_compaction_context_ = std::move(append_compaction);
  SetColumnChecks(next);
  merge_ = std::move(merge);
  buffer_spec_.merge = merge_.get();
  context_->layout = std::move(layout);
  context_->parallel_writes = ParquetCodecNamed(context_->layout.parquet.compression).has_value() &&
                              ParquetFileEncoder::CanEncode(context_->layout.columns);
  options_ = std::move(options);
  schema_ = std::move(next);
  // The buffers are empty (flushed above); the columnar ones take the new columns.
  columnar_buffers_ = ColumnarBuffersFit();
  for (auto& [key, w] : writers_) w->columns = NewColumnarBuffer();
  return Status::OK();
}

std::unique_ptr<ColumnarWriteBuffer> TableWrite::NewColumnarBuffer() {
  if (!columnar_buffers_) return nullptr;
  return std::make_unique<ColumnarWriteBuffer>(&buffer_spec_, schema_.fields, options_.ignore_delete(), memory_.get());
}

bool TableWrite::ColumnarBuffersFit() const {
  // The deduplicate engine's merge is what ColumnarWriteBuffer folds by; the files must come from Tide's
  // encoder (the DuckDB fallback takes rows only).
  return config_.columnar_buffers && options_.merge_engine() == MergeEngine::kDeduplicate &&
         context_->parallel_writes && ColumnarWriteBuffer::Supports(buffer_spec_, schema_.fields);
}

}  // namespace tide
