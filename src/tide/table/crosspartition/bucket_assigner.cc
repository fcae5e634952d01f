#include "tide/table/crosspartition/bucket_assigner.h"

namespace tide {

std::map<int32_t, int64_t>& BucketAssigner::Counts(int32_t partition_id) {
  if (static_cast<size_t>(partition_id) >= counts_.size()) counts_.resize(static_cast<size_t>(partition_id) + 1);
  return counts_[static_cast<size_t>(partition_id)];
}

int32_t BucketAssigner::AssignBucket(int32_t partition_id) {
  std::map<int32_t, int64_t>& counts = Counts(partition_id);
  for (auto& [bucket, count] : counts) {
    if (count < target_row_num_) {
      ++count;
      return bucket;
    }
  }
  // Every bucket in use is full: the smallest free id.
  int32_t bucket = 0;
  for (const auto& [used, count] : counts) {
    if (used != bucket) break;
    ++bucket;
  }
  counts[bucket] = 1;
  return bucket;
}

void BucketAssigner::Decrement(int32_t partition_id, int32_t bucket) {
  int64_t& count = Counts(partition_id)[bucket];
  if (count > 0) --count;
}

int64_t BucketAssigner::count(int32_t partition_id, int32_t bucket) const {
  if (static_cast<size_t>(partition_id) >= counts_.size()) return 0;
  const auto& counts = counts_[static_cast<size_t>(partition_id)];
  auto it = counts.find(bucket);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace tide
