// GlobalIndexAssigner: routes the rows of a cross-partition update table (a primary key without every
// partition column, `bucket` = -1; Java Paimon's BucketMode KEY_DYNAMIC) to a partition and bucket, so
// that a key lives in exactly one place although an update may change its partition. As Java's
// crosspartition.GlobalIndexAssigner, for one writer:
//
//   key known, same partition      the row goes to the key's bucket;
//   key known, other partition     by merge engine (Java's ExistingProcessor):
//                                    deduplicate        a -D of the key goes to its old partition and
//                                                       bucket, then the row is a new key (below);
//                                    partial-update,    the row goes to the old partition and bucket,
//                                    aggregation        its partition fields rewritten (the key stays);
//                                    first-row          the row is dropped (the first one stays);
//   key unknown                    a bucket of the row's partition (BucketAssigner), then indexed.
//
// Two refinements over Java, neither visible to readers: a retraction (-U, -D) of a known key goes to
// where the key is, whatever partition its own values name (a PostgreSQL key-only DELETE has no
// partition values), and a retraction of an unknown key on a deduplicate table is dropped (it would
// retract nothing; Java writes it to a new bucket and indexes the key).
//
// The index (KeyIndex: in memory, spilling into RocksDB in a private temporary folder) is rebuilt from
// the table's latest snapshot by IndexBootstrap before the first row; deletes leave keys in it, as in
// Java. No index file goes into the table: Java writes none in this mode.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/binary_row.h"
#include "tide/table/crosspartition/bucket_assigner.h"
#include "tide/table/crosspartition/key_index.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {

// Whether `schema` is a cross-partition update table when its `bucket` is -1: it has a primary key,
// partition keys, and a partition key outside the primary key (Java's TableSchema.crossPartitionUpdate).
bool IsCrossPartitionUpdate(const TableSchema& schema);

// Where one incoming row (or a retraction it causes) is written.
struct IndexedWrite {
  RowKind kind = RowKind::kInsert;
  int32_t partition_id = 0;  // GlobalIndexAssigner::partition(id) gives the partition
  int32_t bucket = 0;
};

struct GlobalIndexConfig {
  std::string table_name;
  MergeEngine merge_engine = MergeEngine::kDeduplicate;
  int64_t target_row_num = 2'000'000;  // dynamic-bucket.target-row-num
  std::vector<DataField> partition_fields;  // the partition columns, in partition-key order
  std::string state_dir;  // parent of the key index's folder; the system's temporary folder when empty
  size_t memory_budget = KeyIndex::kDefaultMemoryBudget;  // keys in memory before they spill into RocksDB
};

class GlobalIndexAssigner {
 public:
  static Result<std::unique_ptr<GlobalIndexAssigner>> Create(GlobalIndexConfig config);

  // Bootstrap: one live key of the table (BinaryRow bytes of its primary key) found in `bucket` of
  // `partition` (serialized BinaryRow). Corruption when a key is found twice: the table holds two rows
  // for one key (written by a writer that did not keep the key index).
  // `describe_key` gives the key's text for that error.
  Status BootstrapKey(std::string_view key, const std::string& partition, int32_t bucket,
                      const std::function<std::string()>& describe_key);
  // Ends the bootstrap (call once, before the first Assign).
  Status EndBootstrap();

  // Where a row of `kind` with primary key `key` and own partition `partition` goes: appends zero, one
  // or two writes to `out` (a retraction in the old partition comes first).
  Status Assign(RowKind kind, std::string_view key, const std::string& partition, std::vector<IndexedWrite>* out) {
    return Assign(kind, key, KeyHashTable::Hash(key), partition, out);
  }
  // As above, with key_hash = KeyHashTable::Hash(key) from the caller, who may have prefetched it.
  Status Assign(RowKind kind, std::string_view key, uint32_t key_hash, const std::string& partition,
                std::vector<IndexedWrite>* out);
  // A hint that a key of this hash comes soon (KeyIndex::Prefetch); no effect before the index exists.
  void Prefetch(uint32_t key_hash) const {
    if (index_) index_->Prefetch(key_hash);
  }
  // Makes room in memory for `keys` more keys (an initial copy's rows), within the index's budget.
  void ReserveKeys(size_t keys) { index_->Reserve(keys); }

  int32_t PartitionId(const std::string& partition);
  const std::string& partition(int32_t id) const { return partitions_[static_cast<size_t>(id)]; }
  // The partition's values, in partition-key order.
  Result<const Row*> PartitionValues(int32_t id);

  int64_t bootstrapped_keys() const { return bootstrapped_keys_; }
  const BucketAssigner& buckets() const { return buckets_; }

 private:
  explicit GlobalIndexAssigner(GlobalIndexConfig config)
      : config_(std::move(config)), partition_types_(FieldTypes(config_.partition_fields)),
        buckets_(config_.target_row_num) {}
  int32_t PartitionIdOf(const std::string& partition);  // PartitionId without the last-answer check
  Status NewKey(std::string_view key, uint32_t key_hash, int32_t partition_id, RowKind kind,
                std::vector<IndexedWrite>* out);

  GlobalIndexConfig config_;
  std::vector<DataType> partition_types_;
  std::unique_ptr<KeyIndex> index_;
  BucketAssigner buckets_;
  std::vector<std::string> partitions_;
  std::vector<std::unique_ptr<Row>> partition_values_;
  std::unordered_map<std::string, int32_t> partition_ids_;
  int32_t last_partition_id_ = -1;  // PartitionId's last answer
  // Keys bootstrapped into the index's pending batch (a second one is a duplicate too).
  bool bootstrapping_ = true;
  int64_t bootstrapped_keys_ = 0;
};

}  // namespace tide
