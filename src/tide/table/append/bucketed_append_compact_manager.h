// BucketedAppendCompactManager: the compaction of one (partition, bucket) of a fixed-bucket append
// table, as Java's BucketedAppendCompactManager.
//
// It keeps the bucket's files that may still be compacted (`to_compact`), ordered by
// `_MIN_SEQUENCE_NUMBER`: the live files of the latest snapshot when the writer met the bucket, then
// every file the writer flushes. At most one task runs at a time, on the writer's compaction thread.
//   auto (after each flush): from the oldest file on, a window of files whose sizes sum to less than
//     twice `target-file-size` (the window slides past the oldest file when they reach it, and that file
//     is not considered again); the first window of `compaction.min.file-num` files (default 5) is
//     rewritten into new files;
//   full (`tide compact --full`, Java's FullCompactTask): every file to compact, less the oldest ones
//     at or above the compaction file size (`target-file-size` x `compaction.small-file-ratio`), is
//     rewritten when it holds more small files than large ones and at least 3 files (always with
//     `compaction.force-rewrite-all-files`, which also keeps the large ones).
// The files of a task leave `to_compact`; of its output only the last file goes back, when smaller
// than the compaction file size. The picked files are consecutive by sequence and the output continues
// from the first one's sequence number, so readers, which order a bucket's files by sequence, read the
// rows in write order before and after.
//
// Thread-safety: as AppendCompactManager.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/table/append/append_compact_manager.h"

namespace tide {

struct BucketedAppendCompactOptions {
  int32_t min_file_num = 5;            // compaction.min.file-num
  int64_t target_file_size = 0;        // target-file-size
  int64_t compaction_file_size = 0;    // target-file-size x compaction.small-file-ratio
  bool force_rewrite_all_files = false;  // compaction.force-rewrite-all-files

  static BucketedAppendCompactOptions Of(const CoreOptions& options);
};

class BucketedAppendCompactManager final : public AppendCompactManager {
 public:
  // Java's FULL_COMPACT_MIN_FILE: a full compaction rewrites at least this many files.
  static constexpr size_t kFullCompactMinFiles = 3;

  // `executor` and `context` outlive the manager (null `context`: PickCompactBefore alone, for tests);
  // `restored` are the bucket's live files; `bucket_dir` its folder.
  BucketedAppendCompactManager(std::vector<DataFileMeta> restored, SerialExecutor* executor,
                               AppendCompactContext* context, std::string bucket_dir,
                               BucketedAppendCompactOptions options);

  void AddNewFile(DataFileMeta file) override;
  void TriggerCompaction(bool full) override;
  size_t FileCount() const override { return compacting_.size() + to_compact_.size(); }
  // The files still to compact, oldest first.
  const std::vector<DataFileMeta>& to_compact() const { return to_compact_; }

  // Java's pickCompactBefore: the files of the next auto compaction, taken out of to_compact() with
  // the files the window slid past; none when no window has enough files.
  std::optional<std::vector<DataFileMeta>> PickCompactBefore();

 private:
  // The full compaction task's choice among `files` (oldest first): the files to rewrite, or none.
  static std::vector<DataFileMeta> FullCompactionInputs(std::vector<DataFileMeta> files,
                                                        const BucketedAppendCompactOptions& options);

  BucketedAppendCompactOptions options_;
  std::vector<DataFileMeta> to_compact_;  // sorted by min sequence number (stable)
};

}  // namespace tide
