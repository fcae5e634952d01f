#include "tide/table/snapshot/id_file_directory.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {

std::string IdFileDirectory::Path(int64_t id) const { return JoinPath(dir_, prefix_ + std::to_string(id)); }

Result<std::vector<int64_t>> IdFileDirectory::ListIds() const {
  auto entries = fs_->ListDir(dir_);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<int64_t>{};
    return entries.status();
  }
  std::vector<int64_t> ids;
  for (const auto& e : *entries) {
    if (!StartsWith(e.name, prefix_)) continue;
    auto id = ParseInt64(e.name.substr(prefix_.size()), "file id");
    if (id.ok()) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::optional<int64_t>> IdFileDirectory::ReadHint(const std::string& name) const {
  auto text = fs_->ReadFile(JoinPath(dir_, name));
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<int64_t>();
    return text.status();
  }
  auto id = ParseInt64(*text, "hint");
  if (!id.ok()) return std::optional<int64_t>();  // a torn or garbled hint is ignored, as Java does
  return std::optional<int64_t>(*id);
}

Result<std::optional<int64_t>> IdFileDirectory::LatestId() const {
  TIDE_ASSIGN_OR_RETURN(auto hint, ReadHint("LATEST"));
  if (hint && *hint > 0) {
    TIDE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(Path(*hint)));
    TIDE_ASSIGN_OR_RETURN(bool next_exists, fs_->Exists(Path(*hint + 1)));
    if (exists && !next_exists) return hint;
  }
  TIDE_ASSIGN_OR_RETURN(auto ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Result<std::optional<int64_t>> IdFileDirectory::EarliestId() const {
  TIDE_ASSIGN_OR_RETURN(auto hint, ReadHint("EARLIEST"));
  if (hint) {
    TIDE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(Path(*hint)));
    if (exists) return hint;
  }
  TIDE_ASSIGN_OR_RETURN(auto ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.front());
}

Result<bool> IdFileDirectory::Exists(int64_t id) const { return fs_->Exists(Path(id)); }

Status IdFileDirectory::CommitEarliestHint(int64_t id) const {
  // Durable (folder synced): expiry and rollback rely on it to make the deletions before it durable
  // before they delete what those snapshots referenced.
  return fs_->WriteFileAtomic(JoinPath(dir_, "EARLIEST"), std::to_string(id));
}

Status IdFileDirectory::CommitLatestHint(int64_t id) const {
  return fs_->WriteFileAtomic(JoinPath(dir_, "LATEST"), std::to_string(id));  // durable, as above
}

Status IdFileDirectory::Delete(int64_t id) const { return fs_->DeleteFile(Path(id)); }

}  // namespace tide
