#include "tide/table/mergetree/compact/merge_tree_compact_manager.h"

#include <chrono>
#include <set>

#include "tide/base/logging.h"
#include "tide/base/strings.h"

namespace tide {
namespace {

UniversalCompactionOptions StrategyOptions(const CoreOptions& o) {
  UniversalCompactionOptions s;
  s.max_size_amplification_percent = o.compaction_max_size_amplification_percent();
  s.size_ratio = o.compaction_size_ratio();
  s.num_run_compaction_trigger = o.num_sorted_run_compaction_trigger();
  s.optimization_interval_ms = o.compaction_optimization_interval_ms();
  s.total_size_threshold = o.compaction_total_size_threshold();
  s.incremental_size_threshold = o.compaction_incremental_size_threshold();
  return s;
}

}  // namespace

MergeTreeCompactManager::MergeTreeCompactManager(Levels levels, SerialExecutor* executor, CompactionContext* context,
                                                 std::string bucket_dir, std::unique_ptr<BucketedDvMaintainer> dv)
    : levels_(std::move(levels)), executor_(executor), context_(context), bucket_dir_(std::move(bucket_dir)),
      strategy_(StrategyOptions(context->options())),
      stop_trigger_(context->options().num_sorted_run_stop_trigger()),
      compaction_file_size_(context->options().compaction_file_size()), dv_(std::move(dv)) {
  if (context->lookup().need_lookup) {
    lookup_ = std::make_unique<LookupLevels>(context, bucket_dir_, dv_.get(), context->lookup_cache());
  }
}

void MergeTreeCompactManager::Rebind(CompactionContext* context) {
  context_ = context;
  // The lookups read files into the context's schema: they start afresh under the new one.
  if (context->lookup().need_lookup) {
    lookup_ = std::make_unique<LookupLevels>(context, bucket_dir_, dv_.get(), context->lookup_cache());
  }
}

MergeTreeCompactManager::~MergeTreeCompactManager() {
  // A task still running writes files nothing will reference: wait for it and delete them.
  if (task_.valid()) {
    Result<CompactResult> r = task_.get();
    if (r.ok()) {
      std::set<std::string> kept;
      for (const auto& f : r->before) kept.insert(f.file_name);
      for (const auto& f : r->after) {
        if (!kept.count(f.file_name)) context_->fs()->DeleteFile(JoinPath(bucket_dir_, f.file_name)).IgnoreError();
      }
      for (const auto& f : r->changelog) context_->fs()->DeleteFile(JoinPath(bucket_dir_, f.file_name)).IgnoreError();
    }
  }
}

void MergeTreeCompactManager::TriggerCompaction(bool full) {
  if (task_.valid()) return;
  std::vector<LevelSortedRun> runs = levels_.LevelSortedRuns();
  std::optional<CompactUnit> unit;
  if (full) {
    unit = UniversalCompaction::PickFullCompaction(levels_.NumberOfLevels(), runs);
    if (!unit && dv_ && runs.size() == 1 && runs[0].level == levels_.MaxLevel()) {
      // Java's pickFullCompaction: files of the max level that have deletion vectors are rewritten
      // one by one, without their deleted rows.
      CompactUnit rewrite;
      rewrite.output_level = levels_.MaxLevel();
      rewrite.file_rewrite = true;
      for (const auto& f : runs[0].run.files) {
        if (dv_->VectorOf(f.meta.file_name)) rewrite.files.push_back(f);
      }
      if (!rewrite.files.empty()) unit = std::move(rewrite);
    }
  } else {
    unit = strategy_.Pick(levels_.NumberOfLevels(), runs);
    if (!unit && lookup_) {
      // ForceUpLevel0Compaction: level-0 rows are invisible to lookup-table readers until they move up.
      const auto& interval = context_->lookup().gentle_interval;
      if (!interval || ++lookup_triggers_ >= *interval) {
        lookup_triggers_ = 0;
        unit = strategy_.ForcePickL0(levels_.NumberOfLevels(), runs);
      }
    }
    // Nothing to do: no file, or one file already at the output level.
    if (unit && (unit->files.empty() || (unit->files.size() == 1 && unit->files[0].meta.level == unit->output_level))) {
      unit.reset();
    }
  }
  if (!unit) return;
  // No older data can remain below an output at or above the highest non-empty level.
  // With deletion vectors older rows are marked deleted, so deletes are dropped at any level above 0.
  bool drop_delete =
      unit->output_level != 0 && (unit->output_level >= levels_.NonEmptyHighestLevel() || dv_ != nullptr);
  Submit(std::move(*unit), drop_delete);
}

void MergeTreeCompactManager::Submit(CompactUnit unit, bool drop_delete) {
  MergeTreeCompactTaskOptions options;
  options.compaction_file_size = compaction_file_size_;
  options.drop_delete = drop_delete;
  options.max_level = levels_.MaxLevel();
  CompactionContext* context = context_;
  std::string bucket_dir = bucket_dir_;
  // The lookup levels see the levels as they are now: while the task runs only level 0 changes.
  if (lookup_) lookup_->SetRuns(levels_.LevelSortedRuns());
  LookupLevels* lookup = lookup_.get();
  BucketedDvMaintainer* dv = dv_.get();
  const int32_t max_level = levels_.MaxLevel();
  task_ = executor_->Submit<Result<CompactResult>>(
      [unit = std::move(unit), options, context, bucket_dir, max_level, lookup, dv]() -> Result<CompactResult> {
        const auto started = std::chrono::steady_clock::now();
        Result<CompactResult> result = [&]() -> Result<CompactResult> {
          MergeTreeCompactRewriter rewriter(context, bucket_dir, max_level, lookup, dv);
          return RunMergeTreeCompactTask(unit, options, &rewriter);
        }();
        if (result.ok()) {
          // Where compaction time goes (`tide -v`): what each task read and wrote.
          int64_t rows_before = 0, rows_after = 0;
          for (const auto& f : result->before) rows_before += f.row_count;
          for (const auto& f : result->after) rows_after += f.row_count;
          TIDE_LOG_DEBUG("table {}: compacted {} file(s) of {} rows into {} file(s) of {} rows at level {} in {}, {:.1f} ms",
                         context->table_name(), result->before.size(), rows_before, result->after.size(), rows_after,
                         unit.output_level, bucket_dir,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
        }
        // The rewriter and its readers are gone; this serial executor is the database's only user.
        Status forgot = context->write_context()->db.ForgetFiles();
        if (!forgot.ok()) {
          // Only memory is at stake: the compaction's result stands.
          TIDE_LOG_WARN("table {}: emptying DuckDB's map of files read: {}", context->table_name(), forgot.ToString());
        }
        return result;
      });
}

Result<std::optional<CompactResult>> MergeTreeCompactManager::GetCompactionResult(bool blocking) {
  if (!task_.valid()) return std::optional<CompactResult>();
  if (!blocking && task_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return std::optional<CompactResult>();
  }
  Result<CompactResult> result = task_.get();
  if (!result.ok()) return result.status();
  TIDE_RETURN_IF_ERROR(levels_.Update(result->before, result->after));
  return std::optional<CompactResult>(std::move(result).value());
}

}  // namespace tide
