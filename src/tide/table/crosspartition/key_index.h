// KeyIndex: where each primary key of a cross-partition update table lives now: its partition (as a
// small id) and bucket, kept in a RocksDB database in a private temporary folder, as Java Paimon's
// GlobalIndexAssigner keeps its `keyIndex` state. The table is the truth: the index is rebuilt from it
// at every start (IndexBootstrap) and the folder is deleted when the index is destroyed (or, after a
// crash, by the next index made in the same parent folder), so nothing in it has to survive a crash and
// writes skip RocksDB's write-ahead log. Never in the warehouse.
//
// Keys are the BinaryRow bytes of a row's primary key; values are (partition id, bucket) as two
// little-endian int32s. RocksDB keeps memory bounded for tables whose keys do not fit in memory
// (memtable and block cache sizes below), spilling to sorted files in the folder.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace rocksdb {
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace tide {

struct PartitionBucket {
  int32_t partition_id = 0;
  int32_t bucket = 0;
};

class KeyIndex {
 public:
  // Creates an empty index in a new folder under `parent_dir` (the system's temporary folder when
  // empty). `table_name` names the table in errors.
  static Result<std::unique_ptr<KeyIndex>> Create(const std::string& parent_dir, std::string table_name);
  ~KeyIndex();
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  Result<std::optional<PartitionBucket>> Get(std::string_view key);
  Status Put(std::string_view key, PartitionBucket value);

  // Puts buffered in a batch (not seen by Get) until Flush: for bulk loading.
  Status BatchPut(std::string_view key, PartitionBucket value);
  Status Flush();
  size_t batch_entries() const { return batch_entries_; }

  const std::string& dir() const { return dir_; }
  int64_t puts() const { return puts_; }

 private:
  KeyIndex() = default;
  std::string dir_;
  std::string table_name_;
  std::unique_ptr<rocksdb::DB> db_;
  std::unique_ptr<rocksdb::WriteBatch> batch_;
  size_t batch_entries_ = 0;
  int64_t puts_ = 0;
  std::string value_scratch_;
};

}  // namespace tide
