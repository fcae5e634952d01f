// Catalog: the filesystem catalog of a warehouse folder, `<warehouse>/<database>.db/<table>/`.
//
// Lists databases and tables and opens tables by their identifier `database.table`. Thread-safety:
// immutable after Open; safe to share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/table.h"

namespace tide {

// A table's name inside a warehouse.
struct TableIdentifier {
  std::string database;
  std::string table;

  // Parses "database.table"; fails with a message that shows the expected form.
  static Result<TableIdentifier> Parse(std::string_view text);
  std::string ToString() const { return database + "." + table; }
  bool operator==(const TableIdentifier&) const = default;
};

class Catalog {
 public:
  // Opens the warehouse at `warehouse`; NotFound if the folder does not exist.
  static Result<std::unique_ptr<Catalog>> Open(FileSystem* fs, std::string warehouse);

  const std::string& warehouse() const { return warehouse_; }
  FileSystem* fs() const { return fs_; }

  // Database names (folders ending in ".db"), sorted.
  Result<std::vector<std::string>> ListDatabases() const;
  // Table names in a database (folders holding a schema/ folder), sorted.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  std::string TablePath(const TableIdentifier& id) const;
  // Opens a table; NotFound naming the identifier and the warehouse if it does not exist.
  Result<std::unique_ptr<Table>> GetTable(const TableIdentifier& id) const;

 private:
  Catalog(FileSystem* fs, std::string warehouse) : fs_(fs), warehouse_(std::move(warehouse)) {}
  FileSystem* fs_;
  std::string warehouse_;
};

}  // namespace tide
