#include "tide/table/snapshot/snapshot_manager.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/temp_dir.h"

namespace tide {
namespace {

// A private copy of a Java-written table whose hint files a test may change.
std::string CopyTable(const testing::TempDir& dir, const std::string& rel) {
  std::string dst = dir.path() + "/t";
  std::filesystem::copy(testing::JavaFixtureWarehouse() + "/" + rel, dst, std::filesystem::copy_options::recursive);
  return dst;
}

TEST(SnapshotTest, JavaSnapshotRoundTripsByteForByte) {
  std::string path = testing::JavaFixtureWarehouse() + "/pk_09.db/pk_09/snapshot/snapshot-6";
  auto text = FileSystem::Local()->ReadFile(path);
  ASSERT_TRUE(text.ok());
  auto snapshot = Snapshot::FromJson(*text, path);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->id, 6);
  EXPECT_EQ(snapshot->commit_kind, CommitKind::kCompact);
  EXPECT_EQ(snapshot->commit_identifier, 3);
  EXPECT_EQ(*snapshot->total_record_count, 12);
  EXPECT_EQ(*snapshot->delta_record_count, -2);
  EXPECT_EQ(*snapshot->index_manifest, "index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-0");
  EXPECT_EQ(snapshot->ToJson(), *text);
}

TEST(SnapshotTest, CorruptSnapshotNamesTheFile) {
  for (const char* bad : {"", "{", "{\"id\": 1}", "[1,2]",
                          R"({"version":3,"id":1,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b",)"
                          R"("commitUser":"u","commitIdentifier":1,"commitKind":"MERGE","timeMillis":1})"}) {
    auto s = Snapshot::FromJson(bad, "/t/snapshot/snapshot-1");
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(s.status().IsCorruption());
    EXPECT_NE(s.status().message().find("/t/snapshot/snapshot-1"), std::string::npos) << s.status().message();
  }
}

TEST(SnapshotManagerTest, HintsAreTrustedOnlyWhenConsistent) {
  testing::TempDir dir;
  std::string table = CopyTable(dir, "pk_09.db/pk_09");
  FileSystem* fs = FileSystem::Local();
  SnapshotManager m(fs, table);
  EXPECT_EQ(**m.LatestId(), 8);
  EXPECT_EQ(**m.EarliestId(), 1);
  // A stale LATEST (snapshot-(hint+1) exists) is ignored: the directory listing wins.
  ASSERT_TRUE(fs->WriteFileAtomic(table + "/snapshot/LATEST", "5").ok());
  EXPECT_EQ(**m.LatestId(), 8);
  // A garbled hint is ignored too.
  ASSERT_TRUE(fs->WriteFileAtomic(table + "/snapshot/LATEST", "x").ok());
  EXPECT_EQ(**m.LatestId(), 8);
  // EARLIEST pointing at an expired snapshot falls back to listing.
  ASSERT_TRUE(fs->DeleteFile(table + "/snapshot/snapshot-1").ok());
  EXPECT_EQ(**m.EarliestId(), 2);
  ASSERT_TRUE(fs->DeleteFile(table + "/snapshot/EARLIEST").ok());
  EXPECT_EQ(**m.EarliestId(), 2);
}

TEST(SnapshotManagerTest, ResolvesIdTimeAndTag) {
  testing::TempDir dir;
  std::string table = CopyTable(dir, "pk_09.db/pk_09");
  FileSystem* fs = FileSystem::Local();
  SnapshotManager m(fs, table);
  auto s3 = m.Get(3);
  ASSERT_TRUE(s3.ok());
  auto at = m.AtOrBefore(s3->time_millis);
  ASSERT_TRUE(at.ok());
  EXPECT_GE(at->id, 3);
  EXPECT_LE(at->time_millis, s3->time_millis);
  auto before_all = m.AtOrBefore(0);
  EXPECT_TRUE(before_all.status().IsNotFound());
  auto missing = m.Get(99);
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("1 to 8"), std::string::npos) << missing.status().message();

  // A tag is a snapshot file copied under tag/ with tag fields.
  Snapshot tagged = *s3;
  tagged.tag_create_time = std::vector<int64_t>{2025, 1, 1, 0, 0};
  tagged.tag_time_retained_ms = 86'400'000;
  ASSERT_TRUE(fs->MakeDirs(table + "/tag").ok());
  ASSERT_TRUE(fs->WriteFileExclusive(table + "/tag/tag-release", tagged.ToJson()).ok());
  SnapshotSelector sel;
  sel.tag = "release";
  auto resolved = m.Resolve(sel);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ((*resolved)->id, 3);
  sel.tag = "nope";
  auto bad = m.Resolve(sel);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("release"), std::string::npos);
  SnapshotSelector two;
  two.snapshot_id = 1;
  two.tag = "release";
  EXPECT_TRUE(m.Resolve(two).status().IsInvalidArgument());
}

}  // namespace
}  // namespace tide
