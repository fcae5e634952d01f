// Temporary: the read path lands in table_scan.cc / merge_reader.cc.
#include "tide/table/table.h"

namespace tide {

Result<TableSchema> Table::ReadSchema(const SnapshotSelector& selector) const { return latest_schema_; }

Result<std::unique_ptr<TableReader>> Table::NewReader(const ReadOptions& options) const {
  return Status::NotSupported("table {}: reading is not implemented yet", name_);
}

}  // namespace tide
