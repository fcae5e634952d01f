#include "tide/table/manifest/manifest_merger.h"

#include <set>
#include <unordered_set>

#include "tide/base/bytes.h"
#include "tide/codec/binary_row.h"

namespace tide {

Result<bool> ManifestMayContainAny(const SimpleStats& stats, const std::vector<Row>& partitions,
                                   const std::vector<DataType>& partition_types) {
  if (partitions.empty()) return false;
  if (partition_types.empty()) return true;
  auto min = DeserializeBinaryRow(stats.min_values, partition_types);
  auto max = DeserializeBinaryRow(stats.max_values, partition_types);
  if (!min.ok() || !max.ok()) return true;  // stats of another shape: cannot tell
  const bool have_nulls = stats.null_counts_present && stats.null_counts.size() == partition_types.size();
  for (const Row& p : partitions) {
    bool inside = true;
    for (size_t i = 0; i < partition_types.size() && inside; ++i) {
      if (p[i].is_null()) {
        if (have_nulls && stats.null_counts[i] && *stats.null_counts[i] == 0) inside = false;
        continue;
      }
      if (!IsStatsComparable(partition_types[i]) || (*min)[i].is_null() || (*max)[i].is_null()) continue;
      if (JavaCompareValues(p[i], (*min)[i], partition_types[i]) < 0 ||
          JavaCompareValues(p[i], (*max)[i], partition_types[i]) > 0) {
        inside = false;
      }
    }
    if (inside) return true;
  }
  return false;
}

namespace {

// Merges a run of manifests into new ones (MergeCandidates); a run of one stays as it is.
Status MergeRun(const std::vector<ManifestFileMeta>& run, ManifestFileWriter* writer, ManifestMergeResult* result) {
  if (run.size() == 1) {
    result->manifests.push_back(run[0]);
    return Status::OK();
  }
  FileEntryMerger merger;
  for (const auto& m : run) {
    TIDE_ASSIGN_OR_RETURN(auto entries, writer->ReadManifest(m.file_name));
    Status s = merger.AddAll(std::move(entries));
    if (!s.ok()) return Status::Corruption("{} (manifest {})", s.message(), writer->PathOf(m.file_name));
  }
  if (merger.size() == 0) return Status::OK();  // everything cancelled out
  TIDE_ASSIGN_OR_RETURN(auto merged, writer->WriteManifests(merger.TakeEntries()));
  for (auto& m : merged) {
    result->new_files.push_back(m.file_name);
    result->manifests.push_back(std::move(m));
  }
  return Status::OK();
}

Status MinorCompaction(const std::vector<ManifestFileMeta>& input, ManifestFileWriter* writer,
                       const ManifestMergeOptions& options, ManifestMergeResult* result) {
  std::vector<ManifestFileMeta> run;
  int64_t run_size = 0;
  for (const auto& m : input) {
    run_size += m.file_size;
    run.push_back(m);
    if (run_size >= options.target_file_size) {
      TIDE_RETURN_IF_ERROR(MergeRun(run, writer, result));
      run.clear();
      run_size = 0;
    }
  }
  if (static_cast<int64_t>(run.size()) >= options.merge_min_count) {
    TIDE_RETURN_IF_ERROR(MergeRun(run, writer, result));
  } else {
    result->manifests.insert(result->manifests.end(), run.begin(), run.end());
  }
  return Status::OK();
}

// Full compaction (tryFullCompaction); false when it does not apply.
Result<bool> FullCompaction(const std::vector<ManifestFileMeta>& input, ManifestFileWriter* writer,
                            const ManifestMergeOptions& options, ManifestMergeResult* result) {
  auto must_change = [&](const ManifestFileMeta& m) {
    return m.num_deleted_files > 0 || m.file_size < options.target_file_size;
  };
  int64_t delta_size = 0;
  for (const auto& m : input) {
    if (must_change(m)) delta_size += m.file_size;
  }
  if (delta_size < options.full_compaction_threshold_size) return false;

  // 1. Every file identity some manifest deletes.
  std::unordered_set<std::string> deleted;
  std::set<std::string> deleted_partitions;
  for (const auto& m : input) {
    if (m.num_deleted_files == 0) continue;
    TIDE_ASSIGN_OR_RETURN(auto entries, writer->ReadManifest(m.file_name));
    for (const auto& e : entries) {
      if (e.kind != FileKind::kDelete) continue;
      deleted.insert(FileEntryKey(e));
      deleted_partitions.insert(e.partition);
    }
  }

  // 2. Manifests that need no change and hold no partition a DELETE touches stay as they are.
  const auto& types = writer->partition_types();
  std::vector<Row> partitions;
  for (const auto& p : deleted_partitions) {
    TIDE_ASSIGN_OR_RETURN(Row row, DeserializeBinaryRow(p, types));
    partitions.push_back(std::move(row));
  }
  std::vector<ManifestFileMeta> kept;
  std::vector<ManifestFileMeta> to_merge;
  for (const auto& m : input) {
    if (!must_change(m)) {
      bool may_hold_deleted;
      if (deleted.empty()) {
        may_hold_deleted = false;
      } else if (types.empty()) {
        may_hold_deleted = true;
      } else {
        TIDE_ASSIGN_OR_RETURN(may_hold_deleted, ManifestMayContainAny(m.partition_stats, partitions, types));
      }
      if (!may_hold_deleted) {
        kept.push_back(m);
        continue;
      }
    }
    to_merge.push_back(m);
  }
  if (to_merge.size() <= 1) return false;

  // 3. Rewrite the rest without DELETEs and without the ADDs they cancel; a manifest that loses
  //    nothing and needs no change is kept.
  std::vector<ManifestEntry> rewritten;
  for (const auto& m : to_merge) {
    TIDE_ASSIGN_OR_RETURN(auto entries, writer->ReadManifest(m.file_name));
    bool change = must_change(m);
    std::vector<ManifestEntry> live;
    live.reserve(entries.size());
    for (auto& e : entries) {
      if (e.kind == FileKind::kDelete) continue;
      if (deleted.count(FileEntryKey(e))) {
        change = true;
      } else {
        live.push_back(std::move(e));
      }
    }
    if (change) {
      for (auto& e : live) rewritten.push_back(std::move(e));
    } else {
      kept.push_back(m);
    }
  }
  TIDE_ASSIGN_OR_RETURN(auto merged, writer->WriteManifests(rewritten));
  result->manifests = std::move(kept);
  for (auto& m : merged) {
    result->new_files.push_back(m.file_name);
    result->manifests.push_back(std::move(m));
  }
  return true;
}

}  // namespace

Result<ManifestMergeResult> MergeManifests(const std::vector<ManifestFileMeta>& input, ManifestFileWriter* writer,
                                           const ManifestMergeOptions& options) {
  if (options.full_compaction_threshold_size <= 0) {
    return Status::InvalidArgument("manifest.full-compaction-threshold-size must be positive, got {}",
                                   options.full_compaction_threshold_size);
  }
  ManifestMergeResult result;
  auto attempt = [&]() -> Status {
    TIDE_ASSIGN_OR_RETURN(bool full, FullCompaction(input, writer, options, &result));
    if (full) return Status::OK();
    result = ManifestMergeResult();
    return MinorCompaction(input, writer, options, &result);
  };
  Status s = attempt();
  if (!s.ok()) {
    for (const auto& name : result.new_files) writer->DeleteQuietly(name);
    return s;
  }
  return result;
}

}  // namespace tide
