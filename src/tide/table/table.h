// Table: one Paimon table in a warehouse, opened for reading.
//
// A Table knows its folder, its file system and its latest schema; it resolves snapshots (latest, by
// id, by time, by tag) and opens readers on them. Opening is cheap: nothing is read but the latest
// schema. Thread-safety: a Table is immutable after Open and may be shared between threads; every
// reader it creates is independent.
#pragma once

#include <memory>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/table_read.h"
#include "tide/types/table_schema.h"

namespace tide {

class Table {
 public:
  // Opens the table at `path` (the folder holding schema/ and snapshot/). `name` (e.g. "db.t") is used
  // in error messages. NotFound if there is no schema file.
  static Result<std::unique_ptr<Table>> Open(FileSystem* fs, std::string path, std::string name);

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  FileSystem* fs() const { return fs_; }
  // The newest schema (the table's current columns).
  const TableSchema& latest_schema() const { return latest_schema_; }

  // The schema a read of `selector` returns rows in: the schema the chosen snapshot was committed
  // with; the latest schema when the table has no snapshot yet and the selector is "latest".
  Result<TableSchema> ReadSchema(const SnapshotSelector& selector) const;

  // Opens a reader over the chosen snapshot.
  Result<std::unique_ptr<TableReader>> NewReader(const ReadOptions& options) const;

 private:
  Table(FileSystem* fs, std::string path, std::string name, TableSchema schema)
      : fs_(fs), path_(std::move(path)), name_(std::move(name)), latest_schema_(std::move(schema)) {}

  FileSystem* fs_;
  std::string path_;
  std::string name_;
  TableSchema latest_schema_;
};

}  // namespace tide
