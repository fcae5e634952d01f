// Tests of TableWrite on dynamic-bucket primary-key tables (`bucket` = -1): bucket assignment by key
// hash with a target number of keys per bucket, keys keeping their bucket across writer sessions,
// the HASH index files and index manifest each commit leaves, and the rows read back. Also the HASH
// index file format and Java's IntOpenHashSet iteration order (HashIndexSet).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/murmur_hash.h"
#include "tide/format/duckdb_handle.h"
#include "tide/table/index/dynamic_bucket_index.h"
#include "tide/table/index/hash_index_set.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

TEST(HashIndexSetTest, IteratesInJavaOrder) {
  // new IntHashSet(): 32 slots. Slots by fastutil's mix: 1 -> 14, 2 -> 28, 3 -> 13 (worked out by
  // hand: h = x * 0x9E3779B9, h ^ (h >>> 16), & 31); iteration runs from the highest slot down.
  HashIndexSet set;
  EXPECT_TRUE(set.Add(1));
  EXPECT_TRUE(set.Add(2));
  EXPECT_TRUE(set.Add(3));
  EXPECT_FALSE(set.Add(2));
  EXPECT_EQ(set.size(), 3);
  EXPECT_EQ(set.ToVector(), (std::vector<int32_t>{2, 1, 3}));
  // 0 is kept aside and comes first.
  EXPECT_TRUE(set.Add(0));
  EXPECT_FALSE(set.Add(0));
  EXPECT_EQ(set.ToVector(), (std::vector<int32_t>{0, 2, 1, 3}));
}

TEST(HashIndexSetTest, GrowsAndKeepsEveryValueOnce) {
  HashIndexSet set(0);
  std::mt19937 rng(7);
  std::set<int32_t> model;
  for (int i = 0; i < 5000; ++i) {
    int32_t v = static_cast<int32_t>(rng()) % 3000;
    EXPECT_EQ(set.Add(v), model.insert(v).second);
  }
  std::vector<int32_t> out = set.ToVector();
  EXPECT_EQ(static_cast<size_t>(set.size()), model.size());
  EXPECT_EQ(std::set<int32_t>(out.begin(), out.end()), model);
  EXPECT_EQ(out.size(), model.size());
  for (int32_t v : model) EXPECT_TRUE(set.Contains(v));
  EXPECT_FALSE(set.Contains(3001));
}

TEST(HashIndexSetTest, FileIsBigEndianInts) {
  std::vector<int32_t> hashes = {1, -2, 0x01020304};
  std::string bytes = EncodeHashIndexFile(hashes);
  EXPECT_EQ(bytes, std::string("\x00\x00\x00\x01\xff\xff\xff\xfe\x01\x02\x03\x04", 12));
  EXPECT_EQ(DecodeHashIndexFile(bytes, "f").value(), hashes);
  EXPECT_TRUE(DecodeHashIndexFile(bytes.substr(0, 5), "f").status().IsCorruption());
}

Datum I(int64_t v) { return Datum(v); }

class DynamicBucketWriteTest : public ::testing::Test {
 protected:
  static constexpr int64_t kTarget = 100;

  void SetUp() override {
    schema_ = WriterTestSchema({Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)),
                                Field(2, "v", DataType::String())},
                               {"p", "id"}, {"p"},
                               {{"bucket", "-1"}, {"dynamic-bucket.target-row-num", std::to_string(kTarget)}});
    path_ = dir_.path() + "/db.db/t";
    ASSERT_TRUE(testing::CreateWriterTestTable(path_, schema_).ok());
  }

  std::unique_ptr<TableWrite> Writer(const std::string& user) {
    auto w = TableWrite::Create(FileSystem::Local(), path_, schema_, user, {});
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
  }

  // Java's hash of the trimmed primary key (id; p is a partition column).
  static int32_t KeyHash(int64_t id) {
    BinaryRowWriter writer({DataType::BigInt(false)});
    std::vector<Datum> key = {I(id)};
    return BinaryRowHashCode(writer.Write(key).value());
  }

  static std::string Partition(int32_t p) {
    BinaryRowWriter writer({DataType::Int(false)});
    std::vector<Datum> values = {Datum(int64_t{p})};
    return SerializeBinaryRow(writer.Write(values).value(), 1);
  }

  // Writes one row and records it in the model: a new key of a partition goes to bucket
  // (number of keys the partition had) / kTarget, as buckets fill one after the other.
  void Put(TableWrite* w, RowKind kind, int32_t p, int64_t id, const std::string& v) {
    ASSERT_TRUE(w->Write(kind, Row{Datum(int64_t{p}), I(id), kind == RowKind::kDelete ? Datum() : Datum(v)}).ok());
    auto& keys = bucket_of_[p];
    if (!keys.count(id)) {
      int32_t bucket = static_cast<int32_t>(keys.size() / kTarget);
      keys[id] = bucket;
    }
    if (kind == RowKind::kDelete) {
      rows_.erase({p, id});
    } else {
      rows_[{p, id}] = v;
    }
  }

  void Commit(TableWrite* w, const std::string& user, int64_t identifier, std::vector<CommitMessage>* out = nullptr) {
    auto messages = w->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    for (const CommitMessage& m : *messages) {
      EXPECT_EQ(m.total_buckets, -1);
      EXPECT_TRUE(m.deleted_index_files.empty());
      for (const IndexManifestEntry& e : m.new_index_files) {
        EXPECT_EQ(e.index_type, "HASH");
        EXPECT_EQ(e.kind, FileKind::kAdd);
        EXPECT_EQ(e.bucket, m.bucket);
        EXPECT_EQ(e.partition, m.partition);
        all_index_files_.insert(e.file_name);
      }
    }
    auto committed = testing::CommitMessages(path_, *messages, user, identifier);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    if (out) *out = *messages;
    CheckTable();
  }

  // The ids stored in the data files of one bucket folder.
  std::set<int64_t> IdsInBucket(int32_t p, int32_t bucket) {
    std::set<int64_t> ids;
    std::string dir = path_ + "/p=" + std::to_string(p) + "/bucket-" + std::to_string(bucket);
    auto db = DuckDB::Open().value();
    auto conn = db.Connect().value();
    auto result = conn.Query("SELECT DISTINCT _KEY_id FROM read_parquet('" + dir + "/data-*.parquet')");
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return ids;
    for (idx_t r = 0; r < duckdb_row_count(result->raw()); ++r) ids.insert(duckdb_value_int64(result->raw(), 0, r));
    return ids;
  }

  // The table equals the model: rows read back, every key's data in its model bucket, and the index
  // manifest lists exactly one HASH file per bucket, holding the hashes of the bucket's keys.
  void CheckTable() {
    auto rows = testing::ReadTable(path_);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<Row> expected;
    for (const auto& [key, v] : rows_) expected.push_back({Datum(int64_t{key.first}), I(key.second), Datum(v)});
    EXPECT_EQ(testing::SortedRows(*rows), testing::SortedRows(expected));

    SnapshotManager snapshots(FileSystem::Local(), path_);
    Snapshot latest = snapshots.Get(snapshots.LatestId().value().value()).value();
    ASSERT_TRUE(latest.index_manifest.has_value());
    auto entries = ReadIndexManifest(FileSystem::Local(), path_ + "/manifest/" + *latest.index_manifest).value();
    std::map<std::pair<std::string, int32_t>, IndexManifestEntry> live;
    for (const IndexManifestEntry& e : entries) {
      EXPECT_EQ(e.kind, FileKind::kAdd);
      EXPECT_EQ(e.index_type, "HASH");
      EXPECT_TRUE(live.emplace(std::make_pair(e.partition, e.bucket), e).second) << "two HASH files for a bucket";
    }
    size_t buckets = 0;
    for (const auto& [p, keys] : bucket_of_) {
      std::map<int32_t, std::set<int32_t>> hashes;
      std::map<int32_t, std::set<int64_t>> ids;
      for (const auto& [id, bucket] : keys) {
        hashes[bucket].insert(KeyHash(id));
        ids[bucket].insert(id);
      }
      buckets += hashes.size();
      for (const auto& [bucket, expected_hashes] : hashes) {
        EXPECT_LE(expected_hashes.size(), static_cast<size_t>(kTarget));
        auto it = live.find({Partition(p), bucket});
        ASSERT_NE(it, live.end()) << "no HASH file for partition " << p << " bucket " << bucket;
        const IndexManifestEntry& e = it->second;
        std::string bytes = FileSystem::Local()->ReadFile(path_ + "/index/" + e.file_name).value();
        EXPECT_EQ(e.file_size, static_cast<int64_t>(bytes.size()));
        std::vector<int32_t> stored = DecodeHashIndexFile(bytes, e.file_name).value();
        EXPECT_EQ(e.row_count, static_cast<int64_t>(stored.size()));
        EXPECT_EQ(std::set<int32_t>(stored.begin(), stored.end()), expected_hashes);
        EXPECT_EQ(stored.size(), expected_hashes.size());
        // Data: every id stored in the bucket's files belongs to the bucket.
        std::set<int64_t> stored_ids = IdsInBucket(p, bucket);
        for (int64_t id : stored_ids) EXPECT_TRUE(ids[bucket].count(id)) << "id " << id << " in bucket " << bucket;
      }
    }
    EXPECT_EQ(live.size(), buckets);
  }

  testing::TempDir dir_;
  TableSchema schema_;
  std::string path_;
  std::map<int32_t, std::map<int64_t, int32_t>> bucket_of_;  // partition -> id -> bucket
  std::map<std::pair<int32_t, int64_t>, std::string> rows_;
  std::set<std::string> all_index_files_;
};

TEST_F(DynamicBucketWriteTest, FillsBucketsUpToTheTargetAndKeepsKeysInTheirBucket) {
  {
    auto w = Writer("session-1");
    for (int64_t id = 0; id < 250; ++id) Put(w.get(), RowKind::kInsert, 1, id, "a");
    for (int64_t id = 0; id < 120; ++id) Put(w.get(), RowKind::kInsert, 2, id * 7, "b");
    std::vector<CommitMessage> messages;
    Commit(w.get(), "session-1", 1, &messages);
    std::set<std::pair<int32_t, int32_t>> buckets;
    for (const CommitMessage& m : messages) {
      EXPECT_EQ(m.new_index_files.size(), 1u);
      buckets.insert({m.partition == Partition(1) ? 1 : 2, m.bucket});
    }
    EXPECT_EQ(buckets, (std::set<std::pair<int32_t, int32_t>>{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}}));

    // The same writer: updates of known keys change no index; a new key does.
    Put(w.get(), RowKind::kUpdateAfter, 1, 5, "a2");
    Put(w.get(), RowKind::kUpdateAfter, 1, 150, "a2");
    Commit(w.get(), "session-1", 2, &messages);
    ASSERT_EQ(messages.size(), 2u);
    for (const CommitMessage& m : messages) EXPECT_TRUE(m.new_index_files.empty());
    Put(w.get(), RowKind::kInsert, 1, 1000, "new");
    Commit(w.get(), "session-1", 3, &messages);
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].bucket, 2);
    EXPECT_EQ(messages[0].new_index_files.size(), 1u);
  }
  {
    // A new writer reloads the index: updates and deletes go to each key's bucket, new keys fill
    // bucket 2 of partition 1 to the target, then open bucket 3.
    auto w = Writer("session-2");
    for (int64_t id = 0; id < 250; id += 3) Put(w.get(), RowKind::kUpdateAfter, 1, id, "second");
    for (int64_t id = 1; id < 250; id += 10) Put(w.get(), RowKind::kDelete, 1, id, "");
    for (int64_t id = 0; id < 120; id += 5) Put(w.get(), RowKind::kUpdateAfter, 2, id * 7, "second");
    for (int64_t id = 2000; id < 2080; ++id) Put(w.get(), RowKind::kInsert, 1, id, "c");
    Commit(w.get(), "session-2", 1);
    EXPECT_EQ(bucket_of_[1].at(2079), 3);
  }
  {
    // Deleted keys keep their hash (and bucket), as in Java: re-inserting one goes back to it.
    auto w = Writer("session-3");
    Put(w.get(), RowKind::kInsert, 1, 11, "back");
    std::vector<CommitMessage> messages;
    Commit(w.get(), "session-3", 1, &messages);
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].bucket, 0);
    EXPECT_TRUE(messages[0].new_index_files.empty());
  }
  // Replaced index files stay on disk (snapshot expiration removes them), but the index manifest
  // lists only the live ones (checked after every commit).
  for (const std::string& name : all_index_files_) {
    EXPECT_TRUE(FileSystem::Local()->Exists(path_ + "/index/" + name).value()) << name;
  }
}

TEST_F(DynamicBucketWriteTest, RestoredIndexFileKeepsJavaOrder) {
  // The rewritten file of a bucket is the restored set (sized by the old file's row count, its hashes
  // added in file order) plus the new hashes, iterated as Java's IntOpenHashSet.
  {
    auto w = Writer("s1");
    for (int64_t id = 0; id < 40; ++id) Put(w.get(), RowKind::kInsert, 1, id, "a");
    Commit(w.get(), "s1", 1);
  }
  SnapshotManager snapshots(FileSystem::Local(), path_);
  auto first = ReadIndexManifest(FileSystem::Local(),
                                 path_ + "/manifest/" +
                                     *snapshots.Get(snapshots.LatestId().value().value()).value().index_manifest)
                   .value();
  ASSERT_EQ(first.size(), 1u);
  std::vector<int32_t> old_hashes =
      DecodeHashIndexFile(FileSystem::Local()->ReadFile(path_ + "/index/" + first[0].file_name).value(), "f").value();
  HashIndexSet fresh;
  for (int64_t id = 0; id < 40; ++id) fresh.Add(KeyHash(id));
  EXPECT_EQ(old_hashes, fresh.ToVector());
  {
    auto w = Writer("s2");
    for (int64_t id = 40; id < 60; ++id) Put(w.get(), RowKind::kInsert, 1, id, "b");
    Commit(w.get(), "s2", 1);
  }
  auto second = ReadIndexManifest(FileSystem::Local(),
                                  path_ + "/manifest/" +
                                      *snapshots.Get(snapshots.LatestId().value().value()).value().index_manifest)
                    .value();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].file_name, first[0].file_name);
  HashIndexSet restored(static_cast<int32_t>(old_hashes.size()));
  for (int32_t h : old_hashes) restored.Add(h);
  for (int64_t id = 40; id < 60; ++id) restored.Add(KeyHash(id));
  EXPECT_EQ(DecodeHashIndexFile(FileSystem::Local()->ReadFile(path_ + "/index/" + second[0].file_name).value(), "f")
                .value(),
            restored.ToVector());
}

TEST_F(DynamicBucketWriteTest, MaxBucketsCapsTheBucketCount) {
  schema_.SetOption("dynamic-bucket.max-buckets", "2");
  path_ = dir_.path() + "/db.db/capped";
  ASSERT_TRUE(testing::CreateWriterTestTable(path_, schema_).ok());
  auto w = Writer("s1");
  for (int64_t id = 0; id < 500; ++id) {
    ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{1}), I(id), Datum("x")}).ok());
  }
  auto messages = w->PrepareCommit().value();
  std::set<int32_t> buckets;
  for (const CommitMessage& m : messages) buckets.insert(m.bucket);
  EXPECT_EQ(buckets, (std::set<int32_t>{0, 1}));
  ASSERT_TRUE(testing::CommitMessages(path_, messages, "s1", 1).ok());
  EXPECT_EQ(testing::ReadTable(path_).value().size(), 500u);
}

TEST_F(DynamicBucketWriteTest, RefusesABadTargetRowNumber) {
  TableSchema bad = schema_;
  bad.SetOption("dynamic-bucket.target-row-num", "0");
  EXPECT_TRUE(TableWrite::Create(FileSystem::Local(), dir_.path() + "/y", bad, "u", {}).status().IsInvalidArgument());
}

// Java's HashBucketAssigner.prepareCommit: a partition's assignments leave memory once no row came in it
// since a commit that is in the table; reloaded from the HASH files, they give every key its bucket.
TEST(DynamicBucketIndexTest, PartitionsNotWrittenSinceTheirLastCommittedChangeLeaveMemory) {
  ::tide::testing::TempDir dir;
  DynamicBucketOptions options;
  options.target_row_num = 2;
  DynamicBucketIndex index(FileSystem::Local(), dir.path() + "/t", "db.t", options);
  auto assign = [&](const std::string& partition, int32_t hash) {
    auto b = index.Assign(partition, hash);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    return b.ok() ? *b : -1;
  };
  // Commit 1 writes partitions a and b.
  EXPECT_EQ(assign("a", 1), 0);
  EXPECT_EQ(assign("a", 2), 0);
  EXPECT_EQ(assign("a", 3), 1);
  EXPECT_EQ(assign("b", 1), 0);
  index.PrepareCommit(1, -1);
  EXPECT_EQ(index.loaded_partitions(), 2u) << "the first commit drops nothing";
  // Commit 2 writes a only; b's last change (commit 1) is committed: b goes.
  EXPECT_EQ(assign("a", 2), 0) << "a known key keeps its bucket";
  index.PrepareCommit(2, 1);
  EXPECT_EQ(index.loaded_partitions(), 1u);
  // Commit 3 writes nothing; a's last change (commit 2) is not known to be committed before commit 2
  // was: with latest_committed 1 it stays, with 2 it goes.
  index.PrepareCommit(3, 1);
  EXPECT_EQ(index.loaded_partitions(), 1u);
  index.PrepareCommit(4, 2);
  EXPECT_EQ(index.loaded_partitions(), 0u);

  // An OVERWRITE's index (ignore_previous) has nothing to reload from: it keeps everything.
  options.ignore_previous = true;
  DynamicBucketIndex fresh(FileSystem::Local(), dir.path() + "/t", "db.t", options);
  ASSERT_TRUE(fresh.Assign("a", 1).ok());
  fresh.PrepareCommit(1, -1);
  fresh.PrepareCommit(2, 1);
  fresh.PrepareCommit(3, 2);
  EXPECT_EQ(fresh.loaded_partitions(), 1u);
}

}  // namespace
}  // namespace tide
