#include "tide/table/snapshot/changelog_manager.h"

#include "tide/base/strings.h"

namespace tide {

ChangelogManager::ChangelogManager(FileSystem* fs, std::string table_path)
    : fs_(fs), files_(fs, JoinPath(table_path, "changelog"), "changelog-") {}

Result<Snapshot> ChangelogManager::Get(int64_t id) const {
  std::string path = ChangelogPath(id);
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound("changelog {} does not exist ({})", id, path);
    return text.status();
  }
  TIDE_ASSIGN_OR_RETURN(Snapshot s, Snapshot::FromJson(*text, path));
  if (s.id != id) return Status::Corruption("changelog file {} holds id {}", path, s.id);
  return s;
}

Status ChangelogManager::Commit(int64_t id, std::string_view json) const {
  TIDE_RETURN_IF_ERROR(fs_->MakeDirs(ChangelogDir()));
  return fs_->WriteFileAtomic(ChangelogPath(id), json);
}

}  // namespace tide
