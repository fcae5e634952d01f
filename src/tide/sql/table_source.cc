#include "tide/sql/table_source.h"

#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

namespace {

// Keeps the Table alive for as long as its reader: a reader may refer to the table it came from.
class OwningTableReader final : public TableReader {
 public:
  OwningTableReader(std::unique_ptr<Table> table, std::unique_ptr<TableReader> reader)
      : table_(std::move(table)), reader_(std::move(reader)) {}
  ~OwningTableReader() override {
    reader_.reset();  // before the table it may point into
  }
  const std::vector<DataField>& fields() const override { return reader_->fields(); }
  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
    return reader_->NextBatch(max_rows, out);
  }
  Result<size_t> NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) override {
    return reader_->NextVectors(vectors, capacity);
  }
  // Workers do not point into the table; this reader, which keeps it alive, outlives them in a scan.
  Result<std::unique_ptr<TableReader>> NewWorker() override { return reader_->NewWorker(); }
  TableReadStats stats() const override { return reader_->stats(); }

 private:
  std::unique_ptr<Table> table_;
  std::unique_ptr<TableReader> reader_;
};

}  // namespace

Result<std::unique_ptr<TableReader>> TableSource::NewChangeReader(const TableIdentifier& id, bool,
                                                                  const IncrementalReadOptions&) const {
  return Status::NotSupported("table {}: this source has no change reads", id.ToString());
}

namespace {

class CatalogTableSource final : public TableSource {
 public:
  explicit CatalogTableSource(std::unique_ptr<Catalog> catalog) : catalog_(std::move(catalog)) {}

  Result<std::vector<std::string>> ListDatabases() const override { return catalog_->ListDatabases(); }

  Result<std::vector<std::string>> ListTables(const std::string& database) const override {
    return catalog_->ListTables(database);
  }

  Result<TableSchema> ReadSchema(const TableIdentifier& id, const SnapshotSelector& selector) const override {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog_->GetTable(id));
    return table->ReadSchema(selector);
  }

  Result<std::unique_ptr<TableReader>> NewReader(const TableIdentifier& id,
                                                 const ReadOptions& options) const override {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog_->GetTable(id));
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<TableReader> reader, table->NewReader(options));
    return std::unique_ptr<TableReader>(new OwningTableReader(std::move(table), std::move(reader)));
  }

  Result<std::unique_ptr<TableReader>> NewChangeReader(const TableIdentifier& id, bool audit_log,
                                                       const IncrementalReadOptions& options) const override {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog_->GetTable(id));
    std::unique_ptr<TableReader> reader;
    if (audit_log) {
      TIDE_ASSIGN_OR_RETURN(reader, NewAuditLogReader(*table, options));
    } else {
      TIDE_ASSIGN_OR_RETURN(reader, NewIncrementalReader(*table, options));
    }
    return std::unique_ptr<TableReader>(new OwningTableReader(std::move(table), std::move(reader)));
  }

  Result<std::vector<Snapshot>> ListSnapshots(const TableIdentifier& id) const override {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog_->GetTable(id));
    SnapshotManager snapshots(table->fs(), table->path());
    TIDE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, snapshots.ListIds());
    std::vector<Snapshot> out;
    out.reserve(ids.size());
    for (int64_t snapshot_id : ids) {
      Result<Snapshot> snapshot = snapshots.Get(snapshot_id);
      // Snapshot expiry may remove a file between the listing and the read: it is simply gone.
      if (!snapshot.ok() && snapshot.status().IsNotFound()) continue;
      if (!snapshot.ok()) return snapshot.status().WithContext(fmt::format("table {}", id.ToString()));
      out.push_back(std::move(snapshot).value());
    }
    return out;
  }

  Result<std::vector<TableSchema>> ListSchemas(const TableIdentifier& id) const override {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog_->GetTable(id));
    SchemaManager schemas(table->fs(), table->path());
    TIDE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, schemas.ListIds());
    std::vector<TableSchema> out;
    out.reserve(ids.size());
    for (int64_t schema_id : ids) {
      Result<TableSchema> schema = schemas.Get(schema_id);
      if (!schema.ok()) return schema.status().WithContext(fmt::format("table {}", id.ToString()));
      out.push_back(std::move(schema).value());
    }
    return out;
  }

  Result<std::unique_ptr<Table>> OpenTable(const TableIdentifier& id) const override {
    return catalog_->GetTable(id);
  }

 private:
  std::unique_ptr<Catalog> catalog_;
};

}  // namespace

Result<std::shared_ptr<TableSource>> OpenCatalogSource(FileSystem* fs, std::string warehouse) {
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::Open(fs, std::move(warehouse)));
  return std::shared_ptr<TableSource>(std::make_shared<CatalogTableSource>(std::move(catalog)));
}

}  // namespace tide
