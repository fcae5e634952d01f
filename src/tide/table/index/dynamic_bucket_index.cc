#include "tide/table/index/dynamic_bucket_index.h"

#include <algorithm>
#include <cstdlib>

#include "tide/table/manifest/manifest_writer.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

// Java's PartitionIndex for one assigner.
struct DynamicBucketIndex::PartitionIndex {
  // A bucket that may still have room, with its hash count (Java's nonFullBucketInformation).
  struct Candidate {
    int32_t bucket;
    int64_t count;
    int64_t inserted;  // insertion order, which orders buckets sharing a HashMap bin
  };

  std::unordered_map<int32_t, int32_t> hash_to_bucket;
  // Kept in the iteration order of Java's HashMap<Integer, Long>: by bin (Integer.hashCode spread,
  // which is the id itself below 2^16, masked by the table capacity), then by insertion. The capacity
  // starts at 16 and doubles once the size passes 3/4 of it; removals never shrink it.
  std::vector<Candidate> non_full;
  int64_t map_capacity = 16;
  int64_t insertions = 0;
  std::set<int32_t> buckets;          // totalBucketSet
  std::vector<int32_t> bucket_order;  // totalBucketArray: first-seen order
  bool upper_bound_reached = false;
  // Whether a row was assigned since the last PrepareCommit, and that call's number when one was.
  bool accessed = false;
  int64_t last_accessed_commit = INT64_MIN;

  void AddCandidate(int32_t bucket, int64_t count) {
    non_full.push_back(Candidate{bucket, count, insertions++});
    while (static_cast<int64_t>(non_full.size()) * 4 > map_capacity * 3) map_capacity *= 2;
    const int64_t mask = map_capacity - 1;
    std::stable_sort(non_full.begin(), non_full.end(), [mask](const Candidate& a, const Candidate& b) {
      int64_t bin_a = static_cast<int64_t>(Spread(a.bucket)) & mask;
      int64_t bin_b = static_cast<int64_t>(Spread(b.bucket)) & mask;
      if (bin_a != bin_b) return bin_a < bin_b;
      return a.inserted < b.inserted;
    });
  }

  // java.util.HashMap.hash(Integer).
  static uint32_t Spread(int32_t key) {
    uint32_t h = static_cast<uint32_t>(key);
    return h ^ (h >> 16);
  }
};

DynamicBucketIndex::DynamicBucketIndex(FileSystem* fs, std::string table_path, std::string table_name,
                                       DynamicBucketOptions options)
    : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), options_(options),
      uuid_(RandomUuidString()) {
  index_dir_ = JoinPath(table_path_, "index");
}

DynamicBucketIndex::~DynamicBucketIndex() = default;

Result<const std::vector<IndexManifestEntry>*> DynamicBucketIndex::LatestHashEntries() {
  if (options_.ignore_previous) return &cached_entries_;  // stays empty
  SnapshotManager snapshots(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
  int64_t id = latest.value_or(0);
  if (cached_snapshot_ == id) return &cached_entries_;
  cached_entries_.clear();
  if (latest) {
    TIDE_ASSIGN_OR_RETURN(Snapshot snapshot, snapshots.Get(id));
    if (snapshot.index_manifest) {
      std::string manifest = JoinPath(JoinPath(table_path_, "manifest"), *snapshot.index_manifest);
      TIDE_ASSIGN_OR_RETURN(auto entries, ReadIndexManifest(fs_, manifest));
      for (auto& e : entries) {
        if (e.index_type == kHashIndexType && e.kind == FileKind::kAdd) cached_entries_.push_back(std::move(e));
      }
    }
  }
  cached_snapshot_ = id;
  return &cached_entries_;
}

Result<std::vector<int32_t>> DynamicBucketIndex::ReadIndexFile(const IndexManifestEntry& entry) {
  std::string path = entry.external_path ? *entry.external_path : JoinPath(index_dir_, entry.file_name);
  TIDE_ASSIGN_OR_RETURN(std::string bytes, fs_->ReadFile(path));
  return DecodeHashIndexFile(bytes, path);
}

Result<std::unique_ptr<DynamicBucketIndex::PartitionIndex>> DynamicBucketIndex::LoadPartition(
    const std::string& partition) {
  TIDE_ASSIGN_OR_RETURN(const std::vector<IndexManifestEntry>* entries, LatestHashEntries());
  auto index = std::make_unique<PartitionIndex>();
  std::vector<int32_t> first_seen;
  std::map<int32_t, int64_t> counts;
  for (const IndexManifestEntry& e : *entries) {
    if (e.partition != partition) continue;
    TIDE_ASSIGN_OR_RETURN(std::vector<int32_t> hashes, ReadIndexFile(e));
    if (e.bucket < 0 || e.bucket > INT16_MAX) {
      return Status::Corruption("HASH index file {} belongs to bucket {}, outside 0..32767", e.file_name, e.bucket);
    }
    for (int32_t h : hashes) index->hash_to_bucket[h] = e.bucket;
    if (hashes.empty()) continue;
    auto [it, inserted] = counts.emplace(e.bucket, 0);
    if (inserted) first_seen.push_back(e.bucket);
    it->second += static_cast<int64_t>(hashes.size());
  }
  for (int32_t bucket : first_seen) index->AddCandidate(bucket, counts[bucket]);
  // Java's LinkedHashSet over the HashMap's key set: the HashMap's iteration order.
  for (const auto& c : index->non_full) {
    index->buckets.insert(c.bucket);
    index->bucket_order.push_back(c.bucket);
  }
  return index;
}

Result<int32_t> DynamicBucketIndex::Assign(const std::string& partition, int32_t key_hash) {
  auto found = partitions_.find(partition);
  if (found == partitions_.end()) {
    auto loaded = LoadPartition(partition);
    if (!loaded.ok()) return loaded.status().WithContext("table " + table_name_ + ", loading the dynamic-bucket index");
    found = partitions_.emplace(partition, std::move(loaded).value()).first;
  }
  PartitionIndex& index = *found->second;
  index.accessed = true;
  auto known = index.hash_to_bucket.find(key_hash);
  if (known != index.hash_to_bucket.end()) return known->second;

  for (size_t i = 0; i < index.non_full.size();) {
    PartitionIndex::Candidate& c = index.non_full[i];
    if (c.count < options_.target_row_num) {
      ++c.count;
      index.hash_to_bucket.emplace(key_hash, c.bucket);
      return c.bucket;
    }
    index.non_full.erase(index.non_full.begin() + static_cast<std::ptrdiff_t>(i));
  }
  const int32_t global_max = (options_.max_buckets == -1 ? int32_t{INT16_MAX} : options_.max_buckets) - 1;
  if (!index.upper_bound_reached) {
    for (int32_t b = 0; b <= global_max; ++b) {
      if (index.buckets.count(b)) continue;
      index.AddCandidate(b, 1);
      index.buckets.insert(b);
      index.bucket_order.push_back(b);
      index.hash_to_bucket.emplace(key_hash, b);
      return b;
    }
    if (options_.max_buckets == -1) {
      return Status::InvalidArgument(
          "table {}: a partition has used all {} dynamic buckets of {} keys each; raise "
          "'dynamic-bucket.target-row-num'",
          table_name_, global_max + 1, options_.target_row_num);
    }
    index.upper_bound_reached = true;
  }
  const auto count = static_cast<int32_t>(index.bucket_order.size());
  int32_t bucket = index.bucket_order[static_cast<size_t>(std::abs(key_hash % count))];
  index.hash_to_bucket.emplace(key_hash, bucket);
  return bucket;
}

Result<HashIndexSet> DynamicBucketIndex::RestoreBucket(const std::string& partition, int32_t bucket) {
  auto entries = LatestHashEntries();
  if (!entries.ok()) return entries.status().WithContext("table " + table_name_ + ", restoring a HASH index");
  const IndexManifestEntry* file = nullptr;
  for (const IndexManifestEntry& e : **entries) {
    if (e.partition != partition || e.bucket != bucket) continue;
    if (file) {
      return Status::Corruption("table {}: bucket {} of a partition has two HASH index files ({} and {})", table_name_,
                                bucket, file->file_name, e.file_name);
    }
    file = &e;
  }
  if (!file) return HashIndexSet();
  auto hashes = ReadIndexFile(*file);
  if (!hashes.ok()) return hashes.status().WithContext("table " + table_name_);
  HashIndexSet set(static_cast<int32_t>(std::clamp<int64_t>(file->row_count, 0, INT32_MAX)));
  for (int32_t h : *hashes) set.Add(h);
  return set;
}

Result<IndexManifestEntry> DynamicBucketIndex::WriteIndexFile(const std::string& partition, int32_t bucket,
                                                              const HashIndexSet& hashes) {
  if (!index_dir_ready_) {
    Status made = fs_->MakeDirs(index_dir_);
    if (made.ok()) made = SyncLocalDirectory(table_path_);
    if (!made.ok()) return made.WithContext("table " + table_name_ + ", creating the index folder");
    index_dir_ready_ = true;
  }
  std::vector<int32_t> ordered = hashes.ToVector();
  std::string bytes = EncodeHashIndexFile(ordered);
  IndexManifestEntry entry;
  entry.kind = FileKind::kAdd;
  entry.partition = partition;
  entry.bucket = bucket;
  entry.index_type = std::string(kHashIndexType);
  entry.file_name = "index-" + uuid_ + "-" + std::to_string(next_file_++);
  entry.file_size = static_cast<int64_t>(bytes.size());
  entry.row_count = static_cast<int64_t>(ordered.size());
  Status written = fs_->WriteFileExclusive(JoinPath(index_dir_, entry.file_name), bytes);
  if (!written.ok()) return written.WithContext("table " + table_name_ + ", writing a HASH index file");
  return entry;
}

void DynamicBucketIndex::PrepareCommit(int64_t commit, int64_t latest_committed) {
  if (options_.ignore_previous) return;
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    PartitionIndex& index = *it->second;
    if (index.accessed) {
      index.last_accessed_commit = commit;
    } else if (index.last_accessed_commit <= latest_committed) {
      it = partitions_.erase(it);
      continue;
    }
    index.accessed = false;
    ++it;
  }
}

}  // namespace tide
