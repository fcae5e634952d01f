// FileStorePathFactory: where a table's data files live: partition folders (`k=v/...`, Hive escaping,
// the default partition name, legacy or typed value text) and bucket folders, as Java's
// FileStorePathFactory and PartitionPathUtils lay them out (PAIMON_FORMAT.md §1).
//
// Holds references to the schema and options it was made with, which must outlive it. Thread-safety: const
// methods only, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {

class FileStorePathFactory {
 public:
  FileStorePathFactory(std::string table_path, const TableSchema& schema, const CoreOptions& options)
      : table_path_(std::move(table_path)), schema_(schema), options_(options) {}

  // The folder holding a partition's buckets, e.g. `<table>/dt=2024-01-01/hr=1`.
  Result<std::string> PartitionPath(const Row& partition_values) const;
  // `<partition_path>/bucket-<bucket>`.
  static std::string BucketPath(const std::string& partition_path, int32_t bucket);

 private:
  std::string table_path_;
  const TableSchema& schema_;
  const CoreOptions& options_;
};

// The local path a `file:` URI names (Java writes external paths as `FILE:/dir/...`); other strings
// are returned unchanged.
std::string LocalPathOf(std::string_view uri);

// Hive-style escaping of one partition path segment (PAIMON_FORMAT.md §1).
std::string EscapePartitionPathSegment(std::string_view text);

}  // namespace tide
