// AppendCompactManager: the compaction beside the writes of one writer of an append (no primary key)
// table: which of its files to merge is the subclass's choice (BucketedAppendCompactManager for a fixed
// bucket, UnawareAppendCompactManager for a partition of a bucket-unaware table); running the task on
// the writer's compaction thread and handing its result back is shared here.
//
// At most one task runs at a time. Its inputs leave the files to compact when it starts; of its
// output what the subclass takes back (AddCompactOutputs) may be compacted again. A manager destroyed
// while its task runs waits for it and deletes the files it wrote (nothing references them).
//
// Thread-safety: every method on the writer's thread; the task touches only its own copy of the files,
// the AppendCompactContext (used by the compaction thread alone) and new files.
#pragma once

#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/base/serial_executor.h"
#include "tide/table/append/append_compact_rewriter.h"
#include "tide/table/io/data_file_meta.h"

namespace tide {

struct AppendCompactResult {
  std::vector<DataFileMeta> before;  // replaced
  std::vector<DataFileMeta> after;   // written
};

class AppendCompactManager {
 public:
  virtual ~AppendCompactManager();
  AppendCompactManager(const AppendCompactManager&) = delete;
  AppendCompactManager& operator=(const AppendCompactManager&) = delete;

  // A file the writer flushed (or a compaction's small output): a candidate for the next task.
  virtual void AddNewFile(DataFileMeta file) = 0;
  // Submits a compaction when none is running and there is work (a full one with `full`).
  // REQUIRES for `full`: no task running (wait for it first).
  virtual void TriggerCompaction(bool full) = 0;
  // The files still to compact, and those being compacted.
  virtual size_t FileCount() const = 0;

  // The finished task's result; nullopt when none finished (or, with `blocking`, none was running).
  // The task's error, if it failed (its files are deleted).
  Result<std::optional<AppendCompactResult>> GetCompactionResult(bool blocking);
  bool CompactionRunning() const { return task_.valid(); }
  // Compacts with `context` from now on (the table's schema changed). REQUIRES: no task running;
  // `context` outlives the manager.
  void Rebind(AppendCompactContext* context) { context_ = context; }

 protected:
  // `executor` and `context` outlive the manager (null `context`: planning alone, for tests);
  // `bucket_dir` is the folder of the files.
  AppendCompactManager(SerialExecutor* executor, AppendCompactContext* context, std::string bucket_dir,
                       int64_t compaction_file_size);
  // Runs a task rewriting `inputs` (in this order); `compacting_` must hold the files it takes.
  void Submit(std::vector<DataFileMeta> inputs);
  // Takes back what of a finished task's output may be compacted again: by default its last file,
  // when below the compaction file size (Java's fixed-bucket rule).
  virtual void AddCompactOutputs(const std::vector<DataFileMeta>& after);

  std::vector<DataFileMeta> compacting_;

 private:
  SerialExecutor* executor_;
  AppendCompactContext* context_;
  std::string bucket_dir_;
  int64_t compaction_file_size_;
  std::future<Result<AppendCompactResult>> task_;
};

}  // namespace tide
