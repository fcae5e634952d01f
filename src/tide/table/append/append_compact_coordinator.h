// PlanAppendCompaction: which files of one partition of a bucket-unaware append table (`bucket` = -1)
// a compaction merges, as Java's AppendCompactCoordinator plans a batch compaction job (Flink's or
// Spark's compact procedure) for one partition.
//
// Only files smaller than the compaction file size (`target-file-size` x `compaction.small-file-ratio`)
// take part. Sorted by size, smallest first, they fill bins: each file adds its size plus
// `source.split.open-file-cost` (default 4 MB); a bin of two or more files whose total reaches twice
// `target-file-size` is a task; the last bin is a task when it holds at least `compaction.min.file-num`
// files. With `full` the files left over after that, when more than one, form one more task (what
// Java's streaming coordinator does with a partition's leftovers after a few plans).
//
// Each task is rewritten by RewriteAppendFiles in that order (rows of bucket-unaware tables have no
// order to keep). Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/data_file_meta.h"
#include "tide/table/schema/core_options.h"

namespace tide {

struct AppendCompactPlanOptions {
  int64_t target_file_size = 0;
  int64_t compaction_file_size = 0;
  int64_t open_file_cost = 4LL * 1024 * 1024;  // source.split.open-file-cost
  int32_t min_file_num = 5;
  bool full = false;

  // The options of `options`' table; InvalidArgument for a malformed `source.split.open-file-cost`.
  static Result<AppendCompactPlanOptions> Of(const CoreOptions& options, bool full);
};

// The tasks (each two or more files) among `files`, the live files of one partition.
std::vector<std::vector<DataFileMeta>> PlanAppendCompaction(const std::vector<DataFileMeta>& files,
                                                            const AppendCompactPlanOptions& options);

}  // namespace tide
