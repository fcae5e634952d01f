#include "tide/table/operation/orphan_files_clean.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "testing/temp_dir.h"
#include "tide/table/operation/maintenance_test_util.h"

namespace tide {
namespace {

using testing::AllFiles;
using testing::AtSnapshot;
using testing::Field;
using testing::MaintenanceTable;
using testing::ReadRowsAt;
using testing::ValueOrFail;
using testing::WriterTestSchema;

Row R(int64_t id, const char* p) { return Row{Datum(id), Datum(p)}; }

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Moves every file under `path` two days into the past, as if the table had been written then.
void AgeAllFiles(const std::string& path) {
  auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
    if (e.is_regular_file()) std::filesystem::last_write_time(e.path(), old);
  }
}

void WriteFile(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  ASSERT_TRUE(FileSystem::Local()->WriteFileAtomic(path, "junk").ok());
}

TableSchema Schema() {
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())}, {}, {"p"},
                          {{"bucket", "-1"}});
}

TEST(OrphanFilesCleanTest, DeletesOnlyOldUnreferencedFiles) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", Schema());
  table.Append({R(1, "a"), R(2, "b")});
  table.Append({R(3, "a")});
  const std::string t = table.path();
  // Orphans: a data file of a failed commit, a manifest, a partition nobody references, a temp file.
  WriteFile(t + "/p=a/bucket-0/data-dead-0.parquet");
  WriteFile(t + "/manifest/manifest-dead-0");
  WriteFile(t + "/p=c/bucket-0/data-dead-1.parquet");
  WriteFile(t + "/snapshot/.snapshot-9.tmp");
  AgeAllFiles(t);
  // A young orphan (a commit in flight) stays.
  WriteFile(t + "/p=a/bucket-0/data-young-0.parquet");
  std::set<std::string> before = AllFiles(t);

  auto dry = RemoveOrphanFiles(FileSystem::Local(), t, "db.t", NowMs() - kDefaultOrphanFileAgeMs, NowMs(), true);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(dry->files_deleted, 4);
  EXPECT_EQ(AllFiles(t), before);

  auto result = RemoveOrphanFiles(FileSystem::Local(), t, "db.t", NowMs() - kDefaultOrphanFileAgeMs, NowMs(), false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->files_deleted, 4);
  std::set<std::string> after = AllFiles(t);
  EXPECT_FALSE(after.count("p=a/bucket-0/data-dead-0.parquet"));
  EXPECT_FALSE(after.count("manifest/manifest-dead-0"));
  EXPECT_FALSE(after.count("snapshot/.snapshot-9.tmp"));
  EXPECT_FALSE(std::filesystem::exists(t + "/p=c"));  // the emptied partition folder goes too
  EXPECT_TRUE(after.count("p=a/bucket-0/data-young-0.parquet"));
  EXPECT_EQ(after.size(), before.size() - 4);
  for (int64_t id : {1, 2}) EXPECT_TRUE(ReadRowsAt(t, AtSnapshot(id)).ok());
  EXPECT_TRUE(RemoveOrphanFiles(FileSystem::Local(), t, "db.t", NowMs() + 1000, NowMs(), false)
                  .status()
                  .IsInvalidArgument());
}

// Removal runs while a writer commits (TableWrite + FileStoreCommit): the writer's files are young, the
// table's old files are referenced, so only the planted orphans go and every snapshot reads afterwards.
TEST(OrphanFilesCleanTest, ConcurrentWriterLosesNothing) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", Schema());
  for (int64_t i = 0; i < 5; ++i) table.Append({R(i, "a"), R(100 + i, "b")});
  table.CompactAll();
  const std::string t = table.path();
  for (int i = 0; i < 5; ++i) WriteFile(t + "/p=a/bucket-0/data-orphan-" + std::to_string(i) + ".parquet");
  AgeAllFiles(t);

  std::atomic<bool> stop{false};
  std::atomic<int64_t> commits{0};
  std::string writer_error;
  std::thread writer([&] {
    try {
      for (int64_t i = 0; !stop.load() || commits.load() < 5; ++i) {
        table.Append({R(1000 + i, "a"), R(2000 + i, "b")});
        ++commits;
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
  });
  int64_t deleted = 0;
  for (int round = 0; round < 5; ++round) {
    auto result = RemoveOrphanFiles(FileSystem::Local(), t, "db.t", NowMs() - kDefaultOrphanFileAgeMs, NowMs(), false);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    deleted += result->files_deleted;
  }
  stop = true;
  writer.join();
  ASSERT_TRUE(writer_error.empty()) << writer_error;
  EXPECT_EQ(deleted, 5);
  SnapshotManager m(FileSystem::Local(), t);
  auto ids = ValueOrFail(m.ListIds(), "ids");
  EXPECT_EQ(static_cast<int64_t>(ids.size()), 6 + commits.load());
  for (int64_t id : ids) {
    auto rows = ReadRowsAt(t, AtSnapshot(id));
    ASSERT_TRUE(rows.ok()) << "snapshot " << id << ": " << rows.status().ToString();
  }
  EXPECT_EQ(ValueOrFail(testing::ReadTable(t), "read").size(), static_cast<size_t>(10 + 2 * commits.load()));
}

// A Java-written table with a branch: the branch's snapshots reference files of the shared folders,
// which stay.
TEST(OrphanFilesCleanTest, BranchFilesAreReferenced) {
  ::tide::testing::TempDir dir;
  std::string t = dir.path() + "/t";
  std::filesystem::copy(::tide::testing::JavaFixtureWarehouse() +
                            "/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch",
                        t, std::filesystem::copy_options::recursive);
  AgeAllFiles(t);
  std::set<std::string> before = AllFiles(t);
  auto result = RemoveOrphanFiles(FileSystem::Local(), t, "db.t", NowMs() - kDefaultOrphanFileAgeMs, NowMs(), false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->files_deleted, 0) << (result->paths.empty() ? "" : result->paths.front());
  EXPECT_EQ(AllFiles(t), before);
  auto branch = ValueOrFail(Table::Open(FileSystem::Local(), t, "db.t", "test"), "branch");
  auto reader = ValueOrFail(branch->NewReader(ReadOptions{}), "reader");
  std::vector<Row> rows;
  while (ValueOrFail(reader->NextBatch(1024, &rows), "read")) {
  }
  EXPECT_FALSE(rows.empty());
}

}  // namespace
}  // namespace tide
