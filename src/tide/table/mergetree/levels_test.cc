#include "tide/table/mergetree/levels.h"

#include <gtest/gtest.h>

#include "tide/codec/binary_row.h"

namespace tide {
namespace {

const std::vector<DataType> kKeyTypes = {DataType::BigInt(false)};

DataFileMeta File(const std::string& name, int64_t min, int64_t max, int32_t level = 0) {
  DataFileMeta f;
  f.file_name = name;
  f.min_key = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(min)}, kKeyTypes).value();
  f.max_key = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(max)}, kKeyTypes).value();
  f.level = level;
  f.file_size = 100;
  f.row_count = max - min + 1;
  return f;
}

Levels Tree(std::vector<DataFileMeta> files) {
  return Levels::Create(std::move(files), /*num_levels=*/6, kKeyTypes, "db.t").value();
}

TEST(LevelsTest, AFlushIntoAnEmptyTreeGoesToTheMaxLevel) {
  Levels levels = Tree({});
  std::vector<DataFileMeta> flush = {File("a", 1, 10), File("b", 11, 20)};
  ASSERT_TRUE(levels.AddAtMaxLevelIfApart(&flush).value());
  EXPECT_EQ(flush[0].level, 5);
  EXPECT_EQ(flush[1].level, 5);
  EXPECT_EQ(levels.NumberOfSortedRuns(), 1);
  EXPECT_EQ(levels.Level0Count(), 0u);
  EXPECT_EQ(levels.FileCount(), 2u);
}

TEST(LevelsTest, AFlushAboveOrBelowEveryFileGoesToTheMaxLevel) {
  Levels levels = Tree({File("l0", 100, 200), File("l5", 300, 400, 5), File("l3", 250, 260, 3)});
  std::vector<DataFileMeta> above = {File("above", 401, 500)};
  ASSERT_TRUE(levels.AddAtMaxLevelIfApart(&above).value());
  EXPECT_EQ(above[0].level, 5);
  std::vector<DataFileMeta> below = {File("below", 1, 99)};
  ASSERT_TRUE(levels.AddAtMaxLevelIfApart(&below).value());
  EXPECT_EQ(below[0].level, 5);
  // l0, l3, and the max level's run of three files.
  EXPECT_EQ(levels.NumberOfSortedRuns(), 3);
  auto runs = levels.LevelSortedRuns();
  ASSERT_EQ(runs.back().level, 5);
  ASSERT_EQ(runs.back().run.files.size(), 3u);
  EXPECT_EQ(runs.back().run.files[0].meta.file_name, "below");
  EXPECT_EQ(runs.back().run.files[2].meta.file_name, "above");
}

TEST(LevelsTest, AFlushThatTouchesTheTreesKeyRangeStaysOut) {
  Levels levels = Tree({File("l0", 100, 200), File("l5", 300, 400, 5)});
  // Overlapping a file, touching a bound, and in the gap between two files: a compaction of both may
  // write across the gap, so the gap is not apart either.
  for (auto [min, max] : {std::pair<int64_t, int64_t>{150, 160}, {400, 450}, {50, 100}, {250, 260}, {1, 1000}}) {
    std::vector<DataFileMeta> flush = {File("f", min, max)};
    auto added = levels.AddAtMaxLevelIfApart(&flush);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    EXPECT_FALSE(*added) << min << ".." << max;
    EXPECT_EQ(flush[0].level, 0);
  }
  EXPECT_EQ(levels.FileCount(), 2u);
  // A flush of several files is judged by its whole range.
  std::vector<DataFileMeta> spread = {File("low", 1, 10), File("high", 500, 600)};
  EXPECT_FALSE(levels.AddAtMaxLevelIfApart(&spread).value());
  EXPECT_EQ(levels.FileCount(), 2u);
}

// A compaction result taken before its commit may drop deletes at the edge of the range while the table
// still holds the file it replaces: keys there are not apart until the tree is made again.
TEST(LevelsTest, ARangeOnceHeldIsNeverApart) {
  Levels levels = Tree({File("top", 1, 100, 5), File("deletes", 90, 100)});
  DataFileMeta compacted = File("compacted", 1, 89, 5);
  ASSERT_TRUE(levels.Update({File("top", 1, 100, 5), File("deletes", 90, 100)}, {compacted}).ok());
  std::vector<DataFileMeta> flush = {File("again", 95, 99)};
  EXPECT_FALSE(levels.AddAtMaxLevelIfApart(&flush).value());
  EXPECT_EQ(flush[0].level, 0);
  std::vector<DataFileMeta> beyond = {File("beyond", 101, 120)};
  EXPECT_TRUE(levels.AddAtMaxLevelIfApart(&beyond).value());
}

// Files that overlap each other (not a flush's) are refused whole, the tree left as it was.
TEST(LevelsTest, OverlappingFilesOfOneFlushAreLeftToLevelZero) {
  Levels levels = Tree({});
  std::vector<DataFileMeta> flush = {File("a", 1, 10), File("b", 5, 20)};
  EXPECT_FALSE(levels.AddAtMaxLevelIfApart(&flush).value());
  EXPECT_EQ(flush[0].level, 0);
  EXPECT_EQ(flush[1].level, 0);
  EXPECT_EQ(levels.FileCount(), 0u);
}

TEST(LevelsTest, AFileKeyThatDoesNotDecodeIsAnError) {
  Levels levels = Tree({});
  std::vector<DataFileMeta> flush = {File("bad", 1, 2)};
  flush[0].min_key = "not a binary row";
  auto added = levels.AddAtMaxLevelIfApart(&flush);
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.status().ToString().find("bad"), std::string::npos) << added.status().ToString();
  EXPECT_EQ(levels.FileCount(), 0u);
}

}  // namespace
}  // namespace tide
