#include "tide/table/append/append_compact_coordinator.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {

Result<AppendCompactPlanOptions> AppendCompactPlanOptions::Of(const CoreOptions& options, bool full) {
  AppendCompactPlanOptions o;
  o.target_file_size = options.target_file_size();
  o.compaction_file_size = options.compaction_file_size();
  o.min_file_num = options.compaction_min_file_num();
  o.full = full;
  if (auto cost = options.Find("source.split.open-file-cost"); cost && !Trim(*cost).empty()) {
    TIDE_ASSIGN_OR_RETURN(o.open_file_cost, ParseMemorySize(*cost, "source.split.open-file-cost"));
  }
  return o;
}

std::vector<std::vector<DataFileMeta>> PlanAppendCompaction(const std::vector<DataFileMeta>& files,
                                                            const AppendCompactPlanOptions& options) {
  std::vector<DataFileMeta> small;
  for (const auto& f : files) {
    if (f.file_size < options.compaction_file_size) small.push_back(f);
  }
  std::stable_sort(small.begin(), small.end(),
                   [](const DataFileMeta& a, const DataFileMeta& b) { return a.file_size < b.file_size; });
  std::vector<std::vector<DataFileMeta>> tasks;
  std::vector<DataFileMeta> bin;
  int64_t bin_size = 0;
  for (auto& f : small) {
    bin_size += f.file_size + options.open_file_cost;
    bin.push_back(std::move(f));
    if (bin.size() > 1 && bin_size >= options.target_file_size * 2) {
      tasks.push_back(std::move(bin));
      bin.clear();
      bin_size = 0;
    }
  }
  if (bin.size() >= static_cast<size_t>(std::max(options.min_file_num, 2)) || (options.full && bin.size() > 1)) {
    tasks.push_back(std::move(bin));
  }
  return tasks;
}

}  // namespace tide
