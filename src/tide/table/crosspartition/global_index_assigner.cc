#include "tide/table/crosspartition/global_index_assigner.h"

#include <algorithm>

namespace tide {

bool IsCrossPartitionUpdate(const TableSchema& schema) {
  if (!schema.HasPrimaryKey() || schema.partition_keys.empty()) return false;
  for (const std::string& p : schema.partition_keys) {
    if (std::find(schema.primary_keys.begin(), schema.primary_keys.end(), p) == schema.primary_keys.end()) return true;
  }
  return false;
}

Result<std::unique_ptr<GlobalIndexAssigner>> GlobalIndexAssigner::Create(GlobalIndexConfig config) {
  if (config.target_row_num <= 0) {
    return Status::InvalidArgument("table {}: 'dynamic-bucket.target-row-num' must be positive, not {}",
                                   config.table_name, config.target_row_num);
  }
  std::unique_ptr<GlobalIndexAssigner> assigner(new GlobalIndexAssigner(std::move(config)));
  TIDE_ASSIGN_OR_RETURN(assigner->index_, KeyIndex::Create(assigner->config_.state_dir, assigner->config_.table_name,
                                                            assigner->config_.memory_budget));
  return assigner;
}

int32_t GlobalIndexAssigner::PartitionId(const std::string& partition) {
  // Rows come in runs of one partition (a copy reads a table in its physical order, which follows the
  // time most tables are partitioned by): the last partition is asked first.
  if (last_partition_id_ >= 0 && partitions_[static_cast<size_t>(last_partition_id_)] == partition) {
    return last_partition_id_;
  }
  last_partition_id_ = PartitionIdOf(partition);
  return last_partition_id_;
}

int32_t GlobalIndexAssigner::PartitionIdOf(const std::string& partition) {
  auto [it, inserted] = partition_ids_.try_emplace(partition, static_cast<int32_t>(partitions_.size()));
  if (inserted) {
    partitions_.push_back(partition);
    partition_values_.emplace_back();
  }
  return it->second;
}

Result<const Row*> GlobalIndexAssigner::PartitionValues(int32_t id) {
  std::unique_ptr<Row>& values = partition_values_[static_cast<size_t>(id)];
  if (!values) {
    auto decoded = DeserializeBinaryRow(partitions_[static_cast<size_t>(id)], partition_types_);
    if (!decoded.ok()) return decoded.status().WithContext("table " + config_.table_name + ", a partition of the key index");
    values = std::make_unique<Row>(std::move(decoded).value());
  }
  return values.get();
}

Status GlobalIndexAssigner::BootstrapKey(std::string_view key, const std::string& partition, int32_t bucket,
                                         const std::function<std::string()>& describe_key) {
  if (!bootstrapping_) {
    return Status::Internal("table {}: a key bootstrapped after the bootstrap ended", config_.table_name);
  }
  const int32_t id = PartitionId(partition);
  TIDE_ASSIGN_OR_RETURN(auto existing, index_->Get(key));
  if (existing.has_value()) {
    TIDE_ASSIGN_OR_RETURN(const Row* here, PartitionValues(id));
    return Status::Corruption(
        "table {}: primary key {} is stored twice (found again in partition {}, bucket {}); a cross-partition "
        "update table must hold each key once: was it written by a writer without a key index (fixed "
        "buckets)? Rewrite the table without the duplicates",
        config_.table_name, describe_key(), RowToString(*here, config_.partition_fields), bucket);
  }
  TIDE_RETURN_IF_ERROR(index_->Put(key, PartitionBucket{id, bucket}));
  buckets_.BootstrapBucket(id, bucket);
  ++bootstrapped_keys_;
  return Status::OK();
}

Status GlobalIndexAssigner::EndBootstrap() {
  bootstrapping_ = false;
  return Status::OK();
}

Status GlobalIndexAssigner::NewKey(std::string_view key, uint32_t key_hash, int32_t partition_id, RowKind kind,
                                   std::vector<IndexedWrite>* out) {
  const int32_t bucket = buckets_.AssignBucket(partition_id);
  TIDE_RETURN_IF_ERROR(index_->Put(key, key_hash, PartitionBucket{partition_id, bucket}));
  out->push_back(IndexedWrite{kind, partition_id, bucket});
  return Status::OK();
}

Status GlobalIndexAssigner::Assign(RowKind kind, std::string_view key, uint32_t key_hash, const std::string& partition,
                                   std::vector<IndexedWrite>* out) {
  if (bootstrapping_) TIDE_RETURN_IF_ERROR(EndBootstrap());
  const int32_t id = PartitionId(partition);
  TIDE_ASSIGN_OR_RETURN(auto where, index_->Get(key, key_hash));
  if (!where) {
    if (IsRetraction(kind) && config_.merge_engine == MergeEngine::kDeduplicate) return Status::OK();
    return NewKey(key, key_hash, id, kind, out);
  }
  if (where->partition_id == id || IsRetraction(kind)) {
    out->push_back(IndexedWrite{kind, where->partition_id, where->bucket});
    return Status::OK();
  }
  switch (config_.merge_engine) {
    case MergeEngine::kDeduplicate:
      // The key leaves its old partition: a -D there, then it is a new key of its new partition.
      out->push_back(IndexedWrite{RowKind::kDelete, where->partition_id, where->bucket});
      buckets_.Decrement(where->partition_id, where->bucket);
      return NewKey(key, key_hash, id, kind, out);
    case MergeEngine::kPartialUpdate:
    case MergeEngine::kAggregation:
      // The row merges into the key where it is.
      out->push_back(IndexedWrite{kind, where->partition_id, where->bucket});
      return Status::OK();
    case MergeEngine::kFirstRow:
      return Status::OK();  // the first row stays
  }
  return Status::OK();
}

}  // namespace tide
