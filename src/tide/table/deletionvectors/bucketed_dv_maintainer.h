// BucketedDvMaintainer: the deletion vectors of one (partition, bucket) of a primary-key table while a
// writer holds it, Java's BucketedDvMaintainer. Lookup compaction marks the older position of a key
// that level-0 rows supersede (NotifyNewDeletion) and drops the vectors of files it rewrites
// (RemoveDeletionVectorOf); when anything changed, WriteIndexFile writes every vector of the bucket into
// one new DV index file (Java's DeletionVectorsIndexFile.writeSingleFile: version byte, one entry per
// data file), which the commit's index manifest lists in place of the bucket's previous one (Java's
// bucketed index-manifest combiner replaces per partition, bucket and index type). A bucket whose last
// vector went away gets an index file without entries, as Java writes it.
//
// Entry order: Java keeps the vectors in a java.util.HashMap and writes them in its iteration order;
// JavaHashMapOrder reproduces that order (String.hashCode, the spread hash, the table's capacity as
// Java grows it, insertion order within a bin), so the index files are laid out as Java's.
//
// Invariant: modified() is true iff the vectors differ from the last index file written or restored.
// Thread-safety: one thread at a time (the writer's compaction task while it runs, else the writer).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/manifest/manifest.h"

namespace tide {

// The iteration order of a java.util.HashMap<String, ?> built by the same puts and removes.
class JavaHashMapOrder {
 public:
  // `new HashMap<>()`.
  JavaHashMapOrder() = default;
  // `new HashMap<>(m)` / `new HashMap<>().putAll(m)` of a map iterating in `keys` order.
  static JavaHashMapOrder CopyOf(const std::vector<std::string>& keys);

  void Put(const std::string& key);
  void Remove(const std::string& key);
  bool Contains(const std::string& key) const { return present_.count(key) > 0; }
  size_t size() const { return present_.size(); }
  // The keys as the Java map iterates them.
  std::vector<std::string> Keys() const;

  // Java's String.hashCode of a UTF-8 string (UTF-16 code units).
  static int32_t JavaStringHash(const std::string& s);

 private:
  void Resize();

  int64_t capacity_ = 0;   // 0: no table yet
  int64_t threshold_ = 0;  // the initial capacity while capacity_ is 0
  std::vector<std::string> insertion_;  // live keys in insertion order
  std::unordered_map<std::string, uint64_t> present_;  // key -> insertion stamp
  uint64_t next_stamp_ = 0;
};

class BucketedDvMaintainer {
 public:
  struct Options {
    DeletionVectorFormat format = DeletionVectorFormat::kBitmap32;
    std::string index_dir;   // the table's index folder, where new files go
    std::string file_prefix; // "index-<uuid>-": names are the prefix and a counter
    std::shared_ptr<int64_t> next_file;  // the counter, shared by the buckets of one writer
    std::string table_name;  // for errors
  };

  explicit BucketedDvMaintainer(Options options) : options_(std::move(options)) {}

  // Loads the vectors of `index_files` (the bucket's DELETION_VECTORS entries of the index manifest,
  // in manifest order), each read from `index_paths` (same order), as Java's factory does.
  Status Restore(FileSystem* fs, const std::vector<IndexManifestEntry>& index_files,
                 const std::vector<std::string>& index_paths);

  void NotifyNewDeletion(const std::string& data_file, int64_t position);
  void RemoveDeletionVectorOf(const std::string& data_file);
  bool IsDeleted(const std::string& data_file, int64_t position) const;
  const DeletionVector* VectorOf(const std::string& data_file) const;
  bool modified() const { return modified_; }
  size_t size() const { return vectors_.size(); }

  // Writes the bucket's vectors into a new index file (durable) and returns its entry (kind ADD,
  // partition and bucket left for the caller). REQUIRES: modified().
  Result<IndexManifestEntry> WriteIndexFile(FileSystem* fs);

 private:
  Options options_;
  std::unordered_map<std::string, DeletionVector> vectors_;
  JavaHashMapOrder order_;
  bool modified_ = false;
};

}  // namespace tide
