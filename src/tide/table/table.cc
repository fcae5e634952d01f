#include "tide/table/table.h"

#include "tide/table/file_store_scan.h"
#include "tide/table/schema_manager.h"
#include "tide/table/snapshot_manager.h"
#include "tide/table/table_reader.h"

namespace tide {

std::string SnapshotSelector::ToString() const {
  if (snapshot_id) return fmt::format("snapshot {}", *snapshot_id);
  if (timestamp_ms) return fmt::format("the snapshot at timestamp_ms {}", *timestamp_ms);
  if (tag) return fmt::format("tag '{}'", *tag);
  return "the latest snapshot";
}

Result<std::unique_ptr<Table>> Table::Open(FileSystem* fs, std::string path, std::string name) {
  SchemaManager schemas(fs, path);
  auto latest = schemas.Latest();
  if (!latest.ok()) return latest.status().WithContext(fmt::format("opening table {}", name));
  return std::unique_ptr<Table>(new Table(fs, std::move(path), std::move(name), std::move(latest).value()));
}

}  // namespace tide

namespace tide {

Result<TableSchema> Table::ReadSchema(const SnapshotSelector& selector) const {
  // Reads of the latest snapshot see the table's current columns (ALTERs without data since apply);
  // time travel sees the schema the chosen snapshot was committed with.
  if (selector.IsLatest()) return latest_schema_;
  SnapshotManager snapshots(fs_, path_);
  auto snapshot = snapshots.Resolve(selector);
  if (!snapshot.ok()) return snapshot.status().WithContext(fmt::format("table {}", name_));
  if (!*snapshot) return latest_schema_;
  if ((*snapshot)->schema_id == latest_schema_.id) return latest_schema_;
  return SchemaManager(fs_, path_).Get((*snapshot)->schema_id);
}

Result<std::unique_ptr<TableReader>> Table::NewReader(const ReadOptions& options) const {
  SnapshotManager snapshots(fs_, path_);
  auto resolved = snapshots.Resolve(options.snapshot);
  if (!resolved.ok()) return resolved.status().WithContext(fmt::format("table {}", name_));
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, ReadSchema(options.snapshot));
  for (const auto& [key, value] : options.dynamic_options) schema.SetOption(key, value);

  TableReadContext ctx;
  ctx.fs = fs_;
  ctx.table_path = path_;
  ctx.table_name = name_;
  ctx.projection = options.projection;
  ctx.all_columns = options.all_columns;
  std::vector<DataSplit> splits;
  if (*resolved) {
    FileStoreScan scan(fs_, path_, name_, schema);
    auto planned = scan.Plan(**resolved);
    if (!planned.ok()) return planned.status().WithContext(fmt::format("table {}, snapshot {}", name_, (*resolved)->id));
    splits = std::move(planned).value();
  }
  ctx.read_schema = std::move(schema);
  return CreateSnapshotTableReader(std::move(ctx), std::move(splits));
}

}  // namespace tide
