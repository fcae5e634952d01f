#include "tide/table/operation/expire_snapshots.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "testing/temp_dir.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {
namespace {

using testing::AllFiles;
using testing::AtSnapshot;
using testing::Field;
using testing::MaintenanceTable;
using testing::ReadRowsAt;
using testing::ReferencedFiles;
using testing::WriterTestSchema;

Row R(int64_t id, const std::string& p) { return Row{Datum(id), Datum(p)}; }

// A partitioned append table: 2 rows per append; snapshot 4 compacts the three appends before it.
//   1..3 APPEND, 4 COMPACT (replaces the files of 1..3), 5..6 APPEND.
class ExpireSnapshotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())},
                                          {}, {"p"}, {{"bucket", "-1"}});
    table_ = std::make_unique<MaintenanceTable>(dir_.path() + "/db.db/t", schema);
    for (int64_t i = 0; i < 3; ++i) table_->Append({R(2 * i, "a"), R(2 * i + 1, "b")});
    EXPECT_EQ(table_->CompactAll(), 4);
    table_->Append({R(100, "a")});
    table_->Append({R(101, "b")});
    for (int64_t id = 1; id <= 6; ++id) rows_[id] = testing::ValueOrFail(ReadRowsAt(path(), AtSnapshot(id)), "read");
  }

  const std::string& path() const { return table_->path(); }
  std::vector<Snapshot> Snapshots() const {
    SnapshotManager m(FileSystem::Local(), path());
    std::vector<Snapshot> out;
    for (int64_t id : testing::ValueOrFail(m.ListIds(), "ids")) out.push_back(testing::ValueOrFail(m.Get(id), "get"));
    return out;
  }
  ExpireSnapshots Expirer(int64_t clock_offset_ms = 2 * 3'600'000) const {
    return ExpireSnapshots(FileSystem::Local(), path(), "db.t", [clock_offset_ms] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count() +
             clock_offset_ms;
    });
  }
  static ExpireConfig Config(int32_t retain_min, int32_t retain_max = 2147483647, int32_t max_deletes = 100) {
    ExpireConfig c;
    c.retain_min = retain_min;
    c.retain_max = retain_max;
    c.max_deletes = max_deletes;
    return c;
  }
  // Every retained snapshot reads what it read before, and the files that went are exactly those that no
  // retained snapshot and no `extra` snapshot (tags) references.
  void ExpectExactlyUnreferencedDeleted(const std::set<std::string>& before, const std::vector<Snapshot>& extra = {}) {
    std::vector<Snapshot> kept = Snapshots();
    for (const auto& s : kept) {
      auto rows = ReadRowsAt(path(), AtSnapshot(s.id));
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      EXPECT_EQ(*rows, rows_[s.id]) << "snapshot " << s.id;
    }
    std::vector<Snapshot> all = kept;
    all.insert(all.end(), extra.begin(), extra.end());
    std::set<std::string> referenced = ReferencedFiles(path(), all);
    std::set<std::string> after = AllFiles(path());
    for (const auto& f : referenced) EXPECT_TRUE(after.count(f)) << "referenced file deleted: " << f;
    for (const auto& f : before) {
      if (testing::IsTableMetadata(f)) continue;
      EXPECT_EQ(after.count(f) > 0, referenced.count(f) > 0) << f;
    }
  }

  ::tide::testing::TempDir dir_;
  std::unique_ptr<MaintenanceTable> table_;
  std::map<int64_t, std::vector<Row>> rows_;
};

TEST_F(ExpireSnapshotsTest, ExpiresOldSnapshotsAndTheFilesOnlyTheyReferenced) {
  std::set<std::string> before = AllFiles(path());
  auto result = Expirer().Expire(Config(/*retain_min=*/2));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->snapshots_deleted, 4);
  // The six files of snapshots 1..3, which snapshot 4 replaced.
  EXPECT_EQ(result->data_files_deleted, 6);
  EXPECT_GT(result->manifest_files_deleted, 0);
  EXPECT_EQ(result->earliest, 5);
  SnapshotManager m(FileSystem::Local(), path());
  EXPECT_EQ(testing::ValueOrFail(m.ListIds(), "ids"), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(*testing::ValueOrFail(m.EarliestId(), "earliest"), 5);
  EXPECT_EQ(testing::ValueOrFail(FileSystem::Local()->ReadFile(path() + "/snapshot/EARLIEST"), "hint"), "5");
  ExpectExactlyUnreferencedDeleted(before);
  // A second run has nothing to do.
  auto again = Expirer().Expire(Config(2));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->snapshots_deleted, 0);
}

TEST_F(ExpireSnapshotsTest, RetentionLimits) {
  // Within snapshot.time-retained nothing goes, whatever the counts say.
  auto none = Expirer(/*clock_offset_ms=*/0).Expire(Config(1));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->snapshots_deleted, 0);
  // snapshot.expire.limit: at most two per run.
  auto limited = Expirer().Expire(Config(1, 2147483647, /*max_deletes=*/2));
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->snapshots_deleted, 2);
  EXPECT_EQ(limited->data_files_deleted, 0);  // snapshot 4, which replaced them, bounds the range: (1, 3]
  // snapshot.num-retained.max keeps at most 3, even though retain-min is 1 and time allows more.
  auto max = Expirer(0).Expire(Config(1, /*retain_max=*/3));
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->snapshots_deleted, 1);
  EXPECT_EQ(testing::ValueOrFail(SnapshotManager(FileSystem::Local(), path()).ListIds(), "ids"),
            (std::vector<int64_t>{4, 5, 6}));
  EXPECT_TRUE(Expirer().Expire(Config(3, 2)).status().IsInvalidArgument());
}

TEST_F(ExpireSnapshotsTest, ConsumerKeepsTheSnapshotsItStillNeeds) {
  ConsumerManager consumers(FileSystem::Local(), path());
  ASSERT_TRUE(consumers.ResetConsumer("bi", 3).ok());
  std::set<std::string> before = AllFiles(path());
  auto result = Expirer().Expire(Config(1));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->snapshots_deleted, 2);
  EXPECT_EQ(testing::ValueOrFail(SnapshotManager(FileSystem::Local(), path()).ListIds(), "ids"),
            (std::vector<int64_t>{3, 4, 5, 6}));
  ExpectExactlyUnreferencedDeleted(before);
  // An idle consumer expires (consumer.expiration-time), and then nothing holds the snapshots back.
  auto expired = consumers.ExpireBefore(std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(*expired, 1);
  auto rest = Expirer().Expire(Config(1));
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->snapshots_deleted, 3);
  EXPECT_EQ(rest->data_files_deleted, 6);
}

TEST_F(ExpireSnapshotsTest, TagKeepsEveryFileItReferences) {
  TagManager tags(FileSystem::Local(), path());
  Snapshot s2 = testing::ValueOrFail(SnapshotManager(FileSystem::Local(), path()).Get(2), "s2");
  ASSERT_TRUE(tags.Create(s2, "t2", std::nullopt, 0).ok());
  std::set<std::string> before = AllFiles(path());
  auto result = Expirer().Expire(Config(1));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->snapshots_deleted, 5);
  // Files of snapshots 1 and 2 are in the tag; only the third append's two files go.
  EXPECT_EQ(result->data_files_deleted, 2);
  ExpectExactlyUnreferencedDeleted(before, {s2});
  auto tagged = ReadRowsAt(path(), testing::AtTag("t2"));
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ(*tagged, rows_[2]);
}

// A reader that planned the oldest snapshot before expiry deleted it finishes with its rows or with the
// clear "expired" error, never with a bare missing-file error.
TEST_F(ExpireSnapshotsTest, ReaderOfAnExpiredSnapshotSaysItExpired) {
  auto table = testing::ValueOrFail(Table::Open(FileSystem::Local(), path(), "db.t"), "open");
  ReadOptions options;
  options.snapshot = AtSnapshot(1);
  auto reader = testing::ValueOrFail(table->NewReader(options), "reader");
  auto result = Expirer().Expire(Config(1));
  ASSERT_TRUE(result.ok());
  std::vector<Row> rows;
  Status status;
  while (true) {
    auto more = reader->NextBatch(1, &rows);
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
  }
  ASSERT_FALSE(status.ok()) << "the files of snapshot 1 were deleted, yet the read succeeded";
  EXPECT_TRUE(status.IsNotFound()) << status.ToString();
  EXPECT_NE(status.message().find("snapshot 1 of table db.t was expired while it was being read; read a newer "
                                  "snapshot"),
            std::string::npos)
      << status.ToString();
  // Opening it afterwards says it does not exist and which ones do.
  auto reopened = table->NewReader(options);
  ASSERT_FALSE(reopened.ok());
  EXPECT_NE(reopened.status().message().find("available snapshots are 6 to 6"), std::string::npos)
      << reopened.status().ToString();
}

TEST(ExpireSnapshotsConcurrencyTest, ReadersOfTheOldestSnapshotWhileExpiryRuns) {
  for (int round = 0; round < 8; ++round) {
    ::tide::testing::TempDir dir;
    TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())},
                                          {}, {"p"}, {{"bucket", "-1"}});
    MaintenanceTable table(dir.path() + "/db.db/t", schema);
    std::map<int64_t, std::vector<Row>> expected;
    for (int64_t i = 0; i < 6; ++i) {
      std::vector<Row> rows;
      for (int64_t k = 0; k < 20; ++k) rows.push_back(R(i * 100 + k, k % 2 ? "a" : "b"));
      int64_t id = table.Append(rows);
      if (i % 2 == 1) id = table.CompactAll();
      (void)id;
    }
    SnapshotManager m(FileSystem::Local(), table.path());
    for (int64_t id : testing::ValueOrFail(m.ListIds(), "ids")) {
      expected[id] = testing::ValueOrFail(ReadRowsAt(table.path(), AtSnapshot(id)), "read");
    }
    std::atomic<bool> done{false};
    std::atomic<int> clear_errors{0}, whole_reads{0};
    std::vector<std::string> bad;
    std::mutex bad_mu;
    std::thread reader([&] {
      while (!done.load()) {
        auto earliest = m.EarliestId();
        if (!earliest.ok() || !*earliest) continue;
        int64_t id = **earliest;
        auto rows = ReadRowsAt(table.path(), AtSnapshot(id));
        if (rows.ok()) {
          if (*rows != expected[id]) {
            std::lock_guard<std::mutex> lock(bad_mu);
            bad.push_back("wrong rows from snapshot " + std::to_string(id));
          }
          ++whole_reads;
        } else if (rows.status().IsNotFound() &&
                   (rows.status().message().find("was expired while it was being read") != std::string::npos ||
                    rows.status().message().find("does not exist") != std::string::npos)) {
          ++clear_errors;
        } else {
          std::lock_guard<std::mutex> lock(bad_mu);
          bad.push_back(rows.status().ToString());
        }
      }
    });
    ExpireSnapshots expire(FileSystem::Local(), table.path(), "db.t", [] { return int64_t{1} << 60; });
    ExpireConfig one_at_a_time;
    one_at_a_time.retain_min = 1;
    one_at_a_time.max_deletes = 1;
    for (int i = 0; i < 12; ++i) {
      auto r = expire.Expire(one_at_a_time);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    done = true;
    reader.join();
    EXPECT_TRUE(bad.empty()) << bad.front();
    EXPECT_GT(whole_reads.load() + clear_errors.load(), 0);
  }
}

// Expiry of a table Java wrote (primary keys, deletion vectors, compactions) leaves it readable.
TEST(ExpireSnapshotsJavaTest, JavaWrittenTableStaysReadable) {
  ::tide::testing::TempDir dir;
  std::string source = ::tide::testing::JavaFixtureWarehouse() + "/pk_09.db/pk_09";
  std::string path = dir.path() + "/pk_09";
  std::filesystem::copy(source, path, std::filesystem::copy_options::recursive);
  SnapshotManager m(FileSystem::Local(), path);
  auto latest = testing::ValueOrFail(m.LatestId(), "latest");
  std::map<int64_t, std::vector<Row>> before;
  for (int64_t id = *latest - 1; id <= *latest; ++id) {
    before[id] = testing::ValueOrFail(ReadRowsAt(path, AtSnapshot(id)), "read before");
  }
  std::set<std::string> files_before = AllFiles(path);
  ExpireSnapshots expire(FileSystem::Local(), path, "db.t");
  ExpireConfig c;
  c.retain_min = 2;
  c.time_retained_ms = 0;
  auto result = expire.Expire(c);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->snapshots_deleted, *latest - 2);
  EXPECT_GT(result->data_files_deleted + result->manifest_files_deleted, 0);
  for (const auto& [id, rows] : before) {
    auto after = ReadRowsAt(path, AtSnapshot(id));
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ(*after, rows) << "snapshot " << id;
  }
  std::vector<Snapshot> kept = {testing::ValueOrFail(m.Get(*latest - 1), "s"), testing::ValueOrFail(m.Get(*latest), "s")};
  std::set<std::string> referenced = ReferencedFiles(path, kept);
  std::set<std::string> after = AllFiles(path);
  for (const auto& f : referenced) EXPECT_TRUE(after.count(f)) << f;
  for (const auto& f : files_before) {
    if (f.rfind("manifest/", 0) == 0 || f.rfind("index/", 0) == 0 || f.find("/data-") != std::string::npos) {
      EXPECT_EQ(after.count(f) > 0, referenced.count(f) > 0) << f;
    }
  }
}

}  // namespace
}  // namespace tide
