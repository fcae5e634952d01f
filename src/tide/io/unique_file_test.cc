#include "tide/io/unique_file.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace tide {
namespace {

TEST(UniqueFileTest, NewFileIsWrittenUnderItsNameAndNeverReplaced) {
  testing::TempDir dir;
  FileSystem* fs = FileSystem::Local();
  std::string path = JoinPath(dir.path(), "bucket-0/data-1.parquet");
  ASSERT_TRUE(WriteNewFile(fs, path, "bytes").ok());  // creates the missing folder
  EXPECT_EQ(*fs->ReadFile(path), "bytes");
  Status again = WriteNewFile(fs, path, "other");
  EXPECT_TRUE(again.IsAlreadyExists()) << again.ToString();
  EXPECT_NE(again.ToString().find("data-1.parquet"), std::string::npos) << again.ToString();
  EXPECT_EQ(*fs->ReadFile(path), "bytes");
  // No temporary name was used: the folder holds the file alone.
  auto entries = *fs->ListDir(std::string(DirName(path)));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "data-1.parquet");
}

}  // namespace
}  // namespace tide
