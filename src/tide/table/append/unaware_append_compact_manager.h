// UnawareAppendCompactManager: the compaction of one partition of a bucket-unaware append table
// (`bucket` = -1) beside the writes, as Java's streaming sink does with its AppendCompactCoordinator
// (one coordinator per table planning over every partition, workers rewriting; here each partition's
// writer plans its own partition after each flush).
//
// It keeps the partition's small files (below `target-file-size` x `compaction.small-file-ratio`;
// larger ones are never compacted again, as the coordinator's `shouldCompact`) that live in its own
// folder (not those at an external path): the live files of the latest snapshot when the writer met
// the partition, then every file the writer flushes, and every small output of its compactions. After
// each flush, on the writer's compaction thread, one task at a time:
//   - a full bin of Java's packing (smallest first; a bin of two or more files whose sizes, each plus
//     `source.split.open-file-cost`, reach twice `target-file-size`);
//   - else the smallest files while each (from the third on) is no larger than the ones before it
//     together, once they are `compaction.min.file-num` (default 5) or more. Java's last bin takes every leftover file, so a
//     partition's merged file would be rewritten with every few new ones: quadratic work at a sync's
//     commit rate (a file every 500 ms). With this rule a merged file joins only once the new files
//     together reach its size, so every byte is rewritten about log2(compaction size / commit size)
//     times, and a partition holds a few small files per size class that wait for more.
// Java also merges the leftovers of a partition that had no new file for five plans; a writer here
// closes once its partition is idle, so they wait for its next writes or `tide compact`.
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
  // `full`: the first task of Java's plan with full leftovers (every small file in bins).
  void TriggerCompaction(bool full) override;
  size_t FileCount() const override { return compacting_.size() + to_compact_.size(); }
  // The small files waiting for a compaction, in the order met.
  const std::vector<DataFileMeta>& to_compact() const { return to_compact_; }

  // The next task's files (above), taken out of to_compact(); empty when there is none.
  std::vector<DataFileMeta> PickCompactBefore(bool full);
  // Takes `files` out of to_compact() (a compaction outside this manager rewrites them).
  void Remove(const std::vector<DataFileMeta>& files);

 protected:
  // Every small output may be compacted again (Java's coordinator sees each new small file).
  void AddCompactOutputs(const std::vector<DataFileMeta>& after) override;

 private:
  AppendCompactPlanOptions options_;
  std::vector<DataFileMeta> to_compact_;
};

}  // namespace tide
