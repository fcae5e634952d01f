// MergeTreeCompactManager: the compaction of one (partition, bucket) of a primary-key table, as Java's
// MergeTreeCompactManager. It keeps the bucket's Levels, asks the strategy for a CompactUnit after each
// flush, and runs at most one compaction task at a time on the writer's compaction thread (a
// SerialExecutor shared by the buckets of one writer, so one compaction runs at a time per writer and
// its memory stays bounded). Results are taken on the writer's thread (GetCompactionResult), which
// applies them to the Levels; the writer hands them to the committer with its next commit.
//
// Deletes are dropped (-U/-D records not written) when the output level is not 0 and no older data
// can remain below it: the output level is at or above the highest non-empty level.
// Write stall: ShouldWaitForLatestCompaction (more sorted runs than `num-sorted-run.stop-trigger`)
// tells the writer to wait for the running task before flushing more; ShouldWaitForPreparingCheckpoint
// (one more than that) to wait before a commit.
//
// Lookup tables (LookupOptions::need_lookup) compact as Java's ForceUpLevel0Compaction: when the
// strategy picks nothing, every level-0 run goes up (with `lookup-compact` gentle, only every Nth
// trigger); the manager keeps the bucket's LookupLevels and, with deletion vectors, its
// BucketedDvMaintainer, both handed to the running task alone (deletes are then always dropped above
// level 0: older rows are marked deleted instead).
//
// Thread-safety: every method on the writer's thread; the task touches only its copy of the unit, the
// CompactionContext (used by the compaction thread alone) and new files.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/base/serial_executor.h"
#include "tide/table/deletionvectors/bucketed_dv_maintainer.h"
#include "tide/table/mergetree/compact/lookup_levels.h"
#include "tide/table/mergetree/compact/merge_tree_compact_rewriter.h"
#include "tide/table/mergetree/compact/universal_compaction.h"
#include "tide/table/mergetree/levels.h"

namespace tide {

class MergeTreeCompactManager {
 public:
  // `executor` and `context` outlive the manager; `bucket_dir` is the bucket's folder; `dv` the bucket's
  // deletion vectors (tables with deletion vectors only).
  MergeTreeCompactManager(Levels levels, SerialExecutor* executor, CompactionContext* context, std::string bucket_dir,
                          std::unique_ptr<BucketedDvMaintainer> dv = nullptr);
  ~MergeTreeCompactManager();
  MergeTreeCompactManager(const MergeTreeCompactManager&) = delete;
  MergeTreeCompactManager& operator=(const MergeTreeCompactManager&) = delete;

  Status AddNewFile(DataFileMeta file) { return levels_.AddLevel0File(std::move(file)); }
  // Adds one flush's files at the max level when no file of the bucket holds a key in their range
  // (Levels::AddAtMaxLevelIfApart, which sets their level); false, nothing added, otherwise.
  Result<bool> AddNewFilesAtMaxLevel(std::vector<DataFileMeta>* files) { return levels_.AddAtMaxLevelIfApart(files); }
  // Submits a compaction if none is running and the strategy (or, when `full`, a full compaction)
  // picks one. REQUIRES for `full`: no task running (wait for it first).
  void TriggerCompaction(bool full);
  // The finished task's result, applied to the levels; nullopt when no task finished (or, with
  // `blocking`, none was running). The task's error, if it failed (its files are deleted).
  Result<std::optional<CompactResult>> GetCompactionResult(bool blocking);
  bool CompactionRunning() const { return task_.valid(); }
  bool ShouldWaitForLatestCompaction() const { return levels_.NumberOfSortedRuns() > stop_trigger_; }
  bool ShouldWaitForPreparingCheckpoint() const {
    return static_cast<int64_t>(levels_.NumberOfSortedRuns()) > static_cast<int64_t>(stop_trigger_) + 1;
  }
  const Levels& levels() const { return levels_; }
  // Compacts with `context` from now on (the table's schema changed; files keep their own schemas and
  // are read by field id). REQUIRES: no task running; `context` outlives the manager.
  void Rebind(CompactionContext* context);
  // The bucket's deletion vectors, or null. REQUIRES for changes: no task running.
  BucketedDvMaintainer* dv() { return dv_.get(); }

 private:
  void Submit(CompactUnit unit, bool drop_delete);

  Levels levels_;
  SerialExecutor* executor_;
  CompactionContext* context_;
  std::string bucket_dir_;
  UniversalCompaction strategy_;
  int32_t stop_trigger_;
  int64_t compaction_file_size_;
  std::future<Result<CompactResult>> task_;
  std::unique_ptr<BucketedDvMaintainer> dv_;
  std::unique_ptr<LookupLevels> lookup_;
  int32_t lookup_triggers_ = 0;  // `lookup-compact` gentle: triggers since level 0 was last forced up
};

}  // namespace tide
