#include "tide/table/snapshot/snapshot_manager.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {

std::string SnapshotManager::SnapshotDir() const { return JoinPath(table_path_, "snapshot"); }
std::string SnapshotManager::SnapshotPath(int64_t id) const {
  return JoinPath(SnapshotDir(), fmt::format("snapshot-{}", id));
}
std::string SnapshotManager::TagPath(const std::string& tag) const {
  return JoinPath(table_path_, "tag/tag-" + tag);
}

IdFileDirectory SnapshotManager::Files() const { return IdFileDirectory(fs_, SnapshotDir(), "snapshot-"); }

Result<std::vector<int64_t>> SnapshotManager::ListIds() const { return Files().ListIds(); }
Result<std::optional<int64_t>> SnapshotManager::LatestId() const { return Files().LatestId(); }
Result<std::optional<int64_t>> SnapshotManager::EarliestId() const { return Files().EarliestId(); }

Result<Snapshot> SnapshotManager::Get(int64_t id) const {
  std::string path = SnapshotPath(id);
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      TIDE_ASSIGN_OR_RETURN(auto earliest, EarliestId());
      TIDE_ASSIGN_OR_RETURN(auto latest, LatestId());
      if (!latest) return Status::NotFound("snapshot {} does not exist: the table has no snapshot yet", id);
      return Status::NotFound("snapshot {} does not exist ({}); available snapshots are {} to {}", id, path,
                              earliest.value_or(*latest), *latest);
    }
    return text.status();
  }
  TIDE_ASSIGN_OR_RETURN(Snapshot s, Snapshot::FromJson(*text, path));
  if (s.id != id) return Status::Corruption("snapshot file {} holds id {}", path, s.id);
  return s;
}

Result<Snapshot> SnapshotManager::AtOrBefore(int64_t timestamp_ms) const {
  TIDE_ASSIGN_OR_RETURN(auto earliest, EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, LatestId());
  if (!latest) return Status::NotFound("no snapshot at or before timestamp_ms {}: the table has no snapshot", timestamp_ms);
  // Commit times increase with ids: binary search as Java does (earliestSnapshot..latest).
  int64_t lo = earliest.value_or(*latest), hi = *latest;
  std::optional<Snapshot> best;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    auto s = Get(mid);
    if (!s.ok()) {
      if (!s.status().IsNotFound()) return s.status();
      lo = mid + 1;  // expired underneath us: search the newer half
      continue;
    }
    if (s->time_millis <= timestamp_ms) {
      best = std::move(s).value();
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (!best) {
    return Status::NotFound("no snapshot at or before timestamp_ms {}: the earliest snapshot is later", timestamp_ms);
  }
  return *best;
}

Result<Snapshot> SnapshotManager::Tag(const std::string& tag) const {
  std::string path = TagPath(tag);
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      auto tags = ListTags();
      std::string known = tags.ok() && !tags->empty() ? Join(*tags, ", ") : "none";
      return Status::NotFound("tag '{}' does not exist (tags: {})", tag, known);
    }
    return text.status();
  }
  return Snapshot::FromJson(*text, path);
}

Result<std::vector<std::string>> SnapshotManager::ListTags() const {
  auto entries = fs_->ListDir(JoinPath(table_path_, "tag"));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<std::string>{};
    return entries.status();
  }
  std::vector<std::string> tags;
  for (const auto& e : *entries) {
    if (StartsWith(e.name, "tag-")) tags.push_back(e.name.substr(4));
  }
  return tags;
}

Result<std::optional<Snapshot>> SnapshotManager::Resolve(const SnapshotSelector& selector) const {
  int set = (selector.snapshot_id ? 1 : 0) + (selector.timestamp_ms ? 1 : 0) + (selector.tag ? 1 : 0);
  if (set > 1) return Status::InvalidArgument("choose one of snapshot_id, timestamp_ms and tag, not several");
  if (selector.snapshot_id) {
    TIDE_ASSIGN_OR_RETURN(Snapshot s, Get(*selector.snapshot_id));
    return std::optional<Snapshot>(std::move(s));
  }
  if (selector.timestamp_ms) {
    TIDE_ASSIGN_OR_RETURN(Snapshot s, AtOrBefore(*selector.timestamp_ms));
    return std::optional<Snapshot>(std::move(s));
  }
  if (selector.tag) {
    TIDE_ASSIGN_OR_RETURN(Snapshot s, Tag(*selector.tag));
    return std::optional<Snapshot>(std::move(s));
  }
  TIDE_ASSIGN_OR_RETURN(auto latest, LatestId());
  if (!latest) return std::optional<Snapshot>();
  TIDE_ASSIGN_OR_RETURN(Snapshot s, Get(*latest));
  return std::optional<Snapshot>(std::move(s));
}

Status SnapshotManager::CommitEarliestHint(int64_t id) const { return Files().CommitEarliestHint(id); }
Status SnapshotManager::CommitLatestHint(int64_t id) const { return Files().CommitLatestHint(id); }
Status SnapshotManager::DeleteSnapshot(int64_t id) const { return Files().Delete(id); }

}  // namespace tide
