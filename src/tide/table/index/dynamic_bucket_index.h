// DynamicBucketIndex: the bucket assignment and HASH index files of a dynamic-bucket primary-key table
// (`bucket` = -1, primary key covering every partition key) for a single writer, as Java Paimon 1.x's
// HashBucketAssigner (one assigner), PartitionIndex, DynamicBucketIndexMaintainer and HashIndexFile do.
//
// Assignment (PartitionIndex.assign), per partition, by the hash of the key (Java's hashCode of the
// trimmed primary-key BinaryRow, RowKind +I):
//   1. a hash seen before (in the partition's HASH index files of the latest snapshot, or assigned by
//      this writer) keeps its bucket;
//   2. else the first bucket with fewer than `dynamic-bucket.target-row-num` hashes, in the iteration
//      order of Java's HashMap<Integer, Long> (buckets found full are dropped from the candidates);
//   3. else the smallest bucket id not in use, below `dynamic-bucket.max-buckets` (-1: 32767);
//   4. else (max-buckets reached) one of the partition's buckets: Java picks at random, Tide by
//      Math.abs(hash % count) over the buckets in first-seen order (readers do not care which).
// Every hash counts once per bucket: deletes of unknown keys take room too, as in Java.
//
// Index files: each (partition, bucket) writer keeps the set of its key hashes (HashIndexSet, restored
// from the bucket's HASH file in the latest snapshot) and, at a commit after any new hash, writes the
// whole set to `<table>/index/index-<uuid>-<n>` (HashIndexFile; one UUID per instance). The commit
// carries the file as a HASH ADD; FileStoreCommit's index manifest then replaces the bucket's previous
// HASH entry, as Java's IndexManifestFileHandler does (Java never sends a DELETE for a HASH file; the
// replaced file stays on disk until snapshot expiration).
//
// Thread-safety: one thread at a time.
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
#include "tide/io/file_system.h"
#include "tide/table/index/hash_index_set.h"
#include "tide/table/manifest/manifest.h"

namespace tide {

inline constexpr std::string_view kHashIndexType = "HASH";

struct DynamicBucketOptions {
  int64_t target_row_num = 2'000'000;  // dynamic-bucket.target-row-num
  int32_t max_buckets = -1;            // dynamic-bucket.max-buckets (-1: unlimited)
  // Start from an empty table, ignoring the latest snapshot's HASH index files: for writes an OVERWRITE
  // of the whole table publishes (which drops those files).
  bool ignore_previous = false;
};

class DynamicBucketIndex {
 public:
  DynamicBucketIndex(FileSystem* fs, std::string table_path, std::string table_name, DynamicBucketOptions options);
  ~DynamicBucketIndex();
  DynamicBucketIndex(const DynamicBucketIndex&) = delete;
  DynamicBucketIndex& operator=(const DynamicBucketIndex&) = delete;

  // The bucket of the key with hash `key_hash` in `partition` (serialized BinaryRow). Loads the
  // partition's HASH index files from the latest snapshot the first time it meets the partition.
  Result<int32_t> Assign(const std::string& partition, int32_t key_hash);

  // The key hashes of (partition, bucket) in the latest snapshot's HASH index file, as Java's
  // DynamicBucketIndexMaintainer restores them (an empty set when there is none).
  Result<HashIndexSet> RestoreBucket(const std::string& partition, int32_t bucket);

  // Writes `hashes` as a new HASH index file (durable when this returns) and returns its ADD entry.
  Result<IndexManifestEntry> WriteIndexFile(const std::string& partition, int32_t bucket, const HashIndexSet& hashes);

  // At a writer's PrepareCommit number `commit` (Java's HashBucketAssigner.prepareCommit): the index of
  // a partition no row was assigned in since the last call, and last assigned in at or before
  // `latest_committed` (the writer's last PrepareCommit whose messages are committed; -1: none), leaves
  // memory; the partition's next row loads it again from the latest snapshot's HASH files, which hold
  // every assignment it made. Without effect when `ignore_previous`.
  void PrepareCommit(int64_t commit, int64_t latest_committed);
  // Partitions whose index is in memory.
  size_t loaded_partitions() const { return partitions_.size(); }

  const std::string& index_dir() const { return index_dir_; }

 private:
  struct PartitionIndex;

  // The HASH entries of the latest snapshot's index manifest (cached per snapshot id).
  Result<const std::vector<IndexManifestEntry>*> LatestHashEntries();
  Result<std::vector<int32_t>> ReadIndexFile(const IndexManifestEntry& entry);
  Result<std::unique_ptr<PartitionIndex>> LoadPartition(const std::string& partition);

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  std::string index_dir_;
  DynamicBucketOptions options_;
  std::string uuid_;
  int64_t next_file_ = 0;
  bool index_dir_ready_ = false;

  std::optional<int64_t> cached_snapshot_;  // snapshot id of cached_entries_ (0: no snapshot)
  std::vector<IndexManifestEntry> cached_entries_;
  std::unordered_map<std::string, std::unique_ptr<PartitionIndex>> partitions_;
};

}  // namespace tide
