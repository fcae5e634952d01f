#include "tide/table/crosspartition/key_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "tide/table/crosspartition/key_hash_table.h"
#include "testing/temp_dir.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

std::string KeyOf(int64_t i) {
  // Shaped like a BinaryRow of one BIGINT: an 8-byte header, then the value little-endian.
  std::string key(16, '\0');
  for (int b = 0; b < 8; ++b) key[8 + b] = static_cast<char>((static_cast<uint64_t>(i) >> (8 * b)) & 0xff);
  return key;
}

TEST(KeyHashTableTest, FindsWhatWasPutAndOverwrites) {
  KeyHashTable table;
  EXPECT_FALSE(table.Find("a").has_value());
  ASSERT_TRUE(table.Put("a", {1, 2}).ok());
  ASSERT_TRUE(table.Put("", {3, 4}).ok());  // an empty key is a key
  ASSERT_TRUE(table.Put(std::string("a\0b", 3), {5, 6}).ok());
  ASSERT_TRUE(table.Put("a", {7, 8}).ok());
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(table.Find("a")->partition_id, 7);
  EXPECT_EQ(table.Find("a")->bucket, 8);
  EXPECT_EQ(table.Find("")->partition_id, 3);
  EXPECT_EQ(table.Find(std::string("a\0b", 3))->bucket, 6);
  EXPECT_FALSE(table.Find(std::string("a\0", 2)).has_value());
  EXPECT_FALSE(table.Find("b").has_value());
}

TEST(KeyHashTableTest, GrowsThroughManyKeysOfEveryLength) {
  KeyHashTable table;
  std::map<std::string, PartitionBucket> model;
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string key(rng() % 40, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 4);  // few symbols: many shared prefixes and repeats
    PartitionBucket v{static_cast<int32_t>(i), static_cast<int32_t>(rng() % 100)};
    ASSERT_TRUE(table.Put(key, v).ok());
    model[key] = v;
  }
  EXPECT_EQ(table.size(), model.size());
  for (const auto& [key, v] : model) {
    auto found = table.Find(key);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->partition_id, v.partition_id);
    EXPECT_EQ(found->bucket, v.bucket);
  }
  // Sorted as RocksDB's bytewise comparator (and std::map of strings) sorts.
  auto it = model.begin();
  size_t visited = 0;
  table.ForEachSorted([&](std::string_view key, PartitionBucket v) {
    ASSERT_NE(it, model.end());
    EXPECT_EQ(key, it->first);
    EXPECT_EQ(v.partition_id, it->second.partition_id);
    ++it;
    ++visited;
  });
  EXPECT_EQ(visited, model.size());
}

TEST(KeyHashTableTest, AReservedTableHoldsItsKeysWithoutGrowing) {
  KeyHashTable table;
  ASSERT_TRUE(table.Put(KeyOf(-1), {9, 9}).ok());
  const size_t keys = 20000;
  table.Reserve(keys);
  EXPECT_TRUE(table.Find(KeyOf(-1)).has_value()) << "a key put before Reserve is kept";
  // Sized at once: 20,000 keys at most 3/4 full take 32,768 slots of 8 bytes.
  EXPECT_EQ(KeyHashTable::SlotBytesFor(keys), size_t{32768} * 8);
  EXPECT_EQ(table.slot_bytes(), KeyHashTable::SlotBytesFor(keys));
  for (size_t i = 0; i + 1 < keys; ++i) {
    const std::string key = KeyOf(static_cast<int64_t>(i));
    const uint32_t hash = KeyHashTable::Hash(key);
    table.Prefetch(hash);
    ASSERT_FALSE(table.Find(key, hash).has_value());
    ASSERT_TRUE(table.Put(key, hash, {static_cast<int32_t>(i % 7), static_cast<int32_t>(i)}).ok());
  }
  EXPECT_EQ(table.size(), keys);
  EXPECT_EQ(table.slot_bytes(), KeyHashTable::SlotBytesFor(keys)) << "the slots never grew";
  for (size_t i = 0; i + 1 < keys; ++i) {
    auto found = table.Find(KeyOf(static_cast<int64_t>(i)));
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->bucket, static_cast<int32_t>(i));
  }
  // Reserving less than the table holds changes nothing; one more key than the slots take grows them.
  table.Reserve(10);
  EXPECT_EQ(table.slot_bytes(), KeyHashTable::SlotBytesFor(keys));
  EXPECT_EQ(table.Find(KeyOf(-1))->partition_id, 9);
  for (int64_t i = 0; table.size() * 4 <= 32768 * 3; ++i) ASSERT_TRUE(table.Put(KeyOf(1000000 + i), {0, 0}).ok());
  EXPECT_EQ(table.slot_bytes(), size_t{65536} * 8);
}

TEST(KeyIndexTest, ReservesNoMoreThanHalfItsBudget) {
  testing::TempDir dir;
  const size_t budget = size_t{4} << 20;
  auto index = KeyIndex::Create(dir.path(), "t", budget);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  (*index)->Reserve(100'000'000);
  EXPECT_LE((*index)->memory_bytes(), budget / 2);
  EXPECT_GE((*index)->memory_bytes(), budget / 8) << "but as much as fits";
  for (int64_t i = 0; i < 1000; ++i) ASSERT_TRUE((*index)->Put(KeyOf(i), {1, 2}).ok());
  EXPECT_EQ((*index)->spills(), 0);
  EXPECT_EQ((*(*index)->Get(KeyOf(999)))->bucket, 2);
  // The budget still holds: keys past it spill.
  for (int64_t i = 1000; (*index)->spills() == 0 && i < 1000000; ++i) ASSERT_TRUE((*index)->Put(KeyOf(i), {1, 2}).ok());
  EXPECT_GT((*index)->spills(), 0);
  EXPECT_EQ((*(*index)->Get(KeyOf(999)))->bucket, 2);
}

TEST(KeyIndexTest, AReservationLeavesRoomForTheKeysAlreadyHeld) {
  testing::TempDir dir;
  const size_t budget = size_t{8} << 20;
  auto index = KeyIndex::Create(dir.path(), "t", budget);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  // Keys of 200 bytes: five arena chunks of 1 MiB before the reservation.
  auto long_key = [](int64_t i) { return KeyOf(i) + std::string(184, 'k'); };
  int64_t n = 0;
  while ((*index)->memory_bytes() < (size_t{5} << 20)) {
    ASSERT_TRUE((*index)->Put(long_key(n++), {0, 0}).ok());
  }
  ASSERT_EQ((*index)->spills(), 0);
  (*index)->Reserve(10'000'000);
  EXPECT_LE((*index)->memory_bytes(), budget) << "the reservation alone never passes the budget";
  ASSERT_TRUE((*index)->Put(long_key(n), {0, 0}).ok());
  EXPECT_EQ((*index)->spills(), 0) << "nor makes the next key spill";
}

TEST(KeyHashTableTest, BytesAreUnsignedInTheOrder) {
  KeyHashTable table;
  ASSERT_TRUE(table.Put("\x80", {1, 0}).ok());
  ASSERT_TRUE(table.Put("\x01", {2, 0}).ok());
  std::vector<int32_t> order;
  table.ForEachSorted([&](std::string_view, PartitionBucket v) { order.push_back(v.partition_id); });
  EXPECT_EQ(order, (std::vector<int32_t>{2, 1}));
}

TEST(KeyHashTableTest, MemoryIsCountedAndClearReturnsIt) {
  KeyHashTable table;
  const size_t empty = table.memory_bytes();
  for (int64_t i = 0; i < 100000; ++i) ASSERT_TRUE(table.Put(KeyOf(i), {0, 0}).ok());
  // 100,000 keys of 16 bytes: 28 bytes each in the arena (length, value, key), 8-byte slots at most
  // 3/4 full (11-22 bytes a key).
  EXPECT_GE(table.memory_bytes(), 100000u * (28 + 8));
  EXPECT_LE(table.memory_bytes(), 100000u * (28 + 22) + (1u << 20));
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.memory_bytes(), empty);
  EXPECT_FALSE(table.Find(KeyOf(5)).has_value());
}

TEST(KeyHashTableTest, RefusesAKeyLongerThanItHolds) {
  KeyHashTable table;
  Status s = table.Put(std::string(KeyHashTable::kMaxKeyBytes + 1, 'x'), {0, 0});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_TRUE(table.Put(std::string(KeyHashTable::kMaxKeyBytes, 'x'), {1, 1}).ok());
  EXPECT_TRUE(table.Find(std::string(KeyHashTable::kMaxKeyBytes, 'x')).has_value());
}

// Keys beyond the memory budget spill into RocksDB; later values override earlier ones wherever they
// live, and nothing is lost across spills.
TEST(KeyIndexTest, SpillsBeyondItsBudgetAndStillFindsEveryKey) {
  testing::TempDir dir;
  auto created = KeyIndex::Create(dir.path(), "db.t", /*memory_budget=*/4 << 20);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  KeyIndex& index = **created;
  std::map<std::string, PartitionBucket> model;
  std::mt19937 rng(11);
  for (int i = 0; i < 300000; ++i) {
    // New keys mostly, and moves of old ones (in memory or already spilled).
    const int64_t id = rng() % 4 == 0 ? static_cast<int64_t>(rng() % (i + 1)) : i;
    PartitionBucket v{static_cast<int32_t>(rng() % 30), static_cast<int32_t>(rng() % 5)};
    ASSERT_TRUE(index.Put(KeyOf(id), v).ok());
    model[KeyOf(id)] = v;
  }
  EXPECT_GE(index.spills(), 2) << "300,000 keys are more than 4 MiB of memory holds";
  EXPECT_LE(index.memory_bytes(), size_t{4} << 20);
  for (const auto& [key, v] : model) {
    auto got = index.Get(key);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    ASSERT_EQ((**got).partition_id, v.partition_id);
    ASSERT_EQ((**got).bucket, v.bucket);
  }
  auto missing = index.Get(KeyOf(-1));
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST(KeyIndexTest, KeysWithinTheBudgetNeverReachRocksDb) {
  testing::TempDir dir;
  auto created = KeyIndex::Create(dir.path(), "db.t");
  ASSERT_TRUE(created.ok());
  for (int64_t i = 0; i < 100000; ++i) ASSERT_TRUE((*created)->Put(KeyOf(i), {1, 1}).ok());
  EXPECT_EQ((*created)->spills(), 0);
  EXPECT_EQ((*created)->memory_keys(), 100000u);
  EXPECT_FALSE(FileSystem::Local()->Exists((*created)->dir() + "/db").value()) << "no database was opened";
}

}  // namespace
}  // namespace tide
