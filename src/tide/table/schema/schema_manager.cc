#include "tide/table/schema/schema_manager.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {

std::string SchemaManager::SchemaPath(int64_t id) const {
  return JoinPath(table_path_, fmt::format("schema/schema-{}", id));
}

Result<std::vector<int64_t>> SchemaManager::ListIds() const {
  auto entries = fs_->ListDir(JoinPath(table_path_, "schema"));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<int64_t>{};
    return entries.status();
  }
  std::vector<int64_t> ids;
  for (const auto& e : *entries) {
    if (!StartsWith(e.name, "schema-")) continue;
    auto id = ParseInt64(e.name.substr(7), "schema file id");
    if (id.ok()) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<bool> SchemaManager::Exists() const {
  TIDE_ASSIGN_OR_RETURN(auto ids, ListIds());
  return !ids.empty();
}

Result<TableSchema> SchemaManager::Latest() const {
  TIDE_ASSIGN_OR_RETURN(auto ids, ListIds());
  if (ids.empty()) return Status::NotFound("no schema file in {}/schema", table_path_);
  return Get(ids.back());
}

Result<TableSchema> SchemaManager::Get(int64_t id) const {
  std::string path = SchemaPath(id);
  auto text = fs_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound("schema {} does not exist: {}", id, path);
    return text.status();
  }
  return TableSchema::FromJson(*text, path);
}

}  // namespace tide
