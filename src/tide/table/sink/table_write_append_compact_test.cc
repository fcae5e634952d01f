// Compaction of append tables through TableWrite, against a model of the rows written: fixed-bucket
// tables compact beside the writes (Java's BucketedAppendCompactManager) and on request (full), keeping
// the rows of a bucket in write order; bucket-unaware tables merge a partition's small files (Java's
// AppendCompactCoordinator) beside the writes and on request. After every commit the table reads
// back exactly the rows written, the file count stays bounded, and the compactions are COMPACT
// snapshots that DELETE the replaced files and ADD the new ones (FileSource COMPACT).

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

Datum I(int64_t v) { return Datum(v); }

class TableWriteAppendCompactTest : public ::testing::Test {
 protected:
  std::string MakeTable(const TableSchema& schema) {
    std::string path = dir_.path() + "/db.db/t" + std::to_string(tables_++);
    EXPECT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    return path;
  }
  std::unique_ptr<TableWrite> Writer(const std::string& path, const TableSchema& schema, const std::string& user) {
    return testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, user), "TableWrite::Create");
  }

  // Compacts with a new writer (`tide compact`) and commits the result as one COMPACT snapshot.
  CommitResult CompactAndCommit(const std::string& path, const TableSchema& schema, bool full,
                                const std::optional<std::vector<Row>>& partitions = std::nullopt) {
    const std::string user = "compactor-" + std::to_string(++compactions_);
    auto w = Writer(path, schema, user);
    Status compacted = w->Compact(full, partitions);
    EXPECT_TRUE(compacted.ok()) << compacted.ToString();
    auto messages = testing::ValueOrFail(w->PrepareCommit(), "PrepareCommit");
    for (const auto& m : messages) EXPECT_TRUE(m.new_files.empty());
    auto committer = testing::ValueOrFail(FileStoreCommit::Create(FileSystem::Local(), path, "test.t"), "committer");
    CommitOptions options;
    options.commit_user = user;
    options.commit_identifier = std::numeric_limits<int64_t>::max();
    options.kind = CommitKind::kCompact;
    return testing::ValueOrFail(committer->Commit(messages, options), "Commit");
  }
  testing::TempDir dir_;
  int tables_ = 0;
  int compactions_ = 0;
};

// A long-running writer (the sync's): bucket-unaware partitions are compacted beside the writes.
std::unique_ptr<TableWrite> StreamingWriter(const std::string& path, const TableSchema& schema, const std::string& user) {
  TableWriteConfig config;
  config.compact_unaware_append = true;
  return testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, user, config), "TableWrite::Create");
}

// The live files of the latest snapshot by bucket folder key (partition bytes + bucket).
std::map<std::pair<std::string, int32_t>, std::vector<DataFileMeta>> FilesByBucket(const std::string& path) {
  std::map<std::pair<std::string, int32_t>, std::vector<DataFileMeta>> out;
  for (auto& e : testing::ValueOrFail(testing::LiveEntries(path), "LiveEntries")) {
    out[{e.partition, e.bucket}].push_back(e.file);
  }
  return out;
}

// A fixed bucket's files cover disjoint sequence ranges (so readers, which order them by sequence,
// read the rows in write order).
void ExpectDisjointSequences(const std::vector<DataFileMeta>& files) {
  std::vector<DataFileMeta> sorted = files;
  std::sort(sorted.begin(), sorted.end(),
            [](const DataFileMeta& a, const DataFileMeta& b) { return a.min_sequence_number < b.min_sequence_number; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_GT(sorted[i].min_sequence_number, sorted[i - 1].max_sequence_number)
        << sorted[i - 1].file_name << " and " << sorted[i].file_name;
  }
  for (const auto& f : sorted) EXPECT_EQ(f.max_sequence_number - f.min_sequence_number + 1, f.row_count) << f.file_name;
}

int CountSnapshots(const std::string& path, CommitKind kind) {
  SnapshotManager snapshots(FileSystem::Local(), path);
  auto latest = snapshots.LatestId().value();
  int n = 0;
  for (int64_t id = 1; latest && id <= *latest; ++id) {
    if (snapshots.Get(id).value().commit_kind == kind) ++n;
  }
  return n;
}

// One bucket: the reader returns the rows in write order, whatever the writer compacted.
void RunSingleBucketModel(TableWriteAppendCompactTest* test, const std::string& path, const TableSchema& schema,
                          uint32_t seed, bool force_compact) {
  SCOPED_TRACE("seed " + std::to_string(seed) + (force_compact ? " commit.force-compact" : ""));
  std::mt19937 rng(seed);
  std::vector<Row> model;
  int64_t next = 0;
  std::unique_ptr<TableWrite> w;
  int64_t identifier = 0;
  for (int commit = 0; commit < 40; ++commit) {
    // A writer stops now and then (a sync restarting): the next one restores the bucket's files.
    if (!w || rng() % 9 == 0) w = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "writer"), "Create");
    const int rows = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < rows; ++i) {
      Row row{I(static_cast<int64_t>(rng() % 7)), Datum("v" + std::to_string(next++))};
      model.push_back(row);
      ASSERT_TRUE(w->Write(RowKind::kInsert, row).ok());
    }
    auto messages = testing::ValueOrFail(w->PrepareCommit(), "PrepareCommit");
    ASSERT_TRUE(testing::CommitMessages(path, messages, "writer", ++identifier).ok());
    ASSERT_EQ(testing::ValueOrFail(testing::ReadTable(path), "read"), model) << "after commit " << commit;
    auto files = FilesByBucket(path);
    ASSERT_EQ(files.size(), 1u);
    ExpectDisjointSequences(files.begin()->second);
    // Five files trigger a compaction; one may be running while four more arrive.
    EXPECT_LE(files.begin()->second.size(), 10u) << "after commit " << commit;
  }
  EXPECT_GT(CountSnapshots(path, CommitKind::kCompact), 4);
  (void)test;
}

TEST_F(TableWriteAppendCompactTest, FixedBucketWriterCompactsAndKeepsWriteOrder) {
  for (bool force : {false, true}) {
    for (uint32_t seed : {1u, 2u, 3u}) {
      std::vector<std::pair<std::string, std::string>> options = {{"bucket", "1"}, {"bucket-key", "k"}};
      if (force) options.emplace_back("commit.force-compact", "true");
      TableSchema schema =
          WriterTestSchema({Field(0, "k", DataType::BigInt()), Field(1, "v", DataType::String())}, {}, {}, options);
      std::string path = MakeTable(schema);
      RunSingleBucketModel(this, path, schema, seed, force);
    }
  }
}

TEST_F(TableWriteAppendCompactTest, CompactionsAreCompactSnapshotsOfCompactFiles) {
  TableSchema schema = WriterTestSchema({Field(0, "k", DataType::BigInt()), Field(1, "v", DataType::String())}, {}, {},
                                        {{"bucket", "1"}, {"bucket-key", "k"}, {"commit.force-compact", "true"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema, "writer");
  std::vector<std::string> first_files;
  for (int64_t commit = 1; commit <= 5; ++commit) {
    ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(commit), Datum("x")}).ok());
    auto messages = testing::ValueOrFail(w->PrepareCommit(), "PrepareCommit");
    ASSERT_EQ(messages.size(), 1u);
    ASSERT_EQ(messages[0].new_files.size(), 1u);
    first_files.push_back(messages[0].new_files[0].file_name);
    if (commit < 5) {
      EXPECT_TRUE(messages[0].compact_before.empty());
    } else {
      // The fifth file completes a window: the five are replaced by one file, sequence 0..4.
      ASSERT_EQ(messages[0].compact_before.size(), 5u);
      ASSERT_EQ(messages[0].compact_after.size(), 1u);
      std::vector<std::string> before;
      for (const auto& f : messages[0].compact_before) before.push_back(f.file_name);
      EXPECT_EQ(before, first_files);
      const DataFileMeta& after = messages[0].compact_after[0];
      EXPECT_EQ(after.file_source, static_cast<int32_t>(FileSource::kCompact));
      EXPECT_EQ(after.min_sequence_number, 0);
      EXPECT_EQ(after.max_sequence_number, 4);
      EXPECT_EQ(after.row_count, 5);
      EXPECT_EQ(after.level, 0);
    }
    auto committed = testing::CommitMessages(path, messages, "writer", commit);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_EQ(committed->snapshot_ids.size(), commit < 5 ? 1u : 2u);
  }
  SnapshotManager snapshots(FileSystem::Local(), path);
  EXPECT_EQ(snapshots.Get(6).value().commit_kind, CommitKind::kCompact);
  auto files = FilesByBucket(path);
  ASSERT_EQ(files.begin()->second.size(), 1u);
  EXPECT_EQ(testing::ReadTable(path).value(),
            (std::vector<Row>{{I(1), Datum("x")}, {I(2), Datum("x")}, {I(3), Datum("x")}, {I(4), Datum("x")},
                              {I(5), Datum("x")}}));
  // The replaced files are still there for the older snapshots.
  for (const auto& name : first_files) EXPECT_TRUE(FileSystem::Local()->Exists(path + "/bucket-0/" + name).value());
}

TEST_F(TableWriteAppendCompactTest, WriteOnlyAndMinFileNumLeaveFilesAlone) {
  for (auto option : {std::pair<std::string, std::string>{"write-only", "true"},
                      std::pair<std::string, std::string>{"compaction.min.file-num", "50"}}) {
    TableSchema schema = WriterTestSchema({Field(0, "k", DataType::BigInt())}, {}, {},
                                          {{"bucket", "1"}, {"bucket-key", "k"}, {"commit.force-compact", "true"}, option});
    std::string path = MakeTable(schema);
    auto w = Writer(path, schema, "writer");
    for (int64_t commit = 1; commit <= 12; ++commit) {
      ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(commit)}).ok());
      ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "writer", commit).ok());
    }
    EXPECT_EQ(FilesByBucket(path).begin()->second.size(), 12u) << option.first;
    EXPECT_EQ(CountSnapshots(path, CommitKind::kCompact), 0) << option.first;
  }
}

TEST_F(TableWriteAppendCompactTest, ManualFullCompactionOfFixedBuckets) {
  TableSchema schema = WriterTestSchema(
      {Field(0, "p", DataType::String()), Field(1, "k", DataType::BigInt()), Field(2, "v", DataType::String())}, {},
      {"p"}, {{"bucket", "3"}, {"bucket-key", "k"}, {"compaction.min.file-num", "100"}});
  std::string path = MakeTable(schema);
  std::mt19937 rng(7);
  std::vector<Row> model;
  {
    auto w = Writer(path, schema, "writer");
    for (int64_t commit = 1; commit <= 8; ++commit) {
      for (int i = 0; i < 30; ++i) {
        Row row{Datum(rng() % 2 ? "a" : "b"), I(static_cast<int64_t>(rng() % 50)), Datum("c" + std::to_string(commit))};
        model.push_back(row);
        ASSERT_TRUE(w->Write(RowKind::kInsert, row).ok());
      }
      ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "writer", commit).ok());
    }
  }
  auto before = FilesByBucket(path);
  ASSERT_EQ(before.size(), 6u);
  // Within a bucket, rows keep their order: the reader's rows per (p, bucket) before and after.
  std::vector<Row> rows_before = testing::ValueOrFail(testing::ReadTable(path), "read");
  EXPECT_EQ(testing::SortedRows(rows_before), testing::SortedRows(model));

  // Not full: at most 8 files per bucket, below min-file-num: nothing to do.
  CommitResult nothing = CompactAndCommit(path, schema, false);
  EXPECT_EQ(nothing.outcome, CommitOutcome::kNothingToCommit);
  // Full, one partition only.
  CommitResult one = CompactAndCommit(path, schema, true, std::vector<Row>{{Datum("a")}});
  ASSERT_EQ(one.outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(testing::ValueOrFail(testing::ReadTable(path), "read"), rows_before);
  CommitResult all = CompactAndCommit(path, schema, true);
  ASSERT_EQ(all.outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(testing::ValueOrFail(testing::ReadTable(path), "read"), rows_before);
  auto after = FilesByBucket(path);
  ASSERT_EQ(after.size(), 6u);
  for (const auto& [where, files] : after) {
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].file_source, static_cast<int32_t>(FileSource::kCompact));
    ExpectDisjointSequences(files);
    const auto& old = before.at(where);
    int64_t rows = 0, min_seq = INT64_MAX, max_seq = 0;
    for (const auto& f : old) rows += f.row_count, min_seq = std::min(min_seq, f.min_sequence_number),
                              max_seq = std::max(max_seq, f.max_sequence_number);
    EXPECT_EQ(files[0].row_count, rows);
    EXPECT_EQ(files[0].min_sequence_number, min_seq);
    EXPECT_EQ(files[0].max_sequence_number, max_seq);
  }
  EXPECT_EQ(CountSnapshots(path, CommitKind::kCompact), 2);
  // A writer after the compaction continues the bucket's sequence numbers.
  auto w = Writer(path, schema, "writer2");
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("a"), I(1), Datum("late")}).ok());
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 1u);
  const auto& bucket_files = after.at({messages[0].partition, messages[0].bucket});
  EXPECT_EQ(messages[0].new_files[0].min_sequence_number, bucket_files[0].max_sequence_number + 1);
}

TEST_F(TableWriteAppendCompactTest, BucketUnawarePartitionsMergeSmallFiles) {
  TableSchema schema =
      WriterTestSchema({Field(0, "p", DataType::Int()), Field(1, "v", DataType::String())}, {}, {"p"}, {});
  std::string path = MakeTable(schema);
  std::vector<Row> model;
  auto write_commits = [&](int commits, int64_t first_identifier) {
    auto w = Writer(path, schema, "writer");
    for (int c = 0; c < commits; ++c) {
      for (int64_t p : {1, 2}) {
        for (int i = 0; i < 3; ++i) {
          Row row{I(p), Datum("r" + std::to_string(model.size()))};
          model.push_back(row);
          ASSERT_TRUE(w->Write(RowKind::kInsert, row).ok());
        }
      }
      ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "writer", first_identifier + c).ok());
    }
  };
  write_commits(12, 1);
  ASSERT_EQ(FilesByBucket(path).size(), 2u);
  for (const auto& [where, files] : FilesByBucket(path)) EXPECT_EQ(files.size(), 12u);

  // Only partition p=2: its 12 small files (>= compaction.min.file-num) become one.
  CommitResult one = CompactAndCommit(path, schema, false, std::vector<Row>{{I(2)}});
  ASSERT_EQ(one.outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(testing::SortedRows(testing::ValueOrFail(testing::ReadTable(path), "read")), testing::SortedRows(model));
  std::map<int32_t, size_t> counts;
  for (const auto& [where, files] : FilesByBucket(path)) {
    EXPECT_EQ(where.second, 0);
    counts[static_cast<int32_t>(files.size())]++;
  }
  EXPECT_EQ(counts, (std::map<int32_t, size_t>{{1, 1}, {12, 1}}));
  CommitResult rest = CompactAndCommit(path, schema, false);
  ASSERT_EQ(rest.outcome, CommitOutcome::kCommitted);
  for (const auto& [where, files] : FilesByBucket(path)) {
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].row_count, 36);
    EXPECT_EQ(files[0].file_source, static_cast<int32_t>(FileSource::kCompact));
  }
  SnapshotManager snapshots(FileSystem::Local(), path);
  EXPECT_EQ(snapshots.Get(snapshots.LatestId().value().value()).value().commit_kind, CommitKind::kCompact);

  // Three more files per partition: fewer than min-file-num, so only --full merges them (with the
  // compacted file, still small).
  write_commits(3, 100);
  EXPECT_EQ(CompactAndCommit(path, schema, false).outcome, CommitOutcome::kNothingToCommit);
  ASSERT_EQ(CompactAndCommit(path, schema, true).outcome, CommitOutcome::kCommitted);
  for (const auto& [where, files] : FilesByBucket(path)) {
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].row_count, 45);
  }
  EXPECT_EQ(testing::SortedRows(testing::ValueOrFail(testing::ReadTable(path), "read")), testing::SortedRows(model));
}

TEST_F(TableWriteAppendCompactTest, BucketUnawareBinsFollowTheTargetSize) {
  // Files weigh their size plus the open-file cost (1 kB here): with a 1 kB target, every two small
  // files fill a bin (2 kB), so 8 files become 4.
  TableSchema schema = WriterTestSchema({Field(0, "v", DataType::String())}, {}, {},
                                        {{"target-file-size", "1 kb"}, {"source.split.open-file-cost", "1 kb"},
                                         {"compaction.small-file-ratio", "100"}});
  std::string path = MakeTable(schema);
  std::vector<Row> model;
  {
    auto w = Writer(path, schema, "writer");
    for (int64_t commit = 1; commit <= 8; ++commit) {
      Row row{Datum("row " + std::to_string(commit))};
      model.push_back(row);
      ASSERT_TRUE(w->Write(RowKind::kInsert, row).ok());
      ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "writer", commit).ok());
    }
  }
  ASSERT_EQ(CompactAndCommit(path, schema, false).outcome, CommitOutcome::kCommitted);
  auto files = FilesByBucket(path);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files.begin()->second.size(), 4u);
  for (const auto& f : files.begin()->second) EXPECT_EQ(f.row_count, 2);
  EXPECT_EQ(testing::SortedRows(testing::ValueOrFail(testing::ReadTable(path), "read")), testing::SortedRows(model));
}

// A streaming writer of a bucket-unaware table: two partitions, one small file each per commit,
// writers restarting now and then; `options` add table options. Each commit reads back exactly the
// rows written; returns the most live files a partition had after a commit.
size_t RunUnawareStreamingModel(const std::string& path, const TableSchema& schema, int commits, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Row> model;
  std::unique_ptr<TableWrite> w;
  size_t max_files = 0;
  for (int64_t commit = 1; commit <= commits; ++commit) {
    if (!w || rng() % 10 == 0) w = StreamingWriter(path, schema, "writer");
    for (int64_t p : {1, 2}) {
      const int rows = 1 + static_cast<int>(rng() % 20);
      for (int i = 0; i < rows; ++i) {
        Row row{I(p), Datum("r" + std::to_string(model.size()) + std::string(rng() % 64, 'x'))};
        model.push_back(row);
        EXPECT_TRUE(w->Write(RowKind::kInsert, row).ok());
      }
    }
    auto messages = testing::ValueOrFail(w->PrepareCommit(), "PrepareCommit");
    for (const auto& m : messages) {
      EXPECT_EQ(m.bucket, 0);
      for (const auto& f : m.compact_after) EXPECT_EQ(f.file_source, static_cast<int32_t>(FileSource::kCompact));
    }
    auto committed = testing::CommitMessages(path, messages, "writer", commit);
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_EQ(testing::SortedRows(testing::ValueOrFail(testing::ReadTable(path), "read")), testing::SortedRows(model))
        << "after commit " << commit;
    for (const auto& [where, list] : FilesByBucket(path)) max_files = std::max(max_files, list.size());
    if (::testing::Test::HasFailure()) break;
  }
  return max_files;
}

TEST_F(TableWriteAppendCompactTest, BucketUnawareWriterCompactsBesideTheWrites) {
  // Each partition's small files are merged once compaction.min.file-num (Paimon's default 5) of them
  // are about the same size, so the live files stay few; the merges are COMPACT snapshots.
  TableSchema schema =
      WriterTestSchema({Field(0, "p", DataType::Int()), Field(1, "v", DataType::String())}, {}, {"p"}, {});
  std::string path = MakeTable(schema);
  size_t max_files = RunUnawareStreamingModel(path, schema, 60, 11);
  ASSERT_FALSE(HasFailure());
  // 60 commits wrote 60 files per partition: a few wait per size class, one merge may be running.
  EXPECT_LE(max_files, 14u);
  EXPECT_GE(CountSnapshots(path, CommitKind::kCompact), 10);
  // A batch writer (`tide write`) leaves them, as Java's batch writes do.
  auto batch = Writer(path, schema, "batch");
  for (int64_t commit = 1; commit <= 6; ++commit) {
    ASSERT_TRUE(batch->Write(RowKind::kInsert, Row{I(1), Datum("batch")}).ok());
    auto messages = testing::ValueOrFail(batch->PrepareCommit(), "PrepareCommit");
    for (const auto& m : messages) EXPECT_TRUE(m.compact_before.empty());
    ASSERT_TRUE(testing::CommitMessages(path, messages, "batch", commit).ok());
  }
  // `tide compact --full` merges what is left of each partition into one file.
  ASSERT_EQ(CompactAndCommit(path, schema, true).outcome, CommitOutcome::kCommitted);
  for (const auto& [where, list] : FilesByBucket(path)) EXPECT_EQ(list.size(), 1u);
}

TEST_F(TableWriteAppendCompactTest, BucketUnawareMergesWithinACommitPeriod) {
  // A tiny write buffer flushes several times between commits and commit.force-compact waits for
  // every merge: files are merged before their first commit (the APPEND adds them, the COMPACT deletes
  // them) and merged outputs again before theirs (intermediate files, deleted).
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int()), Field(1, "v", DataType::String())}, {},
                                        {"p"}, {{"write-buffer-size", "2 kb"}, {"commit.force-compact", "true"}});
  std::string path = MakeTable(schema);
  RunUnawareStreamingModel(path, schema, 25, 5);
  ASSERT_FALSE(HasFailure());
  EXPECT_GE(CountSnapshots(path, CommitKind::kCompact), 5);
}

TEST_F(TableWriteAppendCompactTest, ABigMergedFileWaitsForNewFilesOfItsSize) {
  // Java's last bin would take the merged file with every four new ones (rewriting it at every fifth
  // commit); here it joins only once the small files together reach its size.
  TableSchema schema = WriterTestSchema({Field(0, "v", DataType::String())}, {}, {}, {});
  std::string path = MakeTable(schema);
  int64_t identifier = 0;
  {
    auto w = Writer(path, schema, "loader");  // one large file
    for (int i = 0; i < 20000; ++i) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("big row " + std::to_string(i))}).ok());
    ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "loader", ++identifier).ok());
  }
  ASSERT_EQ(FilesByBucket(path).begin()->second.size(), 1u);
  const std::string big = FilesByBucket(path).begin()->second.at(0).file_name;
  auto w = StreamingWriter(path, schema, "writer");
  for (int commit = 0; commit < 12; ++commit) {
    ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("r" + std::to_string(commit))}).ok());
    auto messages = testing::ValueOrFail(w->PrepareCommit(), "PrepareCommit");
    for (const auto& m : messages) {
      for (const auto& f : m.compact_before) EXPECT_NE(f.file_name, big) << "commit " << commit;
    }
    ASSERT_TRUE(testing::CommitMessages(path, messages, "writer", ++identifier).ok());
  }
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "writer", ++identifier).ok());
  // The small files were merged among themselves; the big one is untouched.
  EXPECT_GE(CountSnapshots(path, CommitKind::kCompact), 2);
  bool big_live = false;
  std::string live;
  const auto files = FilesByBucket(path);
  for (const auto& f : files.begin()->second) {
    big_live |= f.file_name == big;
    live += " " + f.file_name + " (" + std::to_string(f.file_size) + " bytes)";
  }
  EXPECT_TRUE(big_live) << big << " is not among the live files:" << live;
  EXPECT_EQ(testing::ValueOrFail(testing::ReadTable(path), "read").size(), 20012u);
}

}  // namespace
}  // namespace tide
