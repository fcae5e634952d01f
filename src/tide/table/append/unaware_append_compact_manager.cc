#include "tide/table/append/unaware_append_compact_manager.h"

#include <algorithm>
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
  // Files at or above the compaction file size are done: keeping them would only grow this list.
  if (file.file_size >= options_.compaction_file_size) return;
  to_compact_.push_back(std::move(file));
}

std::vector<DataFileMeta> UnawareAppendCompactManager::PickCompactBefore(bool full) {
  AppendCompactPlanOptions plan = options_;
  plan.full = full;
  std::vector<std::vector<DataFileMeta>> tasks = PlanAppendCompaction(to_compact_, plan);
  if (tasks.empty()) return {};
  std::set<std::string> picked;
  for (const auto& f : tasks.front()) picked.insert(f.file_name);
  to_compact_.erase(std::remove_if(to_compact_.begin(), to_compact_.end(),
                                   [&](const DataFileMeta& f) { return picked.count(f.file_name) > 0; }),
                    to_compact_.end());
  return std::move(tasks.front());
}

void UnawareAppendCompactManager::TriggerCompaction(bool full) {
  if (CompactionRunning()) return;
  std::vector<DataFileMeta> inputs = PickCompactBefore(full);
  if (inputs.empty()) return;
  compacting_ = inputs;
  Submit(std::move(inputs));
}

}  // namespace tide
