// SchemaManager: the schema files of one table, `<table>/schema/schema-<id>`.
//
// Reads the latest schema or one by id. Thread-safety: stateless beyond its paths; safe to share.
#pragma once

#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/types/table_schema.h"

namespace tide {

class SchemaManager {
 public:
  SchemaManager(FileSystem* fs, std::string table_path) : fs_(fs), table_path_(std::move(table_path)) {}

  std::string SchemaPath(int64_t id) const;
  // Ids of every schema file, ascending.
  Result<std::vector<int64_t>> ListIds() const;
  // Whether the table exists: it has a schema file, as Java's catalog decides. A schema/ folder with no
  // schema file in it is what a create killed part-way leaves behind; it is no table.
  Result<bool> Exists() const;
  Result<TableSchema> Latest() const;
  Result<TableSchema> Get(int64_t id) const;

 private:
  FileSystem* fs_;
  std::string table_path_;
};

}  // namespace tide
