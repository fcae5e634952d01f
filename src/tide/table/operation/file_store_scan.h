// FileStoreScan: plans a read of one snapshot of a table into splits, one per (partition, bucket).
//
// Reads the snapshot's base and delta manifest lists, reads every manifest they name, and merges the
// entries in order as Java's FileEntry.mergeEntries does (an ADD then a DELETE of the same file
// identifier cancels out), leaving the live data files. Groups them by partition and bucket, attaches
// the deletion vectors of the snapshot's index manifest, and computes each bucket's folder. Refuses
// tables that use features Tide does not read yet, naming the feature and the file. Thread-safety: a
// planner holds no state between calls beyond its inputs; the result is a plain value.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {

// Where one data file's deletion vector is: a slice of a DV index file.
struct DeletionFile {
  std::string index_path;
  int32_t offset = 0;
  int32_t length = 0;
  std::optional<int64_t> cardinality;
};

struct DataSplit {
  std::string partition;  // serialized BinaryRow
  Row partition_values;
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  std::string bucket_path;          // folder of the bucket's data files
  std::vector<DataFileMeta> files;  // live data files, in manifest order
  std::map<std::string, DeletionFile> deletion_files;  // by data file name

  // The absolute path of one of this split's files (its external path when it has one).
  std::string FilePath(const DataFileMeta& file) const;
};

struct ScanFilter {
  // Only splits whose bucket is in this list (empty: all).
  std::vector<int32_t> buckets;
  // Pruning by a read's predicate (table/source/scan_pruner.h): manifests and data files these say no
  // to are not read. Each must answer the same for every entry of one file (its ADD and DELETE), so
  // that dropping a file's entries never leaves one of them live. Unset: keep everything.
  std::function<bool(const ManifestFileMeta&)> keep_manifest;
  std::function<Result<bool>(const ManifestEntry&)> keep_entry;
};

class FileStoreScan {
 public:
  // `table_path` is the table's folder; `schema` the table's latest schema (for partition types and
  // options); `table_name` is used in errors.
  FileStoreScan(FileSystem* fs, std::string table_path, std::string table_name, const TableSchema& schema)
      : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), schema_(schema) {}

  // The live files of `snapshot`, merged, grouped and sorted by (partition bytes, bucket).
  Result<std::vector<DataSplit>> Plan(const Snapshot& snapshot, const ScanFilter& filter = {}) const;

  // The live manifest entries of `snapshot` (ADD entries after merging), of the manifests and files
  // `filter` keeps.
  Result<std::vector<ManifestEntry>> ReadLiveEntries(const Snapshot& snapshot, const ScanFilter& filter = {}) const;

  std::string ManifestPath(const std::string& name) const;

 private:
  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  const TableSchema& schema_;
};

}  // namespace tide
