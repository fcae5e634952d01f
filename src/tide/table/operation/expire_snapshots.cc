#include "tide/table/operation/expire_snapshots.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "tide/base/logging.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {

namespace {

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ExpireConfig ExpireConfig::FromOptions(const CoreOptions& options) {
  ExpireConfig c;
  c.retain_min = options.snapshot_num_retained_min();
  c.retain_max = options.snapshot_num_retained_max();
  c.time_retained_ms = options.snapshot_time_retained_ms();
  c.max_deletes = options.snapshot_expire_limit();
  // As Java's CoreOptions.consumerChangelogOnly: it applies only when changelog is kept longer.
  c.consumer_changelog_only = options.consumer_changelog_only() && options.changelog_decoupled();
  c.changelog_decoupled = options.changelog_decoupled();
  c.changelog_retain_min = options.changelog_num_retained_min();
  c.changelog_retain_max = options.changelog_num_retained_max();
  c.changelog_time_retained_ms = options.changelog_time_retained_ms();
  return c;
}

ExpireSnapshots::ExpireSnapshots(FileSystem* fs, std::string table_path, std::string table_name,
                                 std::function<int64_t()> clock)
    : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), clock_(std::move(clock)) {
  if (!clock_) clock_ = SystemMillis;
}

Result<ExpireResult> ExpireSnapshots::Expire() {
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs_, table_path_, table_name_));
  return Expire(ExpireConfig::FromOptions(deletion->options()));
}

Result<ExpireResult> ExpireSnapshots::Expire(const ExpireConfig& config) {
  if (config.retain_min < 1 || config.max_deletes < 1) {
    return Status::InvalidArgument("table {}: retain-min ({}) and max-deletes ({}) must be at least 1", table_name_,
                                   config.retain_min, config.max_deletes);
  }
  if (config.retain_max < config.retain_min) {
    return Status::InvalidArgument("table {}: retain-max ({}) must not be less than retain-min ({})", table_name_,
                                   config.retain_max, config.retain_min);
  }
  if (config.changelog_decoupled && config.changelog_retain_max < config.changelog_retain_min) {
    // Checked before anything goes, so a table set up this way keeps every snapshot until it is fixed.
    return Status::InvalidArgument(
        "table {}: changelog.num-retained.max ({}) must not be less than changelog.num-retained.min ({}); "
        "changelog.num-retained.max falls back to snapshot.num-retained.max when unset",
        table_name_, config.changelog_retain_max, config.changelog_retain_min);
  }
  SnapshotManager snapshots(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  if (!latest || !earliest) return ExpireResult{};

  const int64_t older_than = clock_() - config.time_retained_ms;
  // The first snapshot `snapshot.num-retained.max` keeps, and the first one that must stay.
  const int64_t min = std::max(*latest - config.retain_max + 1, *earliest);
  int64_t max_exclusive = *latest - config.retain_min + 1;
  if (!config.consumer_changelog_only) {
    TIDE_ASSIGN_OR_RETURN(auto consumer_min, ConsumerManager(fs_, table_path_).MinNextSnapshot());
    if (consumer_min) max_exclusive = std::min(max_exclusive, *consumer_min);
  }
  max_exclusive = std::min(max_exclusive, *earliest + config.max_deletes);

  for (int64_t id = min; id < max_exclusive; ++id) {
    // A snapshot goes only once its successor has existed for longer than time-retained.
    auto next = snapshots.Get(id + 1);
    if (!next.ok()) {
      if (next.status().IsNotFound()) continue;  // expired by another process meanwhile
      return next.status();
    }
    if (older_than <= next->time_millis) return ExpireThenChangelog(config, *earliest, id);
  }
  return ExpireThenChangelog(config, *earliest, max_exclusive);
}

Result<ExpireResult> ExpireSnapshots::ExpireThenChangelog(const ExpireConfig& config, int64_t earliest,
                                                          int64_t end_exclusive) {
  TIDE_ASSIGN_OR_RETURN(ExpireResult result, ExpireUntil(earliest, end_exclusive, config.changelog_decoupled));
  if (!config.changelog_decoupled) return result;
  TIDE_ASSIGN_OR_RETURN(result.changelog, ExpireChangelog(fs_, table_path_, table_name_, clock_).Expire(config.ForChangelog()));
  return result;
}

Result<ExpireResult> ExpireSnapshots::ExpireUntil(int64_t earliest_id, int64_t end_exclusive) {
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs_, table_path_, table_name_));
  return ExpireUntil(earliest_id, end_exclusive, deletion->options().changelog_decoupled());
}

Result<ExpireResult> ExpireSnapshots::ExpireUntil(int64_t earliest_id, int64_t end_exclusive, bool decoupled) {
  SnapshotManager snapshots(fs_, table_path_);
  ExpireResult result;
  if (end_exclusive <= earliest_id) {
    // Nothing to expire; write EARLIEST so the next reader finds the earliest snapshot directly.
    TIDE_ASSIGN_OR_RETURN(bool hint, fs_->Exists(JoinPath(snapshots.SnapshotDir(), "EARLIEST")));
    if (!hint) TIDE_RETURN_IF_ERROR(snapshots.CommitEarliestHint(earliest_id));
    TIDE_ASSIGN_OR_RETURN(result.earliest, snapshots.EarliestId());
    return result;
  }
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs_, table_path_, table_name_));
  // Decoupled: the expired snapshots become changelog files, and what their changes are read from stays
  // for changelog expiry (ExpireChangelog): the changelog lists, manifests and files; without a changelog
  // producer, the base and delta lists and the files writers wrote (a stream reads deltas then).
  const bool produces_changelog = deletion->options().changelog_producer() != ChangelogProducer::kNone;
  const bool keep_deltas = decoupled && !produces_changelog;
  ChangelogManager changelogs(fs_, table_path_);

  // The snapshots of [earliest, end]; some may be gone already (an interrupted expiry).
  std::vector<Snapshot> including_end;
  for (int64_t id = earliest_id; id <= end_exclusive; ++id) {
    auto s = snapshots.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;
      return s.status();
    }
    including_end.push_back(std::move(s).value());
  }
  if (including_end.empty() || including_end.back().id != end_exclusive) {
    // The snapshot that must stay is gone: another expiry or a rollback is at work; leave it to them.
    TIDE_LOG_WARN("table {}: snapshot {} vanished while expiring; nothing was expired", table_name_, end_exclusive);
    return result;
  }
  const Snapshot& end = including_end.back();
  const int64_t begin = including_end.front().id;

  std::vector<Snapshot> tags;
  TIDE_ASSIGN_OR_RETURN(auto tagged, TagManager(fs_, table_path_).ListTagged());
  for (auto& t : tagged) tags.push_back(std::move(t.snapshot));
  TagDataFileSkipper skipper(deletion.get(), std::move(tags));

  // 1. Plan the data files: what the deltas of (begin, end] replaced, less what the preceding tag holds.
  std::vector<std::string> data_files;
  for (const auto& s : including_end) {
    if (s.id == begin) continue;
    const DataFileSet* skip = skipper.For(s.id);
    if (!skip) continue;
    auto planned = deletion->PlanDeletedInDelta(s, *skip, /*keep_append_sourced=*/keep_deltas);
    data_files.insert(data_files.end(), planned.begin(), planned.end());
  }
  // 2. Changelog files of the expired snapshots.
  std::vector<std::string> changelog_files;
  for (const auto& s : including_end) {
    if (s.id == end_exclusive || decoupled) break;
    auto planned = deletion->PlanAddedInChangelog(s);
    changelog_files.insert(changelog_files.end(), planned.begin(), planned.end());
  }
  // 3. Metadata that neither `end` nor a tag in the range uses.
  std::vector<Snapshot> keep = skipper.InRange(begin, end_exclusive);
  keep.push_back(end);
  MetadataDeletionPlan metadata;
  auto skipping = deletion->ManifestSkippingSet(keep);
  if (!skipping.ok()) {
    TIDE_LOG_WARN("table {}: the manifests of snapshot {} or its tags cannot be read ({}); manifests of the expired "
                  "snapshots are left for orphan removal",
                  table_name_, end_exclusive, skipping.status().ToString());
  } else {
    for (const auto& s : including_end) {
      if (s.id == end_exclusive) break;
      metadata.Append(deletion->PlanMetadata(s, &*skipping, /*data_lists=*/!keep_deltas, /*changelog=*/!decoupled));
    }
  }

  // 4. The snapshot files, oldest first, then EARLIEST: from here on no reader can open them. Decoupled,
  // each is first written as changelog-<id> (its JSON unchanged) and changelog/LATEST moved to it, as
  // Java does.
  for (const auto& s : including_end) {
    if (s.id == end_exclusive) break;
    if (decoupled) {
      auto json = fs_->ReadFile(snapshots.SnapshotPath(s.id));
      if (!json.ok()) {
        if (json.status().IsNotFound()) continue;  // expired by another process meanwhile
        return json.status();
      }
      TIDE_RETURN_IF_ERROR(changelogs.Commit(s.id, *json));
      TIDE_RETURN_IF_ERROR(changelogs.files().CommitLatestHint(s.id));
      ++result.changelogs_written;
    }
    TIDE_RETURN_IF_ERROR(snapshots.DeleteSnapshot(s.id));
    ++result.snapshots_deleted;
  }
  TIDE_RETURN_IF_ERROR(snapshots.CommitEarliestHint(end_exclusive));

  // 5. The files only they referenced.
  TIDE_ASSIGN_OR_RETURN(result.data_files_deleted, deletion->DeleteFiles(data_files));
  TIDE_ASSIGN_OR_RETURN(result.changelog_files_deleted, deletion->DeleteFiles(changelog_files));
  deletion->CleanEmptyDirectories();
  TIDE_ASSIGN_OR_RETURN(result.manifest_files_deleted, deletion->DeleteFiles(metadata.manifests));
  TIDE_ASSIGN_OR_RETURN(int64_t index_files, deletion->DeleteFiles(metadata.index_files));
  TIDE_ASSIGN_OR_RETURN(int64_t index_manifests, deletion->DeleteFiles(metadata.index_manifests));
  result.index_files_deleted = index_files + index_manifests;
  TIDE_ASSIGN_OR_RETURN(result.statistics_files_deleted, deletion->DeleteFiles(metadata.statistics));
  result.earliest = end_exclusive;
  TIDE_LOG_INFO("table {}: expired snapshots [{}, {}): {} data files, {} changelog files, {} manifests deleted",
                table_name_, begin, end_exclusive, result.data_files_deleted, result.changelog_files_deleted,
                result.manifest_files_deleted);
  return result;
}

}  // namespace tide
