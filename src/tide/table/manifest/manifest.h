// The manifest records of a Paimon table: manifest lists (ManifestFileMeta), manifests (ManifestEntry
// with DataFileMeta) and index manifests (IndexManifestEntry), decoded from their Avro files.
//
// Field meanings and versions: PAIMON_FORMAT.md §4. Readers follow the writer's Avro schema and look
// fields up by name, so 0.9 files (nullable-union records, no 1.x fields) and 1.x files both decode.
// BinaryRow-valued fields (partition, keys, stats) are kept as their serialized bytes (4-byte arity
// prefix + row) and decoded where needed. Thread-safety: plain values and stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_meta.h"

namespace tide {

enum class FileKind : int32_t { kAdd = 0, kDelete = 1 };

struct ManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  DataFileMeta file;

  bool operator==(const ManifestEntry&) const = default;
};

struct ManifestFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  SimpleStats partition_stats;
  int64_t schema_id = 0;
  std::optional<int32_t> min_bucket, max_bucket, min_level, max_level;
  std::optional<int64_t> min_row_id, max_row_id;

  bool operator==(const ManifestFileMeta&) const = default;
};

struct DeletionVectorMeta {
  std::string data_file_name;
  int32_t offset = 0;
  int32_t length = 0;
  std::optional<int64_t> cardinality;

  bool operator==(const DeletionVectorMeta&) const = default;
};

struct IndexManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  std::string index_type;  // "DELETION_VECTORS", "HASH", ...
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::optional<std::vector<DeletionVectorMeta>> deletion_vectors;
  std::optional<std::string> external_path;
  bool has_global_index = false;

  bool operator==(const IndexManifestEntry&) const = default;
};

// Reads the manifest list, manifest or index manifest at `path`. An ORC or Parquet manifest (a table
// with `manifest.format` other than avro) fails with NotSupported naming the format and the file.
Result<std::vector<ManifestFileMeta>> ReadManifestList(FileSystem* fs, const std::string& path);
Result<std::vector<ManifestEntry>> ReadManifest(FileSystem* fs, const std::string& path);
Result<std::vector<IndexManifestEntry>> ReadIndexManifest(FileSystem* fs, const std::string& path);

}  // namespace tide
