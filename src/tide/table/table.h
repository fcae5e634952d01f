// Table: one Paimon table in a warehouse, opened for reading.
//
// A Table knows its folder, its file system and its latest schema; it resolves snapshots (latest, by
// id, by time, by tag) and opens readers on them. Opening is cheap: nothing is read but the latest
// schema. Thread-safety: a Table is immutable after Open and may be shared between threads; every
// reader it creates is independent.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/source/table_reader.h"
#include "tide/types/table_schema.h"

namespace tide {

class Table {
 public:
  // Opens the table at `path` (the folder holding schema/ and snapshot/). `name` (e.g. "db.t") is used
  // in error messages. NotFound if there is no schema file.
  // `branch` other than "main" opens the branch's metadata (`<path>/branch/branch-<name>/schema`,
  // `snapshot`, `tag`); data and manifest files are shared with the main branch.
  static Result<std::unique_ptr<Table>> Open(FileSystem* fs, std::string path, std::string name,
                                             std::string branch = "main");

  const std::string& path() const { return path_; }
  // The folder holding this branch's schema/, snapshot/ and tag/ (path() for the main branch).
  const std::string& metadata_path() const { return metadata_path_; }
  const std::string& branch() const { return branch_; }
  const std::string& name() const { return name_; }
  FileSystem* fs() const { return fs_; }
  // The newest schema (the table's current columns).
  const TableSchema& latest_schema() const { return latest_schema_; }

  // The schema a read of `selector` returns rows in: the schema the chosen snapshot was committed
  // with; the latest schema when the table has no snapshot yet and the selector is "latest".
  Result<TableSchema> ReadSchema(const SnapshotSelector& selector) const;

  // Opens a reader over the chosen snapshot. A table with `scan.fallback-branch` reads, for the latest
  // snapshot, the partitions its own snapshot lacks from the fallback branch (as Java's
  // FallbackReadFileStoreTable does for batch reads).
  Result<std::unique_ptr<TableReader>> NewReader(const ReadOptions& options) const;

 private:
  Table(FileSystem* fs, std::string path, std::string metadata_path, std::string branch, std::string name,
        TableSchema schema)
      : fs_(fs), path_(std::move(path)), metadata_path_(std::move(metadata_path)), branch_(std::move(branch)),
        name_(std::move(name)), latest_schema_(std::move(schema)) {}

  // The splits of the resolved snapshot (none for a table without snapshots) and the read schema.
  // `resolved`, when given, receives the snapshot read.
  Result<std::vector<DataSplit>> PlanSplits(const ReadOptions& options, const TableSchema& schema,
                                            std::optional<Snapshot>* resolved = nullptr) const;

  FileSystem* fs_;
  std::string path_;
  std::string metadata_path_;
  std::string branch_;
  std::string name_;
  TableSchema latest_schema_;
};

}  // namespace tide
