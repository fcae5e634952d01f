#include "tide/table/mergetree/compact/merge_tree_compact_task.h"

#include <set>
#include <string>

#include "tide/table/mergetree/compact/interval_partition.h"

namespace tide {
namespace {

class Task {
 public:
  Task(const CompactUnit& unit, const MergeTreeCompactTaskOptions& options, CompactRewriter* rewriter)
      : unit_(unit), options_(options), rewriter_(rewriter) {}

  Result<CompactResult> Run() {
    Status s = RunSections();
    if (!s.ok()) {
      // Files already written by earlier sections are referenced by nothing: delete them.
      std::set<std::string> kept;
      for (const auto& f : result_.before) kept.insert(f.file_name);
      for (const auto& f : result_.after) {
        if (!kept.count(f.file_name)) rewriter_->DeleteWritten(f);
      }
      for (const auto& f : result_.changelog) rewriter_->DeleteWritten(f);
      return s;
    }
    return std::move(result_);
  }

 private:
  Status RunSections() {
    std::vector<std::vector<SortedRun>> candidate;
    for (auto& section : PartitionIntervals(unit_.files)) {
      if (section.size() > 1) {
        candidate.push_back(std::move(section));
        continue;
      }
      // One run: large files keep their bytes and move up; small ones are merged with their neighbours.
      for (auto& file : section[0].files) {
        if (file.meta.file_size < options_.compaction_file_size) {
          std::vector<SortedRun> single(1);
          single[0].files.push_back(std::move(file));
          candidate.push_back(std::move(single));
        } else {
          TIDE_RETURN_IF_ERROR(Rewrite(&candidate));
          TIDE_RETURN_IF_ERROR(Upgrade(file));
        }
      }
    }
    return Rewrite(&candidate);
  }

  Status Upgrade(const LevelFile& file) {
    bool has_deletes = !file.meta.delete_row_count || *file.meta.delete_row_count > 0;
    if (unit_.output_level == options_.max_level && has_deletes) {
      // Delete records are dropped at the max level only by rewriting the file.
      std::vector<std::vector<SortedRun>> single(1, std::vector<SortedRun>(1));
      single[0][0].files.push_back(file);
      return RewriteNow(&single);
    }
    if (file.meta.level != unit_.output_level) {
      TIDE_ASSIGN_OR_RETURN(CompactResult r, rewriter_->Upgrade(unit_.output_level, file.meta));
      result_.Merge(std::move(r));
    }
    return Status::OK();
  }

  Status Rewrite(std::vector<std::vector<SortedRun>>* candidate) {
    if (candidate->empty()) return Status::OK();
    if (candidate->size() == 1) {
      std::vector<SortedRun>& section = (*candidate)[0];
      if (section.empty()) {
        candidate->clear();
        return Status::OK();
      }
      if (section.size() == 1) {
        // A single run on its own needs no merge: its files move up (or are rewritten to drop deletes).
        std::vector<LevelFile> files = std::move(section[0].files);
        candidate->clear();
        for (const auto& f : files) TIDE_RETURN_IF_ERROR(Upgrade(f));
        return Status::OK();
      }
    }
    return RewriteNow(candidate);
  }

  Status RewriteNow(std::vector<std::vector<SortedRun>>* candidate) {
    TIDE_ASSIGN_OR_RETURN(CompactResult r, rewriter_->Rewrite(unit_.output_level, options_.drop_delete, *candidate));
    result_.Merge(std::move(r));
    candidate->clear();
    return Status::OK();
  }

  const CompactUnit& unit_;
  const MergeTreeCompactTaskOptions& options_;
  CompactRewriter* rewriter_;
  CompactResult result_;
};

}  // namespace

Result<CompactResult> RunMergeTreeCompactTask(const CompactUnit& unit, const MergeTreeCompactTaskOptions& options,
                                              CompactRewriter* rewriter) {
  if (unit.file_rewrite) {
    // Each file rewritten on its own at the output level (a max-level-only full compaction).
    CompactResult result;
    for (const auto& f : unit.files) {
      std::vector<std::vector<SortedRun>> single(1, std::vector<SortedRun>(1));
      single[0][0].files.push_back(f);
      auto r = rewriter->Rewrite(unit.output_level, options.drop_delete, single);
      if (!r.ok()) {
        for (const auto& written : result.after) rewriter->DeleteWritten(written);
        for (const auto& written : result.changelog) rewriter->DeleteWritten(written);
        return r.status();
      }
      result.Merge(std::move(r).value());
    }
    return result;
  }
  Task task(unit, options, rewriter);
  return task.Run();
}

}  // namespace tide
