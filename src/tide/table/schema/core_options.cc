#include "tide/table/schema/core_options.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "tide/base/strings.h"

namespace tide {

std::string_view MergeEngineName(MergeEngine engine) {
  switch (engine) {
    case MergeEngine::kDeduplicate:
      return "deduplicate";
    case MergeEngine::kPartialUpdate:
      return "partial-update";
    case MergeEngine::kAggregation:
      return "aggregation";
    case MergeEngine::kFirstRow:
      return "first-row";
  }
  return "?";
}

std::string_view ChangelogProducerName(ChangelogProducer producer) {
  switch (producer) {
    case ChangelogProducer::kNone:
      return "none";
    case ChangelogProducer::kInput:
      return "input";
    case ChangelogProducer::kFullCompaction:
      return "full-compaction";
    case ChangelogProducer::kLookup:
      return "lookup";
  }
  return "?";
}

Result<int64_t> ParseMemorySize(std::string_view text, std::string_view option) {
  std::string_view t = Trim(text);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) {
    return Status::InvalidArgument("option '{}' = '{}' is not a memory size (a number and a unit, e.g. '256 mb')",
                                   option, text);
  }
  auto number = ParseInt64(t.substr(0, digits), option);
  if (!number.ok()) return Status::InvalidArgument("option '{}' = '{}' is too large", option, text);
  std::string unit = ToLower(Trim(t.substr(digits)));
  int shift = 0;
  if (unit.empty() || unit == "b" || unit == "bytes") {
    shift = 0;
  } else if (unit == "k" || unit == "kb" || unit == "kibibytes") {
    shift = 10;
  } else if (unit == "m" || unit == "mb" || unit == "mebibytes") {
    shift = 20;
  } else if (unit == "g" || unit == "gb" || unit == "gibibytes") {
    shift = 30;
  } else if (unit == "t" || unit == "tb" || unit == "tebibytes") {
    shift = 40;
  } else {
    return Status::InvalidArgument("option '{}' = '{}': unknown memory unit '{}' (use b, kb, mb, gb or tb)", option,
                                   text, unit);
  }
  if (*number > (std::numeric_limits<int64_t>::max() >> shift)) {
    return Status::InvalidArgument("option '{}' = '{}' is too large", option, text);
  }
  return *number << shift;
}

namespace {

// Reads the options of one schema, each error naming the table, the option and its value.
class OptionReader {
 public:
  OptionReader(const TableSchema& schema, const std::string& table) : schema_(schema), table_(table) {}

  std::optional<std::string> Find(const std::string& key) const { return schema_.FindOption(key); }

  std::string String(const std::string& key, std::string fallback) const {
    auto v = Find(key);
    return v ? *v : std::move(fallback);
  }

  Result<bool> Bool(const std::string& key, bool fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    std::string_view t = Trim(*v);
    if (EqualsIgnoreCase(t, "true")) return true;
    if (EqualsIgnoreCase(t, "false")) return false;
    return Invalid(key, *v, "is not a boolean", "true or false");
  }

  // Java's Long.parseLong / Integer.parseInt also take a leading '+'.
  static std::string_view Unsigned(std::string_view text) {
    text = Trim(text);
    if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
    return text;
  }

  Result<int64_t> Long(const std::string& key, int64_t fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    auto n = ParseInt64(Unsigned(*v), key);
    if (!n.ok()) return Invalid(key, *v, "is not a number", "a 64-bit integer");
    return *n;
  }

  Result<int32_t> Int(const std::string& key, int32_t fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    auto n = ParseInt64(Unsigned(*v), key);
    if (!n.ok()) return Invalid(key, *v, "is not a number", "a 32-bit integer");
    if (*n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<int32_t>::max()) {
      return Invalid(key, *v, "is out of range", "a 32-bit integer");
    }
    return static_cast<int32_t>(*n);
  }

  Result<double> Double(const std::string& key, double fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    std::string t(Trim(*v));
    char* end = nullptr;
    double d = t.empty() ? 0 : std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) return Invalid(key, *v, "is not a number", "a decimal number");
    return d;
  }

  Result<std::optional<int64_t>> OptionalMemorySize(const std::string& key) const {
    if (!Find(key)) return std::optional<int64_t>();
    TIDE_ASSIGN_OR_RETURN(int64_t n, MemorySize(key, 0));
    return std::optional<int64_t>(n);
  }

  Result<std::optional<int64_t>> OptionalDurationMillis(const std::string& key) const {
    auto v = Find(key);
    if (!v) return std::optional<int64_t>();
    auto n = ParseDurationMillis(*v, key);
    if (!n.ok()) return n.status().WithContext("table " + table_);
    return std::optional<int64_t>(*n);
  }

  Result<int64_t> MemorySize(const std::string& key, int64_t fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    auto n = ParseMemorySize(*v, key);
    if (!n.ok()) return n.status().WithContext("table " + table_);
    return *n;
  }

  // A duration as Java's TimeUtils.parseDuration reads it ("1 h", "30min", "500ms").
  Result<int64_t> Duration(const std::string& key, int64_t fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    auto ms = ParseDurationMillis(*v, key);
    if (!ms.ok()) return Invalid(key, *v, "is not a duration", "a number and a unit, e.g. '1 h', '30 min'");
    return *ms;
  }

  Result<std::optional<int64_t>> OptionalDuration(const std::string& key) const {
    if (!Find(key)) return std::optional<int64_t>();
    TIDE_ASSIGN_OR_RETURN(int64_t ms, Duration(key, 0));
    return std::optional<int64_t>(ms);
  }

  Result<std::optional<int32_t>> OptionalInt(const std::string& key) const {
    if (!Find(key)) return std::optional<int32_t>();
    TIDE_ASSIGN_OR_RETURN(int32_t n, Int(key, 0));
    return std::optional<int32_t>(n);
  }

  std::optional<std::string> OptionalString(const std::string& key) const {
    auto v = Find(key);
    if (!v || Trim(*v).empty()) return std::nullopt;
    return std::string(Trim(*v));
  }

  // One of `names` (any case); the result is its index.
  Result<size_t> Enum(const std::string& key, const std::vector<std::string_view>& names, size_t fallback) const {
    auto v = Find(key);
    if (!v) return fallback;
    std::string t = ToLower(Trim(*v));
    for (size_t i = 0; i < names.size(); ++i) {
      if (t == names[i]) return i;
    }
    return Status::InvalidArgument("table {}: unknown {} '{}'; use {}", table_, key, *v, Join(names, ", "));
  }

  // "table T: option 'K' = 'V' <problem> (it takes <what>)".
  Status Invalid(const std::string& key, const std::string& value, const std::string& problem,
                 const std::string& what) const {
    return Status::InvalidArgument("table {}: option '{}' = '{}' {} (it takes {})", table_, key, value, problem, what);
  }

 private:
  const TableSchema& schema_;
  const std::string& table_;
};

}  // namespace

Result<CoreOptions> CoreOptions::Create(const TableSchema& schema, const std::string& table_name) {
  OptionReader r(schema, table_name);
  CoreOptions o;
  o.options_ = schema.options;

  // Layout. Old schema versions carry their own defaults (Java's TableSchema).
  TIDE_ASSIGN_OR_RETURN(o.bucket_, r.Int("bucket", schema.version <= 1 ? 1 : -1));
  o.bucket_function_type_ = r.String("bucket-function.type", "default");
  o.file_format_ = ToLower(Trim(r.String("file.format", schema.version <= 2 ? "orc" : "parquet")));
  o.manifest_format_ = ToLower(Trim(r.String("manifest.format", "avro")));
  o.partition_default_name_ = r.String("partition.default-name", "__DEFAULT_PARTITION__");
  TIDE_ASSIGN_OR_RETURN(o.partition_legacy_name_, r.Bool("partition.legacy-name", true));
  o.data_file_path_directory_ = r.String("data-file.path-directory", "");
  TIDE_ASSIGN_OR_RETURN(o.row_tracking_enabled_, r.Bool("row-tracking.enabled", false));
  TIDE_ASSIGN_OR_RETURN(o.data_evolution_enabled_, r.Bool("data-evolution.enabled", false));
  TIDE_ASSIGN_OR_RETURN(o.index_file_in_data_file_dir_, r.Bool("index-file-in-data-file-dir", false));
  TIDE_ASSIGN_OR_RETURN(o.disable_explicit_type_casting_, r.Bool("disable-explicit-type-casting", false));
  if (auto v = r.Find("scan.fallback-branch"); v && !Trim(*v).empty()) o.scan_fallback_branch_ = std::string(Trim(*v));

  // Merging.
  TIDE_ASSIGN_OR_RETURN(size_t engine,
                        r.Enum("merge-engine", {"deduplicate", "partial-update", "aggregation", "first-row"}, 0));
  o.merge_engine_ = static_cast<MergeEngine>(engine);
  TIDE_ASSIGN_OR_RETURN(o.deletion_vectors_enabled_, r.Bool("deletion-vectors.enabled", false));
  TIDE_ASSIGN_OR_RETURN(o.deletion_vectors_bitmap64_, r.Bool("deletion-vectors.bitmap64", false));
  // `ignore-delete`; when it is not set, the first of its older names that is (Java's fallback keys).
  for (const char* key : {"ignore-delete", "first-row.ignore-delete", "partial-update.ignore-delete",
                          "deduplicate.ignore-delete"}) {
    if (!r.Find(key)) continue;
    TIDE_ASSIGN_OR_RETURN(o.ignore_delete_, r.Bool(key, false));
    break;
  }
  if (auto v = r.Find("sequence.field")) o.sequence_fields_ = SplitTrimmed(*v, ',');
  TIDE_ASSIGN_OR_RETURN(size_t order, r.Enum("sequence.field.sort-order", {"ascending", "descending"}, 0));
  o.sequence_field_descending_ = order == 1;
  TIDE_ASSIGN_OR_RETURN(o.partial_update_remove_record_on_delete_,
                        r.Bool("partial-update.remove-record-on-delete", false));
  TIDE_ASSIGN_OR_RETURN(o.aggregation_remove_record_on_delete_, r.Bool("aggregation.remove-record-on-delete", false));
  o.default_aggregate_function_ = ToLower(Trim(r.String("fields.default-aggregate-function", "last_non_null_value")));
  for (const auto& [key, value] : schema.options) {
    constexpr std::string_view kSuffix = ".ignore-retract";
    if (StartsWith(key, "fields.") && EndsWith(key, kSuffix) && key.size() > 7 + kSuffix.size()) {
      TIDE_ASSIGN_OR_RETURN(bool on, r.Bool(key, false));
      o.ignore_retract_[key.substr(7, key.size() - 7 - kSuffix.size())] = on;
    }
  }

  // Writing.
  TIDE_ASSIGN_OR_RETURN(o.write_buffer_size_, r.MemorySize("write-buffer-size", kTideDefaultWriteBufferSize));
  const int64_t default_target = schema.HasPrimaryKey() ? 128LL * 1024 * 1024 : 256LL * 1024 * 1024;
  TIDE_ASSIGN_OR_RETURN(o.target_file_size_, r.MemorySize("target-file-size", default_target));
  for (auto [key, size] : {std::pair{"write-buffer-size", o.write_buffer_size_},
                            std::pair{"target-file-size", o.target_file_size_}}) {
    if (size <= 0) return r.Invalid(key, *r.Find(key), "is not positive", "a positive memory size");
  }
  o.file_compression_ = ToLower(Trim(r.String("file.compression", "zstd")));
  if (o.file_compression_ == "none") o.file_compression_ = "uncompressed";
  TIDE_ASSIGN_OR_RETURN(o.zstd_level_, r.Int("file.compression.zstd-level", 1));
  o.data_file_prefix_ = r.String("data-file.prefix", "data-");
  o.changelog_file_prefix_ = r.String("changelog-file.prefix", "changelog-");
  TIDE_ASSIGN_OR_RETURN(o.file_suffix_include_compression_, r.Bool("file.suffix.include.compression", false));
  TIDE_ASSIGN_OR_RETURN(size_t producer,
                        r.Enum("changelog-producer", {"none", "input", "full-compaction", "lookup"}, 0));
  o.changelog_producer_ = static_cast<ChangelogProducer>(producer);
  TIDE_ASSIGN_OR_RETURN(o.metadata_stats_dense_store_, r.Bool("metadata.stats-dense-store", true));
  TIDE_ASSIGN_OR_RETURN(o.dynamic_bucket_target_row_num_, r.Long("dynamic-bucket.target-row-num", 2'000'000));
  if (o.dynamic_bucket_target_row_num_ <= 0) {
    return r.Invalid("dynamic-bucket.target-row-num", *r.Find("dynamic-bucket.target-row-num"), "is not positive",
                     "a positive integer");
  }
  TIDE_ASSIGN_OR_RETURN(o.dynamic_bucket_max_buckets_, r.Int("dynamic-bucket.max-buckets", -1));
  if (o.dynamic_bucket_max_buckets_ != -1 && o.dynamic_bucket_max_buckets_ <= 0) {
    return r.Invalid("dynamic-bucket.max-buckets", *r.Find("dynamic-bucket.max-buckets"), "is out of range",
                     "-1 (unlimited) or a positive number");
  }

  // Compaction (Java's defaults: CoreOptions numSortedRunStopTrigger, numLevels, compactionFileSize).
  TIDE_ASSIGN_OR_RETURN(o.write_only_, r.Bool("write-only", false));
  TIDE_ASSIGN_OR_RETURN(o.num_sorted_run_compaction_trigger_, r.Int("num-sorted-run.compaction-trigger", 5));
  if (o.num_sorted_run_compaction_trigger_ < 1) {
    return r.Invalid("num-sorted-run.compaction-trigger", *r.Find("num-sorted-run.compaction-trigger"),
                     "is not positive", "a positive integer");
  }
  {
    const int64_t trigger = o.num_sorted_run_compaction_trigger_;
    TIDE_ASSIGN_OR_RETURN(int32_t stop, r.Int("num-sorted-run.stop-trigger",
                                              static_cast<int32_t>(std::min<int64_t>(trigger + 3, INT32_MAX))));
    o.num_sorted_run_stop_trigger_ = std::max(o.num_sorted_run_compaction_trigger_, stop);
    TIDE_ASSIGN_OR_RETURN(o.num_levels_,
                          r.Int("num-levels", static_cast<int32_t>(std::min<int64_t>(trigger + 1, INT32_MAX))));
    if (o.num_levels_ < 2) {
      return r.Invalid("num-levels", *r.Find("num-levels"), "is below 2", "an integer of at least 2");
    }
  }
  TIDE_ASSIGN_OR_RETURN(o.compaction_max_size_amplification_percent_,
                        r.Int("compaction.max-size-amplification-percent", 200));
  TIDE_ASSIGN_OR_RETURN(o.compaction_size_ratio_, r.Int("compaction.size-ratio", 1));
  TIDE_ASSIGN_OR_RETURN(o.compaction_small_file_ratio_, r.Double("compaction.small-file-ratio", 0.7));
  TIDE_ASSIGN_OR_RETURN(o.compaction_min_file_num_, r.Int("compaction.min.file-num", 5));
  TIDE_ASSIGN_OR_RETURN(o.compaction_optimization_interval_ms_, r.OptionalDurationMillis("compaction.optimization-interval"));
  TIDE_ASSIGN_OR_RETURN(o.compaction_total_size_threshold_, r.OptionalMemorySize("compaction.total-size-threshold"));
  TIDE_ASSIGN_OR_RETURN(o.compaction_incremental_size_threshold_,
                        r.OptionalMemorySize("compaction.incremental-size-threshold"));
  TIDE_ASSIGN_OR_RETURN(o.commit_force_compact_, r.Bool("commit.force-compact", false));
  if (r.Find("full-compaction.delta-commits")) {
    TIDE_ASSIGN_OR_RETURN(int32_t n, r.Int("full-compaction.delta-commits", 1));
    if (n <= 0) {
      return r.Invalid("full-compaction.delta-commits", *r.Find("full-compaction.delta-commits"), "is not positive",
                       "a positive integer");
    }
    o.full_compaction_delta_commits_ = n;
  }

  // Committing.
  TIDE_ASSIGN_OR_RETURN(o.manifest_target_file_size_, r.MemorySize("manifest.target-file-size", 8LL * 1024 * 1024));
  TIDE_ASSIGN_OR_RETURN(o.manifest_full_compaction_threshold_size_,
                        r.MemorySize("manifest.full-compaction-threshold-size", 16LL * 1024 * 1024));
  TIDE_ASSIGN_OR_RETURN(o.manifest_merge_min_count_, r.Int("manifest.merge-min-count", 30));
  TIDE_ASSIGN_OR_RETURN(o.commit_max_retries_, r.Int("commit.max-retries", 10));

  // Expiry and maintenance.
  TIDE_ASSIGN_OR_RETURN(o.snapshot_num_retained_min_, r.Int("snapshot.num-retained.min", 10));
  TIDE_ASSIGN_OR_RETURN(o.snapshot_num_retained_max_, r.Int("snapshot.num-retained.max", 2147483647));
  TIDE_ASSIGN_OR_RETURN(o.snapshot_time_retained_ms_, r.Duration("snapshot.time-retained", 3'600'000));
  TIDE_ASSIGN_OR_RETURN(o.snapshot_expire_limit_, r.Int("snapshot.expire.limit", 50));
  TIDE_ASSIGN_OR_RETURN(o.snapshot_clean_empty_directories_, r.Bool("snapshot.clean-empty-directories", false));
  for (const char* key : {"snapshot.num-retained.min", "snapshot.num-retained.max", "snapshot.expire.limit"}) {
    if (auto v = r.Find(key)) {
      TIDE_ASSIGN_OR_RETURN(int32_t n, r.Int(key, 1));
      if (n < 1) return r.Invalid(key, *v, "is less than 1", "a positive integer");
    }
  }
  TIDE_ASSIGN_OR_RETURN(o.changelog_num_retained_min_, r.OptionalInt("changelog.num-retained.min"));
  TIDE_ASSIGN_OR_RETURN(o.changelog_num_retained_max_, r.OptionalInt("changelog.num-retained.max"));
  TIDE_ASSIGN_OR_RETURN(o.changelog_time_retained_ms_, r.OptionalDuration("changelog.time-retained"));
  TIDE_ASSIGN_OR_RETURN(o.consumer_expiration_time_ms_, r.OptionalDuration("consumer.expiration-time"));
  TIDE_ASSIGN_OR_RETURN(o.consumer_changelog_only_, r.Bool("consumer.changelog-only", false));
  TIDE_ASSIGN_OR_RETURN(size_t tag_mode,
                        r.Enum("tag.automatic-creation", {"none", "process-time", "watermark", "batch"}, 0));
  o.tag_automatic_creation_ = static_cast<TagCreationMode>(tag_mode);
  TIDE_ASSIGN_OR_RETURN(size_t tag_period, r.Enum("tag.creation-period", {"daily", "hourly", "two-hours"}, 0));
  o.tag_creation_period_ = static_cast<TagCreationPeriod>(tag_period);
  TIDE_ASSIGN_OR_RETURN(o.tag_creation_period_duration_ms_, r.OptionalDuration("tag.creation-period-duration"));
  TIDE_ASSIGN_OR_RETURN(o.tag_creation_delay_ms_, r.Duration("tag.creation-delay", 0));
  TIDE_ASSIGN_OR_RETURN(size_t tag_formatter,
                        r.Enum("tag.period-formatter", {"with_dashes", "without_dashes", "without_dashes_and_spaces"}, 0));
  o.tag_period_formatter_ = static_cast<TagPeriodFormatter>(tag_formatter);
  TIDE_ASSIGN_OR_RETURN(o.tag_num_retained_max_, r.OptionalInt("tag.num-retained-max"));
  TIDE_ASSIGN_OR_RETURN(o.tag_default_time_retained_ms_, r.OptionalDuration("tag.default-time-retained"));
  TIDE_ASSIGN_OR_RETURN(o.tag_automatic_completion_, r.Bool("tag.automatic-completion", false));
  o.sink_process_time_zone_ = r.OptionalString("sink.process-time-zone");
  o.sink_watermark_time_zone_ = r.OptionalString("sink.watermark-time-zone").value_or("UTC");
  TIDE_ASSIGN_OR_RETURN(o.partition_expiration_time_ms_, r.OptionalDuration("partition.expiration-time"));
  TIDE_ASSIGN_OR_RETURN(o.partition_expiration_check_interval_ms_,
                        r.Duration("partition.expiration-check-interval", 3'600'000));
  o.partition_expiration_strategy_ = ToLower(Trim(r.String("partition.expiration-strategy", "values-time")));
  TIDE_ASSIGN_OR_RETURN(o.partition_expiration_max_num_, r.Int("partition.expiration-max-num", 100));
  TIDE_ASSIGN_OR_RETURN(o.partition_expiration_batch_size_, r.OptionalInt("partition.expiration-batch-size"));
  o.partition_timestamp_formatter_ = r.OptionalString("partition.timestamp-formatter");
  o.partition_timestamp_pattern_ = r.OptionalString("partition.timestamp-pattern");
  return o;
}

std::string CoreOptions::aggregate_function(const std::string& field) const {
  auto it = options_.find("fields." + field + ".aggregate-function");
  if (it != options_.end()) return ToLower(Trim(it->second));
  return default_aggregate_function_;
}

bool CoreOptions::ignore_retract(const std::string& field) const {
  auto it = ignore_retract_.find(field);
  return it != ignore_retract_.end() && it->second;
}

std::string CoreOptions::list_agg_delimiter(const std::string& field) const {
  auto it = options_.find("fields." + field + ".list-agg-delimiter");
  return it != options_.end() ? it->second : ",";
}

std::optional<std::string> CoreOptions::Find(const std::string& key) const {
  auto it = options_.find(key);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tide
