// MergeTreeCompactTask: carries out one CompactUnit of a primary-key bucket, Java's MergeTreeCompactTask.
// The unit's files are split into sections (PartitionIntervals). A section of several runs is merged;
// a section of one run is walked file by file: files smaller than `compaction_file_size` join the
// pending merge, a large file first flushes the pending merge and is then upgraded to the output
// level without rewriting (only its level changes), unless it goes to the max level with delete
// records in it (those are dropped only by a rewrite). `drop_delete` (the output is the oldest data of
// the bucket) drops -U/-D records from what is rewritten.
//
// CompactRewriter does the file work: Rewrite merges sections into new files of the output level,
// Upgrade moves a file to another level. Thread-safety: a task runs on one thread; the rewriter it
// uses must not be shared by tasks running at the same time. A task that fails deletes the files it
// wrote before the failure, so it leaves nothing behind.
#pragma once

#include <cstdint>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/mergetree/compact/compact_unit.h"

namespace tide {

class CompactRewriter {
 public:
  virtual ~CompactRewriter() = default;
  virtual Result<CompactResult> Rewrite(int32_t output_level, bool drop_delete,
                                        const std::vector<std::vector<SortedRun>>& sections) = 0;
  virtual Result<CompactResult> Upgrade(int32_t output_level, const DataFileMeta& file) = 0;
  // Deletes a file a Rewrite wrote (the task failed after it; nothing references the file).
  virtual void DeleteWritten(const DataFileMeta& file) = 0;
};

struct MergeTreeCompactTaskOptions {
  int64_t compaction_file_size = 0;  // files below it are rewritten, not upgraded
  bool drop_delete = false;
  int32_t max_level = 0;
};

Result<CompactResult> RunMergeTreeCompactTask(const CompactUnit& unit, const MergeTreeCompactTaskOptions& options,
                                              CompactRewriter* rewriter);

}  // namespace tide
