#include "tide/table/operation/expire_changelog.h"

#include <algorithm>
#include <chrono>

#include "tide/base/logging.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {

ExpireChangelog::ExpireChangelog(FileSystem* fs, std::string table_path, std::string table_name,
                                 std::function<int64_t()> clock)
    : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

Result<ChangelogExpireResult> ExpireChangelog::Expire(const ChangelogExpireConfig& config) {
  if (config.retain_min < 1 || config.max_deletes < 1) {
    return Status::InvalidArgument("table {}: changelog.num-retained.min ({}) and snapshot.expire.limit ({}) must be at "
                                   "least 1",
                                   table_name_, config.retain_min, config.max_deletes);
  }
  if (config.retain_max < config.retain_min) {
    return Status::InvalidArgument(
        "table {}: changelog.num-retained.max ({}) must not be less than changelog.num-retained.min ({}); "
        "changelog.num-retained.max falls back to snapshot.num-retained.max when unset",
        table_name_, config.retain_max, config.retain_min);
  }
  SnapshotManager snapshots(fs_, table_path_);
  ChangelogManager changelogs(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto latest_snapshot, snapshots.LatestId());
  TIDE_ASSIGN_OR_RETURN(auto earliest_snapshot, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, changelogs.LatestId());
  TIDE_ASSIGN_OR_RETURN(auto earliest, changelogs.EarliestId());
  ChangelogExpireResult nothing;
  nothing.earliest = earliest;
  if (!latest_snapshot || !earliest_snapshot || !latest || !earliest) return nothing;

  // Counted from the latest snapshot: the changelogs and the live snapshots together.
  const int64_t min = std::max(*latest_snapshot - config.retain_max + 1, *earliest);
  int64_t max_exclusive = *latest_snapshot - config.retain_min + 1;
  TIDE_ASSIGN_OR_RETURN(auto consumer_min, ConsumerManager(fs_, table_path_).MinNextSnapshot());
  if (consumer_min) max_exclusive = std::min(max_exclusive, *consumer_min);
  max_exclusive = std::min(max_exclusive, *earliest + config.max_deletes);
  max_exclusive = std::min(max_exclusive, *latest);  // the latest changelog stays
  if (max_exclusive <= *earliest) return nothing;

  const int64_t older_than = clock_() - config.time_retained_ms;
  for (int64_t id = min; id <= max_exclusive; ++id) {
    auto changelog = changelogs.Get(id);
    if (!changelog.ok()) {
      if (changelog.status().IsNotFound()) continue;
      return changelog.status();
    }
    if (older_than <= changelog->time_millis) return ExpireUntil(*earliest, id);
  }
  return ExpireUntil(*earliest, max_exclusive);
}

Result<ChangelogExpireResult> ExpireChangelog::ExpireUntil(int64_t earliest_id, int64_t end_exclusive) {
  ChangelogExpireResult result;
  result.earliest = earliest_id;
  if (end_exclusive <= earliest_id) return result;
  SnapshotManager snapshots(fs_, table_path_);
  ChangelogManager changelogs(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs_, table_path_, table_name_));

  std::vector<Snapshot> expired;
  for (int64_t id = earliest_id; id < end_exclusive; ++id) {
    auto changelog = changelogs.Get(id);
    if (!changelog.ok()) {
      if (changelog.status().IsNotFound()) continue;  // expired by another process meanwhile
      return changelog.status();
    }
    expired.push_back(std::move(changelog).value());
  }

  std::vector<Snapshot> tags;
  TIDE_ASSIGN_OR_RETURN(auto tagged, TagManager(fs_, table_path_).ListTagged());
  for (auto& t : tagged) tags.push_back(std::move(t.snapshot));
  TagDataFileSkipper skipper(deletion.get(), std::move(tags));

  // A changelog whose replaced files a tag may hold, when that tag cannot be read, ends the range: it
  // and the later ones stay (with their files) for a later run, as Java leaves such an id.
  // skips[i]: the files to keep among those changelog i's delta replaced; null: nothing to plan there
  // (it has changelog files, or its delta list is gone).
  std::vector<const DataFileSet*> skips(expired.size(), nullptr);
  for (size_t i = 0; i < expired.size(); ++i) {
    const Snapshot& c = expired[i];
    if (c.changelog_manifest_list) continue;
    TIDE_ASSIGN_OR_RETURN(bool has_delta, fs_->Exists(deletion->ManifestPath(c.delta_manifest_list)));
    if (!has_delta) continue;
    skips[i] = skipper.For(c.id);
    if (skips[i] == nullptr) {
      end_exclusive = c.id;
      expired.resize(i);
      break;
    }
  }
  if (expired.empty()) return result;

  // What stays uses: the tags of the range, the changelog (or snapshot) that ends it, the earliest snapshot.
  std::vector<Snapshot> keep = skipper.InRange(earliest_id, end_exclusive);
  auto end = changelogs.Get(end_exclusive);
  if (!end.ok() && end.status().IsNotFound()) end = snapshots.Get(end_exclusive);
  if (!end.ok()) {
    TIDE_LOG_WARN("table {}: changelog {} cannot be read ({}); no changelog was expired", table_name_, end_exclusive,
                  end.status().ToString());
    return result;
  }
  keep.push_back(*end);
  TIDE_ASSIGN_OR_RETURN(auto earliest_snapshot, snapshots.EarliestId());
  if (earliest_snapshot && *earliest_snapshot != end_exclusive) {
    auto s = snapshots.Get(*earliest_snapshot);
    if (s.ok()) keep.push_back(std::move(s).value());
  }

  // 1. Plan: per changelog, its changelog files, or the data files its delta replaced.
  std::vector<std::string> data_files;
  for (size_t i = 0; i < expired.size(); ++i) {
    const Snapshot& c = expired[i];
    std::vector<std::string> planned;
    if (c.changelog_manifest_list) {
      planned = deletion->PlanAddedInChangelog(c);
    } else if (skips[i] != nullptr) {
      planned = deletion->PlanDeletedInDelta(c, *skips[i]);
    }
    data_files.insert(data_files.end(), planned.begin(), planned.end());
  }
  MetadataDeletionPlan metadata;
  auto skipping = deletion->ManifestSkippingSet(keep, /*skip_missing=*/true);
  if (!skipping.ok()) {
    TIDE_LOG_WARN("table {}: the manifests of changelog {} or its tags cannot be read ({}); manifests of the expired "
                  "changelogs are left for orphan removal",
                  table_name_, end_exclusive, skipping.status().ToString());
  } else {
    for (const Snapshot& c : expired) {
      metadata.Append(deletion->PlanMetadata(c, &*skipping, /*data_lists=*/true, /*changelog=*/true,
                                             /*index_and_statistics=*/false));
    }
  }

  // 2. The changelog files, oldest first, then EARLIEST: from here on no reader can open them.
  for (const Snapshot& c : expired) {
    TIDE_RETURN_IF_ERROR(changelogs.files().Delete(c.id));
    ++result.changelogs_deleted;
  }
  TIDE_RETURN_IF_ERROR(changelogs.files().CommitEarliestHint(end_exclusive));
  result.earliest = end_exclusive;

  // 3. The files only they referenced.
  TIDE_ASSIGN_OR_RETURN(result.data_files_deleted, deletion->DeleteFiles(data_files));
  deletion->CleanEmptyDirectories();
  TIDE_ASSIGN_OR_RETURN(result.manifest_files_deleted, deletion->DeleteFiles(metadata.manifests));
  TIDE_LOG_INFO("table {}: expired changelog [{}, {}): {} data files, {} manifests deleted", table_name_, earliest_id,
                end_exclusive, result.data_files_deleted, result.manifest_files_deleted);
  return result;
}

}  // namespace tide
