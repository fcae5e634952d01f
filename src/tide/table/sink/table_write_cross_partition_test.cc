// Tests of TableWrite on cross-partition update tables (`bucket` = -1, a primary key without the
// partition column): a key lives in exactly one partition although updates change it, across writer
// sessions (the key index is rebuilt from the table), Abort and whole-table overwrites; retractions
// find the key wherever it lives; buckets fill up to `dynamic-bucket.target-row-num`; a table that
// holds a key twice is refused; partial-update keeps a key in its first partition.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

#include "testing/temp_dir.h"
#include "tide/table/crosspartition/bucket_assigner.h"
#include "tide/table/crosspartition/global_index_assigner.h"
#include "tide/table/crosspartition/key_index.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

Datum I(int64_t v) { return Datum(v); }

class CrossPartitionWriteTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeTable({}); }

  void MakeTable(std::vector<std::pair<std::string, std::string>> options, const std::string& name = "t") {
    options.emplace_back("bucket", "-1");
    schema_ = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::Int()),
                                Field(2, "v", DataType::String())},
                               {"id"}, {"p"}, options);
    path_ = dir_.path() + "/db.db/" + name;
    ASSERT_TRUE(testing::CreateWriterTestTable(path_, schema_).ok());
    model_.clear();
  }

  std::unique_ptr<TableWrite> Writer(bool ignore_previous_files = false) {
    TableWriteConfig config;
    config.ignore_previous_files = ignore_previous_files;
    config.key_index_dir = dir_.path() + "/state";
    config.key_index_memory = key_index_memory_;
    auto w = TableWrite::Create(FileSystem::Local(), path_, schema_, "u", config);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
  }

  // Writes a row and keeps the model: id -> (p, v), deduplicate semantics.
  void Put(TableWrite* w, RowKind kind, int64_t id, std::optional<int32_t> p, const std::string& v = "") {
    Row row{I(id), p ? Datum(int64_t{*p}) : Datum(), kind == RowKind::kDelete ? Datum() : Datum(v)};
    Status s = w->Write(kind, row);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (kind == RowKind::kDelete || kind == RowKind::kUpdateBefore) {
      if (kind == RowKind::kDelete) pending_.erase(id), pending_deletes_.insert(id);
    } else {
      pending_[id] = {*p, v};
      pending_deletes_.erase(id);
    }
  }

  void Commit(TableWrite* w, int64_t identifier) {
    auto messages = w->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    for (const CommitMessage& m : *messages) {
      EXPECT_EQ(m.total_buckets, -1);
      EXPECT_TRUE(m.new_index_files.empty()) << "cross-partition tables have no index files, as in Java";
    }
    auto committed = testing::CommitMessages(path_, *messages, "u", identifier);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    for (int64_t id : pending_deletes_) model_.erase(id);
    for (const auto& [id, pv] : pending_) model_[id] = pv;
    pending_.clear();
    pending_deletes_.clear();
    CheckTable();
  }

  void Abandon() {
    pending_.clear();
    pending_deletes_.clear();
  }

  // The table equals the model, every key once, in the partition the model says (row and vector path).
  void CheckTable() {
    for (bool vectors : {false, true}) {
      auto rows = vectors ? testing::ReadTableByVectors(path_) : testing::ReadTable(path_);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      std::map<int64_t, std::pair<int32_t, std::string>> got;
      for (const Row& r : *rows) {
        int64_t id = r[0].as_int();
        EXPECT_TRUE(got.emplace(id, std::make_pair(static_cast<int32_t>(r[1].as_int()), r[2].as_string())).second)
            << "key " << id << " is in the table twice";
      }
      EXPECT_EQ(got, model_) << (vectors ? "vector path" : "row path");
    }
  }

  // The bucket of each live key, from the manifest: (partition value, bucket) per data file is enough
  // to count the buckets in use.
  std::set<std::pair<int32_t, int32_t>> BucketsInUse() {
    std::set<std::pair<int32_t, int32_t>> out;
    auto entries = testing::LiveEntries(path_);
    EXPECT_TRUE(entries.ok());
    for (const ManifestEntry& e : *entries) {
      auto p = DeserializeBinaryRow(e.partition, std::vector<DataType>{DataType::Int()});
      EXPECT_TRUE(p.ok());
      out.insert({static_cast<int32_t>((*p)[0].as_int()), e.bucket});
      EXPECT_EQ(e.total_buckets, -1);
    }
    return out;
  }

  testing::TempDir dir_;
  TableSchema schema_;
  std::string path_;
  size_t key_index_memory_ = KeyIndex::kDefaultMemoryBudget;
  std::map<int64_t, std::pair<int32_t, std::string>> model_, pending_;
  std::set<int64_t> pending_deletes_;
};

TEST_F(CrossPartitionWriteTest, AnUpdateMovesTheKeyToItsNewPartition) {
  auto w = Writer();
  for (int64_t id = 0; id < 10; ++id) Put(w.get(), RowKind::kInsert, id, 1, "a");
  Commit(w.get(), 1);
  // Within one commit: a key moves twice and comes back.
  Put(w.get(), RowKind::kUpdateAfter, 3, 2, "b");
  Put(w.get(), RowKind::kUpdateAfter, 3, 3, "c");
  Put(w.get(), RowKind::kUpdateAfter, 4, 2, "b");
  Put(w.get(), RowKind::kUpdateAfter, 4, 1, "d");
  Commit(w.get(), 2);
  EXPECT_EQ(w->metrics().partition_moves, 4);
  // A new writer session knows where every key lives from the table alone.
  auto w2 = Writer();
  Put(w2.get(), RowKind::kUpdateAfter, 3, 1, "e");
  Put(w2.get(), RowKind::kUpdateAfter, 5, 4, "f");
  Put(w2.get(), RowKind::kInsert, 42, 4, "g");
  Commit(w2.get(), 3);
  EXPECT_EQ(w2->metrics().bootstrapped_keys, 10);
  EXPECT_EQ(w2->metrics().partition_moves, 2);
}

TEST_F(CrossPartitionWriteTest, RetractionsFindTheKeyWhereverItLives) {
  auto w = Writer();
  for (int64_t id = 0; id < 6; ++id) Put(w.get(), RowKind::kInsert, id, static_cast<int32_t>(id % 3), "a");
  Commit(w.get(), 1);
  // A key-only delete (no partition value), and a delete naming the wrong partition.
  auto w2 = Writer();
  Put(w2.get(), RowKind::kDelete, 1, std::nullopt);
  Put(w2.get(), RowKind::kDelete, 2, 0);
  // An update's retraction naming the new partition goes to the old one; then the key moves.
  Put(w2.get(), RowKind::kUpdateBefore, 3, 2, "a");
  Put(w2.get(), RowKind::kUpdateAfter, 3, 2, "b");
  // A delete of a key the table never held retracts nothing and is dropped.
  Put(w2.get(), RowKind::kDelete, 99, 1);
  EXPECT_EQ(w2->metrics().rows_dropped, 1);
  Commit(w2.get(), 2);
  // Deleted keys keep their place in the index (as in Java): inserting one again elsewhere moves it.
  Put(w2.get(), RowKind::kInsert, 1, 2, "again");
  Commit(w2.get(), 3);
  EXPECT_EQ(BucketsInUse().count({2, 0}), 1u);
}

TEST_F(CrossPartitionWriteTest, BucketsFillUpToTheTargetRowNumber) {
  MakeTable({{"dynamic-bucket.target-row-num", "3"}}, "small");
  auto w = Writer();
  for (int64_t id = 0; id < 7; ++id) Put(w.get(), RowKind::kInsert, id, 1, "a");
  Commit(w.get(), 1);
  EXPECT_EQ(BucketsInUse(), (std::set<std::pair<int32_t, int32_t>>{{1, 0}, {1, 1}, {1, 2}}));
  // The counts come back from the table: bucket 2 has room for two more keys, then bucket 3 opens.
  auto w2 = Writer();
  for (int64_t id = 7; id < 10; ++id) Put(w2.get(), RowKind::kInsert, id, 1, "b");
  Commit(w2.get(), 2);
  EXPECT_EQ(BucketsInUse(), (std::set<std::pair<int32_t, int32_t>>{{1, 0}, {1, 1}, {1, 2}, {1, 3}}));
  // A key that moves away frees room in its old bucket.
  BucketAssigner buckets(3);
  for (int i = 0; i < 3; ++i) buckets.BootstrapBucket(0, 0);
  EXPECT_EQ(buckets.AssignBucket(0), 1);
  buckets.Decrement(0, 0);
  EXPECT_EQ(buckets.AssignBucket(0), 0);
  EXPECT_EQ(buckets.AssignBucket(0), 1);
  EXPECT_EQ(buckets.AssignBucket(1), 0);
}

TEST_F(CrossPartitionWriteTest, AbortForgetsUncommittedMoves) {
  auto w = Writer();
  for (int64_t id = 0; id < 4; ++id) Put(w.get(), RowKind::kInsert, id, 1, "a");
  Commit(w.get(), 1);
  Put(w.get(), RowKind::kUpdateAfter, 0, 2, "moved");
  w->Abort();
  Abandon();
  // The index is read again from the table: key 0 is in partition 1, where the -D of this move goes.
  Put(w.get(), RowKind::kUpdateAfter, 0, 3, "b");
  Commit(w.get(), 2);
}

TEST_F(CrossPartitionWriteTest, AWholeTableOverwriteStartsFromAnEmptyIndex) {
  auto w = Writer();
  for (int64_t id = 0; id < 5; ++id) Put(w.get(), RowKind::kInsert, id, 1, "a");
  Commit(w.get(), 1);
  // A TRUNCATE then new rows: a fresh writer that ignores the table, published by an overwrite.
  auto fresh = Writer(/*ignore_previous_files=*/true);
  ASSERT_TRUE(fresh->Write(RowKind::kInsert, Row{I(2), Datum(int64_t{5}), Datum("new")}).ok());
  auto messages = fresh->PrepareCommit();
  ASSERT_TRUE(messages.ok()) << messages.status().ToString();
  auto committer = FileStoreCommit::Create(FileSystem::Local(), path_, "db.t").value();
  CommitOptions options;
  options.commit_user = "u";
  options.commit_identifier = 2;
  // Only a fresh writer's whole-table overwrite is accepted on a dynamic-bucket table.
  EXPECT_TRUE(committer->Overwrite(OverwriteScope::WholeTable(), *messages, options).status().IsNotSupported());
  auto r = committer->Overwrite(OverwriteScope::WholeTable(/*fresh_writer=*/true), *messages, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  model_ = {{2, {5, "new"}}};
  CheckTable();
  // The next writer knows only what the overwrite wrote.
  auto next = Writer();
  Put(next.get(), RowKind::kUpdateAfter, 2, 6, "moved");
  Put(next.get(), RowKind::kInsert, 0, 1, "back");
  Commit(next.get(), 3);
  EXPECT_EQ(next->metrics().bootstrapped_keys, 1);
}

TEST_F(CrossPartitionWriteTest, PartialUpdateKeepsAKeyInItsFirstPartition) {
  MakeTable({{"merge-engine", "partial-update"}}, "pu");
  auto w = Writer();
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum(int64_t{1}), Datum("a")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path_, w->PrepareCommit().value(), "u", 1).ok());
  // A row of key 1 naming partition 7 merges into the key where it lives (Java's UseOldExistingProcessor).
  auto w2 = Writer();
  ASSERT_TRUE(w2->Write(RowKind::kInsert, Row{I(1), Datum(int64_t{7}), Datum()}).ok());
  ASSERT_TRUE(w2->Write(RowKind::kInsert, Row{I(2), Datum(int64_t{7}), Datum("b")}).ok());
  EXPECT_EQ(w2->metrics().partition_moves, 0);
  ASSERT_TRUE(testing::CommitMessages(path_, w2->PrepareCommit().value(), "u", 2).ok());
  auto rows = testing::ReadTable(path_);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<Row> sorted = testing::SortedRows(*rows);
  ASSERT_EQ(sorted.size(), 2u);
  // Partition 1 and 'a' (partial-update ignores the NULL) for key 1; key 2 is new in partition 7.
  EXPECT_EQ(sorted[0][1].as_int(), 1);
  EXPECT_EQ(sorted[0][2].as_string(), "a");
  EXPECT_EQ(sorted[1][1].as_int(), 7);
}

TEST_F(CrossPartitionWriteTest, ATableHoldingAKeyTwiceIsRefused) {
  // Written with fixed buckets (as Java 1.3 allows for such a key), so key 1 is in two partitions.
  TableSchema fixed = schema_;
  fixed.SetOption("bucket", "2");
  auto fixed_writer = TableWrite::Create(FileSystem::Local(), path_, fixed, "u", {}).value();
  ASSERT_TRUE(fixed_writer->Write(RowKind::kInsert, Row{I(1), Datum(int64_t{1}), Datum("a")}).ok());
  ASSERT_TRUE(fixed_writer->Write(RowKind::kInsert, Row{I(1), Datum(int64_t{2}), Datum("b")}).ok());
  auto messages = fixed_writer->PrepareCommit().value();
  ASSERT_TRUE(testing::CommitMessages(path_, messages, "u", 1).ok());
  auto w = Writer();
  Status s = w->Write(RowKind::kInsert, Row{I(5), Datum(int64_t{1}), Datum("c")});
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("primary key (1)"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("twice"), std::string::npos) << s.ToString();
  // The writer stays failed.
  EXPECT_FALSE(w->PrepareCommit().ok());
}

TEST_F(CrossPartitionWriteTest, RefusesWhatJavaRefuses) {
  TableSchema with_sequence = schema_;
  with_sequence.SetOption("sequence.field", "v");
  auto w = TableWrite::Create(FileSystem::Local(), path_, with_sequence, "u", {});
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsInvalidArgument()) << w.status().ToString();
  EXPECT_NE(w.status().message().find("sequence.field"), std::string::npos);
  TableSchema with_ttl = schema_;
  with_ttl.SetOption("cross-partition-upsert.index-ttl", "1 d");
  EXPECT_TRUE(TableWrite::Create(FileSystem::Local(), path_, with_ttl, "u", {}).status().IsNotSupported());
  // A NULL key is refused before the index is touched; the writer goes on.
  auto ok = Writer();
  EXPECT_TRUE(ok->Write(RowKind::kInsert, Row{Datum(), Datum(int64_t{1}), Datum("x")}).IsInvalidArgument());
  Put(ok.get(), RowKind::kInsert, 1, 1, "x");
  Commit(ok.get(), 1);
}

// The key index lives in a folder of its own, deleted with it; folders left by processes that died
// (SIGKILL) are removed by the next index made beside them, those of live processes are kept.
TEST_F(CrossPartitionWriteTest, KeyIndexFoldersDoNotOutliveTheirProcess) {
  const std::string parent = dir_.path() + "/index-parent";
  pid_t child = ::fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // a pid whose process is gone
  const std::string dead = parent + "/tide-key-index-" + std::to_string(child) + "-abc123";
  const std::string live = parent + "/tide-key-index-" + std::to_string(::getpid()) + "-def456";
  ASSERT_TRUE(FileSystem::Local()->MakeDirs(dead + "/db").ok());
  ASSERT_TRUE(FileSystem::Local()->MakeDirs(live).ok());
  std::string made;
  {
    auto index = KeyIndex::Create(parent, "db.t");
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    made = (*index)->dir();
    EXPECT_TRUE(FileSystem::Local()->Exists(made).value());
    ASSERT_TRUE((*index)->Put("k", PartitionBucket{1, 2}).ok());
    auto got = (*index)->Get("k");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((**got).partition_id, 1);
    EXPECT_EQ((**got).bucket, 2);
  }
  EXPECT_FALSE(FileSystem::Local()->Exists(made).value()) << "deleted with the index";
  EXPECT_FALSE(FileSystem::Local()->Exists(dead).value()) << "a dead process's folder is removed";
  EXPECT_TRUE(FileSystem::Local()->Exists(live).value()) << "a live process's folder is kept";
}

// A random workload against the model: inserts, updates that often change the partition, deletes
// (some key-only), commits and new writer sessions at random points.
// Seeds 4 and 5 run with no memory for the key index, so every key spills into RocksDB at once and
// every lookup goes through its files.
TEST_F(CrossPartitionWriteTest, RandomWorkloadMatchesTheModel) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    key_index_memory_ = seed <= 3 ? KeyIndex::kDefaultMemoryBudget : 0;
    MakeTable({{"dynamic-bucket.target-row-num", "5"}}, "random" + std::to_string(seed));
    std::mt19937 rng(seed);
    auto w = Writer();
    int64_t identifier = 0;
    std::set<int64_t> live;
    for (int step = 0; step < 300; ++step) {
      int64_t id = static_cast<int64_t>(rng() % 40);
      int32_t p = static_cast<int32_t>(rng() % 4);
      std::string v = "v" + std::to_string(step);
      uint32_t op = rng() % 10;
      bool exists = (pending_.count(id) || model_.count(id)) && !pending_deletes_.count(id);
      if (op < 6) {
        Put(w.get(), exists ? RowKind::kUpdateAfter : RowKind::kInsert, id, p, v);
      } else if (op < 8) {
        Put(w.get(), RowKind::kDelete, id, rng() % 2 ? std::optional<int32_t>() : std::optional<int32_t>(p));
      } else if (op == 8) {
        Commit(w.get(), ++identifier);
        if (HasFatalFailure()) return;
      } else if (rng() % 3 == 0) {
        Commit(w.get(), ++identifier);
        w = Writer();  // a restart: the index comes from the table
      }
    }
    Commit(w.get(), ++identifier);
  }
}

// WriteRows (the initial copy's path: keys looked up ahead, in windows) does what Write does row by
// row: random batches of inserts, moving updates and key-only deletes across window boundaries, with
// restarts and a table reserved for more keys than it gets.
TEST_F(CrossPartitionWriteTest, WriteRowsEqualsWritingRowByRow) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    key_index_memory_ = seed <= 2 ? KeyIndex::kDefaultMemoryBudget : 0;
    MakeTable({{"dynamic-bucket.target-row-num", "7"}}, "rows" + std::to_string(seed));
    std::mt19937 rng(seed);
    auto w = Writer();
    if (seed % 2 == 1) {
      ASSERT_TRUE(w->ReserveKeys(5000).ok());
    }
    int64_t identifier = 0;
    for (int round = 0; round < 30; ++round) {
      const RowKind kind = round % 3 == 2 ? RowKind::kDelete : (round % 3 == 1 ? RowKind::kUpdateAfter : RowKind::kInsert);
      std::vector<Row> batch;
      const size_t n = 1 + rng() % 40;
      for (size_t i = 0; i < n; ++i) {
        const int64_t id = static_cast<int64_t>(rng() % 60);
        const int32_t p = static_cast<int32_t>(rng() % 5);
        const std::string v = "r" + std::to_string(round) + "." + std::to_string(i);
        if (kind == RowKind::kDelete) {
          batch.push_back(Row{I(id), rng() % 2 ? Datum() : Datum(int64_t{p}), Datum()});
          pending_.erase(id);
          pending_deletes_.insert(id);
        } else {
          batch.push_back(Row{I(id), Datum(int64_t{p}), Datum(v)});
          pending_[id] = {p, v};
          pending_deletes_.erase(id);
        }
      }
      Status s = w->WriteRows(kind, batch.data(), batch.size());
      ASSERT_TRUE(s.ok()) << s.ToString();
      if (round % 4 == 3 || round % 10 == 9) {
        Commit(w.get(), ++identifier);
        if (HasFatalFailure()) return;
      }
      if (round % 10 == 9) w = Writer();  // a restart: the index comes from the table
    }
    Commit(w.get(), ++identifier);
  }
}

// WriteRows against Write on twin tables: the same batches (inserts, moving updates, key-only deletes
// whose NOT NULL value column is NULL) written row by row into one table and a batch at a time, with
// flush-ahead and a small write buffer, into the other: the same rows, the same metrics.
TEST_F(CrossPartitionWriteTest, WriteRowsAndWriteGiveTwinTables) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::Int()),
                                         Field(2, "v", DataType::String(false))},
                                        {"id"}, {"p"}, {{"bucket", "-1"}, {"dynamic-bucket.target-row-num", "50"}});
  std::string paths[2];
  std::unique_ptr<TableWrite> writers[2];
  for (int t = 0; t < 2; ++t) {
    paths[t] = dir_.path() + "/db.db/twin" + std::to_string(t);
    ASSERT_TRUE(testing::CreateWriterTestTable(paths[t], schema).ok());
    TableWriteConfig config;
    config.key_index_dir = dir_.path() + "/state";
    config.write_buffer_size = 32 * 1024;
    config.flush_ahead = t == 1;
    auto w = TableWrite::Create(FileSystem::Local(), paths[t], schema, "u", config);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    writers[t] = std::move(w).value();
  }
  ASSERT_TRUE(writers[1]->ReserveKeys(3000).ok());
  std::mt19937 rng(17);
  for (int round = 0; round < 60; ++round) {
    const RowKind kind = round % 4 == 3 ? RowKind::kDelete : (round % 4 == 0 ? RowKind::kInsert : RowKind::kUpdateAfter);
    std::vector<Row> batch;
    for (size_t i = 0, n = 1 + rng() % 70; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(rng() % 2000);
      if (kind == RowKind::kDelete) {
        batch.push_back(Row{I(id), Datum(), Datum()});  // a key-only image
      } else {
        batch.push_back(Row{I(id), Datum(static_cast<int64_t>(rng() % 6)), Datum("v" + std::to_string(round * 100 + i))});
      }
    }
    for (const Row& row : batch) ASSERT_TRUE(writers[0]->Write(kind, row).ok());
    ASSERT_TRUE(writers[1]->WriteRows(kind, batch.data(), batch.size()).ok());
    if (round % 20 == 19) {
      for (int t = 0; t < 2; ++t) {
        auto messages = writers[t]->PrepareCommit();
        ASSERT_TRUE(messages.ok()) << messages.status().ToString();
        ASSERT_TRUE(testing::CommitMessages(paths[t], *messages, "u", round).ok());
      }
    }
  }
  EXPECT_GT(writers[1]->metrics().flushes_ahead, 0);
  EXPECT_EQ(writers[0]->metrics().rows_written, writers[1]->metrics().rows_written);
  EXPECT_EQ(writers[0]->metrics().rows_dropped, writers[1]->metrics().rows_dropped);
  EXPECT_EQ(writers[0]->metrics().partition_moves, writers[1]->metrics().partition_moves);
  EXPECT_GT(writers[0]->metrics().partition_moves, 0);
  auto a = testing::ReadTable(paths[0]), b = testing::ReadTable(paths[1]);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->size(), 100u);
  EXPECT_EQ(testing::SortedRows(*a), testing::SortedRows(*b));
}

TEST_F(CrossPartitionWriteTest, WriteRowsStopsAtARowItCannotWriteNamingTheColumn) {
  auto w = Writer();
  std::vector<Row> batch{Row{I(1), Datum(int64_t{1}), Datum("a")}, Row{I(2), Datum(int64_t{2}), Datum("b")},
                         Row{Datum(), Datum(int64_t{1}), Datum("null key")}, Row{I(3), Datum(int64_t{1}), Datum("c")}};
  Status s = w->WriteRows(RowKind::kInsert, batch.data(), batch.size());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'id'"), std::string::npos) << s.ToString();
  // The rows before it are written, the one after it is not.
  pending_[1] = {1, "a"};
  pending_[2] = {2, "b"};
  Commit(w.get(), 1);
}

}  // namespace
}  // namespace tide
