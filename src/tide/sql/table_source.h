// TableSource: where the SQL bridge gets its tables from: the databases and tables it shows as DuckDB
// schemas and views, the schema a read of a snapshot returns, the readers, and the snapshot and schema
// history behind the system tables.
//
// The production source is the warehouse's Catalog (OpenCatalogSource). The interface exists so that the
// bridge can be tested with hand-built readers (every type, edge values, NULLs, failing readers) and so
// that the ReadOptions DuckDB's projection pushdown produces can be observed.
//
// Thread-safety: implementations must allow concurrent calls from several threads (DuckDB binds on the
// querying thread and scans on its worker threads). A TableReader returned by NewReader is used by one
// thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/catalog/catalog.h"
#include "tide/io/file_system.h"
#include "tide/table/change_read.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/table/source/table_reader.h"
#include "tide/types/table_schema.h"

namespace tide {

class TableSource {
 public:
  virtual ~TableSource() = default;

  // Database names, sorted.
  virtual Result<std::vector<std::string>> ListDatabases() const = 0;
  // Table names of `database`, sorted.
  virtual Result<std::vector<std::string>> ListTables(const std::string& database) const = 0;
  // The schema the rows of `selector` come in (Table::ReadSchema). NotFound for an unknown table or
  // snapshot.
  virtual Result<TableSchema> ReadSchema(const TableIdentifier& id, const SnapshotSelector& selector) const = 0;
  // A reader over the chosen snapshot, projected as `options` says (Table::NewReader).
  virtual Result<std::unique_ptr<TableReader>> NewReader(const TableIdentifier& id,
                                                         const ReadOptions& options) const = 0;
  // A reader of rows with their row kinds (table/change_read.h): the audit log of the latest snapshot
  // when `audit_log`, else the incremental read `options` describes. Projection and the leading `rowkind`
  // column as `options` say. The default refuses (a source of hand-built readers has no changes).
  virtual Result<std::unique_ptr<TableReader>> NewChangeReader(const TableIdentifier& id, bool audit_log,
                                                               const IncrementalReadOptions& options) const;
  // Every snapshot of the table that still exists, by ascending id.
  virtual Result<std::vector<Snapshot>> ListSnapshots(const TableIdentifier& id) const = 0;
  // Every schema version of the table, by ascending id.
  virtual Result<std::vector<TableSchema>> ListSchemas(const TableIdentifier& id) const = 0;
  // The table itself, for the system tables that read its files (manifests, tags, consumers,
  // branches). NotSupported for a source that has no files behind its tables (a test's).
  virtual Result<std::unique_ptr<Table>> OpenTable(const TableIdentifier& id) const {
    return Status::NotSupported("table {} has no files to show in this system table", id.ToString());
  }
};

// A TableSource over the warehouse folder `warehouse` on `fs` (which must outlive the source). NotFound
// if the folder does not exist.
Result<std::shared_ptr<TableSource>> OpenCatalogSource(FileSystem* fs, std::string warehouse);

}  // namespace tide
