#include "tide/table/source/scan_pruner.h"

#include <algorithm>

#include "tide/codec/binary_row.h"

namespace tide {

namespace {

// At most this many bucket-key combinations are hashed (an IN list on each of several columns).
constexpr size_t kMaxBucketKeys = 256;

std::vector<DataType> TypesOf(const std::vector<DataField>& fields) {
  std::vector<DataType> types;
  types.reserve(fields.size());
  for (const DataField& f : fields) types.push_back(f.type);
  return types;
}

// The values a condition fixes the column to (equality or IN), if it does.
std::optional<std::vector<Datum>> FixedValues(const ColumnPredicate& c) {
  if (c.op == PredicateOp::kEqual && c.values.size() == 1 && !c.values[0].is_null()) return c.values;
  if (c.op == PredicateOp::kIn && !c.values.empty()) {
    std::vector<Datum> out;
    for (const Datum& v : c.values) {
      if (!v.is_null()) out.push_back(v);
    }
    return out;
  }
  return std::nullopt;
}

// Whether `stats` (over `fields`, decoded lazily) lets a group of `row_count` rows hold a row matching
// every condition in `conditions` that names one of `fields` (by field id, same type).
Result<bool> StatsMayMatch(const SimpleStats& stats, const std::vector<DataField>& fields, int64_t row_count,
                           const std::vector<ColumnPredicate>& conditions) {
  if (stats.min_values.empty() || stats.max_values.empty()) return true;
  std::vector<std::pair<size_t, const ColumnPredicate*>> usable;
  for (const ColumnPredicate& c : conditions) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].id == c.field_id && fields[i].type.EqualsIgnoreNullable(c.type)) usable.emplace_back(i, &c);
    }
  }
  if (usable.empty()) return true;
  std::vector<DataType> types = TypesOf(fields);
  auto mins = DeserializeBinaryRow(stats.min_values, types);
  auto maxs = DeserializeBinaryRow(stats.max_values, types);
  if (!mins.ok() || !maxs.ok()) return true;  // statistics Tide cannot decode only cost the pruning
  for (const auto& [i, c] : usable) {
    std::optional<int64_t> nulls;
    if (stats.null_counts_present && i < stats.null_counts.size()) nulls = stats.null_counts[i];
    if (!PredicateMayMatchRange(*c, (*mins)[i], (*maxs)[i], nulls, row_count)) return false;
  }
  return true;
}

}  // namespace

ScanPruner::ScanPruner(FileSystem* fs, const std::string& metadata_path, const TableSchema& read_schema,
                       CoreOptions options, ScanPredicate predicate)
    : read_schema_(read_schema), options_(std::move(options)), predicate_(std::move(predicate)),
      schemas_(fs, metadata_path, read_schema_) {
  primary_key_ = read_schema_.HasPrimaryKey();
  // A file's rows are final when no merge on read combines them with other files' rows.
  value_stats_usable_ = !primary_key_ || options_.deletion_vectors_enabled();
  // Keep only conditions on columns of the read schema whose type statistics order as CompareDatum does.
  std::erase_if(predicate_.conjuncts, [&](const ColumnPredicate& c) {
    int idx = read_schema_.FieldIndexById(c.field_id);
    return idx < 0 || !read_schema_.fields[static_cast<size_t>(idx)].type.EqualsIgnoreNullable(c.type) ||
           !(PrunableType(c.type) || c.op == PredicateOp::kIsNull || c.op == PredicateOp::kIsNotNull);
  });
  for (size_t p = 0; p < read_schema_.partition_keys.size(); ++p) {
    int idx = read_schema_.FieldIndex(read_schema_.partition_keys[p]);
    if (idx < 0) continue;
    const DataField& field = read_schema_.fields[static_cast<size_t>(idx)];
    partition_types_.push_back(field.type);
    for (const ColumnPredicate& c : predicate_.conjuncts) {
      if (c.field_id == field.id) partition_conditions_.emplace_back(p, &c);
    }
  }
  if (partition_types_.size() != read_schema_.partition_keys.size()) partition_conditions_.clear();

  // Buckets: only tables with a fixed bucket count hash their bucket key.
  auto function_type = ParseBucketFunctionType(options_.bucket_function_type());
  if (options_.bucket() > 0 && function_type.ok()) {
    bucket_function_type_ = *function_type;
    std::vector<Row> combos{Row{}};
    bool fixed = true;
    for (const std::string& name : read_schema_.BucketKeys()) {
      int idx = read_schema_.FieldIndex(name);
      if (idx < 0) {
        fixed = false;
        break;
      }
      const DataField& field = read_schema_.fields[static_cast<size_t>(idx)];
      std::optional<std::vector<Datum>> values;
      for (const ColumnPredicate& c : predicate_.conjuncts) {
        if (c.field_id != field.id) continue;
        values = FixedValues(c);
        if (values) break;
      }
      if (!values || values->empty() || combos.size() * values->size() > kMaxBucketKeys) {
        fixed = false;
        break;
      }
      std::vector<Row> next;
      for (const Row& row : combos) {
        for (const Datum& v : *values) {
          Row r = row;
          r.push_back(v);
          next.push_back(std::move(r));
        }
      }
      combos = std::move(next);
      bucket_key_types_.push_back(field.type);
    }
    if (fixed && !bucket_key_types_.empty()) bucket_keys_ = std::move(combos);
  }
}

bool ScanPruner::KeepManifest(const ManifestFileMeta& manifest) {
  if (partition_conditions_.empty()) return true;
  const SimpleStats& stats = manifest.partition_stats;
  if (stats.min_values.empty() || stats.max_values.empty()) return true;
  auto mins = DeserializeBinaryRow(stats.min_values, partition_types_);
  auto maxs = DeserializeBinaryRow(stats.max_values, partition_types_);
  if (!mins.ok() || !maxs.ok()) return true;
  for (const auto& [p, c] : partition_conditions_) {
    std::optional<int64_t> nulls;
    if (stats.null_counts_present && p < stats.null_counts.size()) nulls = stats.null_counts[p];
    // The row count of a manifest's partitions is unknown: never conclude "all NULL" from it.
    if (!PredicateMayMatchRange(*c, (*mins)[p], (*maxs)[p], nulls, INT64_MAX)) {
      ++stats_.manifests_skipped;
      return false;
    }
  }
  return true;
}

bool ScanPruner::KeepPartition(const std::string& partition) {
  if (partition_conditions_.empty()) return true;
  auto cached = partition_decisions_.find(partition);
  if (cached != partition_decisions_.end()) return cached->second;
  bool keep = true;
  auto values = DeserializeBinaryRow(partition, partition_types_);
  if (values.ok()) {
    for (const auto& [p, c] : partition_conditions_) {
      if (!PredicateMayMatchValue(*c, (*values)[p])) {
        keep = false;
        break;
      }
    }
  }
  partition_decisions_.emplace(partition, keep);
  return keep;
}

bool ScanPruner::KeepBucket(const ManifestEntry& entry) {
  if (bucket_keys_.empty() || entry.total_buckets <= 0 || entry.bucket < 0) return true;
  auto it = buckets_by_total_.find(entry.total_buckets);
  if (it == buckets_by_total_.end()) {
    std::set<int32_t> buckets;
    auto function = BucketFunction::Create(bucket_function_type_, bucket_key_types_, entry.total_buckets);
    if (!function.ok()) return true;
    for (const Row& key : bucket_keys_) {
      auto bucket = function->Bucket(key, &bucket_scratch_);
      if (!bucket.ok()) return true;
      buckets.insert(*bucket);
    }
    it = buckets_by_total_.emplace(entry.total_buckets, std::move(buckets)).first;
  }
  return it->second.count(entry.bucket) > 0;
}

Result<bool> ScanPruner::KeepFileByStats(const DataFileMeta& file) {
  TIDE_ASSIGN_OR_RETURN(const TableSchema* file_schema, schemas_.Get(file.schema_id));
  if (primary_key_) {
    std::vector<DataField> key_fields;
    for (const std::string& name : file_schema->TrimmedPrimaryKeys()) {
      int idx = file_schema->FieldIndex(name);
      if (idx < 0) return true;
      key_fields.push_back(file_schema->fields[static_cast<size_t>(idx)]);
    }
    TIDE_ASSIGN_OR_RETURN(bool keys, StatsMayMatch(file.key_stats, key_fields, file.row_count, predicate_.conjuncts));
    if (!keys) return false;
  }
  if (!value_stats_usable_) return true;
  std::vector<DataField> stats_fields;
  const std::optional<std::vector<std::string>>& named = file.value_stats_cols ? file.value_stats_cols : file.write_cols;
  if (named) {
    for (const std::string& name : *named) {
      int idx = file_schema->FieldIndex(name);
      if (idx < 0) return true;
      stats_fields.push_back(file_schema->fields[static_cast<size_t>(idx)]);
    }
  } else {
    stats_fields = file_schema->fields;
  }
  return StatsMayMatch(file.value_stats, stats_fields, file.row_count, predicate_.conjuncts);
}

Result<bool> ScanPruner::KeepEntry(const ManifestEntry& entry) {
  if (predicate_.empty()) return true;
  if (!KeepPartition(entry.partition)) {
    ++stats_.entries_skipped_by_partition;
    return false;
  }
  if (!KeepBucket(entry)) {
    ++stats_.entries_skipped_by_bucket;
    return false;
  }
  TIDE_ASSIGN_OR_RETURN(bool keep, KeepFileByStats(entry.file));
  if (!keep) ++stats_.entries_skipped_by_stats;
  return keep;
}

std::optional<Row> ScanPruner::PrimaryKeyEquals(const TableSchema& read_schema, const ScanPredicate& predicate) {
  if (!read_schema.HasPrimaryKey()) return std::nullopt;
  Row key;
  for (const std::string& name : read_schema.primary_keys) {
    int idx = read_schema.FieldIndex(name);
    if (idx < 0) return std::nullopt;
    const DataField& field = read_schema.fields[static_cast<size_t>(idx)];
    std::optional<Datum> value;
    for (const ColumnPredicate& c : predicate.conjuncts) {
      if (c.field_id == field.id && c.op == PredicateOp::kEqual && c.values.size() == 1 && !c.values[0].is_null() &&
          c.type.EqualsIgnoreNullable(field.type)) {
        value = c.values[0];
        break;
      }
    }
    if (!value) return std::nullopt;
    key.push_back(std::move(*value));
  }
  return key;
}

}  // namespace tide
