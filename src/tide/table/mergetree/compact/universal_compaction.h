// UniversalCompaction: Java's universal compaction strategy (RocksDB's universal style) for the
// sorted runs of one bucket, newest first (Levels::LevelSortedRuns). Pick, in order:
//   0. early full compaction, when `compaction.optimization-interval` has passed since the last full
//      one, or the runs total less than `compaction.total-size-threshold`, or the runs below the max
//      level total more than `compaction.incremental-size-threshold`;
//   1. size amplification: with at least `num-sorted-run.compaction-trigger` runs, when all runs but
//      the oldest exceed `compaction.max-size-amplification-percent` of the oldest, everything goes to
//      the max level;
//   2. size ratio: with at least trigger runs, the newest runs while each next run is no larger than
//      (100 + `compaction.size-ratio`)% of the candidates so far (a run of level > 1 stops it);
//   3. run count: above trigger runs, the newest (count - trigger + 1) runs, then as in 2.
// The output level is the level below the first run not picked (never 0: level-0 runs after the pick
// join it until a run of a higher level), or the max level when every run is picked.
// PickFullCompaction picks every run for the max level (none when only the max level has files).
//
// Thread-safety: one thread at a time (it remembers the last full compaction's time).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tide/table/mergetree/compact/compact_unit.h"
#include "tide/table/mergetree/levels.h"

namespace tide {

struct UniversalCompactionOptions {
  int32_t max_size_amplification_percent = 200;
  int32_t size_ratio = 1;
  int32_t num_run_compaction_trigger = 5;
  std::optional<int64_t> optimization_interval_ms;
  std::optional<int64_t> total_size_threshold;
  std::optional<int64_t> incremental_size_threshold;
  std::function<int64_t()> now_ms;  // the clock of the optimization interval; steady clock when unset
};

class UniversalCompaction {
 public:
  explicit UniversalCompaction(UniversalCompactionOptions options);

  std::optional<CompactUnit> Pick(int32_t num_levels, const std::vector<LevelSortedRun>& runs);
  static std::optional<CompactUnit> PickFullCompaction(int32_t num_levels, const std::vector<LevelSortedRun>& runs);

  // The rules Pick applies, one by one (public for tests).
  std::optional<CompactUnit> PickForSizeAmp(int32_t max_level, const std::vector<LevelSortedRun>& runs);
  std::optional<CompactUnit> PickForSizeRatio(int32_t max_level, const std::vector<LevelSortedRun>& runs,
                                              size_t candidate_count, bool force_pick);
  CompactUnit CreateUnit(const std::vector<LevelSortedRun>& runs, int32_t max_level, size_t run_count);
  // Java's forcePickL0 (lookup tables, ForceUpLevel0Compaction): every level-0 run, extended by the size
  // ratio rule, to the level below the next run; none without level-0 files.
  std::optional<CompactUnit> ForcePickL0(int32_t num_levels, const std::vector<LevelSortedRun>& runs);

 private:
  std::optional<CompactUnit> TryEarlyFullCompaction(int32_t num_levels, const std::vector<LevelSortedRun>& runs);
  void UpdateLastFullCompaction();

  UniversalCompactionOptions options_;
  std::optional<int64_t> last_full_compaction_ms_;
};

}  // namespace tide
