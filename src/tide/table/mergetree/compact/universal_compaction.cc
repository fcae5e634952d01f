#include "tide/table/mergetree/compact/universal_compaction.h"

#include <chrono>

namespace tide {

UniversalCompaction::UniversalCompaction(UniversalCompactionOptions options) : options_(std::move(options)) {
  if (!options_.now_ms) {
    options_.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

std::optional<CompactUnit> UniversalCompaction::Pick(int32_t num_levels, const std::vector<LevelSortedRun>& runs) {
  const int32_t max_level = num_levels - 1;
  if (auto unit = TryEarlyFullCompaction(num_levels, runs)) return unit;
  if (auto unit = PickForSizeAmp(max_level, runs)) return unit;
  const size_t trigger = static_cast<size_t>(options_.num_run_compaction_trigger);
  if (runs.size() >= trigger) {
    if (auto unit = PickForSizeRatio(max_level, runs, 1, false)) return unit;
  }
  if (runs.size() > trigger) return PickForSizeRatio(max_level, runs, runs.size() - trigger + 1, false);
  return std::nullopt;
}

std::optional<CompactUnit> UniversalCompaction::PickFullCompaction(int32_t num_levels,
                                                                    const std::vector<LevelSortedRun>& runs) {
  const int32_t max_level = num_levels - 1;
  if (runs.empty()) return std::nullopt;
  if (runs.size() == 1 && runs[0].level == max_level) return std::nullopt;  // already one run at the top
  return CompactUnit::FromLevelRuns(max_level, runs, runs.size());
}

std::optional<CompactUnit> UniversalCompaction::TryEarlyFullCompaction(int32_t num_levels,
                                                                        const std::vector<LevelSortedRun>& runs) {
  if (runs.size() <= 1) return std::nullopt;
  const int32_t max_level = num_levels - 1;
  auto full = [&]() {
    UpdateLastFullCompaction();
    return std::optional<CompactUnit>(CompactUnit::FromLevelRuns(max_level, runs, runs.size()));
  };
  if (options_.optimization_interval_ms) {
    if (!last_full_compaction_ms_ || options_.now_ms() - *last_full_compaction_ms_ > *options_.optimization_interval_ms) {
      return full();
    }
  }
  if (options_.total_size_threshold) {
    int64_t total = 0;
    for (const auto& r : runs) total += r.run.TotalSize();
    if (total < *options_.total_size_threshold) return full();
  }
  if (options_.incremental_size_threshold) {
    int64_t incremental = 0;
    for (const auto& r : runs) {
      if (r.level != max_level) incremental += r.run.TotalSize();
    }
    if (incremental > *options_.incremental_size_threshold) return full();
  }
  return std::nullopt;
}

std::optional<CompactUnit> UniversalCompaction::PickForSizeAmp(int32_t max_level,
                                                                const std::vector<LevelSortedRun>& runs) {
  if (runs.size() < static_cast<size_t>(options_.num_run_compaction_trigger)) return std::nullopt;
  int64_t candidate_size = 0;
  for (size_t i = 0; i + 1 < runs.size(); ++i) candidate_size += runs[i].run.TotalSize();
  int64_t earliest_size = runs.back().run.TotalSize();
  // Size amplification: the percentage of additional size over the oldest run.
  if (candidate_size * 100 > static_cast<int64_t>(options_.max_size_amplification_percent) * earliest_size) {
    UpdateLastFullCompaction();
    return CompactUnit::FromLevelRuns(max_level, runs, runs.size());
  }
  return std::nullopt;
}

std::optional<CompactUnit> UniversalCompaction::PickForSizeRatio(int32_t max_level,
                                                                  const std::vector<LevelSortedRun>& runs,
                                                                  size_t candidate_count, bool force_pick) {
  int64_t candidate_size = 0;
  for (size_t i = 0; i < candidate_count && i < runs.size(); ++i) candidate_size += runs[i].run.TotalSize();
  bool triggered = force_pick || candidate_count > 1;
  for (size_t i = candidate_count; i < runs.size(); ++i) {
    const LevelSortedRun& next = runs[i];
    if (static_cast<double>(candidate_size) * (100.0 + options_.size_ratio) / 100.0 <
        static_cast<double>(next.run.TotalSize())) {
      if (!triggered || next.level > 1) break;
    }
    candidate_size += next.run.TotalSize();
    ++candidate_count;
    triggered = true;
  }
  if (!triggered) return std::nullopt;
  return CreateUnit(runs, max_level, candidate_count);
}

std::optional<CompactUnit> UniversalCompaction::ForcePickL0(int32_t num_levels,
                                                             const std::vector<LevelSortedRun>& runs) {
  size_t count = 0;
  while (count < runs.size() && runs[count].level == 0) ++count;
  if (count == 0) return std::nullopt;
  return PickForSizeRatio(num_levels - 1, runs, count, true);
}

CompactUnit UniversalCompaction::CreateUnit(const std::vector<LevelSortedRun>& runs, int32_t max_level,
                                            size_t run_count) {
  int32_t output_level;
  if (run_count == runs.size()) {
    output_level = max_level;
  } else {
    output_level = std::max(0, runs[run_count].level - 1);  // the level below the next run
  }
  if (output_level == 0) {
    // Never output level 0: level-0 runs after the pick join it until a run of a higher level.
    for (size_t i = run_count; i < runs.size(); ++i) {
      ++run_count;
      if (runs[i].level != 0) {
        output_level = runs[i].level;
        break;
      }
    }
  }
  if (run_count == runs.size()) {
    UpdateLastFullCompaction();
    output_level = max_level;
  }
  return CompactUnit::FromLevelRuns(output_level, runs, run_count);
}

void UniversalCompaction::UpdateLastFullCompaction() { last_full_compaction_ms_ = options_.now_ms(); }

}  // namespace tide
