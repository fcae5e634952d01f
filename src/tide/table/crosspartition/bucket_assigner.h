// BucketAssigner: the bucket of a new key in one partition of a cross-partition update table, as Java
// Paimon's crosspartition.BucketAssigner does it for a single assigner: per partition a count of keys
// per bucket; a new key goes to the lowest bucket holding fewer than `dynamic-bucket.target-row-num`
// keys, else to the smallest bucket id not in use. Counts come from the table at bootstrap, grow with
// each new key and shrink when a key moves to another partition (deletes leave them: the key keeps its
// place in the index, as in Java). `dynamic-bucket.max-buckets` does not apply (Java ignores it here).
// Thread-safety: a plain value; one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace tide {

class BucketAssigner {
 public:
  explicit BucketAssigner(int64_t target_row_num) : target_row_num_(target_row_num) {}

  // One key of the table found in `bucket` of partition `partition_id` at bootstrap.
  void BootstrapBucket(int32_t partition_id, int32_t bucket) { ++Counts(partition_id)[bucket]; }
  // The bucket of a new key in the partition; counts it.
  int32_t AssignBucket(int32_t partition_id);
  // A key left the bucket (it moved to another partition).
  void Decrement(int32_t partition_id, int32_t bucket);

  int64_t count(int32_t partition_id, int32_t bucket) const;

 private:
  std::map<int32_t, int64_t>& Counts(int32_t partition_id);

  int64_t target_row_num_;
  std::vector<std::map<int32_t, int64_t>> counts_;  // by partition id: keys per bucket
};

}  // namespace tide
