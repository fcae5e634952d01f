#include "tide/table/append/append_compact_manager.h"

#include <chrono>

namespace tide {

AppendCompactManager::AppendCompactManager(SerialExecutor* executor, AppendCompactContext* context,
                                           std::string bucket_dir, int64_t compaction_file_size)
    : executor_(executor),
      context_(context),
      bucket_dir_(std::move(bucket_dir)),
      compaction_file_size_(compaction_file_size) {}

AppendCompactManager::~AppendCompactManager() {
  // A task still running writes files nothing will reference: wait for it and delete them.
  if (task_.valid()) {
    Result<AppendCompactResult> r = task_.get();
    if (r.ok()) {
      for (const auto& f : r->after) context_->fs()->DeleteFile(JoinPath(bucket_dir_, f.file_name)).IgnoreError();
    }
  }
}

void AppendCompactManager::Submit(std::vector<DataFileMeta> inputs) {
  AppendCompactContext* context = context_;
  std::string bucket_dir = bucket_dir_;
  task_ = executor_->Submit<Result<AppendCompactResult>>(
      [inputs = std::move(inputs), context, bucket_dir]() -> Result<AppendCompactResult> {
        AppendCompactResult result;
        if (inputs.empty()) return result;
        TIDE_ASSIGN_OR_RETURN(result.after, RewriteAppendFiles(context, bucket_dir, inputs));
        result.before = inputs;
        return result;
      });
}

Result<std::optional<AppendCompactResult>> AppendCompactManager::GetCompactionResult(bool blocking) {
  if (!task_.valid()) return std::optional<AppendCompactResult>();
  if (!blocking && task_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return std::optional<AppendCompactResult>();
  }
  Result<AppendCompactResult> result = task_.get();
  compacting_.clear();
  if (!result.ok()) return result.status();
  AddCompactOutputs(result->after);
  return std::optional<AppendCompactResult>(std::move(result).value());
}

void AppendCompactManager::AddCompactOutputs(const std::vector<DataFileMeta>& after) {
  // The last output file, when still small, joins a later compaction.
  if (!after.empty() && after.back().file_size < compaction_file_size_) AddNewFile(after.back());
}

}  // namespace tide
