#include "tide/table/operation/rollback.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/operation/tag_operations.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {
namespace {

using testing::AllFiles;
using testing::AtSnapshot;
using testing::Field;
using testing::MaintenanceTable;
using testing::ReadRowsAt;
using testing::ReferencedFiles;
using testing::ValueOrFail;
using testing::WriterTestSchema;

Row R(int64_t id) { return Row{Datum(id), Datum("a")}; }

TableSchema Schema() {
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())}, {}, {"p"},
                          {{"bucket", "-1"}});
}

// After a rollback the files are exactly those the remaining snapshots and tags reference.
void ExpectOnlyReferencedFiles(const std::string& path) {
  SnapshotManager m(FileSystem::Local(), path);
  std::vector<Snapshot> kept;
  for (int64_t id : ValueOrFail(m.ListIds(), "ids")) kept.push_back(ValueOrFail(m.Get(id), "get"));
  for (const auto& t : ValueOrFail(TagManager(FileSystem::Local(), path).ListTagged(), "tags")) kept.push_back(t.snapshot);
  std::set<std::string> referenced = ReferencedFiles(path, kept);
  for (const auto& f : AllFiles(path)) {
    if (!testing::IsTableMetadata(f)) {
      EXPECT_TRUE(referenced.count(f)) << "left behind: " << f;
    }
  }
  for (const auto& f : referenced) EXPECT_TRUE(AllFiles(path).count(f)) << "deleted: " << f;
}

TEST(RollbackTest, ToASnapshotDeletesNewerSnapshotsTagsAndTheirFiles) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", Schema());
  table.Append({R(1)});
  table.Append({R(2)});
  table.CompactAll();    // 3
  table.Append({R(3)});  // 4
  FileSystem* fs = FileSystem::Local();
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t1", 1, std::nullopt, 0).ok());
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t4", 4, std::nullopt, 0).ok());
  auto result = RollbackTo(fs, table.path(), "db.t", 2, std::nullopt);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->snapshots_deleted, 2);
  EXPECT_EQ(result->tags_deleted, 1);
  EXPECT_GT(result->files_deleted, 0);
  SnapshotManager m(fs, table.path());
  EXPECT_EQ(ValueOrFail(m.ListIds(), "ids"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ValueOrFail(fs->ReadFile(table.path() + "/snapshot/LATEST"), "hint"), "2");
  EXPECT_EQ(ValueOrFail(TagManager(fs, table.path()).ListNames(), "tags"), std::vector<std::string>{"t1"});
  EXPECT_EQ(ValueOrFail(ReadRowsAt(table.path(), AtSnapshot(2)), "read"), (std::vector<Row>{R(1), R(2)}));
  ExpectOnlyReferencedFiles(table.path());
  // Writing goes on from snapshot 3 again.
  EXPECT_EQ(table.Append({R(5)}), 3);
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 3u);
  EXPECT_TRUE(RollbackTo(fs, table.path(), "db.t", 9, std::nullopt).status().IsNotFound());
}

TEST(RollbackTest, ToATagOlderThanEverySnapshot) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", Schema());
  table.Append({R(1)});
  table.Append({R(2)});
  table.CompactAll();
  table.Append({R(3)});
  FileSystem* fs = FileSystem::Local();
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t2", 2, std::nullopt, 0).ok());
  ExpireSnapshots expire(fs, table.path(), "db.t", [] { return int64_t{1} << 60; });
  ExpireConfig c;
  c.retain_min = 1;
  ASSERT_TRUE(expire.Expire(c).ok());
  auto result = RollbackTo(fs, table.path(), "db.t", std::nullopt, "t2");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  SnapshotManager m(fs, table.path());
  EXPECT_EQ(ValueOrFail(m.ListIds(), "ids"), std::vector<int64_t>{2});
  EXPECT_EQ(*ValueOrFail(m.EarliestId(), "earliest"), 2);
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 2u);
  EXPECT_EQ(ValueOrFail(TagManager(fs, table.path()).ListNames(), "tags"), std::vector<std::string>{"t2"});
  ExpectOnlyReferencedFiles(table.path());
}

}  // namespace
}  // namespace tide
