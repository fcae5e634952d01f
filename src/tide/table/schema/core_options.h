// CoreOptions: the one parser of a Paimon table's options. Every option Tide acts on is read here,
// once, with Java's CoreOptions names, defaults and value syntax, into typed values that the writer,
// the committer, the scan and the reader share.
//
// Value syntax as Java's: booleans `true`/`false` (any case); integers in the option's Java type (an
// Integer option out of 32-bit range is an error, never cut); memory sizes as MemorySize.parse (`8mb`,
// `256 MB`, `1 gibibytes`, plain bytes; powers of 1024); enums by their Java names, any case. Leading
// and trailing blanks are ignored. A malformed value of any option Tide reads is an InvalidArgument
// naming the table, the option and the value, and saying what the option takes.
//
// Defaults follow Java 1.x, with the schema version's own defaults for old tables (schema version 1:
// `bucket` 1; versions 1-2: `file.format` orc), as Java's TableSchema applies them. Tide's one default
// of its own: `write-buffer-size` 64 MiB (Java: 256 MiB) when the table does not set it, because Tide
// keeps buffered rows as decoded values and a pipeline holds one writer per table.
//
// What a value means for a component (e.g. that the writer cannot write `changelog-producer` lookup
// yet) is that component's check; this class only says what the options are.
//
// Thread-safety: an immutable value after Create (the setters serve writer overrides before use).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/table_schema.h"

namespace tide {

enum class MergeEngine { kDeduplicate, kPartialUpdate, kAggregation, kFirstRow };
enum class ChangelogProducer { kNone, kInput, kFullCompaction, kLookup };
enum class TagCreationMode { kNone, kProcessTime, kWatermark, kBatch };
enum class TagCreationPeriod { kDaily, kHourly, kTwoHours };
enum class TagPeriodFormatter { kWithDashes, kWithoutDashes, kWithoutDashesAndSpaces };

std::string_view MergeEngineName(MergeEngine engine);
std::string_view ChangelogProducerName(ChangelogProducer producer);

// Tide's default `write-buffer-size` when the table does not set one.
inline constexpr int64_t kTideDefaultWriteBufferSize = 64LL * 1024 * 1024;

// Java's MemorySize text: a number with an optional unit (b/bytes, k/kb/kibibytes, m/mb/mebibytes,
// g/gb/gibibytes, t/tb/tebibytes), any case, blanks ignored. `option` names the value in errors.
Result<int64_t> ParseMemorySize(std::string_view text, std::string_view option);

class CoreOptions {
 public:
  // Reads every option of `schema` that Tide acts on. `table_name` names the table in errors.
  static Result<CoreOptions> Create(const TableSchema& schema, const std::string& table_name);

  // --- Table layout.
  // `bucket`: N > 0 fixed buckets; -1 dynamic (PK) or unaware (append); -2 postpone.
  int32_t bucket() const { return bucket_; }
  // `bucket-function.type` as written (default "default"); codec/bucket.h parses it.
  const std::string& bucket_function_type() const { return bucket_function_type_; }
  const std::string& file_format() const { return file_format_; }
  const std::string& manifest_format() const { return manifest_format_; }
  const std::string& partition_default_name() const { return partition_default_name_; }
  bool partition_legacy_name() const { return partition_legacy_name_; }
  const std::string& data_file_path_directory() const { return data_file_path_directory_; }
  bool row_tracking_enabled() const { return row_tracking_enabled_; }
  bool data_evolution_enabled() const { return data_evolution_enabled_; }
  bool index_file_in_data_file_dir() const { return index_file_in_data_file_dir_; }
  bool disable_explicit_type_casting() const { return disable_explicit_type_casting_; }
  // `scan.fallback-branch`, when set and not blank.
  const std::optional<std::string>& scan_fallback_branch() const { return scan_fallback_branch_; }

  // --- Merging.
  MergeEngine merge_engine() const { return merge_engine_; }
  bool deletion_vectors_enabled() const { return deletion_vectors_enabled_; }
  bool deletion_vectors_bitmap64() const { return deletion_vectors_bitmap64_; }
  // `ignore-delete`, or one of its older names (first-row., partial-update., deduplicate.ignore-delete).
  bool ignore_delete() const { return ignore_delete_; }
  // `sequence.field`: user columns that order rows of one key before _SEQUENCE_NUMBER does.
  const std::vector<std::string>& sequence_fields() const { return sequence_fields_; }
  // `sequence.field.sort-order` = descending.
  bool sequence_field_descending() const { return sequence_field_descending_; }
  bool partial_update_remove_record_on_delete() const { return partial_update_remove_record_on_delete_; }
  bool aggregation_remove_record_on_delete() const { return aggregation_remove_record_on_delete_; }
  // `fields.<field>.aggregate-function`, else `fields.default-aggregate-function`, lower case.
  std::string aggregate_function(const std::string& field) const;
  // `fields.<field>.ignore-retract`.
  bool ignore_retract(const std::string& field) const;
  // `fields.<field>.list-agg-delimiter` (default ",").
  std::string list_agg_delimiter(const std::string& field) const;

  // --- Writing.
  int64_t write_buffer_size() const { return write_buffer_size_; }
  // `target-file-size`: 128 MiB for primary-key tables, 256 MiB for append tables by default.
  int64_t target_file_size() const { return target_file_size_; }
  // `file.compression`, lower case; "none" reads as "uncompressed".
  const std::string& file_compression() const { return file_compression_; }
  int32_t file_compression_zstd_level() const { return zstd_level_; }
  const std::string& data_file_prefix() const { return data_file_prefix_; }
  const std::string& changelog_file_prefix() const { return changelog_file_prefix_; }
  bool file_suffix_include_compression() const { return file_suffix_include_compression_; }
  ChangelogProducer changelog_producer() const { return changelog_producer_; }
  bool metadata_stats_dense_store() const { return metadata_stats_dense_store_; }
  int64_t dynamic_bucket_target_row_num() const { return dynamic_bucket_target_row_num_; }
  // `dynamic-bucket.max-buckets`: -1 unlimited, else 1..32767.
  int32_t dynamic_bucket_max_buckets() const { return dynamic_bucket_max_buckets_; }

  // --- Compaction.
  // `write-only`: the writer never compacts (a separate compaction job does).
  bool write_only() const { return write_only_; }
  int32_t num_sorted_run_compaction_trigger() const { return num_sorted_run_compaction_trigger_; }
  // `num-sorted-run.stop-trigger`: compaction trigger + 3 unless set, never below the trigger.
  int32_t num_sorted_run_stop_trigger() const { return num_sorted_run_stop_trigger_; }
  // `num-levels`: compaction trigger + 1 unless set.
  int32_t num_levels() const { return num_levels_; }
  int32_t compaction_max_size_amplification_percent() const { return compaction_max_size_amplification_percent_; }
  int32_t compaction_size_ratio() const { return compaction_size_ratio_; }
  // Files below this size (target-file-size x compaction.small-file-ratio) are rewritten, not upgraded.
  int64_t compaction_file_size() const {
    return static_cast<int64_t>(static_cast<double>(target_file_size_) * compaction_small_file_ratio_);
  }
  int32_t compaction_min_file_num() const { return compaction_min_file_num_; }
  const std::optional<int64_t>& compaction_optimization_interval_ms() const {
    return compaction_optimization_interval_ms_;
  }
  const std::optional<int64_t>& compaction_total_size_threshold() const { return compaction_total_size_threshold_; }
  const std::optional<int64_t>& compaction_incremental_size_threshold() const {
    return compaction_incremental_size_threshold_;
  }
  bool commit_force_compact() const { return commit_force_compact_; }
  const std::optional<int32_t>& full_compaction_delta_commits() const { return full_compaction_delta_commits_; }

  // --- Committing.
  int64_t manifest_target_file_size() const { return manifest_target_file_size_; }
  int64_t manifest_full_compaction_threshold_size() const { return manifest_full_compaction_threshold_size_; }
  int32_t manifest_merge_min_count() const { return manifest_merge_min_count_; }
  int32_t commit_max_retries() const { return commit_max_retries_; }

  // --- Expiry and maintenance (Java's ExpireConfig, tag and partition options). Durations in millis.
  int32_t snapshot_num_retained_min() const { return snapshot_num_retained_min_; }
  int32_t snapshot_num_retained_max() const { return snapshot_num_retained_max_; }
  int64_t snapshot_time_retained_ms() const { return snapshot_time_retained_ms_; }
  int32_t snapshot_expire_limit() const { return snapshot_expire_limit_; }
  bool snapshot_clean_empty_directories() const { return snapshot_clean_empty_directories_; }
  // `changelog.*` retention, each falling back to its `snapshot.*` value.
  int32_t changelog_num_retained_min() const { return changelog_num_retained_min_.value_or(snapshot_num_retained_min_); }
  int32_t changelog_num_retained_max() const { return changelog_num_retained_max_.value_or(snapshot_num_retained_max_); }
  int64_t changelog_time_retained_ms() const { return changelog_time_retained_ms_.value_or(snapshot_time_retained_ms_); }
  // Java's ExpireConfig.isChangelogDecoupled: changelog is kept longer than snapshots.
  bool changelog_decoupled() const {
    return changelog_num_retained_max() > snapshot_num_retained_max_ ||
           changelog_num_retained_min() > snapshot_num_retained_min_ ||
           changelog_time_retained_ms() > snapshot_time_retained_ms_;
  }
  const std::optional<int64_t>& consumer_expiration_time_ms() const { return consumer_expiration_time_ms_; }
  bool consumer_changelog_only() const { return consumer_changelog_only_; }
  TagCreationMode tag_automatic_creation() const { return tag_automatic_creation_; }
  TagCreationPeriod tag_creation_period() const { return tag_creation_period_; }
  const std::optional<int64_t>& tag_creation_period_duration_ms() const { return tag_creation_period_duration_ms_; }
  int64_t tag_creation_delay_ms() const { return tag_creation_delay_ms_; }
  TagPeriodFormatter tag_period_formatter() const { return tag_period_formatter_; }
  const std::optional<int32_t>& tag_num_retained_max() const { return tag_num_retained_max_; }
  const std::optional<int64_t>& tag_default_time_retained_ms() const { return tag_default_time_retained_ms_; }
  bool tag_automatic_completion() const { return tag_automatic_completion_; }
  // `sink.process-time-zone` (unset: the process's local zone) and `sink.watermark-time-zone` (UTC).
  const std::optional<std::string>& sink_process_time_zone() const { return sink_process_time_zone_; }
  const std::string& sink_watermark_time_zone() const { return sink_watermark_time_zone_; }
  const std::optional<int64_t>& partition_expiration_time_ms() const { return partition_expiration_time_ms_; }
  int64_t partition_expiration_check_interval_ms() const { return partition_expiration_check_interval_ms_; }
  const std::string& partition_expiration_strategy() const { return partition_expiration_strategy_; }
  int32_t partition_expiration_max_num() const { return partition_expiration_max_num_; }
  const std::optional<int32_t>& partition_expiration_batch_size() const { return partition_expiration_batch_size_; }
  const std::optional<std::string>& partition_timestamp_formatter() const { return partition_timestamp_formatter_; }
  const std::optional<std::string>& partition_timestamp_pattern() const { return partition_timestamp_pattern_; }

  // The raw text of an option, for options whose grammar belongs to their component (stats modes).
  std::optional<std::string> Find(const std::string& key) const;
  // Every option as given, for options whose keys name fields (`fields.<a,b>.sequence-group`).
  const std::map<std::string, std::string>& raw() const { return options_; }

  // Overrides of the writer (TableWriteConfig), applied after Create; values must be positive.
  void set_write_buffer_size(int64_t bytes) { write_buffer_size_ = bytes; }
  void set_target_file_size(int64_t bytes) { target_file_size_ = bytes; }
  // Never below the compaction trigger, as when read from the options.
  void set_num_sorted_run_stop_trigger(int32_t runs) {
    num_sorted_run_stop_trigger_ = std::max(num_sorted_run_compaction_trigger_, runs);
  }

 private:
  CoreOptions() = default;

  std::map<std::string, std::string> options_;

  int32_t bucket_ = -1;
  std::string bucket_function_type_ = "default";
  std::string file_format_ = "parquet";
  std::string manifest_format_ = "avro";
  std::string partition_default_name_ = "__DEFAULT_PARTITION__";
  bool partition_legacy_name_ = true;
  std::string data_file_path_directory_;
  bool row_tracking_enabled_ = false;
  bool data_evolution_enabled_ = false;
  bool index_file_in_data_file_dir_ = false;
  bool disable_explicit_type_casting_ = false;
  std::optional<std::string> scan_fallback_branch_;

  MergeEngine merge_engine_ = MergeEngine::kDeduplicate;
  bool deletion_vectors_enabled_ = false;
  bool deletion_vectors_bitmap64_ = false;
  bool ignore_delete_ = false;
  std::vector<std::string> sequence_fields_;
  bool sequence_field_descending_ = false;
  bool partial_update_remove_record_on_delete_ = false;
  bool aggregation_remove_record_on_delete_ = false;
  std::string default_aggregate_function_ = "last_non_null_value";
  std::map<std::string, bool> ignore_retract_;  // by field

  int64_t write_buffer_size_ = kTideDefaultWriteBufferSize;
  int64_t target_file_size_ = 128LL * 1024 * 1024;
  std::string file_compression_ = "zstd";
  int32_t zstd_level_ = 1;
  std::string data_file_prefix_ = "data-";
  std::string changelog_file_prefix_ = "changelog-";
  bool file_suffix_include_compression_ = false;
  ChangelogProducer changelog_producer_ = ChangelogProducer::kNone;
  bool metadata_stats_dense_store_ = true;
  int64_t dynamic_bucket_target_row_num_ = 2'000'000;
  int32_t dynamic_bucket_max_buckets_ = -1;

  bool write_only_ = false;
  int32_t num_sorted_run_compaction_trigger_ = 5;
  int32_t num_sorted_run_stop_trigger_ = 8;
  int32_t num_levels_ = 6;
  int32_t compaction_max_size_amplification_percent_ = 200;
  int32_t compaction_size_ratio_ = 1;
  double compaction_small_file_ratio_ = 0.7;
  int32_t compaction_min_file_num_ = 5;
  std::optional<int64_t> compaction_optimization_interval_ms_;
  std::optional<int64_t> compaction_total_size_threshold_;
  std::optional<int64_t> compaction_incremental_size_threshold_;
  bool commit_force_compact_ = false;
  std::optional<int32_t> full_compaction_delta_commits_;

  int64_t manifest_target_file_size_ = 8LL * 1024 * 1024;
  int64_t manifest_full_compaction_threshold_size_ = 16LL * 1024 * 1024;
  int32_t manifest_merge_min_count_ = 30;
  int32_t commit_max_retries_ = 10;

  int32_t snapshot_num_retained_min_ = 10;
  int32_t snapshot_num_retained_max_ = 2147483647;
  int64_t snapshot_time_retained_ms_ = 3'600'000;
  int32_t snapshot_expire_limit_ = 50;
  bool snapshot_clean_empty_directories_ = false;
  std::optional<int32_t> changelog_num_retained_min_;
  std::optional<int32_t> changelog_num_retained_max_;
  std::optional<int64_t> changelog_time_retained_ms_;
  std::optional<int64_t> consumer_expiration_time_ms_;
  bool consumer_changelog_only_ = false;
  TagCreationMode tag_automatic_creation_ = TagCreationMode::kNone;
  TagCreationPeriod tag_creation_period_ = TagCreationPeriod::kDaily;
  std::optional<int64_t> tag_creation_period_duration_ms_;
  int64_t tag_creation_delay_ms_ = 0;
  TagPeriodFormatter tag_period_formatter_ = TagPeriodFormatter::kWithDashes;
  std::optional<int32_t> tag_num_retained_max_;
  std::optional<int64_t> tag_default_time_retained_ms_;
  bool tag_automatic_completion_ = false;
  std::optional<std::string> sink_process_time_zone_;
  std::string sink_watermark_time_zone_ = "UTC";
  std::optional<int64_t> partition_expiration_time_ms_;
  int64_t partition_expiration_check_interval_ms_ = 3'600'000;
  std::string partition_expiration_strategy_ = "values-time";
  int32_t partition_expiration_max_num_ = 100;
  std::optional<int32_t> partition_expiration_batch_size_;
  std::optional<std::string> partition_timestamp_formatter_;
  std::optional<std::string> partition_timestamp_pattern_;
};

}  // namespace tide
