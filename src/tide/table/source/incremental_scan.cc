#include "tide/table/source/incremental_scan.h"

#include <map>
#include <set>
#include <utility>

#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/manifest/manifest.h"

namespace tide {

std::string_view ChangeScanModeName(ChangeScanMode mode) {
  return mode == ChangeScanMode::kDelta ? "delta" : "changelog";
}

Result<ChangeScanMode> ResolveChangeScanMode(const CoreOptions& options, std::string_view mode,
                                             const std::string& table_name) {
  std::string m = ToLower(Trim(mode));
  if (m.empty() || m == "auto") {
    return options.changelog_producer() == ChangelogProducer::kNone ? ChangeScanMode::kDelta
                                                                    : ChangeScanMode::kChangelog;
  }
  if (m == "delta") return ChangeScanMode::kDelta;
  if (m == "changelog") return ChangeScanMode::kChangelog;
  if (m == "diff") {
    return Status::InvalidArgument(
        "table {}: incremental-between-scan-mode 'diff' compares two snapshots; it is for incremental_between "
        "reads only",
        table_name);
  }
  return Status::InvalidArgument("table {}: incremental-between-scan-mode '{}' is not one of auto, delta, changelog, diff",
                                 table_name, mode);
}

bool IsDiffScanMode(std::string_view mode) { return ToLower(Trim(mode)) == "diff"; }

namespace {

Result<std::pair<std::string, std::string>> SplitPair(std::string_view text, std::string_view what,
                                                      const std::string& table_name) {
  std::vector<std::string> parts = Split(text, ',');
  if (parts.size() != 2) {
    return Status::InvalidArgument("table {}: {} '{}' must be two values 'start,end' (start exclusive, end inclusive)",
                                   table_name, what, text);
  }
  return std::make_pair(std::string(Trim(parts[0])), std::string(Trim(parts[1])));
}

}  // namespace

Result<SnapshotRange> ResolveBetweenSnapshotIds(const SnapshotManager& snapshots, std::string_view text,
                                                const std::string& table_name) {
  TIDE_ASSIGN_OR_RETURN(auto pair, SplitPair(text, "incremental_between", table_name));
  auto start = ParseInt64(pair.first, "start snapshot id");
  auto end = ParseInt64(pair.second, "end snapshot id");
  if (!start.ok() || !end.ok()) {
    return Status::InvalidArgument(
        "table {}: incremental_between '{}' is neither two tags nor two snapshot ids: give 'S1,S2' (snapshot ids) or "
        "'TAG1,TAG2' (names of existing tags)",
        table_name, text);
  }
  if (*end < *start) {
    return Status::InvalidArgument("table {}: incremental_between '{}': the end snapshot {} is before the start {}",
                                   table_name, text, *end, *start);
  }
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!earliest || !latest || *start == *end) return SnapshotRange{*start, *start};
  if (*start < *earliest - 1 || *end > *latest) {
    return Status::InvalidArgument(
        "table {}: incremental_between '{}' is outside the snapshots that exist: the start may be {} to {}, the end "
        "at most {}",
        table_name, text, *earliest - 1, *latest, *latest);
  }
  return SnapshotRange{*start, *end};
}

Result<std::optional<TagPair>> ResolveBetweenTags(const SnapshotManager& snapshots, std::string_view text,
                                                  const std::string& table_name) {
  TIDE_ASSIGN_OR_RETURN(auto pair, SplitPair(text, "incremental_between", table_name));
  TagPair tags;
  tags.start_name = pair.first;
  tags.end_name = pair.second;
  for (auto [name, snapshot] : {std::pair{&tags.start_name, &tags.start}, std::pair{&tags.end_name, &tags.end}}) {
    // A name that cannot be a tag file's name (empty, with '/') is no tag.
    if (name->empty() || name->find('/') != std::string::npos) return std::optional<TagPair>();
    auto tagged = snapshots.Tag(*name);
    if (!tagged.ok()) {
      if (tagged.status().IsNotFound()) return std::optional<TagPair>();
      return tagged.status().WithContext(fmt::format("table {}: tag '{}'", table_name, *name));
    }
    *snapshot = std::move(tagged).value();
  }
  return std::optional<TagPair>(std::move(tags));
}

Result<SnapshotRange> ResolveBetweenTimestamps(const SnapshotManager& snapshots, std::string_view text,
                                               const std::string& table_name) {
  TIDE_ASSIGN_OR_RETURN(auto pair, SplitPair(text, "incremental_between_timestamp", table_name));
  auto start = ParseInt64(pair.first, "start timestamp");
  auto end = ParseInt64(pair.second, "end timestamp");
  if (!start.ok() || !end.ok()) {
    return Status::InvalidArgument(
        "table {}: incremental_between_timestamp '{}' must be two epoch-millisecond times 'T1,T2'", table_name, text);
  }
  if (*end < *start) {
    return Status::InvalidArgument("table {}: incremental_between_timestamp '{}': the end is before the start",
                                   table_name, text);
  }
  TIDE_ASSIGN_OR_RETURN(auto earliest_id, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest_id, snapshots.LatestId());
  if (!earliest_id || !latest_id) return SnapshotRange{};
  TIDE_ASSIGN_OR_RETURN(Snapshot earliest, snapshots.Get(*earliest_id));
  TIDE_ASSIGN_OR_RETURN(Snapshot latest, snapshots.Get(*latest_id));
  if (*start == *end || *start > latest.time_millis || *end < earliest.time_millis) return SnapshotRange{};
  int64_t start_id = earliest.id - 1;
  if (earliest.time_millis <= *start) {
    auto at = snapshots.AtOrBefore(*start);
    if (at.ok()) {
      start_id = at->id;
    } else if (!at.status().IsNotFound()) {
      return at.status();
    }
  }
  int64_t end_id = latest.id;
  auto at_end = snapshots.AtOrBefore(*end);
  if (at_end.ok()) {
    end_id = at_end->id;
  } else if (!at_end.status().IsNotFound()) {
    return at_end.status();
  }
  return SnapshotRange{start_id, end_id};
}

IncrementalScan::IncrementalScan(FileSystem* fs, std::string table_path, std::string metadata_path,
                                 std::string table_name, const TableSchema& schema)
    : fs_(fs), table_path_(std::move(table_path)), metadata_path_(std::move(metadata_path)),
      table_name_(std::move(table_name)), schema_(schema) {}

Result<std::vector<DataSplit>> IncrementalScan::GroupAdded(const std::string& manifest_list,
                                                           int64_t snapshot_id) const {
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema_, table_name_));
  FileStorePathFactory paths(table_path_, schema_, options);
  std::vector<DataType> partition_types;
  for (const auto& key : schema_.partition_keys) {
    partition_types.push_back(schema_.fields[static_cast<size_t>(schema_.FieldIndex(key))].type);
  }
  std::string manifest_dir = JoinPath(table_path_, "manifest");
  TIDE_ASSIGN_OR_RETURN(auto metas, ReadManifestList(fs_, JoinPath(manifest_dir, manifest_list)));
  // Splits in the order their (partition, bucket) first appears; files in manifest order.
  std::vector<DataSplit> splits;
  std::map<std::pair<std::string, int32_t>, size_t> index;
  for (const ManifestFileMeta& meta : metas) {
    std::string path = JoinPath(manifest_dir, meta.file_name);
    TIDE_ASSIGN_OR_RETURN(auto entries, ReadManifest(fs_, path));
    for (ManifestEntry& e : entries) {
      if (e.kind != FileKind::kAdd) {
        return Status::Corruption("table {}: snapshot {}: manifest {} of a delta or changelog lists a DELETE of {}",
                                  table_name_, snapshot_id, path, e.file.file_name);
      }
      auto key = std::make_pair(e.partition, e.bucket);
      auto it = index.find(key);
      if (it == index.end()) {
        DataSplit split;
        split.partition = e.partition;
        auto values = DeserializeBinaryRow(e.partition, partition_types);
        if (!values.ok()) {
          return values.status().WithContext(
              fmt::format("table {}: partition of data file {}", table_name_, e.file.file_name));
        }
        split.partition_values = std::move(values).value();
        split.bucket = e.bucket;
        split.total_buckets = e.total_buckets;
        TIDE_ASSIGN_OR_RETURN(std::string partition_path, paths.PartitionPath(split.partition_values));
        split.bucket_path = FileStorePathFactory::BucketPath(partition_path, e.bucket);
        it = index.emplace(key, splits.size()).first;
        splits.push_back(std::move(split));
      }
      splits[it->second].files.push_back(std::move(e.file));
    }
  }
  return splits;
}

Result<SnapshotChanges> IncrementalScan::PlanSnapshot(const Snapshot& snapshot, ChangeScanMode mode) const {
  SnapshotChanges changes;
  changes.snapshot_id = snapshot.id;
  changes.commit_kind = snapshot.commit_kind;
  if (mode == ChangeScanMode::kDelta) {
    if (snapshot.commit_kind != CommitKind::kAppend) return changes;
    TIDE_ASSIGN_OR_RETURN(changes.splits, GroupAdded(snapshot.delta_manifest_list, snapshot.id));
  } else {
    if (snapshot.commit_kind == CommitKind::kOverwrite || !snapshot.changelog_manifest_list) return changes;
    TIDE_ASSIGN_OR_RETURN(changes.splits, GroupAdded(*snapshot.changelog_manifest_list, snapshot.id));
  }
  return changes;
}

Result<SnapshotChanges> IncrementalScan::PlanDiff(const Snapshot& before, const Snapshot& after) const {
  FileStoreScan scan(fs_, table_path_, table_name_, schema_);
  auto planned_before = scan.Plan(before);
  if (!planned_before.ok()) {
    return planned_before.status().WithContext(fmt::format("table {}, snapshot {}", table_name_, before.id));
  }
  auto planned_after = scan.Plan(after);
  if (!planned_after.ok()) {
    return planned_after.status().WithContext(fmt::format("table {}, snapshot {}", table_name_, after.id));
  }
  std::map<std::pair<std::string, int32_t>, size_t> old_by_bucket;
  for (size_t i = 0; i < planned_before->size(); ++i) {
    const DataSplit& split = (*planned_before)[i];
    old_by_bucket.emplace(std::make_pair(split.partition, split.bucket), i);
  }
  std::vector<bool> old_matched(planned_before->size(), false);
  SnapshotChanges changes;
  changes.snapshot_id = after.id;
  changes.commit_kind = after.commit_kind;
  // Keeps, of each side, the files the other side does not hold.
  auto without_shared = [](DataSplit* left, DataSplit* right) {
    std::set<std::string> left_names, right_names;
    for (const DataFileMeta& f : left->files) left_names.insert(f.file_name);
    for (const DataFileMeta& f : right->files) right_names.insert(f.file_name);
    std::erase_if(left->files, [&](const DataFileMeta& f) { return right_names.count(f.file_name) > 0; });
    std::erase_if(right->files, [&](const DataFileMeta& f) { return left_names.count(f.file_name) > 0; });
  };
  // A split of the same bucket without files.
  auto empty_like = [](const DataSplit& split) {
    DataSplit empty;
    empty.partition = split.partition;
    empty.partition_values = split.partition_values;
    empty.bucket = split.bucket;
    empty.total_buckets = split.total_buckets;
    empty.bucket_path = split.bucket_path;
    return empty;
  };
  for (DataSplit& split : *planned_after) {
    DataSplit old_split = empty_like(split);
    auto it = old_by_bucket.find(std::make_pair(split.partition, split.bucket));
    if (it != old_by_bucket.end()) {
      old_matched[it->second] = true;
      old_split = std::move((*planned_before)[it->second]);
      without_shared(&old_split, &split);
    }
    if (split.files.empty() && old_split.files.empty()) continue;
    changes.splits.push_back(std::move(split));
    changes.before_splits.push_back(std::move(old_split));
  }
  for (size_t i = 0; i < planned_before->size(); ++i) {
    DataSplit& old_split = (*planned_before)[i];
    if (old_matched[i] || old_split.files.empty()) continue;
    changes.splits.push_back(empty_like(old_split));
    changes.before_splits.push_back(std::move(old_split));
  }
  return changes;
}

Result<std::vector<SnapshotChanges>> IncrementalScan::PlanRange(const SnapshotRange& range,
                                                                ChangeScanMode mode) const {
  std::vector<SnapshotChanges> out;
  SnapshotManager snapshots(fs_, metadata_path_);
  for (int64_t id = range.start_exclusive + 1; id <= range.end_inclusive; ++id) {
    auto snapshot = snapshots.Get(id);
    if (!snapshot.ok()) {
      if (snapshot.status().IsNotFound()) {
        return Status::NotFound("table {}: snapshot {} was expired; read a range that starts later", table_name_, id);
      }
      return snapshot.status();
    }
    TIDE_ASSIGN_OR_RETURN(SnapshotChanges changes, PlanSnapshot(*snapshot, mode));
    out.push_back(std::move(changes));
  }
  return out;
}

}  // namespace tide
