// UnawareAppendCompactManager's planning: only small files are kept, a plan's first task leaves the
// list, and the last bin needs compaction.min.file-num files unless the compaction is full.
#include "tide/table/append/unaware_append_compact_manager.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

DataFileMeta File(const std::string& name, int64_t size) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = size;
  f.row_count = 1;
  return f;
}

AppendCompactPlanOptions Options() {
  AppendCompactPlanOptions o;
  o.target_file_size = 1000;
  o.compaction_file_size = 700;
  o.open_file_cost = 0;
  o.min_file_num = 3;
  return o;
}

std::vector<std::string> Names(const std::vector<DataFileMeta>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.file_name);
  return out;
}

TEST(UnawareAppendCompactManagerTest, KeepsOnlySmallFiles) {
  UnawareAppendCompactManager m({File("big", 700), File("a", 10)}, nullptr, nullptr, "/nowhere", Options());
  m.AddNewFile(File("b", 20));
  m.AddNewFile(File("huge", 5000));
  EXPECT_EQ(Names(m.to_compact()), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.FileCount(), 2u);
}

TEST(UnawareAppendCompactManagerTest, TheLastBinWaitsForMinFileNumUnlessFull) {
  UnawareAppendCompactManager m({File("a", 30), File("b", 10)}, nullptr, nullptr, "/nowhere", Options());
  EXPECT_TRUE(m.PickCompactBefore(false).empty());
  EXPECT_EQ(m.to_compact().size(), 2u);
  m.AddNewFile(File("c", 20));
  // Smallest first.
  EXPECT_EQ(Names(m.PickCompactBefore(false)), (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_TRUE(m.to_compact().empty());
  m.AddNewFile(File("d", 1));
  m.AddNewFile(File("e", 2));
  EXPECT_TRUE(m.PickCompactBefore(false).empty());
  EXPECT_EQ(Names(m.PickCompactBefore(true)), (std::vector<std::string>{"d", "e"}));
}

TEST(UnawareAppendCompactManagerTest, AFullBinIsTheFirstTaskAndTheRestWaits) {
  // Bins close at twice the target (2000): 600 + 600 + 600 + 600 = 2400 closes after four files.
  UnawareAppendCompactManager m({}, nullptr, nullptr, "/nowhere", Options());
  for (const char* name : {"a", "b", "c", "d", "e"}) m.AddNewFile(File(name, 600));
  EXPECT_EQ(Names(m.PickCompactBefore(false)), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(Names(m.to_compact()), (std::vector<std::string>{"e"}));
}

TEST(UnawareAppendCompactManagerTest, AMergedFileJoinsOnceTheSmallerOnesReachItsSize) {
  UnawareAppendCompactManager m({File("merged", 500), File("a", 10), File("b", 10)}, nullptr, nullptr, "/nowhere",
                                Options());
  // 10 + 10 = 20 < 500: the merged file waits, and two files are fewer than min-file-num (3).
  EXPECT_TRUE(m.PickCompactBefore(false).empty());
  m.AddNewFile(File("c", 10));
  EXPECT_EQ(Names(m.PickCompactBefore(false)), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Names(m.to_compact()), (std::vector<std::string>{"merged"}));
  // 200 + 300 = 500: now the merged file is no larger than the smaller ones together.
  m.AddNewFile(File("d", 300));
  m.AddNewFile(File("e", 200));
  EXPECT_EQ(Names(m.PickCompactBefore(false)), (std::vector<std::string>{"e", "d", "merged"}));
}

TEST(UnawareAppendCompactManagerTest, FilesAtAnExternalPathAreLeftAlone) {
  DataFileMeta external = File("x", 10);
  external.external_path = "s3://bucket/x";
  UnawareAppendCompactManager m({external, File("a", 10)}, nullptr, nullptr, "/nowhere", Options());
  EXPECT_EQ(Names(m.to_compact()), (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace tide
