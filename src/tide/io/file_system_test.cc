#include "tide/io/file_system.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace tide {
namespace {

TEST(LocalFileSystemTest, ExclusiveWriteNeverReplaces) {
  testing::TempDir dir;
  FileSystem* fs = FileSystem::Local();
  std::string path = JoinPath(dir.path(), "snapshot/snapshot-1");
  ASSERT_TRUE(fs->MakeDirs(std::string(DirName(path))).ok());
  ASSERT_TRUE(fs->WriteFileExclusive(path, "first").ok());
  Status again = fs->WriteFileExclusive(path, "second");
  EXPECT_TRUE(again.IsAlreadyExists()) << again.ToString();
  EXPECT_EQ(*fs->ReadFile(path), "first");
  // No temporary file is left behind by the refused write.
  auto entries = *fs->ListDir(std::string(DirName(path)));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "snapshot-1");
}

TEST(LocalFileSystemTest, ReadRangeAndErrorsNameTheFile) {
  testing::TempDir dir;
  FileSystem* fs = FileSystem::Local();
  std::string path = JoinPath(dir.path(), "f");
  ASSERT_TRUE(fs->WriteFileAtomic(path, "0123456789").ok());
  EXPECT_EQ(*fs->ReadRange(path, 2, 3), "234");
  auto past = fs->ReadRange(path, 8, 5);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(past.status().IsCorruption());
  EXPECT_NE(past.status().message().find(path), std::string::npos);
  auto missing = fs->ReadFile(JoinPath(dir.path(), "nope"));
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  ASSERT_TRUE(fs->WriteFileAtomic(path, "replaced").ok());
  EXPECT_EQ(*fs->ReadFile(path), "replaced");
}

// A hint replaces the file whole and leaves no temporary file beside it; a folder that is missing is
// an error naming it.
TEST(LocalFileSystemTest, HintFileReplacesWholeAndLeavesNothingBeside) {
  testing::TempDir dir;
  FileSystem* fs = FileSystem::Local();
  std::string path = JoinPath(dir.path(), "LATEST");
  ASSERT_TRUE(fs->WriteHintFile(path, "12345").ok());
  ASSERT_TRUE(fs->WriteHintFile(path, "7").ok());
  EXPECT_EQ(*fs->ReadFile(path), "7");
  auto entries = *fs->ListDir(dir.path());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "LATEST");
  auto missing = fs->WriteHintFile(JoinPath(dir.path(), "gone/LATEST"), "1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("gone"), std::string::npos) << missing.ToString();
}

TEST(PathTest, JoinBaseDir) {
  EXPECT_EQ(JoinPath("/a/", "b"), "/a/b");
  EXPECT_EQ(JoinPath("/a", "/b"), "/a/b");
  EXPECT_EQ(BaseName("/a/b/c"), "c");
  EXPECT_EQ(DirName("/a/b/c"), "/a/b");
  EXPECT_EQ(DirName("c"), "");
}

}  // namespace
}  // namespace tide
