#include "tide/table/append/unaware_append_compact_manager.h"

#include <algorithm>
#include <limits>
#include <set>

namespace tide {

UnawareAppendCompactManager::UnawareAppendCompactManager(std::vector<DataFileMeta> restored,
                                                         SerialExecutor* executor, AppendCompactContext* context,
                                                         std::string bucket_dir, AppendCompactPlanOptions options)
    : AppendCompactManager(executor, context, std::move(bucket_dir), options.compaction_file_size),
      options_(options) {
  for (auto& f : restored) AddNewFile(std::move(f));
}

void UnawareAppendCompactManager::AddNewFile(DataFileMeta file) {
  // Files at or above the compaction file size are done: keeping them would only grow this list. A
  // file at an external path is read where the scan finds it, not in this folder: left alone.
  if (file.file_size >= options_.compaction_file_size || file.external_path) return;
  to_compact_.push_back(std::move(file));
}

void UnawareAppendCompactManager::AddCompactOutputs(const std::vector<DataFileMeta>& after) {
  for (const auto& f : after) AddNewFile(f);
}

void UnawareAppendCompactManager::Remove(const std::vector<DataFileMeta>& files) {
  std::set<std::string> names;
  for (const auto& f : files) names.insert(f.file_name);
  to_compact_.erase(std::remove_if(to_compact_.begin(), to_compact_.end(),
                                   [&](const DataFileMeta& f) { return names.count(f.file_name) > 0; }),
                    to_compact_.end());
}

std::vector<DataFileMeta> UnawareAppendCompactManager::PickCompactBefore(bool full) {
  AppendCompactPlanOptions plan = options_;
  plan.full = full;
  if (!full) plan.min_file_num = std::numeric_limits<int32_t>::max();  // full bins only
  std::vector<std::vector<DataFileMeta>> tasks = PlanAppendCompaction(to_compact_, plan);
  std::vector<DataFileMeta> picked;
  if (!tasks.empty()) {
    picked = std::move(tasks.front());
  } else if (!full) {
    std::vector<DataFileMeta> by_size = to_compact_;
    std::stable_sort(by_size.begin(), by_size.end(),
                     [](const DataFileMeta& a, const DataFileMeta& b) { return a.file_size < b.file_size; });
    int64_t together = 0;
    size_t n = 0;
    for (; n < by_size.size(); ++n) {
      if (n >= 2 && by_size[n].file_size > together) break;
      together += by_size[n].file_size;
    }
    if (n < static_cast<size_t>(std::max(options_.min_file_num, 2))) return {};
    picked.assign(by_size.begin(), by_size.begin() + static_cast<ptrdiff_t>(n));
  }
  if (picked.empty()) return {};
  Remove(picked);
  return picked;
}

void UnawareAppendCompactManager::TriggerCompaction(bool full) {
  if (CompactionRunning()) return;
  std::vector<DataFileMeta> inputs = PickCompactBefore(full);
  if (inputs.empty()) return;
  compacting_ = inputs;
  Submit(std::move(inputs));
}

}  // namespace tide
