#include "tide/table/change_read.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

Row R(int64_t id, std::string v) { return Row{Datum(id), Datum(std::move(v))}; }

// "kind id v" for each row a reader with a leading rowkind column returns.
std::vector<std::string> Lines(TableReader* reader) {
  std::vector<std::string> out;
  std::vector<Row> rows;
  while (true) {
    rows.clear();
    auto more = reader->NextBatch(7, &rows);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (const Row& row : rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) line += ' ';
        line += row[i].is_null() ? "NULL" : DatumToString(row[i], reader->fields()[i].type);
      }
      out.push_back(line);
    }
  }
  return out;
}

class ChangeReadTest : public ::testing::Test {
 protected:
  // A table `id BIGINT key, v STRING` with `options` (bucket 1 unless given).
  void MakeTable(std::vector<std::pair<std::string, std::string>> options, bool primary_key = true) {
    bool has_bucket = false;
    for (const auto& [k, v] : options) has_bucket |= k == "bucket";
    if (!has_bucket) options.emplace_back("bucket", "1");
    schema_ = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                               primary_key ? std::vector<std::string>{"id"} : std::vector<std::string>{}, {}, options);
    path_ = dir_.path() + "/db.db/t";
    ASSERT_TRUE(testing::CreateWriterTestTable(path_, schema_).ok());
    NewWriter();
  }
  void NewWriter() {
    writer_ = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path_, schema_, "user-1", {}), "writer");
  }
  void Put(RowKind kind, int64_t id, std::string v) { ASSERT_TRUE(writer_->Write(kind, R(id, std::move(v))).ok()); }
  // Commits what was written; returns the snapshot id.
  int64_t Commit() {
    // Commit times one millisecond apart at least, so that reads by time tell the snapshots apart.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto messages = writer_->PrepareCommit();
    EXPECT_TRUE(messages.ok()) << messages.status().ToString();
    auto committed = testing::CommitMessages(path_, *messages, "user-1", ++identifier_);
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
    return Latest();
  }
  int64_t Compact() {
    EXPECT_TRUE(writer_->Compact(true).ok());
    return Commit();
  }
  // Replaces the whole table with `rows` (none: TRUNCATE), as an OVERWRITE snapshot.
  int64_t Overwrite(const std::vector<Row>& rows) {
    NewWriter();
    for (const Row& row : rows) EXPECT_TRUE(writer_->Write(RowKind::kInsert, row).ok());
    auto messages = writer_->PrepareCommit();
    EXPECT_TRUE(messages.ok());
    auto committer = testing::ValueOrFail(FileStoreCommit::Create(FileSystem::Local(), path_, "db.t"), "committer");
    CommitOptions options;
    options.commit_user = "user-1";
    options.commit_identifier = ++identifier_;
    auto done = committer->Overwrite(OverwriteScope::WholeTable(), *messages, options);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    NewWriter();
    return Latest();
  }
  int64_t Latest() {
    auto latest = SnapshotManager(FileSystem::Local(), path_).LatestId();
    return latest.ok() && *latest ? **latest : 0;
  }
  CommitKind KindOf(int64_t id) {
    return testing::ValueOrFail(SnapshotManager(FileSystem::Local(), path_).Get(id), "snapshot").commit_kind;
  }
  std::unique_ptr<Table> OpenTable() {
    return testing::ValueOrFail(Table::Open(FileSystem::Local(), path_, "db.t"), "table");
  }
  std::vector<std::string> Between(const std::string& range, const std::string& mode = "auto") {
    auto table = OpenTable();
    IncrementalReadOptions options;
    options.between = range;
    options.scan_mode = mode;
    auto reader = NewIncrementalReader(*table, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    return Lines(reader->get());
  }
  std::vector<std::string> AuditLog() {
    auto table = OpenTable();
    auto reader = NewAuditLogReader(*table, IncrementalReadOptions{});
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    return Lines(reader->get());
  }

  testing::TempDir dir_;
  TableSchema schema_;
  std::string path_;
  std::unique_ptr<TableWrite> writer_;
  int64_t identifier_ = 0;
};

TEST_F(ChangeReadTest, DeltaModeReadsAppendSnapshotsAndSkipsCompaction) {
  MakeTable({{"num-sorted-run.compaction-trigger", "100"}});
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kInsert, 2, "b");
  ASSERT_EQ(Commit(), 1);
  Put(RowKind::kUpdateAfter, 1, "c");
  Put(RowKind::kDelete, 2, "b");
  ASSERT_EQ(Commit(), 2);
  ASSERT_EQ(Compact(), 3);
  ASSERT_EQ(KindOf(3), CommitKind::kCompact);
  Put(RowKind::kInsert, 3, "d");
  ASSERT_EQ(Commit(), 4);

  // Every change once, with its kind; the compaction (which rewrote rows 1 and 2) adds nothing.
  EXPECT_EQ(Between("0,4"), (std::vector<std::string>{"+I 1 a", "+I 2 b", "+U 1 c", "-D 2 b", "+I 3 d"}));
  EXPECT_EQ(Between("1,3"), (std::vector<std::string>{"+U 1 c", "-D 2 b"}));
  EXPECT_EQ(Between("2,3"), std::vector<std::string>{});
  EXPECT_EQ(Between("3,4"), std::vector<std::string>{"+I 3 d"});
  EXPECT_EQ(Between("4,4"), std::vector<std::string>{});
  // The same by timestamps: (time of snapshot 1, time of snapshot 4].
  auto table = OpenTable();
  SnapshotManager snapshots(FileSystem::Local(), path_);
  IncrementalReadOptions by_time;
  by_time.between_timestamp = fmt::format("{},{}", snapshots.Get(1)->time_millis, snapshots.Get(4)->time_millis);
  auto reader = NewIncrementalReader(*table, by_time);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(Lines(reader->get()), (std::vector<std::string>{"+U 1 c", "-D 2 b", "+I 3 d"}));
  // A start before every snapshot includes the first one.
  by_time.between_timestamp = fmt::format("0,{}", snapshots.Get(2)->time_millis);
  reader = NewIncrementalReader(*table, by_time);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(Lines(reader->get()), (std::vector<std::string>{"+I 1 a", "+I 2 b", "+U 1 c", "-D 2 b"}));
}

TEST_F(ChangeReadTest, RangesOutsideTheSnapshotsAreRefused) {
  MakeTable({});
  Put(RowKind::kInsert, 1, "a");
  Commit();
  auto table = OpenTable();
  for (const char* bad : {"0,2", "1,0", "x,1", "1", "-1,1"}) {
    IncrementalReadOptions options;
    options.between = bad;
    auto reader = NewIncrementalReader(*table, options);
    EXPECT_FALSE(reader.ok()) << bad;
    if (!reader.ok()) {
      EXPECT_NE(reader.status().message().find("db.t"), std::string::npos) << reader.status().ToString();
    }
  }
  IncrementalReadOptions mode;
  mode.between = "0,1";
  mode.scan_mode = "diff";
  EXPECT_FALSE(NewIncrementalReader(*table, mode).ok());
}

TEST_F(ChangeReadTest, ChangelogModeReadsEveryInputRecord) {
  MakeTable({{"changelog-producer", "input"}});
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kUpdateBefore, 1, "a");
  Put(RowKind::kUpdateAfter, 1, "b");
  Put(RowKind::kInsert, 2, "x");
  ASSERT_EQ(Commit(), 1);
  Put(RowKind::kDelete, 2, "x");
  ASSERT_EQ(Commit(), 2);
  // auto = changelog for a table with a changelog producer: every record, in commit order.
  EXPECT_EQ(Between("0,2"), (std::vector<std::string>{"+I 1 a", "-U 1 a", "+U 1 b", "+I 2 x", "-D 2 x"}));
  EXPECT_EQ(Between("0,2", "changelog"), Between("0,2"));
  // delta: the merged data files, one record per key and commit.
  EXPECT_EQ(Between("0,2", "delta"), (std::vector<std::string>{"+U 1 b", "+I 2 x", "-D 2 x"}));
}

TEST_F(ChangeReadTest, OverwriteAndTruncateAddNoChanges) {
  MakeTable({});
  Put(RowKind::kInsert, 1, "a");
  ASSERT_EQ(Commit(), 1);
  ASSERT_EQ(Overwrite({R(5, "new")}), 2);
  ASSERT_EQ(KindOf(2), CommitKind::kOverwrite);
  ASSERT_EQ(Overwrite({}), 3);  // TRUNCATE
  ASSERT_EQ(KindOf(3), CommitKind::kOverwrite);
  Put(RowKind::kInsert, 7, "after");
  ASSERT_EQ(Commit(), 4);
  // Java's incremental read skips OVERWRITE snapshots (without streaming-read-overwrite).
  EXPECT_EQ(Between("0,4"), (std::vector<std::string>{"+I 1 a", "+I 7 after"}));
  EXPECT_EQ(Between("1,3"), std::vector<std::string>{});
}

TEST_F(ChangeReadTest, AppendTableRowsAreInserts) {
  MakeTable({{"bucket", "-1"}}, /*primary_key=*/false);
  Put(RowKind::kInsert, 1, "a");
  Commit();
  Put(RowKind::kInsert, 2, "b");
  Put(RowKind::kInsert, 3, "c");
  Commit();
  EXPECT_EQ(Between("1,2"), (std::vector<std::string>{"+I 2 b", "+I 3 c"}));
  EXPECT_EQ(AuditLog(), (std::vector<std::string>{"+I 1 a", "+I 2 b", "+I 3 c"}));
}

TEST_F(ChangeReadTest, AuditLogKeepsEachKeysKindAndDeletesUntilCompacted) {
  MakeTable({{"num-sorted-run.compaction-trigger", "100"}});
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kInsert, 2, "b");
  Put(RowKind::kInsert, 3, "c");
  Commit();
  Put(RowKind::kUpdateAfter, 1, "a2");
  Put(RowKind::kDelete, 2, "b");
  Commit();
  EXPECT_EQ(AuditLog(), (std::vector<std::string>{"+U 1 a2", "-D 2 b", "+I 3 c"}));
  // A full compaction drops the deleted key; the kinds of the others stay what their records were.
  Compact();
  EXPECT_EQ(AuditLog(), (std::vector<std::string>{"+U 1 a2", "+I 3 c"}));
}

// Collects what a stream prints per poll: "sN kind id v".
std::vector<std::string> PollAll(TableChangeStream* stream) {
  std::vector<std::string> out;
  while (true) {
    auto read = stream->Poll([&](const ChangeRecord& r) {
      out.push_back(fmt::format("s{} {} {} {}", r.snapshot_id, RowKindShortString(r.kind),
                                DatumToString(r.row[0], DataType::BigInt()), r.row[1].is_null() ? "NULL" : r.row[1].as_string()));
      return Status::OK();
    });
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok() || !*read) break;
  }
  return out;
}

TEST_F(ChangeReadTest, StreamStartsAsJavaScanModesAndResumesFromItsConsumer) {
  MakeTable({{"changelog-producer", "input"}, {"num-sorted-run.compaction-trigger", "100"}});
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kInsert, 2, "b");
  Commit();  // 1
  Put(RowKind::kUpdateAfter, 1, "a2");
  Commit();  // 2
  auto table = OpenTable();
  auto open = [&](const std::string& from, std::optional<std::string> consumer = std::nullopt) {
    TableChangeStreamOptions options;
    options.start = testing::ValueOrFail(StreamStart::Parse(from), "from");
    options.consumer_id = std::move(consumer);
    return testing::ValueOrFail(TableChangeStream::Open(table.get(), options), "stream");
  };
  // latest-full: snapshot 2 in full as +I, then nothing new yet.
  EXPECT_EQ(PollAll(open("latest-full").get()), (std::vector<std::string>{"s2 +I 1 a2", "s2 +I 2 b"}));
  EXPECT_EQ(PollAll(open("latest").get()), std::vector<std::string>{});
  EXPECT_EQ(PollAll(open("earliest").get()), (std::vector<std::string>{"s1 +I 1 a", "s1 +I 2 b", "s2 +U 1 a2"}));
  EXPECT_EQ(PollAll(open("snapshot:2").get()), std::vector<std::string>{"s2 +U 1 a2"});
  EXPECT_EQ(PollAll(open("snapshot-full:1").get()),
            (std::vector<std::string>{"s1 +I 1 a", "s1 +I 2 b", "s2 +U 1 a2"}));
  EXPECT_FALSE(StreamStart::Parse("snapshot:x").ok());
  EXPECT_FALSE(StreamStart::Parse("nowhere").ok());

  // A consumer reads, records its progress, and a new stream with its id continues after it.
  auto first = open("earliest", "bi");
  EXPECT_EQ(PollAll(first.get()).size(), 3u);
  ASSERT_TRUE(first->CommitConsumer().ok());
  auto consumers = testing::ValueOrFail(ConsumerManager(FileSystem::Local(), path_).Consumers(), "consumers");
  EXPECT_EQ(consumers.at("bi"), 3);
  std::string json = testing::ValueOrFail(FileSystem::Local()->ReadFile(path_ + "/consumer/consumer-bi"), "read");
  EXPECT_NE(json.find("\"nextSnapshot\" : 3"), std::string::npos) << json;
  Put(RowKind::kDelete, 2, "b");
  Commit();  // 3
  Compact();  // 4: COMPACT, no changelog
  Put(RowKind::kInsert, 9, "z");
  Commit();  // 5
  auto resumed = open("latest-full", "bi");  // the consumer wins over --from
  EXPECT_EQ(PollAll(resumed.get()), (std::vector<std::string>{"s3 -D 2 b", "s5 +I 9 z"}));
  EXPECT_EQ(resumed->next_snapshot(), 6);
}

TEST_F(ChangeReadTest, StreamFollowsNewCommitsAndRefusesExpiredSnapshots) {
  MakeTable({});
  auto table = OpenTable();
  TableChangeStreamOptions options;  // latest-full on an empty table: the first snapshot in full
  auto stream = testing::ValueOrFail(TableChangeStream::Open(table.get(), options), "stream");
  EXPECT_EQ(PollAll(stream.get()), std::vector<std::string>{});
  Put(RowKind::kInsert, 1, "a");
  Commit();
  EXPECT_EQ(PollAll(stream.get()), std::vector<std::string>{"s1 +I 1 a"});
  Put(RowKind::kUpdateAfter, 1, "b");
  Commit();
  EXPECT_EQ(PollAll(stream.get()), std::vector<std::string>{"s2 +U 1 b"});
  // A reader that fell behind expiry is told so.
  Put(RowKind::kInsert, 2, "c");
  Commit();
  Put(RowKind::kInsert, 3, "d");
  Commit();
  SnapshotManager snapshots(FileSystem::Local(), path_);
  for (int64_t id = 1; id <= 3; ++id) ASSERT_TRUE(snapshots.DeleteSnapshot(id).ok());
  ASSERT_TRUE(snapshots.CommitEarliestHint(4).ok());
  auto read = stream->Poll([](const ChangeRecord&) { return Status::OK(); });
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsNotFound()) << read.status().ToString();
  EXPECT_NE(read.status().message().find("expired"), std::string::npos) << read.status().ToString();
}

}  // namespace
}  // namespace tide
