// The choices of append compaction, file by file as Java makes them: BucketedAppendCompactManager's
// window (pickCompactBefore) and PlanAppendCompaction's bins (AppendCompactCoordinator). The files'
// rewriting is tested through TableWrite (table_write_append_compact_test.cc).

#include "tide/table/append/bucketed_append_compact_manager.h"

#include <gtest/gtest.h>

#include "tide/table/append/append_compact_coordinator.h"

namespace tide {
namespace {

constexpr int64_t kMb = 1024 * 1024;

DataFileMeta File(const std::string& name, int64_t min_seq, int64_t max_seq, int64_t size) {
  DataFileMeta f;
  f.file_name = name;
  f.min_sequence_number = min_seq;
  f.max_sequence_number = max_seq;
  f.file_size = size;
  f.row_count = max_seq - min_seq + 1;
  return f;
}

std::vector<std::string> Names(const std::vector<DataFileMeta>& files) {
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.file_name);
  return names;
}

BucketedAppendCompactOptions Options(int32_t min_file_num, int64_t target) {
  BucketedAppendCompactOptions o;
  o.min_file_num = min_file_num;
  o.target_file_size = target;
  o.compaction_file_size = static_cast<int64_t>(static_cast<double>(target) * 0.7);
  return o;
}

TEST(BucketedAppendCompactManagerTest, PicksTheFirstWindowOfMinFileNumFilesBySequence) {
  // Restored out of order: the manager orders them by min sequence number.
  std::vector<DataFileMeta> files = {File("c", 20, 29, 1 * kMb), File("a", 0, 9, 1 * kMb), File("b", 10, 19, 1 * kMb),
                                     File("d", 30, 39, 1 * kMb)};
  BucketedAppendCompactManager manager(files, nullptr, nullptr, "/nowhere", Options(3, 100 * kMb));
  EXPECT_EQ(Names(manager.to_compact()), (std::vector<std::string>{"a", "b", "c", "d"}));
  auto picked = manager.PickCompactBefore();
  ASSERT_TRUE(picked.has_value());
  EXPECT_EQ(Names(*picked), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Names(manager.to_compact()), (std::vector<std::string>{"d"}));
  // Too few files: nothing, and the file stays.
  EXPECT_FALSE(manager.PickCompactBefore().has_value());
  EXPECT_EQ(Names(manager.to_compact()), (std::vector<std::string>{"d"}));
}

TEST(BucketedAppendCompactManagerTest, TheWindowSlidesPastLargeFilesForGood) {
  // Target 10 MB: a window reaching 20 MB loses its oldest file, which is not considered again.
  std::vector<DataFileMeta> files = {File("big", 0, 9, 19 * kMb), File("s1", 10, 19, 1 * kMb),
                                     File("s2", 20, 29, 1 * kMb), File("s3", 30, 39, 1 * kMb)};
  BucketedAppendCompactManager manager(files, nullptr, nullptr, "/nowhere", Options(3, 10 * kMb));
  auto picked = manager.PickCompactBefore();
  ASSERT_TRUE(picked.has_value());
  EXPECT_EQ(Names(*picked), (std::vector<std::string>{"s1", "s2", "s3"}));
  EXPECT_TRUE(manager.to_compact().empty());

  BucketedAppendCompactManager few({File("big", 0, 9, 19 * kMb), File("s1", 10, 19, 1 * kMb), File("s2", 20, 29, 1 * kMb)},
                                   nullptr, nullptr, "/nowhere", Options(3, 10 * kMb));
  EXPECT_FALSE(few.PickCompactBefore().has_value());
  EXPECT_EQ(Names(few.to_compact()), (std::vector<std::string>{"s1", "s2"}));
}

TEST(AppendCompactCoordinatorTest, PacksSmallFilesBySizeIntoBins) {
  AppendCompactPlanOptions o;
  o.target_file_size = 6 * kMb;
  o.compaction_file_size = static_cast<int64_t>(6 * kMb * 0.7);
  o.open_file_cost = 4 * kMb;
  o.min_file_num = 5;
  // Each small file (under 4.2 MB) weighs its size + 4 MB; a bin is full at 12 MB.
  std::vector<DataFileMeta> files = {File("f3", 0, 0, 3 * kMb), File("large", 0, 0, 7 * kMb), File("f1", 0, 0, 1 * kMb),
                                     File("f2", 0, 0, 2 * kMb), File("f0", 0, 0, 100)};
  auto tasks = PlanAppendCompaction(files, o);
  ASSERT_EQ(tasks.size(), 1u) << "f3 alone is left over: too few files for a last bin";
  EXPECT_EQ(Names(tasks[0]), (std::vector<std::string>{"f0", "f1", "f2"}));  // 100 B + 1 + 2 MB + 12 MB >= 12 MB
}

TEST(AppendCompactCoordinatorTest, TheLastBinNeedsMinFileNumFilesUnlessFull) {
  AppendCompactPlanOptions o;
  o.target_file_size = 256 * kMb;
  o.compaction_file_size = static_cast<int64_t>(256 * kMb * 0.7);
  o.min_file_num = 5;
  std::vector<DataFileMeta> four = {File("a", 0, 0, 10), File("b", 0, 0, 20), File("c", 0, 0, 30), File("d", 0, 0, 40)};
  EXPECT_TRUE(PlanAppendCompaction(four, o).empty());
  four.push_back(File("e", 0, 0, 5));
  auto tasks = PlanAppendCompaction(four, o);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(Names(tasks[0]), (std::vector<std::string>{"e", "a", "b", "c", "d"}));
  o.full = true;
  tasks = PlanAppendCompaction({File("a", 0, 0, 10), File("b", 0, 0, 20)}, o);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].size(), 2u);
  EXPECT_TRUE(PlanAppendCompaction({File("a", 0, 0, 10)}, o).empty());
}

}  // namespace
}  // namespace tide
