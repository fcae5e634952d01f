// ScanPruner: which manifests and data files a read with a ScanPredicate may skip, by the statistics
// Paimon keeps in its metadata (Java's KeyValueFileStoreScan / AppendOnlyFileStoreScan filters):
//
//   * manifests: by their partition statistics (the smallest and largest value of each partition column);
//   * entries: by their partition's values; by bucket, when the predicate fixes every bucket-key column
//     to one or a few values (equality, IN) on a table with a fixed bucket count (the bucket computed as
//     the writer does, with the entry's own total bucket count); by the file's key statistics for
//     conditions on primary-key columns (every version of a key shares its key, so a file whose key
//     range excludes the condition holds no version of a matching row); and, where a file's rows are
//     final (append tables, primary-key tables with deletion vectors), by its value statistics.
//
// Value statistics of other primary-key tables are never used: a key's newest version may sit in a file
// the statistics would drop while an older, matching version sits in another. Dynamic (-1) and postpone
// (-2) bucket tables are not pruned by bucket (a key's bucket is not a hash there). A statistic Tide
// cannot decode, or of a file whose column has another type, prunes nothing.
//
// Thread-safety: one thread at a time (it caches schemas and decisions).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/bucket.h"
#include "tide/io/file_system.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_cache.h"
#include "tide/table/source/scan_predicate.h"
#include "tide/types/table_schema.h"

namespace tide {

// What a pruned plan skipped, for tests and EXPLAIN-like reports.
struct PruneStats {
  int64_t manifests_skipped = 0;
  int64_t entries_skipped_by_partition = 0;
  int64_t entries_skipped_by_bucket = 0;
  int64_t entries_skipped_by_stats = 0;
};

class ScanPruner {
 public:
  // `read_schema` is the schema the read returns rows in (the predicate's field ids are its own);
  // `metadata_path` the folder holding schema/ (for the schemas older files were written with).
  ScanPruner(FileSystem* fs, const std::string& metadata_path, const TableSchema& read_schema, CoreOptions options,
             ScanPredicate predicate);

  // False when no file the manifest lists can hold a matching row.
  bool KeepManifest(const ManifestFileMeta& manifest);
  // False when the entry's data file can hold no matching row (or no row a matching row depends on).
  Result<bool> KeepEntry(const ManifestEntry& entry);

  // The primary key's values when the predicate fixes every primary-key column by an equality (in
  // primary-key order), for a point read (ReadOptions::primary_key_equals).
  static std::optional<Row> PrimaryKeyEquals(const TableSchema& read_schema, const ScanPredicate& predicate);

  const PruneStats& stats() const { return stats_; }

 private:
  bool KeepPartition(const std::string& partition);
  bool KeepBucket(const ManifestEntry& entry);
  Result<bool> KeepFileByStats(const DataFileMeta& file);

  TableSchema read_schema_;
  CoreOptions options_;
  ScanPredicate predicate_;
  SchemaCache schemas_;
  bool primary_key_ = false;
  bool value_stats_usable_ = false;
  // Partition conditions: (index among the partition columns, condition).
  std::vector<std::pair<size_t, const ColumnPredicate*>> partition_conditions_;
  std::vector<DataType> partition_types_;
  std::unordered_map<std::string, bool> partition_decisions_;
  // Bucket pruning: every combination of the bucket key's fixed values (empty: no bucket pruning).
  std::vector<Row> bucket_keys_;
  std::vector<DataType> bucket_key_types_;
  BucketFunctionType bucket_function_type_ = BucketFunctionType::kDefault;
  std::map<int32_t, std::set<int32_t>> buckets_by_total_;  // total buckets -> buckets that may match
  std::string bucket_scratch_;
  PruneStats stats_;
};

}  // namespace tide
