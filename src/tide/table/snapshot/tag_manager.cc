#include "tide/table/snapshot/tag_manager.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "tide/base/strings.h"

namespace tide {

namespace {
constexpr std::string_view kTagPrefix = "tag-";
}  // namespace

std::vector<int64_t> LocalDateTimeArray(int64_t epoch_ms) {
  std::time_t seconds = static_cast<std::time_t>(epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000);
  int64_t millis = epoch_ms - static_cast<int64_t>(seconds) * 1000;
  std::tm tm{};
  localtime_r(&seconds, &tm);
  std::vector<int64_t> out = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min};
  if (tm.tm_sec != 0 || millis != 0) {
    out.push_back(tm.tm_sec);
    if (millis != 0) out.push_back(millis * 1'000'000);
  }
  return out;
}

std::string TagManager::TagDir() const { return JoinPath(table_path_, "tag"); }

std::string TagManager::TagPath(const std::string& name) const {
  return JoinPath(TagDir(), std::string(kTagPrefix) + name);
}

Result<bool> TagManager::Exists(const std::string& name) const { return fs_->Exists(TagPath(name)); }

Result<std::vector<std::string>> TagManager::ListNames() const {
  std::vector<std::string> names;
  auto entries = fs_->ListDir(TagDir());
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return names;
    return entries.status();
  }
  for (const auto& e : *entries) {
    if (!e.is_directory && StartsWith(e.name, kTagPrefix)) names.push_back(e.name.substr(kTagPrefix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Snapshot> TagManager::Get(const std::string& name) const {
  std::string path = TagPath(name);
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      auto names = ListNames();
      std::string known = names.ok() && !names->empty() ? Join(*names, ", ") : "none";
      return Status::NotFound("tag '{}' does not exist (tags: {})", name, known);
    }
    return text.status();
  }
  return Snapshot::FromJson(*text, path);
}

Result<std::vector<TaggedSnapshot>> TagManager::ListTagged() const {
  TIDE_ASSIGN_OR_RETURN(auto names, ListNames());
  std::map<int64_t, TaggedSnapshot> by_id;
  for (const auto& name : names) {
    std::string path = TagPath(name);
    auto text = fs_->ReadFile(path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) continue;  // deleted meanwhile
      return text.status();
    }
    TIDE_ASSIGN_OR_RETURN(Snapshot s, Snapshot::FromJson(*text, path));
    auto [it, inserted] = by_id.try_emplace(s.id);
    if (inserted) it->second.snapshot = std::move(s);
    it->second.names.push_back(name);
  }
  std::vector<TaggedSnapshot> out;
  out.reserve(by_id.size());
  for (auto& [id, tagged] : by_id) out.push_back(std::move(tagged));
  return out;
}

Result<bool> TagManager::Create(const Snapshot& snapshot, const std::string& name,
                                std::optional<int64_t> time_retained_ms, int64_t now_ms, bool ignore_if_exists) const {
  if (Trim(name).empty()) return Status::InvalidArgument("a tag name must not be blank");
  if (name.find('/') != std::string::npos) {
    return Status::InvalidArgument("tag name '{}' contains '/'; a tag name is one file name", name);
  }
  TIDE_ASSIGN_OR_RETURN(bool exists, Exists(name));
  if (exists) {
    if (ignore_if_exists) return false;
    return Status::AlreadyExists("tag '{}' already exists; delete it first or choose another name", name);
  }
  Snapshot tag = snapshot;
  tag.tag_create_time.reset();
  tag.tag_time_retained_ms.reset();
  if (time_retained_ms) {
    tag.tag_create_time = LocalDateTimeArray(now_ms);
    tag.tag_time_retained_ms = *time_retained_ms;
  }
  TIDE_RETURN_IF_ERROR(fs_->MakeDirs(TagDir()));
  Status s = fs_->WriteFileExclusive(TagPath(name), tag.ToJson());
  if (s.IsAlreadyExists()) {
    if (ignore_if_exists) return false;
    return Status::AlreadyExists("tag '{}' already exists; delete it first or choose another name", name);
  }
  TIDE_RETURN_IF_ERROR(s);
  return true;
}

Status TagManager::DeleteFile(const std::string& name) const { return fs_->DeleteFile(TagPath(name)); }

}  // namespace tide
