// KeyIndex: where each primary key of a cross-partition update table lives now: its partition (as a
// small id) and bucket, as Java Paimon's GlobalIndexAssigner keeps its `keyIndex` state. The table is
// the truth: the index is rebuilt from it at every start (IndexBootstrap), so nothing in it has to
// survive a crash. Never in the warehouse.
//
// Two tiers. Keys go into an in-memory hash table (KeyHashTable) while it stays within
// `memory_budget` bytes; a table whose keys outgrow it spills them, sorted, into a RocksDB database in
// a private temporary folder (as one sorted file, ingested: no memtable, no write-ahead log) and starts
// empty again. A lookup asks memory first (newer), then RocksDB. So a table whose keys fit in the
// budget never touches RocksDB (a RocksDB Put and Get cost 5-10 us each here, the hash table well under
// one), and a larger one keeps memory bounded. The folder is made with the index and deleted with it
// (or, after a crash, by the next index made in the same parent folder).
//
// Keys are the BinaryRow bytes of a row's primary key; values in RocksDB are (partition id, bucket) as
// two little-endian int32s.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/table/crosspartition/key_hash_table.h"

namespace rocksdb {
class DB;
struct Options;
}  // namespace rocksdb

namespace tide {

class KeyIndex {
 public:
  static constexpr size_t kDefaultMemoryBudget = size_t{128} << 20;

  // Creates an empty index with its folder under `parent_dir` (the system's temporary folder when
  // empty). `table_name` names the table in errors.
  static Result<std::unique_ptr<KeyIndex>> Create(const std::string& parent_dir, std::string table_name,
                                                  size_t memory_budget = kDefaultMemoryBudget);
  ~KeyIndex();
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  Result<std::optional<PartitionBucket>> Get(std::string_view key) { return Get(key, KeyHashTable::Hash(key)); }
  Status Put(std::string_view key, PartitionBucket value) { return Put(key, KeyHashTable::Hash(key), value); }
  // As above, with hash = KeyHashTable::Hash(key) computed by the caller (who prefetched with it).
  Result<std::optional<PartitionBucket>> Get(std::string_view key, uint32_t hash);
  Status Put(std::string_view key, uint32_t hash, PartitionBucket value);
  // A hint before Get/Put of a key of this hash (KeyHashTable::Prefetch).
  void Prefetch(uint32_t hash) const { memory_.Prefetch(hash); }
  // Sizes the in-memory tier for `keys` more keys, as far as half the memory budget allows.
  void Reserve(size_t keys);

  const std::string& dir() const { return dir_; }
  int64_t puts() const { return puts_; }
  // Keys in memory, bytes they take, and how many times memory spilled into RocksDB.
  size_t memory_keys() const { return memory_.size(); }
  size_t memory_bytes() const { return memory_.memory_bytes(); }
  int64_t spills() const { return spills_; }

 private:
  KeyIndex() = default;
  Status OpenDb();
  Status Spill();

  std::string dir_;
  std::string table_name_;
  size_t memory_budget_ = kDefaultMemoryBudget;
  KeyHashTable memory_;
  std::unique_ptr<rocksdb::Options> db_options_;
  std::unique_ptr<rocksdb::DB> db_;  // opened at the first spill
  int64_t puts_ = 0;
  int64_t spills_ = 0;
  std::string value_scratch_;
};

}  // namespace tide
