// UnawareAppendCompactManager: the compaction of one partition of a bucket-unaware append table
// (`bucket` = -1) beside the writes, as Java's streaming sink does with its AppendCompactCoordinator
// (one coordinator per table planning over every partition, workers rewriting; here each partition's
// writer plans its own partition after each flush).
//
// It keeps the partition's small files (below `target-file-size` x `compaction.small-file-ratio`;
// larger ones are never compacted again, as the coordinator's `shouldCompact`): the live files of the
// latest snapshot when the writer met the partition, then every file the writer flushes. Planning is
// PlanAppendCompaction's packing: smallest first into bins that reach twice `target-file-size` (each
// file counting its size plus `source.split.open-file-cost`), and a last bin of at least
// `compaction.min.file-num` files (with `full`, of at least two). The first task of the plan runs; the
// others wait for the next trigger. A partition thus holds at most min-file-num - 1 small files that
// wait for more, besides those being compacted. (Java also compacts such leftovers of a partition that
// has had no new file for five plans; a writer here closes once its partition goes idle, so leftovers
// wait for the partition's next writes or a `tide compact --full`.)
//
// Rows of a bucket-unaware table have no order to keep: the output's sequence numbers restart at the
// first input's, as Java's compaction counts them.
//
// Thread-safety: as AppendCompactManager.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/table/append/append_compact_coordinator.h"
#include "tide/table/append/append_compact_manager.h"

namespace tide {

class UnawareAppendCompactManager final : public AppendCompactManager {
 public:
  // `executor` and `context` outlive the manager (null `context`: planning alone, for tests);
  // `restored` are the partition's live files; `bucket_dir` its bucket-0 folder. `options.full` is
  // ignored (TriggerCompaction says).
  UnawareAppendCompactManager(std::vector<DataFileMeta> restored, SerialExecutor* executor,
                              AppendCompactContext* context, std::string bucket_dir, AppendCompactPlanOptions options);

  void AddNewFile(DataFileMeta file) override;
  void TriggerCompaction(bool full) override;
  size_t FileCount() const override { return compacting_.size() + to_compact_.size(); }
  // The small files waiting for a compaction, in the order met.
  const std::vector<DataFileMeta>& to_compact() const { return to_compact_; }

  // The first task of a plan over to_compact(), taken out of it; empty when the plan has none.
  std::vector<DataFileMeta> PickCompactBefore(bool full);

 private:
  AppendCompactPlanOptions options_;
  std::vector<DataFileMeta> to_compact_;
};

}  // namespace tide
