#include "tide/catalog/catalog.h"

#include "tide/base/strings.h"

namespace tide {

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  std::string_view t = Trim(text);
  size_t dot = t.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == t.size() || t.find('.', dot + 1) != std::string_view::npos) {
    return Status::InvalidArgument("'{}' is not a table identifier: write it as <database>.<table>", text);
  }
  return TableIdentifier{std::string(t.substr(0, dot)), std::string(t.substr(dot + 1))};
}

Result<std::unique_ptr<Catalog>> Catalog::Open(FileSystem* fs, std::string warehouse) {
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  TIDE_ASSIGN_OR_RETURN(bool exists, fs->Exists(warehouse));
  if (!exists) return Status::NotFound("warehouse {} does not exist", warehouse);
  return std::unique_ptr<Catalog>(new Catalog(fs, std::move(warehouse)));
}

Result<std::vector<std::string>> Catalog::ListDatabases() const {
  TIDE_ASSIGN_OR_RETURN(auto entries, fs_->ListDir(warehouse_));
  std::vector<std::string> out;
  for (const auto& e : entries) {
    if (e.is_directory && EndsWith(e.name, ".db") && e.name.size() > 3) out.push_back(e.name.substr(0, e.name.size() - 3));
  }
  return out;
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
  std::string db_path = JoinPath(warehouse_, database + ".db");
  auto entries = fs_->ListDir(db_path);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) {
      return Status::NotFound("database '{}' does not exist in warehouse {}", database, warehouse_);
    }
    return entries.status();
  }
  std::vector<std::string> out;
  for (const auto& e : *entries) {
    if (!e.is_directory) continue;
    TIDE_ASSIGN_OR_RETURN(bool has_schema, fs_->Exists(JoinPath(JoinPath(db_path, e.name), "schema")));
    if (has_schema) out.push_back(e.name);
  }
  return out;
}

std::string Catalog::TablePath(const TableIdentifier& id) const {
  return JoinPath(JoinPath(warehouse_, id.database + ".db"), id.table);
}

Result<std::unique_ptr<Table>> Catalog::GetTable(const TableIdentifier& id) const {
  std::string path = TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(JoinPath(path, "schema")));
  if (!exists) {
    return Status::NotFound("table {} does not exist in warehouse {} (no folder {}/schema)", id.ToString(),
                            warehouse_, path);
  }
  return Table::Open(fs_, path, id.ToString());
}

}  // namespace tide
