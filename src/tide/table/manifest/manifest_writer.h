// Manifest writing: encodes manifest entries (ManifestEntry), manifest-list records (ManifestFileMeta)
// and index-manifest records (IndexManifestEntry) to Avro container files exactly as Java Paimon 1.x
// (1.1 / 1.2 layout) writes them, and stores them in a table's `manifest/` folder.
//
// The writer schemas are Java's, field for field: record name `record` in namespace
// `org.apache.paimon.avro.generated`, nested records `record__FILE`, `record__FILE__KEY_STATS`,
// `record__FILE__VALUE_STATS`, `record__PARTITION_STATS`, `record__DELETIONS_VECTORS_RANGES`, non-null
// fields without a default, nullable fields as `["null", T]` with `"default": null`. DataFileMeta
// carries fields 0-17 (up to `_EXTERNAL_PATH`), which Java 0.9 and every 1.x reader accept; values
// that only later layouts can hold (`_FIRST_ROW_ID`, `_WRITE_COLS`, index `_EXTERNAL_PATH`, global
// indexes, manifest row-id ranges) are refused with InvalidArgument rather than silently dropped.
// Codec: `zstandard` level 1 (Paimon's `manifest.compression=zstd`). The readers in manifest.h decode
// every record these functions encode back to an equal value.
//
// File names follow FileStorePathFactory: `manifest-<uuid>-<n>`, `manifest-list-<uuid>-<n>`,
// `index-manifest-<uuid>-<n>`, one random UUID per ManifestFileNamer (one per committer) and a counter
// per kind starting at 0. Every file is stored with FileSystem::WriteFileExclusive, so it is durable
// (data and directory entry) when the write returns, and a name is never reused.
//
// Thread-safety: the encoding functions are pure. ManifestFileNamer is thread-safe (atomic counters).
// ManifestFileWriter holds no mutable state beyond its namer and may be shared.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/base/uuid.h"
#include "tide/codec/avro_value.h"
#include "tide/codec/avro_writer.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_stats.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/manifest/manifest_entry_cache.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

// Java Paimon 1.2's Avro writer schemas (Schema.toString() of AvroSchemaConverter's output).
extern const std::string_view kManifestEntryAvroSchema;
extern const std::string_view kManifestFileMetaAvroSchema;
extern const std::string_view kIndexManifestEntryAvroSchema;

// One record as an Avro datum of the schema above. InvalidArgument (naming the file) for values the
// 1.2 layout cannot hold, or an unknown FileKind.
Result<AvroValue> ManifestEntryToAvro(const ManifestEntry& entry);
Result<AvroValue> ManifestFileMetaToAvro(const ManifestFileMeta& meta);
Result<AvroValue> IndexManifestEntryToAvro(const IndexManifestEntry& entry);

// Whole container files in memory (the bytes Java would store).
Result<std::string> EncodeManifestFile(const std::vector<ManifestEntry>& entries,
                                       const AvroWriterOptions& options = {});
Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const AvroWriterOptions& options = {});
Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const AvroWriterOptions& options = {});

// Min/max/null-count statistics over the partitions of a manifest's entries, as Java's
// SimpleStatsCollector with full stats does for `_PARTITION_STATS`: per field the null count, and
// min/max by Java's compareTo for comparable types (numbers, booleans, decimals, strings as unsigned
// bytes, dates, times, timestamps; floats by Float.compare). Binary and nested partition fields get
// NULL min/max, as in Java. Invariant: Stats() is the stats of exactly the rows collected so far.
// Thread-safety: one collector per thread.
class PartitionStatsCollector {
 public:
  explicit PartitionStatsCollector(std::vector<DataType> partition_types);

  // Adds one serialized partition row (`[BE arity][BinaryRow]`). Corruption if it does not decode
  // with the partition types.
  Status Collect(std::string_view serialized_partition);
  // The stats as serialized min/max rows and one null count per field.
  Result<SimpleStats> Stats() const;

 private:
  std::vector<DataType> types_;
  std::vector<Datum> min_;
  std::vector<Datum> max_;
  std::vector<int64_t> null_counts_;
};

// Java's compareTo order of two non-null partition (or key) values of `type`.
int JavaCompareValues(const Datum& a, const Datum& b, const DataType& type);
// Whether Java's stats collector keeps min/max for values of `type` (the value class is Comparable).


// Names new manifest-like files. Thread-safe.
class ManifestFileNamer {
 public:
  ManifestFileNamer();  // a fresh random UUID
  explicit ManifestFileNamer(std::string uuid) : uuid_(std::move(uuid)) {}

  const std::string& uuid() const { return uuid_; }
  std::string NewManifestName() { return "manifest-" + uuid_ + "-" + std::to_string(manifests_++); }
  std::string NewManifestListName() { return "manifest-list-" + uuid_ + "-" + std::to_string(lists_++); }
  std::string NewIndexManifestName() {
    return "index-manifest-" + uuid_ + "-" + std::to_string(index_manifests_++);
  }

 private:
  std::string uuid_;
  std::atomic<int64_t> manifests_{0};
  std::atomic<int64_t> lists_{0};
  std::atomic<int64_t> index_manifests_{0};
};


struct ManifestWriterOptions {
  // `manifest.target-file-size`: a manifest rolls over to the next file past this many bytes.
  int64_t target_file_size = 8 * 1024 * 1024;
  AvroWriterOptions avro;
};

// Writes manifest-like files into one table's `manifest/` folder.
class ManifestFileWriter {
 public:
  // `manifest_dir` is `<table>/manifest`; `partition_types` the table's partition field types.
  ManifestFileWriter(FileSystem* fs, std::string manifest_dir, std::vector<DataType> partition_types,
                     ManifestFileNamer* namer, ManifestWriterOptions options = {});

  const std::string& manifest_dir() const { return manifest_dir_; }
  std::string PathOf(const std::string& name) const { return JoinPath(manifest_dir_, name); }

  // Writes `entries` (in order) into as many manifest files as the target size needs (none for no
  // entries) and returns their list records: counts, partition stats, max schema id, bucket and level
  // ranges. On error, files this call wrote are deleted.
  Result<std::vector<ManifestFileMeta>> WriteManifests(const std::vector<ManifestEntry>& entries);
  // Writes one manifest list; returns its name and size in bytes.
  Result<std::pair<std::string, int64_t>> WriteManifestList(const std::vector<ManifestFileMeta>& metas);
  // Writes one index manifest; returns its name.
  Result<std::string> WriteIndexManifest(const std::vector<IndexManifestEntry>& entries);

  // Keeps the entries of the manifests it writes in `cache`, and reads manifests through it (null: no
  // cache). REQUIRES: `cache` outlives the writer.
  void set_cache(ManifestEntryCache* cache) { cache_ = cache; }

  // Reads back (through manifest.h; manifests through the cache when one is set).
  Result<std::vector<ManifestEntry>> ReadManifest(const std::string& name) const;
  // The same, shared with the cache instead of copied.
  Result<ManifestEntryCache::Entries> ReadManifestShared(const std::string& name) const;
  Result<std::vector<ManifestFileMeta>> ReadManifestList(const std::string& name) const;
  Result<std::vector<IndexManifestEntry>> ReadIndexManifest(const std::string& name) const;

  // Deletes a file of this folder, ignoring errors (cleanup of an abandoned attempt).
  void DeleteQuietly(const std::string& name) const;

  const std::vector<DataType>& partition_types() const { return partition_types_; }

 private:
  // Stores a new file durably; on failure nothing is left under its name.
  Status Store(const std::string& name, std::string_view bytes) const;

  FileSystem* fs_;
  std::string manifest_dir_;
  std::vector<DataType> partition_types_;
  ManifestFileNamer* namer_;
  ManifestWriterOptions options_;
  ManifestEntryCache* cache_ = nullptr;
};

}  // namespace tide
