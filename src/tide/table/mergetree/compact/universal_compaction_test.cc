// UniversalCompaction and PartitionIntervals against the cases of Java's UniversalCompactionTest and
// IntervalPartitionTest: which runs are picked, for which output level.
#include "tide/table/mergetree/compact/universal_compaction.h"

#include <gtest/gtest.h>

#include "tide/table/mergetree/compact/interval_partition.h"

namespace tide {
namespace {

LevelFile File(int32_t level, int64_t size, int64_t min_key = 0, int64_t max_key = 0) {
  LevelFile f;
  f.meta.file_name = "f" + std::to_string(level) + "-" + std::to_string(size) + "-" + std::to_string(min_key);
  f.meta.level = level;
  f.meta.file_size = size;
  f.min_key = Row{Datum(min_key)};
  f.max_key = Row{Datum(max_key)};
  return f;
}

LevelSortedRun SortedRunOf(int32_t level, int64_t size) {
  LevelSortedRun r;
  r.level = level;
  r.run.files.push_back(File(level, size));
  return r;
}

std::vector<LevelSortedRun> Level0(const std::vector<int64_t>& sizes) {
  std::vector<LevelSortedRun> runs;
  for (int64_t s : sizes) runs.push_back(SortedRunOf(0, s));
  return runs;
}

std::vector<int64_t> Sizes(const CompactUnit& unit) {
  std::vector<int64_t> sizes;
  for (const auto& f : unit.files) sizes.push_back(f.meta.file_size);
  return sizes;
}

UniversalCompaction Strategy(int32_t max_size_amp, int32_t size_ratio, int32_t trigger) {
  UniversalCompactionOptions o;
  o.max_size_amplification_percent = max_size_amp;
  o.size_ratio = size_ratio;
  o.num_run_compaction_trigger = trigger;
  return UniversalCompaction(o);
}

TEST(UniversalCompaction, OutputLevelIsBelowTheFirstRunNotPicked) {
  UniversalCompaction c = Strategy(25, 1, 3);
  std::vector<LevelSortedRun> runs = {SortedRunOf(0, 1), SortedRunOf(0, 1), SortedRunOf(1, 1), SortedRunOf(3, 1), SortedRunOf(4, 1)};
  EXPECT_EQ(c.CreateUnit(runs, 5, 1).output_level, 1);
  EXPECT_EQ(c.CreateUnit(runs, 5, 2).output_level, 1);
  EXPECT_EQ(c.CreateUnit(runs, 5, 3).output_level, 2);
  EXPECT_EQ(c.CreateUnit(runs, 5, 4).output_level, 3);
  EXPECT_EQ(c.CreateUnit(runs, 5, 5).output_level, 5);
  // Picking only level-0 runs before another level-0 run pulls the following level-0 runs in.
  EXPECT_EQ(c.CreateUnit(runs, 5, 1).files.size(), 3u);
}

TEST(UniversalCompaction, PicksBySizeAmplificationThenRatioThenRunCount) {
  UniversalCompaction c = Strategy(25, 1, 3);
  auto amp = c.Pick(3, Level0({1, 2, 3, 3}));
  ASSERT_TRUE(amp);
  EXPECT_EQ(Sizes(*amp), (std::vector<int64_t>{1, 2, 3, 3}));
  EXPECT_EQ(amp->output_level, 2);

  auto ratio = c.Pick(4, {SortedRunOf(0, 1), SortedRunOf(1, 1), SortedRunOf(2, 1), SortedRunOf(3, 50)});
  ASSERT_TRUE(ratio);
  EXPECT_EQ(Sizes(*ratio), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ratio->output_level, 2);

  auto count = c.Pick(4, {SortedRunOf(0, 1), SortedRunOf(1, 2), SortedRunOf(2, 3), SortedRunOf(3, 50)});
  ASSERT_TRUE(count);
  EXPECT_EQ(Sizes(*count), (std::vector<int64_t>{1, 2, 3}));

  // Below the trigger nothing is picked.
  EXPECT_FALSE(c.Pick(4, {SortedRunOf(0, 1), SortedRunOf(3, 50)}));
}

TEST(UniversalCompaction, SizeRatioPullsInTheNextLevelWhenLargeEnough) {
  // The run count picks the two level-0 runs; with level 1 they are large enough for level 2 too.
  UniversalCompaction c = Strategy(200, 1, 3);
  auto unit = c.Pick(3, {SortedRunOf(0, 10), SortedRunOf(0, 20), SortedRunOf(1, 97), SortedRunOf(2, 100)});
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->files.size(), 4u);
  EXPECT_EQ(unit->output_level, 2);
}

// Prepends a new run of size 1, then collapses what the rule picks into one run, as the writer would.
// The size-amplification sequence has every run at level 0; the size-ratio one has run i at level i
// (as Java's test builds them), so that the ratio rule stops at a run above level 1.
std::vector<int64_t> AppendAndPick(UniversalCompaction* c, std::vector<int64_t> sizes, bool amp) {
  sizes.insert(sizes.begin(), 1);
  std::vector<LevelSortedRun> runs;
  for (size_t i = 0; i < sizes.size(); ++i) runs.push_back(SortedRunOf(amp ? 0 : static_cast<int32_t>(i), sizes[i]));
  std::optional<CompactUnit> unit;
  if (amp) {
    unit = c->PickForSizeAmp(3, runs);
  } else if (runs.size() >= 5) {  // the rule needs `trigger` runs
    unit = c->PickForSizeRatio(static_cast<int32_t>(sizes.size()), runs, 1, false);
  }
  if (!unit) return sizes;
  int64_t sum = 0;
  for (int64_t s : Sizes(*unit)) sum += s;
  std::vector<int64_t> out = {sum};
  out.insert(out.end(), sizes.begin() + static_cast<ptrdiff_t>(unit->files.size()), sizes.end());
  return out;
}

TEST(UniversalCompaction, SizeAmplificationSequence) {
  UniversalCompaction c = Strategy(25, 0, 1);
  std::vector<int64_t> sizes = {1};
  const std::vector<std::vector<int64_t>> expected = {{2}, {3}, {4}, {1, 4}, {6}, {1, 6}, {8}, {1, 8}, {1, 1, 8},
                                                      {11}, {1, 11}, {1, 1, 11}, {14}, {1, 14}, {1, 1, 14},
                                                      {1, 1, 1, 14}, {18}};
  for (size_t i = 0; i < expected.size(); ++i) {
    sizes = AppendAndPick(&c, sizes, /*amp=*/true);
    ASSERT_EQ(sizes, expected[i]) << "step " << i;
  }
}

TEST(UniversalCompaction, SizeRatioSequence) {
  UniversalCompaction c = Strategy(25, 1, 5);
  std::vector<int64_t> sizes = {1, 1, 1, 1};
  const std::vector<std::vector<int64_t>> expected = {
      {5},          {1, 5},       {1, 1, 5},    {1, 1, 1, 5}, {4, 5},       {1, 4, 5},   {1, 1, 4, 5},
      {3, 4, 5},    {1, 3, 4, 5}, {2, 3, 4, 5}, {1, 2, 3, 4, 5}, {16},     {1, 16},     {1, 1, 16},
      {1, 1, 1, 16}, {4, 16},     {1, 4, 16},   {1, 1, 4, 16}, {3, 4, 16}, {1, 3, 4, 16}};
  for (size_t i = 0; i < expected.size(); ++i) {
    sizes = AppendAndPick(&c, sizes, /*amp=*/false);
    ASSERT_EQ(sizes, expected[i]) << "step " << i;
  }
}

TEST(UniversalCompaction, FullCompactionPicksEverythingUnlessOneTopRun) {
  auto full = UniversalCompaction::PickFullCompaction(4, {SortedRunOf(0, 1), SortedRunOf(2, 5)});
  ASSERT_TRUE(full);
  EXPECT_EQ(full->output_level, 3);
  EXPECT_EQ(full->files.size(), 2u);
  EXPECT_FALSE(UniversalCompaction::PickFullCompaction(4, {SortedRunOf(3, 5)}));
  EXPECT_FALSE(UniversalCompaction::PickFullCompaction(4, {}));
}

TEST(UniversalCompaction, EarlyFullCompactionByTotalSize) {
  UniversalCompactionOptions o;
  o.num_run_compaction_trigger = 10;
  o.total_size_threshold = 100;
  UniversalCompaction c(o);
  auto unit = c.Pick(4, {SortedRunOf(0, 10), SortedRunOf(1, 20)});
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 3);
  EXPECT_FALSE(c.Pick(4, {SortedRunOf(0, 60), SortedRunOf(1, 60)}));
}

TEST(IntervalPartition, SectionsDoNotOverlapAndRunsAreFewest) {
  // [1,3] [2,5] [6,7] [8,10] [9,12]: sections {[1,3],[2,5]} {[6,7]} {[8,10],[9,12]}.
  std::vector<LevelFile> files = {File(0, 1, 9, 12), File(0, 1, 1, 3), File(0, 1, 6, 7), File(0, 1, 2, 5),
                                  File(0, 1, 8, 10)};
  auto sections = PartitionIntervals(files);
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0].size(), 2u);
  EXPECT_EQ(sections[1].size(), 1u);
  EXPECT_EQ(sections[2].size(), 2u);
  // Files that follow one another without overlap form one run.
  auto one = PartitionIntervals({File(0, 1, 1, 2), File(0, 1, 1, 5), File(0, 1, 3, 4), File(0, 1, 5, 6)});
  ASSERT_EQ(one.size(), 1u);
  size_t files_in_runs = 0;
  for (const auto& run : one[0]) {
    files_in_runs += run.files.size();
    for (size_t i = 1; i < run.files.size(); ++i) {
      EXPECT_GT(CompareRows(run.files[i].min_key, run.files[i - 1].max_key), 0);
    }
  }
  EXPECT_EQ(files_in_runs, 4u);
  EXPECT_EQ(one[0].size(), 2u);  // [1,2] [3,4] [5,6] and [1,5]
}

}  // namespace
}  // namespace tide
