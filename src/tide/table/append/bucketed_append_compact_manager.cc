#include "tide/table/append/bucketed_append_compact_manager.h"

#include <algorithm>
#include <deque>

#include "tide/base/strings.h"

namespace tide {

BucketedAppendCompactOptions BucketedAppendCompactOptions::Of(const CoreOptions& options) {
  BucketedAppendCompactOptions o;
  o.min_file_num = options.compaction_min_file_num();
  o.target_file_size = options.target_file_size();
  o.compaction_file_size = options.compaction_file_size();
  auto force = options.Find("compaction.force-rewrite-all-files");
  o.force_rewrite_all_files = force && ToLower(std::string(Trim(*force))) == "true";
  return o;
}

BucketedAppendCompactManager::BucketedAppendCompactManager(std::vector<DataFileMeta> restored,
                                                           SerialExecutor* executor, AppendCompactContext* context,
                                                           std::string bucket_dir,
                                                           BucketedAppendCompactOptions options)
    : AppendCompactManager(executor, context, std::move(bucket_dir), options.compaction_file_size), options_(options) {
  for (auto& f : restored) AddNewFile(std::move(f));
}

void BucketedAppendCompactManager::AddNewFile(DataFileMeta file) {
  // After every file of equal or smaller sequence: a priority queue by min sequence number.
  auto at = std::upper_bound(to_compact_.begin(), to_compact_.end(), file.min_sequence_number,
                             [](int64_t seq, const DataFileMeta& f) { return seq < f.min_sequence_number; });
  to_compact_.insert(at, std::move(file));
}

std::optional<std::vector<DataFileMeta>> BucketedAppendCompactManager::PickCompactBefore() {
  // A window over the files, oldest first: it grows by one file at a time, and loses its oldest file
  // whenever its size reaches twice the target; the first window of min-file-num files is picked.
  // Files the window slid past leave to_compact for good, as in Java (they are large enough).
  int64_t total = 0;
  size_t begin = 0;
  std::optional<std::vector<DataFileMeta>> picked;
  size_t end = 0;
  for (; end < to_compact_.size(); ++end) {
    total += to_compact_[end].file_size;
    if (end + 1 - begin >= static_cast<size_t>(std::max(options_.min_file_num, 1))) {
      picked.emplace(to_compact_.begin() + static_cast<ptrdiff_t>(begin),
                     to_compact_.begin() + static_cast<ptrdiff_t>(end + 1));
      ++end;
      break;
    }
    if (total >= options_.target_file_size * 2) total -= to_compact_[begin++].file_size;
  }
  to_compact_.erase(to_compact_.begin(), to_compact_.begin() + static_cast<ptrdiff_t>(picked ? end : begin));
  return picked;
}

std::vector<DataFileMeta> BucketedAppendCompactManager::FullCompactionInputs(
    std::vector<DataFileMeta> files, const BucketedAppendCompactOptions& options) {
  if (options.force_rewrite_all_files) return files;
  // Large files at the head stay as they are.
  size_t head = 0;
  while (head < files.size() && files[head].file_size >= options.compaction_file_size) ++head;
  files.erase(files.begin(), files.begin() + static_cast<ptrdiff_t>(head));
  size_t big = 0, small = 0;
  for (const auto& f : files) (f.file_size >= options.compaction_file_size ? big : small)++;
  if (small > big && files.size() >= kFullCompactMinFiles) return files;
  return {};
}

void BucketedAppendCompactManager::TriggerCompaction(bool full) {
  if (CompactionRunning()) return;
  if (full) {
    if (!options_.force_rewrite_all_files && to_compact_.size() < kFullCompactMinFiles) return;
    if (to_compact_.empty()) return;
    // Every file to compact leaves to_compact, also those the task then leaves as they are (Java's
    // FullCompactTask): this writer does not consider them again.
    compacting_ = std::move(to_compact_);
    to_compact_.clear();
    Submit(FullCompactionInputs(compacting_, options_));
    return;
  }
  std::optional<std::vector<DataFileMeta>> picked = PickCompactBefore();
  if (!picked) return;
  compacting_ = *picked;
  Submit(std::move(*picked));
}

}  // namespace tide
