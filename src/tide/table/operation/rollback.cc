#include "tide/table/operation/rollback.h"

#include <set>

#include "tide/base/logging.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {

Result<RollbackResult> RollbackTo(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                                  std::optional<int64_t> snapshot_id, std::optional<std::string> tag) {
  if (snapshot_id.has_value() == tag.has_value()) {
    return Status::InvalidArgument("table {}: roll back to either a snapshot or a tag", table_name);
  }
  SnapshotManager snapshots(fs, table_path);
  TagManager tags(fs, table_path);
  Snapshot retained;
  if (snapshot_id) {
    auto s = snapshots.Get(*snapshot_id);
    if (!s.ok()) return s.status().WithContext(fmt::format("table {}: cannot roll back", table_name));
    retained = std::move(s).value();
  } else {
    auto s = tags.Get(*tag);
    if (!s.ok()) return s.status().WithContext(fmt::format("table {}: cannot roll back", table_name));
    retained = std::move(s).value();
    retained.tag_create_time.reset();
    retained.tag_time_retained_ms.reset();
  }
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs, table_path, table_name));
  RollbackResult result;
  result.retained_snapshot = retained.id;

  // What the snapshots and tags about to go reference.
  TIDE_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
  TIDE_ASSIGN_OR_RETURN(auto tagged, tags.ListTagged());
  std::set<std::string> candidates, read;
  std::vector<int64_t> removed_ids;
  for (int64_t id : ids) {
    if (id <= retained.id) continue;
    removed_ids.push_back(id);
    auto s = snapshots.Get(id);
    if (!s.ok()) continue;
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(*s, /*strict=*/false, &candidates, &read));
  }
  std::vector<std::string> removed_tags;
  for (const auto& t : tagged) {
    if (t.snapshot.id <= retained.id) continue;
    removed_tags.insert(removed_tags.end(), t.names.begin(), t.names.end());
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(t.snapshot, /*strict=*/false, &candidates, &read));
  }

  // Long-lived changelogs newer than the retained snapshot (a rollback to a tag older than every
  // snapshot) go too, as Java's cleanLongLivedChangelogs.
  ChangelogManager changelogs(fs, table_path);
  TIDE_ASSIGN_OR_RETURN(auto changelog_ids, changelogs.files().ListIds());
  std::vector<int64_t> removed_changelogs, kept_changelogs;
  for (int64_t id : changelog_ids) {
    if (id <= retained.id) {
      kept_changelogs.push_back(id);
      continue;
    }
    removed_changelogs.push_back(id);
    auto c = changelogs.Get(id);
    if (!c.ok()) continue;
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(*c, /*strict=*/false, &candidates, &read));
  }

  // Java's cleanLargerThan: LATEST first, then the snapshots newest first, then the tags.
  TIDE_RETURN_IF_ERROR(snapshots.CommitLatestHint(retained.id));
  for (auto it = removed_ids.rbegin(); it != removed_ids.rend(); ++it) {
    TIDE_RETURN_IF_ERROR(snapshots.DeleteSnapshot(*it));
    ++result.snapshots_deleted;
  }
  for (const auto& name : removed_tags) {
    TIDE_RETURN_IF_ERROR(tags.DeleteFile(name));
    ++result.tags_deleted;
  }
  if (!removed_changelogs.empty()) {
    for (auto it = removed_changelogs.rbegin(); it != removed_changelogs.rend(); ++it) {
      TIDE_RETURN_IF_ERROR(changelogs.files().Delete(*it));
    }
    TIDE_RETURN_IF_ERROR(changelogs.files().CommitLatestHint(kept_changelogs.empty() ? -1 : kept_changelogs.back()));
    // EARLIEST may name a changelog just removed: once an id of that name exists again, readers would
    // trust it and pass over the changelogs below. Without it they list the folder.
    TIDE_RETURN_IF_ERROR(fs->DeleteFile(JoinPath(changelogs.ChangelogDir(), "EARLIEST")));
  }
  TIDE_ASSIGN_OR_RETURN(bool retained_exists, fs->Exists(snapshots.SnapshotPath(retained.id)));
  if (!retained_exists) {
    // A tag older than every snapshot: it becomes the table's only snapshot.
    Status written = fs->WriteFileExclusive(snapshots.SnapshotPath(retained.id), retained.ToJson());
    if (!written.ok() && !written.IsAlreadyExists()) return written;
    TIDE_RETURN_IF_ERROR(snapshots.CommitEarliestHint(retained.id));
  }

  // What remains references; everything else the removed ones referenced goes.
  std::set<std::string> used, used_read;
  TIDE_ASSIGN_OR_RETURN(ids, snapshots.ListIds());
  for (int64_t id : ids) {
    auto s = snapshots.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;
      return s.status();
    }
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(*s, /*strict=*/true, &used, &used_read));
  }
  TIDE_ASSIGN_OR_RETURN(tagged, tags.ListTagged());
  for (const auto& t : tagged) {
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(t.snapshot, /*strict=*/true, &used, &used_read));
  }
  for (int64_t id : kept_changelogs) {
    auto c = changelogs.Get(id);
    if (!c.ok()) {
      if (c.status().IsNotFound()) continue;
      return c.status();  // its files must not be taken for unused
    }
    // Lenient: a changelog's base and delta lists may be gone already (expired with its snapshot).
    TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(*c, /*strict=*/false, &used, &used_read));
  }
  std::vector<std::string> unique;
  for (const auto& path : candidates) {
    if (!used.count(path)) unique.push_back(path);
  }
  TIDE_ASSIGN_OR_RETURN(result.files_deleted, deletion->DeleteFiles(unique));
  TIDE_LOG_INFO("table {}: rolled back to snapshot {}: {} snapshots, {} tags, {} files deleted", table_name, retained.id,
                result.snapshots_deleted, result.tags_deleted, result.files_deleted);
  return result;
}

}  // namespace tide
