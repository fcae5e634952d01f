#include "tide/table/table.h"

#include "tide/table/schema_manager.h"

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
