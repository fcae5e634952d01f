// JavaHashMapOrder against java.util.HashMap (the expected orders were printed by OpenJDK 17's HashMap
// for the same operations), and BucketedDvMaintainer's index files: written, restored, rewritten.
#include "tide/table/deletionvectors/bucketed_dv_maintainer.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/base/strings.h"

namespace tide {
namespace {

std::string Hex(int64_t v) { return fmt::format("{:x}", v); }

TEST(JavaHashMapOrderTest, StringHashIsJavas) {
  EXPECT_EQ(JavaHashMapOrder::JavaStringHash("hello"), 99162322);
  EXPECT_EQ(JavaHashMapOrder::JavaStringHash("data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet"), 194724227);
  EXPECT_EQ(JavaHashMapOrder::JavaStringHash(""), 0);
}

TEST(JavaHashMapOrderTest, IteratesAsJavasHashMap) {
  JavaHashMapOrder m;
  for (int i = 0; i < 20; ++i) m.Put("data-" + Hex(i * 7919) + "-" + std::to_string(i) + ".parquet");
  m.Remove("data-0-0.parquet");
  m.Remove("data-" + Hex(5 * 7919) + "-5.parquet");
  m.Put("data-zz-1.parquet");
  m.Put("data-yy-2.parquet");
  EXPECT_EQ(Join(m.Keys(), ","),
            "data-24bbd-19.parquet,data-5ccd-3.parquet,data-17334-12.parquet,data-15445-11.parquet,data-b99a-6.parquet,"
            "data-f778-8.parquet,data-22cce-18.parquet,data-yy-2.parquet,data-1d001-15.parquet,data-1eef0-16.parquet,"
            "data-11667-9.parquet,data-d889-7.parquet,data-1eef-1.parquet,data-13556-10.parquet,data-3dde-2.parquet,"
            "data-7bbc-4.parquet,data-zz-1.parquet,data-19223-13.parquet,data-1b112-14.parquet,data-20ddf-17.parquet");

  JavaHashMapOrder source;
  for (int i = 0; i < 5; ++i) source.Put("f" + std::to_string(i * 31) + ".parquet");
  JavaHashMapOrder copy = JavaHashMapOrder::CopyOf(source.Keys());
  for (int i = 0; i < 3; ++i) copy.Put("g" + std::to_string(i) + ".parquet");
  EXPECT_EQ(Join(copy.Keys(), ","), "f31.parquet,f62.parquet,g1.parquet,f0.parquet,g2.parquet,f93.parquet,f124.parquet,g0.parquet");
}

TEST(BucketedDvMaintainerTest, WritesRestoresAndReplacesIndexFiles) {
  testing::TempDir dir;
  FileSystem* fs = FileSystem::Local();
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    BucketedDvMaintainer::Options options;
    options.format = format;
    options.index_dir = dir.path() + "/t/index";
    options.file_prefix = format == DeletionVectorFormat::kBitmap32 ? "index-a-" : "index-b-";
    options.next_file = std::make_shared<int64_t>(0);
    options.table_name = "db.t";
    BucketedDvMaintainer dv(options);
    EXPECT_FALSE(dv.modified());
    dv.NotifyNewDeletion("data-1.parquet", 3);
    dv.NotifyNewDeletion("data-1.parquet", 70000);
    dv.NotifyNewDeletion("data-2.parquet", 0);
    ASSERT_TRUE(dv.modified());
    auto first = dv.WriteIndexFile(fs);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_FALSE(dv.modified());
    EXPECT_EQ(first->index_type, "DELETION_VECTORS");
    EXPECT_EQ(first->row_count, 2);
    ASSERT_TRUE(first->deletion_vectors);
    ASSERT_EQ(first->deletion_vectors->size(), 2u);
    dv.NotifyNewDeletion("data-1.parquet", 3);  // already deleted: nothing changes
    EXPECT_FALSE(dv.modified());

    BucketedDvMaintainer restored(options);
    ASSERT_TRUE(restored.Restore(fs, {*first}, {options.index_dir + "/" + first->file_name}).ok());
    EXPECT_TRUE(restored.IsDeleted("data-1.parquet", 70000));
    EXPECT_TRUE(restored.IsDeleted("data-2.parquet", 0));
    EXPECT_FALSE(restored.IsDeleted("data-2.parquet", 1));
    EXPECT_FALSE(restored.modified());
    restored.RemoveDeletionVectorOf("data-1.parquet");
    restored.RemoveDeletionVectorOf("data-2.parquet");
    ASSERT_TRUE(restored.modified());
    // No vector left: an index file without entries (the version byte), as Java writes it.
    auto empty = restored.WriteIndexFile(fs);
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->row_count, 0);
    EXPECT_EQ(empty->file_size, 1);
    EXPECT_NE(empty->file_name, first->file_name);
  }
}

}  // namespace
}  // namespace tide
